"""Train a small classifier on synthetic data on the default ocl device.

Prints the loss per step, the device, how many ops fell back to the CPU, and
the time against the same training on PyTorch's CPU.
"""

import argparse
import time

import torch
import torch_ocl  # noqa: F401  (registers the ocl device; autoload does it too)


def make_data(n=4096, features=64, classes=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(classes, features, generator=g) * 2.0
    labels = torch.randint(0, classes, (n,), generator=g)
    x = centers[labels] + torch.randn(n, features, generator=g)
    return x, labels


def make_model(features, classes, seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(features, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, classes),
    )


def train(device, x, y, steps, batch, log):
    model = make_model(x.shape[1], int(y.max()) + 1).to(device)
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
    acc = (model(x).argmax(1) == y).float().mean().item()
    return losses, elapsed, acc


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--device", default="ocl")
    args = ap.parse_args()
    if not torch.ocl.is_available():
        raise SystemExit(f"no ocl device: {torch_ocl._C.discovery_error()}")
    device = torch.device(args.device)
    print(f"device: {device} = {torch.ocl.get_device_name(device)}")
    x, y = make_data()
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
