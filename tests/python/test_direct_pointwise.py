"""The TensorIterator-free path of pointwise ops (DirectPointwise in
kernels/pointwise_engine.h): same-shape contiguous floating calls of the ops
whose table row names one launch their kernel directly, skipping ATen's
structured meta. Checked here:

- which calls take it (torch_ocl._C._direct_pointwise_launches counts them)
  and which do not (broadcast, strided, mixed dtypes, integers, CPU scalars,
  out=, bool or complex parameters, partially overlapping in-place);
- its results equal the structured path's bit for bit (the same kernel) and
  the CPU's within tolerance, forward and backward, functional and in-place,
  for every floating dtype, empty and 0-dim tensors included;
- bad input raises the CPU's errors (the direct path steps aside, ATen's
  checks raise).

Every test runs under fallback_mode('error').
"""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from torch_ocl import _C

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
from tolerances import DIRECT_POINTWISE as TOL  # noqa: E402 (one table per family, tests/python/tolerances.py)


# Every test of this file runs in strict mode: a missing native kernel raises.
pytestmark = pytest.mark.usefixtures("strict")


@pytest.fixture
def structured_path():
    """Runs the body with the direct path off (ATen's structured path only)."""
    _C._set_direct_pointwise(False)
    try:
        yield
    finally:
        _C._set_direct_pointwise(True)


def launches(fn):
    """(result, number of direct launches fn made)."""
    before = _C._direct_pointwise_launches()
    out = fn()
    return out, _C._direct_pointwise_launches() - before


def both_paths(fn):
    """fn's result on the direct path, with the launch count, and on the
    structured path (the direct path off)."""
    direct, n = launches(fn)
    _C._set_direct_pointwise(False)
    try:
        structured, m = launches(fn)
    finally:
        _C._set_direct_pointwise(True)
    assert m == 0
    return direct, n, structured


def _values(shape, dtype, lo=-3.0, hi=3.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dtype)


# (name, function of the inputs, number of tensor inputs, input range)
UNARY = [(n, getattr(torch, n), 1, dom) for n, dom in [
    ("exp", (-3, 3)), ("exp2", (-3, 3)), ("expm1", (-3, 3)), ("log", (0.1, 3)), ("log2", (0.1, 3)),
    ("log10", (0.1, 3)), ("log1p", (0.1, 3)), ("sqrt", (0.1, 3)), ("rsqrt", (0.1, 3)), ("sin", (-3, 3)),
    ("cos", (-3, 3)), ("tan", (-1.4, 1.4)), ("sinh", (-3, 3)), ("cosh", (-3, 3)), ("tanh", (-3, 3)),
    ("asin", (-0.9, 0.9)), ("acos", (-0.9, 0.9)), ("atan", (-3, 3)), ("asinh", (-3, 3)), ("acosh", (1.1, 3)),
    ("atanh", (-0.9, 0.9)), ("erf", (-3, 3)), ("erfc", (-3, 3)), ("erfinv", (-0.9, 0.9)), ("lgamma", (0.1, 3)),
    ("digamma", (0.1, 3)), ("sinc", (-3, 3)), ("sigmoid", (-3, 3)), ("reciprocal", (0.5, 3)), ("neg", (-3, 3)),
    ("ceil", (-3, 3)), ("floor", (-3, 3)), ("round", (-3, 3)), ("trunc", (-3, 3)), ("frac", (-3, 3)),
    ("sign", (-3, 3)),
]] + [
    ("silu", F.silu, 1, (-3, 3)), ("mish", F.mish, 1, (-3, 3)), ("hardsigmoid", F.hardsigmoid, 1, (-4, 4)),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2), 1, (-3, 3)),
    ("relu", torch.relu, 1, (-3, 3)),  # clamp_min(x, 0)
    ("clamp_min", lambda x: torch.clamp_min(x, -0.5), 1, (-3, 3)),
    ("clamp_max", lambda x: torch.clamp_max(x, 0.7), 1, (-3, 3)),
]
BINARY = [
    ("add", lambda a, b: a + b, 2, (-3, 3)),
    ("add_alpha", lambda a, b: torch.add(a, b, alpha=0.5), 2, (-3, 3)),
    ("add_int_alpha", lambda a, b: torch.add(a, b, alpha=3), 2, (-3, 3)),
    ("sub", lambda a, b: a - b, 2, (-3, 3)),
    ("sub_alpha", lambda a, b: torch.sub(a, b, alpha=2.5), 2, (-3, 3)),
    ("mul", lambda a, b: a * b, 2, (-3, 3)),
    ("div", lambda a, b: a / b, 2, (0.5, 3)),
    ("maximum", torch.maximum, 2, (-3, 3)),
    ("clamp_min_tensor", torch.clamp_min, 2, (-3, 3)),
    ("clamp_max_tensor", torch.clamp_max, 2, (-3, 3)),
    ("minimum", torch.minimum, 2, (-3, 3)),
    ("sigmoid_backward", torch.ops.aten.sigmoid_backward, 2, (0.1, 0.9)),
    ("tanh_backward", torch.ops.aten.tanh_backward, 2, (-0.9, 0.9)),
    ("silu_backward", torch.ops.aten.silu_backward, 2, (-3, 3)),
    ("addcmul", lambda a, b, c: torch.addcmul(a, b, c, value=0.3), 3, (-3, 3)),
    ("addcdiv", lambda a, b, c: torch.addcdiv(a, b, c, value=-0.7), 3, (0.5, 3)),
]
OPS = UNARY + BINARY


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("name,fn,arity,dom", OPS, ids=[o[0] for o in OPS])
def test_direct_equals_structured_and_cpu(name, fn, arity, dom, dtype):
    cpu = [_values((3, 37), dtype, *dom, seed=i) for i in range(arity)]
    dev = [t.to("ocl") for t in cpu]
    direct, n, structured = both_paths(lambda: fn(*dev))
    assert n == 1, f"{name} took the structured path"
    assert direct.dtype == dtype and direct.shape == cpu[0].shape and direct.is_contiguous()
    assert_close(direct.cpu(), structured.cpu(), rtol=0, atol=0, equal_nan=True)
    assert_close(direct.cpu(), fn(*cpu), equal_nan=True, **TOL.get(dtype, {}))


# (name, fn, direct launches fn makes: its in-place op, and the scalar-operand
# ops some of them use to build their arguments)
INPLACE = [
    ("add_", lambda a, b: a.add_(b, alpha=-0.1), 1),
    ("sub_", lambda a, b: a.sub_(b), 1),
    ("mul_", lambda a, b: a.mul_(b), 1),
    ("div_", lambda a, b: a.div_(b), 1),
    ("exp_", lambda a, b: a.exp_(), 1),
    ("sigmoid_", lambda a, b: a.sigmoid_(), 1),
    ("leaky_relu_", lambda a, b: F.leaky_relu_(a, 0.1), 1),
    ("relu_", lambda a, b: a.sub_(1).relu_(), 2),  # sub_ with a scalar, then clamp_min_
    ("addcmul_", lambda a, b: a.addcmul_(b, b, value=0.5), 1),
    ("addcdiv_", lambda a, b: a.addcdiv_(b, b + 4, value=0.5), 2),  # b + 4, then addcdiv_
    ("self_aliased", lambda a, b: a.mul_(a), 1),  # full overlap: allowed, as ATen
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("name,fn,expected_launches", INPLACE, ids=[o[0] for o in INPLACE])
def test_inplace(name, fn, expected_launches, dtype):
    a, b = _values((64,), dtype, 0.5, 2, seed=1), _values((64,), dtype, 0.5, 2, seed=2)
    x, y = a.to("ocl"), b.to("ocl")
    version = x._version
    out, n = launches(lambda: fn(x, y))
    assert n == expected_launches and out is x and x._version > version
    expected = fn(a.clone(), b)
    assert_close(x.cpu(), expected, **TOL.get(dtype, {}))


@pytest.mark.parametrize("shape", [(0,), (), (1,), (2, 0, 3), (100_003,)], ids=str)
def test_shapes(shape):
    a, b = _values(shape, torch.float32, seed=3), _values(shape, torch.float32, seed=4)
    out, n = launches(lambda: torch.add(a.to("ocl"), b.to("ocl"), alpha=2))
    assert n == 1 and out.shape == a.shape
    assert_close(out.cpu(), torch.add(a, b, alpha=2))


# A CPU scalar (Python number, 0-dim CPU tensor) as the second operand of a
# binary op: passed by value, the tensor's dtype kept.
SCALAR_OPERAND = [
    ("mul float", lambda a: a * 0.5),
    ("add int", lambda a: a + 3),
    ("sub alpha", lambda a: torch.sub(a, 2, alpha=1.5)),
    ("div", lambda a: a / 3),
    ("rdiv", lambda a: 2 / a),  # reciprocal * 2
    ("radd", lambda a: 1 + a),
    ("bool", lambda a: a * True),
    ("big for half", lambda a: a * 1e5),
    ("0-dim float64 tensor", lambda a: a + torch.tensor(2.5, dtype=torch.float64)),
    ("0-dim int64 tensor", lambda a: a * torch.tensor(3)),
    ("neg-bit 0-dim tensor", lambda a: a * torch._neg_view(torch.tensor(2.0))),  # the Negative key resolves it first
    ("maximum", lambda a: torch.maximum(a, torch.tensor(0.25))),
    ("inplace", lambda a: a.clone().mul_(0.25)),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("name,fn", SCALAR_OPERAND, ids=[o[0] for o in SCALAR_OPERAND])
def test_cpu_scalar_operand(name, fn, dtype):
    a = _values((5, 9), dtype, 0.5, 3, seed=11)
    x = a.to("ocl")
    direct, n, structured = both_paths(lambda: fn(x))
    assert n >= 1, f"{name} took the structured path"
    expected = fn(a)
    assert direct.dtype == expected.dtype == dtype
    assert_close(direct.cpu(), structured.cpu(), rtol=0, atol=0, equal_nan=True)
    assert_close(direct.cpu(), expected, equal_nan=True, **TOL.get(dtype, {}))


def _transposed(t):
    return t.t().contiguous().t()


# Calls the direct path must leave to TensorIterator: each still matches the CPU.
NOT_DIRECT = [
    ("broadcast", lambda a, b: a + b[0]),
    ("0-dim with 1-dim", lambda a, b: a + b[0, 0]),
    ("transposed", lambda a, b: _transposed(a) * b),
    ("sliced", lambda a, b: a[:, ::2] - b[:, ::2]),
    ("mixed float dtypes", lambda a, b: a + b.double()),
    ("int", lambda a, b: a.long() * b.long()),
    ("bool", lambda a, b: (a > 0) * (b > 0)),
    ("complex python scalar", lambda a, b: a * 2j),
    ("cpu scalar first", lambda a, b: torch.add(torch.tensor(1.5), a)),
    ("cpu 0-dim tensor, ternary", lambda a, b: torch.addcmul(a, torch.tensor(2.0), b)),
    ("int tensors, float division", lambda a, b: a.int() / b.int().clamp(min=1)),
    ("nan clamp bound", lambda a, b: torch.clamp_min(a, float("nan"))),
    ("nan alpha", lambda a, b: torch.add(a, b, alpha=float("nan"))),
    ("out=", lambda a, b: torch.add(a, b, out=torch.empty_like(a))),
    ("bool alpha on bool", lambda a, b: torch.add(a > 0, b > 0, alpha=True)),
    ("inplace, other broadcast", lambda a, b: a.clone().add_(b[0])),
    ("inplace, other transposed", lambda a, b: a.clone().mul_(_transposed(b))),
]


@pytest.mark.parametrize("name,fn", NOT_DIRECT, ids=[o[0] for o in NOT_DIRECT])
def test_calls_left_to_tensoriterator(name, fn):
    a, b = _values((6, 6), torch.float32, seed=5), _values((6, 6), torch.float32, seed=6)
    out, n = launches(lambda: fn(a.to("ocl"), b.to("ocl")))
    assert n == 0, f"{name} took the direct path"
    expected = fn(a, b)
    assert out.dtype == expected.dtype and out.shape == expected.shape
    assert_close(out.cpu(), expected, equal_nan=True)


def _error(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 (the type is what is compared)
        return type(e), str(e)
    return None, None


ERRORS = [
    ("bool alpha", lambda a, b: torch.add(a, b, alpha=True)),
    ("complex alpha", lambda a, b: torch.add(a, b, alpha=1j)),
    ("bool alpha sub", lambda a, b: torch.sub(a, b, alpha=False)),
    ("partial overlap in-place", lambda a, b: a[1:].add_(a[:-1])),
    ("shape mismatch", lambda a, b: a + b[:3]),
    ("in-place shape mismatch", lambda a, b: a[:1].mul_(b)),
    ("neg on bool", lambda a, b: torch.neg(a > 0)),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[o[0] for o in ERRORS])
def test_bad_input_raises_the_cpu_error(name, fn):
    a, b = _values((8,), torch.float32, seed=7), _values((8,), torch.float32, seed=8)
    cpu_type, cpu_msg = _error(fn, a.clone(), b)
    assert cpu_type is not None
    ocl_type, ocl_msg = _error(fn, a.to("ocl"), b.to("ocl"))
    assert ocl_type is cpu_type and ocl_msg.split("\n")[0] == cpu_msg.split("\n")[0]


def test_device_mismatch_raises():
    a = torch.randn(8, device="ocl")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        launches(lambda: a + torch.randn(8))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=lambda d: str(d)[6:])
def test_autograd_through_direct_ops(dtype):
    a, b = _values((5, 7), dtype, 0.5, 2, seed=9), _values((5, 7), dtype, 0.5, 2, seed=10)

    def f(x, y):
        return (torch.sigmoid(x * y - x / y).tanh() + F.silu(x).exp() + torch.maximum(x, y)).sum()

    xc, yc = a.clone().requires_grad_(), b.clone().requires_grad_()
    f(xc, yc).backward()
    xo, yo = a.to("ocl").requires_grad_(), b.to("ocl").requires_grad_()
    (loss, n) = launches(lambda: f(xo, yo))
    loss.backward()
    assert n >= 8
    assert_close(loss.cpu(), f(a, b))
    assert_close(xo.grad.cpu(), xc.grad)
    assert_close(yo.grad.cpu(), yc.grad)


def test_switch_and_env():
    """TORCH_OCL_DIRECT_POINTWISE=0 starts with the path off; the switch reads back."""
    import subprocess
    import sys
    import os
    code = ("import torch, torch_ocl; from torch_ocl import _C; a = torch.ones(4, device='ocl'); "
            "n = _C._direct_pointwise_launches(); b = a + a; "
            "print(_C._direct_pointwise_enabled(), _C._direct_pointwise_launches() - n, b.sum().item())")
    for value, expected in [("0", "False 0 8.0"), ("1", "True 1 8.0")]:
        env = dict(os.environ, TORCH_OCL_DIRECT_POINTWISE=value)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=240)
        assert out.returncode == 0, out.stderr[-500:]
        assert out.stdout.split("\n")[-2] == expected
    assert _C._direct_pointwise_enabled()


@pytest.mark.parametrize("memory_format", [torch.channels_last, torch.contiguous_format])
def test_result_strides_of_ambiguous_layouts_match_the_cpu(memory_format):
    # An (N, C, 1, 1) tensor is both contiguous and channels_last; its strides
    # depend on how it was made. TensorIterator (the CPU, CUDA) gives a result
    # the input's strides when a CPU scalar takes part and contiguous strides
    # when all operands have one shape (upstream test_torch.py
    # test_memory_format_propagation_rules).
    base = torch.rand(10, 3, 1, 1)
    bias = torch.rand(3, 1, 1)
    for device in ("cpu", "ocl"):
        a = base.to(device).to(memory_format=memory_format)
        results = [a * 5, a * torch.tensor(2.0), a + a, a.neg(), a + bias.to(device), bias.to(device) + a]
        if device == "cpu":
            expected = [r.stride() for r in results]
        else:
            assert [r.stride() for r in results] == expected
