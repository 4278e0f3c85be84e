"""torch.compile (Inductor's OpenCL code generator) against eager ocl, in one run:

- training step of the test models (torch_ocl.testing.models: GPT + AdamW,
  LSTM + Adam, ...), eager vs compiled, and the compile time of the first two
  steps (cold: fresh Inductor and kernel caches are not cleared by this script;
  run with TORCHINDUCTOR_CACHE_DIR and TORCH_OCL_CACHE_DIR pointing at empty
  folders for a cold number);
- pointwise chains relu(x * w + b) * y (memory-bound) and gelu(x * w + b) * y
  (erf: compute-bound on CPU devices) over N float32: eager (4-5 kernels),
  compiled (one fused kernel), PyTorch CPU, and a device copy of N float32
  (dst.copy_(src)), as effective bandwidth (bytes each must move / time).

  PYTHONPATH=plugin_api/python python bench/bench_compile.py [--steps N] [--models gpt lstm] [--n 4000000] [--rnn-break]

Dynamo traces nn.LSTM modules whose parameters are on ocl (torch_ocl's
_compile.py); --rnn-break sets TORCH_OCL_COMPILE_RNN=0, Dynamo's default on
other devices: a graph break, the LSTM runs eagerly.
"""

import argparse
import os
import time

import torch
import torch.nn.functional as F
import torch_ocl  # noqa: F401

from torch_ocl.testing.models import SPECS, batches, build, step


def timed(fn, repeats=5, inner=10):
    best = float("inf")
    for _ in range(repeats):
        torch.ocl.synchronize()
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        torch.ocl.synchronize()
        best = min(best, (time.perf_counter() - t0) / inner)
    return best


def bench_model(name, steps, repeats=5):
    """Eager and compiled training steps of one model, timed in alternating
    windows (the best window of each), so a busy period of the shared host
    weighs on both alike."""
    spec = SPECS[name]
    data = [(x.to("ocl"), y.to("ocl")) for x, y in batches(spec, steps + 2)]
    runs, first = {}, {}
    for mode in ("eager", "compiled"):
        torch._dynamo.reset() if mode == "eager" else None
        model, opt = build(spec, "ocl")
        m = torch.compile(model) if mode == "compiled" else model
        torch.ocl.synchronize()
        t0 = time.perf_counter()
        for b in data[:2]:
            step(spec, m, opt, b)
        torch.ocl.synchronize()
        first[mode] = time.perf_counter() - t0
        counter = iter(range(10**9))
        runs[mode] = (lambda m=m, opt=opt, counter=counter:
                      step(spec, m, opt, data[2 + next(counter) % steps]))
    best = {mode: float("inf") for mode in runs}
    for _ in range(repeats):
        for mode, run in runs.items():
            best[mode] = min(best[mode], timed(run, repeats=1, inner=steps))
    e, c = best["eager"], best["compiled"]
    print(f"{name:8s} step eager {e * 1e3:7.2f} ms  compiled {c * 1e3:7.2f} ms  speedup {e / c:5.2f}x"
          f"   first 2 steps: eager {first['eager']:5.1f} s, compiled {first['compiled']:5.1f} s")


def bench_pointwise(n):
    x, w, b, y = (torch.randn(n, device="ocl") for _ in range(4))
    src, dst = torch.randn(n, device="ocl"), torch.empty(n, device="ocl")
    t_copy = timed(lambda: dst.copy_(src))
    gb = lambda arrays, t: arrays * 4 * n / t / 1e9  # noqa: E731
    host = [t.cpu() for t in (x, w, b, y)]
    for name, chain in (("relu(x * w + b) * y", lambda x, w, b, y: (x * w + b).relu() * y),
                        ("gelu(x * w + b) * y", lambda x, w, b, y: F.gelu(x * w + b) * y)):
        compiled = torch.compile(chain)
        compiled(x, w, b, y)
        t_eager = timed(lambda: chain(x, w, b, y))
        t_comp = timed(lambda: compiled(x, w, b, y))
        t_cpu = timed(lambda: chain(*host))
        print(f"{name}, {n} float32: eager {t_eager * 1e3:.2f} ms, compiled {t_comp * 1e3:.2f} ms "
              f"({t_eager / t_comp:.2f}x), PyTorch CPU {t_cpu * 1e3:.2f} ms; compiled moves 5 arrays at "
              f"{gb(5, t_comp):.1f} GB/s, a copy 2 at {gb(2, t_copy):.1f} GB/s (ratio {gb(5, t_comp) / gb(2, t_copy):.2f})")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--models", nargs="*", default=["gpt", "lstm"])
    p.add_argument("--n", type=int, default=4_000_000)
    p.add_argument("--rnn-break", action="store_true",
                   help="TORCH_OCL_COMPILE_RNN=0: Dynamo graph-breaks at nn.LSTM (its default on other devices)")
    a = p.parse_args()
    if a.rnn_break:
        os.environ["TORCH_OCL_COMPILE_RNN"] = "0"
    print(torch.ocl.get_device_name(), "| torch", torch.__version__)
    for name in a.models:
        bench_model(name, a.steps)
    bench_pointwise(a.n)


if __name__ == "__main__":
    main()
