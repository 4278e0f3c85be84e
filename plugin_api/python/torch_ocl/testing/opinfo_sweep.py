"""The OpInfo sweep: every OpInfo of PyTorch's ``op_db``, run on ``ocl`` and
compared with the CPU, classified per (op, dtype).

``check_op(op, dtype)`` runs an OpInfo's sample inputs (generated on the CPU)
once on the CPU and once on the device, with the same inputs (same values,
sizes, strides and storage offsets), and compares outputs and, for
differentiable floating dtypes, input gradients. The status comes from what
happened, not from a list:

- ``native``   every sample matched and no op ran through the CPU fallback
- ``fallback`` every sample matched, some aten ops ran on the CPU (named)
- ``wrong``    a result or gradient differs from the CPU's
- ``error``    the device raised where the CPU did not
- ``crash``    the process died or hung (only the isolated driver,
               ``torch_ocl.testing.sweep_driver``, can see this)

Ops whose output is random (found by running the CPU twice with different
seeds) are compared by shape, dtype and statistics; ops that return
uninitialised memory (``empty*``) by shape and dtype only.
"""

from __future__ import annotations

import dataclasses
import math
import time
import traceback
import warnings

import torch_ocl  # noqa: F401  (registers the device before torch.testing._internal)

import torch
from torch.utils._pytree import tree_flatten, tree_leaves, tree_map, tree_unflatten
from torch.utils._python_dispatch import TorchDispatchMode

from torch_ocl.testing import seed as seed_generators

STATUSES = ("native", "fallback", "wrong", "error", "crash")
PASSING = ("native", "fallback")

ALL_SWEEP_DTYPES = (
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.int64,
    torch.int32,
    torch.uint8,
    torch.bool,
)

# rtol, atol used to compare a device result with the CPU's, per dtype. The
# half types allow about two units in the last place (2^-9, 2^-6).
TOLERANCES = {
    torch.float32: (1e-5, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.float16: (2e-3, 1e-3),
    torch.bfloat16: (1.6e-2, 1e-2),
    torch.complex64: (1e-5, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}

FLOATING = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

# Ops that return uninitialised memory: only metadata is comparable.
UNINITIALISED_OUTPUT_OPS = {
    "empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided",
}


def _acc_dtype(dtype: torch.dtype) -> torch.dtype:
    """CUDA's accumulation type of a floating dtype (float32 for the half types)."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def cuda_batch_norm_stats(outputs, input, running_mean, running_var, eps):
    """The CPU's batch norm outputs with the saved mean / invstd as CUDA saves
    them: in the accumulation type, and in evaluation the running mean and
    1 / sqrt(running_var + eps) (the CPU saves [0] tensors)."""
    out, mean, invstd = outputs[:3]
    acc = _acc_dtype(input.dtype)
    if mean.numel() == 0 and input.shape[1] != 0:
        mean, invstd = running_mean.to(acc), (running_var.to(acc) + eps).rsqrt()
    return (out, mean.to(acc), invstd.to(acc), *outputs[3:])


def _saved_batch_norm_stats(sample, outputs):
    """cuda_batch_norm_stats for an OpInfo sample (input, weight, bias,
    running_mean, running_var, ..., eps)."""
    return cuda_batch_norm_stats(outputs, sample.input, sample.args[2], sample.args[3], sample.args[-1])


# Ops whose CUDA outputs differ from the CPU's in dtype or shape; ocl gives
# CUDA's (the meta functions and decompositions for non-CPU devices agree):
# {op name: fn(cpu sample, CPU outputs) -> the CPU's outputs in CUDA's form}.
CUDA_OUTPUT_FORMS = {
    # mean and rstd in the accumulation type (the CPU: the parameters' type)
    "native_layer_norm": lambda sample, o: (o[0], o[1].to(_acc_dtype(sample.input.dtype)),
                                            o[2].to(_acc_dtype(sample.input.dtype))),
    "native_batch_norm": _saved_batch_norm_stats,
    "_native_batch_norm_legit": _saved_batch_norm_stats,
    "_batch_norm_with_update": _saved_batch_norm_stats,
}


# Ops with an index output that names one of several equal elements: which
# one the CPU names depends on its unstable algorithm (std::sort,
# nth_element), so the device's indices are accepted when they select
# exactly the values the CPU's indices select (see tie_equivalent).
# Their gradients (and msort's) flow to the chosen elements, so they are
# compared only for inputs without equal elements.
TIE_INDEX_OPS = {"sort", "argsort", "msort", "topk", "kthvalue", "mode"}


def sweep_dtypes(device: str = "ocl") -> tuple:
    """The dtypes the sweep covers on `device`: float64 only where it has fp64."""
    has_fp64 = torch.ocl.get_device_properties(device).fp64
    return tuple(d for d in ALL_SWEEP_DTYPES if d is not torch.float64 or has_fp64)


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


@dataclasses.dataclass
class Result:
    op: str
    dtype: str
    status: str
    samples: int = 0           # samples compared
    cpu_rejected: int = 0      # samples the CPU itself raised on (the device must raise too)
    backward: bool = False     # gradients were compared
    fallback_ops: list = dataclasses.field(default_factory=list)
    detail: str = ""
    seconds: float = 0.0

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


class SampleFailure(Exception):
    def __init__(self, status: str, detail: str):
        super().__init__(detail)
        self.status = status
        self.detail = detail


def op_db_by_name() -> dict:
    from torch.testing._internal.common_methods_invocations import op_db

    return {op.full_name: op for op in op_db}


def op_dtypes(op, device: str = "ocl") -> list:
    """The sweep dtypes the OpInfo declares for the CPU, in sweep order."""
    supported = op.supported_dtypes("cpu")
    return [d for d in sweep_dtypes(device) if d in supported]


# ---------------------------------------------------------------------------
# moving samples to the device with their exact layout


def copy_like(t: torch.Tensor, device) -> torch.Tensor:
    """A copy of `t` on `device` with the same sizes, strides and storage
    offset (non-contiguous, overlapping and offset views stay such) and the
    same requires_grad, as a leaf. Conjugate and negative views stay such
    (the storage copy below would drop their bits)."""
    with torch.no_grad():
        if t.is_conj():
            return copy_like(t.conj(), device).conj().detach().requires_grad_(t.requires_grad)
        if t.is_neg():
            return copy_like(t._neg_view(), device)._neg_view().detach().requires_grad_(t.requires_grad)
        if t.layout != torch.strided:
            return t.detach().to(device, copy=True).requires_grad_(t.requires_grad)
        storage_elems = t.untyped_storage().nbytes() // t.element_size()
        flat = torch.empty(0, dtype=t.dtype, device=t.device)
        flat.set_(t.untyped_storage(), 0, (storage_elems,), (1,))
        out = flat.to(device, copy=True).as_strided(t.size(), t.stride(), t.storage_offset())
    return out.detach().requires_grad_(t.requires_grad)


def leaf_copy(t: torch.Tensor) -> torch.Tensor:
    return t.detach().requires_grad_(t.requires_grad)


def clone_leaf(t: torch.Tensor) -> torch.Tensor:
    """A leaf with its own copy of the values (same strides)."""
    with torch.no_grad():
        return copy_like(t, t.device)


def transform_sample(sample, fn):
    return sample.transform(lambda t: fn(t) if isinstance(t, torch.Tensor) else t)


def grad_inputs(sample) -> list:
    leaves, _ = tree_flatten((sample.input, sample.args, sample.kwargs))
    return [t for t in leaves if isinstance(t, torch.Tensor) and t.requires_grad]


# ---------------------------------------------------------------------------
# comparison


def _first_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def _flat_tensors(value) -> list:
    leaves, _ = tree_flatten(value)
    return leaves


def no_worse_than_cpu(actual: torch.Tensor, expected: torch.Tensor, exact: torch.Tensor,
                      rtol: float, atol: float) -> bool:
    """Against the float64 result: the device's worst error is at most twice
    the CPU's worst error plus the tolerance scaled by the tensor's largest
    magnitude (rounding errors scale with the operands, not each element)."""
    a, e, x = actual.double(), expected.double(), exact.double()
    finite = x.isfinite()
    if not torch.equal(a.isnan(), e.isnan()) or not torch.equal(a[~finite], e[~finite]):
        return False
    a, e, x = a[finite], e[finite], x[finite]
    if x.numel() == 0:
        return True
    device_err, cpu_err = (a - x).abs().max().item(), (e - x).abs().max().item()
    return device_err <= 2 * cpu_err + atol + rtol * x.abs().max().item()


def matches_stepwise(actual: torch.Tensor, expected: torch.Tensor, i: int, stepwise,
                     rtol: float, atol: float) -> bool:
    """True when `actual` matches output `i` of `stepwise()` (a half-type
    result evaluated with every aten op correctly rounded) within the
    tolerance."""
    if stepwise is None or expected.dtype not in HALF_TYPES:
        return False
    leaves = stepwise()
    r = leaves[i] if leaves and i < len(leaves) else None
    if not (isinstance(r, torch.Tensor) and r.shape == expected.shape and r.dtype == expected.dtype):
        return False
    try:
        torch.testing.assert_close(actual, r.detach().cpu(), rtol=rtol, atol=atol, equal_nan=True,
                                   check_device=False, check_stride=False)
    except AssertionError:
        return False
    return True


def compare(actual, expected, dtype, what: str, metadata_only: bool = False, exact=None,
            stepwise=None) -> None:
    """Raise SampleFailure('wrong') unless the device outputs match the CPU's.

    Floating results that differ from the CPU's beyond the tolerance are
    accepted when `exact()` (the op on the CPU with floating inputs upcast to
    float64) shows the device is no less accurate than the CPU: two correct
    roundings of the same math may differ by more than the tolerance (a
    composite op rounding between its steps, a reordered float32 sum feeding
    an ill-conditioned float64 result). For float16/bfloat16 they are also
    accepted when they match `stepwise()` within the tolerance: the same
    composite with every aten op correctly rounded (RoundEachOp), i.e. where
    the CPU's difference comes from a CPU kernel that is not correctly rounded
    in that dtype, amplified by a later step (cancellation)."""
    a_leaves, expected_leaves = _flat_tensors(actual), _flat_tensors(expected)
    if len(a_leaves) != len(expected_leaves):
        raise SampleFailure("wrong", f"{what}: {len(a_leaves)} outputs, CPU gave {len(expected_leaves)}")
    rtol, atol = TOLERANCES.get(dtype, (0, 0))
    for i, (a, e) in enumerate(zip(a_leaves, expected_leaves)):
        where = f"{what}[{i}]" if len(a_leaves) > 1 else what
        if isinstance(e, torch.Tensor):
            if not isinstance(a, torch.Tensor):
                raise SampleFailure("wrong", f"{where}: got {type(a).__name__}, CPU gave a tensor")
            if a.dtype != e.dtype or a.shape != e.shape:
                raise SampleFailure(
                    "wrong", f"{where}: {a.dtype}{list(a.shape)} vs CPU {e.dtype}{list(e.shape)}")
            if metadata_only:
                continue
            a_cpu = a.detach().cpu()
            e_det = e.detach()
            if e_det.layout != torch.strided:
                a_cpu, e_det = a_cpu.to_dense(), e_det.to_dense()
            # An output is as precise as the coarser of its dtype and the swept
            # dtype (a float32 gradient computed through float16 ops).
            e_rtol, e_atol = (max(p, q) for p, q in zip(TOLERANCES.get(e.dtype, (0, 0)), (rtol, atol)))
            try:
                torch.testing.assert_close(a_cpu, e_det, rtol=e_rtol, atol=e_atol, equal_nan=True,
                                           check_device=False, check_stride=False)
            except AssertionError as exc:
                exact_leaves = exact() if exact is not None and e.dtype in FLOATING else None
                x = exact_leaves[i] if exact_leaves and i < len(exact_leaves) else None
                if not (isinstance(x, torch.Tensor) and x.shape == e.shape
                        and no_worse_than_cpu(a_cpu, e_det, x.detach(), e_rtol, e_atol)) \
                        and not matches_stepwise(a_cpu, e, i, stepwise, e_rtol, e_atol):
                    msg = " ".join(str(exc).split())[:300]
                    raise SampleFailure("wrong", f"{where}: {msg}") from None
        elif a != e and not (isinstance(e, float) and math.isnan(e) and math.isnan(a)):
            raise SampleFailure("wrong", f"{where}: {a!r} vs CPU {e!r}")


def tie_equivalent(actual, expected, inp: torch.Tensor):
    """(`actual` with each int64 index output that differs from the CPU's
    replaced by the CPU's, where along some dim of `inp` both select the same
    values (NaN equal to NaN); whether `inp` has equal elements). Unreplaced
    outputs stay as they are (compare() then fails)."""
    if not isinstance(inp, torch.Tensor):
        return actual, False
    a_leaves, e_leaves = _flat_tensors(actual), _flat_tensors(expected)
    if len(a_leaves) != len(e_leaves):
        return actual, False
    x = inp.detach().cpu()
    tied = x.numel() != torch.unique(x).numel()
    fixed = []
    for a, e in zip(a_leaves, e_leaves):
        if (isinstance(a, torch.Tensor) and isinstance(e, torch.Tensor) and e.dtype == torch.int64
                and a.shape == e.shape):
            ac = a.detach().cpu()
            if not torch.equal(ac, e) and _same_selection(x, ac, e):
                a = e
        fixed.append(a)
    _, spec = tree_flatten(actual)
    return tree_unflatten(fixed, spec), tied


def _same_selection(x: torch.Tensor, a: torch.Tensor, e: torch.Tensor) -> bool:
    """Whether index tensors a and e pick equal values of x along some dim
    (as gather would; a reduced dim may be missing from a and e)."""
    xd = x if x.dim() else x.reshape(1)
    for d in range(xd.dim()):
        for ai, ei in ((a, e), (a.unsqueeze(d), e.unsqueeze(d))) if a.dim() < xd.dim() else ((a, e),):
            ai, ei = (ai.reshape(1), ei.reshape(1)) if ai.dim() == 0 else (ai, ei)
            if ai.dim() != xd.dim() or any(ai.size(k) > xd.size(k) for k in range(xd.dim()) if k != d):
                continue
            if ai.numel() and (ai.min() < 0 or ai.max() >= xd.size(d)):
                continue
            va, ve = xd.gather(d, ai), xd.gather(d, ei)
            same = (va == ve) | (va.isnan() & ve.isnan()) if va.is_floating_point() else va == ve
            if bool(same.all()):
                return True
    return False


def compare_statistics(actual, expected, what: str) -> None:
    """For random outputs: same metadata; for floating outputs with enough
    elements, a mean within 6 standard errors of the CPU sample's mean and
    the same set of values for boolean/integer outputs with few levels."""
    compare(actual, expected, None, what, metadata_only=True)
    for i, (a, e) in enumerate(zip(_flat_tensors(actual), _flat_tensors(expected))):
        if not isinstance(e, torch.Tensor) or e.numel() < 64:
            continue
        a_cpu, e_cpu = a.detach().cpu().double(), e.detach().double()
        if not (e_cpu.isfinite().all() and a_cpu.isfinite().all()):
            if e_cpu.isfinite().all():
                raise SampleFailure("wrong", f"{what}[{i}]: non-finite random values")
            continue
        std = e_cpu.std().item()
        err = abs(a_cpu.mean().item() - e_cpu.mean().item())
        if err > 6 * std / math.sqrt(e.numel()) + 1e-6:
            raise SampleFailure(
                "wrong", f"{what}[{i}]: random mean {a_cpu.mean().item():.4g} vs CPU "
                f"{e_cpu.mean().item():.4g} (std {std:.3g}, n {e.numel()})")
        if a_cpu.min() < e_cpu.min() - 6 * std or a_cpu.max() > e_cpu.max() + 6 * std:
            raise SampleFailure("wrong", f"{what}[{i}]: random values outside the CPU's range")


# ---------------------------------------------------------------------------
# one sample


def _run(op, sample, seed: int):
    seed_generators(seed)
    out = op(sample.input, *sample.args, **sample.kwargs)
    return sample.output_process_fn_grad(out)


def _grads(outputs, inputs, seed: int, round_to=None):
    """Input gradients for random output gradients (float32 normal values,
    rounded to `round_to` first when given, so that a float64 reference sees
    the same values as the low-precision run)."""
    outs = [t for t in _flat_tensors(outputs)
            if isinstance(t, torch.Tensor) and t.requires_grad and t.dtype.is_floating_point]
    if not outs or not inputs:
        return None
    gen = torch.Generator().manual_seed(seed)
    grad_outputs = [torch.randn(o.shape, generator=gen).to(round_to or o.dtype).to(o.dtype).to(o.device)
                    for o in outs]
    return torch.autograd.grad(outs, inputs, grad_outputs, allow_unused=True)


def seeds_itself(op) -> bool:
    """True for OpInfos whose function reseeds the generator before each call
    (`wrapper_set_seed`: the random ops, dropout): the CPU then repeats its
    values for any seed, and the device's generator (Philox, not the CPU's
    Mersenne Twister) gives other values from the same distribution."""
    code = getattr(op.op, "__code__", None)
    return code is not None and "wrapper_set_seed" in code.co_names


def is_random(op, pristine_sample, first_output) -> bool:
    """True when the CPU gives different values for another seed (up to four
    tried: a small Bernoulli sample can repeat by chance). `pristine_sample`
    holds the inputs as they were before the first run, which in-place
    random ops (`cauchy_`, ...) overwrite."""
    for seed in range(1, 5):
        try:
            again = _run(op, transform_sample(pristine_sample, clone_leaf), seed=seed)
        except Exception:
            return False
        try:
            compare(again, first_output, None, "reseeded")
        except SampleFailure:
            return True
    return False


class LazyReference:
    """A reference evaluation of the op on the CPU sample, run on first use;
    outputs() and grads() return flat lists (None on failure). Subclasses
    give compute() -> (outputs, grads or None)."""

    def __init__(self, op, cpu_sample, backward: bool):
        self.op, self.sample, self.backward = op, cpu_sample, backward
        self._result = None

    def _run(self):
        if self._result is None:
            self._result = (None, None)
            try:
                outputs, grads = self.compute()
                self._result = (_flat_tensors(outputs), _flat_tensors(grads) if grads else None)
            except Exception:
                pass
        return self._result

    def outputs(self):
        return self._run()[0]

    def grads(self):
        return self._run()[1]


class Float64Reference(LazyReference):
    """The op with floating tensors upcast to float64 (gradients rounded to dtype)."""

    def __init__(self, op, cpu_sample, backward: bool, dtype):
        super().__init__(op, cpu_sample, backward)
        self.dtype = dtype

    def compute(self):
        upcast = lambda t: (t.detach().double().requires_grad_(t.requires_grad)
                            if t.is_floating_point() else leaf_copy(t))
        sample = transform_sample(self.sample, upcast)
        outputs = _run(self.op, sample, seed=0)
        grads = _grads(outputs, grad_inputs(sample), seed=2, round_to=self.dtype) if self.backward else None
        return outputs, grads


HALF_TYPES = (torch.float16, torch.bfloat16)


class RoundEachOp(TorchDispatchMode):
    """Runs every aten op that reads a float16/bfloat16 tensor in float64 and
    rounds its floating results back to that dtype: a composite op (the ops
    it decomposes into reach this mode one by one) evaluated with each step
    correctly rounded. In-place and out= ops run unchanged."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        half = [t.dtype for t in tree_leaves((args, kwargs))
                if isinstance(t, torch.Tensor) and t.dtype in HALF_TYPES]
        if not half or func._schema.is_mutable:
            return func(*args, **kwargs)
        up = lambda t: t.double() if isinstance(t, torch.Tensor) and t.dtype in HALF_TYPES else t
        out = func(*tree_map(up, args), **tree_map(up, kwargs))
        return tree_map(lambda o: o.to(half[0]) if isinstance(o, torch.Tensor) and o.dtype == torch.float64
                        else o, out)


class StepwiseReference(LazyReference):
    """The op on the CPU sample (same dtype) under RoundEachOp."""

    def compute(self):
        sample = transform_sample(self.sample, clone_leaf)
        with RoundEachOp():
            outputs = _run(self.op, sample, seed=0)
            grads = _grads(outputs, grad_inputs(sample), seed=2) if self.backward else None
        return outputs, grads


# Errors ATen raises for every device but the CPU, by design, on inputs the
# CPU accepts: ocl raises them as CUDA does, and such a sample is not compared.
CUDA_REFUSALS = (
    "`driver` other than `gels` is not supported on CUDA",  # linalg.lstsq samples OpInfo draws off CUDA
)


def refused_as_on_cuda(exc: BaseException) -> bool:
    return any(msg in str(exc) for msg in CUDA_REFUSALS)


def check_sample(op, sample, dtype, device: str, backward: bool) -> tuple:
    """Run one sample on CPU and device. Returns (compared, cpu_rejected, fallback_ops)."""
    # Samples are generated on the device (as PyTorch's own OpInfo tests do,
    # so arguments a sample keeps on the CPU stay there); the reference runs
    # on an exact CPU copy.
    on_device = lambda t: t.device.type == torch.device(device).type
    cpu_sample = transform_sample(sample, lambda t: copy_like(t, "cpu") if on_device(t) else leaf_copy(t))
    dev_sample = transform_sample(sample, leaf_copy)
    pristine_cpu_sample = transform_sample(cpu_sample, clone_leaf)
    try:
        expected = _run(op, cpu_sample, seed=0)
    except Exception:
        cpu_rejected = True
    else:
        cpu_rejected = False
        if op.name in CUDA_OUTPUT_FORMS:
            expected = CUDA_OUTPUT_FORMS[op.name](pristine_cpu_sample, expected)

    torch.ocl.reset_fallback_stats()
    try:
        actual = _run(op, dev_sample, seed=0)
        torch.ocl.synchronize()
    except Exception as exc:
        if cpu_rejected:
            return False, True, sorted(torch.ocl.fallback_stats())
        if refused_as_on_cuda(exc):
            return False, False, sorted(torch.ocl.fallback_stats())
        raise SampleFailure("error", f"forward: {_first_line(exc)}") from None
    if cpu_rejected:
        # The CPU refused this input (bad input or a CPU-only limitation); the
        # device accepting it is not a comparison we can make.
        return False, True, sorted(torch.ocl.fallback_stats())

    # Whether the op is random is asked only when a comparison fails (it reruns
    # the CPU op with up to four seeds): a random op then gets the statistical
    # comparison, any other op the failure.
    random_op = lambda: is_random(op, pristine_cpu_sample, expected)
    metadata_only = op.name in UNINITIALISED_OUTPUT_OPS
    random = not metadata_only and seeds_itself(op)
    exact = Float64Reference(op, cpu_sample, backward, dtype)
    stepwise = StepwiseReference(op, pristine_cpu_sample, backward) if dtype in HALF_TYPES else None
    if metadata_only:
        compare(actual, expected, dtype, "output", metadata_only=True)
    elif random:
        compare_statistics(actual, expected, "output")
    else:
        shown, tied = (tie_equivalent(actual, expected, pristine_cpu_sample.input) if op.name in TIE_INDEX_OPS
                       else (actual, False))
        try:
            compare(shown, expected, dtype, "output", exact=exact.outputs,
                    stepwise=stepwise.outputs if stepwise else None)
        except SampleFailure:
            if not random_op():
                raise
            random = True
            compare_statistics(actual, expected, "output")
        backward = backward and not tied

    if backward and not metadata_only and not random:
        cpu_inputs, dev_inputs = grad_inputs(cpu_sample), grad_inputs(dev_sample)
        try:
            expected_grads = _grads(expected, cpu_inputs, seed=2)
        except Exception:
            expected_grads = None  # the CPU has no backward for this sample
        if expected_grads is not None:
            try:
                actual_grads = _grads(actual, dev_inputs, seed=2)
                torch.ocl.synchronize()
            except Exception as exc:
                raise SampleFailure("error", f"backward: {_first_line(exc)}") from None
            try:
                compare(actual_grads, expected_grads, dtype, "grad", exact=exact.grads,
                        stepwise=stepwise.grads if stepwise else None)
            except SampleFailure:
                # Outputs of a random op can agree by chance (a small dropout
                # mask); its gradients are not compared.
                if not random_op():
                    raise
    return True, False, sorted(torch.ocl.fallback_stats())


# ---------------------------------------------------------------------------
# one (op, dtype)


def check_op(op, dtype: torch.dtype, device: str = "ocl", max_samples: int | None = None,
             backward: bool = True) -> Result:
    """Classify one (OpInfo, dtype) on `device`."""
    start = time.perf_counter()
    result = Result(op=op.full_name, dtype=dtype_name(dtype), status="native")
    want_grad = (backward and op.supports_autograd and dtype.is_floating_point
                 and dtype in op.supported_backward_dtypes("cpu"))
    fallback_ops: set = set()
    previous_mode = torch.ocl.get_fallback_mode()
    torch.ocl.set_fallback_mode("silent")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the ops' own deprecation and user warnings
            _check_samples(op, dtype, device, max_samples, want_grad, result, fallback_ops)
    finally:
        torch.ocl.set_fallback_mode(previous_mode)
    result.fallback_ops = sorted(fallback_ops)
    if result.status == "native" and fallback_ops:
        result.status = "fallback"
    result.seconds = round(time.perf_counter() - start, 3)
    return result


def _check_samples(op, dtype, device, max_samples, want_grad, result: Result, fallback_ops: set) -> None:
    try:
        seed_generators(0)
        samples = op.sample_inputs(device, dtype, requires_grad=want_grad)
        for i, sample in enumerate(samples):
            if max_samples is not None and i >= max_samples:
                break
            try:
                compared, rejected, used = check_sample(op, sample, dtype, device, want_grad)
            except SampleFailure as failure:
                result.status, result.detail = failure.status, f"sample {i}: {failure.detail}"
                break
            except Exception as exc:  # a bug of the comparison itself is an error too
                result.status = "error"
                result.detail = f"sample {i}: harness: {_first_line(exc)}"
                result.detail += " | " + traceback.format_exc(limit=-1).splitlines()[-2].strip()[:200]
                break
            result.samples += compared
            result.cpu_rejected += rejected
            result.backward |= want_grad and compared
            fallback_ops.update(used)
    except Exception as exc:
        result.status, result.detail = "error", f"sample inputs: {_first_line(exc)}"
