"""The torch.special table (kernels/special_ops.cpp, kernels/special_lib.cl)
against PyTorch CPU, under fallback_mode('error') so every op here is proven
native on ocl.

Inputs span each approximation's pieces (the Chebyshev switch at |x| = 8,
the continued fraction of erfcx from 3 on, ndtri's three intervals, the
polynomials' closed forms for large degrees) plus 0, negative values, ±inf
and NaN. float32/float64 are compared at PyTorch's default tolerances,
half/bfloat16 against the CPU's result on the same half inputs.
"""

import pytest
import torch
from torch.testing import assert_close

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
SPECIAL_VALUES = [0.0, -0.0, float("inf"), float("-inf"), float("nan")]


def grid(lo, hi, n=257, extra=()):
    values = torch.linspace(lo, hi, n, dtype=torch.float64).tolist()
    return torch.tensor(values + list(extra) + SPECIAL_VALUES, dtype=torch.float64)


UNARY = {  # op -> its input values
    torch.i0: grid(-30, 30, extra=(8.0, -8.0, 7.999, 8.001, 85.0)),
    torch.special.i0e: grid(-50, 50, extra=(8.0, -8.0, 1e3)),
    torch.special.i1: grid(-30, 30, extra=(8.0, -8.0, 85.0)),
    torch.special.i1e: grid(-50, 50, extra=(8.0, -8.0, 1e3)),
    torch.special.ndtri: grid(0, 1, n=513, extra=(1e-30, 1e-12, 1 - 1e-7, 0.1353352832366127, 0.8646647167633873, -0.5, 1.5)),
    torch.special.log_ndtr: grid(-40, 8, n=385, extra=(-1.0, -1.0001, 1e-3)),
    torch.special.erfcx: grid(-27, 60, n=385, extra=(3.0, 2.999, -6.1, -6.2, -26.8, 5e7, 1e8)),
    torch.special.entr: grid(-1, 20, extra=(1e-30,)),
    torch.special.spherical_bessel_j0: grid(-40, 40, extra=(0.5, -0.5, 0.4999, 1e-4)),
    torch.digamma: grid(-10.5, 30, n=301, extra=(-1.0, -2.0, 10.0, 1e-6)),
}


def ids(op):
    return getattr(op, "__name__", str(op))


def compare(ocl_out, cpu_out, dtype):
    if dtype in (torch.float16, torch.bfloat16):
        assert_close(ocl_out.cpu().float(), cpu_out.float(), atol=1e-3, rtol=1.6e-2, equal_nan=True)
    else:
        assert_close(ocl_out.cpu(), cpu_out, equal_nan=True)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("op", list(UNARY), ids=ids)
def test_unary(strict, op, dtype):
    x = UNARY[op].to(dtype)
    try:
        expected = op(x)
    except NotImplementedError as cpu_error:  # no half kernel on the CPU: ocl raises alike
        with pytest.raises(NotImplementedError, match="not implemented for"):
            op(x.to("ocl"))
        assert "not implemented for" in str(cpu_error)
        return
    compare(op(x.to("ocl")), expected, dtype)


@pytest.mark.parametrize("op", [torch.i0, torch.special.i1, torch.special.ndtri, torch.special.entr], ids=ids)
def test_integer_input_promotes(strict, op):
    x = torch.arange(-5, 6)
    got = op(x.to("ocl"))
    assert got.dtype == torch.get_default_dtype()
    assert_close(got.cpu(), op(x), equal_nan=True)


def test_shapes_out_and_inplace(strict):
    x = torch.randn(7, 33, dtype=torch.float64) * 10
    d = x.to("ocl")
    assert_close(torch.special.i1e(d.t()).cpu(), torch.special.i1e(x.t()))  # strided
    assert_close(torch.i0(d[:, ::3]).cpu(), torch.i0(x[:, ::3]))
    assert torch.special.erfcx(torch.empty(0, 3, device="ocl")).shape == (0, 3)
    assert_close(torch.special.entr(torch.tensor(0.25, device="ocl")).cpu(), torch.special.entr(torch.tensor(0.25)))
    out = torch.empty(33, 7, dtype=torch.float64, device="ocl")
    torch.special.log_ndtr(d.t(), out=out)
    assert_close(out.cpu(), torch.special.log_ndtr(x.t()))
    y = d.clone()
    y.i0_()
    assert_close(y.cpu(), torch.i0(x))
    big = torch.rand(100_003) * 0.999 + 1e-4
    assert_close(torch.special.ndtri(big.to("ocl")).cpu(), torch.special.ndtri(big))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 7])
def test_polygamma(strict, n, dtype):
    x = grid(-4.5, 25, n=211, extra=(0.5, 1.0, 1e-3)).to(dtype)
    compare(torch.polygamma(n, x.to("ocl")), torch.polygamma(n, x), dtype)
    out = torch.empty_like(x, device="ocl")
    torch.polygamma(n, x.to("ocl"), out=out)
    compare(out, torch.polygamma(n, x), dtype)
    y = x.to("ocl")
    y.polygamma_(n)
    compare(y, torch.polygamma(n, x), dtype)


def test_polygamma_negative_n_raises_as_cpu():
    with pytest.raises(RuntimeError) as cpu:
        torch.polygamma(-1, torch.ones(3))
    with pytest.raises(RuntimeError) as ocl:
        torch.polygamma(-1, torch.ones(3, device="ocl"))
    assert str(ocl.value) == str(cpu.value)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_zeta(strict, dtype):
    x = torch.tensor([1.0, 0.5, 1.5, 2.0, 3.0, 4.5, 10.0, 30.0, float("inf"), float("nan")], dtype=dtype)
    q = torch.tensor([-2.0, -1.5, 0.0, 0.3, 1.0, 2.0, 9.5, 20.0, 100.0], dtype=dtype)
    xx, qq = x[:, None], q[None, :]  # broadcast
    compare(torch.special.zeta(xx.to("ocl"), qq.to("ocl")), torch.special.zeta(xx, qq), dtype)
    compare(torch.special.zeta(xx.to("ocl"), 2.0), torch.special.zeta(xx, 2.0), dtype)
    compare(torch.special.zeta(3.0, qq.to("ocl")), torch.special.zeta(3.0, qq), dtype)


def _igamma_grid(dtype):
    """(a, x) pairs reaching every method of igamma/igammac: both series, the
    continued fraction, the uniform expansion (20 < a < 200 with x within 30%
    of a; a > 200 with x within 4.5/sqrt(a)), the prefix's large-argument form
    (a, x >= 200) and the boundary values (0, inf, negative, NaN)."""
    g = torch.Generator().manual_seed(5)
    edges = torch.tensor([0.0, 1e-30, 1e-5, 0.1, 0.5, 0.7, 1.0, 1.1, 3.0, 19.0, 25.0, 150.0, 201.0, 1e3,
                          1e6, float("inf"), -1.0, float("nan")], dtype=torch.float64)
    a_edge, x_edge = edges[:, None].expand(-1, len(edges)).reshape(-1), edges.repeat(len(edges))
    a_near = torch.rand(600, generator=g, dtype=torch.float64) * 400
    x_near = a_near * (1 + 0.4 * (torch.rand(600, generator=g, dtype=torch.float64) - 0.5))
    a_small = torch.rand(300, generator=g, dtype=torch.float64) * 30
    x_small = torch.rand(300, generator=g, dtype=torch.float64) * 40
    return (torch.cat([a_edge, a_near, a_small]).to(dtype), torch.cat([x_edge, x_near, x_small]).to(dtype))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("op", [torch.igamma, torch.igammac, torch.special.gammaincc], ids=ids)
def test_incomplete_gamma(strict, op, dtype):
    a, x = _igamma_grid(dtype)
    compare(op(a.to("ocl"), x.to("ocl")), op(a, x), dtype)
    # broadcast, a transposed operand, a CPU scalar, in-place and out=
    aa, xx = a[:40].reshape(8, 5), x[-40:].reshape(5, 8).t()
    compare(op(aa.to("ocl"), xx.to("ocl")), op(aa, xx), dtype)
    compare(op(aa.to("ocl"), torch.tensor(2.5, dtype=dtype)), op(aa, torch.tensor(2.5, dtype=dtype)), dtype)
    if op is torch.igamma:
        dev = aa.to("ocl")
        dev.igamma_(xx.to("ocl"))
        compare(dev, aa.igamma(xx), dtype)
        out = torch.empty(8, 5, dtype=dtype, device="ocl")
        torch.igamma(aa.to("ocl"), xx.to("ocl"), out=out)
        compare(out, aa.igamma(xx), dtype)


def test_incomplete_gamma_backward(strict):
    # d/dx P(a, x) = x^(a-1) e^-x / Gamma(a); the gradient in a is not implemented on any device
    a = torch.linspace(0.5, 30, 23, dtype=torch.float64)
    x = torch.linspace(0.2, 40, 23, dtype=torch.float64)
    for op in (torch.igamma, torch.igammac):
        xc, xd = x.clone().requires_grad_(), x.to("ocl").requires_grad_()
        op(a, xc).sum().backward()
        op(a.to("ocl"), xd).sum().backward()
        assert_close(xd.grad.cpu(), xc.grad)
    with pytest.raises(RuntimeError, match="not implemented") as cpu:
        torch.igamma(a.clone().requires_grad_(), x).sum().backward()
    with pytest.raises(RuntimeError, match="not implemented") as ocl:
        torch.igamma(a.to("ocl").requires_grad_(), x.to("ocl")).sum().backward()
    assert str(ocl.value) == str(cpu.value)


POLYNOMIALS = [
    torch.special.chebyshev_polynomial_t, torch.special.chebyshev_polynomial_u,
    torch.special.chebyshev_polynomial_v, torch.special.chebyshev_polynomial_w,
    torch.special.shifted_chebyshev_polynomial_t, torch.special.shifted_chebyshev_polynomial_u,
    torch.special.shifted_chebyshev_polynomial_v, torch.special.shifted_chebyshev_polynomial_w,
    torch.special.hermite_polynomial_h, torch.special.hermite_polynomial_he,
    torch.special.laguerre_polynomial_l, torch.special.legendre_polynomial_p,
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("op", POLYNOMIALS, ids=ids)
def test_polynomials(strict, op, dtype):
    # No NaN x: the CPU kernels return an uninitialised value for it (their
    # recurrence stops before the first step); ocl returns NaN.
    x = torch.tensor([-1.5, -1.0, -0.7, -0.2, 0.0, 0.3, 0.5, 0.9, 1.0, 2.0], dtype=dtype)
    n = torch.tensor([-1.0, 0.0, 1.0, 2.0, 3.0, 5.0, 7.0, 9.0, 12.0], dtype=dtype)
    xx, nn = x[:, None], n[None, :]
    # Large degrees amplify rounding: compare at a relative tolerance.
    assert_close(op(xx.to("ocl"), nn.to("ocl")).cpu(), op(xx, nn), rtol=1e-4 if dtype == torch.float32 else 1e-9,
                 atol=1e-5, equal_nan=True)
    assert_close(op(xx.to("ocl"), 3).cpu(), op(xx, 3), equal_nan=True)
    assert op(torch.tensor([float("nan")], device="ocl"), 4).isnan().all()
    ints = torch.arange(-2, 3)
    assert_close(op(ints.to("ocl"), ints.abs().to("ocl")).cpu(), op(ints, ints.abs()), equal_nan=True)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_nextafter(strict, dtype):
    info = torch.finfo(dtype)
    a = torch.tensor([0.0, -0.0, 1.0, 1.0, -1.0, 0.5, 3.0, info.tiny, info.tiny, info.max, info.max, -info.max,
                      float("inf"), float("nan"), 1.0, 2.0, 1e-3], dtype=dtype)
    b = torch.tensor([1.0, -1.0, 2.0, 0.0, 0.0, 0.0, 3.0, 0.0, 1.0, float("inf"), 0.0, 0.0,
                      0.0, 1.0, float("nan"), 1.0, -1.0], dtype=dtype)
    got = torch.nextafter(a.to("ocl"), b.to("ocl"))
    assert_close(got.cpu(), torch.nextafter(a, b), atol=0, rtol=0, equal_nan=True)


@pytest.mark.parametrize("op,lo,hi", [
    (torch.digamma, 0.5, 5.0), (lambda x: torch.polygamma(2, x), 0.5, 5.0), (torch.i0, -5.0, 5.0),
    (torch.special.i1e, -5.0, 5.0), (torch.special.erfcx, -2.0, 5.0), (torch.special.ndtri, 0.05, 0.95),
    (torch.special.log_ndtr, -3.0, 3.0), (torch.special.entr, 0.1, 3.0), (torch.special.i0e, -5.0, 5.0),
], ids=["digamma", "polygamma2", "i0", "i1e", "erfcx", "ndtri", "log_ndtr", "entr", "i0e"])
def test_backward(strict, op, lo, hi):
    x = torch.linspace(lo, hi, 37, dtype=torch.float64)
    xc = x.clone().requires_grad_()
    xd = x.to("ocl").requires_grad_()
    g = torch.linspace(-1, 1, 37, dtype=torch.float64)
    op(xc).backward(g)
    op(xd).backward(g.to("ocl"))
    assert_close(xd.grad.cpu(), xc.grad)


def test_complex_input_raises_or_falls_back_as_cpu():
    x = torch.tensor([1 + 1j])
    with pytest.raises(Exception) as cpu:
        torch.special.i0e(x)
    with pytest.raises(Exception) as ocl:
        torch.special.i0e(x.to("ocl"))
    assert type(ocl.value) is type(cpu.value)
    assert "not implemented for 'ComplexFloat'" in str(ocl.value)


@pytest.mark.parametrize("fn", [torch.erf, torch.erfc])
def test_float_erf_erfc_within_a_few_ulp_of_float64(fn):
    # kernels/common.cl's polynomial erf / erfc (PoCL's builtins are scalar calls):
    # within 3 / 6 ulp of the float64 result everywhere float has it, specials exact.
    x = torch.cat([torch.linspace(-11, 11, 200001), torch.logspace(-38, 0, 2001), -torch.logspace(-38, 0, 2001),
                   torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 0.5, 1.0, 4.0, 10.1])])
    with torch.ocl.fallback_mode("error"):
        got = fn(x.to("ocl")).cpu()
    ref = fn(x.double())
    ulp = (torch.nextafter(ref.float().abs(), torch.tensor(float("inf"))) - ref.float().abs()).double()
    normal = ref.abs() > 1.2e-38
    err = ((got.double() - ref).abs() / ulp)[normal]
    assert err.max() <= (3 if fn is torch.erf else 6), err.max()
    special = ~normal
    torch.testing.assert_close(got[special], ref[special].float(), rtol=0, atol=1e-44, equal_nan=True)  # denormals: a few steps
    for dtype in (torch.float16, torch.bfloat16):  # computed in float, rounded once
        torch.testing.assert_close(fn(x.to(dtype).to("ocl")).cpu(), fn(x.to(dtype)), equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
def test_kaiser_window(strict, dtype):
    # ATen's kaiser_window over the device's kaiser_window_stub (was a missing
    # DispatchStub kernel: an internal assert), and torch.signal.windows.kaiser,
    # whose sqrt(beta^2 - k^2) needs pow(k, 2) == k * k at k = beta
    tol = dict(rtol=1e-5, atol=1e-5) if dtype != torch.bfloat16 else dict(rtol=2e-2, atol=2e-2)
    for length, beta, periodic in ((10, 12.0, True), (7, 3.0, False), (1, 5.0, True), (2, 8.3, False), (0, 1.0, True)):
        got = torch.kaiser_window(length, periodic, beta, dtype=dtype, device="ocl")
        torch.testing.assert_close(got.cpu(), torch.kaiser_window(length, periodic, beta, dtype=dtype), **tol)
    if dtype != torch.bfloat16:
        for m, beta in ((8, 27.5211054385244), (5, 0.5), (13, 12.25), (1, 3.0)):
            got = torch.signal.windows.kaiser(m, beta=beta, dtype=dtype, device="ocl")
            torch.testing.assert_close(got.cpu(), torch.signal.windows.kaiser(m, beta=beta, dtype=dtype), **tol)
