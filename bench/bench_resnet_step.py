"""The issue-27 ResNet step: ResNet-18 topology (width 16, CIFAR stem),
batch 8 of 32x32, SGD momentum, on ocl and PyTorch CPU in one run (median of
10 steps after 3 warm-up; the CPU with its default threads and with one, the
ratio against the faster), and BatchNorm2d forward + backward of 32x64x32x32.

  python bench/bench_resnet_step.py
"""

import statistics
import time

import torch
import torch.nn.functional as F
import torch_ocl  # noqa: F401
from torch_ocl.testing.models import ResNet18


def sync(dev):
    if dev == "ocl":
        torch.ocl.synchronize()


def median_ms(fn, dev, steps=10, warmup=3):
    for _ in range(warmup):
        fn()
    sync(dev)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        sync(dev)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def resnet_step(dev):
    torch.manual_seed(0)
    model = ResNet18(width=16).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(8, 3, 32, 32, generator=g).to(dev), torch.randint(0, 10, (8,), generator=g).to(dev)

    def step():
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        opt.step()
    return step


def batch_norm(dev):
    bn = torch.nn.BatchNorm2d(64).to(dev)
    x = torch.randn(32, 64, 32, 32, device=dev, requires_grad=True)

    def run():
        bn(x).sum().backward()
    return run


def main():
    for name, make in (("ResNet-18 w16 b8 32x32 step", resnet_step), ("BatchNorm2d fwd+bwd 32x64x32x32", batch_norm)):
        ocl = median_ms(make("ocl"), "ocl")
        cpu2 = median_ms(make("cpu"), "cpu")
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        cpu1 = median_ms(make("cpu"), "cpu")
        torch.set_num_threads(threads)
        print(f"{name:34s} ocl {ocl:8.2f} ms  cpu {cpu2:8.2f} ms ({threads} thr) / {cpu1:8.2f} ms (1 thr)  "
              f"ocl/cpu {ocl / min(cpu1, cpu2):5.2f}")


if __name__ == "__main__":
    main()
