"""Resampling ops on ocl against PyTorch CPU: upsampling (F.interpolate, with
antialias too),
reflection / replication / circular padding (F.pad), im2col / col2im
(F.unfold / F.fold), grid_sample (+ affine_grid), Tensor.unfold's backward,
channel / pixel shuffle.

Every test runs under the `strict` fixture (a missing native kernel raises),
compares forward results and input gradients with the CPU on the same values,
and covers odd sizes, down- and up-sampling, non-integer scale factors,
batch-less inputs, channels_last and non-contiguous inputs. float64 is
compared tightly; float16 / bfloat16 against the CPU computing in float32 on
the same (rounded) values, rounded at the end, at a half-type tolerance (the
CPU accumulates some of these ops in the half type, ocl in float). Bad input
raises the CPU's exception type and message.
"""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from dtype_lists import dname

OCL = "ocl"
HALF_TOL = {torch.float16: dict(rtol=1e-2, atol=1e-2), torch.bfloat16: dict(rtol=3e-2, atol=3e-2)}


def compare(fn, *inputs, grad=True, dtype=None, tol=None, prepare=None):
    """fn on CPU and on ocl (same values); forward and, with grad, the input
    gradients for one random upstream gradient. With a half `dtype` the CPU
    reference runs in float32 on the half-rounded inputs. `prepare` gives
    both sides' inputs the same view or memory layout."""
    dtype = dtype or inputs[0].dtype
    half = dtype in HALF_TOL
    ref_in = [x.to(torch.float32) if half and x.is_floating_point() else x for x in inputs]
    dev_in = [x.detach().to(OCL) for x in inputs]
    if prepare:  # the same view / layout on both sides
        ref_in = [prepare(x.detach()) for x in ref_in]
        dev_in = [prepare(x) for x in dev_in]
    ref_in = [x.detach().requires_grad_(grad and x.is_floating_point()) for x in ref_in]
    dev_in = [x.requires_grad_(grad and x.is_floating_point()) for x in dev_in]
    ref = fn(*ref_in)
    out = fn(*dev_in)
    assert out.device.type == OCL
    t = tol or (HALF_TOL[dtype] if half else {})
    assert_close(out.cpu(), ref.to(out.dtype), **t)
    if not grad:
        return out
    g = torch.randn(ref.shape, dtype=out.dtype)
    ref.backward(g.to(ref.dtype))
    out.backward(g.to(OCL))
    for a, b in zip(dev_in, ref_in):
        if b.requires_grad:
            assert a.grad is not None
            assert_close(a.grad.cpu(), b.grad.to(a.dtype), **t)
    return out


def same_error(fn, x):
    """fn raises on CPU and on ocl with the same type and message."""
    with pytest.raises(Exception) as cpu:
        fn(x)
    with pytest.raises(type(cpu.value)) as dev:
        fn(x.to(OCL))
    assert str(cpu.value) == str(dev.value)


# ---------------------------------------------------------------- upsampling

MODES = [  # (mode, align_corners, spatial dims)
    ("nearest", None, 1), ("nearest", None, 2), ("nearest", None, 3),
    ("nearest-exact", None, 1), ("nearest-exact", None, 2), ("nearest-exact", None, 3),
    ("linear", False, 1), ("linear", True, 1),
    ("bilinear", False, 2), ("bilinear", True, 2),
    ("bicubic", False, 2), ("bicubic", True, 2),
    ("trilinear", False, 3), ("trilinear", True, 3),
]
SPATIAL = {1: (7,), 2: (5, 6), 3: (3, 4, 5)}


def mode_id(m):
    return f"{m[0]}-{m[2]}d" + ("" if m[1] is None else f"-ac{int(m[1])}")


def interp(mode, ac, **kw):
    extra = {} if ac is None else {"align_corners": ac}
    return lambda x: F.interpolate(x, mode=mode, **extra, **kw)


@pytest.mark.parametrize("m", MODES, ids=mode_id)
@pytest.mark.parametrize("how", ["up", "down", "odd", "scale", "scale_kept", "same"])
def test_upsample_modes(strict, m, how):
    mode, ac, dims = m
    x = torch.randn(2, 3, *SPATIAL[dims], dtype=torch.float64)
    if how == "up":
        kw = dict(size=tuple(2 * s for s in SPATIAL[dims]))
    elif how == "down":
        kw = dict(size=tuple(max(1, s // 2) for s in SPATIAL[dims]))
    elif how == "odd":
        kw = dict(size=(11, 3, 7)[-dims:] if dims > 1 else (11,))
    elif how == "scale":
        kw = dict(scale_factor=1.7)
    elif how == "scale_kept":  # the scale itself drives the source index
        kw = dict(scale_factor=(0.6, 2.3, 1.45)[-dims:], recompute_scale_factor=False)
    else:
        kw = dict(size=SPATIAL[dims])
    compare(interp(mode, ac, **kw), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=dname)
@pytest.mark.parametrize("m", [MODES[1], MODES[4], MODES[8], MODES[11], MODES[12]], ids=mode_id)
def test_upsample_dtypes(strict, m, dtype):
    mode, ac, dims = m
    x = torch.randn(2, 3, *SPATIAL[dims]).to(dtype)
    compare(interp(mode, ac, scale_factor=2.5), x, dtype=dtype)


@pytest.mark.parametrize("m", [MODES[1], MODES[4], MODES[9], MODES[10], MODES[13]], ids=mode_id)
def test_upsample_layouts(strict, m):
    mode, ac, dims = m
    fn = interp(mode, ac, scale_factor=1.5)
    x = torch.randn(2, 5, *SPATIAL[dims], dtype=torch.float64)
    if dims in (2, 3):  # channels_last input: the output keeps it
        fmt = torch.channels_last if dims == 2 else torch.channels_last_3d
        out = compare(fn, x, prepare=lambda t: t.contiguous(memory_format=fmt))
        assert out.is_contiguous(memory_format=fmt)
    compare(fn, x, prepare=lambda t: t.transpose(0, 1))  # non-contiguous
    big = torch.randn(2, 5, *[2 * s + 1 for s in SPATIAL[dims]], dtype=torch.float64)
    compare(fn, big, prepare=lambda t: t[..., ::2])  # sliced with a step


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("ac", [False, True], ids=["ac0", "ac1"])
@pytest.mark.parametrize("kw", [dict(size=(3, 4)), dict(size=(11, 13)), dict(scale_factor=0.3),
                                dict(scale_factor=(0.45, 1.7), recompute_scale_factor=False)],
                         ids=["down", "up", "scale", "scale_kept"])
def test_upsample_antialias(strict, mode, ac, kw):
    x = torch.randn(2, 3, 10, 12, dtype=torch.float64)
    compare(lambda t: F.interpolate(t, mode=mode, align_corners=ac, antialias=True, **kw), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=dname)
def test_upsample_antialias_dtypes(strict, dtype):
    x = torch.randn(2, 3, 10, 12).to(dtype)
    compare(lambda t: F.interpolate(t, size=(4, 5), mode="bicubic", antialias=True), x, dtype=dtype,
            prepare=lambda t: t.contiguous(memory_format=torch.channels_last))


def test_upsample_uint8_nearest(strict):
    x = torch.randint(0, 256, (2, 3, 5, 7), dtype=torch.uint8)
    for mode in ("nearest", "nearest-exact"):
        compare(interp(mode, None, scale_factor=1.7), x, grad=False)
    compare(interp("nearest", None, scale_factor=2), x[:, :, 0], grad=False)


def test_upsample_large(strict):
    x = torch.randn(1, 1, 100_003)
    compare(interp("linear", False, size=50_001), x)
    compare(interp("nearest", None, scale_factor=1.3), x)


def test_upsample_empty_batch(strict):
    x = torch.randn(0, 3, 4, 5)
    out = F.interpolate(x.to(OCL), scale_factor=2, mode="bilinear")
    assert out.shape == F.interpolate(x, scale_factor=2, mode="bilinear").shape


def test_upsample_backward_ops_direct(strict):
    """The *_backward ops called directly (as autograd does), out= included."""
    g = torch.randn(2, 3, 9, 10, dtype=torch.float64)
    args = ([9, 10], [2, 3, 4, 5], True, None, None)
    ref = torch.ops.aten.upsample_bicubic2d_backward(g, *args)
    out = torch.empty(0, dtype=torch.float64, device=OCL)
    torch.ops.aten.upsample_bicubic2d_backward.grad_input(g.to(OCL), *args, grad_input=out)
    assert_close(out.cpu(), ref)
    ref = torch.ops.aten.upsample_nearest2d_backward(g, [9, 10], [2, 3, 4, 5], 2.25, 2.0)
    assert_close(torch.ops.aten.upsample_nearest2d_backward(g.to(OCL), [9, 10], [2, 3, 4, 5], 2.25, 2.0).cpu(), ref)


def test_upsample_errors(strict):
    x = torch.randn(2, 3, 4, 5)
    same_error(lambda t: F.interpolate(t, size=(0, 3), mode="bilinear"), x)
    same_error(lambda t: torch.ops.aten.upsample_bilinear2d(t, [3, 3], False), x[0])
    same_error(lambda t: torch.ops.aten.upsample_nearest1d(t, [3]), x)
    same_error(lambda t: torch.ops.aten.upsample_nearest2d(t, [4, 4]), torch.randn(2, 0, 4, 5))
    same_error(lambda t: torch.ops.aten.upsample_nearest2d_backward(t, [8, 8], [2, 3, 4, 5]), torch.randn(2, 3, 8, 9))


def test_upsample_integer_dtypes(fallback_stats):
    """nearest modes raise for integer dtypes but uint8, and for bool, as the CPU
    and CUDA do (without a fallback call); linear and cubic modes raise for
    integral dtypes as CUDA does, where the CPU has a uint8 path (upstream
    test_nn's test_upsamplingBiMode2d_nonsupported_dtypes)."""
    x = torch.randint(0, 100, (1, 2, 3, 4), dtype=torch.int32)
    for dtype, name in [(torch.int32, "Int"), (torch.int8, "Char"), (torch.bool, "Bool")]:
        for mode in ("nearest", "nearest-exact"):
            with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
                F.interpolate(x.to(dtype).to(OCL), scale_factor=2, mode=mode)
            with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
                F.interpolate(x.to(dtype), scale_factor=2, mode=mode)
    assert not fallback_stats(), fallback_stats()
    for dtype in (torch.uint8, torch.int32, torch.bool):
        u = x.to(dtype).to(OCL)
        for mode, antialias in [("bilinear", False), ("bilinear", True), ("bicubic", False), ("bicubic", True)]:
            with pytest.raises(NotImplementedError, match="not implemented for"):
                F.interpolate(u, scale_factor=1.5, mode=mode, antialias=antialias)
        with pytest.raises(NotImplementedError, match="not implemented for"):
            F.interpolate(u[0], scale_factor=1.5, mode="linear")


# ---------------------------------------------------------------- padding

PADS = [  # (input shape, pad)
    ((2, 3, 7), (2, 3)), ((3, 7), (1, -2)), ((2, 3, 6), (0, 5)),
    ((2, 3, 5, 6), (1, 2, 3, 4)), ((3, 5, 6), (-1, 2, 0, -2)),
    ((2, 2, 4, 5, 6), (1, 2, 3, 0, 2, 1)), ((2, 4, 5, 6), (1, 1, -1, 2, 1, 1)),
]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("case", PADS, ids=lambda c: f"{len(c[0])}d-{c[1]}")
def test_pad_modes(strict, mode, case):
    shape, pad = case
    x = torch.randn(*shape, dtype=torch.float64)
    compare(lambda t: F.pad(t, pad, mode=mode), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=dname)
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_pad_dtypes(strict, mode, dtype):
    x = torch.randn(2, 3, 5, 6).to(dtype)
    compare(lambda t: F.pad(t, (2, 1, 1, 3), mode=mode), x, dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.int32, torch.uint8, torch.int64], ids=dname)
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_pad_integers(strict, mode, dtype):
    x = torch.randint(0, 100, (2, 3, 5, 6)).to(dtype)
    compare(lambda t: F.pad(t, (2, 1, 1, 3), mode=mode), x, grad=False)
    compare(lambda t: F.pad(t, (2, 3), mode=mode), x[0], grad=False)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=dname)
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_pad_complex_forward(strict, mode, dtype):
    # the forward moves bits (one program per element size); the backward of complex falls back
    x = torch.randn(2, 3, 5, 6, dtype=dtype)
    compare(lambda t: F.pad(t, (2, 1, 1, 3), mode=mode), x, grad=False)
    compare(lambda t: F.pad(t, (1, 2, 0, 1, 2, 1), mode=mode), x[:, :, :, ::2].unsqueeze(0), grad=False)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_pad_layouts(strict, mode):
    x = torch.randn(2, 4, 5, 6, dtype=torch.float64)
    out = compare(lambda t: F.pad(t, (1, 2, 2, 1), mode=mode), x,
                  prepare=lambda t: t.contiguous(memory_format=torch.channels_last))
    assert out.is_contiguous(memory_format=torch.channels_last)
    compare(lambda t: F.pad(t, (1, 2, 2, 1), mode=mode), x, prepare=lambda t: t.transpose(2, 3))
    x3 = torch.randn(2, 3, 4, 5, 6, dtype=torch.float64)
    compare(lambda t: F.pad(t, (1, 2, 2, 1, 1, 1), mode=mode), x3, prepare=lambda t: t[:, :, :, ::2])
    compare(lambda t: F.pad(t, (3, 4), mode=mode), torch.randn(1, 1, 100_003))


def test_pad_errors(strict):
    x = torch.randn(2, 3, 4, 5)
    same_error(lambda t: F.pad(t, (5, 1, 1, 1), mode="reflect"), x)
    same_error(lambda t: F.pad(t, (1, 1, 1, 4), mode="reflect"), x)
    same_error(lambda t: F.pad(t, (5, 0), mode="reflect"), x[0, 0])
    same_error(lambda t: F.pad(t, (1, 1, 1, 1, 4, 1), mode="reflect"), torch.randn(1, 2, 4, 5, 6))
    same_error(lambda t: F.pad(t, (-3, -3), mode="replicate"), x[0])
    same_error(lambda t: torch.ops.aten.reflection_pad2d(t, [1, 1, 1, 1]), torch.randn(5, 6))
    same_error(lambda t: torch.ops.aten.replication_pad2d_backward(t, torch.randn(1, 2, 3, 3).to(t.device),
                                                                   [1, 1, 1, 1]), torch.randn(1, 2, 6, 5))


def test_pad_backward_ops_direct(strict):
    g = torch.randn(1, 2, 6, 7, dtype=torch.float64)
    x = torch.randn(1, 2, 4, 5, dtype=torch.float64)
    for op in (torch.ops.aten.reflection_pad2d_backward, torch.ops.aten.replication_pad2d_backward):
        ref = op(g, x, [1, 1, 1, 1])
        out = torch.empty(0, dtype=torch.float64, device=OCL)
        op.grad_input(g.to(OCL), x.to(OCL), [1, 1, 1, 1], grad_input=out)
        assert_close(out.cpu(), ref)


# ---------------------------------------------------------------- unfold / fold

FOLDS = [
    ((2, 3, 7, 8), dict(kernel_size=(2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))),
    ((3, 5, 5), dict(kernel_size=2)),
    ((1, 2, 6, 6), dict(kernel_size=3, padding=2, stride=3)),
]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16], ids=dname)
@pytest.mark.parametrize("case", FOLDS, ids=["strided", "batchless", "padded"])
def test_unfold_fold(strict, case, dtype):
    shape, kw = case
    x = torch.randn(*shape).to(dtype)
    cols = compare(lambda t: F.unfold(t, **kw), x, dtype=dtype)
    compare(lambda t: F.fold(t, shape[-2:], **kw), cols.detach().cpu(), dtype=dtype)
    compare(lambda t: F.unfold(t, **kw), x, dtype=dtype, prepare=lambda t: t.transpose(-1, -2).transpose(-1, -2)
            if t.dim() < 4 else t.contiguous(memory_format=torch.channels_last))


def test_unfold_fold_bool_and_out(strict):
    x = torch.rand(2, 3, 5, 5) > 0.5
    compare(lambda t: F.unfold(t, 2), x, grad=False)
    cols = torch.rand(2, 12, 16) > 0.7
    compare(lambda t: F.fold(t, (5, 5), 2), cols, grad=False)
    out = torch.empty(0, device=OCL)
    xf = torch.randn(2, 3, 5, 5)
    torch.ops.aten.im2col.out(xf.to(OCL), [2, 2], [1, 1], [0, 0], [1, 1], out=out)
    assert_close(out.cpu(), torch.ops.aten.im2col(xf, [2, 2], [1, 1], [0, 0], [1, 1]))


def test_unfold_fold_errors(strict):
    same_error(lambda t: F.unfold(t, 4), torch.randn(1, 2, 3, 3))
    same_error(lambda t: F.unfold(t, 2), torch.randn(2, 3))
    same_error(lambda t: F.fold(t, (4, 4), 2), torch.randn(1, 5, 9))
    same_error(lambda t: F.fold(t, (4, 4), 2), torch.randn(1, 4, 7))


# ---------------------------------------------------------------- grid_sample

GS = [(d, m, p, ac) for d in (2, 3) for m in ("bilinear", "nearest", "bicubic") for p in ("zeros", "border", "reflection")
      for ac in (False, True) if not (d == 3 and m == "bicubic")]


@pytest.mark.parametrize("case", GS, ids=lambda c: f"{c[0]}d-{c[1]}-{c[2]}-ac{int(c[3])}")
def test_grid_sample(strict, case):
    dims, mode, pad, ac = case
    x = torch.randn(*((2, 3, 5, 6) if dims == 2 else (2, 3, 4, 5, 6)), dtype=torch.float64)
    grid = torch.rand(*((2, 4, 7, 2) if dims == 2 else (2, 3, 4, 5, 3)), dtype=torch.float64) * 2.6 - 1.3
    compare(lambda t, g: F.grid_sample(t, g, mode=mode, padding_mode=pad, align_corners=ac), x, grid,
            tol=dict(rtol=1e-9, atol=1e-9))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=dname)
def test_grid_sample_dtypes_layouts(strict, dtype):
    x = torch.randn(2, 3, 5, 6).to(dtype)
    grid = (torch.rand(2, 4, 7, 2) * 2.2 - 1.1).to(dtype)
    fn = lambda t, g: F.grid_sample(t, g, mode="bilinear", padding_mode="border", align_corners=False)  # noqa: E731
    tol = HALF_TOL.get(dtype, dict(rtol=1e-4, atol=1e-4))
    if dtype in HALF_TOL:  # grid gradients sum over the channels: a looser bound
        tol = dict(rtol=tol["rtol"] * 5, atol=tol["atol"] * 5)
    compare(fn, x, grid, dtype=dtype, tol=tol)
    compare(fn, x, grid, dtype=dtype, tol=tol, prepare=lambda t: t.transpose(-1, -2).contiguous().transpose(-1, -2))


def test_affine_grid_sample(strict):
    theta = torch.randn(2, 2, 3, dtype=torch.float64)
    x = torch.randn(2, 3, 6, 7, dtype=torch.float64)
    compare(lambda th, t: F.grid_sample(t, F.affine_grid(th, (2, 3, 4, 5), align_corners=False),
                                        align_corners=False), theta, x)


def test_grid_sample_errors(strict):
    x = torch.randn(1, 1, 3, 3)
    same_error(lambda t: F.grid_sample(t, torch.zeros(2, 2, 2, 2, device=t.device), align_corners=False), x)
    same_error(lambda t: F.grid_sample(t, torch.zeros(1, 2, 2, 3, device=t.device), align_corners=False), x)
    same_error(lambda t: F.grid_sample(t, torch.zeros(1, 2, 2, 2, 3, device=t.device), mode="bicubic",
                                       align_corners=False), torch.randn(1, 1, 3, 3, 3))


# ---------------------------------------------------------------- unfold_backward, shuffles

@pytest.mark.parametrize("case", [(0, 3, 1), (0, 4, 3), (1, 2, 2), (1, 5, 2), (-1, 6, 1), (1, 2, 4)])
def test_tensor_unfold_backward(strict, case):
    dim, size, step = case
    x = torch.randn(9, 10, dtype=torch.float64)
    compare(lambda t: t.unfold(dim, size, step), x)


def test_unfold_backward_broadcasts_grad(strict):
    # istft's reference passes its squared window expanded over one batch row
    # for a [batch, length] input; the CPU's kernel broadcasts it
    w, g = torch.rand(10, dtype=torch.float64), torch.rand(1, 6, 10, dtype=torch.float64)
    for t in (lambda d: w.to(d).pow(2).expand(1, 6, 10), lambda d: g.to(d)):
        got = torch.ops.aten.unfold_backward(t("ocl"), [10, 20], 1, 10, 2)
        torch.testing.assert_close(got.cpu(), torch.ops.aten.unfold_backward(t("cpu"), [10, 20], 1, 10, 2))


def test_shuffles(strict):
    x = torch.randn(2, 8, 3, 4, dtype=torch.float64)
    compare(lambda t: F.channel_shuffle(t, 4), x)
    compare(lambda t: F.pixel_shuffle(t, 2), x)
    compare(lambda t: F.pixel_unshuffle(t, 2), torch.randn(2, 3, 4, 6, dtype=torch.float64))


def test_deterministic_mode(strict):
    """Upsampling / padding backward are deterministic gathers (allowed under
    use_deterministic_algorithms); grid_sample's input gradient uses atomics
    and raises there, as on CUDA."""
    x = torch.randn(1, 2, 4, 5, device=OCL, requires_grad=True)
    grid = torch.zeros(1, 3, 3, 2, device=OCL)
    old = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        F.interpolate(x, scale_factor=2, mode="bilinear").sum().backward()
        F.pad(x, (1, 1, 1, 1), mode="reflect").sum().backward()
        with pytest.raises(RuntimeError, match="does not have a deterministic implementation"):
            F.grid_sample(x, grid, align_corners=False).sum().backward()
    finally:
        torch.use_deterministic_algorithms(old)
