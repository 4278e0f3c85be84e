"""Differential fuzzer: random inputs for every op with a native ocl kernel,
compared with the CPU.

    python -m torch_ocl.testing.fuzz [--seed S] [--budget-s T] [--ops a,b] [--cases N]
    python -m torch_ocl.testing.fuzz --ops NAME --case-seed C      # replay one case

The op list comes from the dispatcher: every OpInfo of PyTorch's op_db whose
aten op has a PrivateUse1 kernel (any overload). A case draws an op, a dtype
the CPU supports (complex excluded), one of the OpInfo's sample inputs (the
argument structure) and then mutates it:

- layout of every tensor argument, values unchanged: transposed (permuted
  strides), sliced with a step, storage offset into a NaN-filled buffer, a
  size-1 dim with stride 0;
- for elementwise ops: fresh random shapes (0-dim, empty, size-1 broadcast,
  up to 6 dims, prime sizes) and values with NaN / inf / -0.0 sprinkled in;
- aliasing: the same tensor passed as two arguments;
- the variant: functional, out= (an empty out tensor that must be resized) or
  in-place.

Results are compared with torch.testing.assert_close (NaN positions must
match, inf by value). A case where the CPU raises is skipped; a case that
needs the CPU fallback is skipped (the fuzzer runs in strict mode). Every
failure prints one line that replays it.
"""

import argparse
import math
import random
import sys
import time
import traceback
import zlib
from types import SimpleNamespace

import torch

import torch_ocl  # noqa: F401
from torch_ocl.testing.opinfo_sweep import CUDA_OUTPUT_FORMS, refused_as_on_cuda

SKIP_SUBSTRINGS = ("rand", "normal", "bernoulli", "dropout", "multinomial", "uniform", "exponential",
                   "poisson", "empty", "geometric", "cauchy", "log_normal", "resize_", "bincount", "histc",
                   "nonzero_static", "as_strided",
                   "fractional_max_pool")  # random or uninitialized results
# Outputs whose order or tie-breaking is implementation-defined: values only.
INDEX_TIES = ("topk", "mode", "median", "nanmedian", "kthvalue", "sort", "argsort", "max.reduction_with_dim",
              "min.reduction_with_dim", "argmax", "argmin", "unique_consecutive")
DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
          torch.int8, torch.uint8, torch.bool)
PRIMES = (1, 2, 3, 5, 7, 13, 31)


def _op_key(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def _has_ocl_kernel(aten_name):
    packet = getattr(torch.ops.aten, aten_name, None)
    if packet is None:
        return False
    for overload in packet.overloads():
        name = "aten::" + aten_name + ("" if overload == "default" else "." + overload)
        try:
            if torch._C._dispatch_has_kernel_for_dispatch_key(name, "PrivateUse1"):
                return True
        except RuntimeError:
            pass
    return False


def native_ops():
    """OpInfos whose aten op has a PrivateUse1 kernel, by 'name.variant'."""
    from torch.testing._internal.common_methods_invocations import op_db
    ops = {}
    for op in op_db:
        key = _op_key(op)
        if any(s in key for s in SKIP_SUBSTRINGS):
            continue
        aten = (op.aten_name or op.name).split(".")[-1]
        if _has_ocl_kernel(aten):
            ops[key] = op
    return ops


def _is_elementwise(op):
    from torch.testing._internal.opinfo.core import BinaryUfuncInfo, UnaryUfuncInfo
    return isinstance(op, (UnaryUfuncInfo, BinaryUfuncInfo))


# ---- tensors ------------------------------------------------------------------

def _random_values(shape, dtype, rng):
    g = torch.Generator().manual_seed(rng.randrange(2**31))
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        t = (torch.randn(shape, generator=g, dtype=torch.float64) * rng.choice((1, 3, 100))).to(dtype)
        if t.numel() and rng.random() < 0.5:
            specials = torch.tensor([math.nan, math.inf, -math.inf, -0.0, 0.0], dtype=dtype)
            mask = torch.rand(shape, generator=g) < 0.15
            picks = specials[torch.randint(0, 5, shape, generator=g)]
            t = torch.where(mask, picks, t)
        return t
    info = torch.iinfo(dtype)
    lo, hi = max(info.min, -100), min(info.max, 100)
    return torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64).to(dtype)


def _random_shape(rng):
    rank = rng.choice((0, 1, 1, 2, 2, 3, 4, 5, 6))
    shape = [rng.choice(PRIMES) for _ in range(rank)]
    if shape and rng.random() < 0.15:
        shape[rng.randrange(rank)] = 0
    while math.prod(shape) > 20000:
        shape[shape.index(max(shape))] = 1
    return shape


def _broadcast_partner(shape, rng):
    s = list(shape)
    for i in range(len(s)):
        if rng.random() < 0.3:
            s[i] = 1
    if s and rng.random() < 0.3:
        s = s[rng.randrange(len(s) + 1):]
    return s


class Layout:
    """A value-preserving layout, applied identically on both devices."""

    def __init__(self, t, rng):
        self.kind = "contiguous"
        if not isinstance(t, torch.Tensor) or t.layout != torch.strided or t.is_complex():
            return
        choices = ["contiguous", "offset"]
        if t.dim() >= 2:
            choices.append("transposed")
        if t.dim() >= 1 and t.numel() > 0:
            choices.append("stepped")
        if 1 in t.shape:
            choices.append("zero_stride")
        self.kind = rng.choice(choices)
        self.perm = list(range(t.dim()))
        rng.shuffle(self.perm)
        self.dim = rng.randrange(t.dim()) if t.dim() else 0
        self.step = rng.choice((2, 3))
        self.offset = rng.choice((1, 3, 17))

    def apply(self, t, device):
        if not isinstance(t, torch.Tensor):
            return t
        if self.kind == "contiguous":  # a copy: in-place variants must not touch the sample
            return t.detach().clone().to(device).requires_grad_(t.requires_grad)
        rg = t.requires_grad
        t = t.detach()
        if self.kind == "transposed":
            inv = [self.perm.index(i) for i in range(t.dim())]
            # clone, not contiguous(): when the permuted sample is already
            # contiguous (a transposed OpInfo sample, an identity perm),
            # contiguous() returns the sample itself and a CPU in-place case
            # would rewrite what the ocl case then reads.
            out = t.permute(self.perm).clone(memory_format=torch.contiguous_format).to(device).permute(inv)
        elif self.kind == "stepped":
            shape = list(t.shape)
            shape[self.dim] = shape[self.dim] * self.step
            big = _filler(shape, t.dtype, device)
            idx = [slice(None)] * t.dim()
            idx[self.dim] = slice(None, None, self.step)
            out = big[tuple(idx)]
            out.copy_(t.to(device))
        elif self.kind == "offset":
            big = _filler([t.numel() + self.offset], t.dtype, device)
            out = big[self.offset:].view(t.shape)
            out.copy_(t.to(device))
        else:  # zero_stride: size-1 dims get stride 0
            base = t.clone(memory_format=torch.contiguous_format).to(device)  # never the sample itself
            strides = [0 if s == 1 else st for s, st in zip(t.shape, base.stride())]
            out = base.as_strided(t.shape, strides)
        return out.requires_grad_(rg) if rg else out

    def __repr__(self):
        return self.kind


def _filler(shape, dtype, device):
    if dtype.is_floating_point:
        return torch.full(shape, math.nan, dtype=dtype, device=device)
    return torch.full(shape, 77 if dtype != torch.bool else 1, dtype=dtype, device=device)


def _map_tensors(obj, fn):
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map_tensors(o, fn) for o in obj)
    if isinstance(obj, dict):
        return {k: _map_tensors(v, fn) for k, v in obj.items()}
    return obj


def _flat_tensors(obj):
    out = []
    _map_tensors(obj, lambda t: out.append(t) or t)
    return out


# ---- comparison ----------------------------------------------------------------

def _tolerance(dtype):
    if dtype in (torch.float16, torch.bfloat16):
        return dict(rtol=2e-2, atol=2e-2)
    if dtype == torch.float32:
        return dict(rtol=1e-4, atol=1e-5)
    if dtype == torch.float64:
        return dict(rtol=1e-7, atol=1e-7)
    return dict(rtol=0, atol=0)


def _compare(actual, expected, values_only, path="out"):
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            raise AssertionError("%s: expected a tensor, got %r" % (path, type(actual)))
        a = actual.detach().cpu()
        if a.shape != expected.shape or a.dtype != expected.dtype:
            raise AssertionError("%s: shape/dtype %s %s vs CPU %s %s" % (path, tuple(a.shape), a.dtype,
                                                                          tuple(expected.shape), expected.dtype))
        if values_only and not expected.dtype.is_floating_point and path != "out[0]":
            return
        if expected.is_complex():
            a, expected = torch.view_as_real(a.resolve_conj()), torch.view_as_real(expected.resolve_conj())
        torch.testing.assert_close(a, expected.detach(), equal_nan=True, check_stride=False,
                                   msg=lambda m: "%s: %s" % (path, m), **_tolerance(expected.dtype))
    elif isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            raise AssertionError("%s: structure differs" % path)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, values_only, "%s[%d]" % (path, i))
    elif isinstance(expected, float) and isinstance(actual, float):
        if not (math.isclose(actual, expected, rel_tol=1e-4, abs_tol=1e-5) or (math.isnan(actual) and math.isnan(expected))):
            raise AssertionError("%s: %r vs CPU %r" % (path, actual, expected))
    elif actual != expected:
        raise AssertionError("%s: %r vs CPU %r" % (path, actual, expected))


class Skip(Exception):
    pass


# ---- one case --------------------------------------------------------------------

def _case_seed(seed, k):
    return zlib.crc32(("%d:%d" % (seed, k)).encode())


def run_case(op, case_seed, notes=None, show=False):
    """Runs one case. Returns a short description (also appended to `notes`);
    raises Skip or an error. `show` prints the inputs and both results."""
    notes = [] if notes is None else notes
    rng = random.Random(case_seed)
    torch.manual_seed(case_seed)
    supported = [d for d in DTYPES if d in op.supported_dtypes("cpu")]
    if not supported:
        raise Skip("no dtype")
    dtype = rng.choice(supported)
    samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))
    if not samples:
        raise Skip("no samples")
    sample = rng.choice(samples)
    inp, args, kwargs = sample.input, list(sample.args), dict(sample.kwargs)
    if _is_elementwise(op) and isinstance(inp, torch.Tensor) and rng.random() < 0.6:
        shape = _random_shape(rng)
        inp = _random_values(shape, inp.dtype, rng)
        for i, a in enumerate(args):
            if isinstance(a, torch.Tensor):
                partner = shape if rng.random() < 0.5 else _broadcast_partner(shape, rng)
                if rng.random() < 0.5:
                    shape, partner = partner, shape  # broadcast the other way
                    inp = _random_values(shape, inp.dtype, rng)
                args[i] = _random_values(partner, a.dtype, rng)
        notes.append("shape=%s" % list(inp.shape))
    tensors = [inp] + args + list(kwargs.values())
    layouts = [Layout(t, rng) for t in tensors]
    alias = None
    tensor_pos = [i for i, t in enumerate(tensors) if isinstance(t, torch.Tensor)]
    if len(tensor_pos) >= 2 and rng.random() < 0.15:
        i, j = tensor_pos[0], tensor_pos[1]
        if tensors[i].shape == tensors[j].shape and tensors[i].dtype == tensors[j].dtype:
            alias = (i, j)
            notes.append("alias=%d,%d" % alias)
    variant = rng.choice(["functional", "functional", "out", "inplace"])
    if variant == "out" and not op.supports_out:
        variant = "functional"
    if variant == "inplace" and (op.inplace_variant is None or not isinstance(inp, torch.Tensor)):
        variant = "functional"
    notes.append("dtype=%s" % str(dtype).replace("torch.", ""))
    notes.append("layouts=%s" % ",".join(repr(l) for l in layouts if l.kind != "contiguous"))
    notes.append(variant)

    def build(device):
        built = [l.apply(t, device) if isinstance(t, torch.Tensor) else t for l, t in zip(layouts, tensors)]
        if alias:
            built[alias[1]] = built[alias[0]]
        b_inp, rest = built[0], built[1:]
        b_args = rest[: len(args)]
        b_kwargs = dict(zip(kwargs.keys(), rest[len(args):]))
        fresh = lambda t: t if t.device.type == device and t is not tensors[0] else t.detach().clone().to(device)  # noqa: E731
        b_args = [_map_tensors(a, fresh) for a in b_args]
        b_kwargs = {k: _map_tensors(v, fresh) for k, v in b_kwargs.items()}
        b_inp = _map_tensors(b_inp, fresh) if not isinstance(b_inp, torch.Tensor) else b_inp
        if "device" in b_kwargs:  # factory functions
            b_kwargs["device"] = device
        return b_inp, b_args, b_kwargs

    def call(device, ref=None):
        b_inp, b_args, b_kwargs = build(device)
        if variant == "inplace":
            op.inplace_variant(b_inp, *b_args, **b_kwargs)
            return b_inp
        if variant == "out":  # empty out tensors: the op must resize them
            outs = _map_tensors(ref, lambda t: torch.empty(0, dtype=t.dtype, device=device))
            op(b_inp, *b_args, **b_kwargs, out=outs)
            return outs
        return op(b_inp, *b_args, **b_kwargs)

    with torch.ocl.fallback_mode("silent"):
        try:
            ref = None
            if variant == "out":
                b_inp, b_args, b_kwargs = build("cpu")
                ref = op(b_inp, *b_args, **b_kwargs)
                if not isinstance(ref, (torch.Tensor, tuple)):
                    raise Skip("no tensor result")
            expected = call("cpu", ref)
        except Skip:
            raise
        except Exception as e:  # noqa: BLE001
            raise Skip("CPU raises: %s" % str(e).split("\n")[0][:80])
    if variant in ("functional", "out") and op.name in CUDA_OUTPUT_FORMS:  # ocl gives CUDA's form of these outputs
        c_inp, c_args, _ = build("cpu")
        cuda_form = CUDA_OUTPUT_FORMS[op.name](SimpleNamespace(input=c_inp, args=c_args), expected)
        # out=: CUDA's shapes and values, in the dtypes of the given out tensors
        expected = cuda_form if variant == "functional" else tuple(
            c.to(e.dtype) for c, e in zip(cuda_form, expected))
    with torch.ocl.fallback_mode("error"):
        try:
            actual = call("ocl", ref)
        except NotImplementedError as e:
            # a dtype ocl refuses as CUDA does (uint8 antialiased upsampling):
            # coverage, which the OpInfo sweep and known_failures.yaml track
            if "Sparse" in str(e) and "backend" in str(e):  # sparse layouts: ocl has strided tensors only
                raise Skip("sparse layout")
            if "not implemented for '" not in str(e):
                raise
            raise Skip("dtype refused as on CUDA: %s" % str(e).split("\n")[0][:80])
        except RuntimeError as e:
            if "fallback" in str(e).lower() or "strict" in str(e).lower() or "TORCH_OCL_FALLBACK" in str(e):
                raise Skip("needs the CPU fallback")
            if refused_as_on_cuda(e):
                raise Skip("refused off the CPU, as on CUDA")
            raise
    torch.ocl.synchronize()
    if show:
        print("input:", build("cpu"))
        print("ocl:", _map_tensors(actual, lambda t: t.cpu()))
        print("cpu:", expected)
    values_only = _op_key(op) in INDEX_TIES
    try:
        _compare(actual, expected, values_only)
    except AssertionError:
        # (out=: the same references, computed functionally, in the out tensors' dtypes)
        if variant == "inplace" or not any(t.is_floating_point() for t in _flat_tensors(expected)):
            raise
        # The CPU rounds intermediates to half precision where our kernels
        # compute in float, and its vectorised and scalar paths differ at
        # overflow edges (cosh(89) of int8 input: inf vectorised, 2.2e38
        # scalar). Accept a result that matches the CPU computed in higher
        # precision (half inputs in float32, other inputs in float64) and
        # rounded to the result's dtype.
        wide = torch.float32 if dtype in (torch.float16, torch.bfloat16) else torch.float64
        up = lambda t: t.to(wide) if t.dtype == dtype else t  # noqa: E731
        try:
            b_inp, b_args, b_kwargs = build("cpu")
            wide_ref = op(_map_tensors(b_inp, up), *_map_tensors(b_args, up), **_map_tensors(b_kwargs, up))
        except Exception:  # noqa: BLE001
            raise AssertionError("and the %s CPU reference raises" % wide) from None
        flat_ref, flat_expected = _flat_tensors(wide_ref), _flat_tensors(expected)
        if len(flat_ref) != len(flat_expected):
            raise
        rounded = [r.to(e.dtype) for r, e in zip(flat_ref, flat_expected)]
        try:
            _compare(_flat_tensors(actual), rounded, values_only)
            notes.append("(matches the %s CPU reference)" % wide)
        except AssertionError:
            # The CPU's strided path can disagree with its own contiguous one
            # (group_norm with stepped weight and bias read them as contiguous
            # and gave NaN): the math does not depend on the layout, so the
            # CPU on contiguous copies of the same values is the reference.
            c_inp, c_args, c_kwargs = _map_tensors(build("cpu"), lambda t: t.contiguous())
            contiguous_ref = _flat_tensors(op(c_inp, *c_args, **c_kwargs))
            if op.name in CUDA_OUTPUT_FORMS:
                contiguous_ref = _flat_tensors(CUDA_OUTPUT_FORMS[op.name](SimpleNamespace(input=c_inp, args=c_args),
                                                                          tuple(contiguous_ref)))
            if variant == "out":  # (the CPU's batch norm out= reads strided weights wrongly; its functional does not)
                contiguous_ref = [r.to(e.dtype) for r, e in zip(contiguous_ref, flat_expected)]
            _compare(_flat_tensors(actual), contiguous_ref, values_only)
            notes.append("(matches the CPU on contiguous copies; its strided path differs)")
    return " ".join(notes)


def repro_line(key, case_seed):
    return "python -m torch_ocl.testing.fuzz --ops %s --case-seed %d" % (key, case_seed)


def fuzz(seed=0, budget_s=60.0, ops=None, cases=None, log=print, verbose=False):
    """Returns dict(run=, skipped=, failures=[(key, case_seed, message)])."""
    all_ops = native_ops()
    if ops:
        unknown = [o for o in ops if o not in all_ops]
        if unknown:
            raise SystemExit("not native or unknown ops: %s (native: %s)" % (unknown, " ".join(sorted(all_ops))))
        keys = list(ops)
    else:
        keys = sorted(all_ops)
    rng = random.Random(seed)
    start = time.monotonic()
    run = skipped = 0
    failures = []
    k = 0
    while (cases is None or k < cases) and time.monotonic() - start < budget_s:
        key = rng.choice(keys)
        cs = _case_seed(seed, k)
        k += 1
        try:
            notes = []
            desc = run_case(all_ops[key], cs, notes)
            run += 1
            if verbose:
                log("ok   %s %s" % (key, desc))
        except Skip as s:
            skipped += 1
            if verbose:
                log("skip %s: %s" % (key, s))
        except Exception as e:  # noqa: BLE001
            run += 1
            msg = str(e).strip().split("\n")
            msg = " | ".join(m.strip() for m in msg if m.strip())[:400]
            failures.append((key, cs, msg))
            log("FAIL %s [%s]: %s\n  repro: %s" % (key, " ".join(notes), msg, repro_line(key, cs)))
    return dict(run=run, skipped=skipped, failures=failures, ops=len(keys), seconds=time.monotonic() - start)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Differential fuzzer: ocl vs CPU on random inputs.")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget-s", type=float, default=600.0)
    ap.add_argument("--cases", type=int, default=None, help="stop after this many cases")
    ap.add_argument("--ops", default="", help="comma-separated OpInfo names (name.variant)")
    ap.add_argument("--case-seed", type=int, default=None, help="replay one case (with --ops NAME)")
    ap.add_argument("--list", action="store_true", help="print the native ops and exit")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    if args.list:
        print("\n".join(sorted(native_ops())))
        return 0
    ops = [o for o in args.ops.split(",") if o]
    if args.case_seed is not None:
        if len(ops) != 1:
            ap.error("--case-seed replays one case: give exactly one op with --ops")
        op = native_ops()[ops[0]]
        notes = []
        try:
            print("ok", run_case(op, args.case_seed, notes, show=args.verbose))
        except Skip as s:
            print("skipped:", s)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            print("case:", " ".join(notes))
            return 1
        return 0
    r = fuzz(args.seed, args.budget_s, ops or None, args.cases, verbose=args.verbose)
    print("fuzz: %d ops, %d cases run, %d skipped, %d failures in %.0f s (seed %d)"
          % (r["ops"], r["run"], r["skipped"], len(r["failures"]), r["seconds"], args.seed))
    return 1 if r["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
