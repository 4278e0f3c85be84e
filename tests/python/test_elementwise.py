"""Elementwise ops on ocl against PyTorch CPU on the same inputs.

Forward tests run under the `strict` fixture (fallback_mode('error')): these
ops must have native ocl kernels. When the CPU raises for a dtype, ocl must
raise the same exception type."""

import pytest
import torch
import torch.nn.functional as F

from cpu_reference import assert_matches_cpu, run_both

DTYPES = [
    torch.float32, torch.float64, torch.float16, torch.bfloat16,
    torch.int32, torch.int64, torch.uint8, torch.bool,
]


def dname(dtype):
    return str(dtype).replace("torch.", "")


def make(dtype, shape, kind="any", seed=0):
    """Deterministic CPU test data. kind: any | positive."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        t = torch.randn(shape, generator=g, dtype=torch.float64) * 3
        if kind == "positive":
            t = t.abs() + 0.1
        return t.to(dtype)
    lo = 1 if kind == "positive" else (0 if dtype == torch.uint8 else -50)
    return torch.randint(lo, 50, shape, generator=g).to(dtype)


# Binary ops, tensor-tensor ----------------------------------------------------------------

BINARY = {
    "add": lambda a, b: torch.add(a, b),
    "add_alpha": lambda a, b: torch.add(a, b, alpha=2),
    "sub": lambda a, b: a - b,
    "sub_alpha": lambda a, b: torch.sub(a, b, alpha=3),
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
}


@pytest.mark.parametrize("dtype", DTYPES, ids=dname)
@pytest.mark.parametrize("op", list(BINARY))
def test_binary(strict, op, dtype):
    a = make(dtype, (5, 7), seed=1)
    b = make(dtype, (5, 7), seed=2)
    if op.startswith(("eq", "ne", "le", "ge")):
        b[0] = a[0]  # some equal pairs
    run_both(BINARY[op], a, b)


@pytest.mark.parametrize("op", ["add", "sub_alpha", "mul", "div", "maximum", "eq", "lt"])
@pytest.mark.parametrize(
    "shapes",
    [((), ()), ((4, 5), ()), ((), (3,)), ((3, 1, 5), (4, 1)), ((1, 6), (6, 1)), ((0, 3), (3,)), ((0,), ()),
     ((2, 0), (1, 0))],
    ids=lambda s: "x".join(map(str, s)) or "0dim",
)
def test_binary_broadcast_and_odd_shapes(strict, op, shapes):
    a = make(torch.float32, shapes[0], seed=3)
    b = make(torch.float32, shapes[1], kind="positive", seed=4)
    run_both(BINARY[op], a, b)
    run_both(BINARY[op], b, a)


NON_CONTIGUOUS = {
    "transposed": lambda t: t.t(),
    "sliced": lambda t: t[::2, 1:],
    "expanded": lambda t: t[:1].expand(t.shape[0], t.shape[1]),
    "permuted3d": lambda t: t.view(2, 4, -1).permute(2, 0, 1),
}


@pytest.mark.parametrize("view", list(NON_CONTIGUOUS))
@pytest.mark.parametrize("op", ["add_alpha", "mul", "div", "minimum", "ge"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64])
def test_binary_non_contiguous(strict, op, view, dtype):
    fn = NON_CONTIGUOUS[view]
    a_base = make(dtype, (8, 6), seed=5)
    b_base = make(dtype, (8, 6), kind="positive", seed=6)
    a_dev, b_dev = a_base.to("ocl"), b_base.to("ocl")
    a, b = fn(a_base), fn(b_base)
    da, db = fn(a_dev), fn(b_dev)
    assert not da.is_contiguous()
    assert_matches_cpu(BINARY[op](da, db), BINARY[op](a, b))
    # mixed: one contiguous operand, one view
    assert_matches_cpu(BINARY[op](da, db.contiguous()), BINARY[op](a, b.contiguous()))


# Python scalars on either side ----------------------------------------------------------------

SCALAR = {
    "x+2": lambda x: x + 2,
    "2+x": lambda x: 2 + x,
    "x+1.5": lambda x: x + 1.5,
    "add_alpha": lambda x: torch.add(x, 3, alpha=2),
    "x-1": lambda x: x - 1,
    "2-x": lambda x: 2 - x,
    "2.5-x": lambda x: 2.5 - x,
    "x*3": lambda x: x * 3,
    "3*x": lambda x: 3 * x,
    "x*2.5": lambda x: x * 2.5,
    "x/3": lambda x: x / 3,
    "2/x": lambda x: 2 / x,
    "x==1": lambda x: x == 1,
    "x!=1": lambda x: x != 1,
    "x<1": lambda x: x < 1,
    "x<=1": lambda x: x <= 1,
    "x>0.5": lambda x: x > 0.5,
    "x>=2": lambda x: x >= 2,
    "1<x": lambda x: 1 < x,
    "eq_true": lambda x: torch.eq(x, True),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=dname)
@pytest.mark.parametrize("op", list(SCALAR))
def test_scalar_operand(strict, op, dtype):
    x = make(dtype, (4, 6), kind="positive" if op == "2/x" else "any", seed=7)
    run_both(SCALAR[op], x)


def test_scalar_operand_0dim_and_empty(strict):
    for x in (torch.tensor(1.25), torch.empty(0), torch.empty(3, 0)):
        for fn in SCALAR.values():
            run_both(fn, x)


# Unary ops -----------------------------------------------------------------------------------

UNARY = {
    "neg": (torch.neg, "any"),
    "abs": (torch.abs, "any"),
    "exp": (torch.exp, "any"),
    "log": (torch.log, "positive"),
    "sqrt": (torch.sqrt, "positive"),
    "rsqrt": (torch.rsqrt, "positive"),
    "sin": (torch.sin, "any"),
    "cos": (torch.cos, "any"),
    "tanh": (torch.tanh, "any"),
    "sigmoid": (torch.sigmoid, "any"),
    "relu": (torch.relu, "any"),
    "F.relu": (F.relu, "any"),
    "threshold": (lambda x: F.threshold(x, 1, 20), "any"),
    "threshold_neg": (lambda x: torch.threshold(x, -0.5, -3), "any"),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=dname)
@pytest.mark.parametrize("op", list(UNARY))
def test_unary(strict, op, dtype):
    fn, kind = UNARY[op]
    x = make(dtype, (6, 9), kind=kind, seed=8)
    if op == "abs" and dtype == torch.bool:  # the identity on CUDA and ocl; the CPU raises
        assert_matches_cpu(fn(x.to("ocl")), x)
        return
    run_both(fn, x)


@pytest.mark.parametrize("op", list(UNARY))
def test_unary_odd_shapes(strict, op):
    fn, kind = UNARY[op]
    for shape in ((), (0,), (3, 0, 2)):
        run_both(fn, make(torch.float32, shape, kind=kind, seed=9))
    base = make(torch.float64, (6, 10), kind=kind, seed=10)
    dev = base.to("ocl")
    for view in (lambda t: t.t(), lambda t: t[1::2, ::3], lambda t: t[2:3].expand(4, 10)):
        assert_matches_cpu(fn(view(dev)), fn(view(base)))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64, torch.bfloat16], ids=dname)
def test_special_values(strict, dtype):
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([0.0, -0.0, 1.0, -1.0, inf, -inf, nan, 2.0, -20.0, 20.0], dtype=dtype)
    y = torch.tensor([nan, 1.0, inf, -inf, 1.0, -inf, 3.0, 2.0, 0.0, -0.0], dtype=dtype)
    for fn, _ in UNARY.values():
        run_both(fn, x)
    for name in ("maximum", "minimum", "eq", "ne", "lt", "ge", "div", "add", "mul", "sub"):
        run_both(BINARY[name], x, y)


# Type promotion ---------------------------------------------------------------------------------

PROMOTION_PAIRS = [
    (torch.int32, torch.float32), (torch.float32, torch.int64), (torch.float32, torch.float64),
    (torch.float16, torch.float32), (torch.bfloat16, torch.float16), (torch.uint8, torch.int32),
    (torch.bool, torch.int64), (torch.bool, torch.float16), (torch.uint8, torch.bool),
    (torch.int64, torch.float16), (torch.int32, torch.int64), (torch.uint8, torch.float64),
]


@pytest.mark.parametrize("pair", PROMOTION_PAIRS, ids=lambda p: f"{dname(p[0])}-{dname(p[1])}")
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "lt", "eq"])
def test_type_promotion(strict, op, pair):
    a = make(pair[0], (3, 4), seed=11)
    b = make(pair[1], (3, 4), kind="positive", seed=12)
    run_both(BINARY[op], a, b)
    run_both(BINARY[op], b, a)


@pytest.mark.parametrize(
    "fn",
    [lambda x: x * 2.5, lambda x: x + True, lambda x: x / 2, lambda x: torch.sigmoid(x), lambda x: x - 0.25],
    ids=["int_times_2.5", "plus_True", "int_div_2", "sigmoid_int", "minus_quarter"],
)
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8, torch.bool], ids=dname)
def test_int_tensor_float_scalar(strict, fn, dtype):
    x = make(dtype, (10,), seed=13)
    r = run_both(fn, x)
    if r is not None and fn(torch.ones(1, dtype=dtype)).is_floating_point():
        assert r.dtype == torch.get_default_dtype()


# out= ---------------------------------------------------------------------------------------------


def test_out_same_dtype(strict):
    a, b = make(torch.float32, (4, 5), seed=14), make(torch.float32, (4, 5), seed=15)
    out = torch.empty(4, 5, device="ocl")
    ret = torch.add(a.to("ocl"), b.to("ocl"), alpha=0.5, out=out)
    assert ret is out
    assert_matches_cpu(out, torch.add(a, b, alpha=0.5))
    # an empty out is resized
    out2 = torch.empty(0, device="ocl")
    torch.mul(a.to("ocl"), b.to("ocl"), out=out2)
    assert_matches_cpu(out2, a * b)
    out3 = torch.empty(0, device="ocl")
    torch.exp(a.to("ocl"), out=out3)
    assert_matches_cpu(out3, torch.exp(a))


def test_out_non_contiguous(strict):
    a, b = make(torch.float32, (4, 5), seed=16), make(torch.float32, (4, 5), seed=17)
    out = torch.zeros(5, 4, device="ocl").t()
    torch.sub(a.to("ocl"), b.to("ocl"), out=out)
    assert out.stride() == (1, 4)
    assert_matches_cpu(out, a - b)
    big = torch.zeros(4, 10, device="ocl")
    torch.sigmoid(a.to("ocl"), out=big[:, ::2])
    expected = torch.zeros(4, 10)
    expected[:, ::2] = torch.sigmoid(a)
    assert_matches_cpu(big, expected)


@pytest.mark.parametrize(
    "fn,in_dtype,out_dtype",
    [
        (torch.add, torch.float32, torch.float64),  # allowed: float -> double
        (torch.mul, torch.int32, torch.int64),  # allowed
        (torch.mul, torch.int32, torch.float32),  # allowed: int -> float
        (torch.maximum, torch.float16, torch.float32),  # allowed
        (torch.div, torch.int32, torch.float64),  # allowed
        (torch.eq, torch.float32, torch.float32),  # comparison into float: allowed
        (torch.lt, torch.int64, torch.int32),  # comparison into int: allowed
        (torch.add, torch.float32, torch.int32),  # float -> int: error
        (torch.div, torch.int32, torch.int32),  # true division into int: error
        (torch.add, torch.float64, torch.bool),  # error
        (torch.sub, torch.float32, torch.float16),  # allowed (same category)
    ],
    ids=lambda v: v.__name__ if callable(v) else dname(v),
)
def test_out_different_dtype(strict, fn, in_dtype, out_dtype):
    a, b = make(in_dtype, (3, 4), seed=18), make(in_dtype, (3, 4), kind="positive", seed=19)

    def call(x, y, dev):
        out = torch.empty(3, 4, dtype=out_dtype, device=dev)
        r = fn(x, y, out=out)
        assert r is out
        return out

    run_both(lambda x, y: call(x, y, x.device), a, b)


@pytest.mark.parametrize("fn", [torch.exp, torch.sqrt, torch.sigmoid], ids=lambda f: f.__name__)
def test_unary_out_dtype_error(strict, fn):
    x = make(torch.int32, (5,), kind="positive", seed=20)

    def call(t):
        return fn(t, out=torch.empty(5, dtype=torch.int32, device=t.device))

    run_both(call, x)  # the CPU raises: result type Float can't be cast to Int


def test_out_on_wrong_device_raises(strict):
    a = torch.ones(3, device="ocl")
    with pytest.raises(RuntimeError, match="device"):
        torch.add(a, a, out=torch.empty(3))


# In-place ----------------------------------------------------------------------------------------

INPLACE = {
    "add_": lambda x, y: x.add_(y),
    "add_alpha_": lambda x, y: x.add_(y, alpha=-2),
    "sub_": lambda x, y: x.sub_(y),
    "mul_": lambda x, y: x.mul_(y),
    "div_": lambda x, y: x.div_(y),
    "mul_scalar_": lambda x, y: x.mul_(2),
    "iadd_scalar": lambda x, y: x.__iadd__(1.5),
    "exp_": lambda x, y: x.exp_(),
    "neg_": lambda x, y: x.neg_(),
    "abs_": lambda x, y: x.abs_(),
    "sqrt_": lambda x, y: x.sqrt_(),
    "sigmoid_": lambda x, y: x.sigmoid_(),
    "tanh_": lambda x, y: x.tanh_(),
    "relu_": lambda x, y: x.relu_(),
    "threshold_": lambda x, y: F.threshold_(x, 0.5, -1.0),
    "eq_": lambda x, y: x.eq_(y),
    "lt_": lambda x, y: x.lt_(y),
    "ge_scalar_": lambda x, y: x.ge_(0.5),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32, torch.uint8], ids=dname)
@pytest.mark.parametrize("op", list(INPLACE))
def test_inplace(strict, op, dtype):
    fn = INPLACE[op]
    x = make(dtype, (4, 6), kind="positive", seed=21)
    y = make(dtype, (4, 6), kind="positive", seed=22)
    xd, yd = x.to("ocl"), y.to("ocl")
    try:
        r = fn(x, y)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            fn(xd, yd)
        return
    rd = fn(xd, yd)
    assert rd is xd
    assert_matches_cpu(xd, r)


def test_inplace_on_views_and_promotion(strict):
    base = make(torch.float32, (4, 6), seed=23)
    dev = base.to("ocl")
    dev.t()[1:3].add_(10)
    base.t()[1:3].add_(10)
    assert_matches_cpu(dev, base)
    dev[:, ::2].mul_(torch.arange(3.0).to("ocl"))  # broadcast other
    base[:, ::2].mul_(torch.arange(3.0))
    assert_matches_cpu(dev, base)
    # float32 self, float64 other: allowed, stays float32
    other = make(torch.float64, (4, 6), seed=24)
    dev.add_(other.to("ocl"))
    base.add_(other)
    assert_matches_cpu(dev, base)
    # int self, float other: error on both
    run_both(lambda a, b: a.add_(b), make(torch.int32, (3,), seed=25), make(torch.float32, (3,), seed=26))
    # self would need broadcasting: error on both
    run_both(lambda a, b: a.add_(b), make(torch.float32, (3, 1), seed=27), make(torch.float32, (3, 4), seed=28))


# CPU scalars and device mismatch -------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, s: x + s, lambda x, s: s + x, lambda x, s: x * s, lambda x, s: s - x,
        lambda x, s: x / s, lambda x, s: torch.maximum(x, s), lambda x, s: x < s, lambda x, s: s == x,
    ],
    ids=["x+s", "s+x", "x*s", "s-x", "x/s", "maximum", "x<s", "s==x"],
)
@pytest.mark.parametrize(
    "x_dtype,s",
    [(torch.float32, torch.tensor(2.5)), (torch.int64, torch.tensor(2.5)), (torch.float16, torch.tensor(3)),
     (torch.int32, torch.tensor(4)), (torch.float32, torch.tensor(True)), (torch.float32, torch.tensor(2.0, dtype=torch.float64))],
    ids=["f32-f", "i64-f", "f16-i", "i32-i", "f32-b", "f32-f64"],
)
def test_cpu_zero_dim_tensor_with_ocl(strict, fn, x_dtype, s):
    x = make(x_dtype, (3, 4), kind="positive", seed=29)
    try:
        expected = fn(x, s)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            fn(x.to("ocl"), s)
        return
    actual = fn(x.to("ocl"), s)  # s stays on the CPU
    assert_matches_cpu(actual, expected)


@pytest.mark.parametrize(
    "fn",
    [lambda x, c: x + c, lambda x, c: c + x, lambda x, c: x * c, lambda x, c: torch.maximum(x, c),
     lambda x, c: x == c, lambda x, c: x.add_(c), lambda x, c: torch.sub(c, x)],
    ids=["x+c", "c+x", "x*c", "maximum", "eq", "add_", "sub"],
)
@pytest.mark.parametrize("cpu_shape", [(4,), (1,), (3, 4)], ids=str)
def test_cpu_non_scalar_tensor_with_ocl_raises(strict, fn, cpu_shape):
    x = torch.ones(3, 4, device="ocl")
    c = torch.ones(cpu_shape)
    with pytest.raises(RuntimeError, match="device"):
        fn(x, c)


# Large tensors ------------------------------------------------------------------------------------


def test_large(strict):
    n = 1 << 20
    a = make(torch.float32, (n,), seed=30)
    b = make(torch.float32, (n,), kind="positive", seed=31)
    da, db = a.to("ocl"), b.to("ocl")
    assert_matches_cpu(da + db, a + b)
    assert_matches_cpu(da * db - 1, a * b - 1)
    assert_matches_cpu(torch.exp(da / db), torch.exp(a / b))
    assert_matches_cpu(torch.sigmoid(da), torch.sigmoid(a))
    assert_matches_cpu(da > db, a > b)
    assert_matches_cpu(torch.maximum(da, db), torch.maximum(a, b))
    # non-contiguous large
    A, B = a.view(1024, 1024), b.view(1024, 1024)
    assert_matches_cpu(da.view(1024, 1024).t() + db.view(1024, 1024), A.t() + B)
    assert_matches_cpu(torch.relu(da.view(1024, 1024)[::2, 1::2]), torch.relu(A[::2, 1::2]))
    hi = make(torch.float16, (n,), seed=32)
    assert_matches_cpu(hi.to("ocl") * 2 + 1, hi * 2 + 1)


# Backward ------------------------------------------------------------------------------------------

# Ops whose backward formula uses only ops with native ocl kernels: checked
# under fallback_mode('error'). The others' backward uses sgn/pow/where etc.,
# which may fall back; they run with fallback allowed.
BACKWARD_UNARY = {
    "neg": (torch.neg, "any", True),
    "exp": (torch.exp, "any", True),
    "log": (torch.log, "positive", True),
    "sqrt": (torch.sqrt, "positive", True),
    "sin": (torch.sin, "any", True),
    "cos": (torch.cos, "any", True),
    "tanh": (torch.tanh, "any", True),
    "sigmoid": (torch.sigmoid, "any", True),
    "relu": (torch.relu, "any", True),
    "threshold": (lambda x: F.threshold(x, 0.3, -2.0), "any", True),
    "x*3": (lambda x: x * 3, "any", True),
    "2-x": (lambda x: 2 - x, "any", True),
    "x/3": (lambda x: x / 3, "any", True),
    "abs": (torch.abs, "any", False),
    "rsqrt": (torch.rsqrt, "positive", False),
    "2/x": (lambda x: 2 / x, "positive", False),
}

BACKWARD_BINARY = {
    "add": (lambda a, b: a + b, True),
    "add_alpha": (lambda a, b: torch.add(a, b, alpha=-1.5), True),
    "sub_alpha": (lambda a, b: torch.sub(a, b, alpha=2), True),
    "mul": (lambda a, b: a * b, True),
    "div": (lambda a, b: a / b, True),
    "maximum": (torch.maximum, False),
    "minimum": (torch.minimum, False),
}


def grads_on(device, fn, inputs, grad_out):
    leaves = [t.detach().to(device).requires_grad_() for t in inputs]
    out = fn(*leaves)
    out.backward(grad_out.to(device))
    return out.detach(), [leaf.grad for leaf in leaves]


def check_backward(fn, inputs, strict_mode, fallback_stats):
    with torch.no_grad():
        probe = fn(*inputs)
    g = make(probe.dtype, tuple(probe.shape), seed=99)
    out_cpu, grads_cpu = grads_on("cpu", fn, inputs, g)
    with torch.ocl.fallback_mode("error" if strict_mode else "silent"):
        out_dev, grads_dev = grads_on("ocl", fn, inputs, g)
    assert_matches_cpu(out_dev, out_cpu)
    for gd, gc in zip(grads_dev, grads_cpu):
        assert gd is not None
        assert_matches_cpu(gd, gc)
    if not strict_mode:
        print("ops that fell back:", sorted(fallback_stats()))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
@pytest.mark.parametrize("op", list(BACKWARD_UNARY))
def test_backward_unary(op, dtype, fallback_stats):
    fn, kind, strict_mode = BACKWARD_UNARY[op]
    x = make(dtype, (5, 6), kind=kind, seed=40)
    check_backward(fn, [x], strict_mode, fallback_stats)
    # non-contiguous input
    check_backward(lambda t: fn(t.t()[1:]), [x], strict_mode, fallback_stats)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
@pytest.mark.parametrize("op", list(BACKWARD_BINARY))
def test_backward_binary(op, dtype, fallback_stats):
    fn, strict_mode = BACKWARD_BINARY[op]
    a = make(dtype, (4, 5), seed=41)
    b = make(dtype, (4, 5), kind="positive", seed=42)
    check_backward(fn, [a, b], strict_mode, fallback_stats)
    # broadcasting: b's gradient is reduced over the broadcast dims
    check_backward(fn, [a, b[:1, :].clone()], strict_mode, fallback_stats)
    check_backward(fn, [a, b[:, :1].clone()], strict_mode, fallback_stats)


def test_backward_chain(fallback_stats):
    x = make(torch.float32, (8, 8), seed=43)
    w = make(torch.float32, (8, 8), seed=44)
    fn = lambda a, b: torch.sigmoid(torch.tanh(a * b) + torch.exp(-a)) / (1 + torch.relu(b))
    check_backward(fn, [x, w], True, fallback_stats)


# Python scalars outside the tensor dtype's range: the CPU wraps/overflows or
# raises; ocl must do the same.
@pytest.mark.parametrize(
    "dtype,fn",
    [
        (torch.uint8, lambda x: x < 300),
        (torch.uint8, lambda x: x == 256),
        (torch.int8, lambda x: x > 200),
        (torch.int8, lambda x: x + 200),
        (torch.int32, lambda x: x * 2**33),
        (torch.int32, lambda x: x + 2**40),
        (torch.float16, lambda x: x + 1e6),
        (torch.float16, lambda x: torch.add(x, x, alpha=1e5)),
        (torch.bfloat16, lambda x: x * 1e30),
    ],
    ids=["u8<300", "u8==256", "i8>200", "i8+200", "i32*2**33", "i32+2**40", "f16+1e6", "f16_alpha1e5", "bf16*1e30"],
)
def test_scalar_out_of_dtype_range(strict, dtype, fn):
    x = torch.tensor([0, 1, 10, 100], dtype=dtype)
    run_both(fn, x)


def test_inplace_overlap_errors(strict):
    a = make(torch.float32, (4, 4), seed=45)
    run_both(lambda t: t.add_(t.t()), a)  # partial overlap of input and output
    run_both(lambda t: t[:1].expand(4, 4).add_(1), a)  # output with internal overlap
    run_both(lambda t: torch.mul(t, 2, out=t[:1].expand(4, 4)), a)


def test_many_dims(strict):
    """More dims than the device indexer holds natively, and not coalescable."""
    x = make(torch.float32, (2,) * 12, seed=46)
    y = make(torch.float32, (2,) * 12, seed=47)
    perm = list(range(0, 12, 2)) + list(range(1, 12, 2))
    dx, dy = x.to("ocl"), y.to("ocl")
    assert_matches_cpu(dx.permute(perm) + dy, x.permute(perm) + y)
    assert_matches_cpu(torch.sigmoid(dx.permute(perm)) * dy, torch.sigmoid(x.permute(perm)) * y)
    assert_matches_cpu(dx.permute(perm) > dy, x.permute(perm) > y)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.bool, torch.int64, torch.float16, torch.float32], ids=str)
def test_conj_physical_out_of_real_dtypes_copies(strict, dtype):
    # conj_physical(out=) of a real tensor is a copy on the CPU and CUDA (the
    # fuzzer found ocl raising "not implemented for 'Byte'" into a stepped out).
    x = (torch.randn(3, 4) * 5).to(dtype)
    out = torch.empty(3, 8, dtype=dtype, device="ocl")[:, ::2]
    torch.conj_physical(x.to("ocl"), out=out)
    assert torch.equal(out.cpu(), x)


def test_float32_division_and_sqrt_are_correctly_rounded(strict):
    # programs are built with -cl-fp32-correctly-rounded-divide-sqrt where the
    # device supports it (README, Accuracy): every quotient and root equals
    # float64's rounded to float32 (PoCL reports the capability)
    g = torch.Generator().manual_seed(0)
    a = torch.randn(1 << 20, generator=g) * 10
    b = torch.randn(1 << 20, generator=g) * 10
    exact_div = (a.double() / b.double()).float()
    exact_sqrt = a.abs().double().sqrt().float()
    assert torch.equal((a.to("ocl") / b.to("ocl")).cpu(), exact_div)
    assert torch.equal(a.abs().to("ocl").sqrt().cpu(), exact_sqrt)


def test_half_computation_rounds_before_a_wider_out(strict):
    # the computation's dtype is the inputs' (float16 / bfloat16); an out= of a
    # wider dtype receives that dtype's rounded result, as on the CPU
    # (PyTorch's test_type_promotion test_computation_ignores_out)
    t = torch.tensor(33000, dtype=torch.float16)
    for dt in (torch.float16, torch.bfloat16):
        x = (torch.randn(500, generator=torch.Generator().manual_seed(0)) * 3).to(dt)
        for f in (lambda a, b, out: torch.add(a, b, out=out), lambda a, b, out: torch.mul(a, b, out=out),
                  lambda a, b, out: torch.div(a, b, out=out), lambda a, b, out: torch.exp(a, out=out)):
            for wide in (torch.float32, torch.float64):
                expected = f(x, x.flip(0), torch.empty(0, dtype=wide))
                got = f(x.to("ocl"), x.flip(0).to("ocl"), torch.empty(0, dtype=wide, device="ocl"))
                assert torch.equal(got.cpu(), expected), (dt, wide)
    assert torch.add(t.to("ocl"), t.to("ocl"), out=torch.empty(0, dtype=torch.float64, device="ocl")).item() == float("inf")
    # narrow integers wrap in their own dtype before the store (uint8 5 - 8 is 253)
    for dt, vals in ((torch.uint8, [5, 200, 8]), (torch.int8, [100, -100, 7]), (torch.int16, [30000, -30000, 2])):
        a = torch.tensor(vals, dtype=dt)
        for f in (lambda x, y, out: torch.sub(x, y, out=out), lambda x, y, out: torch.add(x, y, out=out),
                  lambda x, y, out: torch.mul(x, y, out=out)):
            for wide in (torch.int64, torch.float64):
                expected = f(a, a.flip(0), torch.empty(0, dtype=wide))
                got = f(a.to("ocl"), a.flip(0).to("ocl"), torch.empty(0, dtype=wide, device="ocl"))
                assert torch.equal(got.cpu(), expected), (dt, wide)


def test_pow_small_integer_exponents_are_products(strict):
    # as ATen's pow_tensor_scalar kernel: x^2, x^3, x^-2 as products, 0.5 / -0.5 /
    # -1 as sqrt / rsqrt / reciprocal (OpenCL's pow is ulps off a square)
    x = torch.randn(4096, generator=torch.Generator().manual_seed(0)) * 30
    xo = x.to("ocl")
    for e in (2, 3, -2, -1):
        assert torch.equal(torch.pow(xo, e).cpu(), torch.pow(x, e)), e
    assert torch.equal(torch.pow(xo, torch.full_like(xo, 2.0)).cpu(), x * x)
