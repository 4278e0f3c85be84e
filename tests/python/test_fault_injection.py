"""Fault injection (backend/fault_injection.h, TORCH_OCL_FAULT): the N-th call
of an OpenCL entry point fails; the error must name the call and the code,
leak no device memory, deadlock nothing, and leave the device usable.

The walk (torch_ocl.testing.faults) runs in its own interpreter with a
timeout, so a deadlock fails the test instead of hanging the suite.
"""

import re

import pytest
import torch

from torch_ocl import _C
from torch_ocl.testing import faults


def test_walk_every_fault_point(run_python, tmp_path):
    # A fresh kernel cache: the walk's program builds compile from source.
    r = run_python(None, env={"TORCH_OCL_CACHE_DIR": str(tmp_path)},
                   args=["-m", "torch_ocl.testing.faults"], timeout=400)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "violations: 0" in r.stdout
    lines = [l for l in r.stdout.splitlines() if "fired=" in l]
    # every entry point was reached by the sequence and failed at least once
    for point in faults.POINTS:
        assert any(l.startswith(point + ":") and "fired=1" in l for l in lines), point
    # a hard error surfaces as RuntimeError at every point but unmap (a deleter: warns)
    assert any(l.startswith("clBuildProgram:") and "RuntimeError" in l for l in lines), lines
    assert "clEnqueueUnmapMemObject failed while freeing pinned memory" in r.stderr
    injected = int(r.stdout.split("faults injected: ")[1].split(",")[0])
    assert injected == len(lines)


def test_env_var_arms_at_start(run_python):
    r = run_python(None, env={"TORCH_OCL_FAULT": "clEnqueueNDRangeKernel:1:CL_INVALID_KERNEL_ARGS"},
                   args=["-c", "import torch, torch_ocl\n"
                         "try:\n    torch.ones(3, device='ocl') + 1\n"
                         "except RuntimeError as e:\n    print('ERR', e)\n"
                         "print((torch.ones(3, device='ocl') + 1).cpu().tolist())\n"])
    assert r.returncode == 0, r.stderr[-3000:]
    assert "ERR OpenCL call clEnqueueNDRangeKernel" in r.stdout and "CL_INVALID_KERNEL_ARGS (-52)" in r.stdout, r.stdout
    assert "[2.0, 2.0, 2.0]" in r.stdout


def test_in_process_fault_and_recovery():
    x = torch.arange(10.0, device="ocl")
    before = torch.ocl.memory_allocated()
    try:
        _C._set_fault("clEnqueueNDRangeKernel:1:CL_OUT_OF_RESOURCES")
        with pytest.raises(RuntimeError, match=r"clEnqueueNDRangeKernel.*CL_OUT_OF_RESOURCES \(-5\)"):
            x.mul(3)
        assert _C._fault_counts()["fired"] == 1
    finally:
        _C._set_fault("")
    assert torch.ocl.memory_allocated() == before
    assert x.mul(3).cpu().tolist() == [3.0 * i for i in range(10)]


@pytest.mark.parametrize("spec,message", [
    ("clNoSuchCall:1", "unknown entry point 'clNoSuchCall'"),
    ("clCreateBuffer:0", "N must be a positive call number"),
    ("clCreateBuffer", "expected entry:N"),
    ("clCreateBuffer:1:CL_NOT_A_CODE", "unknown OpenCL error code 'CL_NOT_A_CODE'"),
])
def test_malformed_spec(spec, message):
    with pytest.raises(RuntimeError, match=message):
        _C._set_fault(spec)
    assert _C._fault_counts()["fired"] == 0


def test_a_fatal_signal_is_reported_with_thread_and_native_backtrace(run_python):
    # TORCH_OCL_CRASH_REPORT=1: the crashing thread's name and native frames go to
    # stderr, then the previous handler (faulthandler's Python stacks) runs and
    # the process still dies of the signal.
    r = run_python(None, env={"TORCH_OCL_CRASH_REPORT": "1"},
                   args=["-X", "faulthandler", "-c", "import torch, torch_ocl, ctypes\nctypes.string_at(0)\n"])
    assert r.returncode == -11, (r.returncode, r.stderr[-3000:])
    found = re.search(r"torch_ocl crash report: signal 11 \(SEGV\) in thread '[^']+' \(tid \d+\)", r.stderr)
    assert found, r.stderr[-3000:]  # (the main thread is named after the executable: python, python3, ...)
    report = found.start()
    end = r.stderr.index("(end of torch_ocl crash report)")
    assert "libc.so" in r.stderr[report:end], r.stderr[report:end]  # native frames, not Python's
    assert r.stderr.index("Fatal Python error: Segmentation fault") > end, r.stderr[-3000:]
