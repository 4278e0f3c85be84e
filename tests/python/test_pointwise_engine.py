"""The pointwise kernel engine (kernels/pointwise_ops.cpp) against PyTorch CPU.

Every test runs under fallback_mode('error'): an op that is not native on ocl
raises instead of quietly running on the CPU. Each op is compared with the
same op on CPU tensors holding the same values:

- forward, per dtype: every float op on float32/float64/float16/bfloat16,
  every integer/bitwise/comparison op on int32/int64/uint8/int8 (and bool
  where the op takes it), on a contiguous 1-D tensor;
- forward, per shape (float32): empty, 0-dim, transposed, sliced with a step,
  broadcast between operands, and a 100_003-element tensor;
- CPU Python scalars and CPU 0-dim tensors as operands, mixed dtypes;
- NaN / inf propagation;
- in-place and out= variants (out= into a transposed view too);
- input gradients of the differentiable float ops (float32 and float64);
- errors: the CPU's exception type and a stable part of its message.

Half and bfloat16 results are compared with the CPU result on the same half
inputs, at a tolerance of about two units in the last place.
"""

import re
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

import cpu_reference
from cpu_reference import assert_matches_cpu, to_ocl

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int32, torch.int64, torch.uint8, torch.int8]
BOOL = [torch.bool]
KINDS = {  # the first dtype of each is the one test_shapes uses
    "float": FLOATS,
    "int": INTS,
    "num": FLOATS + INTS,
    "all": FLOATS + INTS + BOOL,
    "intbool": INTS + BOOL,
}
# result dtype -> tolerance for the reduced-precision float types
HALF_TOL = {
    torch.float16: dict(rtol=2e-3, atol=1e-3),
    torch.bfloat16: dict(rtol=1.6e-2, atol=1e-2),
}


# Every test of this file runs in strict mode: a missing native kernel raises.
pytestmark = pytest.mark.usefixtures("strict")


# Ops known to kill the process; each is tried once in a child interpreter so
# that a crash fails its tests instead of ending the run.
CRASH_PROBES = {
    "glu": "import torch, torch_ocl, torch.nn.functional as F; F.glu(torch.randn(6, 8).to('ocl'))",
}
_probe_results = {}


def crash_guard(name):
    for key, code in CRASH_PROBES.items():
        if key not in name:
            continue
        if key not in _probe_results:
            proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240)
            _probe_results[key] = proc
        proc = _probe_results[key]
        if proc.returncode != 0:
            pytest.fail(f"{key}: the probe `{code}` exits with {proc.returncode} "
                        f"(negative = signal): {proc.stderr[-300:]}")


def dname(dtype):
    return str(dtype).replace("torch.", "")


# Input generators -------------------------------------------------------------------------
# make(domain, dtype, shape, seed) -> a CPU tensor whose values lie in the op's domain.


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def _uniform(shape, lo, hi, g):
    return torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo


def _float_values(domain, shape, g):
    if domain == "any":
        return torch.randn(shape, generator=g, dtype=torch.float64) * 3
    if domain == "small":  # exp & co.: no overflow in half
        return torch.randn(shape, generator=g, dtype=torch.float64) * 1.5
    if domain == "pos":
        return torch.randn(shape, generator=g, dtype=torch.float64).abs() * 3 + 0.1
    if domain == "unit":  # asin, acos, atanh, erfinv
        return _uniform(shape, -0.95, 0.95, g)
    if domain == "ge1":  # acosh
        return torch.randn(shape, generator=g, dtype=torch.float64).abs() * 3 + 1.05
    if domain == "open01":  # logit
        return _uniform(shape, 0.05, 0.95, g)
    if domain == "wide01":  # logit with eps clamps
        return _uniform(shape, -0.2, 1.2, g)
    if domain == "tan":
        return _uniform(shape, -1.4, 1.4, g)
    if domain == "noint":  # lgamma, digamma: away from the poles at 0, -1, -2, ...
        x = _uniform(shape, -4.0, 6.0, g)
        return torch.floor(x) + 0.1 + 0.8 * (x - torch.floor(x))
    if domain == "nonzero":  # divisors
        mag = torch.rand(shape, generator=g, dtype=torch.float64) * 3 + 0.5
        sign = torch.where(torch.rand(shape, generator=g) > 0.5, 1.0, -1.0).to(torch.float64)
        return mag * sign
    if domain == "weight":  # lerp weights on both sides of 0.5, and outside [0, 1]
        return _uniform(shape, -0.3, 1.3, g)
    if domain == "pow_exp":
        return _uniform(shape, -2.5, 2.5, g)
    raise ValueError(domain)


def _int_values(domain, dtype, shape, g):
    signed = dtype not in (torch.uint8, torch.bool)
    if domain == "nonzero":
        mag = torch.randint(1, 20, shape, generator=g)
        if signed:
            mag = mag * torch.where(torch.rand(shape, generator=g) > 0.5, 1, -1)
        return mag
    if domain == "shift":
        return torch.randint(0, 10, shape, generator=g)
    if domain == "pow_base":
        return torch.randint(-5 if signed else 0, 6, shape, generator=g)
    if domain == "pow_exp":
        return torch.randint(0, 5, shape, generator=g)
    if domain == "lcm":
        return torch.randint(-9 if signed else 0, 10, shape, generator=g)
    if domain in ("pos", "ge1"):
        return torch.randint(1, 50, shape, generator=g)
    lo = -50 if signed else 0
    return torch.randint(lo, 50, shape, generator=g)


def make(domain, dtype, shape, seed=0):
    g = _gen(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        return _float_values(domain, shape, g).to(dtype)
    return _int_values(domain, dtype, shape, g).to(dtype)


def tol_for(dtype, input_dtypes=()):
    for d in (dtype, *input_dtypes):
        if d in HALF_TOL:
            return HALF_TOL[d]
    return {}


def compare(actual, expected, input_dtypes=()):
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            compare(a, e, input_dtypes)
        return
    assert_matches_cpu(actual, expected, **tol_for(expected.dtype, input_dtypes))


def run_both(fn, *cpu_args):
    """fn on the CPU args and on their ocl copies: the same result, or the same
    exception type when the CPU raises."""
    in_dtypes = [a.dtype for a in cpu_args if isinstance(a, torch.Tensor)]
    return cpu_reference.run_both(fn, *cpu_args, compare=lambda a, e: compare(a, e, in_dtypes))


# Shapes: (base shape to generate, view applied to the generated tensor) -------------------

SHAPES = {
    "contig1d": ((37,), lambda t: t),
    "empty": ((0,), lambda t: t),
    "empty2d": ((2, 0), lambda t: t),
    "0dim": ((), lambda t: t),
    "transposed": ((6, 9), lambda t: t.t()),
    "sliced_step": ((8, 12), lambda t: t[::2, 1::3]),
    "large": ((100_003,), lambda t: t),
}
SHAPE_IDS = [s for s in SHAPES if s != "contig1d"]


def make_shaped(domain, dtype, shape_id, seed):
    shape, view = SHAPES[shape_id]
    return view(make(domain, dtype, shape, seed))


# Op tables --------------------------------------------------------------------------------
# name -> (callable, input domains (one per tensor operand), dtype kind)


UNARY = {
    "exp": (torch.exp, ["small"], "float"),
    "exp2": (torch.exp2, ["small"], "float"),
    "expm1": (torch.expm1, ["small"], "float"),
    "log": (torch.log, ["pos"], "float"),
    "log2": (torch.log2, ["pos"], "float"),
    "log10": (torch.log10, ["pos"], "float"),
    "log1p": (torch.log1p, ["pos"], "float"),
    "sqrt": (torch.sqrt, ["pos"], "float"),
    "rsqrt": (torch.rsqrt, ["pos"], "float"),
    "sin": (torch.sin, ["any"], "float"),
    "cos": (torch.cos, ["any"], "float"),
    "tan": (torch.tan, ["tan"], "float"),
    "sinh": (torch.sinh, ["small"], "float"),
    "cosh": (torch.cosh, ["small"], "float"),
    "tanh": (torch.tanh, ["any"], "float"),
    "asin": (torch.asin, ["unit"], "float"),
    "acos": (torch.acos, ["unit"], "float"),
    "atan": (torch.atan, ["any"], "float"),
    "asinh": (torch.asinh, ["any"], "float"),
    "acosh": (torch.acosh, ["ge1"], "float"),
    "atanh": (torch.atanh, ["unit"], "float"),
    "erf": (torch.erf, ["any"], "float"),
    "erfc": (torch.erfc, ["any"], "float"),
    "erfinv": (torch.erfinv, ["unit"], "float"),
    "lgamma": (torch.lgamma, ["noint"], "float"),
    "digamma": (torch.digamma, ["noint"], "float"),
    "sinc": (torch.sinc, ["any"], "float"),
    "sigmoid": (torch.sigmoid, ["any"], "float"),
    "reciprocal": (torch.reciprocal, ["nonzero"], "float"),
    "neg": (torch.neg, ["any"], "num"),
    "ceil": (torch.ceil, ["any"], "num"),
    "floor": (torch.floor, ["any"], "num"),
    "round": (torch.round, ["any"], "num"),
    "round_decimals2": (lambda x: torch.round(x, decimals=2), ["any"], "float"),
    "round_decimals_neg1": (lambda x: torch.round(x * 40, decimals=-1), ["any"], "float"),
    "trunc": (torch.trunc, ["any"], "num"),
    "frac": (torch.frac, ["any"], "float"),
    "sign": (torch.sign, ["any"], "all"),
    "sgn": (torch.sgn, ["any"], "all"),
    "bitwise_not": (torch.bitwise_not, ["any"], "intbool"),
    "signbit": (torch.signbit, ["any"], "num"),
    "abs": (torch.abs, ["any"], "num"),
    "angle": (torch.angle, ["any"], "float"),
    "logical_not": (torch.logical_not, ["any"], "all"),
    "logit": (torch.logit, ["open01"], "float"),
    "logit_eps": (lambda x: torch.logit(x, eps=0.1), ["wide01"], "float"),
    "frexp": (torch.frexp, ["any"], "float"),
    "nan_to_num": (torch.nan_to_num, ["any"], "float"),
    "isposinf": (torch.isposinf, ["any"], "float"),
    "isneginf": (torch.isneginf, ["any"], "float"),
}

BINARY = {
    "add": (torch.add, ["any", "any"], "all"),
    "add_alpha": (lambda a, b: torch.add(a, b, alpha=2), ["any", "any"], "num"),
    "add_alpha_frac": (lambda a, b: torch.add(a, b, alpha=0.5), ["any", "any"], "float"),
    "sub": (torch.sub, ["any", "any"], "num"),
    "sub_alpha": (lambda a, b: torch.sub(a, b, alpha=3), ["any", "any"], "num"),
    "mul": (torch.mul, ["any", "any"], "all"),
    "div": (torch.div, ["any", "nonzero"], "all"),
    "div_trunc": (lambda a, b: torch.div(a, b, rounding_mode="trunc"), ["any", "nonzero"], "num"),
    "div_floor": (lambda a, b: torch.div(a, b, rounding_mode="floor"), ["any", "nonzero"], "num"),
    "floor_divide": (torch.floor_divide, ["any", "nonzero"], "num"),
    "remainder": (torch.remainder, ["any", "nonzero"], "num"),
    "fmod": (torch.fmod, ["any", "nonzero"], "num"),
    "atan2": (torch.atan2, ["any", "any"], "float"),
    "hypot": (torch.hypot, ["any", "any"], "float"),
    "copysign": (torch.copysign, ["any", "any"], "float"),
    "logaddexp": (torch.logaddexp, ["any", "any"], "float"),
    "logaddexp2": (torch.logaddexp2, ["any", "any"], "float"),
    "xlogy": (torch.xlogy, ["any", "pos"], "float"),
    "xlog1py": (torch.special.xlog1py, ["any", "pos"], "float"),
    "heaviside": (torch.heaviside, ["any", "any"], "all"),
    "maximum": (torch.maximum, ["any", "any"], "all"),
    "minimum": (torch.minimum, ["any", "any"], "all"),
    "fmax": (torch.fmax, ["any", "any"], "num"),
    "fmin": (torch.fmin, ["any", "any"], "num"),
    "gcd": (torch.gcd, ["any", "any"], "int"),
    "lcm": (torch.lcm, ["lcm", "lcm"], "int"),
    "pow": (torch.pow, ["pos", "pow_exp"], "float"),
    "pow_int": (torch.pow, ["pow_base", "pow_exp"], "int"),
    "bitwise_and": (torch.bitwise_and, ["any", "any"], "intbool"),
    "bitwise_or": (torch.bitwise_or, ["any", "any"], "intbool"),
    "bitwise_xor": (torch.bitwise_xor, ["any", "any"], "intbool"),
    "bitwise_left_shift": (torch.bitwise_left_shift, ["any", "shift"], "int"),
    "bitwise_right_shift": (torch.bitwise_right_shift, ["any", "shift"], "int"),
    "lshift_operator": (lambda a, b: a << b, ["any", "shift"], "int"),  # aten::__lshift__.Tensor
    "rshift_operator": (lambda a, b: a >> b, ["any", "shift"], "int"),
    "logical_and": (torch.logical_and, ["any", "any"], "all"),
    "logical_or": (torch.logical_or, ["any", "any"], "all"),
    "logical_xor": (torch.logical_xor, ["any", "any"], "all"),
    "eq": (torch.eq, ["any", "any"], "all"),
    "ne": (torch.ne, ["any", "any"], "all"),
    "lt": (torch.lt, ["any", "any"], "all"),
    "le": (torch.le, ["any", "any"], "all"),
    "gt": (torch.gt, ["any", "any"], "all"),
    "ge": (torch.ge, ["any", "any"], "all"),
}

TERNARY = {
    "addcmul": (lambda a, b, c: torch.addcmul(a, b, c, value=0.5), ["any", "any", "any"], "float"),
    "addcmul_int": (lambda a, b, c: torch.addcmul(a, b, c, value=2), ["any", "any", "any"], "int"),
    "addcdiv": (lambda a, b, c: torch.addcdiv(a, b, c, value=0.5), ["any", "any", "nonzero"], "float"),
    "lerp_w0.3": (lambda a, b: torch.lerp(a, b, 0.3), ["any", "any"], "float"),
    "lerp_w0.7": (lambda a, b: torch.lerp(a, b, 0.7), ["any", "any"], "float"),
    "lerp_tensor": (torch.lerp, ["any", "any", "weight"], "float"),
    "where": (lambda a, b, c: torch.where(a > 0 if a.dtype != torch.bool else a, b, c), ["any", "any", "any"], "all"),
    "clamp": (lambda x: torch.clamp(x, -1, 2), ["any"], "num"),
    "clamp_min_only": (lambda x: torch.clamp(x, min=-1), ["any"], "num"),
    "clamp_max_only": (lambda x: torch.clamp(x, max=2), ["any"], "num"),
    "clamp_float_bounds": (lambda x: torch.clamp(x, -0.75, 1.25), ["any"], "float"),
    "clamp_min": (lambda x: torch.clamp_min(x, 3), ["any"], "num"),
    "clamp_max": (lambda x: torch.clamp_max(x, 3), ["any"], "num"),
    "clamp_tensor": (lambda x, lo, hi: torch.clamp(x, lo, hi), ["any", "any", "any"], "num"),
    "clamp_tensor_min": (lambda x, lo: torch.clamp(x, min=lo), ["any", "any"], "num"),
    "clamp_min_tensor": (torch.clamp_min, ["any", "any"], "num"),
    "clamp_max_tensor": (torch.clamp_max, ["any", "any"], "num"),
}

ACTIVATION = {
    "relu": (torch.relu, ["any"], "num"),
    "relu6": (F.relu6, ["any"], "float"),
    "hardtanh": (F.hardtanh, ["any"], "float"),
    "hardtanh_range": (lambda x: F.hardtanh(x, -0.5, 2.0), ["any"], "float"),
    "threshold": (lambda x: F.threshold(x, 0.5, -2.0 if x.dtype != torch.uint8 else 200), ["any"], "num"),
    "elu": (F.elu, ["any"], "float"),
    "elu_alpha": (lambda x: F.elu(x, alpha=0.5), ["any"], "float"),
    "selu": (F.selu, ["any"], "float"),
    "celu": (lambda x: F.celu(x, alpha=1.5), ["any"], "float"),
    "silu": (F.silu, ["any"], "float"),
    "mish": (F.mish, ["any"], "float"),
    "softplus": (F.softplus, ["any"], "float"),
    "softplus_beta": (lambda x: F.softplus(x, beta=2.0, threshold=5.0), ["any"], "float"),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), ["any"], "float"),
    "hardsigmoid": (F.hardsigmoid, ["any"], "float"),
    "hardswish": (F.hardswish, ["any"], "float"),
    "hardshrink": (lambda x: F.hardshrink(x, 0.5), ["any"], "float"),
    "softshrink": (lambda x: F.softshrink(x, 0.5), ["any"], "float"),
    "glu": (lambda x: F.glu(x[..., : x.shape[-1] // 2 * 2]) if x.dim() else F.glu(x), ["any"], "float"),
    "gelu": (F.gelu, ["any"], "float"),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), ["any"], "float"),
    "logsigmoid": (F.logsigmoid, ["any"], "float"),
}

ALL_OPS = {**UNARY, **BINARY, **TERNARY, **ACTIVATION}


def _op_dtype_params(table):
    return [pytest.param(name, dt, id=f"{name}-{dname(dt)}") for name, (_, _, kind) in table.items()
            for dt in KINDS[kind]]


def _op_shape_params(table):
    out = []
    for name, (_, domains, kind) in table.items():
        shapes = list(SHAPE_IDS) + (["broadcast"] if len(domains) > 1 else [])
        out += [pytest.param(name, s, id=f"{name}-{s}") for s in shapes]
    return out


def _inputs(name, dtype, shape_id="contig1d"):
    _, domains, _ = ALL_OPS[name]
    if shape_id == "broadcast":
        shapes = [(3, 1), (1, 4), (3, 4)]
        return [make(d, dtype, shapes[i], seed=11 + i) for i, d in enumerate(domains)]
    return [make_shaped(d, dtype, shape_id, seed=11 + i) for i, d in enumerate(domains)]


def _check_op(name, dtype, shape_id="contig1d"):
    crash_guard(name)
    fn = ALL_OPS[name][0]
    args = _inputs(name, dtype, shape_id)
    if name in ("eq", "ne", "le", "ge") and args[0].shape == args[1].shape and args[0].numel() > 1:
        mask = torch.rand(args[0].shape, generator=_gen(5)) > 0.5
        args[1][mask] = args[0][mask]  # some equal pairs; keeps args[1]'s strides
    run_both(fn, *args)


@pytest.mark.parametrize("name,dtype", _op_dtype_params(UNARY))
def test_unary(name, dtype):
    _check_op(name, dtype)


@pytest.mark.parametrize("name,dtype", _op_dtype_params(BINARY))
def test_binary(name, dtype):
    _check_op(name, dtype)


@pytest.mark.parametrize("name,dtype", _op_dtype_params(TERNARY))
def test_ternary_and_clamp(name, dtype):
    _check_op(name, dtype)


@pytest.mark.parametrize("name,dtype", _op_dtype_params(ACTIVATION))
def test_activation(name, dtype):
    _check_op(name, dtype)


@pytest.mark.parametrize("name,shape_id", _op_shape_params(ALL_OPS))
def test_shapes(name, shape_id):
    """float32 for the ops that take floats, int32 for the integer-only ones."""
    _check_op(name, KINDS[ALL_OPS[name][2]][0], shape_id)


@pytest.mark.parametrize("name", ["add", "mul", "maximum", "bitwise_xor", "lt", "remainder", "div_floor"])
@pytest.mark.parametrize("shape_id", ["transposed", "sliced_step", "broadcast", "0dim", "empty"])
def test_shapes_int32(name, shape_id):
    _check_op(name, torch.int32, shape_id)


def test_digamma_lgamma_extra_points():
    # positive integers, large arguments, small positive arguments
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor([1.0, 2.0, 3.0, 10.0, 0.001, 0.5, 25.5, 120.0, 1e4, -0.5, -2.5], dtype=dtype)
        run_both(torch.digamma, x)
        run_both(torch.lgamma, x)


def test_sinc_at_zero_and_integers():
    x = torch.tensor([0.0, -0.0, 1.0, -2.0, 3.0, 1e-8, 0.5], dtype=torch.float32)
    run_both(torch.sinc, x)
    run_both(torch.sinc, x.double())


def test_round_half_to_even():
    x = torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 1e7 + 0.5, 0.125, 0.375])
    for dtype in (torch.float32, torch.float64, torch.float16):
        run_both(torch.round, x.to(dtype))
        run_both(lambda t: torch.round(t, decimals=2), x.to(dtype))


def test_integer_division_signs():
    a = torch.tensor([7, -7, 7, -7, 0, 5, -5, 1, -1, 100], dtype=torch.int32)
    b = torch.tensor([2, 2, -2, -2, 3, 5, 5, -3, 3, -7], dtype=torch.int32)
    for dtype in (torch.int32, torch.int64, torch.int8):
        for fn in (lambda x, y: torch.div(x, y, rounding_mode="trunc"),
                   lambda x, y: torch.div(x, y, rounding_mode="floor"),
                   torch.floor_divide, torch.remainder, torch.fmod, torch.div):
            run_both(fn, a.to(dtype), b.to(dtype))


def test_trunc_division_of_half_types_rounds_the_quotient_first():
    # The CPU (and NumPy) truncate the quotient rounded to half / bfloat16:
    # -211.5 / 1.449 = -145.94 rounds to -146 in half, which truncates to -146.
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(4000, generator=g) * 100, torch.randn(4000, generator=g) * 10
    a[:2], b[:2] = torch.tensor([-211.5, 92.0]), torch.tensor([1.44921875, -0.06390380859375])
    for dtype in (torch.float16, torch.bfloat16):
        run_both(lambda x, y: torch.div(x, y, rounding_mode="trunc"), a.to(dtype), b.to(dtype))


def test_shift_amounts_at_and_past_width():
    a = torch.tensor([1, -1, 5, -128, 127, 64, 3, -3], dtype=torch.int64)
    for dtype, bits in ((torch.int8, 8), (torch.uint8, 8), (torch.int32, 32), (torch.int64, 64)):
        x = a.to(dtype) if dtype != torch.uint8 else a.abs().clamp(max=255).to(dtype)
        s = torch.tensor([0, 1, bits - 1, bits, bits + 1, 2, bits - 2, 3], dtype=dtype)
        run_both(torch.bitwise_left_shift, x, s)
        run_both(torch.bitwise_right_shift, x, s)


def test_gcd_lcm_edge_values():
    a = torch.tensor([0, 0, 12, -12, 7, 1, 36, -15], dtype=torch.int64)
    b = torch.tensor([0, 5, 18, 18, -21, 0, 48, -25], dtype=torch.int64)
    for dtype in (torch.int32, torch.int64):
        run_both(torch.gcd, a.to(dtype), b.to(dtype))
        run_both(torch.lcm, a.to(dtype), b.to(dtype))
    # lcm past the range of a narrow type: the CPU takes abs(a / g * b) in int
    # (C's promotions) and narrows afterwards (-40000 -> 40000 -> -25536 in int16)
    g = torch.Generator().manual_seed(0)
    for dtype, hi in ((torch.int8, 127), (torch.int16, 32767), (torch.uint8, 255)):
        lo = 0 if dtype == torch.uint8 else -hi
        a = torch.randint(lo, hi + 1, (4000,), generator=g).to(dtype)
        b = torch.randint(lo, hi + 1, (4000,), generator=g).to(dtype)
        run_both(torch.lcm, a, b)


def test_pow_overloads():
    x = make("pos", torch.float32, (37,), seed=1)
    xi = make("pow_base", torch.int64, (37,), seed=2)
    e = make("pow_exp", torch.float32, (37,), seed=3)
    for fn, args in [
        (lambda t: torch.pow(t, 2), (x,)),            # pow.Tensor_Scalar
        (lambda t: torch.pow(t, 0.5), (x,)),
        (lambda t: torch.pow(t, -1.5), (x,)),
        (lambda t: torch.pow(t, 3), (xi,)),
        (lambda t: torch.pow(t, 0), (xi,)),
        (lambda t: torch.pow(t, 2.5), (xi,)),       # int ** float scalar -> float
        (lambda t: torch.pow(2.0, t), (e,)),        # pow.Scalar
        (lambda t: torch.pow(3, t), (xi.abs(),)),    # pow.Scalar int
        (lambda t: 2 ** t, (e,)),
        (torch.pow, (x, e)),                        # pow.Tensor_Tensor
        (torch.pow, (xi, xi.abs().clamp(max=4))),
        (lambda t: torch.pow(t, torch.tensor(2.0)), (x,)),  # CPU 0-dim exponent
    ]:
        run_both(fn, *args)
    for dtype in (torch.float64, torch.float16, torch.bfloat16):
        run_both(lambda t: torch.pow(t, 3), x.to(dtype))
        run_both(lambda t: torch.pow(2.0, t), e.to(dtype))


def test_frexp_values():
    x = torch.tensor([0.0, -0.0, 1.0, -1.0, 0.75, 1024.0, 1e-30, -3.5e20, 7.0])
    for dtype in (torch.float32, torch.float64):
        run_both(torch.frexp, x.to(dtype))


# NaN / inf propagation --------------------------------------------------------------------


def special_values(dtype):
    v = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 0.5]
    return torch.tensor(v, dtype=dtype)


def special_pairs(dtype):
    nan, inf = float("nan"), float("inf")
    a = [nan, 1.0, nan, inf, -inf, inf, 0.0, -0.0, 2.0, nan, 3.0, -inf, 0.0]
    b = [1.0, nan, nan, 1.0, 1.0, -inf, 0.0, 0.0, inf, inf, -inf, -inf, nan]
    return torch.tensor(a, dtype=dtype), torch.tensor(b, dtype=dtype)


SPECIAL_UNARY = {
    "nan_to_num": torch.nan_to_num,
    "nan_to_num_args": lambda x: torch.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0),
    "nan_to_num_posinf_only": lambda x: torch.nan_to_num(x, posinf=7.0),
    "sign": torch.sign,
    "sgn": torch.sgn,
    "signbit": torch.signbit,
    "clamp": lambda x: torch.clamp(x, -1, 1),
    "clamp_min": lambda x: torch.clamp_min(x, 0.5),
    "clamp_max": lambda x: torch.clamp_max(x, 0.5),
    "relu": torch.relu,
    "hardtanh": F.hardtanh,
    "hardsigmoid": F.hardsigmoid,  # NaN stays NaN (PyTorch's test_unary_ufuncs extremal values)
    "hardswish": F.hardswish,
    "softshrink": lambda x: F.softshrink(x, 0.5),
    "hardshrink": lambda x: F.hardshrink(x, 0.5),
    "leaky_relu": F.leaky_relu,
    "abs": torch.abs,
    "exp": torch.exp,
    "log": torch.log,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "reciprocal": torch.reciprocal,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "floor": torch.floor,
    "round": torch.round,
    "frac": torch.frac,
    "isposinf": torch.isposinf,
    "isneginf": torch.isneginf,
    "angle": torch.angle,
    "logical_not": torch.logical_not,
    "gelu": F.gelu,
    "silu": F.silu,
    "softplus": F.softplus,
    "logsigmoid": F.logsigmoid,
    "erfinv": torch.erfinv,
    "atanh": torch.atanh,
}

SPECIAL_BINARY = {
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "fmax": torch.fmax,
    "fmin": torch.fmin,
    "clamp_tensor": lambda a, b: torch.clamp(a, min=b),
    "clamp_max_tensor": lambda a, b: torch.clamp_max(a, b),
    "div": torch.div,
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "remainder": torch.remainder,
    "fmod": torch.fmod,
    "atan2": torch.atan2,
    "hypot": torch.hypot,
    "logaddexp": torch.logaddexp,
    "logaddexp2": torch.logaddexp2,
    "xlogy": torch.xlogy,
    "xlog1py": torch.special.xlog1py,
    "heaviside": torch.heaviside,
    "copysign": torch.copysign,
    "pow": torch.pow,
    "eq": torch.eq,
    "lt": torch.lt,
    "ne": torch.ne,
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=dname)
@pytest.mark.parametrize("name", list(SPECIAL_UNARY))
def test_nan_inf_unary(name, dtype):
    if name in FLOAT64_REFERENCE:
        x = special_values(dtype)
        compare(SPECIAL_UNARY[name](to_ocl([x])[0]), SPECIAL_UNARY[name](x.double()).to(dtype), [dtype])
        return
    run_both(SPECIAL_UNARY[name], special_values(dtype))


# The CPU's vectorised float32 kernel is wrong on some hosts: gelu(inf) is NaN
# through AVX-512's erf (its scalar tail and float64 give inf, as ocl does).
FLOAT64_REFERENCE = {"gelu"}


def test_logit_eps_keeps_nan():
    # The eps clamp must not turn NaN into eps (the CPU's x < lo ? lo : ... keeps it).
    for dtype in (torch.float32, torch.float64):
        run_both(lambda x: torch.logit(x, 1e-6), special_values(dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
@pytest.mark.parametrize("name", list(SPECIAL_BINARY))
def test_nan_inf_binary(name, dtype):
    run_both(SPECIAL_BINARY[name], *special_pairs(dtype))


def test_nan_to_num_default_bounds_per_dtype():
    for dtype in FLOATS:
        run_both(torch.nan_to_num, special_values(dtype))


# CPU scalars, CPU 0-dim tensors, mixed dtypes ---------------------------------------------

SCALAR_CASES = {
    "x+2.5": lambda x: x + 2.5,
    "2.5-x": lambda x: 2.5 - x,
    "x*2": lambda x: x * 2,
    "x/3": lambda x: x / 3,
    "x<1": lambda x: x < 1,
    "x>=0.5": lambda x: x >= 0.5,
    "x==0": lambda x: x == 0,
    "x!=1": lambda x: x != 1,
    "x**2": lambda x: x ** 2,
    "x%3": lambda x: x % 3,
    "x//2": lambda x: x // 2,
    "2**x": lambda x: 2 ** x.clamp(-3, 3),
    "x&3": lambda x: x & 3 if not x.is_floating_point() else x,
    "x<<1": lambda x: x << 1 if not x.is_floating_point() else x,
    "x>>1": lambda x: x >> 1 if not x.is_floating_point() else x,
    "bitwise_left_shift_scalar": lambda x: torch.bitwise_left_shift(x, 2) if not x.is_floating_point() else x,
    "7%x": lambda x: 7 % torch.where(x == 0, 1, x),  # remainder.Scalar_Tensor
    "7//x": lambda x: 7 // torch.where(x == 0, 1, x),
    "3-x": lambda x: 3 - x,
    "where_scalar": lambda x: torch.where(x > 0, x, 0.0),
    "maximum_cpu0dim": lambda x: torch.maximum(x, torch.tensor(1, dtype=x.dtype)),
    "add_cpu0dim": lambda x: x + torch.tensor(2.5),
    "mul_cpu0dim_int": lambda x: x * torch.tensor(3),
    "lerp_cpu0dim": lambda x: torch.lerp(x, x * 2, torch.tensor(0.25)) if x.is_floating_point() else x,
    "fmod_scalar": lambda x: torch.fmod(x, 4),
    "remainder_scalar": lambda x: torch.remainder(x, -4),
    "eq_scalar_inplace": lambda x: x.clone().eq_(1),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.float16], ids=dname)
@pytest.mark.parametrize("name", list(SCALAR_CASES))
def test_cpu_scalar_operand(name, dtype):
    run_both(SCALAR_CASES[name], make("any", dtype, (37,), seed=7))


def test_bool_tensor_with_scalar():
    x = make("any", torch.bool, (37,), seed=8)
    for fn in (lambda t: t + 1, lambda t: t * 2.5, lambda t: t & True, lambda t: t == True,  # noqa: E712
               lambda t: torch.where(t, 1.0, -1.0), lambda t: t | torch.tensor(False)):
        run_both(fn, x)


MIXED = {
    "int32+float32": (torch.add, torch.int32, torch.float32),
    "float16+float32": (torch.add, torch.float16, torch.float32),
    "bfloat16*float16": (torch.mul, torch.bfloat16, torch.float16),
    "uint8+int8": (torch.add, torch.uint8, torch.int8),
    "bool*int32": (torch.mul, torch.bool, torch.int32),
    "int64*float16": (torch.mul, torch.int64, torch.float16),
    "int32/int64": (torch.div, torch.int32, torch.int64),
    "int32<float32": (torch.lt, torch.int32, torch.float32),
    "float64==float32": (torch.eq, torch.float64, torch.float32),
    "maximum_int32_float32": (torch.maximum, torch.int32, torch.float32),
    "atan2_int32_float16": (torch.atan2, torch.int32, torch.float16),
    "pow_float32_int64": (torch.pow, torch.float32, torch.int64),
    "where_int_float": (lambda a, b: torch.where(a > 0, a, b), torch.int32, torch.float32),
    "bitwise_or_int8_int32": (torch.bitwise_or, torch.int8, torch.int32),
    "logical_and_float_int": (torch.logical_and, torch.float32, torch.int32),
    "addcmul_f16_f32": (lambda a, b: torch.addcmul(b, a, b), torch.float16, torch.float32),
}


@pytest.mark.parametrize("name", list(MIXED))
def test_mixed_dtypes(name):
    fn, da, db = MIXED[name]
    a = make("any", da, (5, 7), seed=21)
    b = make("any", db, (5, 7), seed=22)
    run_both(fn, a, b)
    run_both(fn, b, a)


@pytest.mark.parametrize("name", ["exp", "sqrt", "sin", "sigmoid", "log1p", "erf", "reciprocal", "atan"])
@pytest.mark.parametrize("dtype", [torch.int32, torch.uint8, torch.bool], ids=dname)
def test_float_op_on_integer_input(name, dtype):
    fn = UNARY[name][0]
    run_both(fn, make("pos", dtype, (37,), seed=9))


def test_ocl_0dim_with_larger_tensor_and_float64_0dim():
    x = make("any", torch.float32, (4, 5), seed=1)
    s = torch.tensor(1.25, dtype=torch.float64)  # 0-dim float64 does not promote float32
    run_both(torch.add, x, s)
    run_both(torch.mul, s, x)
    run_both(torch.maximum, x, s)


# In-place and out= ------------------------------------------------------------------------

INPLACE = {
    "exp_": lambda x, y: x.exp_(),
    "add_": lambda x, y: x.add_(y, alpha=2),
    "add_scalar_": lambda x, y: x.add_(1.5),
    "sub_": lambda x, y: x.sub_(y),
    "mul_broadcast_": lambda x, y: x.mul_(y[:1]),
    "div_floor_": lambda x, y: x.div_(y.abs() + 0.5, rounding_mode="floor"),
    "clamp_": lambda x, y: x.clamp_(-1, 1),
    "clamp_min_": lambda x, y: x.clamp_min_(0.5),
    "clamp_tensor_": lambda x, y: x.clamp_(max=y),
    "sigmoid_": lambda x, y: x.sigmoid_(),
    "relu_": lambda x, y: x.relu_(),
    "pow_": lambda x, y: x.abs_().pow_(1.5),
    "lerp_": lambda x, y: x.lerp_(y, 0.3),
    "addcmul_": lambda x, y: x.addcmul_(y, y, value=0.5),
    "atan2_": lambda x, y: x.atan2_(y),
    "round_decimals_": lambda x, y: x.round_(decimals=1),
    "leaky_relu_": lambda x, y: F.leaky_relu_(x, 0.2),
    "hardtanh_": lambda x, y: F.hardtanh_(x),
    "elu_": lambda x, y: F.elu_(x),
    "gelu_inplace_via_out": lambda x, y: torch._C._nn.gelu(x.clone(), out=x),
    "transposed_add_": lambda x, y: x.t().add_(1).t(),
    "sliced_mul_": lambda x, y: (x[::2, 1:].mul_(3), x)[1],
    "threshold_": lambda x, y: F.threshold_(x, 0.1, 20.0),
    "logit_": lambda x, y: x.sigmoid_().logit_(),
    "hardswish_": lambda x, y: F.hardswish(x, inplace=True),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace(name):
    fn = INPLACE[name]
    x = make("any", torch.float32, (6, 8), seed=31)
    y = make("any", torch.float32, (6, 8), seed=32)
    xd, yd = x.to("ocl"), y.to("ocl")
    ptr = xd.data_ptr()
    r_cpu = fn(x, y)
    r_ocl = fn(xd, yd)
    assert xd.data_ptr() == ptr
    compare(xd, x)
    compare(r_ocl, r_cpu)


def test_inplace_int_and_half():
    for dtype in (torch.int32, torch.uint8, torch.float16, torch.bfloat16):
        x = make("any", dtype, (37,), seed=3)
        y = make("nonzero", dtype, (37,), seed=4)
        for fn in (lambda a, b: a.add_(b), lambda a, b: a.mul_(2), lambda a, b: a.clamp_(0, 20),
                   lambda a, b: a.maximum(b), lambda a, b: a.remainder_(b)):
            a_cpu, a_ocl = x.clone(), x.to("ocl")
            fn(a_cpu, y)
            fn(a_ocl, y.to("ocl"))
            compare(a_ocl, a_cpu)


def test_inplace_promotion_error():
    x = make("any", torch.int32, (5,), seed=1)
    with pytest.raises(RuntimeError) as cpu_err:
        x.clone().add_(1.5 * torch.ones(5))
    assert "can't be cast" in str(cpu_err.value)
    with pytest.raises(RuntimeError, match="can't be cast"):
        x.to("ocl").add_(1.5 * torch.ones(5, device="ocl"))


OUT_CASES = {
    "exp": (lambda x, y, out: torch.exp(x, out=out), torch.float32),
    "add": (lambda x, y, out: torch.add(x, y, alpha=2, out=out), torch.float32),
    "clamp": (lambda x, y, out: torch.clamp(x, -1, 1, out=out), torch.float32),
    "clamp_tensor": (lambda x, y, out: torch.clamp(x, min=y, out=out), torch.float32),
    "maximum": (lambda x, y, out: torch.maximum(x, y, out=out), torch.float32),
    "lt_bool_out": (lambda x, y, out: torch.lt(x, y, out=out), torch.bool),
    "div_mode": (lambda x, y, out: torch.div(x, y, rounding_mode="trunc", out=out), torch.float32),
    "sigmoid_float64_out": (lambda x, y, out: torch.sigmoid(x, out=out), torch.float64),
    "where": (lambda x, y, out: torch.where(x > y, x, y, out=out), torch.float32),
    "lerp": (lambda x, y, out: torch.lerp(x, y, 0.6, out=out), torch.float32),
    "addcdiv": (lambda x, y, out: torch.addcdiv(x, x, y.abs() + 1, out=out), torch.float32),
    "gelu": (lambda x, y, out: torch._C._nn.gelu(x, out=out), torch.float32),
    "silu": (lambda x, y, out: torch._C._nn.silu(x, out=out), torch.float32),
    "nan_to_num": (lambda x, y, out: torch.nan_to_num(x, out=out), torch.float32),
    "logical_and": (lambda x, y, out: torch.logical_and(x, y, out=out), torch.bool),
    "abs_float16_out": (lambda x, y, out: torch.abs(x, out=out), torch.float32),
    "pow_scalar_base": (lambda x, y, out: torch.pow(2.0, x, out=out), torch.float32),
    "round_decimals": (lambda x, y, out: torch.round(x, decimals=1, out=out), torch.float32),
    "xlogy": (lambda x, y, out: torch.xlogy(x, y.abs(), out=out), torch.float32),
}


def _out_check(name, make_out):
    fn, out_dtype = OUT_CASES[name]
    x = make("any", torch.float32, (5, 7), seed=41)
    y = make("any", torch.float32, (5, 7), seed=42)
    # The reference writes into a fresh contiguous CPU tensor: CPU gelu (approximate='none')
    # writes wrong values into a transposed out= (torch 2.13), so CPU views are no reference.
    out_cpu = torch.empty((5, 7), dtype=out_dtype)
    out_ocl = make_out(out_dtype, "ocl")
    if name == "abs_float16_out":
        x = x.half()
    try:
        fn(x, y, out_cpu)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            fn(x.to("ocl"), y.to("ocl"), out_ocl)
        return None, None
    r_ocl = fn(x.to("ocl"), y.to("ocl"), out_ocl)
    assert r_ocl is out_ocl
    compare(out_ocl, out_cpu)
    return out_ocl, out_cpu


@pytest.mark.parametrize("name", list(OUT_CASES))
def test_out_preallocated(name):
    holder = {}

    def make_out(dtype, device):
        t = torch.full((5, 7), 7, dtype=dtype, device=device)
        holder[device] = t.data_ptr()
        return t


    out, _ = _out_check(name, make_out)
    if out is not None:
        assert out.data_ptr() == holder["ocl"]  # written in place, not reallocated


@pytest.mark.parametrize("name", list(OUT_CASES))
def test_out_transposed_view(name):
    bases = {}

    def make_out(dtype, device):
        base = torch.zeros((7, 5), dtype=dtype, device=device)
        bases[device] = base
        return base.t()  # (5, 7), non-contiguous

    out, expected = _out_check(name, make_out)
    if out is not None:
        assert not out.is_contiguous()
        compare(bases["ocl"], expected.t())  # the base holds the transposed result


@pytest.mark.parametrize("name", ["exp", "add", "lt_bool_out", "where"])
def test_out_empty_is_resized(name):
    _out_check(name, lambda dtype, device: torch.empty(0, dtype=dtype, device=device))


def test_out_frexp():
    x = make("any", torch.float32, (37,), seed=2)
    m_cpu, e_cpu = torch.empty_like(x), torch.empty(37, dtype=torch.int32)
    m_ocl, e_ocl = m_cpu.to("ocl"), e_cpu.to("ocl")
    torch.frexp(x, out=(m_cpu, e_cpu))
    torch.frexp(x.to("ocl"), out=(m_ocl, e_ocl))
    compare(m_ocl, m_cpu)
    compare(e_ocl, e_cpu)


def test_out_promotes_to_wider_out_dtype():
    a = make("any", torch.int32, (37,), seed=1)
    b = make("any", torch.int32, (37,), seed=2)
    for out_dtype in (torch.float32, torch.int64, torch.float64):
        out_cpu = torch.empty(37, dtype=out_dtype)
        out_ocl = out_cpu.to("ocl")
        torch.add(a, b, out=out_cpu)
        torch.add(a.to("ocl"), b.to("ocl"), out=out_ocl)
        compare(out_ocl, out_cpu)


# Backward ---------------------------------------------------------------------------------

GRAD_OPS = {
    "exp": (torch.exp, ["small"]),
    "log": (torch.log, ["pos"]),
    "sqrt": (torch.sqrt, ["pos"]),
    "sigmoid": (torch.sigmoid, ["any"]),
    "tanh": (torch.tanh, ["any"]),
    "logit": (torch.logit, ["open01"]),
    "logit_eps": (lambda x: torch.logit(x, eps=0.1), ["wide01"]),
    "pow_scalar": (lambda x: x ** 3, ["any"]),
    "pow_frac": (lambda x: x ** 1.5, ["pos"]),
    "pow_tensor": (torch.pow, ["pos", "pow_exp"]),
    "pow_scalar_base": (lambda x: 2.0 ** x, ["small"]),
    "div": (torch.div, ["any", "nonzero"]),
    "mul_broadcast": (lambda a, b: a * b[:1], ["any", "any"]),
    "add_alpha": (lambda a, b: torch.add(a, b, alpha=-2), ["any", "any"]),
    "atan2": (torch.atan2, ["any", "any"]),
    "hypot": (torch.hypot, ["any", "any"]),
    "lerp_scalar": (lambda a, b: torch.lerp(a, b, 0.3), ["any", "any"]),
    "lerp_scalar_hi": (lambda a, b: torch.lerp(a, b, 0.8), ["any", "any"]),
    "lerp_tensor": (torch.lerp, ["any", "any", "weight"]),
    "addcmul": (lambda a, b, c: torch.addcmul(a, b, c, value=0.5), ["any", "any", "any"]),
    "addcdiv": (lambda a, b, c: torch.addcdiv(a, b, c, value=0.5), ["any", "any", "nonzero"]),
    "where": (lambda a, b: torch.where(a > b, a, b), ["any", "any"]),
    "maximum": (torch.maximum, ["any", "any"]),
    "clamp": (lambda x: torch.clamp(x, -1, 2), ["any"]),
    "clamp_tensor": (lambda x, lo: torch.clamp(x, min=lo), ["any", "any"]),
    "relu": (torch.relu, ["any"]),
    "threshold": (lambda x: F.threshold(x, 0.5, -2.0), ["any"]),
    "hardtanh": (F.hardtanh, ["any"]),
    "relu6": (F.relu6, ["any"]),
    "elu": (F.elu, ["any"]),
    "elu_alpha": (lambda x: F.elu(x, alpha=0.5), ["any"]),
    "selu": (F.selu, ["any"]),
    "celu": (lambda x: F.celu(x, alpha=1.5), ["any"]),
    "silu": (F.silu, ["any"]),
    "mish": (F.mish, ["any"]),
    "softplus": (F.softplus, ["any"]),
    "softplus_beta": (lambda x: F.softplus(x, beta=2.0, threshold=5.0), ["any"]),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), ["any"]),
    "hardswish": (F.hardswish, ["any"]),
    "hardsigmoid": (F.hardsigmoid, ["any"]),
    "logsigmoid": (F.logsigmoid, ["any"]),
    "glu": (F.glu, ["any"]),
    "glu_dim0": (lambda x: F.glu(x, dim=0), ["any"]),
    "softshrink": (lambda x: F.softshrink(x, 0.5), ["any"]),
    "hardshrink": (lambda x: F.hardshrink(x, 0.5), ["any"]),
    "gelu": (F.gelu, ["any"]),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), ["any"]),
    "abs": (torch.abs, ["nonzero"]),
    "erfinv": (torch.erfinv, ["unit"]),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
@pytest.mark.parametrize("name", list(GRAD_OPS))
def test_backward(name, dtype):
    crash_guard(name)
    fn, domains = GRAD_OPS[name]
    cpu_in = [make(d, dtype, (6, 8), seed=51 + i).requires_grad_() for i, d in enumerate(domains)]
    ocl_in = [t.detach().to("ocl").requires_grad_() for t in cpu_in]
    y_cpu = fn(*cpu_in)
    y_ocl = fn(*ocl_in)
    compare(y_ocl.detach(), y_cpu.detach())
    grad = make("any", dtype, tuple(y_cpu.shape), seed=99)
    y_cpu.backward(grad)
    y_ocl.backward(grad.to("ocl"))
    for i, (c, o) in enumerate(zip(cpu_in, ocl_in)):
        assert o.grad is not None, f"no gradient for input {i}"
        assert o.grad.device.type == "ocl"
        assert_close(o.grad.cpu(), c.grad, equal_nan=True, msg=lambda m, i=i: f"grad of input {i}: {m}")


KINKS = {
    "hardswish": (F.hardswish, [-3.0, 3.0]),
    "hardsigmoid": (F.hardsigmoid, [-3.0, 3.0]),
    "hardtanh": (F.hardtanh, [-1.0, 1.0]),
    "relu6": (F.relu6, [0.0, 6.0]),
    "relu": (torch.relu, [0.0]),
    "threshold": (lambda x: F.threshold(x, 0.5, -2.0), [0.5]),
    "softshrink": (lambda x: F.softshrink(x, 0.5), [-0.5, 0.5]),
    "hardshrink": (lambda x: F.hardshrink(x, 0.5), [-0.5, 0.5]),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), [0.0]),
    "elu": (F.elu, [0.0]),
    "clamp": (lambda x: torch.clamp(x, -1, 2), [-1.0, 2.0]),
    "abs": (torch.abs, [0.0]),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=dname)
@pytest.mark.parametrize("name", list(KINKS))
def test_backward_at_kinks(name, dtype):
    """Gradients exactly at an activation's break points follow the CPU's
    choice of side (hardswish'(-3) = 0, hardswish'(3) = 1, ...)."""
    fn, points = KINKS[name]
    c = torch.tensor(points + [p + d for p in points for d in (-0.25, 0.25)], dtype=dtype).requires_grad_()
    o = c.detach().to("ocl").requires_grad_()
    fn(c).backward(torch.ones_like(c))
    fn(o).backward(torch.ones_like(o))
    assert_close(o.grad.cpu(), c.grad)


def test_backward_half_sample():
    for dtype in (torch.float16, torch.bfloat16):
        for fn in (torch.sigmoid, F.gelu, F.silu, torch.tanh):
            c = make("any", dtype, (37,), seed=5).requires_grad_()
            o = c.detach().to("ocl").requires_grad_()
            g = make("any", dtype, (37,), seed=6)
            fn(c).backward(g)
            fn(o).backward(g.to("ocl"))
            assert_close(o.grad.cpu(), c.grad, **HALF_TOL[dtype])


# Errors: the CPU's exception type and message ---------------------------------------------

ERRORS = {
    "bitwise_and_float": (lambda: torch.bitwise_and(torch.ones(3), torch.ones(3)), "not implemented for 'Float'"),
    "pow_int_negative_exponent": (lambda: torch.pow(torch.arange(1, 4, dtype=torch.int32), -1),
                                  "Integers to negative integer powers are not allowed"),
    "pow_int_negative_exponent_int64": (lambda: torch.pow(torch.arange(1, 4), -2),
                                        "Integers to negative integer powers are not allowed"),
    "exp_out_int": (lambda: torch.exp(torch.ones(3), out=torch.empty(3, dtype=torch.int32)),
                    "can't be cast to the desired output type Int"),
    "add_out_int": (lambda: torch.add(torch.ones(3), torch.ones(3), out=torch.empty(3, dtype=torch.int64)),
                    "can't be cast to the desired output type Long"),
    "add_shape_mismatch": (lambda: torch.add(torch.ones(3), torch.ones(4)),
                           "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"),
    "gcd_float": (lambda: torch.gcd(torch.ones(3), torch.ones(3)), "not implemented for 'Float'"),
    "lcm_float": (lambda: torch.lcm(torch.ones(3), torch.ones(3)), "not implemented for 'Float'"),
    "shift_float": (lambda: torch.bitwise_left_shift(torch.ones(3), torch.ones(3)), "not implemented for 'Float'"),
    "bitwise_not_float": (lambda: torch.bitwise_not(torch.ones(3)), "not implemented for 'Float'"),
    "addcdiv_int": (lambda: torch.addcdiv(torch.ones(3, dtype=torch.int32), torch.ones(3, dtype=torch.int32),
                                          torch.ones(3, dtype=torch.int32)),
                    "Integer division with addcdiv is no longer supported"),
    "sub_bool": (lambda: torch.ones(3, dtype=torch.bool) - torch.ones(3, dtype=torch.bool),
                 "Subtraction, the `-` operator, with two bool tensors is not supported"),
    "neg_bool": (lambda: -torch.ones(3, dtype=torch.bool), "Negation, the `-` operator, on a bool tensor"),
    "inplace_broadcast": (lambda: torch.ones(3).add_(torch.ones(2, 3)),
                          "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    "lerp_dtype_mismatch": (lambda: torch.lerp(torch.ones(3), torch.ones(3, dtype=torch.float64), 0.5),
                            "expected dtype float for `end`"),
    "clamp_no_bounds": (lambda: torch.clamp(torch.ones(3)), "At least one of 'min' or 'max' must not be None"),
    "glu_odd": (lambda: F.glu(torch.ones(3, 5)), "Halving dimension must be even"),
    "threshold_uint8_overflow": (lambda: F.threshold(torch.ones(3, dtype=torch.uint8), 0.5, -2.0),
                                 "value cannot be converted to type uint8_t without overflow"),
    "where_cond_not_bool": (lambda: torch.where(torch.ones(3), torch.ones(3), torch.ones(3)),
                            "where expected condition to be a boolean tensor"),
    "div_bad_mode": (lambda: torch.div(torch.ones(3), torch.ones(3), rounding_mode="nearest"),
                     "div expected rounding_mode to be one of None, 'trunc', or 'floor'"),
    "gelu_bad_approx": (lambda: F.gelu(torch.ones(3), approximate="fast"), "approximate argument must be"),
}


def _on_ocl(fn):
    """Run fn with torch.ones/arange/empty returning ocl tensors."""
    import functools

    originals = {n: getattr(torch, n) for n in ("ones", "arange", "empty")}

    def wrap(f):  # made on the CPU, then copied: arange is not an op under test
        @functools.wraps(f)
        def g(*a, **k):
            return f(*a, **k).to("ocl")
        return g

    for n, f in originals.items():
        setattr(torch, n, wrap(f))
    try:
        return fn()
    finally:
        for n, f in originals.items():
            setattr(torch, n, f)


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_cpu(name):
    fn, substring = ERRORS[name]
    with pytest.raises(Exception) as cpu_exc:
        fn()
    assert substring in str(cpu_exc.value), f"CPU message changed: {cpu_exc.value}"
    with pytest.raises(type(cpu_exc.value), match=re.escape(substring)) as ocl_exc:
        _on_ocl(fn)
    assert "no native ocl kernel" not in str(ocl_exc.value)


def test_inplace_shift_operators():
    x = make("any", torch.int32, (37,), seed=4)
    for fn in (lambda t: t.__ilshift__(2), lambda t: t.__irshift__(1), lambda t: t.bitwise_left_shift_(3),
               lambda t: t.bitwise_right_shift_(torch.full_like(t, 2))):
        a_cpu, a_ocl = x.clone(), x.to("ocl")
        fn(a_cpu)
        fn(a_ocl)
        compare(a_ocl, a_cpu)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dname)
def test_logit_eps_rounded_to_dtype(strict, dtype):
    # The CPU clamps to lo = eps and hi = 1 - lo computed in the tensor's dtype:
    # in float16 1 - 1e-4 rounds to 1 (so 1.0 gives inf, not logit(0.9999)).
    x = torch.tensor([0.0, 1e-5, 1e-4, 0.3, 0.9995, 0.9999, 1.0, 0.5, 2.0, -1.0], dtype=dtype)
    for eps in (1e-4, 1e-3, 0.0013, 0.3, None):
        xc = x.clone().requires_grad_()
        xo = x.to("ocl").requires_grad_()
        yc, yo = torch.logit(xc, eps), torch.logit(xo, eps)
        assert_close(yo.detach().cpu(), yc.detach(), equal_nan=True, msg=lambda m: f"eps {eps}: {m}")
        yc.sum().backward()
        yo.sum().backward()
        assert_close(xo.grad.cpu(), xc.grad, equal_nan=True, msg=lambda m: f"eps {eps} backward: {m}")
