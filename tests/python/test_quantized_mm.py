"""Weight-only quantized products (kernels/quantized_mm_ops.cpp): int8
(_weight_int8pack_mm), int4 (_convert_weight_to_int4pack +
_weight_int4pack_mm), _int_mm. Compared with the CPU's kernels on the same
quantized weights (the CPU packs int4 weights its own way, so each side packs
with its own op), natively (strict)."""

import pytest
import torch
from torch.testing._internal.common_quantization import _dynamically_quantize_per_channel, _group_quantize_tensor

DTYPES = [torch.bfloat16, torch.float16, torch.float32]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k,n,group,tiles", [(4, 64, 16, 32, 2), (3, 256, 32, 64, 4), (1, 128, 16, 128, 8),
                                               (0, 64, 16, 32, 2)])
def test_int4_weight_mm_matches_cpu(strict, dtype, m, k, n, group, tiles):
    a, b = torch.rand(m, k, dtype=dtype), torch.rand(k, n, dtype=dtype)
    q_cpu, sz_cpu = _group_quantize_tensor(b, n_bit=4, q_group_size=group)  # int32 [n, k] on the CPU
    expected = torch._weight_int4pack_mm_for_cpu(a, torch._convert_weight_to_int4pack_for_cpu(q_cpu, tiles), group,
                                                 sz_cpu)
    q, sz = _group_quantize_tensor(b.to("ocl"), n_bit=4, q_group_size=group)  # uint8 [n, k/2] elsewhere
    packed = torch._convert_weight_to_int4pack(q, tiles)
    assert packed.dtype == torch.int32 and packed.shape == (n // 8, k // (tiles * 16), 32, tiles // 2)  # CUDA's
    # a non-contiguous activation (a column slice): the kernel takes strides
    wide = torch.rand(m, 2 * k, dtype=dtype)
    wide[:, ::2] = a
    got = torch._weight_int4pack_mm(wide.to("ocl")[:, ::2], packed, group, sz)
    torch.testing.assert_close(got.cpu(), expected, atol=1e-2, rtol=1e-2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sliced", [False, True])
def test_int8_weight_mm_matches_cpu(strict, dtype, sliced):
    m, k, n = 5, 48, 24
    a = torch.rand(4, m, k, dtype=dtype)[:, -1, :] if sliced else torch.rand(m, k, dtype=dtype)  # LLaMA's LM head
    b = torch.rand(n, k, dtype=dtype)
    b_q, scales, _ = _dynamically_quantize_per_channel(b, -128, 127, torch.int8)
    expected = torch._weight_int8pack_mm(a.contiguous(), b_q, scales)
    got = torch._weight_int8pack_mm(a.to("ocl"), b_q.to("ocl"), scales.to("ocl"))
    torch.testing.assert_close(got.cpu(), expected, atol=1e-2, rtol=1e-2)


def test_int_mm_is_exact(strict):
    a = torch.randint(-128, 128, (17, 40), dtype=torch.int8)
    b = torch.randint(-128, 128, (40, 9), dtype=torch.int8)
    assert torch.equal(torch._int_mm(a.to("ocl"), b.to("ocl").t().contiguous().t()).cpu(), torch._int_mm(a, b))
    out = torch.empty(0, dtype=torch.int32, device="ocl")
    torch._int_mm(a.to("ocl"), b.to("ocl"), out=out)
    assert torch.equal(out.cpu(), torch._int_mm(a, b))


def test_bad_inputs_raise_as_aten(strict):
    o = "ocl"
    with pytest.raises(RuntimeError, match="innerKTiles need to be 2, 4, or 8, got 3"):
        torch._convert_weight_to_int4pack(torch.zeros(8, 16, dtype=torch.uint8, device=o), 3)
    with pytest.raises(RuntimeError, match="expect weight to be kByte"):
        torch._convert_weight_to_int4pack(torch.zeros(8, 16, dtype=torch.int32, device=o), 2)
    with pytest.raises(RuntimeError, match=r"expect B.size\(1\) == 4"):
        torch._weight_int8pack_mm(torch.rand(2, 4, device=o), torch.zeros(3, 5, dtype=torch.int8, device=o),
                                  torch.rand(3, device=o))
    with pytest.raises(RuntimeError, match="expect A to be either 32-bit or 16-bit float tensor"):
        torch._weight_int8pack_mm(torch.zeros(2, 4, dtype=torch.int32, device=o),
                                  torch.zeros(3, 4, dtype=torch.int8, device=o), torch.rand(3, device=o))
    packed = torch._convert_weight_to_int4pack(torch.zeros(8, 16, dtype=torch.uint8, device=o), 2)
    with pytest.raises(RuntimeError, match="expect qScaleAndZeros to be 3d tensor with sizes"):
        torch._weight_int4pack_mm(torch.rand(2, 32, dtype=torch.bfloat16, device=o), packed, 32,
                                  torch.rand(2, 8, 2, dtype=torch.bfloat16, device=o))
    with pytest.raises(RuntimeError, match="Expected self dtype int8"):
        torch._int_mm(torch.zeros(2, 4, dtype=torch.int32, device=o), torch.zeros(4, 2, dtype=torch.int8, device=o))
