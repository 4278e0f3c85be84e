"""torch.fft on ocl (VkFFT, kernels/fft_ops.cpp) beside PyTorch CPU (MKL /
pocketfft) and beside a device copy of the same bytes, in one run: batched
complex64 fft along the last dim, rfft and irfft, forward only, and the
cold first call of a new shape (VkFFT builds its kernel for each plan).

  PYTHONPATH=plugin_api/python python bench/bench_fft.py
"""

import time

import torch
import torch_ocl  # noqa: F401
from torch_ocl import _bench

from timing import best_time

CASES = [  # (name, shape, fn, input is complex)
    ("fft 2^20", (1 << 20,), torch.fft.fft, True),
    ("fft 64 x 1024", (64, 1024), torch.fft.fft, True),
    ("fft 16 x 4096", (16, 4096), torch.fft.fft, True),
    ("fft 64 x 1000 (not a power of 2)", (64, 1000), torch.fft.fft, True),
    ("fft 64 x 1021 (prime: Bluestein)", (64, 1021), torch.fft.fft, True),
    ("fft2 32 x 64 x 64", (32, 64, 64), torch.fft.fft2, True),
    ("rfft 64 x 1024", (64, 1024), torch.fft.rfft, False),
    ("irfft 64 x 513", (64, 513), torch.fft.irfft, True),
]


def main():
    print(f"{'case':>34} | {'ocl ms':>8} {'cpu ms':>8} {'ocl/cpu':>7} | {'copy ms':>8} {'ocl/copy':>8} | {'cold ms':>8}")
    for name, shape, fn, is_complex in CASES:
        g = torch.Generator().manual_seed(0)
        x = torch.randn(*shape, dtype=torch.complex64 if is_complex else torch.float32, generator=g)
        xo = x.to("ocl")
        torch.ocl.synchronize()
        t0 = time.perf_counter()
        with torch.ocl.fallback_mode("error"):  # what is timed is native
            fn(xo)
        torch.ocl.synchronize()
        cold = time.perf_counter() - t0
        ocl = best_time(lambda: fn(xo), torch.ocl.synchronize).wall
        cpu = best_time(lambda: fn(x), lambda: None).wall
        nbytes = x.numel() * x.element_size()
        copy = min(_bench.copy_buffer_seconds(0, nbytes, 20) for _ in range(3))
        print(f"{name:>34} | {ocl * 1e3:8.3f} {cpu * 1e3:8.3f} {ocl / cpu:7.2f} | {copy * 1e3:8.3f} {ocl / copy:8.1f} |"
              f" {cold * 1e3:8.1f}")


if __name__ == "__main__":
    main()
