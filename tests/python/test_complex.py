"""complex64 / complex128 in the pointwise and reduction engines
(kernels/complex_lib.cl, the complex_expr column of kernels/pointwise_ops.cpp,
the *Complex rows of kernels/reduction_ops.cpp), compared with the CPU. The
`strict` fixture proves every op is native. Each (op, dtype, layout) is one
OpenCL program, so the cases are grouped into few tests and layouts vary only
where the kernel variant differs."""

import pytest
import torch

CPLX = [torch.complex64, torch.complex128]


def dname(dt):
    return str(dt).replace("torch.", "")


def rand(*shape, dtype):
    return torch.randn(*shape, dtype=dtype)


def check(fn, *args, **kw):
    """fn on CPU and on ocl (CPU tensors in `args` moved there) agree."""
    expected = fn(*args)
    got = fn(*[a.to("ocl") if isinstance(a, torch.Tensor) else a for a in args])
    if isinstance(expected, torch.Tensor):
        assert got.device.type == "ocl"
        assert got.dtype == expected.dtype
        got = got.cpu()
    elif isinstance(expected, tuple):
        assert all(g.device.type == "ocl" for g in got)
        got = tuple(g.cpu() for g in got)
    torch.testing.assert_close(got, expected, equal_nan=True, **kw)


BINARY = {
    "add": lambda x, y: x + y,
    "add_alpha": lambda x, y: torch.add(x, y, alpha=2 - 1j),
    "sub_alpha": lambda x, y: torch.sub(x, y, alpha=0.5),
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "scalar_operands": lambda x, y: (x + (1 + 2j)) * 3 - 1j,
    "eq_ne": lambda x, y: torch.stack([x == y, x != x.clone(), x == x[3]]),
    "pow": lambda x, y: x**y,
    "where": lambda x, y: torch.where(x.real > 0, x, y),
    "addcmul_addcdiv": lambda x, y: torch.addcdiv(torch.addcmul(x, x, y, value=0.5j), x, y, value=2),
}


@pytest.mark.parametrize("dtype", CPLX, ids=dname)
def test_binary(strict, dtype):
    a, b = rand(37, dtype=dtype), rand(37, dtype=dtype)
    for name, fn in BINARY.items():
        check(fn, a, b)
    # real operands: imaginary part 0 (type promotion by ATen)
    r = torch.randn(37, dtype=torch.float32)
    check(lambda x, y: x * y, a, r)
    check(lambda x, y: y / x, a, r)
    check(lambda x, y: x + y, torch.randn(37), torch.tensor(1j, dtype=dtype))
    # in-place and out=
    check(lambda x, y: x.clone().mul_(y).add_(y, alpha=2), a, b)
    check(lambda x, y: torch.mul(x, y, out=torch.empty_like(x)), a, b)


UNARY = {
    "neg": torch.neg, "conj_physical": torch.conj_physical, "abs": torch.abs, "angle": torch.angle,
    "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
    "reciprocal": torch.reciprocal, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "sin": torch.sin,
    "cos": torch.cos, "tan": torch.tan, "sinh": torch.sinh, "cosh": torch.cosh, "sgn": torch.sgn,
    "pow_scalars": lambda x: torch.stack([x**2, x**3, x**-2, x**0.5, x**-1, x**2.5, x ** (1 + 1j)]),
    "scalar_pow": lambda x: 2**x,
    "isnan": torch.isnan,
}


@pytest.mark.parametrize("dtype", CPLX, ids=dname)
def test_unary(strict, dtype):
    a = rand(37, dtype=dtype)
    for name, fn in UNARY.items():
        check(fn, a)
    z = torch.zeros(3, dtype=dtype)
    check(lambda x: torch.stack([x.abs(), x.sgn().abs(), x.sqrt().abs(), x.angle(), x.exp().abs()]), z)
    # large |re|: tanh saturates without inf / inf
    check(torch.tanh, a * 40)
    check(lambda x: x.masked_fill(x.real > 0, 2 - 1j), a)


@pytest.mark.parametrize("dtype", CPLX, ids=dname)
def test_reductions(strict, dtype):
    a = rand(6, 50, dtype=dtype)
    check(torch.sum, a)
    check(lambda x: x.sum(0), a)
    check(lambda x: x.sum(1, keepdim=True), a)
    check(torch.mean, a)
    check(lambda x: x.mean(1), a)
    check(lambda x: (x[:, :8] * 0.9).prod(1), a)
    check(torch.prod, a[0, :10])
    for ord in (2, 1, 0, 3, float("inf"), float("-inf")):
        check(lambda x: torch.linalg.vector_norm(x, ord), a)
        check(lambda x: torch.linalg.vector_norm(x, ord, dim=1), a)
    z = a.clone()
    z[1] = 0
    z[2, 3] = 0
    check(lambda x: torch.stack([x.any(1), x.all(1)]), z)
    check(lambda x: torch.stack([x.any(), x.all()]), z)
    check(lambda x: torch.count_nonzero(x, 1), z)
    check(lambda x: torch.count_nonzero(x), z)


def test_odd_shapes(strict):
    dt = torch.complex64
    a = rand(5, 7, dtype=dt)
    b = rand(7, 5, dtype=dt)
    check(lambda x, y: x * y.t(), a, b)  # transposed: the strided kernel
    check(lambda x, y: x[:, ::2] + y.t()[:, ::2], a, b)  # sliced with a step
    check(lambda x, y: x * y[0, :5].reshape(5, 1), a, b)  # broadcast
    check(lambda x: x.t().abs(), a)
    check(lambda x: x.t().sum(0), a)
    e = torch.empty(0, 3, dtype=dt)
    check(lambda x: x * x, e)
    check(lambda x: x.sum(0), e)  # empty reduction: zeros
    check(torch.prod, e)
    s = torch.tensor(1 - 2j, dtype=dt)
    check(lambda x: x * x + 1, s)  # 0-dim
    check(torch.abs, s)
    big = rand(100_003, dtype=dt)
    check(lambda x: x * x.conj_physical(), big)
    check(torch.sum, big, rtol=1e-4, atol=1e-3)  # long sums: summation order differs from the CPU's
    check(torch.linalg.vector_norm, big)


def test_special_values(strict):
    dt = torch.complex128
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([complex(1, 0), complex(0, 0), complex(inf, 0), complex(nan, 1), complex(0, -0.0), complex(-4, 0)], dtype=dt)
    y = torch.tensor([complex(0, 0), complex(0, 0), complex(2, 1), complex(1, 0), complex(1, 1), complex(0, 2)], dtype=dt)
    check(lambda p, q: p * q, x, y)
    check(lambda p, q: p / q, x, y)  # x / 0: inf or nan as c10::complex's division
    check(torch.abs, x)
    check(torch.sqrt, x)
    check(torch.sgn, x)
    check(torch.isnan, x)


@pytest.mark.parametrize("dtype", CPLX, ids=dname)
def test_backward(strict, dtype):
    a0, b0 = rand(11, dtype=dtype), rand(11, dtype=dtype)

    def grads(dev):
        a = a0.to(dev).requires_grad_()
        b = b0.to(dev).requires_grad_()
        loss = (a * b).abs().sum() + (a / b).exp().real.sum() + (a.conj() * b.sqrt()).angle().sum()
        loss = loss + torch.linalg.vector_norm(a * 2 - b) + (a.sigmoid() * b.tanh()).mean().imag
        loss.backward()
        return loss.detach().cpu(), a.grad.cpu(), b.grad.cpu()

    for got, expected in zip(grads("ocl"), grads("cpu")):
        torch.testing.assert_close(got, expected)


def test_real_complex_copies(strict):
    c = rand(9, dtype=torch.complex64)
    check(lambda x: x.to(torch.complex128), c)
    check(lambda x: x.real.to(torch.complex64), c)  # real -> complex: imaginary part 0
    check(lambda x: x.conj().resolve_conj(), c)
    check(lambda x: torch.view_as_real(x * 2), c)
    check(lambda x: torch.zeros_like(x).fill_(2 + 3j), c)


def test_unsupported_complex_ops_raise_like_cpu():
    # The ordering comparisons have no complex kernel on the CPU either: the
    # same error through the fallback.
    a = rand(4, dtype=torch.complex64)
    with pytest.raises(RuntimeError) as cpu_err:
        a < a
    d = a.to("ocl")
    with torch.ocl.fallback_mode("silent"), pytest.raises(RuntimeError) as ocl_err:
        d < d
    assert str(ocl_err.value) == str(cpu_err.value)
    # A complex op without a complex kernel here is refused in strict mode.
    m = d.view(2, 2)
    with torch.ocl.fallback_mode("error"), pytest.raises(RuntimeError, match="aten::renorm"):
        torch.renorm(m, 2, 0, 1.0)


# ---- inverse trigonometric / hyperbolic, log / exp variants (kernels/complex_lib.cl) ----
INF, NAN = float("inf"), float("nan")
# Real and imaginary parts of the special-value grid: zeros of both signs,
# +-1 (the branch points), the real axis beyond +-1 (branch cuts, with +0 and
# -0 imaginary parts), tiny and huge magnitudes, infinities and NaN.
GRID_PARTS = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 1e-3, 1e-8, 1e-30, 3.0, 1e10, 1e20, 1e30, 1e200, INF, -INF, NAN]

UNARY2 = {
    "asin": torch.asin, "acos": torch.acos, "atan": torch.atan, "asinh": torch.asinh, "acosh": torch.acosh,
    "atanh": torch.atanh, "log1p": torch.log1p, "log2": torch.log2, "log10": torch.log10, "expm1": torch.expm1,
    "exp2": torch.exp2, "sinc": torch.sinc, "silu": torch.nn.functional.silu,
}


@pytest.mark.parametrize("dtype", CPLX, ids=dname)
def test_inverse_and_log_functions(strict, dtype):
    grid = torch.tensor([complex(a, b) for a in GRID_PARTS for b in GRID_PARTS], dtype=dtype)
    # the branch cuts themselves: re beyond +-1 on the real axis (asin/acos/atanh) and
    # on the imaginary axis (asinh/atan), with both signs of zero
    cut = torch.tensor([complex(r, z) for r in (1.5, -1.5, 7.0, -7.0) for z in (0.0, -0.0)] +
                       [complex(z, r) for r in (1.5, -1.5, 7.0, -7.0) for z in (0.0, -0.0)], dtype=dtype)
    values = torch.cat([rand(300, dtype=dtype) * 3, rand(40, dtype=dtype) * 1e-6, grid, cut])
    for name, fn in UNARY2.items():
        check(fn, values)
    # log1p / expm1 keep their precision for small |z| (relative to the tiny result)
    tiny = rand(50, dtype=dtype) * 1e-12
    check(torch.log1p, tiny, rtol=1e-5 if dtype == torch.complex64 else 1e-12, atol=0)
    check(torch.expm1, tiny, rtol=1e-5 if dtype == torch.complex64 else 1e-12, atol=0)
    # in-place and out=
    check(lambda x: x.clone().asinh_(), values[:300])
    check(lambda x: torch.atanh(x, out=torch.empty_like(x)), values[:300])


@pytest.mark.parametrize("dtype", CPLX, ids=dname)
def test_exp_and_tanh_families(strict, dtype):
    # Special values as glibc's cexp / ctanh (the CPU's std::exp / std::tanh):
    # e^(inf + i inf) is inf + i NaN, e^(-inf + i NaN) is 0, tanh(inf + i NaN)
    # is 1 + 0i (the product forms gave NaN + i NaN); sigmoid, tan and
    # tanhshrink inherit them.
    grid = torch.tensor([complex(a, b) for a in GRID_PARTS for b in GRID_PARTS], dtype=dtype)
    values = torch.cat([rand(300, dtype=dtype) * 3, grid])
    for fn in (torch.exp, torch.tanh, torch.tan, torch.sigmoid, torch.nn.functional.tanhshrink,
               torch.nn.functional.silu):
        check(fn, values)
    # pow as glibc's cpow: exp(b log a) with C's complex product, whose
    # infinities survive inf * NaN partial products ((inf + i inf) ** (inf + i NaN)
    # is inf + i NaN, not NaN + i NaN).
    ext = [complex(r, i) for r in (INF, -INF, NAN, 0.0, 1.0) for i in (INF, -INF, NAN, 0.0, 1.0)]
    base = torch.tensor([x for x in ext for _ in ext], dtype=dtype)
    expo = torch.tensor([y for _ in ext for y in ext], dtype=dtype)
    check(torch.pow, base, expo)
    # Near tanh's poles (x ~ 0, y ~ pi/2): sinh^2 x + cos^2 y, not cosh 2x + cos 2y
    # (which cancels); against a complex128 computation.
    x = torch.rand(500, dtype=torch.float64) * 1e-3
    y = torch.pi / 2 + (torch.rand(500, dtype=torch.float64) - 0.5) * 1e-3
    near_pole = torch.complex(x, y).to(dtype)
    got = torch.tanh(near_pole.to("ocl")).cpu()
    torch.testing.assert_close(got.to(torch.complex128), torch.tanh(near_pole.to(torch.complex128)),
                               rtol=2e-6 if dtype == torch.complex64 else 1e-13, atol=0)


@pytest.mark.parametrize("dtype", CPLX, ids=dname)
def test_sin_cos_sinh_cosh_special_values(strict, dtype):
    # As glibc's csin / ccos / csinh / ccosh (C99 Annex G): a zero part stays
    # zero where the product forms multiply it by an infinity or NaN
    # (sinh(inf + 0i) is inf + 0i, cosh(0 + i inf) is NaN + 0i, sin(100i) in
    # complex64 is 0 + i inf), an infinite real part with a non-finite
    # imaginary one gives inf + i NaN; and sinh x cos y stays finite past the
    # overflow of sinh x where the product is representable (x ~ 89 in float,
    # ~710 in double).
    parts = GRID_PARTS + [88.5, 89.0, -89.2, 100.0, 709.5, -710.0, 1000.0]
    grid = torch.tensor([complex(a, b) for a in parts for b in parts], dtype=dtype)
    values = torch.cat([rand(300, dtype=dtype) * 3, grid])
    for fn in (torch.sin, torch.cos, torch.sinh, torch.cosh):
        check(fn, values)


@pytest.mark.parametrize("dtype", CPLX, ids=dname)
def test_log_near_unit_circle(strict, dtype):
    # log|z| for |z| ~ 1 as 0.5 log1p(|z|^2 - 1), as glibc's clog: log(hypot)
    # lost the digits of the small result (log1p(1e-18 + 0.1i) in complex64 was
    # 7e-6 off).
    r = 1 + (torch.rand(400, dtype=torch.float64) - 0.5) * 2e-2
    z = torch.polar(r, torch.rand(400, dtype=torch.float64) * 6.28).to(dtype)
    tol = {"rtol": 2e-6, "atol": 0} if dtype == torch.complex64 else {"rtol": 1e-13, "atol": 0}
    for fn in (torch.log, torch.log2, torch.log10):
        check(fn, z, **tol)
    small = torch.tensor([1e-18 + 0.1j, 0.1 + 1e-18j, 0.5j, 0.2 + 0.3j, -0.005 + 0.1j], dtype=dtype)
    check(torch.log1p, small, **tol)


@pytest.mark.parametrize("dtype", CPLX, ids=dname)
def test_lerp_logical_and_other_binary(strict, dtype):
    a, b = rand(40, dtype=dtype), rand(40, dtype=dtype)
    check(lambda x, y: torch.lerp(x, y, 0.3), a, b)
    check(lambda x, y: torch.lerp(x, y, 0.8), a, b)
    check(lambda x, y: torch.lerp(x, y, 0.25 - 0.5j), a, b)  # complex weight
    check(lambda x, y: torch.lerp(x, y, (y * 0.4).reshape(5, 8)[:, :1].reshape(5, 1).expand(5, 8).reshape(40)), a, b)
    check(lambda x, y: torch.lerp(x.reshape(5, 8), y[:8], x.reshape(5, 8) * 0.7), a, b)  # broadcast weight / end
    check(lambda x, y: x.clone().lerp_(y, 0.6), a, b)
    # truth value: re or im nonzero (-0.0 is zero)
    z = torch.tensor([0, 1j, -0.0 + 0j, complex(-0.0, -0.0), 2, complex(0, 1e-30), complex(NAN, 0), 3 - 1j], dtype=dtype)
    w = z.flip(0)
    for fn in (torch.logical_and, torch.logical_or, torch.logical_xor):
        check(fn, z, w)
        check(fn, z, w.real)  # complex and real operands
    check(torch.logical_not, z)
    check(lambda x: x.clone().logical_not_(), z)  # a complex result
    check(lambda x, y: x.clone().logical_and_(y), z, w)
    check(lambda x, y: torch.logical_or(x, y, out=torch.empty(8, dtype=torch.float32, device=x.device)), z, w)
    check(torch.logaddexp, a, b)
    check(lambda x, y: torch.logaddexp(x * 100, y), a, b)
    check(torch.rsub, a, b)
    check(lambda x, y: torch.rsub(x, y, alpha=2 + 1j), a, b)
    bad = torch.tensor([complex(NAN, 1), complex(INF, -INF), complex(-INF, NAN), 1 + 2j], dtype=dtype)
    check(torch.nan_to_num, bad)
    check(lambda x: torch.nan_to_num(x, nan=0.5, posinf=7.0, neginf=-3.0), bad)
    # complex(re, im) and polar(abs, angle): real inputs, complex result
    r = torch.rand(40, dtype=torch.float64 if dtype == torch.complex128 else torch.float32)
    check(torch.complex, r, r.flip(0))
    check(torch.polar, r, r.flip(0) * 7 - 3)


def test_complex_of_half_makes_complex32(strict):
    # complex() of float16 writes its complex32 result's two halves natively
    r = torch.randn(5, 7, dtype=torch.float16)
    i = torch.randn(7, dtype=torch.float16)
    pairs = lambda z: torch.view_as_real(z.cpu())  # noqa: E731  (complex32 has no equality on the CPU)
    with pytest.warns(UserWarning, match="ComplexHalf support is experimental"):
        expected = torch.complex(r, i)
    for re, im in ((r, i), (r.t().contiguous().t(), i), (r[:, :6:2], r[:, 1::2]), (r[0, 0], i)):
        got = torch.complex(re.to("ocl"), im.to("ocl"))
        assert got.dtype == torch.complex32
        assert torch.equal(pairs(got), pairs(torch.complex(re, im)))
    out = torch.empty(5, 7, dtype=torch.complex32, device="ocl")
    torch.complex(r.to("ocl"), i.to("ocl"), out=out)
    assert torch.equal(pairs(out), pairs(expected))
    for a, b in ((r.int(), r.int()), (r, r.float())):  # the CPU's dtype errors
        with pytest.raises(RuntimeError) as cpu:
            torch.complex(a, b)
        with pytest.raises(RuntimeError) as ocl:
            torch.complex(a.to("ocl"), b.to("ocl"))
        assert str(ocl.value) == str(cpu.value)


def test_polar_of_half_refused_as_cuda(strict):
    # CUDA's polar takes float and double parts (2.13's OpInfo lists float16 for MPS only;
    # PyTorch's test_dtypes_polar fails on a device that computes it); complex() takes half
    r = torch.rand(4, dtype=torch.float16, device="ocl")
    with pytest.raises(NotImplementedError, match="\"polar\" not implemented for 'Half'"):
        torch.polar(r, r)
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        torch.polar(r, r, out=torch.empty(4, dtype=torch.complex32, device="ocl"))


@pytest.mark.parametrize("dtype", CPLX, ids=dname)
def test_std_var(strict, dtype):
    a = rand(6, 50, dtype=dtype)
    check(torch.var, a)
    check(torch.std, a)
    check(lambda x: x.var(1), a)
    check(lambda x: x.std(0, keepdim=True), a)
    check(lambda x: x.var(1, unbiased=False), a)
    check(lambda x: x.std((0, 1), correction=3), a)
    check(lambda x: torch.var_mean(x, 1), a)
    check(lambda x: torch.std_mean(x, 0, keepdim=True, correction=0), a)
    check(torch.var_mean, a)
    check(lambda x: torch.std(x, 1, out=torch.empty(0, dtype=x.real.dtype, device=x.device)), a)
    # A complex out= takes the real result (ATen adds the variances of the real
    # and imaginary parts into it): a real computation stored into complex.
    check(lambda x: torch.var(x, 1, out=torch.empty(0, dtype=x.dtype, device=x.device)), a)
    check(lambda x: torch.std(x, 0, keepdim=True, out=torch.empty(0, dtype=x.dtype, device=x.device)), a)
    # A truth value (eq, ne) into a complex output (out=, in-place): (v, 0);
    # the program failed to build.
    b = a.clone()
    b[::2] += 1
    check(lambda x, y: torch.eq(x, y, out=torch.empty(0, dtype=x.dtype, device=x.device)), a, b)
    check(lambda x, y: x.clone().ne_(y), a, b)
    check(lambda x: x.t().var(0), a)  # strided
    check(lambda x: x[:, ::3].std(1), a)


def test_new_ops_odd_shapes(strict):
    dt = torch.complex64
    a = rand(5, 7, dtype=dt)
    check(lambda x: x.t().asin(), a)  # transposed: the strided kernel
    check(lambda x: x[:, ::2].log1p(), a)
    check(lambda x: torch.logical_and(x, x[0]), a)  # broadcast
    s = torch.tensor(2 - 0.5j, dtype=dt)
    check(torch.acos, s)  # 0-dim
    check(torch.var, a[0, :1])  # one element: NaN, as the CPU
    check(lambda x: torch.var_mean(x[:, :1], 1, correction=0), a)
    e = torch.empty(0, 3, dtype=dt)
    check(torch.atanh, e)
    check(lambda x: x.var(0), e)  # empty reduction: NaN
    check(lambda x: torch.lerp(x, x, 0.5), e)
    big = rand(100_003, dtype=dt)
    check(torch.asinh, big)
    check(torch.var, big, rtol=1e-4, atol=1e-4)


def test_new_ops_backward(strict):
    dt = torch.complex64
    a0, b0 = rand(4, 5, dtype=dt) * 0.7, rand(4, 5, dtype=dt) * 0.7

    def grads(dev):
        a = a0.to(dev).requires_grad_()
        b = b0.to(dev).requires_grad_()
        loss = sum(f(a).abs().sum() for f in UNARY2.values() if f is not torch.nn.functional.silu)
        loss = loss + torch.lerp(a, b, 0.3 + 0.1j).abs().sum() + torch.lerp(a, b, b).abs().sum()
        loss = loss + torch.logaddexp(a, b).abs().sum() + a.var(0).sum() + b.std() + torch.var_mean(a, 1)[1].abs().sum()
        loss.backward()
        return loss.detach().cpu(), a.grad.cpu(), b.grad.cpu()

    for got, expected in zip(grads("ocl"), grads("cpu")):
        torch.testing.assert_close(got, expected)


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
def test_complex32_computes_as_complex64_rounded_once(strict):
    # complex32 is loaded into complex64 arithmetic and rounded on the store, as
    # CUDA's opmath does: add/sub/mul equal the CPU's complex32 kernels bit for
    # bit; the rest is complex64's result rounded to complex32.
    pairs = lambda z: torch.view_as_real(z.cpu())  # noqa: E731  (complex32 has no equality on the CPU)
    x = (torch.randn(6, 9, dtype=torch.complex64) * 3).to(torch.complex32)
    y = (torch.randn(9, dtype=torch.complex64) * 3).to(torch.complex32)
    for f in (lambda a, b: a + b, lambda a, b: a - b * 2, lambda a, b: a * b,
              lambda a, b: a.t()[::2] * b[::2].unsqueeze(1), lambda a, b: torch.add(a, b, alpha=0.5)):
        expected = f(x, y)
        got = f(x.to("ocl"), y.to("ocl"))
        assert got.dtype == torch.complex32
        assert torch.equal(pairs(got), pairs(expected))
    wide = lambda t: t.to(torch.complex64)  # noqa: E731
    for f in (lambda a, b: a / b, lambda a, b: (a * 0.1).exp(), lambda a, b: a.sqrt(), lambda a, b: a * 1j + b.real,
              lambda a, b: a.sum(0), lambda a, b: a.sum(), lambda a, b: (a * 0.3).prod(1), lambda a, b: a.mean(1)):
        got = f(x.to("ocl"), y.to("ocl"))
        assert got.dtype == torch.complex32
        expected = f(wide(x), wide(y)).to(torch.complex32)
        torch.testing.assert_close(pairs(got), pairs(expected), rtol=2e-3, atol=2e-3)
    # a module with complex32 weights trains on the device (ATen's complex
    # convolution: three float16 convolutions combined by complex32 ops)
    conv = torch.nn.ConvTranspose1d(3, 2, 3).to(torch.complex32)
    ref = torch.nn.ConvTranspose1d(3, 2, 3).to(torch.complex64)
    ref.load_state_dict({k: wide(v) for k, v in conv.state_dict().items()})
    conv = conv.to("ocl")
    inp = torch.randn(2, 3, 7, dtype=torch.complex64).to(torch.complex32)
    xo, xr = inp.to("ocl").requires_grad_(), wide(inp).requires_grad_()
    out, out_ref = conv(xo), ref(xr)
    torch.view_as_real(out).sum().backward()
    torch.view_as_real(out_ref).sum().backward()
    scale = out_ref.abs().max().item()
    torch.testing.assert_close(pairs(wide(out)), pairs(out_ref), rtol=0, atol=4e-3 * scale)
    torch.testing.assert_close(pairs(wide(xo.grad)), pairs(xr.grad), rtol=1e-2, atol=1e-2)
    torch.testing.assert_close(pairs(wide(conv.weight.grad)), pairs(ref.weight.grad), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dtype", CPLX, ids=dname)
def test_complex_eye(strict, dtype):
    # a zeroed matrix with a filled diagonal (orgqr's and the Jacobi kernels' identities use the same)
    for n, m in ((3, 3), (2, 5), (0, 4)):
        assert torch.equal(torch.eye(n, m, dtype=dtype, device="ocl").cpu(), torch.eye(n, m, dtype=dtype))
