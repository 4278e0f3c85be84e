"""Creation, views, storage (resize_/set_), copies and casts, fills, item(),
clone/contiguous on ocl tensors. Everything runs under the `strict` fixture
(fallback_mode('error')): these ops must be native."""

import itertools

import pytest
import torch
from torch.testing import assert_close

from fallback_examples import CONV_OP, int_conv

ALL_DTYPES = [
    torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64,
]


def dname(dtype):
    return str(dtype).replace("torch.", "")


def same_layout_on_ocl(cpu):
    """cpu's whole storage copied to ocl, viewed with cpu's sizes, strides, offset."""
    flat = torch.empty(0, dtype=cpu.dtype).set_(cpu.untyped_storage())
    return flat.to("ocl").as_strided(cpu.shape, cpu.stride(), cpu.storage_offset())


def same_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def check(actual, expected, exact=True):
    assert actual.device.type == "ocl"
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if exact:
        assert_close(actual.cpu(), expected, rtol=0, atol=0, equal_nan=True)
    else:
        assert_close(actual.cpu(), expected, equal_nan=True)


# Creation -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dname)
def test_factories(strict, dtype):
    e = torch.empty(2, 3, dtype=dtype, device="ocl")
    assert e.shape == (2, 3) and e.dtype == dtype and e.device.type == "ocl"
    assert e.is_contiguous()
    check(torch.zeros(2, 3, dtype=dtype, device="ocl"), torch.zeros(2, 3, dtype=dtype))
    check(torch.ones(4, dtype=dtype, device="ocl"), torch.ones(4, dtype=dtype))
    value = True if dtype == torch.bool else 7
    check(torch.full((3, 2), value, dtype=dtype, device="ocl"), torch.full((3, 2), value, dtype=dtype))
    check(torch.zeros((), dtype=dtype, device="ocl"), torch.zeros((), dtype=dtype))
    check(torch.ones(0, 5, dtype=dtype, device="ocl"), torch.ones(0, 5, dtype=dtype))
    check(torch.zeros_like(e), torch.zeros(2, 3, dtype=dtype))
    check(torch.ones_like(e), torch.ones(2, 3, dtype=dtype))


def test_full_float_values(strict):
    check(torch.full((5,), -2.75, device="ocl"), torch.full((5,), -2.75))
    check(torch.full((5,), 1e-3, dtype=torch.float16, device="ocl"), torch.full((5,), 1e-3, dtype=torch.float16))
    check(torch.full((5,), 3.14159, dtype=torch.bfloat16, device="ocl"),
          torch.full((5,), 3.14159, dtype=torch.bfloat16))
    check(torch.full((2, 2), float("nan"), device="ocl"), torch.full((2, 2), float("nan")))
    check(torch.full((2,), float("-inf"), dtype=torch.float64, device="ocl"),
          torch.full((2,), float("-inf"), dtype=torch.float64))
    check(torch.full((3,), 2**40 + 3, dtype=torch.int64, device="ocl"), torch.full((3,), 2**40 + 3))


def test_empty_strided(strict):
    e = torch.empty_strided((2, 3), (1, 2), device="ocl")
    assert e.stride() == (1, 2) and e.shape == (2, 3)
    e2 = torch.empty_strided((4, 5), (10, 2), dtype=torch.float64, device="ocl")
    assert e2.stride() == (10, 2)
    assert e2.untyped_storage().nbytes() >= (3 * 10 + 4 * 2 + 1) * 8
    z = torch.empty_strided((0, 3), (3, 1), device="ocl")
    assert z.numel() == 0


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_efficient_zero_tensor(strict, dtype):
    # autograd's known-zero gradients (sgn's backward of a real input): no
    # storage on the device; ATen's ZeroTensor handling materialises zeros.
    z = torch._efficientzerotensor((3, 4), dtype=dtype, device="ocl")
    assert z.device.type == "ocl" and z.dtype == dtype and z.shape == (3, 4) and z._is_zerotensor()
    ones = torch.ones(3, 4, dtype=dtype, device="ocl")
    assert torch.equal((z + ones).cpu(), torch.ones(3, 4, dtype=dtype))
    assert torch.equal((z * ones).cpu(), torch.zeros(3, 4, dtype=dtype))
    assert torch.equal(z.cpu(), torch.zeros(3, 4, dtype=dtype))
    x = torch.linspace(-2, 2, 9, dtype=dtype)
    xc, xd = x.clone().requires_grad_(), x.to("ocl").requires_grad_()
    (torch.sgn(xc) * 3 + xc * xc).sum().backward()
    (torch.sgn(xd) * 3 + xd * xd).sum().backward()
    assert torch.equal(xd.grad.cpu(), xc.grad)
    xd.grad = None
    torch.sgn(xd).sum().backward()
    assert torch.equal(xd.grad.cpu(), torch.zeros(9, dtype=dtype))


def test_empty_memory_format(strict):
    e = torch.empty(2, 3, 4, 5, device="ocl", memory_format=torch.channels_last)
    assert e.stride() == torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride()


# Views ----------------------------------------------------------------------------

VIEWS = {
    "view": lambda x: x.view(4, 15),
    "view_flat": lambda x: x.view(-1),
    "reshape": lambda x: x.reshape(6, 10),
    "permute": lambda x: x.permute(2, 0, 1),
    "transpose": lambda x: x.transpose(0, 2),
    "t": lambda x: x[0].t(),
    "narrow": lambda x: x.narrow(2, 1, 3),
    "slice": lambda x: x[:, 1:3, ::2],
    "slice_neg": lambda x: x[-1:, :, -3:],
    "select": lambda x: x.select(1, 2),
    "index_int": lambda x: x[1, 2],
    "expand": lambda x: x[:, :1, :].expand(3, 4, 5),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "squeeze": lambda x: x[:, :1].squeeze(1),
    "squeeze_all": lambda x: x[:1, :1].squeeze(),
    "diagonal": lambda x: x.diagonal(0, 1, 2),
    "diagonal_offset": lambda x: x.diagonal(1, 0, 2),
    "unfold": lambda x: x.unfold(2, 2, 1),
    "split": lambda x: x.split(2, dim=2)[1],
    "chunk": lambda x: x.chunk(2, dim=1)[1],
    "unbind": lambda x: x.unbind(0)[2],
    "as_strided": lambda x: x.as_strided((3, 4), (2, 5), 3),
    "movedim": lambda x: x.movedim(0, -1),
    "view_as": lambda x: x.view_as(torch.empty(60)),
    "flatten": lambda x: x.flatten(1),
    "unflatten": lambda x: x.unflatten(2, (5, 1)),
    "view_dtype": lambda x: x.view(torch.int32),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_view_aliases_storage(strict, name):
    fn = VIEWS[name]
    base_cpu = torch.arange(60, dtype=torch.float32).view(3, 4, 5)
    base = base_cpu.to("ocl")
    y = fn(base)
    y_cpu = fn(base_cpu.clone())
    assert y.device.type == "ocl"
    assert same_storage(y, base), "a view must share its base's storage"
    assert y.shape == y_cpu.shape and y.stride() == y_cpu.stride()
    assert y.storage_offset() == y_cpu.storage_offset()
    check(y, y_cpu)

    # Writing through the view changes the base, exactly as on the CPU.
    expected = base_cpu.clone()
    fn(expected).fill_(-1)
    y.fill_(-1)
    check(base, expected)

    # copy_ into the view too (not for expand: overlapping writes).
    if name != "expand":
        expected = base_cpu.clone()
        src = torch.arange(y_cpu.numel(), dtype=y_cpu.dtype).view(y_cpu.shape) + 100
        fn(expected).copy_(src)
        base2 = base_cpu.to("ocl")
        fn(base2).copy_(src.to("ocl"))
        check(base2, expected)


def test_zero_dim_and_empty_views(strict):
    s = torch.tensor(5.0).to("ocl")
    v = s.view(1, 1)
    assert same_storage(v, s) and v.shape == (1, 1)
    assert s.unsqueeze(0).shape == (1,)
    e = torch.empty(0, 4, device="ocl")
    assert e.view(4, 0).shape == (4, 0)
    assert e.t().shape == (4, 0)
    assert e[:, 1:3].shape == (0, 2)


def test_data_ptr_arithmetic(strict):
    for dtype in (torch.float32, torch.float64, torch.int16, torch.uint8):
        x = torch.zeros(6, 5, dtype=dtype, device="ocl")
        itemsize = x.element_size()
        assert x[1:].data_ptr() == x.data_ptr() + x.stride(0) * itemsize
        assert x[2:, 3:].data_ptr() == x.data_ptr() + (2 * 5 + 3) * itemsize
        assert x.t()[1].data_ptr() == x.data_ptr() + itemsize
        assert x[1:].untyped_storage().data_ptr() == x.data_ptr()
        assert x.untyped_storage().nbytes() == 30 * itemsize


def test_data_ptrs_of_distinct_tensors_do_not_overlap(strict):
    a = torch.empty(1000, device="ocl")
    b = torch.empty(1000, device="ocl")
    lo, hi = sorted([(a.data_ptr(), a.nbytes), (b.data_ptr(), b.nbytes)])
    assert lo[0] + lo[1] <= hi[0]


# resize_ / set_ -----------------------------------------------------------------------


def test_resize_grow_keeps_data(strict):
    src = torch.arange(6, dtype=torch.float32)
    x = src.to("ocl")
    ptr = x.data_ptr()
    x.resize_(2, 3)
    assert x.shape == (2, 3) and x.data_ptr() == ptr
    check(x, src.view(2, 3))
    x.resize_(50)
    assert x.shape == (50,)
    assert x.untyped_storage().nbytes() >= 50 * 4
    check(x[:6], src)
    x.resize_(3)
    check(x, src[:3])
    x.resize_(0)
    assert x.numel() == 0


def test_resize_grow_of_offset_view(strict):
    base = torch.arange(10, dtype=torch.int64).to("ocl")
    v = base[4:]
    v.resize_(20)
    assert v.storage_offset() == 4
    check(v[:6], torch.arange(4, 10))
    assert v.untyped_storage().nbytes() >= 24 * 8


def test_resize_memory_format(strict):
    x = torch.empty(0, device="ocl")
    x.resize_(2, 3, 4, 5, memory_format=torch.channels_last)
    assert x.is_contiguous(memory_format=torch.channels_last)


def test_resize_negative_raises(strict):
    x = torch.empty(3, device="ocl")
    with pytest.raises(RuntimeError):
        x.resize_(-1)


def test_set_storage(strict):
    src = torch.arange(12, dtype=torch.float32)
    x = src.to("ocl")
    y = torch.empty(0, device="ocl")
    y.set_(x.untyped_storage())
    assert y.shape == (12,)
    assert same_storage(x, y)
    check(y, src)
    y.fill_(2)  # shared: x sees it
    check(x, torch.full((12,), 2.0))


def test_set_storage_offset_size_stride(strict):
    src = torch.arange(12, dtype=torch.float32)
    x = src.to("ocl")
    y = torch.empty(0, device="ocl")
    y.set_(x.untyped_storage(), 2, (3, 2), (1, 3))
    expected = torch.empty(0).set_(src.untyped_storage(), 2, (3, 2), (1, 3))
    assert y.stride() == (1, 3) and y.storage_offset() == 2
    check(y, expected)
    # Beyond the end of the storage: the storage grows.
    z = torch.empty(0, device="ocl")
    z.set_(x.untyped_storage(), 0, (20,), (1,))
    assert z.untyped_storage().nbytes() >= 80
    check(z[:12], src)


def test_set_tensor(strict):
    src = torch.arange(20, dtype=torch.int32).view(4, 5)
    x = src.to("ocl")[1:, ::2]
    y = torch.empty(0, dtype=torch.int32, device="ocl")
    y.set_(x)
    assert same_storage(x, y)
    assert y.shape == x.shape and y.stride() == x.stride() and y.storage_offset() == x.storage_offset()
    check(y, src[1:, ::2])
    y.set_(y)  # no-op on itself
    check(y, src[1:, ::2])


def test_set_empty(strict):
    x = torch.arange(5, dtype=torch.float32).to("ocl")
    x.set_()
    assert x.shape == (0,) and x.numel() == 0
    assert x.device.type == "ocl"
    assert x.untyped_storage().nbytes() == 0


def test_set_dtype_mismatch_raises(strict):
    x = torch.arange(5, dtype=torch.float32).to("ocl")
    y = torch.empty(0, dtype=torch.int32, device="ocl")
    with pytest.raises(RuntimeError):
        y.set_(x)


# copy_ -----------------------------------------------------------------------------


def test_copy_host_to_device_non_contiguous(strict):
    src = torch.arange(24, dtype=torch.float32).view(4, 6)
    # non-contiguous source
    d = torch.empty(6, 4, device="ocl")
    d.copy_(src.t())
    check(d, src.t().contiguous())
    # non-contiguous destination
    base = torch.zeros(6, 8, device="ocl")
    base[:, ::2].copy_(src.t())
    expected = torch.zeros(6, 8)
    expected[:, ::2] = src.t()
    check(base, expected)
    # both non-contiguous
    base = torch.zeros(4, 12, device="ocl")
    base[:, 1::2].copy_(src)
    expected = torch.zeros(4, 12)
    expected[:, 1::2] = src
    check(base, expected)
    base = torch.zeros(6, 4, device="ocl").t()
    base.copy_(src[:, ::1])
    check(base, src)


def test_copy_device_to_host_non_contiguous(strict):
    src = torch.arange(60, dtype=torch.float64).view(3, 4, 5)
    x = src.to("ocl")
    check_cpu = lambda a, b: assert_close(a, b, rtol=0, atol=0)
    out = torch.empty(5, 4, 3, dtype=torch.float64)
    out.copy_(x.permute(2, 1, 0))
    check_cpu(out, src.permute(2, 1, 0))
    out = torch.zeros(3, 4, 10, dtype=torch.float64)
    out[:, :, ::2].copy_(x[:, :, :])
    expected = torch.zeros(3, 4, 10, dtype=torch.float64)
    expected[:, :, ::2] = src
    check_cpu(out, expected)
    check_cpu(x[1:, ::2, 3].cpu(), src[1:, ::2, 3])
    check_cpu(x.transpose(0, 2).cpu(), src.transpose(0, 2))


def test_copy_device_to_device_non_contiguous(strict):
    src = torch.arange(60, dtype=torch.float32).view(3, 4, 5)
    x = src.to("ocl")
    y = torch.zeros(5, 4, 3, device="ocl")
    y.copy_(x.permute(2, 1, 0))
    check(y, src.permute(2, 1, 0).contiguous())
    z = torch.zeros(4, 10, device="ocl")
    z[:, 1::2].copy_(x[1])
    expected = torch.zeros(4, 10)
    expected[:, 1::2] = src[1]
    check(z, expected)
    w = torch.zeros(5, 4, device="ocl")
    w.t().copy_(x[2, :, :])  # transposed destination
    check(w, src[2].t().contiguous())
    # same-dtype dense copies with identical strides
    a = x.clone()
    b = torch.empty_like(a)
    b.copy_(a)
    check(b, src)


def test_copy_broadcast_src(strict):
    row = torch.arange(5, dtype=torch.float32)
    dst = torch.zeros(3, 5, device="ocl")
    dst.copy_(row.to("ocl"))
    check(dst, row.expand(3, 5).contiguous())
    dst2 = torch.zeros(3, 5, device="ocl")
    dst2.copy_(row)  # from the host
    check(dst2, row.expand(3, 5).contiguous())
    dst3 = torch.zeros(3, 5, device="ocl")
    dst3.copy_(torch.tensor(4.5).to("ocl"))
    check(dst3, torch.full((3, 5), 4.5))
    dst4 = torch.zeros(4, 3, device="ocl")
    dst4.copy_(torch.arange(4.0).view(4, 1).to("ocl"))
    check(dst4, torch.arange(4.0).view(4, 1).expand(4, 3).contiguous())
    host = torch.zeros(2, 5)
    host.copy_(row.to("ocl"))
    assert_close(host, row.expand(2, 5))


def test_copy_empty(strict):
    a = torch.empty(0, 3, device="ocl")
    a.copy_(torch.empty(0, 3))
    b = torch.empty(0, 3)
    b.copy_(a)
    assert torch.empty(0, device="ocl").cpu().numel() == 0


def cast_values(src_dtype, dst_dtype):
    """CPU tensor of src_dtype whose conversion to dst_dtype is well defined."""
    if src_dtype == torch.bool:
        return torch.tensor([True, False, True, True, False])
    if src_dtype == torch.uint8:
        vals = [0, 1, 2, 7, 100, 128, 255]
    elif src_dtype.is_floating_point:
        vals = [0.0, 0.5, 1.75, 2.25, 0.25, 100.0, 126.5, 3.0]
        if dst_dtype != torch.uint8:  # float -> uint8 of a negative is undefined
            vals += [-1.5, -7.0, -0.75, -100.25]
    else:
        vals = [0, 1, -1, 2, -7, 100, 127, -128]
        if src_dtype != torch.int8:
            vals += [256, -300, 1000, 30000]
        if src_dtype in (torch.int32, torch.int64):
            vals += [70000, -(2**20) - 1]
    return torch.tensor(vals, dtype=torch.float64 if src_dtype.is_floating_point else torch.int64).to(src_dtype)


@pytest.mark.parametrize(
    "src_dtype,dst_dtype", list(itertools.product(ALL_DTYPES, ALL_DTYPES)),
    ids=lambda d: dname(d),
)
def test_cast_device_to_device(strict, src_dtype, dst_dtype):
    src = cast_values(src_dtype, dst_dtype)
    expected = src.to(dst_dtype)
    x = src.to("ocl")
    check(x, src)
    y = x.to(dst_dtype)
    check(y, expected)
    # strided source and destination
    src2 = src.repeat(2)[::2]
    dst = torch.zeros(2 * src2.numel(), dtype=dst_dtype, device="ocl")
    dst[1::2].copy_(src.repeat(2).to("ocl")[::2])
    exp2 = torch.zeros(2 * src2.numel(), dtype=dst_dtype)
    exp2[1::2] = src2.to(dst_dtype)
    check(dst, exp2)


@pytest.mark.parametrize("dst_dtype", [torch.int32, torch.float16, torch.bool, torch.bfloat16, torch.float64])
def test_cast_host_device_crossing(strict, dst_dtype):
    src = cast_values(torch.float32, dst_dtype).view(2, -1)
    # host float32 -> ocl dst_dtype
    d = torch.empty(src.shape, dtype=dst_dtype, device="ocl")
    d.copy_(src)
    check(d, src.to(dst_dtype))
    # ocl float32 -> host dst_dtype
    h = torch.empty(src.shape, dtype=dst_dtype)
    h.copy_(src.to("ocl"))
    assert_close(h, src.to(dst_dtype), rtol=0, atol=0)


@pytest.mark.parametrize("dst_dtype", [torch.float16, torch.bfloat16])
def test_cast_rounding(strict, dst_dtype):
    torch.manual_seed(0)
    src = torch.randn(10000) * 10
    src[:4] = torch.tensor([float("inf"), float("-inf"), float("nan"), 1e-8])
    expected = src.to(dst_dtype)
    check(src.to("ocl").to(dst_dtype), expected)
    check(src.double().to("ocl").to(dst_dtype), src.double().to(dst_dtype))


# fill_ / zero_ --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dname)
def test_fill_zero_non_contiguous(strict, dtype):
    value = True if dtype == torch.bool else 3
    base_cpu = torch.zeros(4, 6, dtype=dtype)
    base = torch.zeros(4, 6, dtype=dtype, device="ocl")
    base[:, ::2].fill_(value)
    base_cpu[:, ::2].fill_(value)
    check(base, base_cpu)
    base.t()[1:3].zero_()
    base_cpu.t()[1:3].zero_()
    check(base, base_cpu)
    base.fill_(value)
    base_cpu.fill_(value)
    base[1:, 1:].zero_()
    base_cpu[1:, 1:].zero_()
    check(base, base_cpu)
    # tensor-valued fill: 0-dim CPU and 0-dim ocl values
    base[0].fill_(torch.tensor(value, dtype=dtype))
    base_cpu[0].fill_(torch.tensor(value, dtype=dtype))
    check(base, base_cpu)
    base[:, 0].fill_(torch.tensor(0, dtype=dtype).to("ocl"))
    base_cpu[:, 0].fill_(torch.tensor(0, dtype=dtype))
    check(base, base_cpu)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_fill_float_values(strict, dtype):
    for v in (-1.5, 0.1, 65504.0 if dtype == torch.float16 else 1e30, float("nan"), float("-inf")):
        x = torch.empty(7, dtype=dtype, device="ocl")
        x[::3].fill_(v)
        check(x[::3], torch.full((3,), v, dtype=dtype))


def test_fill_expanded_and_empty(strict):
    x = torch.zeros(3, device="ocl")
    x.unsqueeze(1).expand(3, 4).fill_(2.0)
    check(x, torch.full((3,), 2.0))
    torch.empty(0, device="ocl").fill_(1.0)
    torch.empty(0, 3, device="ocl").zero_()


def test_fill_non_scalar_tensor_raises(strict):
    x = torch.zeros(3, device="ocl")
    with pytest.raises(RuntimeError):
        x.fill_(torch.ones(2))


# item, clone, contiguous -----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dname)
def test_item(strict, dtype):
    values = {torch.bool: True, torch.uint8: 200, torch.int8: -100, torch.int16: -30000,
              torch.int32: -(2**31) + 5, torch.int64: 2**62 + 7, torch.float16: -1.5,
              torch.bfloat16: 3.25, torch.float32: 1.2345678, torch.float64: 1.0000000000000002}
    cpu = torch.tensor([0, values[dtype]], dtype=dtype)
    x = cpu.to("ocl")
    item = x[1].item()
    assert type(item) is type(cpu[1].item())
    assert item == cpu[1].item()
    assert x[0].item() == cpu[0].item()
    assert x.view(2, 1)[1, 0].item() == cpu[1].item()
    if dtype.is_floating_point:
        assert float(x[1]) == float(cpu[1])
    else:
        assert int(x[1]) == int(cpu[1])


def test_item_errors(strict):
    with pytest.raises(RuntimeError):
        torch.empty(0, device="ocl").item()
    with pytest.raises(RuntimeError):
        torch.zeros(2, device="ocl").item()


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.arange(24.0).view(2, 3, 4),
        lambda: torch.arange(24.0).view(2, 3, 4).transpose(0, 2),
        lambda: torch.arange(48, dtype=torch.int16).view(6, 8)[1::2, ::3],
        lambda: torch.arange(6.0).view(2, 3)[:, :1].expand(2, 5),
        lambda: torch.tensor(3.0),
        lambda: torch.empty(0, 2),
    ],
    ids=["contig", "transposed", "sliced", "expanded", "scalar", "empty"],
)
def test_clone_and_contiguous(strict, make):
    base_cpu = make()
    x = same_layout_on_ocl(base_cpu)
    assert x.stride() == base_cpu.stride()
    check(x, base_cpu)
    c = x.clone()
    assert not same_storage(c, x) or c.numel() == 0
    assert c.stride() == base_cpu.clone().stride()
    check(c, base_cpu.clone())
    k = x.contiguous()
    assert k.is_contiguous()
    check(k, base_cpu.contiguous())
    if x.is_contiguous():
        assert k is x
    # the clone is independent of its source
    if c.numel():
        c.fill_(-5)
        check(x, base_cpu)


def test_clone_memory_format(strict):
    cpu = torch.arange(120.0).view(2, 3, 4, 5)
    x = cpu.to("ocl")
    cl = x.clone(memory_format=torch.channels_last)
    assert cl.is_contiguous(memory_format=torch.channels_last)
    check(cl, cpu)


def test_to_same_device_is_noop(strict):
    x = torch.ones(3, device="ocl")
    assert x.to("ocl") is x
    assert x.to("ocl", copy=True) is not x


def test_large_copy_roundtrip(strict):
    torch.manual_seed(1)
    src = torch.randn(1 << 20)
    x = src.to("ocl")
    check(x, src)
    check(x[::2], src[::2])
    check(x.view(1024, 1024).t().contiguous(), src.view(1024, 1024).t().contiguous())


# Ops that are not native fall back to the CPU and are counted --------------------------------


def test_non_native_op_falls_back(fallback_stats):
    # Integer convolutions have no ocl kernel (CUDA has none either): they take the fallback.
    a = torch.tensor([[2, 1], [1, 3]])
    with torch.ocl.fallback_mode("silent"):
        p = int_conv(a.to("ocl"))
    assert p.device.type == "ocl"
    assert_close(p.cpu(), int_conv(a))
    assert CONV_OP in fallback_stats(), fallback_stats()
    with torch.ocl.fallback_mode("error"):
        with pytest.raises(RuntimeError, match=CONV_OP):
            int_conv(a.to("ocl"))


def test_many_dims_copy(strict):
    """copy_/contiguous/fill_ of a tensor with more non-coalescable dims than
    the device indexer holds natively."""
    src = torch.arange(2**12, dtype=torch.float32).view((2,) * 12)
    perm = list(range(0, 12, 2)) + list(range(1, 12, 2))
    x = src.to("ocl")
    check(x.permute(perm).contiguous(), src.permute(perm).contiguous())
    dst = torch.zeros((2,) * 12, device="ocl")
    dst.copy_(x.permute(perm))
    check(dst, src.permute(perm).contiguous())
    check(x.permute(perm).to(torch.float64), src.permute(perm).to(torch.float64))
    host = torch.zeros((2,) * 12)
    host.copy_(x.permute(perm))
    assert_close(host, src.permute(perm).contiguous(), rtol=0, atol=0)
