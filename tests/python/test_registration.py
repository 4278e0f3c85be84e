"""The one registration front (kernels/register_op.h): every native overload,
whichever way it is registered (table row, register_structured, register_op),
checks devices as CUDA does and sends dtypes its kernels do not take to the
counted CPU fallback, which gives the CPU's result."""

import pytest
import torch
import torch.nn.functional as F

from cpu_reference import assert_matches_cpu, run_both

# (what, fn, CPU input maker, the fallback op it must count): one op per way
# of registering, each with a dtype its kernels do not take.
CASES = [
    # register_op, default gate takes_real: complex64
    ("adaptive_avg_pool2d complex64", lambda a: F.adaptive_avg_pool2d(a, 2),
     lambda: torch.randn(1, 2, 3, 3, dtype=torch.complex64), "aten::_adaptive_avg_pool2d"),
    # register_op, gate takes_floating (the pads' backward): complex64
    ("reflection_pad2d_backward complex64",
     lambda a: torch.ops.aten.reflection_pad2d_backward(a, a[:, :, :2, :2], [1, 1, 1, 1]),
     lambda: torch.randn(1, 2, 4, 4, dtype=torch.complex64), "aten::reflection_pad2d_backward"),
    # register_structured with gate gemm_native: bool (the CPU raises; its error comes back)
    ("mm bool", lambda a: a @ a, lambda: torch.rand(3, 3) > 0.5, "aten::mm"),
    # register_op with a family predicate (im2col): complex64
    ("im2col complex64", lambda a: F.unfold(a, 2), lambda: torch.randn(1, 2, 3, 3, dtype=torch.complex64),
     "aten::im2col"),
    # register_op (gate gemm_native): bool (the CPU raises; its error comes back)
    ("addbmm bool", lambda a: torch.addbmm(a[0], a, a), lambda: torch.rand(2, 3, 3) > 0.5, "aten::addbmm"),
    # register_structured (upsample backward, gate takes_floating): complex64
    ("upsample_nearest2d_backward complex64",
     lambda a: torch.ops.aten.upsample_nearest2d_backward(a, [2, 2], [1, 1, 1, 1]),
     lambda: torch.randn(1, 1, 2, 2, dtype=torch.complex64), "aten::upsample_nearest2d_backward"),
]


@pytest.mark.parametrize("what,fn,make,fallback_op", CASES, ids=[c[0] for c in CASES])
def test_dtype_without_kernels_runs_on_the_counted_fallback(what, fn, make, fallback_op, fallback_stats):
    x = make()
    with torch.ocl.fallback_mode("silent"):
        run_both(fn, x)
    assert fallback_stats().get(fallback_op, 0) >= 1, (what, fallback_stats())


@pytest.mark.parametrize("what,fn,make,fallback_op", CASES, ids=[c[0] for c in CASES])
def test_strict_mode_names_the_gated_op(what, fn, make, fallback_op, strict):
    with pytest.raises(RuntimeError, match=fallback_op):
        fn(make().to("ocl"))


@pytest.mark.parametrize("fn,op", [
    (lambda a, b: a @ b, "aten::mm"),                                        # register_structured
    (lambda a, b: torch.dot(a[0], b[0]), "aten::dot"),                       # register_op
    (lambda a, b: F.layer_norm(a, (3,), b[0]), "aten::native_layer_norm"),   # register_op (was its own check)
    (lambda a, b: F.pad(a[None], (1, 1), mode="reflect").add(b[0]), "aten::add"),  # pointwise row
])
def test_cpu_tensor_among_ocl_tensors_raises_cudas_error(fn, op):
    a = torch.randn(3, 3, device="ocl")
    b = torch.randn(3, 3)  # on the CPU, not 0-dim
    with pytest.raises(RuntimeError, match=r"Expected all tensors to be on the same device.*" + op):
        fn(a, b)


def test_fallback_in_place_and_out_overloads_write_their_ocl_arguments(fallback_stats):
    """The fallback's results come back into self (in-place) and out= (the
    front returns the written argument, not a copy): mvlgamma's out= form,
    which its in-place form calls, has no ocl kernel."""
    a = torch.rand(3, 3) + 1
    out = torch.empty(3, 3, device="ocl")
    with torch.ocl.fallback_mode("silent"):
        r = torch.mvlgamma(a.to("ocl"), 2, out=out)
        s = a.to("ocl")
        t = s.mvlgamma_(2)
    assert r is out and t is s
    assert_matches_cpu(out, torch.mvlgamma(a, 2))
    assert_matches_cpu(s, torch.mvlgamma(a, 2))
    assert fallback_stats().get("aten::mvlgamma.out", 0) == 2, fallback_stats()
