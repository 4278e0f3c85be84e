"""Training step time of the four test models (torch_ocl.testing.models:
ResNet-18-topology CNN + SGD momentum, GPT decoder + AdamW, LSTM classifier +
Adam, UNet + Adam) on ocl against PyTorch CPU, in one run, with the fallback
calls per ocl step (0 = every op native), and an optimizer step alone for a
~50-tensor model: foreach vs fused on ocl vs the CPU.

  PYTHONPATH=plugin_api/python python bench/bench_models.py [--steps N] [--models resnet18 gpt ...]

Times: best of 3 loops of N steps each after 2 warm-up steps,
torch.ocl.synchronize() before the clock stops.
"""

import argparse
import time

import torch
import torch_ocl  # noqa: F401

from torch_ocl.testing.models import SPECS, batches, build, step


def sync(device):
    if device == "ocl":
        torch.ocl.synchronize()


def time_loop(fn, device, steps, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        sync(device)
        t0 = time.perf_counter()
        for i in range(steps):
            fn(i)
        sync(device)
        best = min(best, (time.perf_counter() - t0) / steps)
    return best


def bench_model(name, steps):
    spec = SPECS[name]
    data = batches(spec, steps)
    row = {}
    for device in ("cpu", "ocl"):
        model, opt = build(spec, device)
        d = [(x.to(device), y.to(device)) for x, y in data]
        for b in d[:2]:
            step(spec, model, opt, b)  # warm-up (kernel compiles, optimizer state)
        sync(device)
        torch.ocl.reset_fallback_stats()
        row[device] = time_loop(lambda i: step(spec, model, opt, d[i % len(d)]), device, steps)
        if device == "ocl":
            row["fallbacks"] = sum(torch.ocl.fallback_stats().values()) / (3 * steps)
            row["fallback_ops"] = sorted(torch.ocl.fallback_stats())
    return row


def bench_optimizer(steps, n_tensors=50):
    """An optimizer step alone: n_tensors parameters (weights and biases of a
    25-layer MLP-like stack), gradients set once."""
    g = torch.Generator().manual_seed(0)
    shapes = [(64, 64) if i % 2 == 0 else (64,) for i in range(n_tensors)]
    host = [torch.randn(s, generator=g) for s in shapes]
    rows = []
    for opt_name, kw in [("SGD", dict(lr=0.01, momentum=0.9)), ("Adam", dict(lr=1e-3)),
                         ("AdamW", dict(lr=1e-3, weight_decay=0.01))]:
        row = {"optimizer": opt_name}
        for label, device, impl in [("cpu foreach=False", "cpu", dict(foreach=False)),
                                    ("cpu fused", "cpu", dict(fused=True)),
                                    ("ocl foreach", "ocl", dict(foreach=True)),
                                    ("ocl fused", "ocl", dict(fused=True))]:
            params = [h.clone().to(device).requires_grad_() for h in host]
            for p in params:
                p.grad = torch.randn_like(p) * 1e-2
            opt = getattr(torch.optim, opt_name)(params, **kw, **impl)
            opt.step()
            with torch.ocl.fallback_mode("error" if device == "ocl" else "warn"):
                row[label] = time_loop(lambda i: opt.step(), device, steps)
        rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--models", nargs="*", default=list(SPECS))
    ap.add_argument("--no-optim", action="store_true")
    args = ap.parse_args()
    print(f"torch_ocl : {torch_ocl.__file__}")
    print(f"device    : {torch.ocl.get_device_name(0)}; torch {torch.__version__}, "
          f"{torch.get_num_threads()} CPU threads")
    print(f"\nTraining step (forward + backward + optimizer), best of 3 x {args.steps} steps")
    print(f"{'model':10s} {'cpu ms':>9s} {'ocl ms':>9s} {'ocl/cpu':>8s} {'fallbacks/step':>15s}")
    for name in args.models:
        r = bench_model(name, args.steps)
        extra = "" if not r["fallback_ops"] else "  (" + ", ".join(r["fallback_ops"]) + ")"
        print(f"{name:10s} {r['cpu'] * 1e3:9.2f} {r['ocl'] * 1e3:9.2f} {r['ocl'] / r['cpu']:8.2f} "
              f"{r['fallbacks']:15.1f}{extra}")
    if not args.no_optim:
        print("\nOptimizer step alone, 50 parameter tensors (25 x [64x64 weight, 64 bias]), ms per step")
        rows = bench_optimizer(max(args.steps, 10))
        cols = ["cpu foreach=False", "cpu fused", "ocl foreach", "ocl fused"]
        print(f"{'optimizer':10s} " + " ".join(f"{c:>18s}" for c in cols) + f" {'fused/foreach':>14s}")
        for r in rows:
            print(f"{r['optimizer']:10s} " + " ".join(f"{r[c] * 1e3:18.3f}" for c in cols)
                  + f" {r['ocl fused'] / r['ocl foreach']:14.2f}")


if __name__ == "__main__":
    main()
