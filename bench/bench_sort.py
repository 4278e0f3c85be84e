"""Sort and topk on ocl against PyTorch on the CPU, in one run.

    PYTHONPATH=plugin_api/python python bench/bench_sort.py [--n 1000000] [--json out.json]

Rows: sort of n float32 (stable, ascending), topk(k=10) and topk(k=100) of n
float32. Each number is the best of 3 loops after a warm-up call (the first
call compiles the kernels); torch.ocl.synchronize() before the clock stops.
The ocl calls run under fallback_mode('error') and the fallback counters are
checked, so what is timed is native. Ratio = ocl time / CPU time (> 1: ocl
is slower). The ocl results are compared with the CPU's before timing.
"""

import argparse
import json
import os

import torch
import torch_ocl

from timing import best_time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    print(f"torch_ocl : {torch_ocl.__file__}")
    print(f"device    : {torch.ocl.get_device_name(0) if hasattr(torch.ocl, 'get_device_name') else 'ocl:0'}")
    print(f"load avg  : {os.getloadavg()[0]:.2f}")
    x = torch.randn(args.n)
    xo = x.to("ocl")
    rows = [
        ("sort", lambda t: t.sort(stable=True)),
        ("topk k=10", lambda t: t.topk(10)),
        ("topk k=100", lambda t: t.topk(100)),
    ]
    torch.ocl.reset_fallback_stats()
    results = []
    print(f"\n{'op (n=' + str(args.n) + ' float32)':28} {'ocl ms':>10} {'cpu ms':>10} {'ocl/cpu':>9}")
    for name, fn in rows:
        with torch.ocl.fallback_mode("error"):
            ov = fn(xo)[0].cpu()
            assert torch.equal(ov, fn(x)[0]), name
            t_ocl = best_time(lambda: fn(xo), torch.ocl.synchronize, max_iters=50).wall
        t_cpu = best_time(lambda: fn(x), lambda: None, max_iters=50).wall
        results.append({"op": name, "n": args.n, "ocl_s": t_ocl, "cpu_s": t_cpu, "ratio": t_ocl / t_cpu})
        print(f"{name:28} {t_ocl * 1e3:10.2f} {t_cpu * 1e3:10.2f} {t_ocl / t_cpu:9.2f}")
    assert not torch.ocl.fallback_stats(), torch.ocl.fallback_stats()
    print(f"\nload avg  : {os.getloadavg()[0]:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
