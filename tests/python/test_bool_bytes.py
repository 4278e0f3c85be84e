"""Bool tensors whose bytes are not 0/1 (a uint8 tensor viewed as bool, as
PyTorch's test_non_standard_bool_values builds them, gh-54789): every kernel
reads any nonzero byte as True, as ATen's CPU and CUDA loads do.

Each op runs on the same bytes on both devices and must give the CPU's
result; the CPU normalises on load, so a kernel reading the raw byte gives
2..255 where the CPU gives 1 (sum, casts, comparisons, products).
"""

import pytest
import torch

from cpu_reference import run_both

pytestmark = pytest.mark.usefixtures("strict")


def odd_bools(shape, seed=0):
    """A CPU bool tensor whose True elements hold bytes in 2..254."""
    g = torch.Generator().manual_seed(seed)
    truth = torch.rand(shape, generator=g) > 0.4
    raw = torch.randint(2, 255, shape, dtype=torch.uint8, generator=g)
    return torch.where(truth, raw, torch.zeros((), dtype=torch.uint8)).view(torch.bool)


OPS = {
    "eq": lambda a, b: a == b,
    "gt": lambda a, b: a > b,
    "mul": lambda a, b: a * b,
    "add": lambda a, b: a + b,
    "bitwise_xor": lambda a, b: a ^ b,
    "logical_xor": torch.logical_xor,
    "float": lambda a, b: a.float(),
    "long": lambda a, b: a.long(),
    "half": lambda a, b: a.half(),
    "sum": lambda a, b: a.sum(),
    "sum_dim": lambda a, b: a.sum(1),
    "prod": lambda a, b: a.prod(1),
    "amin": lambda a, b: a.amin(1),
    "any_all": lambda a, b: (a.any(0), a.all(1)),
    "cumsum": lambda a, b: a.cumsum(1),
    "cummax": lambda a, b: a.cummax(1),
    "where": lambda a, b: torch.where(a, 1.0, -1.0),
    "masked_select": lambda a, b: torch.arange(a.numel(), device=a.device).view(a.shape).masked_select(a),
    "nonzero": lambda a, b: a.nonzero(),
    "sigmoid": lambda a, b: torch.sigmoid(a),
    "pad": lambda a, b: torch.nn.functional.pad(a, (1, 2)),
    "transposed_eq": lambda a, b: a.t() == b.t(),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_nonzero_bytes_read_as_true(name):
    a, b = odd_bools((5, 7), seed=1), odd_bools((5, 7), seed=2)
    run_both(OPS[name], a, b)
