#!/usr/bin/env python3
"""Index and random-generation throughput on ocl, measured side by side in one run.

  1. gather / scatter_add / index_select (float32, int64 indices) in GB/s of
     bytes moved, against clEnqueueCopyBuffer of the same number of bytes on
     the same device (torch_ocl._bench) and against PyTorch on the CPU.
     Bytes counted per output element: gather 4 (src) + 8 (index) + 4 (out);
     scatter_add 4 (src) + 8 (index) + 8 (read + write self);
     index_select (rows of 256 floats) 4 + 4 per element + 8 per row index.
  2. Random generation: torch.rand / torch.randn of float32 in GB/s written,
     ocl (Philox on the device) vs PyTorch's CPU generator, and vs the copy.

Ratios are "ocl GB/s / baseline GB/s": < 1 means ocl is slower. The ocl ops
run under fallback_mode('error') (bench_all.run_native), so what is timed is
native. Timing helpers (warm-up, best of 3 loops, synchronize before the
clock stops) are bench_all.py's.

Run (after the build), from the repository root:
    PYTHONPATH=plugin_api/python python bench/bench_index.py [--quick]
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_all as B  # noqa: E402  (imports torch_ocl)
from torch_ocl import _bench  # noqa: E402

ROW = 256  # index_select row length


def index_cases(n, dev):
    g = torch.Generator().manual_seed(0)
    src = torch.randn(n, generator=g)
    idx = torch.randint(0, n, (n,), generator=g)
    rows = n // ROW
    mat = torch.randn(rows, ROW, generator=g)
    ridx = torch.randint(0, rows, (rows,), generator=g)
    self_ = torch.zeros(n)
    src, idx, mat, ridx, self_ = (t.to(dev) for t in (src, idx, mat, ridx, self_))
    return {
        "gather": (lambda: torch.gather(src, 0, idx), n * 16),
        "scatter_add_": (lambda: self_.scatter_add_(0, idx, src), n * 20),
        "index_select": (lambda: torch.index_select(mat, 0, ridx), rows * ROW * 8 + rows * 8),
    }


def random_cases(n, dev):
    return {
        "rand": (lambda: torch.rand(n, device=dev), n * 4),
        "randn": (lambda: torch.randn(n, device=dev), n * 4),
    }


def copy_gbps(nbytes, target_s):
    est = _bench.copy_buffer_seconds(0, nbytes, 1)
    iters = int(max(1, min(1000, target_s / B.REPEATS / max(est, 1e-7))))
    t = min(_bench.copy_buffer_seconds(0, nbytes, iters) for _ in range(B.REPEATS))
    return 2 * nbytes / t / 1e9


def measure(cases_fn, n, target_s):
    rows = []
    ocl_cases, cpu_cases = cases_fn(n, B.OCL), cases_fn(n, "cpu")
    for name, (f, nbytes) in ocl_cases.items():
        row = {"op": name, "numel": n, "nbytes": nbytes}
        try:
            t, _ = B.run_native(name, lambda: B.adaptive(f, B._sync_ocl, target_s, 1, 1000))
            row["ocl_gbps"] = nbytes / t / 1e9
        except B.NotNative as e:
            row["ocl_status"] = str(e)
        t, _ = B.adaptive(cpu_cases[name][0], B._sync_none, target_s / 2, 1, 1000)
        row["cpu_gbps"] = nbytes / t / 1e9
        row["copy_gbps"] = copy_gbps(nbytes // 2, target_s / 2)  # a copy of nbytes/2 moves nbytes
        rows.append(row)
        print(f"  {name} {n} done", file=sys.stderr, flush=True)
    return rows


def print_rows(title, rows):
    print(f"\n{title}")
    print(f"  {'op':<14}{'numel':>10}{'ocl GB/s':>10}{'cpu GB/s':>10}{'copy GB/s':>11}"
          f"{'ocl/cpu':>9}{'ocl/copy':>10}")
    for r in rows:
        if "ocl_gbps" not in r:
            print(f"  {r['op']:<14}{r['numel']:>10}  {r['ocl_status']}")
            continue
        print(f"  {r['op']:<14}{r['numel']:>10}{r['ocl_gbps']:>10.2f}{r['cpu_gbps']:>10.2f}"
              f"{r['copy_gbps']:>11.2f}{r['ocl_gbps'] / r['cpu_gbps']:>9.2f}"
              f"{r['ocl_gbps'] / r['copy_gbps']:>10.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1M elements only, shorter timings")
    args = ap.parse_args()
    import torch_ocl
    print(f"torch_ocl : {torch_ocl.__file__}")
    print(f"device    : {torch.ocl.get_device_name(0) if hasattr(torch.ocl, 'get_device_name') else 'ocl:0'}")
    print(f"load avg  : {os.getloadavg()[0]:.1f} (1 min; > cores means noisy timings)")
    sizes = [1 << 20] if args.quick else [1 << 20, 1 << 24]
    target_s = 0.3 if args.quick else 0.7
    idx = [r for n in sizes for r in measure(index_cases, n, target_s)]
    rnd = [r for n in sizes for r in measure(random_cases, n, target_s)]
    print_rows("1. indexing (float32 data, int64 indices), GB/s of bytes moved", idx)
    print_rows("2. random generation (float32 written), GB/s", rnd)
    print(f"\nload avg after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
