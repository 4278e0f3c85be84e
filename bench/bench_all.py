#!/usr/bin/env python3
"""torch_ocl benchmarks, measured side by side in one run.

  a. torch.mm (float32, square n) on ocl vs a direct CLBlast SGEMM on plain
     cl_mem buffers (torch_ocl._bench) on the same device, plus torch.mm on
     the CPU (and on CUDA when torch.cuda.is_available()).
  b. Elementwise add bandwidth: c = a + b on ocl (3 tensors of traffic) vs
     clEnqueueCopyBuffer of the same nbytes (2 buffers of traffic).
  c. Host latency of small ops (add, relu, sum of 1000 float32; no synchronize
     per op, one at the end) on ocl vs the CPU (and CUDA).
  d. Elementwise bandwidth (float32, 1M and 16M elements): a + b, relu(a),
     a.clone(), a.t() + b.t() in GB/s vs two raw baselines measured in the same
     run: clEnqueueCopyBuffer and the best of several raw OpenCL copy kernels.
  e. Reduction bandwidth: a.sum() (1M, 16M) and a.sum(dim=0|1) of a square
     matrix, GB/s of bytes read, vs the same copy baselines.
  f. Compile time of pointwise programs: first call in a fresh process with an
     empty TORCH_OCL_CACHE_DIR (cold disk), in a second fresh process with the
     now-filled cache (warm disk), and a second call in-process (warm memory).
  h. Convolution forward + backward (conv2d, float32): ResNet-18 layer shapes
     at batch 8 (batch 2 with --quick), all three gradients, ocl vs PyTorch
     on the CPU (and CUDA), in GFLOP/s of the three convolutions' math.
  g. Random number throughput: a.uniform_() and a.normal_() (float32, 1M and
     16M elements, Philox on the device) in GB/s of float32 written, vs the
     same copy baselines (and the CPU's generator).

Ratios in a-c are "ocl / baseline" in time: > 1 means ocl is slower; in d-e
they are "ocl GB/s / baseline GB/s": < 1 means ocl is slower. The ocl timings
run under torch.ocl.fallback_mode('error'), so an op without a native kernel
raises instead of silently running on the CPU; in c-f such an op is reported
as "not native" and the script goes on.

Run (after the build), from the repository root:
    PYTHONPATH=plugin_api/python python bench/bench_all.py [--quick] [--json out.json]
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
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


def time_per_call(fn, sync, iters, thread=False):
    """Seconds per call of fn over iters calls, synchronizing before stopping.
    With thread=True: (those seconds, this thread's CPU seconds per call up to
    the last call, the final synchronize left out)."""
    sync()
    t0, c0 = time.perf_counter(), time.thread_time()
    for _ in range(iters):
        fn()
    cpu = (time.thread_time() - c0) / iters
    sync()
    wall = (time.perf_counter() - t0) / iters
    return (wall, cpu) if thread else wall


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


class NotNative(Exception):
    """An ocl op that has no native kernel (or failed) in this build."""


def run_native(what, fn):
    """fn() under fallback_mode('error'); NotNative instead of a fallback or an error."""
    try:
        with ocl_native():
            out = fn()
        torch.ocl.synchronize()
    except RuntimeError as e:
        msg = str(e).split("\n")[0]
        if "no native ocl kernel" in msg:
            raise NotNative("not native") from None
        raise NotNative(f"error: {msg[:120]}") from None
    stats = torch.ocl.fallback_stats()
    if stats:
        raise NotNative(f"not native (fallback: {', '.join(stats)})")
    return out


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

LATENCY_OPS = {  # name -> fn(a, b); device work is negligible at 1000 elements
    "add": lambda x, y: x + y,
    "relu": lambda x, y: torch.relu(x),
    "mul 0.5": lambda x, y: x * 0.5,  # a Python scalar operand
    "sum": lambda x, y: x.sum(),
}


def bench_latency(numel, iters, has_cuda):
    a_cpu, b_cpu = torch.randn(numel), torch.randn(numel)
    a, b = a_cpu.to(OCL), b_cpu.to(OCL)

    def measure(f, x, y, sync, thread=False):
        """Best wall seconds per op; with thread=True also the best CPU seconds
        of this (the issuing) thread per op, without the final synchronize."""
        for _ in range(max(50, iters // 10)):  # warm-up (kernel compile, allocator)
            f(x, y)
        loops = [time_per_call(lambda: f(x, y), sync, iters, thread=True) for _ in range(REPEATS)]
        wall = min(w for w, _ in loops)
        return (wall, min(c for _, c in loops)) if thread else wall

    rows = []
    for name, f in LATENCY_OPS.items():
        row = {"op": name, "numel": numel, "iters": iters}
        try:
            t_ocl, t_thread = run_native(f"latency {name}", lambda: measure(f, a, b, _sync_ocl, thread=True))
            row["ocl_us"], row["ocl_thread_us"] = t_ocl * 1e6, t_thread * 1e6
            batch = torch.ocl.launch_batch()
            row["launch_batch"] = batch
            if batch > 1:  # the same op with every launch submitted at once (TORCH_OCL_SUBMIT_BATCH=1)
                torch.ocl.set_launch_batch(1)
                try:
                    row["ocl_unbatched_us"] = measure(f, a, b, _sync_ocl) * 1e6
                finally:
                    torch.ocl.set_launch_batch(batch)
            # the same op through ATen's structured path (TensorIterator; TORCH_OCL_DIRECT_POINTWISE=0)
            torch_ocl._C._set_direct_pointwise(False)
            try:
                row["ocl_structured_us"] = measure(f, a, b, _sync_ocl) * 1e6
            finally:
                torch_ocl._C._set_direct_pointwise(True)
        except NotNative as e:
            t_ocl, row["ocl_status"] = None, str(e)
        t_cpu, t_cpu_thread = measure(f, a_cpu, b_cpu, _sync_none, thread=True)
        row["cpu_us"], row["cpu_thread_us"] = t_cpu * 1e6, t_cpu_thread * 1e6
        if t_ocl:
            row["ratio_ocl_cpu"] = t_ocl / t_cpu
        if has_cuda:
            t_cu = measure(f, a_cpu.cuda(), b_cpu.cuda(), _sync_cuda)
            row["cuda_us"] = t_cu * 1e6
            if t_ocl:
                row["ratio_ocl_cuda"] = t_ocl / t_cu
        rows.append(row)
    # The floor under any ocl op on this host: a raw launch of a small copy
    # kernel from a C loop (arguments set once, submitted in the same batches),
    # beside PyTorch's own cost of the op (its CPU add: binding, dispatch,
    # output tensor and 1000 additions). Rounds interleave the three timings
    # (a busy host moves all three) and torch_ocl's share is each round's
    # ocl - cpu - raw; the median round is reported.
    if "ocl_thread_us" not in next(r for r in rows if r["op"] == "add"):
        return rows  # the add is not native: no floor to split it against
    batch = torch.ocl.launch_batch()
    add = LATENCY_OPS["add"]
    rounds = []
    for _ in range(5):
        raw_wall, raw_thread = _bench.raw_launch_seconds(0, numel * 4, iters, batch)
        _, ocl_thread = measure(add, a, b, _sync_ocl, thread=True)
        _, cpu_thread = measure(add, a_cpu, b_cpu, _sync_none, thread=True)
        rounds.append((ocl_thread - cpu_thread - raw_thread, ocl_thread, cpu_thread, raw_thread, raw_wall))
    rounds.sort()
    own, ocl_thread, cpu_thread, raw_thread, raw_wall = rounds[len(rounds) // 2]
    floor = {"op": "raw launch", "numel": numel, "iters": iters, "launch_batch": batch, "rounds": len(rounds),
             "raw_us": raw_wall * 1e6, "raw_thread_us": raw_thread * 1e6, "add_ocl_thread_us": ocl_thread * 1e6,
             "add_cpu_thread_us": cpu_thread * 1e6, "own_thread_us": own * 1e6,
             "own_thread_us_range": [rounds[0][0] * 1e6, rounds[-1][0] * 1e6]}
    rows.append(floor)
    return rows


# d./e. bandwidth of elementwise ops and reductions against raw copies ----------------

def copy_baselines(nbytes, target_s):
    """GB/s (2 x nbytes: read + write) of clEnqueueCopyBuffer and of each raw copy kernel."""
    def measure(f):
        est = f(1)  # includes one warm-up call
        iters = int(max(1, min(10000, target_s / REPEATS / max(est, 1e-7))))
        return min(f(iters) for _ in range(REPEATS))

    res = {"nbytes": nbytes}
    t = measure(lambda k: _bench.copy_buffer_seconds(0, nbytes, k))
    res["copy_buffer_gbps"] = 2 * nbytes / t / 1e9
    kernels = {}
    for v in _bench.copy_kernel_variants():
        t = measure(lambda k, v=v: _bench.copy_kernel_seconds(0, v, nbytes, k))
        kernels[v] = 2 * nbytes / t / 1e9
    res["copy_kernels_gbps"] = kernels
    res["best_kernel"] = max(kernels, key=kernels.get)
    res["best_kernel_gbps"] = kernels[res["best_kernel"]]
    return res


# name -> (make inputs from numel on a device, fn, tensors of traffic counted)
def _vec(n, dev):
    return torch.randn(n, device="cpu").to(dev), torch.randn(n, device="cpu").to(dev)


def _square(n, dev):
    side = int(round(n ** 0.5))
    assert side * side == n, n
    return (torch.randn(side, side).to(dev), torch.randn(side, side).to(dev))


ELEMENTWISE_OPS = {
    "a + b": (_vec, lambda a, b: a + b, 3),
    "relu(a)": (_vec, lambda a, b: torch.relu(a), 2),
    "a.clone()": (_vec, lambda a, b: a.clone(), 2),
    "a.t() + b.t()": (_square, lambda a, b: a.t() + b.t(), 3),
}
RANDOM_OPS = {  # counted as 1 tensor written
    "a.uniform_()": (_vec, lambda a, b: a.uniform_(), 1),
    "a.normal_()": (_vec, lambda a, b: a.normal_(), 1),
}
REDUCTION_OPS = {  # counted as 1 tensor read (the output is 1 element or one row)
    "a.sum()": (_vec, lambda a, b: a.sum(), 1),
    "a.sum(dim=0)": (_square, lambda a, b: a.sum(dim=0), 1),
    "a.sum(dim=1)": (_square, lambda a, b: a.sum(dim=1), 1),
}


def bench_bandwidth(ops, numels, baselines, target_s, has_cuda, cpu_ref):
    rows = []
    for numel in numels:
        nbytes = numel * 4
        base = baselines[nbytes]
        for name, (make, f, ntensors) in ops.items():
            row = {"op": name, "numel": numel, "nbytes": nbytes, "tensors_counted": ntensors}
            if make is _square:
                side = int(round(numel ** 0.5))
                row["shape"] = f"{side}x{side}"
            traffic = ntensors * nbytes
            a, b = make(numel, OCL)
            try:
                t, iters = run_native(name, lambda: adaptive(lambda: f(a, b), _sync_ocl,
                                                             target_s, 1, 10000))
                gbps = traffic / t / 1e9
                row.update(iters=iters, ocl_s=t, ocl_gbps=gbps,
                           ratio_vs_best_copy=gbps / base["best_kernel_gbps"],
                           ratio_vs_copy_buffer=gbps / base["copy_buffer_gbps"])
            except NotNative as e:
                row["ocl_status"] = str(e)
            del a, b
            if cpu_ref:
                a, b = make(numel, "cpu")
                t, _ = adaptive(lambda: f(a, b), _sync_none, target_s / 2, 1, 10000)
                row["cpu_gbps"] = traffic / t / 1e9
                del a, b
            if has_cuda:
                a, b = make(numel, "cuda")
                t, _ = adaptive(lambda: f(a, b), _sync_cuda, target_s / 2, 1, 100000)
                row["cuda_gbps"] = traffic / t / 1e9
                del a, b
            rows.append(row)
            print(f"  {name} {numel} done", file=sys.stderr, flush=True)
    return rows


# h. convolution forward + backward ---------------------------------------------------

# name -> (in channels, out channels, height = width, kernel, stride)
CONV_SHAPES = {
    "layer1 3x3 64@56": (64, 64, 56, 3, 1),
    "layer2 3x3 128@28": (128, 128, 28, 3, 1),
    "layer3 3x3 256@14": (256, 256, 14, 3, 1),
    "layer2 down 1x1 s2": (64, 128, 56, 1, 2),
}


def bench_conv(batch, target_s, has_cuda):
    """conv2d forward + backward (grad input, weight and bias) per shape."""
    rows = []
    for name, (cin, cout, hw, k, stride) in CONV_SHAPES.items():
        x_cpu, w_cpu, b_cpu = torch.randn(batch, cin, hw, hw), torch.randn(cout, cin, k, k), torch.randn(cout)
        out_hw = (hw + 2 * (k // 2) - k) // stride + 1
        g_cpu = torch.randn(batch, cout, out_hw, out_hw)
        # forward 2*N*O*L*C*K; grad input and grad weight the same again each
        flop = 3 * 2.0 * batch * cout * out_hw * out_hw * cin * k * k
        row = {"shape": name, "batch": batch, "gflop": flop / 1e9}

        def step(x, w, b, g):
            x.grad = w.grad = b.grad = None
            torch.nn.functional.conv2d(x, w, b, stride=stride, padding=k // 2).backward(g)

        def leaves(dev):
            return [t.to(dev).requires_grad_() for t in (x_cpu, w_cpu, b_cpu)] + [g_cpu.to(dev)]

        args = leaves(OCL)
        try:
            t, iters = run_native(f"conv {name}", lambda: adaptive(lambda: step(*args), _sync_ocl,
                                                                   target_s, 1, 1000, warmup=1))
            row.update(iters=iters, ocl_s=t, ocl_gflops=flop / t / 1e9)
        except NotNative as e:
            row["ocl_status"] = str(e)
        del args
        # The three GEMMs the convolution runs (forward, grad input, grad
        # weight) alone, as torch.mm on ocl with the whole batch as columns:
        # conv time / GEMM time is the cost of im2col/col2im, bias and layout.
        kk, cols = cin * k * k, batch * out_hw * out_hw
        wm, cm, gm = (torch.randn(*s_).to(OCL) for s_ in ((cout, kk), (kk, cols), (cout, cols)))
        try:
            t, _ = run_native(f"conv gemms {name}", lambda: adaptive(
                lambda: (wm @ cm, wm.t() @ gm, gm @ cm.t()), _sync_ocl, target_s, 1, 1000, warmup=1))
            row.update(gemm_s=t, conv_over_gemm=row["ocl_s"] / t if "ocl_s" in row else float("nan"))
        except NotNative as e:
            row["gemm_status"] = str(e)
        del wm, cm, gm
        args = leaves("cpu")
        t, _ = adaptive(lambda: step(*args), _sync_none, target_s, 1, 1000, warmup=1)
        row.update(cpu_s=t, cpu_gflops=flop / t / 1e9)
        if "ocl_s" in row:
            row["ratio_ocl_cpu"] = row["ocl_s"] / t
        if has_cuda:
            args = leaves("cuda")
            t, _ = adaptive(lambda: step(*args), _sync_cuda, target_s, 1, 10000)
            row.update(cuda_s=t, cuda_gflops=flop / t / 1e9)
            if "ocl_s" in row:
                row["ratio_ocl_cuda"] = row["ocl_s"] / t
        rows.append(row)
        print(f"  conv {name} done", file=sys.stderr, flush=True)
    return rows


def print_conv(rows, has_cuda):
    print(f"h. conv2d forward + backward (grad input, weight, bias), float32, batch {rows[0]['batch']}, "
          "padding k//2 (ratio = time ocl / time cpu, >1 = ocl slower)")
    print("   gemm ms = the convolution's three GEMMs alone as torch.mm on ocl; conv/gemm = im2col/col2im + bias overhead")
    hdr = (f"   {'shape':<20} {'GFLOP':>6} | {'ocl ms':>9} {'cpu ms':>9} | {'ocl GF/s':>8} {'cpu GF/s':>8} | {'ocl/cpu':>7}"
           f" | {'gemm ms':>8} {'conv/gemm':>9}")
    if has_cuda:
        hdr += f" | {'cuda ms':>8} {'ocl/cuda':>8}"
    print(hdr)
    for r in rows:
        line = f"   {r['shape']:<20} {r['gflop']:>6.2f} | "
        if "ocl_s" in r:
            line += f"{r['ocl_s']*1e3:>9.1f} {r['cpu_s']*1e3:>9.1f} | {r['ocl_gflops']:>8.2f} {r['cpu_gflops']:>8.2f} | {r['ratio_ocl_cpu']:>7.2f}"
        else:
            line += f"{r['ocl_status'][:19]:>19} | {'-':>8} {r['cpu_gflops']:>8.2f} | {'-':>7}"
        line += f" | {r['gemm_s']*1e3:>8.1f} {r['conv_over_gemm']:>9.2f}" if "gemm_s" in r else f" | {'-':>8} {'-':>9}"
        if has_cuda:
            line += f" | {r['cuda_s']*1e3:>8.3f} {r.get('ratio_ocl_cuda', float('nan')):>8.1f}"
        print(line)


# f. compile time of pointwise programs ---------------------------------------------

COMPILE_OPS = {  # name -> fn(x, y); distinct programs on float32 and float16
    "exp": lambda x, y: torch.exp(x),
    "add": lambda x, y: x + y,
    "sigmoid": lambda x, y: torch.sigmoid(x),
    "sum": lambda x, y: x.sum(),
}
COMPILE_DTYPES = {"float32": torch.float32, "float16": torch.float16}


def _program_stats():
    f = getattr(torch_ocl._C, "program_cache_stats", None)
    return dict(f()) if f else None


def compile_child(dtypes):
    """Runs in a fresh process: first and second call of each op; prints JSON."""
    out = {"import_cache_dir": torch.ocl.cache_dir() if hasattr(torch.ocl, "cache_dir") else None,
           "ops": []}
    inputs = {}
    for dt in dtypes:  # inputs made (and the device initialised) before any timing
        inputs[dt] = tuple(torch.rand(4096).to(COMPILE_DTYPES[dt]).to(OCL) for _ in range(2))
    torch.ocl.synchronize()
    out["stats_start"] = _program_stats()
    for dt in dtypes:
        x, y = inputs[dt]
        for name, f in COMPILE_OPS.items():
            row = {"op": name, "dtype": dt}
            before = _program_stats()
            try:
                t0 = time.perf_counter()
                run_native(name, lambda: f(x, y))  # synchronizes
                row["first_ms"] = (time.perf_counter() - t0) * 1e3
                t0 = time.perf_counter()
                run_native(name, lambda: f(x, y))
                row["second_ms"] = (time.perf_counter() - t0) * 1e3
            except NotNative as e:
                row["status"] = str(e)
            after = _program_stats()
            if before is not None:
                row["stats_delta"] = {k: after[k] - before[k] for k in after}
            out["ops"].append(row)
    out["stats_end"] = _program_stats()
    print("COMPILE_JSON " + json.dumps(out))


def bench_compile(dtypes):
    tmp = tempfile.mkdtemp(prefix="torch_ocl_bench_cache_")
    # The driver's own caches are pointed into the same empty folder, so that
    # "cold" is cold for the OpenCL compiler too: PoCL keeps built kernels in
    # POCL_CACHE_DIR (default ~/.cache/pocl), NVIDIA in CUDA_CACHE_PATH.
    env = dict(os.environ, TORCH_OCL_CACHE_DIR=os.path.join(tmp, "torch_ocl"),
               POCL_CACHE_DIR=os.path.join(tmp, "pocl"),
               CUDA_CACHE_PATH=os.path.join(tmp, "nv"))
    runs = []
    try:
        # Three processes: on PoCL a program's binary is written at its second
        # build from source (TORCH_OCL_CACHE_SAVE, README "Kernel cache on
        # disk"), so the second process rebuilds and saves, and the third loads.
        for label in ("cold_disk", "second_disk", "warm_disk"):
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--compile-child",
                                ",".join(dtypes)], env=env, capture_output=True, text=True,
                               timeout=600)
            wall = time.perf_counter() - t0
            line = [l for l in p.stdout.splitlines() if l.startswith("COMPILE_JSON ")]
            if p.returncode != 0 or not line:
                raise RuntimeError(f"compile child ({label}) failed, rc {p.returncode}:\n"
                                   f"{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
            r = json.loads(line[0][len("COMPILE_JSON "):])
            r.update(label=label, process_wall_s=wall)
            runs.append(r)
            print(f"  compile {label} done ({wall:.1f} s)", file=sys.stderr, flush=True)
        n_files = sum(len(fs) for _, _, fs in os.walk(env["TORCH_OCL_CACHE_DIR"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    cold, second, warm = runs
    rows = []
    for c, s2, w in zip(cold["ops"], second["ops"], warm["ops"]):
        row = {"op": c["op"], "dtype": c["dtype"]}
        if "first_ms" in c and "first_ms" in s2 and "first_ms" in w:
            row.update(cold_disk_ms=c["first_ms"], second_disk_ms=s2["first_ms"], warm_disk_ms=w["first_ms"],
                       warm_memory_ms=min(c["second_ms"], w["second_ms"]))
        else:
            row["status"] = c.get("status") or w.get("status")
        if "stats_delta" in c:
            row["cold_stats"], row["warm_stats"] = c["stats_delta"], w["stats_delta"]
        rows.append(row)
    return {"cache_dir_files": n_files, "rows": rows, "runs": runs}


# report ----------------------------------------------------------------------------

def print_report(meta, mm, bw, lat, has_cuda):  # sections a-c
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
    print_latency(lat, has_cuda)


def print_latency(lat, has_cuda):  # section c
    print(f"c. host latency of small ops ({lat[0]['numel']} float32, {lat[0]['iters']} ops per "
          f"loop, one synchronize at the end; ratio = time ocl / time cpu)")
    hdr = f"   {'op':<8} {'ocl us/op':>10} {'cpu us/op':>10} {'ocl/cpu':>8}"
    if has_cuda:
        hdr += f" {'cuda us/op':>10} {'ocl/cuda':>8}"
    print(hdr)
    for r in lat:
        if r["op"] == "raw launch":
            print(f"   add, the issuing thread's CPU per op (median of {r['rounds']} interleaved rounds): ocl "
                  f"{r['add_ocl_thread_us']:.2f} us = PyTorch's own (its CPU add) {r['add_cpu_thread_us']:.2f} + a raw "
                  f"launch {r['raw_thread_us']:.2f} + torch_ocl {r['own_thread_us']:.2f} "
                  f"(rounds {r['own_thread_us_range'][0]:.2f}..{r['own_thread_us_range'][1]:.2f})")
            print(f"   (raw launch: a {r['numel'] * 4}-byte copy kernel from a C loop, arguments set once, launch batch "
                  f"{r['launch_batch']}: {r['raw_us']:.2f} us wall per launch)")
            continue
        ocl = f"{r['ocl_us']:>10.2f}" if "ocl_us" in r else f"{'-':>10}"
        rat = f"{r['ratio_ocl_cpu']:>8.2f}" if "ratio_ocl_cpu" in r else f"{'-':>8}"
        line = f"   {r['op']:<8} {ocl} {r['cpu_us']:>10.2f} {rat}"
        if has_cuda:
            rc = f"{r['ratio_ocl_cuda']:>8.2f}" if "ratio_ocl_cuda" in r else f"{'-':>8}"
            line += f" {r['cuda_us']:>10.2f} {rc}"
        if "ocl_unbatched_us" in r:
            line += (f"   unbatched {r['ocl_unbatched_us']:.2f} us/op (launch batch {r['launch_batch']}: "
                     f"{r['ocl_unbatched_us'] / r['ocl_us']:.2f}x faster)")
        if "ocl_structured_us" in r:
            line += f"   TensorIterator path {r['ocl_structured_us']:.2f} us/op"
        if "ocl_status" in r:
            line += f"   ocl: {r['ocl_status']}"
        print(line)


def print_baselines(baselines):
    print("   copy baselines (GB/s counted as 2 x nbytes: read + write):")
    for nbytes, b in sorted(baselines.items()):
        kern = "  ".join(f"{k} {v:.2f}" for k, v in sorted(b["copy_kernels_gbps"].items()))
        print(f"     {nbytes // 4:>9} float32: clEnqueueCopyBuffer {b['copy_buffer_gbps']:7.2f}   "
              f"best kernel copy {b['best_kernel_gbps']:7.2f} ({b['best_kernel']})")
        print(f"       kernels: {kern}")


def print_bandwidth(title, rows, has_cuda, cpu_ref):
    print(title)
    hdr = (f"   {'op':<14} {'numel':>9} {'shape':>9} {'x':>2} | {'ocl GB/s':>9} {'/best':>6} "
           f"{'/copybuf':>8}")
    if cpu_ref:
        hdr += f" | {'cpu GB/s':>8}"
    if has_cuda:
        hdr += f" | {'cuda GB/s':>9}"
    print(hdr)
    print("   " + "-" * (len(hdr) - 3))
    for r in rows:
        line = f"   {r['op']:<14} {r['numel']:>9} {r.get('shape', ''):>9} {r['tensors_counted']:>2} | "
        if "ocl_gbps" in r:
            line += (f"{r['ocl_gbps']:>9.2f} {r['ratio_vs_best_copy']:>6.2f} "
                     f"{r['ratio_vs_copy_buffer']:>8.2f}")
        else:
            line += f"{r['ocl_status'][:25]:>25}"
        if cpu_ref:
            line += f" | {r['cpu_gbps']:>8.2f}"
        if has_cuda:
            line += f" | {r['cuda_gbps']:>9.1f}"
        print(line)


def print_compile(comp):
    print("f. compile time of pointwise programs: ms for the first call of each op (kernel build "
          "included, synchronized)")
    print("   cold disk = fresh process, empty TORCH_OCL_CACHE_DIR and driver cache; 2nd disk / warm disk = "
          "a second / third fresh process, same cache dirs")
    print("   (on PoCL the second process rebuilds from PoCL's cache and writes our binary); "
          "warm memory = second call in the same process")
    have_stats = any("cold_stats" in r for r in comp["rows"])
    hdr = f"   {'op':<8} {'dtype':<8} {'cold disk':>10} {'2nd disk':>10} {'warm disk':>10} {'warm mem':>9}"
    if have_stats:
        hdr += "   programs compiled/disk hits (cold | warm)"
    print(hdr)
    for r in comp["rows"]:
        line = f"   {r['op']:<8} {r['dtype']:<8} "
        if "cold_disk_ms" in r:
            line += (f"{r['cold_disk_ms']:>10.1f} {r['second_disk_ms']:>10.1f} {r['warm_disk_ms']:>10.1f} "
                     f"{r['warm_memory_ms']:>9.3f}")
        else:
            line += f"{r['status'][:42]:>42}"
        if have_stats and "cold_stats" in r:
            c, w = r["cold_stats"], r["warm_stats"]
            line += f"   {c['compiles']}/{c['disk_hits']} | {w['compiles']}/{w['disk_hits']}"
        print(line)
    cold, _, warm = comp["runs"]
    if cold.get("stats_end") is not None:
        print(f"   program cache totals: cold process {cold['stats_end']}, "
              f"warm process {warm['stats_end']}")
    else:
        print("   (torch_ocl._C.program_cache_stats not available in this build)")
    print(f"   process wall time (import + device init + all ops): cold {cold['process_wall_s']:.1f} s, "
          f"warm {warm['process_wall_s']:.1f} s; {comp['cache_dir_files']} files in TORCH_OCL_CACHE_DIR")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer sizes, shorter timings")
    p.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    p.add_argument("--sizes", type=int, nargs="+", help="override the mm sizes")
    p.add_argument("--no-cuda", action="store_true", help="skip the CUDA columns")
    p.add_argument("--no-cpu-bw", action="store_true",
                   help="skip the CPU reference columns of sections d and e")
    p.add_argument("--compile-child", metavar="DTYPES", help=argparse.SUPPRESS)  # internal (f.)
    args = p.parse_args()

    if args.compile_child:
        compile_child(args.compile_child.split(","))
        return
    if not torch.ocl.is_available():
        sys.exit("no ocl device")
    has_cuda = (not args.no_cuda) and torch.cuda.is_available()
    cpu_ref = not args.no_cpu_bw
    bw_numels = [1 << 20, 1 << 24]  # 1M and 16M float32 (4 and 64 MiB per tensor)
    if args.quick:
        sizes, target_s, min_iters = [64, 256, 1024], 0.3, 1
        add_numel, lat_iters, bw_target_s = 4 << 20, 500, 0.1
    else:
        sizes, target_s, min_iters = [64, 128, 256, 512, 1024, 2048], 2.0, REPEATS
        add_numel, lat_iters, bw_target_s = 16 << 20, 2000, 0.7
    # --quick: float32 only (a truly cold PoCL build of one pointwise program takes ~7 s here)
    compile_dtypes = ["float32"] if args.quick else list(COMPILE_DTYPES)
    if args.sizes:
        sizes = args.sizes

    props = torch.ocl.get_device_properties()
    meta = {"device_name": torch.ocl.get_device_name(), "platform": props.platform,
            "driver": props.driver_version, "torch": torch.__version__,
            "python": platform.python_version(), "cpu_threads": torch.get_num_threads(),
            "quick": args.quick, "torch_ocl_file": torch_ocl.__file__,
            "cache_dir": torch.ocl.cache_dir()}
    if has_cuda:
        meta["cuda_device"] = torch.cuda.get_device_name()
    print(f"device: {meta['device_name']}", file=sys.stderr, flush=True)

    meta["loadavg_start"] = os.getloadavg()[0]
    t0 = time.perf_counter()
    section_s = meta["section_s"] = {}

    def section(key, fn):
        t = time.perf_counter()
        r = fn()
        section_s[key] = time.perf_counter() - t
        print(f"  section {key}: {section_s[key]:.1f} s", file=sys.stderr, flush=True)
        return r

    mm = section("a", lambda: bench_mm(sizes, target_s, min_iters, has_cuda))
    bw = section("b", lambda: bench_add_bandwidth(add_numel, target_s, min_iters, has_cuda))
    lat = section("c", lambda: bench_latency(1000, lat_iters, has_cuda))
    baselines = section("copy", lambda: {n * 4: copy_baselines(n * 4, bw_target_s)
                                         for n in bw_numels})
    elem = section("d", lambda: bench_bandwidth(ELEMENTWISE_OPS, bw_numels, baselines,
                                                bw_target_s, has_cuda, cpu_ref))
    red = section("e", lambda: bench_bandwidth(REDUCTION_OPS, bw_numels, baselines, bw_target_s,
                                               has_cuda, cpu_ref))
    rng = section("g", lambda: bench_bandwidth(RANDOM_OPS, bw_numels, baselines, bw_target_s,
                                               has_cuda, cpu_ref))
    conv = section("h", lambda: bench_conv(2 if args.quick else 8, target_s, has_cuda))
    comp = section("f", lambda: bench_compile(compile_dtypes))
    meta["wall_s"] = time.perf_counter() - t0
    meta["loadavg_end"] = os.getloadavg()[0]
    meta["repeats"] = REPEATS

    print(f"torch_ocl   : {meta['torch_ocl_file']}")
    print_report(meta, mm, bw, lat, has_cuda)
    print()
    print("d./e. ratios: /best = ocl GB/s / best raw kernel copy GB/s, /copybuf = ocl GB/s / "
          "clEnqueueCopyBuffer GB/s (< 1 = ocl slower)")
    print_baselines(baselines)
    print()
    print_bandwidth("d. elementwise bandwidth, float32 (x = tensors of traffic counted, each "
                    "numel x 4 bytes)", elem, has_cuda, cpu_ref)
    print()
    print_bandwidth("e. reduction bandwidth, float32 (GB/s of bytes read: 1 x numel x 4)", red,
                    has_cuda, cpu_ref)
    print()
    print_bandwidth("g. random number throughput, float32 (GB/s of bytes written: 1 x numel x 4)",
                    rng, has_cuda, cpu_ref)
    print()
    print_conv(conv, has_cuda)
    print()
    print_compile(comp)
    print(f"\n(total {meta['wall_s']:.1f} s; per section: "
          + ", ".join(f"{k} {v:.1f}" for k, v in section_s.items()) + ")")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "mm": mm, "add_bandwidth": bw, "latency": lat,
                       "copy_baselines": {str(k): v for k, v in baselines.items()},
                       "elementwise_bandwidth": elem, "reduction_bandwidth": red, "random_throughput": rng, "conv": conv,
                       "compile": comp}, f, indent=2)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
