"""Pooling (kernels/pool_ops.cpp, kernels/pool.cl) against PyTorch CPU.

Every test runs under fallback_mode('error'): an op without a native ocl
kernel raises. Each case runs the same function on CPU tensors and on ocl
copies, compares the outputs (indices included) and the input gradients of
a random upstream gradient.

- max / avg / adaptive pooling, 1-d/2-d/3-d: kernel, stride, padding,
  dilation, ceil_mode, count_include_pad, divisor_override; adaptive output
  sizes that don't divide the input; batch-less inputs;
- layouts: channels_last(_3d), transposed and sliced (non-contiguous) inputs;
- NaN / inf inputs (NaN wins a max, as on CPU), float64/float16/bfloat16,
  integer max pooling and long avg pooling;
- max_unpool2d/3d, including the device-side error of an invalid index;
- errors: the CPU's exception type and message for bad arguments;
- PyTorch's OpInfo samples of the pooling ops, forward and backward.
"""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
from tolerances import POOL as TOL  # noqa: E402 (one table per family, tests/python/tolerances.py)


# Every test of this file runs in strict mode: a missing native kernel raises.
pytestmark = pytest.mark.usefixtures("strict")


def _leaves(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def compare(fn, x, grad=True, dtype=None, ref_dtype=None, **tol):
    """fn on x (CPU) and on x.to('ocl'): outputs and, for float inputs, the
    gradient of sum(out * g) with respect to x. `ref_dtype` runs the CPU
    side in that dtype (for dtypes the CPU kernel lacks)."""
    tol = tol or TOL.get(x.dtype, {})
    xc = x.detach().clone()
    xo = x.detach().to("ocl")
    if ref_dtype is not None:
        xc = xc.to(ref_dtype)
    grad = grad and x.is_floating_point()
    if grad:
        xc.requires_grad_()
        xo.requires_grad_()
    oc, oo = _leaves(fn(xc)), _leaves(fn(xo))
    assert len(oc) == len(oo)
    for a, b in zip(oo, oc):
        assert a.device.type == "ocl"
        if ref_dtype is not None and b.is_floating_point():
            b = b.to(x.dtype)
        assert_close(a.cpu(), b, equal_nan=True, **tol)
    if grad:
        g = torch.randn(oc[0].shape, dtype=torch.float64).to(oc[0].dtype)
        oc[0].backward(g)
        oo[0].backward(g.to(x.dtype).to("ocl"))
        gc = xc.grad.to(x.dtype) if ref_dtype is not None else xc.grad
        assert_close(xo.grad.cpu(), gc, **tol)
    return oo


def rand(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=torch.float64).to(dtype)


# ---- max pooling ----

MAX2D = [  # kernel, stride, padding, dilation, ceil_mode
    (2, None, 0, 1, False),
    (3, 2, 1, 1, False),
    (3, 2, 1, 1, True),
    ((3, 2), (2, 1), (1, 0), (1, 2), False),
    ((2, 3), (3, 2), (1, 1), (2, 1), True),
    (3, 1, 1, 2, True),
    (1, 1, 0, 1, False),
]


@pytest.mark.parametrize("args", MAX2D, ids=str)
def test_max_pool2d(args):
    k, s, p, d, c = args
    x = rand(2, 3, 9, 10)
    compare(lambda t: F.max_pool2d(t, k, s, p, d, ceil_mode=c, return_indices=True), x)
    compare(lambda t: F.max_pool2d(t, k, s, p, d, ceil_mode=c), x)


@pytest.mark.parametrize("args", [(3, 2, 1, 1, False), (4, 3, 2, 2, True), (2, None, 0, 1, True)], ids=str)
def test_max_pool1d(args):
    k, s, p, d, c = args
    compare(lambda t: F.max_pool1d(t, k, s, p, d, ceil_mode=c, return_indices=True), rand(2, 3, 17))
    compare(lambda t: F.max_pool1d(t, k, s, p, d, ceil_mode=c), rand(4, 11))  # batch-less


@pytest.mark.parametrize("args", [(2, None, 0, 1, False), (3, 2, 1, 1, True), ((3, 2, 2), (2, 1, 2), (1, 0, 1), (1, 2, 1), False)], ids=str)
def test_max_pool3d(args):
    k, s, p, d, c = args
    x = rand(2, 3, 6, 7, 8)
    compare(lambda t: F.max_pool3d(t, k, s, p, d, ceil_mode=c, return_indices=True), x)
    compare(lambda t: F.max_pool3d(t, k, s, p, d, ceil_mode=c, return_indices=True), x[0])  # batch-less


def test_max_pool_layouts():
    x = rand(2, 5, 8, 9)
    f = lambda t: F.max_pool2d(t, 3, 2, 1, return_indices=True)
    out = compare(f, x.to(memory_format=torch.channels_last))
    assert out[0].is_contiguous(memory_format=torch.channels_last)
    compare(f, rand(2, 9, 8, 5).transpose(1, 3))
    compare(f, rand(2, 5, 16, 9)[:, :, ::2])
    compare(f, rand(5, 8, 9))  # batch-less
    x3 = rand(2, 4, 6, 7, 5)
    out = compare(lambda t: F.max_pool3d(t, 2, 2, 1, return_indices=True),
                  x3.to(memory_format=torch.channels_last_3d))
    assert out[0].is_contiguous(memory_format=torch.channels_last_3d)
    compare(lambda t: F.max_pool3d(t, 2, return_indices=True), rand(2, 4, 12, 7, 5)[:, :, ::2])


def test_max_pool_overlapping_windows_backward():
    # stride < kernel: one input element is the max of several windows
    x = torch.zeros(1, 1, 6, 6)
    x[0, 0, 2, 2] = 5.0
    compare(lambda t: F.max_pool2d(t, 3, 1, 1, return_indices=True), x)
    compare(lambda t: F.max_pool3d(t, 3, 1, 1, return_indices=True), x.unsqueeze(2).expand(1, 1, 3, 6, 6).contiguous())


def test_max_pool_nan_inf():
    x = rand(2, 3, 8, 8)
    x[0, 0, 1, 1] = float("nan")
    x[0, 0, 1, 2] = float("nan")
    x[0, 1, 4, 4] = float("inf")
    x[1, 2] = float("-inf")
    x[1, 1, 3, :] = float("nan")
    for f in (lambda t: F.max_pool2d(t, 3, 2, 1, return_indices=True),
              lambda t: F.adaptive_max_pool2d(t, (3, 5), return_indices=True)):
        oo = compare(f, x, grad=False)
        assert torch.isnan(oo[0][0, 0, 0, 0].cpu())
    compare(lambda t: F.max_pool3d(t, 2, return_indices=True), x.unsqueeze(0), grad=False)


@pytest.mark.parametrize("dtype", FLOATS[1:], ids=str)
def test_max_pool_float_dtypes(dtype):
    # Overlapping windows add several gradients into one input element. The
    # CPU adds them one by one in the tensor's dtype (bfloat16 rounding at each
    # step); ocl, like CUDA, adds in float and rounds once. So for the reduced
    # types the reference runs in float32 and is rounded at the end.
    x = rand(2, 3, 9, 8, dtype=dtype)
    ref = torch.float32 if dtype in (torch.float16, torch.bfloat16) else None
    compare(lambda t: F.max_pool2d(t, 3, 2, 1, ceil_mode=True, return_indices=True), x, ref_dtype=ref)
    compare(lambda t: F.max_pool3d(t, 2, 1, 1, return_indices=True), x, ref_dtype=ref)
    compare(lambda t: F.adaptive_max_pool2d(t, (4, 3), return_indices=True), x, ref_dtype=ref)


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64], ids=str)
def test_max_pool_integers(dtype):
    lo = 0 if dtype == torch.uint8 else -100
    x = torch.randint(lo, 100, (2, 3, 9, 8), dtype=dtype)
    x[0, 0, :3, :3] = torch.iinfo(dtype).min  # a window of the type's minimum
    compare(lambda t: torch.ops.aten.max_pool2d_with_indices(t, [3, 3], [2, 2], [1, 1]), x)
    compare(lambda t: torch.ops.aten.max_pool3d_with_indices(t, [2, 2, 2], [2, 2, 2]), x)


def test_max_pool_large_and_empty():
    compare(lambda t: F.max_pool2d(t, 3, 2, return_indices=True), rand(3, 7, 101, 97))
    compare(lambda t: F.max_pool2d(t, 2, return_indices=True), rand(0, 3, 8, 8))
    compare(lambda t: F.max_pool3d(t, 2, return_indices=True), rand(0, 3, 4, 8, 8))


def test_max_pool_out_variant():
    x = rand(2, 3, 8, 8)
    out, idx = torch.empty(0, device="ocl"), torch.empty(0, dtype=torch.long, device="ocl")
    torch.ops.aten.max_pool2d_with_indices.out(x.to("ocl"), [2, 2], [2, 2], [0, 0], [1, 1], False, out=out, indices=idx)
    e_out, e_idx = F.max_pool2d(x, 2, return_indices=True)
    assert_close(out.cpu(), e_out)
    assert_close(idx.cpu(), e_idx)
    out3, idx3 = torch.empty(0, device="ocl"), torch.empty(0, dtype=torch.long, device="ocl")
    torch.ops.aten.max_pool3d_with_indices.out(x.to("ocl"), [2, 2, 2], [], [0], [1], False, out=out3, indices=idx3)
    e_out, e_idx = F.max_pool3d(x, 2, return_indices=True)
    assert_close(out3.cpu(), e_out)
    assert_close(idx3.cpu(), e_idx)


# ---- average pooling ----

AVG2D = [  # kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
    (2, None, 0, False, True, None),
    (3, 2, 1, False, True, None),
    (3, 2, 1, False, False, None),
    (3, 2, 1, True, True, None),
    (3, 2, 1, True, False, None),
    ((3, 2), (2, 3), (1, 1), True, True, 5),
    ((4, 3), (3, 2), (2, 1), True, False, None),
]


@pytest.mark.parametrize("args", AVG2D, ids=str)
def test_avg_pool2d(args):
    k, s, p, c, cip, div = args
    f = lambda t: F.avg_pool2d(t, k, s, p, ceil_mode=c, count_include_pad=cip, divisor_override=div)
    compare(f, rand(2, 3, 9, 10))
    compare(f, rand(3, 9, 10))
    compare(f, rand(2, 3, 9, 10).to(memory_format=torch.channels_last))
    compare(f, rand(2, 10, 9, 3).transpose(1, 3))


@pytest.mark.parametrize("args", [(3, 2, 1, False, True), (4, 3, 2, True, False), (2, None, 0, True, True)], ids=str)
def test_avg_pool1d(args):
    k, s, p, c, cip = args
    compare(lambda t: F.avg_pool1d(t, k, s, p, ceil_mode=c, count_include_pad=cip), rand(2, 3, 17))


@pytest.mark.parametrize("args", [(2, None, 0, False, True, None), (3, 2, 1, True, False, None), (3, 2, 1, True, True, 7), ((3, 2, 2), (2, 1, 2), (1, 0, 1), False, False, None)], ids=str)
def test_avg_pool3d(args):
    k, s, p, c, cip, div = args
    f = lambda t: F.avg_pool3d(t, k, s, p, ceil_mode=c, count_include_pad=cip, divisor_override=div)
    x = rand(2, 3, 6, 7, 8)
    compare(f, x)
    compare(f, x[0])
    compare(f, x.to(memory_format=torch.channels_last_3d))


@pytest.mark.parametrize("dtype", FLOATS[1:], ids=str)
def test_avg_pool_float_dtypes(dtype):
    x = rand(2, 3, 9, 8, dtype=dtype)
    compare(lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False), x)
    # the CPU has no reduced-precision avg_pool3d for batch-less input: float32 reference
    ref = torch.float32 if dtype in (torch.float16, torch.bfloat16) else None
    compare(lambda t: F.avg_pool3d(t, 2, 1, 1), x.unsqueeze(0), ref_dtype=ref)


def test_avg_pool_long():
    x = torch.randint(-50, 50, (2, 3, 9, 8))
    compare(lambda t: F.avg_pool2d(t, 3, 2, 1), x)  # integer division, as the CPU
    compare(lambda t: F.avg_pool3d(t, 2, 2, 1, count_include_pad=False), x.unsqueeze(0))
    with pytest.raises(RuntimeError, match="not implemented for 'Int'"):
        F.avg_pool2d(x.int().to("ocl"), 2)


def test_avg_pool_inf_nan():
    x = rand(2, 3, 8, 8)
    x[0, 0, 0, 0] = float("inf")
    x[1, 1, 3, 3] = float("nan")
    compare(lambda t: F.avg_pool2d(t, 3, 2, 1), x, grad=False)


# ---- adaptive pooling ----

@pytest.mark.parametrize("size", [(3, 5), (1, 1), (7, 4), (9, 10), (None, 2)], ids=str)
def test_adaptive_avg_pool2d(size):
    x = rand(2, 3, 9, 10)
    compare(lambda t: F.adaptive_avg_pool2d(t, size), x)
    compare(lambda t: F.adaptive_avg_pool2d(t, size), x[0])
    out = compare(lambda t: F.adaptive_avg_pool2d(t, size), x.to(memory_format=torch.channels_last))
    if size != (1, 1):
        assert out[0].is_contiguous(memory_format=torch.channels_last)
    compare(lambda t: F.adaptive_avg_pool2d(t, size), rand(2, 10, 9, 3).transpose(1, 3))


@pytest.mark.parametrize("size", [(3, 5), (7, 4), (1, 1), (12, 13)], ids=str)
def test_adaptive_max_pool2d(size):
    x = rand(2, 3, 9, 10)
    f = lambda t: F.adaptive_max_pool2d(t, size, return_indices=True)
    compare(f, x)
    compare(f, x[0])
    compare(f, x.to(memory_format=torch.channels_last))
    compare(f, rand(2, 10, 9, 3).transpose(1, 3))


@pytest.mark.parametrize("size", [(2, 3, 5), (1, 1, 1), (4, 7, 3)], ids=str)
def test_adaptive_pool3d(size):
    x = rand(2, 3, 5, 9, 10)
    compare(lambda t: F.adaptive_avg_pool3d(t, size), x)
    compare(lambda t: F.adaptive_avg_pool3d(t, size), x[0])
    compare(lambda t: F.adaptive_avg_pool3d(t, size), x.to(memory_format=torch.channels_last_3d))
    compare(lambda t: F.adaptive_max_pool3d(t, size, return_indices=True), x)
    compare(lambda t: F.adaptive_max_pool3d(t, size, return_indices=True), x[0])
    compare(lambda t: F.adaptive_max_pool3d(t, size, return_indices=True), x.to(memory_format=torch.channels_last_3d))


@pytest.mark.parametrize("size", [1, 4, 7, 23])
def test_adaptive_pool1d(size):
    x = rand(2, 3, 17)
    compare(lambda t: F.adaptive_avg_pool1d(t, size), x)
    compare(lambda t: F.adaptive_max_pool1d(t, size, return_indices=True), x)


@pytest.mark.parametrize("dtype", FLOATS[1:], ids=str)
def test_adaptive_float_dtypes(dtype):
    x = rand(2, 3, 9, 8, dtype=dtype)
    compare(lambda t: F.adaptive_avg_pool2d(t, (4, 3)), x)
    compare(lambda t: F.adaptive_avg_pool3d(t, (2, 4, 3)), x)
    compare(lambda t: F.adaptive_max_pool3d(t, (2, 4, 3), return_indices=True), x)


# ---- max_unpool ----

def test_max_unpool2d():
    x = rand(2, 3, 8, 9)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    compare(lambda t: F.max_unpool2d(t, idx.to(t.device), 2, output_size=(8, 9)), out)
    x = rand(2, 3, 8, 8)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    compare(lambda t: F.max_unpool2d(t, idx[0].to(t.device), 2), out[0])
    cl = out.to(memory_format=torch.channels_last)
    compare(lambda t: F.max_unpool2d(t, idx.to(t.device), 2), cl)


def test_max_unpool3d():
    x = rand(2, 3, 4, 6, 8)
    out, idx = F.max_pool3d(x, 2, return_indices=True)
    compare(lambda t: F.max_unpool3d(t, idx.to(t.device), 2), out)
    compare(lambda t: F.max_unpool3d(t, idx[1].to(t.device), 2, output_size=(5, 7, 9)), out[1])


@pytest.mark.parametrize("dtype", FLOATS[1:], ids=str)
def test_max_unpool_dtypes(dtype):
    x = rand(2, 3, 8, 8, dtype=dtype)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    compare(lambda t: F.max_unpool2d(t, idx.to(t.device), 2), out)


def test_max_unpool_invalid_index_raises_on_sync():
    x = rand(1, 1, 2, 2)
    idx = torch.tensor([[[[0, 1], [2, 100]]]])
    with pytest.raises(RuntimeError) as cpu_err:
        F.max_unpool2d(x, idx, 2)
    with pytest.raises(RuntimeError) as ocl_err:
        F.max_unpool2d(x.to("ocl"), idx.to("ocl"), 2).cpu()
    # the device-side check words it as the CPU, naming the op and when it was found
    assert str(cpu_err.value).splitlines()[0] in str(ocl_err.value)
    with pytest.raises(RuntimeError, match=r"output volumes are of size 2x4x4\)"):
        F.max_unpool3d(x.unsqueeze(0).to("ocl"), idx.unsqueeze(0).to("ocl"), 2).cpu()
    # the device is usable afterwards
    assert_close(F.max_unpool2d(x.to("ocl"), idx.clamp(max=3).to("ocl"), 2).cpu(),
                 F.max_unpool2d(x, idx.clamp(max=3), 2))


# ---- errors ----

ERRORS = [
    lambda d: F.max_pool2d(rand(1, 2, 6, 6).to(d), 2, padding=2),  # pad > half kernel
    lambda d: F.max_pool2d(rand(1, 2, 2, 2).to(d), 3),  # output too small
    lambda d: F.max_pool2d(rand(2, 6, 6).to(d)[:0], 2),  # empty non-batch dim
    lambda d: F.max_pool2d(rand(1, 2, 6, 6).to(d), 2, stride=0),
    lambda d: F.max_pool2d(rand(6, 6).to(d), 2),
    lambda d: torch.ops.aten.max_pool2d_with_indices(rand(1, 2, 6, 6).to(d), [2, 2, 2]),
    lambda d: F.max_pool3d(rand(1, 2, 6, 6, 6).to(d), 2, padding=2),
    lambda d: F.max_pool3d(rand(1, 2, 1, 6, 6).to(d), 2),
    lambda d: F.max_pool3d(rand(6, 6, 6).to(d), 2),
    lambda d: torch.ops.aten.max_pool3d_with_indices(rand(1, 2, 6, 6, 6).to(d), [2, 2]),
    lambda d: torch.ops.aten.max_pool3d_with_indices(rand(1, 2, 6, 6, 6).to(d), [2], [2, 2]),
    lambda d: F.avg_pool2d(rand(1, 2, 6, 6).to(d), 2, padding=2),
    lambda d: F.avg_pool2d(rand(1, 2, 6, 6).to(d), 2, divisor_override=0),
    lambda d: F.avg_pool3d(rand(1, 2, 2, 6, 6).to(d), 3),
    lambda d: F.avg_pool3d(rand(1, 2, 6, 6, 6).to(d), 2, padding=2),
    lambda d: F.adaptive_avg_pool2d(rand(6, 6).to(d), 2),
    lambda d: F.adaptive_avg_pool2d(rand(2, 0, 6).to(d), 2),
    lambda d: F.adaptive_avg_pool3d(rand(6, 6, 6).to(d), 2),
    lambda d: F.adaptive_avg_pool3d(rand(2, 0, 6, 6).to(d), 2),
    lambda d: F.adaptive_max_pool2d(rand(6, 6).to(d), 2),
    lambda d: F.adaptive_max_pool3d(rand(2, 3, 0, 6, 6).to(d), 2),
    lambda d: torch.ops.aten.max_unpool2d(rand(2, 3, 4, 4).to(d), torch.zeros(2, 3, 4, 4, dtype=torch.int32, device=d), [8, 8]),
    lambda d: torch.ops.aten.max_unpool2d(rand(2, 3, 4, 4).to(d), torch.zeros(1, 3, 4, 4, dtype=torch.long, device=d), [8, 8]),
    lambda d: torch.ops.aten.max_unpool2d(rand(2, 3, 0, 4).to(d), torch.zeros(2, 3, 0, 4, dtype=torch.long, device=d), [8, 8]),
    lambda d: torch.ops.aten.max_unpool2d(rand(2, 3, 4, 4).to(d), torch.zeros(2, 3, 4, 4, dtype=torch.long, device=d), [8]),
    lambda d: torch.ops.aten.max_unpool2d(rand(3, 4).to(d), torch.zeros(3, 4, dtype=torch.long, device=d), [8, 8]),
    lambda d: torch.ops.aten.max_unpool3d(rand(2, 3, 1, 4, 4).to(d), torch.zeros(2, 3, 1, 4, 4, dtype=torch.long, device=d), [2, 8, 8], [1, 0, 2], [0, 0, 0]),
    lambda d: torch.ops.aten.max_unpool3d(rand(2, 3, 1, 4, 4).to(d), torch.zeros(2, 3, 1, 4, 4, dtype=torch.long, device=d), [2, 8], [1, 2, 2], [0, 0, 0]),
    lambda d: torch.ops.aten.max_unpool3d(rand(3, 4, 4).to(d), torch.zeros(3, 4, 4, dtype=torch.long, device=d), [2, 8, 8], [1, 2, 2], [0, 0, 0]),
    lambda d: F.max_pool2d(torch.zeros(1, 2, 4, 4, dtype=torch.bool, device=d), 2),
    lambda d: F.adaptive_avg_pool2d(torch.zeros(1, 2, 4, 4, dtype=torch.int64, device=d), 3),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_cpu(i):
    with pytest.raises(Exception) as cpu_err:
        ERRORS[i]("cpu")
    with pytest.raises(Exception) as ocl_err:
        ERRORS[i]("ocl")
    assert type(ocl_err.value) is type(cpu_err.value)
    assert str(ocl_err.value).splitlines()[0] == str(cpu_err.value).splitlines()[0]


_X = rand(1, 2, 6, 6)
_IDX = F.max_pool2d(_X, 2, return_indices=True)[1]
_X3 = rand(1, 2, 4, 6, 6)
_IDX3 = F.max_pool3d(_X3, 2, return_indices=True)[1]
BACKWARD_ERRORS = [
    lambda d: torch.ops.aten.max_pool2d_with_indices_backward(
        rand(1, 2, 4, 3).to(d), _X.to(d), [2, 2], [2, 2], [0, 0], [1, 1], False, _IDX.to(d)),
    lambda d: torch.ops.aten.max_pool2d_with_indices_backward(
        rand(1, 2, 3, 3).double().to(d), _X.to(d), [2, 2], [2, 2], [0, 0], [1, 1], False, _IDX.to(d)),
    lambda d: torch.ops.aten.max_pool3d_with_indices_backward(
        rand(1, 2, 2, 3, 4).to(d), _X3.to(d), [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False, _IDX3.to(d)),
    lambda d: torch.ops.aten.max_pool3d_with_indices_backward(
        rand(1, 2, 2, 3, 3).double().to(d), _X3.to(d), [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False,
        _IDX3.to(d)),
    lambda d: torch.ops.aten.avg_pool2d_backward(
        rand(1, 2, 4, 3).to(d), _X.to(d), [2, 2], [2, 2], [0, 0], False, True, None),
    lambda d: torch.ops.aten._adaptive_avg_pool2d_backward(rand(1, 2, 0, 3).to(d), _X.to(d)),
    lambda d: torch.ops.aten._adaptive_avg_pool2d_backward(rand(1, 2, 3, 3).double().to(d), _X.to(d)),
    lambda d: torch.ops.aten._adaptive_avg_pool2d_backward(rand(2, 3, 3).to(d), _X.to(d)),
    lambda d: torch.ops.aten._adaptive_avg_pool3d_backward(rand(1, 2, 0, 3, 3).to(d), _X3.to(d)),
    lambda d: torch.ops.aten.adaptive_max_pool2d_backward(rand(1, 2, 3, 3).to(d), _X.to(d), _IDX[..., :1].to(d)),
]


@pytest.mark.parametrize("i", range(len(BACKWARD_ERRORS)))
def test_backward_errors_match_cpu(i):
    with pytest.raises(Exception) as cpu_err:
        BACKWARD_ERRORS[i]("cpu")
    with pytest.raises(Exception) as ocl_err:
        BACKWARD_ERRORS[i]("ocl")
    assert type(ocl_err.value) is type(cpu_err.value)
    assert str(ocl_err.value).splitlines()[0] == str(cpu_err.value).splitlines()[0]


# ---- PyTorch's OpInfo samples ----

OPINFO = [
    "nn.functional.max_pool1d", "nn.functional.max_pool2d", "nn.functional.max_pool3d",
    "nn.functional.avg_pool1d", "nn.functional.avg_pool2d", "nn.functional.avg_pool3d",
    "nn.functional.adaptive_avg_pool1d", "nn.functional.adaptive_avg_pool2d", "nn.functional.adaptive_avg_pool3d",
    "nn.functional.adaptive_max_pool1d", "nn.functional.adaptive_max_pool2d", "nn.functional.adaptive_max_pool3d",
    "max_pool2d_with_indices_backward", "nn.functional.max_unpool1d", "nn.functional.max_unpool2d",
    "nn.functional.max_unpool3d",
]


def _opinfos(name):
    from torch.testing._internal.common_methods_invocations import op_db

    return [o for o in op_db if o.name == name]


def _to(v, device):
    if isinstance(v, torch.Tensor):
        return v.detach().to(device).requires_grad_(v.requires_grad)
    if isinstance(v, (list, tuple)):
        return type(v)(_to(e, device) for e in v)
    if isinstance(v, dict):
        return {k: _to(e, device) for k, e in v.items()}
    return v


@pytest.mark.parametrize("name", OPINFO)
def test_opinfo_samples(name):
    ops = _opinfos(name)
    assert ops, name
    n = 0
    for op in ops:
        for dtype in (torch.float32, torch.float64):
            for s in op.sample_inputs("cpu", dtype, requires_grad=op.supports_autograd):
                xc = _to(s.input, "cpu")
                xo = _to(s.input, "ocl")
                ac, kc = _to(s.args, "cpu"), _to(s.kwargs, "cpu")
                ao, ko = _to(s.args, "ocl"), _to(s.kwargs, "ocl")
                torch.manual_seed(0)
                oc = _leaves(op(xc, *ac, **kc))
                oo = _leaves(op(xo, *ao, **ko))
                for a, b in zip(oo, oc):
                    assert a.device.type == "ocl"
                    assert_close(a.cpu(), b, equal_nan=True)
                if op.supports_autograd and oc[0].requires_grad and oc[0].numel() > 0:
                    leaves_c = [t for t in [xc, *ac] if isinstance(t, torch.Tensor) and t.requires_grad]
                    leaves_o = [t for t in [xo, *ao] if isinstance(t, torch.Tensor) and t.requires_grad]
                    g = torch.randn(oc[0].shape, dtype=dtype)
                    gc = torch.autograd.grad(oc[0], leaves_c, g, allow_unused=True)
                    go = torch.autograd.grad(oo[0], leaves_o, g.to("ocl"), allow_unused=True)
                    for a, b in zip(go, gc):
                        if b is None:
                            assert a is None
                        else:
                            assert_close(a.cpu(), b)
                n += 1
    assert n > 0


def test_max_pool3d_unbatched_channels_last_3d_layout():
    # A 4-d (C, D, H, W) input laid out as channels_last_3d without its batch
    # dim: output, indices and input gradient keep that layout (as the CPU and
    # CUDA; upstream test_pooling.py test_max_pool3d_ndhwc)
    x = torch.randn(1, 6, 12, 13, 14).contiguous(memory_format=torch.channels_last_3d).squeeze(0)
    results = []
    for device in ("cpu", "ocl"):
        xd = torch.empty_strided(x.shape, x.stride(), device=device).copy_(x).requires_grad_()
        out, ind = torch.nn.MaxPool3d((5, 6, 7), return_indices=True)(xd)
        out.backward(torch.arange(out.numel(), dtype=torch.float).view(out.shape).to(device))
        results.append((out, ind, xd.grad))
    for c, d in zip(*results):
        assert d.stride() == c.stride()
        assert_close(d.cpu(), c)
