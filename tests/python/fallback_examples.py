"""The ops the tests use as examples of the counted CPU fallback: ops with no
native ocl kernel for the dtypes used, which the CPU computes. One place to
change when they become native (integer matrix products were the example
until kernels/blas_integer.cl)."""

import torch
import torch.nn.functional as F

# An int64 convolution: CUDA has no integer convolution; the CPU computes it.
CONV_OP = "aten::convolution"


def int_conv(x):
    """x: a [2, 2] integer tensor on any device; conv1d of x (as a 1 x 2 x 2
    batch) with x (as 2 x 2 x 1 weights): a [1, 2, 2] result."""
    return F.conv1d(x.view(1, 2, 2), x.view(2, 2, 1))


# mvlgamma's out= and in-place forms (the functional form decomposes into native ops).
MVLGAMMA_OUT_OP = "aten::mvlgamma.out"
