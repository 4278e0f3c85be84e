"""Lazily cloned (copy-on-write) inputs stay shared: kernels read their inputs
through const data pointers and materialise only the tensors they write, as
ATen's CPU and CUDA kernels do (PyTorch's test_cow_input checks every OpInfo).
A written copy-on-write tensor is materialised and its sibling keeps its values.
"""

import pytest
import torch
import torch.nn.functional as F

pytestmark = pytest.mark.usefixtures("strict")

OPS = {
    "clone": lambda x: x.clone(),
    "cast": lambda x: x.double(),
    "strided_copy": lambda x: x.t().contiguous(),
    "cpu": lambda x: x.cpu(),
    "item": lambda x: x[0, 0].item(),
    "cumsum": lambda x: x.cumsum(1),
    "softmax": lambda x: x.softmax(1),
    "layer_norm": lambda x: F.layer_norm(x, (x.shape[1],)),
    "avg_pool": lambda x: F.avg_pool1d(x[None], 2),
    "max_pool": lambda x: F.max_pool1d(x[None], 2),
    "mm": lambda x: x @ x.t(),
    "mv": lambda x: x @ x[0],
    "dot": lambda x: x[0].dot(x[1]),
    "take": lambda x: x.take(torch.tensor([0, 3], device=x.device)),
    "sort": lambda x: x.sort(1),
    "nonzero": lambda x: (x > 0).nonzero(),
    "pad": lambda x: F.pad(x, (1, 1), mode="reflect"),
    "upsample": lambda x: F.interpolate(x[None], scale_factor=2, mode="linear"),
    "cross_entropy": lambda x: F.cross_entropy(x, torch.tensor([0, 1, 2, 3], device=x.device)),
    "grid_sample": lambda x: F.grid_sample(x[None, None], torch.zeros(1, 2, 2, 2, device=x.device), align_corners=False),
    "searchsorted": lambda x: torch.searchsorted(x[0].sort().values, x[1]),
    "embedding_bag": lambda x: F.embedding_bag(torch.tensor([0, 2, 1], device=x.device), x, torch.tensor([0, 1], device=x.device)),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_read_inputs_stay_shared(name):
    base = torch.randn(4, 6, device="ocl")
    x = torch._lazy_clone(base)
    assert torch._C._is_cow_tensor(x)
    OPS[name](x)
    assert torch._C._is_cow_tensor(x), f"{name} materialised an input it only reads"


def test_written_cow_tensor_is_materialised():
    base = torch.arange(6.0, device="ocl")
    x = torch._lazy_clone(base)
    x.mul_(2)
    torch.cumsum(base, 0, out=torch._lazy_clone(base))  # an out= tensor sharing base's storage
    assert not torch._C._is_cow_tensor(x)
    torch.testing.assert_close(base.cpu(), torch.arange(6.0))
    torch.testing.assert_close(x.cpu(), torch.arange(6.0) * 2)
