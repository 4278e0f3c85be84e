"""Train a small CNN on synthetic images on the default ocl device.

Prints the loss per step, the device, how many ops fell back to the CPU, and
the time against the same training on PyTorch's CPU.
"""

import argparse
import os
import time

import torch
import torch_ocl  # noqa: F401  (registers the ocl device; autoload does it too)


def make_data(n=2048, size=16, classes=8, seed=0):
    """Images of one channel: each class is a fixed random pattern, every
    sample that pattern plus noise."""
    g = torch.Generator().manual_seed(seed)
    patterns = torch.randn(classes, 1, size, size, generator=g)
    labels = torch.randint(0, classes, (n,), generator=g)
    x = patterns[labels] + 1.5 * torch.randn(n, 1, size, size, generator=g)
    return x, labels


def make_model(classes, seed=0):
    """Convolutions, batch norm, ReLU, max and adaptive average pooling, a
    linear head: the layers of a ResNet-style classifier, small."""
    torch.manual_seed(seed)
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Dropout(0.1),
        nn.Linear(32 * 16, classes),
    )


def train(device, x, y, steps, batch, log):
    model = make_model(int(y.max()) + 1).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = x.to(device), y.to(device)
    losses = []
    t0 = time.perf_counter()
    for step in range(steps):
        i = (step * batch) % x.shape[0]
        xb, yb = x[i:i + batch], y[i:i + batch]
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if log:
            print(f"  step {step:3d}  loss {losses[-1]:.4f}")
    elapsed = time.perf_counter() - t0
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    return losses, elapsed, acc


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--device", default="ocl")
    args = ap.parse_args()
    if not torch.ocl.is_available():
        raise SystemExit(f"no ocl device: {torch_ocl._C.discovery_error()}")
    device = torch.device(args.device)
    print(f"device: {device} = {torch.ocl.get_device_name(device)}")
    x, y = make_data()
    if not os.environ.get("TORCH_OCL_FALLBACK"):  # TORCH_OCL_FALLBACK=error: prove there is none
        torch.ocl.set_fallback_mode("silent")
    torch.ocl.reset_fallback_stats()
    train(device, x, y, 2, args.batch, log=False)  # warm-up: kernel builds, caches
    torch.ocl.reset_fallback_stats()
    print(f"training {args.steps} steps on {device}:")
    losses, t_ocl, acc = train(device, x, y, args.steps, args.batch, log=True)
    stats = torch.ocl.fallback_stats()
    _, t_cpu, acc_cpu = train("cpu", x, y, args.steps, args.batch, log=False)
    print(f"accuracy: ocl {acc:.3f}, cpu {acc_cpu:.3f}")
    print(f"ops that fell back to the CPU: {sum(stats.values())} calls of {len(stats)} ops")
    for name, count in sorted(stats.items(), key=lambda kv: -kv[1]):
        print(f"  {name}: {count}")
    print(f"time: ocl {t_ocl:.2f} s, cpu {t_cpu:.2f} s, ocl/cpu = {t_ocl / t_cpu:.2f}x")


if __name__ == "__main__":
    main()
