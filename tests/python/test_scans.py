"""Scans on ocl against PyTorch CPU: cumsum, cumprod, logcumsumexp, cummax,
cummin (kernels/scan_ops.cpp, kernels/scan.cl).

Every test runs under fallback_mode('error') unless it says otherwise. Rows
of 256 elements or more scan with a work group per row when there are few
rows (one long row of 100_003 elements below), otherwise one work item per
row (many short rows below); both are compared with the CPU.
"""

import pytest
import torch
from torch.testing import assert_close

from dtype_lists import FLOATS, INTS, dname  # noqa: F401
from cpu_reference import assert_matches_cpu, run_both, to_ocl
HALF_TOL = {torch.float16: dict(rtol=2e-3, atol=2e-3), torch.bfloat16: dict(rtol=1.6e-2, atol=1e-2)}


pytestmark = pytest.mark.usefixtures("strict")  # every test proves its ops native


def make(shape, dtype, seed=0, near_one=False):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=g, dtype=torch.float64)
        return (1 + 0.01 * x if near_one else x).to(dtype)
    lo = 0 if dtype == torch.uint8 else -3
    return torch.randint(lo, 4, shape, generator=g, dtype=dtype)


def same(got, expected, **kw):
    if isinstance(expected, tuple):
        for g, e in zip(got, expected):
            same(g, e, **kw)
        return
    assert_matches_cpu(got, expected, **{**HALF_TOL.get(expected.dtype, {}), **kw})


SHAPES = [
    ((7,), 0),
    ((4, 5, 6), 1),
    ((4, 5, 6), 0),
    ((4, 5, 6), -1),
    ((20_000, 3), 1),  # many short rows
    ((3, 1000), 1),  # a few long rows
    ((1000, 3), 0),
]


@pytest.mark.parametrize("dtype", FLOATS + INTS + [torch.bool], ids=dname)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod_dtypes(op, dtype):
    f = getattr(torch, op)
    for shape, dim in SHAPES:
        x = make(shape, dtype, near_one=op == "cumprod")
        same(f(to_ocl(x), dim), f(x, dim))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod_layouts(op):
    f = getattr(torch, op)
    x = make((6, 8, 10), torch.float32, near_one=True)
    same(f(to_ocl(x).transpose(0, 2), 1), f(x.transpose(0, 2), 1))
    same(f(to_ocl(x)[::2, 1:, ::3], 2), f(x[::2, 1:, ::3], 2))
    same(f(to_ocl(x)[:, ::2], 1), f(x[:, ::2], 1))
    same(f(to_ocl(x[0, 0]).expand(5, 10), 0), f(x[0, 0].expand(5, 10), 0))
    cl = make((2, 3, 4, 5), torch.float32, near_one=True).contiguous(memory_format=torch.channels_last)
    got = f(to_ocl(cl), 1)
    same(got, f(cl, 1))
    assert got.stride() == f(cl, 1).stride()
    for e, dim in [(torch.empty(0), 0), (torch.empty(3, 0), 0), (torch.empty(0, 4), 1)]:
        same(f(to_ocl(e), dim), f(e, dim))
    s = torch.tensor(2.5)
    same(f(to_ocl(s), 0), f(s, 0))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod_dtype_inplace_out(op):
    f = getattr(torch, op)
    x = make((5, 6), torch.int32)
    same(f(to_ocl(x), 1, dtype=torch.float64), f(x, 1, dtype=torch.float64))
    same(f(to_ocl(x), 0, dtype=torch.int16), f(x, 0, dtype=torch.int16))
    y = make((5, 6), torch.float32, near_one=True)
    d = to_ocl(y).t()
    getattr(d, op + "_")(0)
    assert_close(d.cpu(), f(y.t(), 0))
    out = to_ocl(torch.empty(0, dtype=torch.float64))
    f(to_ocl(y), 1, out=out)
    same(out, f(y, 1).double())
    out = to_ocl(torch.zeros(6, 5)).t()
    f(to_ocl(y), 0, out=out)
    assert_close(out.cpu(), f(y, 0))


def test_long_rows():
    n = 100_003
    for dtype in [torch.float32, torch.float64, torch.int64, torch.int32, torch.float16, torch.bfloat16]:
        x = make((n,), dtype, seed=1)
        same(torch.cumsum(to_ocl(x), 0), torch.cumsum(x, 0))
    x = make((2, n), torch.float32, near_one=True)
    same(torch.cumprod(to_ocl(x), 1), torch.cumprod(x, 1), rtol=1e-4, atol=1e-6)
    x = make((n,), torch.float32)
    same(torch.logcumsumexp(to_ocl(x), 0), torch.logcumsumexp(x, 0))
    x = make((n,), torch.float32)
    x[5000] = float("nan")
    x[70_000] = float("nan")
    for f in [torch.cummax, torch.cummin]:
        same(f(to_ocl(x), 0), f(x, 0))
        same(f(to_ocl(x[:4000]), 0), f(x[:4000], 0))
    xi = make((n,), torch.int64)  # many ties: the later index wins, as on CPU
    for f in [torch.cummax, torch.cummin]:
        same(f(to_ocl(xi), 0), f(xi, 0))
    same(torch.cumsum(to_ocl(make((n,), torch.bool)), 0), torch.cumsum(make((n,), torch.bool), 0))


def check_special_out_and_transposed(special, x):
    """logcumsumexp of a special-value grid along both dims, out= and a
    transposed (non-contiguous) input, against the CPU."""
    for dim in [0, 1]:
        same(torch.logcumsumexp(to_ocl(special), dim), torch.logcumsumexp(special, dim))
    out = to_ocl(torch.empty(0, dtype=x.dtype))
    torch.logcumsumexp(to_ocl(x), 1, out=out)
    same(out, torch.logcumsumexp(x, 1))
    same(torch.logcumsumexp(to_ocl(x).t(), 1), torch.logcumsumexp(x.t(), 1))


@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
def test_logcumsumexp(dtype):
    for shape, dim in SHAPES:
        x = make(shape, dtype) * 10
        same(torch.logcumsumexp(to_ocl(x), dim), torch.logcumsumexp(x, dim))
    inf, nan = float("inf"), float("nan")
    special = torch.tensor([[-inf, -inf, 1.0, inf, 2.0, inf],
                            [nan, 1.0, -inf, 2.0, 3.0, 4.0],
                            [1.0, 2.0, nan, -inf, inf, 0.0],
                            [inf, -inf, inf, -inf, nan, nan]], dtype=dtype)
    check_special_out_and_transposed(special, make((5, 6), dtype))
    s = torch.tensor(1.5, dtype=dtype)
    same(torch.logcumsumexp(to_ocl(s), 0), torch.logcumsumexp(s, 0))
    same(torch.logcumsumexp(to_ocl(torch.empty(0, 3, dtype=dtype)), 0), torch.logcumsumexp(torch.empty(0, 3, dtype=dtype), 0))


def make_complex(shape, dtype, seed=0, scale=3.0):
    g = torch.Generator().manual_seed(seed)
    return torch.complex(torch.randn(shape, generator=g, dtype=torch.float64) * scale,
                         torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=dname)
def test_logcumsumexp_complex(dtype):
    """The CPU's complex _log_add_exp_helper from a (-inf, 0) start, complex64
    accumulated in complex128 as there (scan.cl, complex_lib.cl's c_logaddexp)."""
    for shape, dim in SHAPES:
        x = make_complex(shape, dtype)
        same(torch.logcumsumexp(to_ocl(x), dim), torch.logcumsumexp(x, dim))
    n = 100_003  # one long row: a work group scans it
    x = make_complex((n,), dtype, seed=1)
    same(torch.logcumsumexp(to_ocl(x), 0), torch.logcumsumexp(x, 0))
    inf, nan = float("inf"), float("nan")
    c = complex
    special = torch.tensor([[c(-inf, 3), c(-inf, -1), c(1, 2), c(inf, 0), c(2, 1), c(inf, 0.5)],
                            [c(nan, 1), c(1, 0), c(-inf, 0), c(2, -3), c(3, 1), c(4, 0)],
                            [c(1, 1), c(2, nan), c(0, 0), c(-inf, 2), c(inf, 1), c(0, 0)],
                            [c(inf, 1), c(-inf, 1), c(inf, 2), c(-inf, 0), c(1, 0), c(nan, nan)],
                            [c(inf, 0), c(inf, 0), c(-inf, 0), c(-inf, 1), c(1, -2), c(1e30, 0)],
                            [c(-inf, 0), c(-inf, 5), c(-inf, 0), c(1, 2), c(-inf, 1), c(2, 0)],
                            # infinite imaginary parts: std::exp's (Annex G) results
                            [c(1, inf), c(inf, inf), c(-inf, inf), c(1, 1), c(-inf, -inf), c(2, 2)],
                            [c(inf, nan), c(1, 1), c(-inf, nan), c(0, -inf), c(inf, -inf), c(1, 0)]], dtype=dtype)
    x = make_complex((5, 6), dtype)
    check_special_out_and_transposed(special, x)
    same(torch.logcumsumexp(to_ocl(x)[::2, 1::2], 0), torch.logcumsumexp(x[::2, 1::2], 0))
    same(torch.logcumsumexp(to_ocl(x).conj(), 1), torch.logcumsumexp(x.conj(), 1))  # a conj view
    for s in [torch.tensor(c(1.5, -2), dtype=dtype), torch.tensor(c(-inf, 3), dtype=dtype)]:  # 0-dim: a copy
        same(torch.logcumsumexp(to_ocl(s), 0), torch.logcumsumexp(s, 0))
    e = torch.empty(0, 3, dtype=dtype)
    same(torch.logcumsumexp(to_ocl(e), 0), torch.logcumsumexp(e, 0))
    # backward (FunctionsManual's complex branch: conj, log, flip, logcumsumexp, exp) runs natively
    x = make_complex((4, 300), dtype, seed=2, scale=1.0)
    g = make_complex((4, 300), dtype, seed=3, scale=1.0)
    for dim in [0, 1]:
        xc = x.clone().requires_grad_()
        xd = to_ocl(x).requires_grad_()
        (gc,) = torch.autograd.grad(torch.logcumsumexp(xc, dim), xc, g)
        (gd,) = torch.autograd.grad(torch.logcumsumexp(xd, dim), xd, to_ocl(g))
        same(gd, gc, **({} if dtype == torch.complex128 else dict(rtol=1e-4, atol=1e-5)))


@pytest.mark.parametrize("dtype", FLOATS + INTS + [torch.bool], ids=dname)
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin(op, dtype):
    f = getattr(torch, op)
    for shape, dim in SHAPES:
        x = make(shape, dtype)  # small integer ranges: many ties
        same(f(to_ocl(x), dim), f(x, dim))
    if dtype.is_floating_point:
        nan, inf = float("nan"), float("inf")
        x = torch.tensor([[1.0, nan, 3.0, nan, -inf], [-inf, -inf, inf, 2.0, inf], [2.0, 2.0, 1.0, 3.0, 3.0]],
                         dtype=dtype)
        for dim in [0, 1]:
            same(f(to_ocl(x), dim), f(x, dim))
    x = make((4, 6), dtype)
    values, indices = to_ocl(torch.empty(0, dtype=dtype)), to_ocl(torch.empty(0, dtype=torch.int64))
    f(to_ocl(x).t(), 1, out=(values, indices))
    same((values, indices), f(x.t(), 1))
    s = make((), dtype)
    same(f(to_ocl(s), 0), f(s, 0))
    e = torch.empty(0, 3, dtype=dtype)
    same(f(to_ocl(e), 0), f(e, 0))


# backward ------------------------------------------------------------------------------------


def grads_match(fn, x, strict=True, **kw):
    xc = x.detach().double().requires_grad_()
    xd = to_ocl(xc.detach()).requires_grad_()
    out_c = fn(xc)
    g = torch.randn(out_c.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    (gc,) = torch.autograd.grad(out_c, xc, g)
    with torch.ocl.fallback_mode("error" if strict else "silent"):
        (gd,) = torch.autograd.grad(fn(xd), xd, to_ocl(g))
    assert gd.device.type == "ocl"
    assert_close(gd.cpu(), gc, **kw)


def test_backward_native():
    x = make((4, 300), torch.float64, near_one=True)
    grads_match(lambda t: torch.cumsum(t, 1), x)
    grads_match(lambda t: torch.cumsum(t, 0), x)
    grads_match(lambda t: torch.cumprod(t, 1), x)  # no zeros: reversed cumsum / input
    grads_match(lambda t: torch.logcumsumexp(t, 1), x)
    grads_match(lambda t: torch.logcumsumexp(t, 0), x)


def test_backward_through_scatter():
    """cumprod's backward with zeros in the input and cummax/cummin's backward
    scatter (scatter_, scatter_add_): checked for values, not for nativeness
    until the index ops are native."""
    x = make((3, 8), torch.float64, near_one=True)
    x[0, 2] = 0
    x[1, 5] = 0
    x[1, 6] = 0
    grads_match(lambda t: torch.cumprod(t, 1), x, strict=False)
    y = make((3, 8), torch.float64)
    grads_match(lambda t: torch.cummax(t, 1)[0], y, strict=False)
    grads_match(lambda t: torch.cummin(t, 0)[0], y, strict=False)


def test_errors():
    def both(fn, x):
        with pytest.raises(Exception) as cpu_err:
            fn(x)
        with pytest.raises(type(cpu_err.value)) as dev_err:
            fn(to_ocl(x))
        assert str(dev_err.value) == str(cpu_err.value)

    both(lambda t: torch.cumsum(t, 2), torch.ones(2, 2))
    both(lambda t: torch.cummax(t, -3), torch.ones(2, 2))
    both(lambda t: torch.logcumsumexp(t, 0), torch.ones(3, dtype=torch.int64))
    both(lambda t: torch.logcumsumexp(t, 0), torch.ones(3, dtype=torch.bool))
    both(lambda t: torch.cumsum(t, 0, dtype=torch.bool), torch.ones(3))
    both(lambda t: torch.cummax(t, 0), torch.ones(3, dtype=torch.uint16))
    both(lambda t: torch.cumsum(t, 0, dtype=torch.float64, out=torch.empty(3, dtype=torch.int32, device=t.device)),
         torch.ones(3))


def test_logcumsumexp_bad_dim_of_empty_input_raises_as_cpu():
    run_both(lambda x: torch.logcumsumexp(x, 3), torch.empty(0, 2), same_message=True)
