"""Reduction accuracy and speed, ocl beside PyTorch CPU, in one run.

Accuracy: the relative error of each float32 reduction against the float64
result of the same inputs (torch.rand + 1: positive values, so a long
sequential sum drifts), on ocl and on the CPU; the mean relative error over
the results (and over a few seeds for the one-result sums).
Speed: the median of several timed runs of each reduction on ocl and on the
CPU and their ratio (ocl time / CPU time; < 1: ocl faster).

    PYTHONPATH=plugin_api/python python bench/bench_reduction_accuracy.py [--quick]
"""

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

import torch_ocl  # noqa: F401  (registers the ocl device)

DEV = "ocl"


def rel_err(got, ref):
    """Mean relative error of `got` (any float dtype, any device) against the float64 `ref`."""
    got = got.detach().cpu().double()
    return ((got - ref).abs() / ref.abs().clamp_min(1e-300)).mean().item()


def inputs(shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(shape, generator=g) + 1


def bn_stats(x):
    """(batch mean, batch invstd) of training-mode batch norm."""
    c = x.shape[1]
    _, mean, invstd = torch.ops.aten.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    return mean.view(c), invstd.view(c)


def bn_backward(x, dy):
    """(grad_weight, grad_bias) of training-mode batch norm."""
    c = x.shape[1]
    w = torch.ones(c, device=x.device, dtype=x.dtype)
    _, mean, invstd = torch.ops.aten.native_batch_norm(x, w, None, None, None, True, 0.1, 1e-5)
    _, gw, gb = torch.ops.aten.native_batch_norm_backward(dy, x, w, None, None, mean, invstd, True, 1e-5,
                                                         [False, True, True])
    return gw, gb


def ln_backward(x, dy):
    """(grad_weight, grad_bias) of layer norm over the last dim."""
    n = x.shape[-1]
    w = torch.ones(n, device=x.device, dtype=x.dtype)
    b = torch.zeros(n, device=x.device, dtype=x.dtype)
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, [n], w, b, 1e-5)
    _, gw, gb = torch.ops.aten.native_layer_norm_backward(dy, x, [n], mean, rstd, w, b, [False, True, True])
    return gw, gb


# name -> (shapes of the inputs, fn of the inputs returning a tensor or a tuple, seeds)
CASES = {
    "sum 2^20": ([(1 << 20,)], lambda x: x.sum(), 8),
    "mean 2^20": ([(1 << 20,)], lambda x: x.mean(), 8),
    "sum 2^24": ([(1 << 24,)], lambda x: x.sum(), 2),
    "sum dim0 4096x1024": ([(4096, 1024)], lambda x: x.sum(0), 1),
    "sum dim1 4096x1024": ([(4096, 1024)], lambda x: x.sum(1), 1),
    "sum (0,2,3) 32x64x32x32": ([(32, 64, 32, 32)], lambda x: x.sum((0, 2, 3)), 1),
    "var (0,2,3) 32x64x32x32": ([(32, 64, 32, 32)], lambda x: x.var((0, 2, 3)), 1),
    "norm 2^20": ([(1 << 20,)], lambda x: torch.linalg.vector_norm(x), 8),
    "logsumexp dim1 64x16384": ([(64, 16384)], lambda x: torch.logsumexp(x, 1), 1),
    "softmax sum-to-1 64x16384": ([(64, 16384)], lambda x: torch.softmax(x, 1)[:, :8], 1),
    "batch_norm stats 32x64x32x32": ([(32, 64, 32, 32)], bn_stats, 1),
    "batch_norm grad w,b 32x64x32x32": ([(32, 64, 32, 32)] * 2, bn_backward, 1),
    "layer_norm grad w,b 8192x256": ([(8192, 256)] * 2, ln_backward, 1),
    "mse_loss 2^20": ([(1 << 20,)] * 2, lambda a, b: F.mse_loss(a, b * 0.5), 8),
}


def as_tuple(r):
    return r if isinstance(r, tuple) else (r,)


def accuracy(name):
    shapes, fn, seeds = CASES[name]
    errs = {"ocl": [], "cpu": []}
    for seed in range(seeds):
        xs = [inputs(s, 1000 * seed + k) for k, s in enumerate(shapes)]
        refs = as_tuple(fn(*[x.double() for x in xs]))
        for dev in errs:
            outs = as_tuple(fn(*[x.to(dev) for x in xs]))
            errs[dev].append(statistics.mean(rel_err(o, r) for o, r in zip(outs, refs)))
    return statistics.mean(errs["ocl"]), statistics.mean(errs["cpu"])


def calls_per_run(fn, sync, min_s=0.05):
    """Calls of `fn` that last about min_s (after a warm-up call)."""
    fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    return max(1, int(min_s / max(time.perf_counter() - t0, 1e-6)))


def timed_run(fn, sync, iters):
    sync()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    sync()
    return (time.perf_counter() - t0) / iters


def bn_train_step(m):
    def step(x):
        m.zero_grad(set_to_none=True)
        m(x).sum().backward()
    return step


TIMED = {
    "sum 2^20": ((1 << 20,), lambda d: (lambda x: x.sum())),
    "sum 2^24": ((1 << 24,), lambda d: (lambda x: x.sum())),
    "sum dim0 4096x1024": ((4096, 1024), lambda d: (lambda x: x.sum(0))),
    "sum dim1 4096x1024": ((4096, 1024), lambda d: (lambda x: x.sum(1))),
    "sum (0,2,3) 32x64x32x32": ((32, 64, 32, 32), lambda d: (lambda x: x.sum((0, 2, 3)))),
    "var (0,2,3) 32x64x32x32": ((32, 64, 32, 32), lambda d: (lambda x: x.var((0, 2, 3)))),
    "BatchNorm2d fwd+bwd 32x64x32x32": ((32, 64, 32, 32),
                                        lambda d: bn_train_step(torch.nn.BatchNorm2d(64).to(d))),
}


def timings(name, runs):
    """Median seconds per call on ocl and on the CPU, their runs interleaved
    (the machine's other load falls on both alike)."""
    shape, make = TIMED[name]
    calls = {}
    for dev in ("ocl", "cpu"):
        x = inputs(shape, 0).to(dev)
        if name.startswith("BatchNorm"):
            x.requires_grad_(True)
        fn = make(dev)
        sync = torch.ocl.synchronize if dev == "ocl" else (lambda: None)
        calls[dev] = (lambda fn=fn, x=x: fn(x), sync)
    iters = {dev: calls_per_run(*calls[dev]) for dev in calls}
    times = {dev: [] for dev in calls}
    for _ in range(runs):
        for dev in calls:
            times[dev].append(timed_run(*calls[dev], iters[dev]))
    return statistics.median(times["ocl"]), statistics.median(times["cpu"])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer timed runs")
    p.add_argument("--no-time", action="store_true", help="accuracy only")
    a = p.parse_args()
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, device {torch.ocl.get_device_name(0)}")
    print("\nAccuracy: mean relative error vs float64 (float32 inputs rand + 1)")
    print(f"{'case':36s} {'ocl':>10s} {'cpu':>10s} {'ocl/cpu':>8s}")
    for name in CASES:
        e_ocl, e_cpu = accuracy(name)
        print(f"{name:36s} {e_ocl:10.2e} {e_cpu:10.2e} {e_ocl / max(e_cpu, 1e-30):8.2f}")
    if a.no_time:
        return
    runs = 3 if a.quick else 7
    print(f"\nSpeed: median of {runs} runs, ms per call")
    print(f"{'case':36s} {'ocl':>9s} {'cpu':>9s} {'ocl/cpu':>8s}")
    for name in TIMED:
        t_ocl, t_cpu = timings(name, runs)
        print(f"{name:36s} {t_ocl * 1e3:9.3f} {t_cpu * 1e3:9.3f} {t_ocl / t_cpu:8.2f}")


if __name__ == "__main__":
    main()
