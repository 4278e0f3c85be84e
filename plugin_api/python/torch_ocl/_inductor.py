"""torch.compile's default backend (Inductor) on ocl: OpenCL C code generation.

Inductor's scheduler fuses the graph's pointwise and reduction nodes into
kernels (SIMDScheduling, as for Triton and Metal); OclKernel writes each as
one OpenCL C kernel:

- one work item per output element (x index); a reduction loops over its
  reduction range inside the work item (r index), accumulating in float for
  half types (sum as a three-level cascade, prod, max, min, any, argmax,
  argmin, welford for var/mean, xor_sum);
- every tensor is a `(__global char* base, ulong byte offset)` pair, so views
  of any layout are passed as they are and indexed with Inductor's index
  expressions (launch: UserKernel.launch_buffer_offsets);
- float16 loads/stores through vload_half/vstore_half_rte (no cl_khr_fp16
  needed), bfloat16 through the bits, computing in float.

Matrix products, convolutions and whatever Inductor does not generate run
as extern / fallback kernels: torch_ocl's own ocl ops (never the CPU). The
kernels are compiled through torch_ocl's program cache (memory + disk) and
launched on the current ocl stream. TORCH_LOGS=output_code shows them.

Ops the code generator does not handle raise at compile time with the op's
name (an ``ops.<name>`` the OpenCL code cannot express).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import sympy
import torch
from sympy.printing.precedence import PRECEDENCE
from torch._inductor.codegen.common import (
    CSE,
    BackendFeature,
    CSEVariable,
    DeferredLine,
    DeviceOpOverrides,
    IndentedBuffer,
    OpOverrides,
    PythonPrinter,
    register_device_op_overrides,
)
from torch._inductor.codegen.simd import IterationRangesEntry, SIMDKernel, SIMDScheduling
from torch._inductor.codegen.wrapper import PythonWrapperCodegen
from torch._inductor.utils import get_bounds_index_expr
from torch.utils._ordered_set import OrderedSet
from torch._inductor.virtualized import V, ops
from torch.utils._sympy.printers import ExprPrinter as ExprPrinter_

from . import _C

# OpenCL C types of the storage dtypes; half types compute in float.
STORAGE = {
    torch.bool: "uchar", torch.int8: "char", torch.uint8: "uchar", torch.int16: "short",
    torch.int32: "int", torch.int64: "long", torch.float32: "float", torch.float64: "double",
    torch.float16: "ushort", torch.bfloat16: "ushort",
}
COMPUTE = {
    torch.bool: "bool", torch.int8: "char", torch.uint8: "uchar", torch.int16: "short",
    torch.int32: "int", torch.int64: "long", torch.float32: "float", torch.float64: "double",
    torch.float16: "float", torch.bfloat16: "float",
}

# Index helpers of the generated code; kernels/common.cl (prepended, as to
# every torch_ocl program) gives PTR and the bfloat16 conversions.
PRELUDE = r"""
static inline long ocl_floordiv(long a, long b) { long q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q; }
static inline long ocl_mod(long a, long b) { long r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
"""


# Inductor's random ops (dropout, rand_like, ... inside compiled graphs): one
# Philox4x32-10 block (kernels/common.cl) per element, key = the graph's
# seed (inductor_seeds draws one per random node from the ocl generator),
# counter = the element's offset. As on CUDA, the values are Inductor's own
# stream, not eager's (torch._inductor.config.fallback_random = True runs the
# eager ops instead).
RANDOM = r"""
static inline uint4 ocl_philox(long seed, long offset) {
  return philox4x32_10((uint4)((uint)offset, (uint)((ulong)offset >> 32), 0u, 0u),
                       (uint2)((uint)seed, (uint)((ulong)seed >> 32)));
}
// uniform in [0, 1): 24 random bits
static inline float ocl_rand(long seed, long offset) { return (float)(ocl_philox(seed, offset).x >> 8) * 0x1.0p-24f; }
// standard normal: Box-Muller over two uniforms (the first in (0, 1], so log is finite)
static inline float ocl_randn(long seed, long offset) {
  const uint4 r = ocl_philox(seed, offset);
  const float u1 = ((float)(r.x >> 8) + 1.0f) * 0x1.0p-24f, u2 = (float)(r.y >> 8) * 0x1.0p-24f;
  return sqrt(-2.0f * log(u1)) * cospi(2.0f * u2);
}
// uniform integer in [low, high): 64 random bits modulo the range
static inline long ocl_randint64(long seed, long offset, long low, long high) {
  const uint4 r = ocl_philox(seed, offset);
  const ulong x = ((ulong)r.y << 32) | r.x;
  return low + (long)(x % (ulong)(high - low));
}
"""

# store(mode="atomic_add") (index_put accumulate, scatter_add, embedding
# backward): compare-and-swap loops; 2-byte types swap their aligned 32-bit
# word; the first read is atomic too (a plain read races with the swaps).
ATOMIC_ADD = r"""
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
static inline void ocl_atomic_add_float(__global float* p, float v) {
  volatile __global uint* w = (volatile __global uint*)p;
  uint old = atomic_or(w, 0u), assumed;
  do { assumed = old; old = atomic_cmpxchg(w, assumed, as_uint(as_float(assumed) + v)); } while (old != assumed);
}
static inline void ocl_atomic_add_double(__global double* p, double v) {
  volatile __global ulong* w = (volatile __global ulong*)p;
  ulong old = atom_add(w, 0ul), assumed;
  do { assumed = old; old = atom_cmpxchg(w, assumed, as_ulong(as_double(assumed) + v)); } while (old != assumed);
}
static inline void ocl_atomic_add_16(__global ushort* p, float v, int bf16) {
  const ulong addr = (ulong)p;
  volatile __global uint* w = (volatile __global uint*)(addr & ~(ulong)3);
  const uint shift = (uint)(addr & 2) * 8, mask = 0xffffu << shift;
  uint old = atomic_or(w, 0u), assumed;
  do {
    assumed = old;
    const ushort cur = (ushort)(assumed >> shift);
    ushort nb;
    if (bf16) { nb = float_to_bf16(bf16_to_float(cur) + v); }
    else { ushort h; vstore_half_rte(vload_half(0, (const half*)&cur) + v, 0, (half*)&h); nb = h; }
    old = atomic_cmpxchg(w, assumed, (assumed & ~mask) | (((uint)nb << shift) & mask));
  } while (old != assumed);
}
"""


def _prelude(checked: bool, atomics: bool) -> str:
    # report_bad_index of torch_ocl's device-side checks (kernels/device_checks.cl)
    return (_C._kernel_source("common") + PRELUDE + RANDOM + (ATOMIC_ADD if atomics else "")
            + (_C._kernel_source("device_checks") if checked else ""))


def compute_type(dtype: torch.dtype) -> str:
    if dtype not in COMPUTE:
        raise NotImplementedError(f"torch.compile on ocl: dtype {dtype} is not supported by the OpenCL code generator")
    return COMPUTE[dtype]


def literal(val, dtype=None) -> str:
    if isinstance(val, bool):
        return "1" if val else "0"
    if isinstance(val, float):
        double = dtype == torch.float64
        if math.isnan(val):
            return "NAN"
        if math.isinf(val):
            return ("-" if val < 0 else "") + ("INFINITY" if not double else "(double)INFINITY")
        text = repr(val)
        if "e" not in text and "." not in text:
            text += ".0"
        return text if double else text + "f"
    if isinstance(val, int):
        return f"{val}L" if abs(val) > 2**31 - 1 else str(val)
    return str(val)


class OclExprPrinter(ExprPrinter_):
    """Index expressions (sympy) as OpenCL C (long arithmetic)."""

    def _print_FloorDiv(self, expr):
        x, div = (self.doprint(a) for a in expr.args)
        return f"ocl_floordiv({x}, {div})"

    def _print_ModularIndexing(self, expr):
        x, div, mod = expr.args
        x = self.doprint(x)
        if div != 1:
            x = f"ocl_floordiv({x}, {self.doprint(div)})"
        return f"ocl_mod({x}, {self.doprint(mod)})"

    def _print_CleanDiv(self, expr):
        return self._print_FloorDiv(expr)

    def _minmax(self, expr, fn):
        args = [self._print(a) for a in expr.args]
        out = args[0]
        for a in args[1:]:
            out = f"{fn}((long)({out}), (long)({a}))"
        return out

    def _print_Min(self, expr):
        return self._minmax(expr, "min")

    def _print_Max(self, expr):
        return self._minmax(expr, "max")

    def _print_Abs(self, expr):
        # (OpenCL's abs of a signed integer is unsigned: cast back, or the
        # arithmetic around it turns unsigned; reflection pads nest abs)
        return f"((long)abs({self._print(expr.args[0])}))"

    def _print_Where(self, expr):
        c, p, q = (self.parenthesize(a, PRECEDENCE["Atom"] - 0.5) for a in expr.args)
        return f"({c} ? {p} : {q})"

    def _print_ToFloat(self, expr):
        return f"(double)({self.doprint(expr.args[0])})"

    def _print_IntTrueDiv(self, expr):
        a, b = (self.doprint(x) for x in expr.args)
        return f"((double)({a}) / (double)({b}))"

    def _print_FloorToInt(self, expr):
        return f"(long)floor((double)({self.doprint(expr.args[0])}))"

    def _print_CeilToInt(self, expr):
        return f"(long)ceil((double)({self.doprint(expr.args[0])}))"

    def _print_TruncToInt(self, expr):
        return f"(long)trunc((double)({self.doprint(expr.args[0])}))"

    def _print_RoundToInt(self, expr):
        return f"(long)rint((double)({self.doprint(expr.args[0])}))"

    def _print_PowByNatural(self, expr):
        x, y = (self.doprint(a) for a in expr.args)
        return f"(long)pown((double)({x}), (int)({y}))"

    def _print_Float(self, expr):
        return literal(float(expr), torch.float64)

    def _print_Integer(self, expr):
        return literal(int(expr))


_printer = OclExprPrinter()


def _unary(fn):
    return staticmethod(lambda x: f"{fn}({x})")


def _float_or_builtin(x, fn):
    """common.cl's fast float version of `fn` (ocl_erf_f32, ...) for values
    computed in float (float32, half, bfloat16), else the OpenCL builtin."""
    dtype = x.dtype if isinstance(x, CSEVariable) else None
    return f"ocl_{fn}_f32" if dtype in (torch.float32, torch.float16, torch.bfloat16) else fn


def _binary(fn):
    return staticmethod(lambda a, b: f"{fn}({a}, {b})")


def _infix(op):
    return staticmethod(lambda a, b: f"(({a}) {op} ({b}))")


class OclOverrides(OpOverrides):
    """ops.* as OpenCL C expressions (values in their compute types)."""

    @staticmethod
    def to_dtype(x, dtype, src_dtype=None, use_compute_types=True):
        if dtype == torch.bool:
            return f"(({x}) != 0)"
        return f"(({compute_type(dtype)})({x}))"

    @staticmethod
    def to_dtype_bitcast(x, dtype, src_dtype):
        if dtype in (torch.float16, torch.bfloat16) or src_dtype in (torch.float16, torch.bfloat16):
            raise NotImplementedError("torch.compile on ocl: bitcasts of half types")
        return f"as_{compute_type(dtype)}(({compute_type(src_dtype)})({x}))"

    @staticmethod
    def constant(val, dtype):
        return f"(({compute_type(dtype)}){literal(val, dtype)})"

    @staticmethod
    def index_expr(expr, dtype):
        idx = V.kernel.index_to_str(V.kernel.prepare_indexing(expr))
        var = V.kernel.cse.generate(V.kernel.compute, idx, bounds=get_bounds_index_expr(expr), dtype=torch.int64)
        return ops.to_dtype(var, dtype)

    @staticmethod
    def value_expr(expr, dtype):
        return OclOverrides.index_expr(expr, dtype)

    @staticmethod
    def rand(seed, offset):
        return f"ocl_rand({seed}, {offset})"

    @staticmethod
    def randn(seed, offset):
        return f"ocl_randn({seed}, {offset})"

    @staticmethod
    def randint64(seed, offset, low, high):
        return f"ocl_randint64({seed}, {offset}, {low}, {high})"

    @staticmethod
    def masked(mask, body, other):
        scoped = IndentedBuffer()
        with V.kernel.swap_buffers(scoped), scoped.indent():
            rc = body()
        var = V.kernel.cse.newvar(dtype=rc.dtype)
        other_val = literal(other, rc.dtype) if isinstance(other, (bool, int, float)) else str(other)
        V.kernel.compute.writelines([f"{compute_type(rc.dtype)} {var} = {other_val};", f"if ({mask}) {{"])
        with V.kernel.compute.indent():
            V.kernel.compute.splice(scoped)
            V.kernel.compute.writeline(f"{var} = {rc};")
        V.kernel.compute.writeline("}")
        return var

    @staticmethod
    def where(a, b, c):
        return f"(({a}) ? ({b}) : ({c}))"

    @staticmethod
    def maximum(a, b):
        # NaN-propagating, as torch.maximum
        return f"((({a}) != ({a}) || ({a}) > ({b})) ? ({a}) : ({b}))"

    @staticmethod
    def minimum(a, b):
        return f"((({a}) != ({a}) || ({a}) < ({b})) ? ({a}) : ({b}))"

    @staticmethod
    def logical_xor(a, b):
        return f"((({a}) != 0) != (({b}) != 0))"

    @staticmethod
    def isnan(x):
        return f"isnan({x})"

    @staticmethod
    def isinf(x):
        return f"isinf({x})"

    @staticmethod
    def signbit(x):
        return f"(signbit({x}) != 0)"

    @staticmethod
    def abs(x):
        if _is_float(x):
            return f"fabs({x})"
        t = compute_type(x.dtype) if isinstance(x, CSEVariable) and x.dtype is not None else "long"
        return f"(({t})abs({x}))"  # (OpenCL's integer abs is unsigned)

    @staticmethod
    def neg(x):
        return f"(-({x}))"

    @staticmethod
    def sign(x):
        return f"((({x}) > 0) - (({x}) < 0))"

    @staticmethod
    def relu(x):
        return f"((({x}) != ({x}) || ({x}) > 0) ? ({x}) : 0)"

    @staticmethod
    def sigmoid(x):
        return f"(1 / (1 + exp(-({x}))))"

    @staticmethod
    def floordiv(a, b):
        return f"ocl_floordiv({a}, {b})"

    @staticmethod
    def truncdiv(a, b):
        return f"(({a}) / ({b}))"

    @staticmethod
    def remainder(a, b):
        if _is_float(a) or _is_float(b):
            return f"(({a}) - floor(({a}) / ({b})) * ({b}))"
        return f"ocl_mod({a}, {b})"

    # (the bitwise ops, logical_not, mod, square and reciprocal: OpOverrides'
    # own C-syntax versions)
    logical_and = _infix("&&")
    logical_or = _infix("||")
    fmod = _binary("fmod")
    pow = _binary("pow")
    atan2 = _binary("atan2")
    hypot = _binary("hypot")
    copysign = _binary("copysign")
    nextafter = _binary("nextafter")
    exp = _unary("exp")
    exp2 = _unary("exp2")
    expm1 = _unary("expm1")
    log = _unary("log")
    log2 = _unary("log2")
    log10 = _unary("log10")
    log1p = _unary("log1p")
    sqrt = _unary("sqrt")
    rsqrt = _unary("rsqrt")
    sin = _unary("sin")
    cos = _unary("cos")
    tan = _unary("tan")
    asin = _unary("asin")
    acos = _unary("acos")
    atan = _unary("atan")
    sinh = _unary("sinh")
    cosh = _unary("cosh")
    tanh = _unary("tanh")
    asinh = _unary("asinh")
    acosh = _unary("acosh")
    atanh = _unary("atanh")
    erf = staticmethod(lambda x: f"{_float_or_builtin(x, 'erf')}({x})")
    erfc = staticmethod(lambda x: f"{_float_or_builtin(x, 'erfc')}({x})")
    lgamma = _unary("lgamma")
    floor = _unary("floor")
    ceil = _unary("ceil")
    trunc = _unary("trunc")
    round = _unary("rint")
    fma = staticmethod(lambda a, b, c: f"fma({a}, {b}, {c})")  # prims.fma (addcmul / lerp decompositions)
    mul_rn = _infix("*")  # round-to-nearest product: OpenCL's * already is
    libdevice_exp = exp
    libdevice_sqrt = sqrt
    libdevice_abs = _unary("fabs")


def _is_float(x) -> bool:
    return isinstance(x, CSEVariable) and x.dtype is not None and x.dtype.is_floating_point


class OclCSE(CSE):
    """CSE whose new variables are declared with their OpenCL C type (C has no `auto`)."""

    def generate(self, buffer, expr, *, dtype=None, **kwargs):
        if dtype is None and isinstance(expr, CSEVariable):
            dtype = expr.dtype
        self.prefix = f"{compute_type(dtype)} " if dtype is not None else "long "
        return super().generate(buffer, expr, dtype=dtype, **kwargs)

    def clone(self):
        new = super().clone()
        new.__class__ = OclCSE
        return new


# Reduction identities and steps (accumulator `acc`, value `v`), in the compute type.
def _identity(reduction_type, dtype):
    t = compute_type(dtype)
    if reduction_type in ("sum", "xor_sum", "any"):
        return f"({t})0"
    if reduction_type == "prod":
        return f"({t})1"
    if reduction_type in ("max", "argmax"):
        return "-INFINITY" if dtype.is_floating_point else ("0" if dtype == torch.bool else f"({t})LONG_MIN" if t == "long" else f"({t})(-(1L << (8 * sizeof({t}) - 1)))")
    if reduction_type in ("min", "argmin"):
        return "INFINITY" if dtype.is_floating_point else ("1" if dtype == torch.bool else f"({t})LONG_MAX" if t == "long" else f"({t})((1L << (8 * sizeof({t}) - 1)) - 1)")
    raise NotImplementedError(f"torch.compile on ocl: reduction {reduction_type}")


class OclKernel(SIMDKernel):
    overrides = OclOverrides  # type: ignore[assignment]
    suffix = ";"
    newvar_prefix = "long "
    pexpr = PythonPrinter().doprint
    sexpr = _printer.doprint
    kexpr = sexpr

    def __init__(self, tiling, **kwargs):
        # Reductions always loop inside the work item: a reduction result used
        # in the reduction range again (softmax) closes the loop and opens the
        # next one (disable_reduction flushes only looped reductions).
        kwargs["override_persistent_reduction"] = False
        super().__init__(tiling, **kwargs)
        self.cse = OclCSE(self.newvar_prefix, self.suffix)
        self.outside_loop_vars: set = set()
        self.checked = False  # an indirect index is bounds-checked on the device
        self.atomics = False  # a store(mode="atomic_add")
        self.acc_ids = itertools.count()
        self.reduction_prologue = IndentedBuffer()   # accumulators, before the loop
        self.reduction_loop_open = False
        self.post_reduction = IndentedBuffer()       # finishing each accumulator after the loop
        self.scan_cache: dict = {}

    # -- indexing (always in long) ---------------------------------------------
    def dtype_to_str(self, dtype: torch.dtype) -> str:
        return compute_type(dtype)

    def get_index_dtype_as_torch_dtype(self) -> torch.dtype:
        return torch.int64

    def index_to_str(self, index):
        return self.sexpr(self.rename_indexing(index))

    def codegen_iteration_ranges_entry(self, entry: IterationRangesEntry) -> None:
        index_str = self.sexpr(self.rename_indexing(entry.expr))
        if entry.is_reduction:
            self._open_reduction_loop(entry.root)
            self.body.writeline(f"long {entry.name} = {index_str.replace(entry.root.name, entry.root.name + '_i')};")
        else:
            self.indexing_code.writeline(f"long {entry.name} = {index_str};")

    def _open_reduction_loop(self, tree):
        if self.reduction_loop_open:
            return
        self.reduction_loop_open = True
        numel = self.sexpr(self.rename_indexing(tree.numel))
        root = tree.name
        self.body.writeline(f"for (long {root}_i = 0; {root}_i < {numel}; ++{root}_i) {{")
        self.body.do_indent()

    def check_bounds(self, expr, size, lower, upper) -> None:
        if not (lower or upper):
            return
        self.checked = True
        e, n = self.index_to_str(expr), self.index_to_str(size)
        cond = " || ".join(([f"({e}) < 0"] if lower else []) + ([f"({e}) >= ({n})"] if upper else []))
        # the error the next synchronisation raises (IndexError), as CUDA's device assert
        self.compute.writeline(f"if ({cond}) {{ report_bad_index(ocl_flag, ocl_check, {e}, 0, {n}); return; }}")

    # -- memory -----------------------------------------------------------------
    def load(self, name: str, index: sympy.Expr):
        var = self.args.input(name)
        index = self.prepare_indexing(index)
        dtype = V.graph.get_dtype(name)
        at = f"PTR({STORAGE[dtype]}, {var}, {var}_off)[{self.index_to_str(index)}]"
        if dtype == torch.float16:
            line = f"vload_half({self.index_to_str(index)}, PTR(half, {var}, {var}_off))"
        elif dtype == torch.bfloat16:
            line = f"bf16_to_float({at})"
        elif dtype == torch.bool:
            line = f"({at} != 0)"
        else:
            line = at
        if dtype not in STORAGE:
            raise NotImplementedError(f"torch.compile on ocl: loads of {dtype}")
        var = self.cse.generate(self.loads, line, dtype=dtype)
        if not self.inside_reduction:  # (a load in a loop is declared in the loop)
            self.outside_loop_vars.add(var)
        return var

    def _store_line(self, name, index, value):
        var = self.args.output(name)
        index = self.prepare_indexing(index)
        dtype = V.graph.get_dtype(name)
        i = self.index_to_str(index)
        if dtype == torch.float16:
            return f"vstore_half_rte((float)({value}), {i}, PTR(half, {var}, {var}_off));"
        if dtype == torch.bfloat16:
            return f"PTR(ushort, {var}, {var}_off)[{i}] = float_to_bf16((float)({value}));"
        if dtype not in STORAGE:
            raise NotImplementedError(f"torch.compile on ocl: stores of {dtype}")
        return f"PTR({STORAGE[dtype]}, {var}, {var}_off)[{i}] = ({STORAGE[dtype]})({value});"

    def _atomic_add_line(self, name, index, value):
        var = self.args.output(name)
        i = self.index_to_str(self.prepare_indexing(index))
        dtype = V.graph.get_dtype(name)
        self.atomics = True
        if dtype == torch.float32:
            return f"ocl_atomic_add_float(PTR(float, {var}, {var}_off) + ({i}), (float)({value}));"
        if dtype == torch.float64:
            return f"ocl_atomic_add_double(PTR(double, {var}, {var}_off) + ({i}), (double)({value}));"
        if dtype == torch.int32:
            return f"atomic_add(PTR(int, {var}, {var}_off) + ({i}), (int)({value}));"
        if dtype in (torch.float16, torch.bfloat16):
            bf16 = int(dtype == torch.bfloat16)
            return f"ocl_atomic_add_16(PTR(ushort, {var}, {var}_off) + ({i}), (float)({value}), {bf16});"
        raise NotImplementedError(f"torch.compile on ocl: atomic_add stores of {dtype}")

    def store(self, name, index, value, mode=None):
        if mode == "atomic_add":
            line = self._atomic_add_line(name, index, value)
        elif mode is not None:
            raise NotImplementedError(f"torch.compile on ocl: store mode {mode}")
        else:
            line = self._store_line(name, index, value)
        (self.compute if self.inside_reduction else self.stores).writeline(DeferredLine(name, line))

    def store_reduction(self, name, index, value):
        self.post_reduction.writeline(DeferredLine(name, self._store_line(name, index, value)))

    # -- reductions ---------------------------------------------------------------
    def _acc(self, ctype, init):
        name = f"acc{next(self.acc_ids)}"
        self.reduction_prologue.writeline(f"{ctype} {name} = {init};")
        return name

    def reduction(self, dtype, src_dtype, reduction_type, value):
        assert self.inside_reduction
        key = (src_dtype, reduction_type, value)
        if key in self.cse.reduction_cache:
            return self.cse.reduction_cache[key]
        # The loop opens with the first reduction-index expression; a reduction of a
        # value that reads none (a constant: the sum of ones, the zero gradient of
        # a rounding) must still run once per reduced element.
        self._open_reduction_loop(next(t for t in self.range_trees if t.is_reduction))
        result = self._reduction(dtype, src_dtype, reduction_type, value)
        self.cse.reduction_cache[key] = result
        return result

    def _reduction(self, dtype, src_dtype, reduction_type, value):
        acc_dtype = torch.float32 if src_dtype in (torch.float16, torch.bfloat16) else src_dtype
        t = compute_type(acc_dtype)
        if reduction_type == "welford_reduce":
            mean, m2, n = (self._acc(t, "0"), self._acc(t, "0"), self._acc(t, "0"))
            self.compute.writelines([
                f"{n} += 1;",
                f"{{ {t} d = ({value}) - {mean}; {mean} += d / {n}; {m2} += d * (({value}) - {mean}); }}",
            ])
            return tuple(self._result(v, acc_dtype) for v in (mean, m2, n))
        if reduction_type in ("argmax", "argmin"):
            best = self._acc(t, _identity(reduction_type, src_dtype))
            idx = self._acc("long", "0")
            first = self._acc("int", "1")
            cmp = ">" if reduction_type == "argmax" else "<"
            root = next(t_ for t_ in self.range_trees if t_.is_reduction).name
            nan = f"(({value}) != ({value}) && {best} == {best})" if src_dtype.is_floating_point else "0"
            self.compute.writeline(
                f"if ({first} || {nan} || (({best} == {best}) && ({value}) {cmp} {best})) "
                f"{{ {best} = {value}; {idx} = {root}_i; {first} = 0; }}")
            return self._result(idx, torch.int64)
        if reduction_type == "sum" and acc_dtype.is_floating_point:
            # a three-level cascade (blocks of 64, then of 64 blocks, folded
            # into the total): the error grows like the CPU's cascade sum, not
            # with the row length (DESIGN.md decision 15)
            acc, mid, blk = self._acc(t, "0"), self._acc(t, "0"), self._acc(t, "0")
            i = next(t_ for t_ in self.range_trees if t_.is_reduction).name + "_i"
            self.compute.writeline(
                f"{blk} += {value}; if (({i} & 63) == 63) {{ {mid} += {blk}; {blk} = 0; "
                f"if (({i} & 4095) == 4095) {{ {acc} += {mid}; {mid} = 0; }} }}")
            self.post_reduction.writeline(f"{acc} += {mid} + {blk};")
            return self._result(acc, dtype)
        acc = self._acc(t, _identity(reduction_type, src_dtype))
        step = {
            "sum": f"{acc} += {value};",
            "prod": f"{acc} *= {value};",
            "xor_sum": f"{acc} ^= {value};",
            "any": f"{acc} = {acc} || ({value});",
            "max": f"if (({value}) != ({value}) || ({value}) > {acc}) {acc} = {value};" if src_dtype.is_floating_point
                   else f"{acc} = max({acc}, ({t})({value}));",
            "min": f"if (({value}) != ({value}) || ({value}) < {acc}) {acc} = {value};" if src_dtype.is_floating_point
                   else f"{acc} = min({acc}, ({t})({value}));",
        }.get(reduction_type)
        if step is None:
            raise NotImplementedError(f"torch.compile on ocl: reduction {reduction_type}")
        if reduction_type in ("max", "min") and src_dtype.is_floating_point:
            # NaN sticks: once acc is NaN, no comparison replaces it
            step = f"if ({acc} == {acc}) {{ {step} }}"
        self.compute.writeline(step)
        return self._result(acc, dtype)

    def scan(self, dtypes, combine_fn, values):
        """A scan along the reduction range: the work item walks its row in
        order (the reduction loop), carrying one accumulator per value; the
        first element initialises it (combine functions have no identity:
        logcumsumexp's, cummax's (value, index) pairs). The scanned values are
        used and stored inside the loop."""
        assert self.inside_reduction
        key = (tuple(dtypes), combine_fn, tuple(str(v) for v in values))
        if key in self.scan_cache:  # cummax's values and indices: one scan, two outputs
            return self.scan_cache[key]
        self._open_reduction_loop(next(t for t in self.range_trees if t.is_reduction))
        wide = [self._scan_carry_dtype(d) for d in dtypes]
        carries = [self._acc(compute_type(w), "0") for w in wide]
        first = self._acc("int", "1")
        carry_vars = tuple(self.cse.namedvar(c, dtype=w) for c, w in zip(carries, wide))
        combined = combine_fn(carry_vars, tuple(values))
        self.compute.writelines([f"{c} = {first} ? ({compute_type(w)})({v}) : ({r});"
                                 for c, w, v, r in zip(carries, wide, values, combined)] + [f"{first} = 0;"])
        results = tuple(self.cse.generate(self.compute, f"({compute_type(d)})({c})", dtype=d)
                        for d, c in zip(dtypes, carries))
        self.scan_cache[key] = results
        return results

    @staticmethod
    def _scan_carry_dtype(dtype):
        # The CPU's scans carry float32 in double and half types in float
        # (at::acc_type): a float32 carry drifts with the row length (a 20000-
        # element cumsum 45x further from float64 than the CPU's).
        if dtype == torch.float32 and torch.ocl.get_device_properties(torch.ocl.current_device()).fp64:
            return torch.float64
        return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype

    def _result(self, acc, dtype):
        var = self.cse.newvar(dtype=dtype)
        self.post_reduction.writeline(f"{compute_type(dtype)} {var} = {acc};")
        self.outside_loop_vars.add(var)
        return var

    # -- assembling ----------------------------------------------------------------
    def codegen_body(self) -> None:
        if self.reduction_loop_open:
            self.body.splice(self.loads)
            self.body.splice(self.compute)
            self.body.do_unindent()
            self.body.writeline("}")
            self.reduction_loop_open = False
            self.body.splice(self.post_reduction)
            self.post_reduction.clear()
            # What the loop computed is gone after it: the next loop reloads.
            self.cse.invalidate(self.outside_loop_vars)
            for tree in self.range_trees:
                if tree.is_loop:
                    tree.cache_clear()
        else:
            self.body.splice(self.loads)
            self.body.splice(self.compute)
        self.body.splice(self.stores)
        self.loads.clear()
        self.compute.clear()
        self.stores.clear()

    def codegen_kernel(self, name=None) -> str:
        self.codegen_body()
        code = IndentedBuffer()
        xtree = [t for t in self.active_range_trees() if not t.is_reduction]
        # (before the parameters: a symbolic size renamed here becomes one of them)
        xnumel = self.sexpr(self.rename_indexing(xtree[0].numel)) if xtree else None
        params = []
        for outer, inner in self.args.output_buffers.items():
            if outer not in self.removed_buffers:
                params.append(f"__global char* {inner}, ulong {inner}_off")
        for outer, inner in self.args.input_buffers.items():
            params.append(f"__global char* {inner}, ulong {inner}_off")
        for inner in self.args.sizevars.values():
            params.append(f"long {inner}")
        for tree in self.active_range_trees():
            if not isinstance(tree.numel, (int, sympy.Integer)):
                params.append(f"long {tree.prefix}numel")
        if self.checked:
            params += ["__global int* ocl_flag", "int ocl_check"]
        code.writeline(f"__kernel void KERNEL_NAME({', '.join(params)}) {{")
        with code.indent():
            block = self.elements_per_item()
            if xtree and block > 1:
                # a block of elements per work item, as the eager engine on CPU
                # devices: whole blocks loop a constant count (PoCL unrolls and
                # vectorises it: an inlined polynomial such as erf's runs in
                # SIMD lanes), the last block's tail does not
                x = xtree[0]
                numel = xnumel
                code.writeline(f"const long xbase_ = get_global_id(0) * {block};")
                code.writeline(f"if (xbase_ + {block} <= {numel}) {{")
                with code.indent():
                    code.writeline(f"for (int xj_ = 0; xj_ < {block}; ++xj_) {{")
                    with code.indent():
                        code.writeline(f"const long {x.name} = xbase_ + xj_;")
                        self._splice_body(code)
                    code.writeline("}")
                code.writeline("} else {")
                with code.indent():
                    code.writeline(f"for (long {x.name} = xbase_; {x.name} < {numel}; ++{x.name}) {{")
                    with code.indent():
                        self._splice_body(code)
                    code.writeline("}")
                code.writeline("}")
            else:
                if xtree:
                    x = xtree[0]
                    code.writeline(f"const long {x.name} = get_global_id(0);")
                    code.writeline(f"if ({x.name} >= {xnumel}) return;")
                self._splice_body(code)
        code.writeline("}")
        return code.getvalue()

    def _splice_body(self, code):
        code.splice(self.reduction_prologue)
        code.splice(self.indexing_code)
        code.splice(self.body)

    def elements_per_item(self) -> int:
        # Pointwise kernels on CPU-class devices (the device profile's
        # pointwise block, 16 in the eager engine) take a block of elements
        # per work item; reductions and GPUs one.
        if any(t.is_reduction for t in self.active_range_trees()):
            return 1
        return 16 if torch.ocl.get_device_properties(torch.ocl.current_device()).profile == "cpu" else 1

    def call_kernel(self, name: str, node: Any = None, deallocate_ws: bool = True) -> None:
        wrapper = V.graph.wrapper_code
        for v in self.args.sizevars:
            wrapper.ensure_size_computed(v)
        args = [a for a in self.args.output_buffers.keys() if a not in self.removed_buffers]
        args += list(self.args.input_buffers.keys())
        args += [str(v) for v in self.args.sizevars]
        for tree in self.active_range_trees():
            if not isinstance(tree.numel, (int, sympy.Integer)):
                args.append(self.pexpr(tree.numel))
        xtree = [t for t in self.active_range_trees() if not t.is_reduction]
        size = self.pexpr(xtree[0].numel) if xtree else "1"
        outputs = len([a for a in self.args.output_buffers.keys() if a not in self.removed_buffers])
        checked = ", checked=True" if self.checked else ""
        block = self.elements_per_item()
        if block > 1:
            size = f"-(-({size}) // {block})"  # work items: ceil(size / block)
        wrapper.writeline(f"{name}.run({size}, [{', '.join(args)}]{checked}, outputs={outputs})")


class OclScheduling(SIMDScheduling):
    kernel_type = OclKernel  # type: ignore[assignment]

    def __init__(self, scheduler) -> None:
        super().__init__(scheduler)

    @classmethod
    def get_tiling_and_scores(cls, node_schedule, numel, reduction_numel=sympy.S.One, coalesce_analysis=None):
        # One work item per output element (x), one reduction loop (r0_): no 2-d tiles.
        return cls.create_tiling([numel], [reduction_numel]), None

    def define_kernel(self, src_code, node_schedule, kernel):
        wrapper = V.graph.wrapper_code
        if src_code in wrapper.src_to_kernel:
            return wrapper.src_to_kernel[src_code]
        name = f"ocl_kernel_{wrapper.next_kernel_suffix()}"
        wrapper.src_to_kernel[src_code] = name
        source = _prelude(kernel.checked, kernel.atomics) + src_code.replace("KERNEL_NAME", name)
        if "double" in src_code:  # (OpenCL C 1.2 compilers want the extension enabled)
            source = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + source
        wrapper.header.writeline(f"{name} = torch_ocl._inductor.GeneratedKernel({name!r}, '''")
        for line in source.splitlines():
            wrapper.header.writeline(line)
        wrapper.header.writeline("''')")
        return name

    def codegen_sync(self):
        pass

    @classmethod
    def get_backend_features(cls, device):
        # Scans (cumsum, cumprod, logcumsumexp; cummax and cummin as tuple
        # scans) are generated on CPU devices: OclKernel.scan walks each row in
        # one work item, as the eager kernels do there. On GPUs a few long rows
        # need the eager work-group scan: Inductor calls it (a fallback kernel).
        index = device.index if device.index is not None else torch.ocl.current_device()
        if torch.ocl.get_device_properties(index).profile != "cpu":
            return OrderedSet()
        return OrderedSet([BackendFeature.SCAN, BackendFeature.TUPLE_REDUCTION])


_launches = 0


def generated_launches() -> int:
    """How many generated kernels this process has launched (the compile
    sweep tells a compiled graph that generated code from one that only
    called extern kernels)."""
    return _launches


class GeneratedKernel:
    """A compiled Inductor kernel: run(global size, [tensors and ints])."""

    def __init__(self, name: str, source: str):
        self.name, self.source = name, source
        self._kernel = _C.UserKernel(source, name)

    def run(self, size, args, checked=False, outputs=0):
        # Ints are int64 sizes, a CPU input tensor is copied in (C++: one call per launch)
        global _launches
        _launches += 1
        self._kernel.launch_generated(int(size), args, checked, outputs)


class OclWrapperCodegen(PythonWrapperCodegen):
    @staticmethod
    def create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures=None):
        if is_subgraph:
            from torch._inductor.codegen.wrapper import SubgraphPythonWrapperCodegen

            return SubgraphPythonWrapperCodegen(subgraph_name, parent_wrapper, partition_signatures)
        return OclWrapperCodegen()

    def write_header(self) -> None:
        super().write_header()
        self.imports.writeline("import torch_ocl")
        self.imports.writeline("import torch_ocl._inductor")


class OclDeviceOpOverrides(DeviceOpOverrides):
    def import_get_raw_stream_as(self, name: str) -> str:
        return f"def {name}(idx): return 0"

    def set_device(self, device_idx: int) -> str:
        return f"torch.ocl.set_device({device_idx})"

    def synchronize(self) -> str:
        return "torch.ocl.synchronize()"

    def device_guard(self, device_idx: int) -> str:
        return f"torch.ocl.device({device_idx})"


_overrides_registered = False


def register_device_op_overrides_once() -> None:
    global _overrides_registered
    if not _overrides_registered:
        register_device_op_overrides("ocl", OclDeviceOpOverrides())
        _overrides_registered = True
