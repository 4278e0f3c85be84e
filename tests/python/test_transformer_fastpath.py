"""The transformer fast path (nn.MultiheadAttention and nn.TransformerEncoder in
inference: _native_multi_head_attention, _transformer_encoder_layer_fwd,
_transform_bias_rescale_qkv, _masked_softmax) runs natively and matches the
CPU, which takes the same path."""

import pytest
import torch
from torch import nn
from torch.testing import assert_close

FAST_OPS = {"aten::_native_multi_head_attention", "aten::_transform_bias_rescale_qkv"}


def ops_called(fn):
    with torch.autograd.profiler.profile() as prof:
        fn()
    return {e.name for e in prof.function_events}


@pytest.mark.parametrize("mask", [None, "key_padding", "attn"])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_multihead_attention_fast_path(strict, mask, need_weights, average):
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    x = torch.randn(3, 5, 8)
    masks = {}
    if mask == "key_padding":  # the last batch element is masked entirely
        masks["key_padding_mask"] = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [True] * 5])
    if mask == "attn":
        masks["attn_mask"] = torch.rand(5, 5) > 0.7
    kw = dict(need_weights=need_weights, average_attn_weights=average)
    with torch.no_grad():
        expected = mha(x, x, x, **masks, **kw)
        mha.to("ocl")
        xo = x.to("ocl")  # query is key is value: the fast path's condition
        masks = {k: v.to("ocl") for k, v in masks.items()}
        actual = mha(xo, xo, xo, **masks, **kw)
        assert FAST_OPS <= ops_called(lambda: mha(xo, xo, xo, **masks, **kw))
    rows = slice(0, 2) if mask == "key_padding" else slice(None)
    assert_close(actual[0][rows].cpu(), expected[0][rows])
    if need_weights:
        assert_close(actual[1][rows].cpu(), expected[1][rows])
    if mask == "key_padding":  # a row masked entirely: 0 attention as on CUDA (the CPU's is NaN)
        assert not actual[0][2].isnan().any()


@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_fast_path(strict, activation, norm_first):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation=activation, norm_first=norm_first)
    encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    x = torch.randn(2, 5, 8)
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    with torch.no_grad():
        expected = encoder(x), encoder(x, mask=causal, is_causal=True)
        encoder.to("ocl")
        xo, co = x.to("ocl"), causal.to("ocl")
        actual = encoder(xo), encoder(xo, mask=co, is_causal=True)
        assert "aten::_transformer_encoder_layer_fwd" in ops_called(lambda: encoder(xo))
    assert_close(actual[0].cpu(), expected[0])
    assert_close(actual[1].cpu(), expected[1])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("mask_type,mask_shape", [(0, (4, 4)), (1, (2, 4)), (2, (2, 3, 4, 4))])
def test_masked_softmax_mask_types(strict, dtype, mask_type, mask_shape):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4, 4, dtype=dtype)
    mask = torch.rand(mask_shape) > 0.5
    mask[..., 0, :] = True  # a row masked entirely: 0 on ocl as on CUDA, NaN on the CPU
    expected = torch._masked_softmax(x, mask, 3, mask_type)
    actual = torch._masked_softmax(x.to("ocl"), mask.to("ocl"), 3, mask_type)
    tol = dict(rtol=1.6e-2, atol=1e-2) if dtype == torch.bfloat16 else {}
    assert_close(actual.cpu(), expected.nan_to_num(0), **tol)


@pytest.mark.parametrize("dim", [0, 3])
def test_masked_softmax_backward(strict, dim):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4, 4, requires_grad=True)
    mask = torch.rand(2, 3, 4, 4) > 0.5
    grad = torch.randn(2, 3, 4, 4)
    torch._masked_softmax(x, mask, dim, 2).backward(grad)
    xo = x.detach().to("ocl").requires_grad_()
    torch._masked_softmax(xo, mask.to("ocl"), dim, 2).backward(grad.to("ocl"))
    assert_close(xo.grad.cpu(), x.grad.nan_to_num(0))
    assert (xo.grad.cpu()[mask] == 0).all()


def test_masked_softmax_and_qkv_errors_as_cpu():
    x = torch.randn(2, 3, 4, 4)
    for args in [(torch.ones(3, 4, dtype=torch.bool), 3, 0), (torch.ones(2, 4), 3, 1),
                 (torch.ones(2, 3, 4, 3, dtype=torch.bool), 3, 2)]:
        with pytest.raises(RuntimeError) as cpu_err:
            torch._masked_softmax(x, *args)
        with pytest.raises(RuntimeError, match=str(cpu_err.value).split("\n")[0].replace("(", r"\(").replace(")", r"\)")):
            torch._masked_softmax(x.to("ocl"), args[0].to("ocl"), *args[1:])


def test_transform_bias_rescale_qkv(strict):
    torch.manual_seed(0)
    qkv, bias = torch.randn(2, 5, 24), torch.randn(24)
    expected = torch._transform_bias_rescale_qkv(qkv, bias, 4)
    actual = torch._transform_bias_rescale_qkv(qkv.to("ocl"), bias.to("ocl"), 4)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape == (2, 4, 5, 2)
        assert_close(a.cpu(), e)
