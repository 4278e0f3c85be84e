"""A bounded OpInfo sweep through torch.compile (torch_ocl.testing.compile_sweep):
each op's first samples compiled on ocl with Inductor's default backend and
compared with the CPU's eager results, forward and backward, as the eager
OpInfo sweep compares them; no op may reach the CPU fallback. One or two ops
per family the generator writes (pointwise, reductions incl. welford and
argmax, softmax, norms, indexing, views), the extern ones (matrix products,
convolution, scans) and an eager special function. The whole sweep
(python -m torch_ocl.testing.compile_sweep) is in docs/compile.md."""

import pytest
import torch

from torch_ocl.testing import compile_sweep
from torch_ocl.testing import opinfo_sweep as sweep

GENERATED = [
    "add", "mul", "div.floor_rounding", "where", "clamp", "sigmoid", "nn.functional.gelu", "nn.functional.silu",
    "exp", "pow", "sum", "mean", "var_mean", "amax", "argmax", "prod", "logsumexp", "softmax", "log_softmax",
    "nn.functional.layer_norm", "nn.functional.embedding", "index_select", "gather", "cat", "nn.functional.pad.reflect",
    "flip", "masked_fill", "nn.functional.cross_entropy",
]
EXTERN = ["mm", "nn.functional.conv2d", "cumsum", "special.bessel_j0"]


@pytest.fixture(scope="module")
def ops():
    return sweep.op_db_by_name()


@pytest.mark.parametrize("name", GENERATED + EXTERN)
def test_compiled_op_matches_cpu(name, ops):
    result = compile_sweep.check_compiled(ops[name], torch.float32, max_samples=2)
    assert result["status"] == "native", result
    assert result["samples"] > 0, result
    if name in GENERATED:
        assert result["compiled"] == "generated", result
