"""Training step time of the model zoo (tests/python/zoo_models.py: tiny
`transformers` models, AdamW) on ocl against PyTorch CPU, in one run, with
the ratio and the CPU-fallback calls per ocl step (0 = every op native; the
ops are listed).

  python bench/bench_zoo.py [--steps N] [--warmup N] [--models bert gpt2 ...]

A step = forward with the model's own loss, backward, AdamW step,
zero_grad. Time per model and device: median of N timed steps after the
warm-up steps (kernel compiles, optimizer state), each step ended by
torch.ocl.synchronize() on ocl. Runs with fallback_mode("silent") so that a
model with a missing kernel is still timed (and its fallbacks counted).

The CPU is timed with torch's default thread count and with one thread: on a
shared 2-core host, OpenMP's barriers make a 2-thread step of these tiny
models up to 40x slower when another process takes a core (PoCL's own worker
threads included), so the ratio is taken against the faster of the two.
"""

import argparse
import os
import statistics
import sys
import time

import torch
import torch_ocl  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
from zoo_models import ZOO, make_optimizer, to_device, train_step  # noqa: E402


def sync(device):
    if device == "ocl":
        torch.ocl.synchronize()


def time_steps(name, device, steps, warmup, threads=None):
    if threads is not None:
        saved = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            return time_steps(name, device, steps, warmup)
        finally:
            torch.set_num_threads(saved)
    spec = ZOO[name]
    model = spec.build().to(device)
    opt = make_optimizer(model)
    batch = to_device(spec.batch(), device)
    for _ in range(warmup):
        train_step(model, opt, batch)
    sync(device)
    torch.ocl.reset_fallback_stats()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        train_step(model, opt, batch)
        sync(device)
        times.append(time.perf_counter() - t0)
    stats = torch.ocl.fallback_stats() if device == "ocl" else {}
    return statistics.median(times), stats


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--models", nargs="*", default=list(ZOO))
    args = ap.parse_args()
    print(f"torch {torch.__version__}, device {torch.ocl.get_device_name(0)}, "
          f"torch threads {torch.get_num_threads()}, median of {args.steps} steps after {args.warmup} warm-up")
    nt = torch.get_num_threads()
    print(f"| model | family | params | CPU ms/step ({nt} threads) | CPU ms/step (1 thread) | ocl ms/step | "
          f"ocl/best cpu | fallback calls/step | fallback ops |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = []
    with torch.ocl.fallback_mode("silent"):
        for name in args.models:
            spec = ZOO[name]
            n_params = sum(p.numel() for p in spec.build().parameters())
            try:
                cpu_n, _ = time_steps(name, "cpu", args.steps, args.warmup)
                cpu_1, _ = time_steps(name, "cpu", args.steps, args.warmup, threads=1)
                cpu = min(cpu_n, cpu_1)
                ocl, stats = time_steps(name, "ocl", args.steps, args.warmup)
            except Exception as e:  # noqa: BLE001  (one broken model must not hide the others)
                print(f"| {name} | {spec.family} | {n_params} | error: {type(e).__name__}: {str(e)[:120]} | | | | | |",
                      flush=True)
                continue
            calls = sum(stats.values()) / args.steps
            ratios.append(ocl / cpu)
            print(f"| {name} | {spec.family} | {n_params} | {cpu_n * 1e3:.1f} | {cpu_1 * 1e3:.1f} | {ocl * 1e3:.1f} | {ocl / cpu:.2f} | "
                  f"{calls:g} | {', '.join(sorted(stats)) or '-'} |", flush=True)
    if ratios:
        geo = statistics.geometric_mean(ratios)
        print(f"\ngeometric mean ocl/cpu over {len(ratios)} models: {geo:.2f}")


if __name__ == "__main__":
    main()
