#!/usr/bin/env python3
"""torch_ocl benchmarks, measured side by side in one run.

  a. torch.mm (float32, square n) on ocl vs a direct CLBlast SGEMM on plain
     cl_mem buffers (torch_ocl._bench) on the same device, plus torch.mm on
     the CPU (and on CUDA when torch.cuda.is_available()).
  b. Elementwise add bandwidth: c = a + b on ocl (3 tensors of traffic) vs
     clEnqueueCopyBuffer of the same nbytes (2 buffers of traffic).
  c. Host latency of a small add (no synchronize per op, one at the end) on
     ocl vs the CPU (and CUDA).

Ratios are "ocl / baseline" in time: > 1 means ocl is slower. The ocl
timings run under torch.ocl.fallback_mode('error'), so an op without a native
kernel raises instead of silently running on the CPU.

Run (after the build), from the repository root:
    PYTHONPATH=plugin_api/python python bench/bench_all.py [--quick] [--json out.json]
"""

import argparse
import json
import os
import platform
import sys
import time

import torch
import torch_ocl  # noqa: F401  registers the "ocl" device and torch.ocl
from torch_ocl import _bench

OCL = torch.device("ocl")


def _sync_ocl():
    torch.ocl.synchronize()


def _sync_cuda():
    torch.cuda.synchronize()


def _sync_none():
    pass


def time_per_call(fn, sync, iters):
    """Seconds per call of fn over iters calls, synchronizing before stopping."""
    sync()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    sync()
    return (time.perf_counter() - t0) / iters


REPEATS = 3  # each timing is the best of REPEATS loops (robust to a busy 2-core host)


def best_of(measure, iters):
    """min over REPEATS of measure(chunk), the iters split into REPEATS chunks."""
    chunk = max(1, iters // REPEATS)
    return min(measure(chunk) for _ in range(REPEATS)), chunk


def adaptive(fn, sync, target_s, min_iters, max_iters, warmup=2):
    """Warm up, estimate one call, then time enough calls to fill ~target_s.

    Returns (seconds per call: best of REPEATS loops, iterations per loop)."""
    for _ in range(warmup):
        fn()
    est = time_per_call(fn, sync, 1)
    iters = int(max(min_iters, min(max_iters, target_s / max(est, 1e-7))))
    return best_of(lambda k: time_per_call(fn, sync, k), iters)


def ocl_native():
    """Context: fallback_mode('error') and fresh fallback stats."""
    torch.ocl.reset_fallback_stats()
    return torch.ocl.fallback_mode("error")


def check_no_fallback(what):
    stats = torch.ocl.fallback_stats()
    if stats:
        raise RuntimeError(f"{what}: ops ran through the CPU fallback: {stats}")


# a. matrix multiply ------------------------------------------------------------

def bench_mm(sizes, target_s, min_iters, has_cuda):
    rows = []
    for n in sizes:
        flop = 2.0 * n * n * n
        a_cpu, b_cpu = torch.randn(n, n), torch.randn(n, n)
        a, b = a_cpu.to(OCL), b_cpu.to(OCL)
        with ocl_native():
            t_ocl, iters = adaptive(lambda: torch.mm(a, b), _sync_ocl, target_s, min_iters, 10000)
            c = torch.mm(a, b)
            torch.ocl.synchronize()
        check_no_fallback(f"mm {n}")
        ref = a_cpu @ b_cpu
        err = ((c.cpu() - ref).abs().max() / ref.abs().max()).item()
        # Same loop length as the ocl timing; _bench warms up once itself per call.
        t_raw = min(_bench.clblast_sgemm_seconds(0, n, n, n, iters) for _ in range(REPEATS))
        t_cpu, iters_cpu = adaptive(lambda: torch.mm(a_cpu, b_cpu), _sync_none, target_s,
                                    min_iters, 10000)
        row = {"n": n, "iters": iters, "ocl_s": t_ocl, "raw_clblast_s": t_raw, "cpu_s": t_cpu,
               "cpu_iters": iters_cpu, "ocl_gflops": flop / t_ocl / 1e9,
               "raw_gflops": flop / t_raw / 1e9, "cpu_gflops": flop / t_cpu / 1e9,
               "ratio_ocl_raw": t_ocl / t_raw, "ratio_ocl_cpu": t_ocl / t_cpu,
               "max_rel_err_vs_cpu": err}
        if has_cuda:
            a_cu, b_cu = a_cpu.cuda(), b_cpu.cuda()
            t_cu, _ = adaptive(lambda: torch.mm(a_cu, b_cu), _sync_cuda, target_s, min_iters,
                               100000)
            row.update(cuda_s=t_cu, cuda_gflops=flop / t_cu / 1e9, ratio_ocl_cuda=t_ocl / t_cu)
            del a_cu, b_cu
        rows.append(row)
        del a, b, c
        print(f"  mm n={n:5d} done ({iters} iters)", file=sys.stderr, flush=True)
    return rows


# b. elementwise add bandwidth ----------------------------------------------------

def bench_add_bandwidth(numel, target_s, min_iters, has_cuda):
    nbytes = numel * 4
    a_cpu, b_cpu = torch.randn(numel), torch.randn(numel)
    a, b = a_cpu.to(OCL), b_cpu.to(OCL)
    with ocl_native():
        t_add, iters = adaptive(lambda: a + b, _sync_ocl, target_s, min_iters, 10000)
    check_no_fallback("add bandwidth")
    t_copy = min(_bench.copy_buffer_seconds(0, nbytes, iters) for _ in range(REPEATS))
    res = {"numel": numel, "nbytes": nbytes, "iters": iters,
           "ocl_add_s": t_add, "ocl_add_gbps": 3 * nbytes / t_add / 1e9,
           "raw_copy_s": t_copy, "raw_copy_gbps": 2 * nbytes / t_copy / 1e9}
    res["ratio_bw_raw_over_ocl"] = res["raw_copy_gbps"] / res["ocl_add_gbps"]
    t_cpu, _ = adaptive(lambda: a_cpu + b_cpu, _sync_none, target_s, min_iters, 10000)
    res.update(cpu_add_s=t_cpu, cpu_add_gbps=3 * nbytes / t_cpu / 1e9)
    if has_cuda:
        a_cu, b_cu = a_cpu.cuda(), b_cpu.cuda()
        t_cu, _ = adaptive(lambda: a_cu + b_cu, _sync_cuda, target_s, min_iters, 100000)
        res.update(cuda_add_s=t_cu, cuda_add_gbps=3 * nbytes / t_cu / 1e9)
        del a_cu, b_cu
    del a, b
    return res


# c. per-op host latency ------------------------------------------------------------

def bench_latency(numel, iters, has_cuda):
    a_cpu, b_cpu = torch.randn(numel), torch.randn(numel)
    a, b = a_cpu.to(OCL), b_cpu.to(OCL)

    def measure(x, y, sync):
        for _ in range(max(50, iters // 10)):  # warm-up (kernel compile, allocator)
            x + y
        return min(time_per_call(lambda: x + y, sync, iters) for _ in range(REPEATS))

    with ocl_native():
        t_ocl = measure(a, b, _sync_ocl)
    check_no_fallback("latency")
    t_cpu = measure(a_cpu, b_cpu, _sync_none)
    res = {"numel": numel, "iters": iters, "ocl_us": t_ocl * 1e6, "cpu_us": t_cpu * 1e6,
           "ratio_ocl_cpu": t_ocl / t_cpu}
    if has_cuda:
        t_cu = measure(a_cpu.cuda(), b_cpu.cuda(), _sync_cuda)
        res.update(cuda_us=t_cu * 1e6, ratio_ocl_cuda=t_ocl / t_cu)
    return res


# report ----------------------------------------------------------------------------

def print_report(meta, mm, bw, lat, has_cuda):
    print(f"device      : {meta['device_name']} ({meta['platform']})")
    print(f"torch       : {meta['torch']}  python {meta['python']}  cpu threads {meta['cpu_threads']}")
    print(f"host load   : {meta['loadavg_start']:.2f} at start, {meta['loadavg_end']:.2f} at end "
          f"(1-min load average; {os.cpu_count()} cpus)")
    if max(meta["loadavg_start"], meta["loadavg_end"]) > 0.5 * (os.cpu_count() or 1):
        print("WARNING     : the host was busy with other work; CPU-side numbers are noisy")
    print(f"timings     : best of {REPEATS} loops of 'iters' calls each")
    if has_cuda:
        print(f"cuda        : {meta['cuda_device']}")
    print()
    print("a. torch.mm float32, square n x n  (ratio = time ocl / time baseline, >1 = ocl slower)")
    hdr = (f"{'n':>5} {'iters':>5} | {'ocl ms':>9} {'raw ms':>9} {'cpu ms':>9} | "
           f"{'ocl GF/s':>8} {'raw GF/s':>8} {'cpu GF/s':>8} | {'ocl/raw':>7} {'ocl/cpu':>7}")
    if has_cuda:
        hdr += f" | {'cuda ms':>9} {'cudaGF/s':>8} {'ocl/cuda':>8}"
    print(hdr)
    print("-" * len(hdr))
    for r in mm:
        line = (f"{r['n']:>5} {r['iters']:>5} | {r['ocl_s']*1e3:>9.3f} {r['raw_clblast_s']*1e3:>9.3f} "
                f"{r['cpu_s']*1e3:>9.3f} | {r['ocl_gflops']:>8.2f} {r['raw_gflops']:>8.2f} "
                f"{r['cpu_gflops']:>8.2f} | {r['ratio_ocl_raw']:>7.2f} {r['ratio_ocl_cpu']:>7.2f}")
        if has_cuda:
            line += f" | {r['cuda_s']*1e3:>9.4f} {r['cuda_gflops']:>8.0f} {r['ratio_ocl_cuda']:>8.1f}"
        print(line)
    print(f"  (ocl result vs CPU: max relative error "
          f"{max(r['max_rel_err_vs_cpu'] for r in mm):.2e})")
    print()
    mib = bw["nbytes"] / 2**20
    print(f"b. elementwise add bandwidth, {bw['numel']} float32 ({mib:.0f} MiB per tensor), "
          f"{bw['iters']} iters")
    print(f"   ocl  c = a + b          : {bw['ocl_add_s']*1e3:9.3f} ms  {bw['ocl_add_gbps']:8.2f} GB/s"
          f"  (3 x nbytes)")
    print(f"   raw  clEnqueueCopyBuffer: {bw['raw_copy_s']*1e3:9.3f} ms  {bw['raw_copy_gbps']:8.2f} GB/s"
          f"  (2 x nbytes)")
    print(f"   cpu  c = a + b          : {bw['cpu_add_s']*1e3:9.3f} ms  {bw['cpu_add_gbps']:8.2f} GB/s")
    if has_cuda:
        print(f"   cuda c = a + b          : {bw['cuda_add_s']*1e3:9.4f} ms  "
              f"{bw['cuda_add_gbps']:8.1f} GB/s")
    print(f"   ratio raw GB/s / ocl GB/s = {bw['ratio_bw_raw_over_ocl']:.2f}  (>1 = ocl add slower)")
    print()
    print(f"c. host latency of a small add ({lat['numel']} float32, {lat['iters']} ops per loop, "
          f"one synchronize at the end)")
    print(f"   ocl {lat['ocl_us']:8.2f} us/op   cpu {lat['cpu_us']:8.2f} us/op   "
          f"ratio ocl/cpu = {lat['ratio_ocl_cpu']:.2f}")
    if has_cuda:
        print(f"   cuda {lat['cuda_us']:7.2f} us/op   ratio ocl/cuda = {lat['ratio_ocl_cuda']:.2f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer sizes, shorter timings")
    p.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    p.add_argument("--sizes", type=int, nargs="+", help="override the mm sizes")
    p.add_argument("--no-cuda", action="store_true", help="skip the CUDA columns")
    args = p.parse_args()

    if not torch.ocl.is_available():
        sys.exit("no ocl device")
    has_cuda = (not args.no_cuda) and torch.cuda.is_available()
    if args.quick:
        sizes, target_s, min_iters = [64, 256, 1024], 0.3, 1
        add_numel, lat_iters = 4 << 20, 500
    else:
        sizes, target_s, min_iters = [64, 128, 256, 512, 1024, 2048], 2.0, REPEATS
        add_numel, lat_iters = 16 << 20, 2000
    if args.sizes:
        sizes = args.sizes

    props = torch.ocl.get_device_properties()
    meta = {"device_name": torch.ocl.get_device_name(), "platform": props.platform,
            "driver": props.driver_version, "torch": torch.__version__,
            "python": platform.python_version(), "cpu_threads": torch.get_num_threads(),
            "quick": args.quick}
    if has_cuda:
        meta["cuda_device"] = torch.cuda.get_device_name()
    print(f"device: {meta['device_name']}", file=sys.stderr, flush=True)

    meta["loadavg_start"] = os.getloadavg()[0]
    t0 = time.perf_counter()
    mm = bench_mm(sizes, target_s, min_iters, has_cuda)
    bw = bench_add_bandwidth(add_numel, target_s, min_iters, has_cuda)
    lat = bench_latency(1000, lat_iters, has_cuda)
    meta["wall_s"] = time.perf_counter() - t0
    meta["loadavg_end"] = os.getloadavg()[0]
    meta["repeats"] = REPEATS

    print_report(meta, mm, bw, lat, has_cuda)
    print(f"\n(total {meta['wall_s']:.1f} s)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "mm": mm, "add_bandwidth": bw, "latency": lat}, f, indent=2)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
