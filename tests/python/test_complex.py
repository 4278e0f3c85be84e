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
    with torch.ocl.fallback_mode("error"), pytest.raises(RuntimeError, match="aten::asin"):
        torch.asin(d)
