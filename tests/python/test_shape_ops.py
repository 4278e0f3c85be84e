"""Shape ops and range factories on ocl against PyTorch CPU.

cat (and stack / hstack / vstack / chunk composites), flip, roll, tril /
triu, arange, linspace, logspace, eye. Every test runs under
fallback_mode('error'), so an op that is not native raises; each result is
compared with the same op on CPU tensors holding the same values, forward
and (for the float dtypes) the input gradients. Errors for bad input are
compared with the CPU's exception type and message.
"""

import pytest
import torch
from torch.testing import assert_close

from dtype_lists import ALL, FLOATS, INTS, dname  # noqa: F401
from cpu_reference import assert_matches_cpu, to_ocl


pytestmark = pytest.mark.usefixtures("strict")  # every test proves its ops native


def make(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float32).to(dtype)
    lo = 0 if dtype == torch.uint8 else -50
    return torch.randint(lo, 50, shape, generator=g, dtype=dtype)


def same(got, expected, **kw):
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            same(g, e, **kw)
        return
    any_strides = kw.pop("any_strides", False)
    assert_matches_cpu(got, expected, **kw)
    assert got.stride() == expected.stride() or expected.numel() <= 1 or any_strides


def grads_match(fn, inputs, **kw):
    """fn's input gradients on ocl equal the CPU's (float64 inputs)."""
    cpu_in = [t.detach().double().requires_grad_() for t in inputs]
    dev_in = [to_ocl(t.detach()).requires_grad_() for t in cpu_in]
    out_c, out_d = fn(*cpu_in), fn(*dev_in)
    g = torch.randn(out_c.shape, dtype=out_c.dtype, generator=torch.Generator().manual_seed(7))
    gc = torch.autograd.grad(out_c, cpu_in, g)
    gd = torch.autograd.grad(out_d, dev_in, to_ocl(g))
    for a, b in zip(gd, gc):
        assert a.device.type == "ocl"
        assert_close(a.cpu(), b, **kw)


def errors_match(fn, *cpu_args):
    with pytest.raises(Exception) as cpu_err:
        fn(*cpu_args)
    dev_args = [to_ocl(a) if isinstance(a, torch.Tensor) else a for a in cpu_args]
    with pytest.raises(type(cpu_err.value)) as dev_err:
        fn(*dev_args)
    assert str(cpu_err.value).split("\n")[0] == str(dev_err.value).split("\n")[0]


# cat -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL, ids=dname)
def test_cat_dtypes(dtype):
    a, b, c = make((2, 3), dtype, 1), make((4, 3), dtype, 2), make((1, 3), dtype, 3)
    same(torch.cat([to_ocl(a), to_ocl(b), to_ocl(c)]), torch.cat([a, b, c]))
    same(torch.cat([to_ocl(a.t()), to_ocl(b.t())], dim=1), torch.cat([a.t(), b.t()], dim=1))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_cat_dims_and_noncontiguous(dim):
    base = make((4, 6, 8), torch.float32)
    parts = [base, base.transpose(0, 2).contiguous().transpose(0, 2), base[:, :, ::1] * 2]
    sliced = make((8, 12, 16), torch.float32)[::2, ::2, ::2]  # strided input
    parts.append(sliced)
    same(torch.cat([to_ocl(p) for p in parts], dim=dim), torch.cat(parts, dim=dim))
    trans = [p.transpose(0, 1) for p in parts]
    same(torch.cat([to_ocl(p.contiguous()).transpose(0, 1) for p in parts], dim=dim),
         torch.cat(trans, dim=dim))


def test_cat_mixed_dtypes_promote():
    a = make((3, 2), torch.int32)
    b = make((1, 2), torch.float16)
    c = make((2, 2), torch.bool)
    d = make((2, 2), torch.int64)
    same(torch.cat([to_ocl(a), to_ocl(b), to_ocl(c)]), torch.cat([a, b, c]))
    same(torch.cat([to_ocl(a), to_ocl(d), to_ocl(c)]), torch.cat([a, d, c]))
    same(torch.cat([to_ocl(c), to_ocl(c)]), torch.cat([c, c]))


def test_cat_empty_and_legacy_empty():
    a = make((2, 3), torch.float32)
    legacy = torch.empty(0)
    e = torch.empty(0, 3)
    same(torch.cat([to_ocl(legacy), to_ocl(a), to_ocl(legacy)]), torch.cat([legacy, a, legacy]))
    same(torch.cat([to_ocl(e), to_ocl(a), to_ocl(e)]), torch.cat([e, a, e]))
    same(torch.cat([to_ocl(legacy), to_ocl(legacy)]), torch.cat([legacy, legacy]))
    same(torch.cat([to_ocl(torch.empty(2, 0)), to_ocl(torch.empty(2, 0))], 1),
         torch.cat([torch.empty(2, 0), torch.empty(2, 0)], 1))
    # a legacy empty tensor of another dtype still takes part in promotion
    same(torch.cat([to_ocl(a), to_ocl(torch.empty(0, dtype=torch.float64))]),
         torch.cat([a, torch.empty(0, dtype=torch.float64)]))


def test_cat_channels_last():
    a = make((2, 3, 4, 5), torch.float32).contiguous(memory_format=torch.channels_last)
    b = make((2, 5, 4, 5), torch.float32, 1).contiguous(memory_format=torch.channels_last)
    got = torch.cat([to_ocl(a), to_ocl(b)], dim=1)
    exp = torch.cat([a, b], dim=1)
    assert got.is_contiguous(memory_format=torch.channels_last)
    same(got, exp)
    # mixed formats give a contiguous result
    same(torch.cat([to_ocl(a), to_ocl(b.contiguous())], dim=1), torch.cat([a, b.contiguous()], dim=1))


def test_cat_out():
    a, b = make((2, 3), torch.float32), make((2, 3), torch.float32, 1)
    out = to_ocl(torch.empty(0, dtype=torch.float64))
    torch.cat([to_ocl(a), to_ocl(b)], out=out)
    same(out, torch.cat([a, b]).double())
    # out= into a transposed view of the right shape keeps its strides
    out2 = to_ocl(torch.zeros(3, 4)).t()
    torch.cat([to_ocl(a), to_ocl(b)], out=out2)
    assert_close(out2.cpu(), torch.cat([a, b]))


def test_cat_large():
    a, b = make((100_003,), torch.float32), make((7,), torch.float32, 1)
    same(torch.cat([to_ocl(a), to_ocl(b), to_ocl(a)]), torch.cat([a, b, a]))


def test_cat_backward():
    a, b = make((2, 3), torch.float32), make((4, 3), torch.float32, 1)
    grads_match(lambda x, y: torch.cat([x, y.t().contiguous().t()]), [a, b])
    grads_match(lambda x, y: torch.cat([x, y], dim=0) * 3, [a, b])


def test_cat_errors():
    errors_match(lambda a, b: torch.cat([a, b]), torch.ones(2), torch.ones(2, 2))
    errors_match(lambda a, b: torch.cat([a, b]), torch.ones(2, 3), torch.ones(2, 2))
    errors_match(lambda a, b: torch.cat([a, b]), torch.ones(()), torch.ones(2))
    errors_match(lambda a, b: torch.cat([a, b], dim=3), torch.ones(2, 3), torch.ones(2, 3))
    errors_match(lambda a, b: torch.cat([a, b], out=torch.empty(4, dtype=torch.int32, device=a.device)),
                 torch.ones(2), torch.ones(2))
    with pytest.raises(ValueError, match="expected a non-empty list"):
        torch.cat([])


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool], ids=dname)
def test_stack_hstack_vstack_chunk(dtype):
    xs = [make((3, 4), dtype, i) for i in range(3)]
    d = [to_ocl(x) for x in xs]
    same(torch.stack(d), torch.stack(xs))
    same(torch.stack(d, dim=2), torch.stack(xs, dim=2))
    same(torch.hstack(d), torch.hstack(xs))
    same(torch.vstack(d), torch.vstack(xs))
    same(torch.dstack(d), torch.dstack(xs))
    big = make((6, 5), dtype)
    parts = torch.chunk(to_ocl(big), 3, dim=0)
    same(torch.cat(parts[::-1]), torch.cat(torch.chunk(big, 3, dim=0)[::-1]))


def test_stack_backward():
    xs = [make((3, 4), torch.float32, i) for i in range(3)]
    grads_match(lambda a, b, c: torch.stack([a, b, c], dim=1), xs)


# flip / roll -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL, ids=dname)
def test_flip_dtypes(dtype):
    x = make((3, 4, 5), dtype)
    for dims in [(0,), (1,), (2,), (0, 2), (0, 1, 2), (-1,)]:
        same(torch.flip(to_ocl(x), dims), torch.flip(x, dims))


def test_flip_shapes():
    x = make((4, 6, 8), torch.float32)
    same(torch.flip(to_ocl(x).transpose(0, 2), (0, 1)), torch.flip(x.transpose(0, 2), (0, 1)))
    same(torch.flip(to_ocl(x)[::2, :, 1::3], (2,)), torch.flip(x[::2, :, 1::3], (2,)))
    same(torch.flip(to_ocl(x.contiguous(memory_format=torch.contiguous_format)).expand(2, 4, 6, 8), (0, 3)),
         torch.flip(x.expand(2, 4, 6, 8), (0, 3)))
    e = torch.empty(0, 3)
    same(torch.flip(to_ocl(e), (0,)), torch.flip(e, (0,)))
    s = torch.tensor(3.5)
    same(torch.flip(to_ocl(s), ()), torch.flip(s, ()))
    big = make((100_003,), torch.float32)
    same(torch.flip(to_ocl(big), (0,)), torch.flip(big, (0,)))
    cl = make((2, 3, 4, 5), torch.float32).contiguous(memory_format=torch.channels_last)
    same(torch.flip(to_ocl(cl), (1, 3)), torch.flip(cl, (1, 3)))
    same(torch.fliplr(to_ocl(x[0])), torch.fliplr(x[0]))
    same(torch.flipud(to_ocl(x[0])), torch.flipud(x[0]))
    same(torch.rot90(to_ocl(x[0]), 1), torch.rot90(x[0], 1), any_strides=True)


def test_flip_backward_and_errors():
    grads_match(lambda a: torch.flip(a, (0, 1)) * 2, [make((3, 4), torch.float32)])
    errors_match(lambda a: torch.flip(a, (0, 0)), torch.ones(2, 2))
    errors_match(lambda a: torch.flip(a, (3,)), torch.ones(2, 2))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.uint8, torch.bool], ids=dname)
def test_roll(dtype):
    x = make((4, 5, 6), dtype)
    for shifts, dims in [(1, 0), (-2, 1), (7, 2), ((1, 2), (0, 2)), (3, None), (0, 0), (-13, None)]:
        same(torch.roll(to_ocl(x), shifts, dims), torch.roll(x, shifts, dims))
    t = x.transpose(0, 2)
    same(torch.roll(to_ocl(x).transpose(0, 2), 2, 1), torch.roll(t, 2, 1))
    e = torch.empty(0, 3, dtype=dtype)
    same(torch.roll(to_ocl(e), 1, 1), torch.roll(e, 1, 1))


def test_roll_backward_and_errors():
    grads_match(lambda a: torch.roll(a, (1, -1), (0, 1)), [make((3, 4), torch.float32)])
    errors_match(lambda a: torch.roll(a, (1, 1), (0,)), torch.ones(2, 2))


# tril / triu -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL, ids=dname)
@pytest.mark.parametrize("fn", [torch.tril, torch.triu], ids=["tril", "triu"])
def test_triangle_dtypes(fn, dtype):
    x = make((5, 7), dtype)
    for k in [0, 1, -1, 3, -4, 10, -10]:
        same(fn(to_ocl(x), k), fn(x, k))


@pytest.mark.parametrize("fn", ["tril", "triu"])
def test_triangle_shapes_inplace_out(fn):
    f = getattr(torch, fn)
    x = make((3, 2, 6, 4), torch.float32)
    same(f(to_ocl(x), 1), f(x, 1))
    same(f(to_ocl(x).transpose(-1, -2), -1), f(x.transpose(-1, -2), -1))
    same(f(to_ocl(x).transpose(0, 3), 0), f(x.transpose(0, 3), 0))
    same(f(to_ocl(x)[:, :, ::2, 1:], 0), f(x[:, :, ::2, 1:], 0))
    same(f(to_ocl(torch.empty(0, 3, 3)), 0), f(torch.empty(0, 3, 3), 0))
    big = make((317, 331), torch.float32)
    same(f(to_ocl(big), 2), f(big, 2))
    # in place, on a transposed view
    y = to_ocl(x).transpose(-1, -2)
    getattr(y, fn + "_")(1)
    assert_close(y.cpu(), f(x.transpose(-1, -2), 1))
    # out=
    out = to_ocl(torch.empty(0))
    f(to_ocl(x), -2, out=out)
    same(out, f(x, -2))
    grads_match(lambda a: f(a, 1), [make((4, 5), torch.float32)])


def test_triangle_errors():
    errors_match(lambda a: torch.tril(a), torch.ones(3))
    errors_match(lambda a: torch.triu(a), torch.ones(()))


# arange / linspace / logspace / eye ------------------------------------------------------------

ARANGE_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
                 torch.int16, torch.int8, torch.uint8]


@pytest.mark.parametrize("dtype", ARANGE_DTYPES, ids=dname)
def test_arange(dtype):
    for args in [(10,), (2, 20, 3), (5, -5, -1), (0, 1, 0.1), (-3.5, 7.25, 0.5), (0,), (3, 3)]:
        if not dtype.is_floating_point and any(isinstance(a, float) for a in args):
            continue
        same(torch.arange(*args, dtype=dtype, device="ocl"), torch.arange(*args, dtype=dtype))
    if dtype not in (torch.int8, torch.uint8, torch.float16, torch.bfloat16):
        same(torch.arange(100_003, dtype=dtype, device="ocl"), torch.arange(100_003, dtype=dtype))


def test_arange_out_and_errors():
    # a non-contiguous out= with the right number of elements keeps its shape
    out_c, out_d = torch.empty(2, 5).t(), to_ocl(torch.empty(2, 5)).t()
    torch.arange(0, 10, out=out_c)
    torch.arange(0, 10, out=out_d)
    assert out_d.shape == out_c.shape and out_d.stride() == out_c.stride()
    assert_close(out_d.cpu(), out_c)
    out = to_ocl(torch.empty(0, dtype=torch.int64))
    torch.arange(3, 30, 4, out=out)
    same(out, torch.arange(3, 30, 4))
    for args in [(0, 10, 0), (0, 10, -1), (10, 0, 1)]:
        with pytest.raises(RuntimeError) as cpu_err:
            torch.arange(*args)
        with pytest.raises(RuntimeError) as dev_err:
            torch.arange(*args, device="ocl")
        assert str(dev_err.value) == str(cpu_err.value)
    with pytest.raises(NotImplementedError, match="\"arange_cpu\" not implemented for 'Bool'"):
        torch.arange(3, dtype=torch.bool, device="ocl")


LIN_DTYPES = ARANGE_DTYPES


@pytest.mark.parametrize("dtype", LIN_DTYPES, ids=dname)
def test_linspace(dtype):
    # float16/bfloat16 exactly: every step rounds as in the CPU's arithmetic
    # (float32 may differ in the last place: the device may fuse a multiply-add)
    half = dtype in (torch.float16, torch.bfloat16)
    tol = dict(rtol=0, atol=0) if half else {}
    for start, end, steps in [(0, 10, 5), (-3, 7, 11), (10, -10, 7), (0, 1, 1), (2, 5, 0), (0, 100, 101), (1, 2, 8)]:
        if dtype == torch.uint8 and (start < 0 or end < 0):
            continue
        same(torch.linspace(start, end, steps, dtype=dtype, device="ocl"),
             torch.linspace(start, end, steps, dtype=dtype), **tol)
    if not half and dtype not in (torch.int8, torch.uint8, torch.int16):
        same(torch.linspace(-5, 1000, 100_003, dtype=dtype, device="ocl"),
             torch.linspace(-5, 1000, 100_003, dtype=dtype))


@pytest.mark.parametrize("dtype", LIN_DTYPES, ids=dname)
def test_logspace(dtype):
    half = dtype in (torch.float16, torch.bfloat16)
    tol = dict(rtol=1e-2, atol=1e-2) if half else {}
    for start, end, steps, base in [(0, 2, 5, 10.0), (-1, 1, 7, 2.0), (0, 3, 1, 10.0), (1, 2, 0, 10.0),
                                    (0, 4, 9, 3.0), (2, 0, 6, 2.0)]:
        same(torch.logspace(start, end, steps, base=base, dtype=dtype, device="ocl"),
             torch.logspace(start, end, steps, base=base, dtype=dtype), **tol)


def test_range_out_noncontiguous_and_errors():
    out = to_ocl(torch.zeros(2, 5)).t()[0]  # a strided out= of the right size
    torch.linspace(0, 1, 2, out=out)
    assert_close(out.cpu(), torch.linspace(0, 1, 2))
    out = to_ocl(torch.zeros(10))[::2]
    torch.logspace(0, 1, 5, out=out)
    assert_close(out.cpu(), torch.logspace(0, 1, 5))
    out = to_ocl(torch.zeros(10))[::2]
    torch.linspace(0, 1, 5, out=out)
    assert_close(out.cpu(), torch.linspace(0, 1, 5))
    for fn in [torch.linspace, torch.logspace]:
        with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
            fn(0, 1, -1, device="ocl")
    with pytest.raises(NotImplementedError, match="\"linspace_cpu\" not implemented for 'Bool'"):
        torch.linspace(0, 1, 3, dtype=torch.bool, device="ocl")
    with pytest.raises(NotImplementedError, match="\"logspace_cpu\" not implemented for 'Bool'"):
        torch.logspace(0, 1, 3, dtype=torch.bool, device="ocl")
    # the Tensor overloads
    same(torch.linspace(to_ocl(torch.tensor(1.0)), to_ocl(torch.tensor(4.0)), 4, device="ocl"),
         torch.linspace(torch.tensor(1.0), torch.tensor(4.0), 4))


@pytest.mark.parametrize("dtype", ALL, ids=dname)
def test_eye(dtype):
    for args in [(3,), (3, 5), (5, 3), (0,), (0, 4), (1, 1)]:
        same(torch.eye(*args, dtype=dtype, device="ocl"), torch.eye(*args, dtype=dtype))


def test_eye_out_and_errors():
    out = to_ocl(torch.full((2, 2), 7.0))
    torch.eye(4, 3, out=out)
    same(out, torch.eye(4, 3))
    out = to_ocl(torch.full((6, 6), 7.0)).t()[:4, :4]
    torch.eye(4, out=out)
    assert_close(out.cpu(), torch.eye(4))
    for args in [(-1,), (3, -2)]:
        with pytest.raises(RuntimeError, match="must be greater or equal to 0, got -"):
            torch.eye(*args, device="ocl")


# tril_indices / triu_indices -------------------------------------------------------------------


@pytest.mark.parametrize("fn", [torch.tril_indices, torch.triu_indices], ids=["tril", "triu"])
def test_tri_indices(fn):
    for row in range(0, 6):
        for col in range(0, 6):
            for k in range(-7, 8):
                same(fn(row, col, k, device="ocl"), fn(row, col, k))
    same(fn(4, 5, 1, dtype=torch.int32, device="ocl"), fn(4, 5, 1, dtype=torch.int32))
    same(fn(1000, 700, -3, device="ocl"), fn(1000, 700, -3))
    same(fn(300, 1000, 17, device="ocl"), fn(300, 1000, 17))


def test_tri_indices_errors():
    for fn in [torch.tril_indices, torch.triu_indices]:
        for args, kw in [((-1, 3), {}), ((3, -1), {}), ((3, 3), dict(dtype=torch.float32))]:
            with pytest.raises(Exception) as cpu_err:
                fn(*args, **kw)
            with pytest.raises(type(cpu_err.value)) as dev_err:
                fn(*args, device="ocl", **kw)
            assert str(dev_err.value) == str(cpu_err.value)
