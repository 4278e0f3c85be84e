"""Comparison tolerances against the CPU, one table per kernel family (the
test files import theirs). Each differs for the reason stated beside it;
the OpInfo sweep's per-dtype table is torch_ocl.testing.opinfo_sweep.TOLERANCES."""

import torch

# test_autograd_features.py: torch.func transforms and double backward over layers: chains of float32 ops
AUTOGRAD_FEATURES = {"rtol": 1e-4, "atol": 1e-5}

# test_conv.py: im2col + GEMM sums C*K products in another order than the CPU's kernels; half types compute in float32 and round once
CONV = {
    torch.float32: dict(rtol=1e-4, atol=1e-4),
    torch.float64: dict(rtol=1e-10, atol=1e-10),
    torch.float16: dict(rtol=2e-3, atol=2e-3),
    torch.bfloat16: dict(rtol=1.6e-2, atol=2e-2),
}

# test_direct_pointwise.py: one rounding of the storage type (about two units in the last place of float16 / bfloat16)
DIRECT_POINTWISE = {torch.float16: dict(rtol=2e-3, atol=1e-3), torch.bfloat16: dict(rtol=1.6e-2, atol=1e-2)}

# test_fft.py: VkFFT's butterflies round in another order than pocketfft
FFT = {torch.complex64: dict(rtol=1e-4, atol=1e-4), torch.float32: dict(rtol=1e-4, atol=1e-4),
       torch.complex128: dict(rtol=1e-10, atol=1e-10), torch.float64: dict(rtol=1e-10, atol=1e-10)}

# test_grouped_mm.py: GEMM sums K products; half types accumulate in float32 and round once
GROUPED_MM = {torch.float32: dict(rtol=1e-5, atol=1e-5), torch.bfloat16: dict(rtol=1.6e-2, atol=2e-2),
       torch.float16: dict(rtol=2e-3, atol=2e-3)}

# test_module_db.py: whole modules (forward and backward) against the CPU's
MODULE_DB = dict(rtol=1e-4, atol=2e-5, equal_nan=True)

# test_norm.py: statistics are sums over N*H*W elements (cascaded here, Welford / pairwise on the CPU); half types round inputs and outputs
NORM = {
    torch.float32: dict(rtol=1e-4, atol=1e-4),
    torch.float64: dict(rtol=1e-9, atol=1e-9),
    torch.float16: dict(rtol=4e-3, atol=4e-3),
    torch.bfloat16: dict(rtol=3e-2, atol=3e-2),
}

# test_optim.py: many optimizer steps compound the per-step rounding; half types round every state update
OPTIM = {
    torch.float32: dict(rtol=1e-5, atol=1e-6),
    torch.float64: dict(rtol=1e-10, atol=1e-12),
    torch.float16: dict(rtol=2e-3, atol=2e-3),
    torch.bfloat16: dict(rtol=2e-2, atol=2e-2),
}

# test_pool.py: one rounding of the storage type (averages are computed in float32)
POOL = {
    torch.float16: dict(rtol=2e-3, atol=2e-3),
    torch.bfloat16: dict(rtol=1.6e-2, atol=1.6e-2),
}

# test_rnn.py: recurrent steps compound the GEMMs' rounding through the sequence
RNN = {
    torch.float32: dict(rtol=1e-4, atol=1e-5),
    torch.float64: dict(rtol=1e-9, atol=1e-10),
    torch.float16: dict(rtol=1e-2, atol=1e-2),
    torch.bfloat16: dict(rtol=5e-2, atol=5e-2),
}

# test_weight_norm.py: bfloat16 norms round the weight twice (norm, then scale)
WEIGHT_NORM = {torch.float32: {}, torch.float64: {}, torch.bfloat16: {"rtol": 2e-2, "atol": 2e-2}}
