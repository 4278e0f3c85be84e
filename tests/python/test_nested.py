"""Nested tensors (torch.nested, NestedTensorImpl) on ocl: they live on the
device and every op on them runs through the counted CPU fallback
(backend/nested_fallback.cpp); nn.TransformerEncoder's inference fast path
(enable_nested_tensor=True, the default) uses them on ocl as on CUDA."""

import warnings

import pytest
import torch
from torch.testing import assert_close

pytestmark = pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")


def _unbound(nt):
    return [t.cpu() for t in nt.to("cpu").unbind()]


@pytest.mark.parametrize("batch_first", [True, False])
def test_transformer_encoder_fast_path_matches_cpu(batch_first):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(12, 2, 24, batch_first=batch_first)
    enc = torch.nn.TransformerEncoder(layer, 2).eval()
    x = torch.randn(3, 5, 12) if batch_first else torch.randn(5, 3, 12)
    mask = torch.zeros(3, 5, dtype=torch.bool)
    mask[0, 3:] = True
    mask[1, 4:] = True
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = enc(x, src_key_padding_mask=mask)
        enc.to("ocl")
        torch.ocl.reset_fallback_stats()
        actual = enc(x.to("ocl"), src_key_padding_mask=mask.to("ocl"))
    assert actual.device.type == "ocl" and not actual.is_nested
    assert_close(actual.cpu(), expected)
    # batch_first takes the fast path: the fused encoder layer on a nested tensor
    fused = torch.ocl.fallback_stats().get("aten::_transformer_encoder_layer_fwd", 0)
    assert fused == (2 if batch_first else 0)


def test_nested_tensor_ops_and_copies(fallback_stats):
    parts = [torch.randn(2, 3), torch.randn(4, 3)]
    nt = torch.nested.nested_tensor(parts, device="ocl")
    assert nt.is_nested and nt.device.type == "ocl"
    back = nt.to("cpu")
    assert back.device.type == "cpu" and back.is_nested
    for got, want in zip(_unbound(back), parts):
        assert torch.equal(got, want)
    doubled = nt * 2
    assert doubled.device.type == "ocl" and doubled.is_nested
    for got, want in zip(_unbound(doubled), parts):
        assert torch.equal(got, want * 2)
    padded = doubled.to_padded_tensor(0.0)
    assert padded.device.type == "ocl" and not padded.is_nested and padded.shape == (2, 4, 3)
    assert torch.equal(padded.cpu()[0, 2:], torch.zeros(2, 3))
    same = nt.mul_(3)  # in place: the ocl tensor itself changes
    assert same is nt
    for got, want in zip(_unbound(nt), parts):
        assert torch.equal(got, want * 3)
    assert fallback_stats().get("aten::mul_.Tensor", 0) == 1


def test_nested_ops_obey_the_fallback_mode():
    nt = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], device="ocl")
    with torch.ocl.fallback_mode("error"), pytest.raises(RuntimeError, match="TORCH_OCL_FALLBACK=error"):
        nt * 2
