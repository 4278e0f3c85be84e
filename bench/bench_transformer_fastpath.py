"""nn.TransformerEncoder / nn.MultiheadAttention inference on ocl: PyTorch's
fast path (`_transformer_encoder_layer_fwd`, `_native_multi_head_attention`,
native on ocl since 2026-11-29; before, the CPU fallback ran it) beside the
same modules with the fast path switched off
(`torch.backends.mha.set_fastpath_enabled(False)`: the Python layers over
SDPA) and beside PyTorch CPU, in one run. Prints ms per forward and ratios.

  PYTHONPATH=plugin_api/python python bench/bench_transformer_fastpath.py
"""

import torch
from torch import nn
import torch_ocl  # noqa: F401

from timing import best_time

CASES = [  # (batch, tokens, d_model, heads, layers)
    (8, 64, 256, 8, 2),
    (2, 128, 512, 8, 2),
]


def encoder_step(model, x, fastpath):
    def run():
        torch.backends.mha.set_fastpath_enabled(fastpath)
        with torch.no_grad():
            model(x)
    return run


def main():
    sync = torch.ocl.synchronize
    print("case (B, T, d, heads, layers) | ocl fast path ms | ocl without ms | CPU fast path ms | "
          "fast/without | ocl fast/CPU fast")
    for b, t, d, h, n in CASES:
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(d, h, 4 * d, batch_first=True)
        model = nn.TransformerEncoder(layer, n, enable_nested_tensor=False).eval()
        x = torch.randn(b, t, d)
        cpu = best_time(encoder_step(model, x, True), lambda: None).wall
        model.to("ocl")
        xo = x.to("ocl")
        fast = best_time(encoder_step(model, xo, True), sync).wall
        without = best_time(encoder_step(model, xo, False), sync).wall
        torch.backends.mha.set_fastpath_enabled(True)
        print(f"{(b, t, d, h, n)} | {fast * 1e3:.2f} | {without * 1e3:.2f} | {cpu * 1e3:.2f} | "
              f"{fast / without:.2f} | {fast / cpu:.2f}")


if __name__ == "__main__":
    main()
