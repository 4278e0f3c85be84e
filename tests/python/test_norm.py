"""Normalization on ocl against PyTorch CPU: layer norm, RMS norm, group norm,
batch norm (every ATen entry point F.batch_norm / nn.BatchNorm*d reach, the
running statistics) and instance norm, forward and backward
(kernels/norm_ops.cpp, kernels/group_norm_ops.cpp, kernels/norm.cl).

Every test runs under fallback_mode('error') (an op without a native kernel
raises) unless it says otherwise.
"""

import copy

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from dtype_lists import FLOATS, dname
from torch_ocl.testing.opinfo_sweep import (check_op, copy_like, cuda_batch_norm_stats, no_worse_than_cpu,
                                            op_db_by_name, op_dtypes)

# Forward / gradient tolerances per dtype (gradients sum over many elements).
from tolerances import NORM as TOL  # noqa: E402 (one table per family, tests/python/tolerances.py)


# Every test of this file runs in strict mode: a missing native kernel raises.
pytestmark = pytest.mark.usefixtures("strict")


def make(shape, dtype=torch.float32, seed=0, scale=1.0, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale + shift).to(dtype)


def close(got, expected, tol=None, what=""):
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected), what
        for i, (g, e) in enumerate(zip(got, expected)):
            close(g, e, tol, f"{what}[{i}]")
        return
    if expected is None:
        assert got is None, what
        return
    assert got.device.type == "ocl", what
    assert got.dtype == expected.dtype and got.shape == expected.shape, (
        f"{what}: {got.dtype}{list(got.shape)} vs CPU {expected.dtype}{list(expected.shape)}")
    kw = dict(TOL.get(expected.dtype, {}))
    kw.update(tol or {})
    assert_close(got.detach().cpu(), expected.detach(), equal_nan=True, msg=lambda m: f"{what}: {m}", **kw)


def leaf(t, device):
    """A copy of CPU tensor `t` on `device` with its strides, as a leaf that
    requires grad when `t` is floating."""
    c = copy_like(t, device) if device != "cpu" else t.detach().clone()
    return c.detach().requires_grad_(t.is_floating_point())


def check(fn, *inputs, tol=None, backward=True, seed=1):
    """fn(*inputs) on CPU and on ocl (inputs copied with their layout): the
    outputs, then the gradients of every floating input for the same random
    output gradients, are compared."""
    results = []
    for device in ("cpu", "ocl"):
        args = [leaf(t, device) if isinstance(t, torch.Tensor) else t for t in inputs]
        out = fn(*args)
        outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,))
                if isinstance(o, torch.Tensor)]
        grads = None
        if backward:
            diff = [o for o in outs if o.requires_grad]
            g = torch.Generator().manual_seed(seed)
            gouts = [torch.randn(o.shape, generator=g).to(o.dtype).to(device) for o in diff]
            wrt = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
            grads = torch.autograd.grad(diff, wrt, gouts, allow_unused=True)
        results.append((outs, grads))
    (cpu_out, cpu_grads), (ocl_out, ocl_grads) = results
    close(ocl_out, cpu_out, tol, "output")
    if backward:
        close(ocl_grads, cpu_grads, tol, "grad")


# ---------------------------------------------------------------- layer norm

LN_SHAPES = [((4, 10), (10,)), ((2, 3, 5), (3, 5)), ((1, 7), (7,)), ((5, 1), (1,)), ((3, 300), (300,))]


@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
@pytest.mark.parametrize("shape,normalized", LN_SHAPES, ids=str)
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_layer_norm(dtype, shape, normalized, affine):
    x = make(shape, dtype, scale=2.0, shift=0.5)
    w = make(normalized, dtype, seed=2) if affine != "none" else None
    b = make(normalized, dtype, seed=3) if affine == "both" else None
    check(lambda x, w, b: F.layer_norm(x, normalized, w, b, eps=1e-5), x, w, b)


def test_native_layer_norm_statistics():
    x = make((3, 4, 6), shift=3.0)
    check(lambda x: torch.native_layer_norm(x, (4, 6), None, None, 1e-5), x, backward=False)


@pytest.mark.parametrize("shape,normalized", [((2, 100_003), (100_003,)), ((33_335, 3), (3,))], ids=str)
def test_layer_norm_large(shape, normalized):
    x, w, b = make(shape), make(normalized, seed=2), make(normalized, seed=3)
    check(lambda x, w, b: F.layer_norm(x, normalized, w, b), x, w, b, tol=dict(rtol=1e-4, atol=2e-4))


def test_layer_norm_noncontiguous_and_empty():
    x = make((8, 6)).t()  # transposed
    check(lambda x: F.layer_norm(x, (8,)), x)
    x = make((6, 20))[::2, ::3]  # sliced with steps
    check(lambda x: F.layer_norm(x, (7,), torch.ones(7, device=x.device), None), x)
    check(lambda x: F.layer_norm(x, (4,)), make((0, 4)))
    check(lambda x: torch.native_layer_norm(x, (0,), None, None, 1e-5), make((3, 0)), backward=False)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=dname)
def test_layer_norm_mixed_dtype(dtype):
    # half / bfloat16 input with float parameters (as under autocast): float
    # statistics. (The CPU rounds the float weight / bias gradients through
    # the input dtype, ocl does not: compared at the input dtype's tolerance.)
    x = make((4, 16), dtype)
    check(lambda x, w, b: torch.native_layer_norm(x, (16,), w, b, 1e-5), x, make(16, seed=2), make(16, seed=3),
          tol=TOL[dtype])


@pytest.mark.parametrize("mask", [(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)], ids=str)
def test_layer_norm_backward_output_mask(mask):
    x, w, b, dy = make((5, 12)), make(12, seed=2), make(12, seed=3), make((5, 12), seed=4)
    _, mean, rstd = torch.native_layer_norm(x, (12,), w, b, 1e-5)
    expected = torch.ops.aten.native_layer_norm_backward(dy, x, (12,), mean, rstd, w, b, list(map(bool, mask)))
    o = lambda t: t.to("ocl")
    got = torch.ops.aten.native_layer_norm_backward(o(dy), o(x), (12,), o(mean), o(rstd), o(w), o(b),
                                                    list(map(bool, mask)))
    close(got, expected)


def test_layer_norm_module_trains():
    torch.manual_seed(0)
    cpu = torch.nn.LayerNorm((3, 8))
    with torch.no_grad():
        cpu.weight.normal_()
        cpu.bias.normal_()
    dev = torch.nn.LayerNorm((3, 8)).to("ocl")
    dev.load_state_dict(cpu.state_dict())
    x = make((5, 3, 8))
    cpu(x).square().sum().backward()
    dev(x.to("ocl")).square().sum().backward()
    close(dev.weight.grad, cpu.weight.grad)
    close(dev.bias.grad, cpu.bias.grad)


# ---------------------------------------------------------------- RMS norm

@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
@pytest.mark.parametrize("weight", [True, False])
def test_rms_norm(dtype, weight):
    x = make((4, 3, 9), dtype, shift=0.3)
    w = make((3, 9), dtype, seed=2) if weight else None
    check(lambda x, w: F.rms_norm(x, (3, 9), w), x, w)
    check(lambda x, w: F.rms_norm(x, (3, 9), w, eps=1e-3), x, w)


def test_rms_norm_runs_the_fused_kernel():
    from torch.utils._python_dispatch import TorchDispatchMode

    class Record(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func))
            return func(*args, **(kwargs or {}))

    x = make((3, 8)).to("ocl").requires_grad_()
    w = make(8).to("ocl").requires_grad_()
    with Record() as rec:
        F.rms_norm(x, (8,), w).sum().backward()
    assert "aten._fused_rms_norm.default" in rec.ops
    assert "aten._fused_rms_norm_backward.default" in rec.ops


@pytest.mark.parametrize("mask", [(1, 1), (1, 0), (0, 1)], ids=str)
def test_fused_rms_norm_direct(mask):
    x, w, dy = make((2, 3, 4), torch.float16), make(4, torch.float16, seed=2), make((2, 3, 4), torch.float16, seed=3)
    check(lambda x, w: torch._fused_rms_norm(x, [4], w, None), x, w)  # rstd: float, keepdim shape
    # The backward op (no CPU kernel: the CPU differentiates the composite) vs CPU autograd.
    _, rstd = torch._fused_rms_norm(x, [4], w, 1e-6)
    xc, wc = x.clone().requires_grad_(), w.clone().requires_grad_()
    gx, gw = torch.autograd.grad(F.rms_norm(xc, (4,), wc, 1e-6), (xc, wc), dy)
    o = lambda t: t.to("ocl")
    got = torch.ops.aten._fused_rms_norm_backward(o(dy), o(x), [4], o(rstd), o(w), list(map(bool, mask)))
    close(got, (gx if mask[0] else None, gw if mask[1] else None))


def test_double_backward():
    # create_graph: autograd's composite double-backward formulas over native ops
    x = make((3, 6), torch.float64).to("ocl").requires_grad_()
    w = make(6, torch.float64, seed=2).to("ocl").requires_grad_()
    b = make(6, torch.float64, seed=3).to("ocl").requires_grad_()
    assert torch.autograd.gradgradcheck(lambda x, w: F.rms_norm(x, (6,), w), (x, w))
    assert torch.autograd.gradgradcheck(lambda x, w, b: F.layer_norm(x, (6,), w, b), (x, w, b))
    assert torch.autograd.gradgradcheck(lambda x, w, b: F.group_norm(x.view(3, 6, 1), 3, w, b), (x, w, b))


# ---------------------------------------------------------------- group norm

GN_CASES = [((2, 6, 5, 5), 3), ((1, 4, 7), 2), ((3, 6), 6), ((2, 8, 3, 2, 2), 4), ((2, 1, 3), 1)]


@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
@pytest.mark.parametrize("shape,groups", GN_CASES, ids=str)
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm(dtype, shape, groups, affine):
    C = shape[1]
    x = make(shape, dtype, scale=1.5, shift=-0.5)
    w, b = (make(C, dtype, seed=2), make(C, dtype, seed=3)) if affine else (None, None)
    check(lambda x, w, b: F.group_norm(x, groups, w, b), x, w, b)


@pytest.mark.parametrize("shape,fmt", [((2, 6, 4, 3), torch.channels_last),
                                       ((2, 4, 3, 2, 2), torch.channels_last_3d)], ids=str)
def test_group_norm_channels_last(shape, fmt):
    x = make(shape).contiguous(memory_format=fmt)
    w, b = make(shape[1], seed=2), make(shape[1], seed=3)
    check(lambda x, w, b: F.group_norm(x, 2, w, b), x, w, b)
    out = F.group_norm(x.to("ocl"), 2, w.to("ocl"), b.to("ocl"))
    assert out.is_contiguous(memory_format=fmt)  # as the CPU: the input's memory format


def test_group_norm_large_and_noncontiguous():
    x = make((2, 4, 100_003 // 4 + 1))
    check(lambda x: F.group_norm(x, 2), x, tol=dict(rtol=1e-4, atol=2e-4))
    x = make((4, 6, 10))[:, :, ::2]
    check(lambda x: F.group_norm(x, 3), x)
    check(lambda x: torch.native_group_norm(x, None, None, 0, 4, 3, 2, 1e-5), make((0, 4, 3)), backward=False)


# ---------------------------------------------------------------- batch norm

def bn_pair(cls, C, dtype=torch.float32, **kw):
    cpu = cls(C, **kw).to(dtype)
    if cpu.affine:
        with torch.no_grad():
            cpu.weight.copy_(make(C, seed=5))
            cpu.bias.copy_(make(C, seed=6))
    dev = cls(C, **kw).to(dtype).to("ocl")
    dev.load_state_dict(cpu.state_dict())
    return cpu, dev


def close_or_no_worse(got, expected, exact, tol, what):
    """close(), or, where that fails for a half type, ocl's error against the
    float64 run `exact` no worse than the CPU's (CUDA's saved statistics stay
    in float32 where the CPU rounds them to the half type, so ocl's half
    gradients are the more accurate ones)."""
    try:
        close(got, expected, tol, what)
    except AssertionError:
        rtol, atol = (dict(TOL.get(expected.dtype, {}), **(tol or {}))[k] for k in ("rtol", "atol"))
        if exact is None or not no_worse_than_cpu(got.detach().cpu(), expected.detach(), exact.detach(), rtol, atol):
            raise


def run_steps(cpu, dev, shape, dtype, fmt=None, steps=3, tol=None):
    exact = copy.deepcopy(cpu).double() if dtype in (torch.float16, torch.bfloat16) else None
    for step in range(steps):
        x = make(shape, dtype, seed=10 + step, scale=2.0, shift=1.0)
        if fmt is not None:
            x = x.contiguous(memory_format=fmt)
        xc, xd = leaf(x, "cpu"), leaf(x, "ocl")
        xe = leaf(x.double(), "cpu") if exact is not None else None
        yc, yd = cpu(xc), dev(xd)
        ye = exact(xe) if exact is not None else None
        close(yd, yc, tol, f"step {step} output")
        if fmt is not None:
            assert yd.is_contiguous(memory_format=fmt)
        g = make(shape, dtype, seed=20 + step)
        yc.backward(g)
        yd.backward(g.to("ocl"))
        if exact is not None:
            ye.backward(g.double())
        close_or_no_worse(xd.grad, xc.grad, xe.grad if exact is not None else None, tol, f"step {step} input grad")
        pe = list(exact.parameters()) if exact is not None else [None] * len(list(dev.parameters()))
        for (name, pc), pd, p64 in zip(cpu.named_parameters(), dev.parameters(), pe):
            close_or_no_worse(pd.grad, pc.grad, p64.grad if p64 is not None else None, tol, f"step {step} {name} grad")
        be = list(exact.buffers()) if exact is not None else [None] * len(list(dev.buffers()))
        for (name, bc), bd, b64 in zip(cpu.named_buffers(), dev.buffers(), be):
            close_or_no_worse(bd, bc, b64, tol, f"step {step} {name}")


BN_CASES = [(torch.nn.BatchNorm1d, (8, 3)), (torch.nn.BatchNorm1d, (4, 3, 5)),
            (torch.nn.BatchNorm2d, (2, 3, 4, 5)), (torch.nn.BatchNorm3d, (2, 3, 2, 3, 2))]


@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
@pytest.mark.parametrize("cls,shape", BN_CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_batch_norm_train_then_eval(cls, shape, dtype):
    cpu, dev = bn_pair(cls, shape[1], dtype, momentum=0.3)
    run_steps(cpu, dev, shape, dtype)  # running stats updated as the CPU (unbiased var)
    assert int(dev.num_batches_tracked) == 3
    cpu.eval()
    dev.eval()
    run_steps(cpu, dev, shape, dtype, steps=1)  # eval: the running statistics


@pytest.mark.parametrize("cls,shape,fmt", [(torch.nn.BatchNorm2d, (2, 5, 3, 4), torch.channels_last),
                                           (torch.nn.BatchNorm3d, (2, 4, 3, 2, 2), torch.channels_last_3d)],
                         ids=["2d", "3d"])
def test_batch_norm_channels_last(cls, shape, fmt):
    cpu, dev = bn_pair(cls, shape[1])
    run_steps(cpu, dev, shape, torch.float32, fmt=fmt)
    cpu.eval()
    dev.eval()
    run_steps(cpu, dev, shape, torch.float32, fmt=fmt, steps=1)


def test_batch_norm_without_running_stats_and_affine():
    cpu, dev = bn_pair(torch.nn.BatchNorm2d, 3, track_running_stats=False, affine=False)
    run_steps(cpu, dev, (4, 3, 2, 2), torch.float32)
    cpu.eval()
    dev.eval()  # no running stats: eval normalizes with the batch statistics
    run_steps(cpu, dev, (4, 3, 2, 2), torch.float32, steps=1)


def test_batch_norm_cumulative_momentum():
    cpu, dev = bn_pair(torch.nn.BatchNorm1d, 4, momentum=None)
    run_steps(cpu, dev, (6, 4), torch.float32, steps=4)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=dname)
def test_batch_norm_mixed_dtype(dtype):
    # half / bfloat16 input with float parameters and running stats (autocast style).
    x = make((4, 3, 5), dtype)
    w, b, rm, rv = make(3, seed=2), make(3, seed=3), make(3, seed=4), make(3, seed=5).abs() + 0.5
    for train in (True, False):
        def fn(x, w, b):
            out = torch.native_batch_norm(x, w, b, rm.to(x.device, copy=True), rv.to(x.device, copy=True),
                                          train, 0.1, 1e-5)
            # the saved statistics as CUDA (and ocl) save them
            return out if x.device.type == "ocl" else cuda_batch_norm_stats(out, x, rm, rv, 1e-5)
        check(fn, x, w, b, tol=TOL[dtype])


def test_batch_norm_large():
    cpu, dev = bn_pair(torch.nn.BatchNorm1d, 3)
    run_steps(cpu, dev, (33_335, 3), torch.float32, steps=1, tol=dict(rtol=1e-4, atol=5e-4))
    cpu, dev = bn_pair(torch.nn.BatchNorm1d, 1)
    run_steps(cpu, dev, (1, 1, 100_003), torch.float32, steps=1, tol=dict(rtol=1e-4, atol=5e-4))


def test_batch_norm_noncontiguous_input():
    cpu, dev = bn_pair(torch.nn.BatchNorm2d, 3)
    x = make((3, 4, 5, 6)).permute(1, 0, 3, 2)[:, :, ::2]  # [4, 3, 3, 5], no standard layout
    check(lambda x: cpu(x) if x.device.type == "cpu" else dev(x), x)
    close(dev.running_mean, cpu.running_mean)
    close(dev.running_var, cpu.running_var)


@pytest.mark.parametrize("mask", [(1, 1, 1), (1, 0, 0), (0, 1, 1), (0, 0, 1)], ids=str)
@pytest.mark.parametrize("train", [True, False])
def test_native_batch_norm_backward_output_mask(mask, train):
    x, dy = make((4, 3, 5)), make((4, 3, 5), seed=9)
    w, rm, rv = make(3, seed=2), make(3, seed=4), make(3, seed=5).abs() + 0.5
    _, sm, si = torch.native_batch_norm(x, w, None, rm.clone(), rv.clone(), train, 0.1, 1e-5)
    args = [dy, x, w, rm, rv, sm, si]
    expected = torch.ops.aten.native_batch_norm_backward(*args, train, 1e-5, list(map(bool, mask)))
    got = torch.ops.aten.native_batch_norm_backward(*[a.to("ocl") for a in args], train, 1e-5,
                                                    list(map(bool, mask)))
    close(got, expected)


def test_batch_norm_entry_points():
    x, w, b = make((4, 3, 5)), make(3, seed=2), make(3, seed=3)
    rm, rv = make(3, seed=4), make(3, seed=5).abs() + 0.5
    o = lambda t: t.to("ocl")
    aten = torch.ops.aten
    for train in (True, False):
        # _native_batch_norm_legit updates the running stats in place
        rmc, rvc, rmd, rvd = rm.clone(), rv.clone(), o(rm), o(rv)
        close(aten._native_batch_norm_legit(o(x), o(w), o(b), rmd, rvd, train, 0.2, 1e-5),
              cuda_batch_norm_stats(aten._native_batch_norm_legit(x, w, b, rmc, rvc, train, 0.2, 1e-5), x, rmc, rvc, 1e-5))
        close((rmd, rvd), (rmc, rvc))
    close(aten._native_batch_norm_legit.no_stats(o(x), o(w), o(b), True, 0.2, 1e-5),
          aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.2, 1e-5))
    close(aten._native_batch_norm_legit_no_training(o(x), o(w), o(b), o(rm), o(rv), 0.2, 1e-5),
          cuda_batch_norm_stats(aten._native_batch_norm_legit_no_training(x, w, b, rm, rv, 0.2, 1e-5), x, rm, rv, 1e-5))
    close(aten._native_batch_norm_legit_functional(o(x), o(w), o(b), o(rm), o(rv), True, 0.2, 1e-5),
          aten._native_batch_norm_legit_functional(x, w, b, rm, rv, True, 0.2, 1e-5))
    rmc, rvc, rmd, rvd = rm.clone(), rv.clone(), o(rm), o(rv)
    got = aten._batch_norm_with_update(o(x), o(w), o(b), rmd, rvd, 0.2, 1e-5)
    expected = aten._batch_norm_with_update(x, w, b, rmc, rvc, 0.2, 1e-5)
    close(got[:3], expected[:3])
    close((rmd, rvd), (rmc, rvc))
    dy = make((4, 3, 5), seed=9)
    close(aten.batch_norm_backward(o(dy), o(x), o(w), o(rm), o(rv), got[1], got[2], True, 1e-5,
                                   [True, True, True], got[3]),
          aten.batch_norm_backward(dy, x, w, rm, rv, expected[1], expected[2], True, 1e-5,
                                   [True, True, True], expected[3]))
    close(aten._batch_norm_no_update(o(x), o(w), o(b), o(rm), o(rv), 0.2, 1e-5)[:3],
          cuda_batch_norm_stats(aten._batch_norm_no_update(x, w, b, rm, rv, 0.2, 1e-5), x, rm, rv, 1e-5)[:3])
    rmc, rvc, rmd, rvd = rm.clone(), rv.clone(), o(rm), o(rv)
    close(aten.batch_norm_update_stats(o(x), rmd, rvd, 0.3), aten.batch_norm_update_stats(x, rmc, rvc, 0.3))
    close((rmd, rvd), (rmc, rvc))


def test_batch_norm_out_variants(strict):
    # out= gives what the functional gives (CUDA's batch_norm_cuda_out), resizing
    # the given tensors; an out tensor on another device is refused
    x, w, b = make((4, 3, 5)), make(3, seed=2), make(3, seed=3)
    rm, rv = make(3, seed=4), make(3, seed=5).abs() + 0.5
    o = lambda t: t.to("ocl")  # noqa: E731
    aten = torch.ops.aten
    for train in (True, False):
        outs = [torch.empty(0, device="ocl") for _ in range(3)]
        rmd, rvd, rmf, rvf = o(rm), o(rv), o(rm), o(rv)
        got = aten._native_batch_norm_legit.out(o(x), o(w), o(b), rmd, rvd, train, 0.2, 1e-5,
                                                out=outs[0], save_mean=outs[1], save_invstd=outs[2])
        assert all(g is t for g, t in zip(got, outs))
        expected = aten._native_batch_norm_legit(o(x), o(w), o(b), rmf, rvf, train, 0.2, 1e-5)
        close(tuple(outs), tuple(e.cpu() for e in expected))
        close((rmd, rvd), (rmf.cpu(), rvf.cpu()))
        outs = [torch.empty(7, device="ocl") for _ in range(3)]
        aten.native_batch_norm.out(o(x), o(w), o(b), o(rm), o(rv), train, 0.2, 1e-5,
                                   out=outs[0], save_mean=outs[1], save_invstd=outs[2])
        expected = aten.native_batch_norm(o(x), o(w), o(b), o(rm), o(rv), train, 0.2, 1e-5)
        close(tuple(outs), tuple(e.cpu() for e in expected))
    outs = [torch.empty(0, device="ocl") for _ in range(3)]
    aten._native_batch_norm_legit.no_stats_out(o(x), o(w), o(b), True, 0.2, 1e-5,
                                               out=outs[0], save_mean=outs[1], save_invstd=outs[2])
    close(tuple(outs), aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.2, 1e-5))
    with pytest.raises(RuntimeError, match="device"):
        aten.native_batch_norm.out(o(x), o(w), o(b), o(rm), o(rv), True, 0.2, 1e-5,
                                   out=torch.empty(0), save_mean=torch.empty(0, device="ocl"),
                                   save_invstd=torch.empty(0, device="ocl"))


# ---------------------------------------------------------------- instance norm

@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=dname)
@pytest.mark.parametrize("running", [False, True])
@pytest.mark.parametrize("affine", [False, True])
def test_instance_norm(dtype, running, affine):
    C = 3
    x = make((2, C, 4, 5), dtype, shift=0.7)
    w, b = (make(C, dtype, seed=2), make(C, dtype, seed=3)) if affine else (None, None)
    rm, rv = (make(C, dtype, seed=4), make(C, dtype, seed=5).abs() + 0.5) if running else (None, None)
    stats = {}

    def fn(x, w, b):
        dev = x.device.type
        m = rm.to(x.device, copy=True) if running else None
        v = rv.to(x.device, copy=True) if running else None
        out = F.instance_norm(x, m, v, w, b, use_input_stats=True, momentum=0.2)
        stats[dev] = (m, v)
        return out

    check(fn, x, w, b)
    if running:
        close(stats["ocl"], stats["cpu"])
        check(lambda x: F.instance_norm(x, rm.to(x.device), rv.to(x.device), use_input_stats=False), x)


# ---------------------------------------------------------------- errors

def raises_like_cpu(fn, *cpu_args):
    with pytest.raises(Exception) as cpu_exc:
        fn(*cpu_args)
    with pytest.raises(type(cpu_exc.value)) as ocl_exc:
        fn(*[a.to("ocl") if isinstance(a, torch.Tensor) else a for a in cpu_args])
    assert str(ocl_exc.value).split("\n")[0] == str(cpu_exc.value).split("\n")[0]


def test_errors_match_cpu():
    xi = torch.arange(12).view(2, 6)
    raises_like_cpu(lambda x: F.layer_norm(x, (6,)), xi)
    raises_like_cpu(lambda x: F.group_norm(x, 3), xi.view(2, 6, 1))
    raises_like_cpu(lambda x: torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5), xi)
    x = make((2, 6))
    raises_like_cpu(lambda x: F.layer_norm(x, (5,)), x)
    raises_like_cpu(lambda x, w: F.layer_norm(x, (6,), w), x, make(5))
    raises_like_cpu(lambda x: F.group_norm(x, 4), x.view(2, 6, 1))
    raises_like_cpu(lambda x, w: F.group_norm(x, 3, w), x.view(2, 6, 1), make(4))
    raises_like_cpu(lambda x: torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5), make((0, 3)))
    raises_like_cpu(lambda x, m: F.batch_norm(x, m, m), x, make(4))
    raises_like_cpu(lambda x, w: torch.native_layer_norm(x, (6,), w, None, 1e-5), x.bfloat16(), make(6).double())


def test_parameters_on_another_device_raise():
    x = make((2, 6)).to("ocl")
    for fn in (lambda: F.layer_norm(x, (6,), torch.ones(6)), lambda: F.group_norm(x.view(2, 6, 1), 3, torch.ones(6)),
               lambda: F.batch_norm(x, torch.zeros(6), torch.ones(6))):
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            fn()


def test_batch_norm_eval_without_running_stats_raises():
    # (The CPU crashes on this direct call; ocl raises.)
    with pytest.raises(RuntimeError, match="running_mean and running_var must be defined"):
        torch.native_batch_norm(make((2, 3)).to("ocl"), None, None, None, None, False, 0.1, 1e-5)


def test_complex_input_goes_to_the_cpu_fallback():
    x = torch.randn(2, 4, dtype=torch.complex64)
    with torch.ocl.fallback_mode("silent"):
        with pytest.raises(Exception) as ocl_exc:
            F.layer_norm(x.to("ocl"), (4,))
    with pytest.raises(type(ocl_exc.value)):
        F.layer_norm(x, (4,))


# ---------------------------------------------------------------- a training step

def test_sequential_sgd_steps_match_cpu():
    # Linear + LayerNorm + BatchNorm1d + GroupNorm, two SGD (momentum) steps.
    # The parameters after them, running stats included, are compared with a
    # float64 CPU run: ocl must be as close to it as the float32 CPU run is
    # (this small net amplifies rounding: the two float32 runs differ by ~1e-4).
    torch.manual_seed(0)
    cpu = torch.nn.Sequential(
        torch.nn.Linear(12, 16), torch.nn.LayerNorm(16), torch.nn.ReLU(),
        torch.nn.Linear(16, 8), torch.nn.BatchNorm1d(8), torch.nn.Tanh(),
        torch.nn.Unflatten(1, (8, 1)), torch.nn.GroupNorm(4, 8), torch.nn.Flatten(), torch.nn.Linear(8, 3))
    runs = [(cpu, "cpu", torch.float32), (copy.deepcopy(cpu).to("ocl"), "ocl", torch.float32),
            (copy.deepcopy(cpu).double(), "cpu", torch.float64)]
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m, _, _ in runs]
    for step in range(2):
        x, target = make((10, 12), seed=step), make((10, 3), seed=50 + step)
        for (model, device, dtype), opt in zip(runs, opts):
            opt.zero_grad()
            loss = (model(x.to(device, dtype)) - target.to(device, dtype)).square().mean()
            loss.backward()
            opt.step()
    states = [m.state_dict() for m, _, _ in runs]
    for name, ref in states[2].items():
        cpu_value, ocl_value = states[0][name], states[1][name]
        assert ocl_value.device.type == "ocl" and ocl_value.dtype == cpu_value.dtype, name
        if not ref.is_floating_point():
            assert torch.equal(ocl_value.cpu(), cpu_value), name
            continue
        cpu_err = (cpu_value.double() - ref).abs().max().item()
        ocl_err = (ocl_value.cpu().double() - ref).abs().max().item()
        assert ocl_err <= 2 * cpu_err + 1e-6, (name, ocl_err, cpu_err)
        close(ocl_value, cpu_value, dict(rtol=1e-2, atol=1e-3), name)


# ---------------------------------------------------------------- OpInfo samples

OPINFOS = ["native_layer_norm", "nn.functional.layer_norm", "native_group_norm", "nn.functional.group_norm",
           "native_batch_norm", "_native_batch_norm_legit", "_batch_norm_with_update", "nn.functional.batch_norm",
           "nn.functional.instance_norm", "nn.functional.rms_norm"]


@pytest.mark.parametrize("name", OPINFOS)
def test_opinfo_samples_native(name):
    op = op_db_by_name()[name]
    dtypes = op_dtypes(op)
    assert dtypes
    for dtype in dtypes:
        result = check_op(op, dtype, "ocl")  # every sample, forward and gradients
        assert result.status == "native" and result.samples > 0, (name, result.to_json())
        assert result.backward


def test_statistics_as_cuda_gives_them():
    # layer norm's mean / rstd in float32 for half input; batch norm saves [C]
    # statistics in evaluation (the running mean, 1 / sqrt(var + eps))
    x = make((2, 3, 4), torch.float16).to("ocl")
    _, mean, rstd = torch.native_layer_norm(x, (4,), None, None, 1e-5)
    assert mean.dtype == rstd.dtype == torch.float32 and mean.shape == (2, 3, 1)
    close(mean, x.cpu().float().mean(-1, keepdim=True), dict(rtol=1e-5, atol=1e-5))
    rm, rv = make(3, seed=4), make(3, seed=5).abs() + 0.5
    _, sm, si = torch.native_batch_norm(x, None, None, rm.to("ocl"), rv.to("ocl"), False, 0.1, 1e-5)
    close((sm, si), (rm, (rv + 1e-5).rsqrt()))
    meta = torch.native_batch_norm(x.to("meta"), None, None, rm.to("meta"), rv.to("meta"), False, 0.1, 1e-5)
    assert [(t.shape, t.dtype) for t in meta] == [(t.shape, t.dtype) for t in (x, sm, si)]
