"""Fault injection walk: makes the N-th call of each OpenCL entry point fail
(backend/fault_injection.h, test-only) for every N that a short op sequence
reaches, and checks after each failure that

- the error is a RuntimeError naming the OpenCL call and the error code,
- device memory is back to its value before the sequence (no leak),
- the next run of the sequence works and gives exact results (no deadlock,
  no poisoned state).

``python -m torch_ocl.testing.faults [--points clCreateBuffer,...]`` prints
one line per fault and exits non-zero on a violation. Run it in its own
process with a timeout: a deadlock shows up as the timeout.
"""

import argparse
import gc
import sys

import torch

import torch_ocl  # noqa: F401
from torch_ocl import _C

POINTS = ("clCreateBuffer", "clEnqueueNDRangeKernel", "clBuildProgram", "clEnqueueReadBuffer",
          "clEnqueueWriteBuffer", "clEnqueueCopyBuffer", "clEnqueueMapBuffer", "clEnqueueUnmapMemObject")
# The code each point fails with; clCreateBuffer is walked twice: an
# out-of-memory code (the allocator frees its cache and retries, so the op may
# succeed or raise torch.OutOfMemoryError) and a hard error.
CODES = {"clCreateBuffer": ("CL_MEM_OBJECT_ALLOCATION_FAILURE", "CL_INVALID_VALUE")}
DEFAULT_CODE = ("CL_OUT_OF_RESOURCES",)

_build_serial = [0]


def sequence():
    """alloc + H2D, a kernel, a D2D copy, a storage growth (a buffer-to-buffer
    copy), D2H, pinned host memory, a new program build. Returns nothing;
    raises on a wrong result."""
    torch.ocl.empty_cache()  # so that allocations reach clCreateBuffer
    x = torch.arange(1000, dtype=torch.float32).to("ocl")
    y = x * 2 + 1
    z = y.clone()
    host = z.cpu()
    expect = torch.arange(1000, dtype=torch.float32) * 2 + 1
    if not torch.equal(host, expect):
        raise AssertionError("wrong result after a fault")
    grown = y.clone()
    grown.resize_(2000)  # keeps the first 1000 values (clEnqueueCopyBuffer)
    if not torch.equal(grown[:1000].cpu(), expect):
        raise AssertionError("wrong values after a storage growth after a fault")
    if y.sum().item() != expect.sum().item():
        raise AssertionError("wrong sum after a fault")
    picked = y[torch.tensor([3, 997], device="ocl")].cpu()
    if picked.tolist() != [7.0, 1995.0]:
        raise AssertionError("wrong index result after a fault")
    pinned = torch.empty(256).pin_memory()
    pinned.copy_(host[:256])
    del pinned
    _build_serial[0] += 1
    n = _build_serial[0]
    _C._build_program("faultwalk%d" % n, "__kernel void k(__global int* p) { p[0] = %d; }\n" % n, 0)


def walk(points=POINTS, log=print):
    """Returns (faults injected, violations)."""
    sequence()  # warm: kernels built
    baseline = torch.ocl.memory_allocated()
    _C._set_fault("count")
    sequence()
    counts = _C._fault_counts()
    _C._set_fault("")
    injected, violations = 0, []
    for point in points:
        for code in CODES.get(point, DEFAULT_CODE):
            for nth in range(1, counts[point] + 1):
                spec = "%s:%d:%s" % (point, nth, code)
                _C._set_fault(spec)
                outcome = "ok"
                try:
                    sequence()
                except RuntimeError as e:
                    msg = str(e)
                    outcome = type(e).__name__
                    if point not in msg or code not in msg:
                        violations.append("%s: error does not name the call and code: %s" % (spec, msg[:300]))
                    oom = isinstance(e, torch.OutOfMemoryError)
                    if oom and code == "CL_INVALID_VALUE":
                        violations.append("%s: a non-memory error raised as OutOfMemoryError" % spec)
                fired = _C._fault_counts()["fired"]
                _C._set_fault("")
                injected += fired
                gc.collect()
                try:
                    torch.ocl.synchronize()
                except RuntimeError as e:
                    violations.append("%s: synchronize after the fault raised: %s" % (spec, str(e)[:300]))
                if torch.ocl.memory_allocated() != baseline:
                    violations.append("%s: memory_allocated %d, was %d" % (spec, torch.ocl.memory_allocated(), baseline))
                try:
                    sequence()
                except Exception as e:  # noqa: BLE001
                    violations.append("%s: the next run failed: %s" % (spec, str(e)[:300]))
                log("%-50s fired=%d %s" % (spec, fired, outcome))
    return injected, violations


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--points", default=",".join(POINTS), help="comma-separated OpenCL entry points")
    args = ap.parse_args(argv)
    points = [p for p in args.points.split(",") if p]
    for p in points:
        if p not in POINTS:
            ap.error("unknown entry point %r (known: %s)" % (p, ", ".join(POINTS)))
    injected, violations = walk(points)
    for v in violations:
        print("VIOLATION", v)
    print("faults injected: %d, violations: %d" % (injected, len(violations)))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
