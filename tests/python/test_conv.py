"""Convolutions on ocl against PyTorch CPU (kernels/conv_ops.cpp, kernels/conv.cl).

convolution_overrideable / convolution_backward_overrideable: im2col or
col2im plus CLBlast GEMM. Every test runs under fallback_mode('error') unless
it says otherwise, so a convolution that is not native raises. Forward results
and all three gradients (input, weight, bias) are compared with the CPU on
the same values: conv1d/2d/3d and the transposed ones, with stride, padding
('same' / 'valid' too), dilation, groups (depthwise), 1x1 kernels, bias on
and off, batch 1, odd sizes, channels-last and non-contiguous inputs,
float32/float64 (float16/bfloat16 are computed in float32), chunked batches,
bad input (the CPU's error messages), PyTorch's OpInfo samples, and a small
CNN training step.
"""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.testing import assert_close

from tolerances import CONV as TOL  # noqa: E402 (one table per family, tests/python/tolerances.py)


# Every test of this file runs in strict mode: a missing native kernel raises.
pytestmark = pytest.mark.usefixtures("strict")


def make(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def ocl(t):
    return t.to("ocl")


def run_both(fn, tensors, layout=None, **kw):
    """fn(*tensors, **kw) on the CPU and on ocl (copies with the same values,
    each passed through `layout` when given), then backward with the same
    random grad_output. Returns (cpu_out, ocl_out, cpu_grads, ocl_grads)."""
    layout = layout or (lambda t: t)
    cpu = [None if t is None else layout(t.clone()).requires_grad_() for t in tensors]
    dev = [None if t is None else layout(ocl(t)).detach().requires_grad_() for t in tensors]
    expected = fn(*cpu, **kw)
    actual = fn(*dev, **kw)
    assert actual.device.type == "ocl"
    g = make(expected.shape, expected.dtype, seed=7)
    expected.backward(g)
    actual.backward(ocl(g))
    return (expected, actual, [t.grad for t in cpu if t is not None],
            [t.grad for t in dev if t is not None])


def check(fn, tensors, dtype, layout=None, **kw):
    tensors = [None if t is None else t.to(dtype) for t in tensors]
    expected, actual, cg, dg = run_both(fn, tensors, layout, **kw)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert_close(actual.cpu(), expected, **TOL[dtype])
    assert len(cg) == len(dg)
    for c, d in zip(cg, dg):
        assert d is not None and d.device.type == "ocl" and d.shape == c.shape
        assert_close(d.cpu(), c, **TOL[dtype])


# (fn, input shape, weight shape, bias, kwargs)
CASES = [
    (F.conv1d, (2, 3, 11), (4, 3, 3), True, {}),
    (F.conv1d, (1, 4, 17), (6, 2, 5), False, dict(stride=3, padding=2, dilation=2, groups=2)),
    (F.conv1d, (3, 5, 9), (5, 1, 3), True, dict(groups=5, padding="same")),
    (F.conv2d, (2, 3, 7, 6), (4, 3, 3, 3), True, {}),
    (F.conv2d, (1, 3, 9, 8), (5, 3, 3, 2), True, dict(stride=(2, 3), padding=(1, 2), dilation=(2, 1))),
    (F.conv2d, (2, 4, 7, 9), (6, 2, 3, 3), False, dict(groups=2, padding="same", dilation=2)),
    (F.conv2d, (2, 6, 8, 7), (6, 1, 3, 3), True, dict(groups=6, stride=2, padding=1)),  # depthwise
    (F.conv2d, (2, 6, 8, 7), (12, 1, 5, 5), True, dict(groups=6, padding="valid")),  # depthwise x2
    (F.conv2d, (3, 8, 5, 5), (4, 8, 1, 1), True, {}),  # 1x1
    (F.conv2d, (2, 8, 9, 9), (4, 4, 1, 1), False, dict(stride=2, groups=2)),  # strided 1x1
    (F.conv2d, (1, 1, 13, 1), (1, 1, 4, 1), True, dict(padding=(3, 0))),
    (F.conv3d, (2, 2, 5, 4, 6), (3, 2, 2, 3, 2), True, dict(padding=1, stride=(1, 2, 1))),
    (F.conv3d, (1, 4, 5, 5, 5), (4, 2, 3, 3, 3), False, dict(groups=2, dilation=(1, 2, 1), padding="same")),
    (F.conv3d, (2, 3, 3, 4, 5), (2, 3, 1, 1, 1), True, {}),
    (F.conv_transpose1d, (2, 4, 7), (4, 3, 3), True, dict(stride=3, padding=1, output_padding=2)),
    (F.conv_transpose1d, (1, 4, 6), (4, 2, 4), False, dict(groups=2, dilation=2)),
    (F.conv_transpose2d, (2, 4, 5, 5), (4, 3, 3, 3), True, dict(stride=2, padding=1, output_padding=1)),
    (F.conv_transpose2d, (2, 4, 5, 6), (4, 3, 3, 2), True, dict(stride=(2, 1), groups=2, dilation=2)),
    (F.conv_transpose2d, (2, 6, 4, 5), (6, 1, 3, 3), True, dict(groups=6, stride=2)),  # depthwise
    (F.conv_transpose2d, (3, 4, 5, 5), (4, 3, 1, 1), True, {}),  # 1x1
    (F.conv_transpose3d, (1, 4, 3, 4, 3), (4, 2, 2, 2, 3), True, dict(stride=(2, 1, 2), output_padding=(1, 0, 0))),
    (F.conv_transpose3d, (2, 2, 3, 3, 3), (2, 2, 3, 3, 3), False, dict(padding=1, groups=2)),
]
CASE_IDS = [f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_conv_matches_cpu(case, dtype):
    fn, xs, ws, bias, kw = case
    out_ch = ws[0] if fn.__name__.startswith("conv") and "transpose" not in fn.__name__ else ws[1] * kw.get("groups", 1)
    tensors = [make(xs, seed=1), make(ws, seed=2), make((out_ch,), seed=3) if bias else None]
    check(fn, tensors, dtype, **kw)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("case", [CASES[3], CASES[6], CASES[11], CASES[16]], ids=["2d", "depthwise", "3d", "tr2d"])
def test_conv_half_types(case, dtype):
    """Half types compute in float32 on ocl: compared with the CPU's float32
    result on the same (half-precision) values, rounded to the half type."""
    fn, xs, ws, bias, kw = case
    out_ch = ws[0] if "transpose" not in fn.__name__ else ws[1] * kw.get("groups", 1)
    tensors = [make(xs, seed=1), make(ws, seed=2), make((out_ch,), seed=3) if bias else None]
    tensors = [None if t is None else t.to(dtype) for t in tensors]
    dev = [None if t is None else ocl(t).requires_grad_() for t in tensors]
    ref = [None if t is None else t.float().requires_grad_() for t in tensors]
    expected, actual = fn(*ref, **kw), fn(*dev, **kw)
    assert actual.dtype == dtype
    assert_close(actual.cpu(), expected.to(dtype), **TOL[dtype])
    g = make(expected.shape, dtype, seed=7)
    expected.backward(g.float())
    actual.backward(ocl(g))
    for r, d in zip(ref, dev):
        if r is not None:
            assert d.grad.dtype == dtype
            assert_close(d.grad.cpu(), r.grad.to(dtype), **TOL[dtype])


@pytest.mark.parametrize("fn,xs,ws,bs,kw", [
    (F.conv2d, (2, 6, 7, 8), (4, 3, 3, 3), 4, dict(groups=2, stride=2, padding=1)),
    (F.conv_transpose2d, (2, 6, 5, 6), (6, 2, 3, 3), 4, dict(groups=2, stride=2, padding=1)),
    (F.conv2d, (2, 6, 5, 5), (4, 6, 1, 1), 4, {}),
], ids=["conv2d", "conv_transpose2d", "conv2d-1x1"])
def test_channels_last(fn, xs, ws, bs, kw):
    tensors = [make(xs, seed=1), make(ws, seed=2), make((bs,), seed=3)]
    layout = lambda t: t.contiguous(memory_format=torch.channels_last) if t.dim() == 4 else t
    expected, actual, cg, dg = run_both(fn, tensors, layout=layout, **kw)
    assert_close(actual.cpu(), expected, **TOL[torch.float32])
    for c, d in zip(cg, dg):
        assert_close(d.cpu(), c, **TOL[torch.float32])


def test_channels_last_3d():
    tensors = [make((2, 4, 5, 6, 5), seed=1), make((6, 2, 3, 3, 3), seed=2), make((6,), seed=3)]
    layout = lambda t: t.contiguous(memory_format=torch.channels_last_3d) if t.dim() == 5 else t
    expected, actual, cg, dg = run_both(F.conv3d, tensors, layout=layout, groups=2, padding=1)
    assert_close(actual.cpu(), expected, **TOL[torch.float32])
    for c, d in zip(cg, dg):
        assert_close(d.cpu(), c, **TOL[torch.float32])


@pytest.mark.parametrize("module", [torch.nn.Conv2d, torch.nn.ConvTranspose2d, torch.nn.Conv3d])
@pytest.mark.parametrize("cl_input,cl_weight", [(False, False), (True, False), (False, True), (True, True)])
def test_result_layouts_follow_input_or_weight(module, cl_input, cl_weight):
    # As CUDA and the CPU: output, input gradient and weight gradient are
    # channels-last when the input or the weight is (test_modules.py test_memory_format).
    fmt = torch.channels_last_3d if module is torch.nn.Conv3d else torch.channels_last
    shape = (2, 4, 5, 6, 5) if module is torch.nn.Conv3d else (2, 4, 5, 6)
    results = []
    for device in ("cpu", "ocl"):
        torch.manual_seed(0)
        m = module(4, 6, 3).to(device)
        if cl_weight:
            m = m.to(memory_format=fmt)
        x = make(shape, seed=1).to(device)
        x = (x.contiguous(memory_format=fmt) if cl_input else x).requires_grad_()
        y = m(x)
        gx, gw = torch.autograd.grad(y, (x, m.weight), make(y.shape, seed=2).to(device))
        results.append((y, gx, gw))
    for c, d in zip(*results):
        expect_cl = cl_input or cl_weight
        assert d.is_contiguous(memory_format=fmt) == expect_cl and c.is_contiguous(memory_format=fmt) == expect_cl
        assert_close(d.cpu(), c, **TOL[torch.float32])


@pytest.mark.parametrize("fn", [F.conv2d, F.conv_transpose2d])
def test_non_contiguous_operands(fn):
    x = make((2, 4, 14, 16), seed=1)
    w = make((4, 4, 3, 3), seed=2)
    b = make((8,), seed=3)
    # input sliced with a step, weight transposed in its channel dims, bias with a step;
    # the views are taken on each device (a copy to ocl would be contiguous)
    views = [(lambda x: x[:, :, ::2, ::2], lambda w: w.transpose(0, 1), lambda b: b[::2]),
             (lambda x: x.transpose(2, 3), lambda w: w, lambda b: b[:4])]
    for vx, vw, vb in views:
        xc, wc, bc = (leaf.requires_grad_() for leaf in (x.clone(), w.clone(), b.clone()))
        xd, wd, bd = (ocl(t).requires_grad_() for t in (x, w, b))
        args_c, args_d = (vx(xc), vw(wc), vb(bc)), (vx(xd), vw(wd), vb(bd))
        assert not args_d[0].is_contiguous()
        expected = fn(*args_c, padding=1)
        actual = fn(*args_d, padding=1)
        assert_close(actual.cpu(), expected, **TOL[torch.float32])
        # grad_output from .sum(): an expanded (stride 0) tensor
        expected.sum().backward()
        actual.sum().backward()
        for c, d in [(xc, xd), (wc, wd), (bc, bd)]:
            assert_close(d.grad.cpu(), c.grad, **TOL[torch.float32])
            c.grad, d.grad = None, None


@pytest.mark.parametrize("fn", [F.conv2d, F.conv_transpose3d])
def test_strided_views_compute_as_their_dense_copies(fn):
    # Strided operands are made dense in their layout first (as CUDA's cuDNN path), so the
    # result and all gradients equal those of dense copies bit for bit (PyTorch's
    # test_noncontiguous_samples_nn_functional_conv_transpose3d: the weight gradient of a
    # gapped grad_output summed in another order, 2e-4 from the dense one's)
    if fn is F.conv2d:
        shapes, kw = ((2, 2, 5, 5), (4, 1, 3, 3), (4,)), dict(stride=2, padding=1, groups=2)
    else:  # the upstream test's sample
        shapes = ((2, 2, 4, 4, 4), (2, 2, 4, 5, 6), (4,))
        kw = dict(stride=(3, 2, 1), padding=(1, 2, 3), output_padding=(2, 3, 1), groups=2, dilation=4)
    x, w, b = (make(shape, seed=4 + i) for i, shape in enumerate(shapes))

    def run(gapped):
        ts = [ocl(t) for t in (x, w, b)]
        if gapped:  # every other element of a buffer twice as long in the last dim
            ts = [torch.stack([t, torch.full_like(t, float("nan"))], -1).select(-1, 0) for t in ts]
        leaves = [t.detach().requires_grad_() for t in ts]
        y = fn(*leaves, **kw)
        g = ocl(make(tuple(y.shape), seed=7))
        if gapped:
            g = torch.stack([g, torch.full_like(g, float("nan"))], -1).select(-1, 0)
        y.backward(g)
        return [y.cpu()] + [t.grad.cpu() for t in leaves]

    for dense, gapped in zip(run(False), run(True)):
        assert torch.equal(dense, gapped)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("mask", [(True, False, False), (False, True, False), (False, False, True),
                                  (True, True, True), (False, True, True)], ids=str)
def test_backward_output_mask(transposed, mask):
    x, w = make((2, 4, 6, 5), seed=1), make((4, 2, 3, 3), seed=2)
    gy_shape = (2, 4, 3, 3) if not transposed else (2, 4, 8, 7)
    gy = make(gy_shape, seed=3)
    args = ([2, 1], [1, 0], [1, 1], transposed, [0, 0], 2, list(mask))
    if transposed:
        args = ([1, 1], [0, 0], [1, 1], transposed, [0, 0], 2, list(mask))
    expected = torch.ops.aten.convolution_backward(gy, x, w, [4], *args)
    actual = torch.ops.aten.convolution_backward(ocl(gy), ocl(x), ocl(w), [4], *args)
    for m, a, e in zip(mask, actual, expected):
        if m:
            assert a.device.type == "ocl"
            assert_close(a.cpu(), e, **TOL[torch.float32])
        else:
            assert a is None


def test_overrideable_ops_directly():
    """The two registered ops, called directly with 3-d (1-d conv) operands."""
    x, w, b = make((2, 3, 10), seed=1), make((4, 3, 3), seed=2), make((4,), seed=3)
    args = ([2], [1], [1], False, [0], 1)
    out = torch.ops.aten.convolution_overrideable(ocl(x), ocl(w), ocl(b), *args)
    assert_close(out.cpu(), F.conv1d(x, w, b, stride=2, padding=1), **TOL[torch.float32])
    gy = make(out.shape, seed=4)
    gi, gw, gb = torch.ops.aten.convolution_backward_overrideable(ocl(gy), ocl(x), ocl(w), *args, [True] * 3)
    ei, ew, eb = torch.ops.aten.convolution_backward(gy, x, w, [4], *args, [True] * 3)
    for a, e in [(gi, ei), (gw, ew), (gb, eb)]:
        assert_close(a.cpu(), e, **TOL[torch.float32])


def test_empty_batch_and_channels():
    for xs in [(0, 3, 5, 5), (2, 0, 5, 5)]:
        ws = (4, 3, 3, 3) if xs[1] else (4, 0, 3, 3)
        check(F.conv2d, [make(xs), make(ws, seed=2), make((4,), seed=3)], torch.float32)


def test_large_input():
    # 100_003 positions in one row: one big column buffer
    check(F.conv1d, [make((1, 2, 100_003)), make((3, 2, 5), seed=2), make((3,), seed=3)], torch.float32,
          padding=2)


CHUNK_CODE = r"""
import torch, torch_ocl, torch.nn.functional as F
torch.ocl.set_fallback_mode("error")
torch.manual_seed(0)
for fn, xs, ws, kw in [(F.conv2d, (7, 3, 9, 8), (4, 3, 3, 3), dict(padding=1, groups=1)),
                       (F.conv2d, (5, 4, 6, 6), (4, 2, 3, 3), dict(groups=2)),
                       (F.conv_transpose2d, (5, 4, 5, 5), (4, 3, 3, 3), dict(stride=2))]:
    x, w = torch.randn(xs, dtype=torch.float64, requires_grad=True), torch.randn(ws, dtype=torch.float64, requires_grad=True)
    xd, wd = x.detach().to("ocl").requires_grad_(), w.detach().to("ocl").requires_grad_()
    e, a = fn(x, w, **kw), fn(xd, wd, **kw)
    g = torch.randn(e.shape, dtype=torch.float64)
    e.backward(g); a.backward(g.to("ocl"))
    for p, q in [(a, e), (xd.grad, x.grad), (wd.grad, w.grad)]:
        torch.testing.assert_close(p.cpu(), q)
print("ok")
"""


def test_batch_in_chunks(run_python):
    """A column limit below one image's columns: every image is its own chunk."""
    r = run_python(CHUNK_CODE, env={"TORCH_OCL_CONV_COL_BYTES": "1000"})
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]


def errors_match(fn):
    msgs = []
    for to in (lambda t: t, ocl):
        with pytest.raises(Exception) as info:
            fn(to)
        msgs.append((type(info.value), str(info.value).split("\n")[0]))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("name,fn", [
    ("dtype", lambda d: F.conv2d(d(make((2, 3, 5, 5))).double(), d(make((4, 3, 3, 3))))),
    ("bias_dtype", lambda d: F.conv2d(d(make((2, 3, 5, 5))), d(make((4, 3, 3, 3))), d(make((4,))).double())),
    ("groups", lambda d: F.conv2d(d(make((2, 3, 5, 5))), d(make((4, 3, 3, 3))), groups=2)),
    ("channels", lambda d: F.conv2d(d(make((2, 3, 5, 5))), d(make((4, 2, 3, 3))))),
    ("negative_padding", lambda d: F.conv2d(d(make((2, 3, 5, 5))), d(make((4, 3, 3, 3))), padding=-1)),
    ("zero_stride", lambda d: F.conv2d(d(make((2, 3, 5, 5))), d(make((4, 3, 3, 3))), stride=0)),
    ("kernel_too_big", lambda d: F.conv2d(d(make((1, 3, 2, 2))), d(make((4, 3, 3, 3))))),
    ("bias_shape", lambda d: F.conv2d(d(make((2, 3, 5, 5))), d(make((4, 3, 3, 3))), d(make((3,))))),
    ("output_padding_2d", lambda d: F.conv_transpose2d(d(make((1, 3, 5, 5))), d(make((3, 2, 3, 3))),
                                                       stride=2, output_padding=2)),
    ("output_padding_1d", lambda d: F.conv_transpose1d(d(make((1, 3, 5))), d(make((3, 2, 3))), output_padding=1)),
    ("output_padding_3d", lambda d: F.conv_transpose3d(d(make((1, 3, 4, 4, 4))), d(make((3, 2, 3, 3, 3))),
                                                       stride=2, output_padding=(0, 2, 0))),
    ("weight_dims", lambda d: F.conv2d(d(make((2, 3, 5, 5))), d(make((4, 3, 3))))),
])
def test_errors_match_cpu(name, fn):
    errors_match(fn)


def test_device_mismatch():
    with pytest.raises(RuntimeError, match="same device"):
        F.conv2d(ocl(make((1, 3, 5, 5))), make((4, 3, 3, 3)))


def test_integer_conv_uses_counted_fallback(fallback_stats):
    x, w = torch.randint(-3, 4, (2, 3, 6, 6)), torch.randint(-3, 4, (4, 3, 3, 3))
    with torch.ocl.fallback_mode("silent"):
        out = F.conv2d(ocl(x), ocl(w), padding=1)
    assert out.device.type == "ocl" and out.dtype == torch.int64
    assert torch.equal(out.cpu(), F.conv2d(x, w, padding=1))
    assert fallback_stats().get("aten::convolution", 0) == 1


def test_complex_conv():
    """conv2d of complex tensors splits into real convolutions (ATen's
    complex_convolution) on strided real views; the complex multiply-adds
    around them are not native yet, hence silent mode."""
    x = torch.randn(2, 3, 6, 6, dtype=torch.complex128)
    w = torch.randn(4, 3, 3, 3, dtype=torch.complex128)
    b = torch.randn(4, dtype=torch.complex128)
    with torch.ocl.fallback_mode("silent"):
        for fn, ww in [(F.conv2d, w), (F.conv_transpose2d, w.transpose(0, 1).contiguous())]:
            assert_close(fn(ocl(x), ocl(ww), ocl(b), padding=1).cpu(), fn(x, ww, b, padding=1))


def test_gradgrad():
    x = ocl(make((1, 2, 5, 5), torch.float64)).requires_grad_()
    w = ocl(make((3, 2, 3, 3), torch.float64, seed=2)).requires_grad_()
    b = ocl(make((3,), torch.float64, seed=3)).requires_grad_()
    assert torch.autograd.gradcheck(lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), (x, w, b))
    assert torch.autograd.gradgradcheck(lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), (x, w, b))
    wt = ocl(make((2, 3, 3, 3), torch.float64, seed=4)).requires_grad_()
    assert torch.autograd.gradcheck(lambda x, w: F.conv_transpose2d(x, w, stride=2, output_padding=1), (x, wt))


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=4)
        self.c3 = nn.Conv2d(8, 16, 1)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = torch.relu(self.c1(x))
        x = torch.relu(self.c2(x))
        x = torch.relu(self.c3(x))
        return self.fc(x.flatten(1))


def test_small_cnn_training_step():
    torch.manual_seed(0)
    cpu_model = SmallCNN().double()
    dev_model = SmallCNN().double()
    dev_model.load_state_dict(cpu_model.state_dict())
    dev_model.to("ocl")
    x, target = make((4, 3, 8, 8), torch.float64, seed=5), torch.tensor([1, 3, 5, 7])

    def loss_fn(logits, tgt):  # cross entropy from ops native on ocl
        return (logits.logsumexp(1) - logits.gather(1, tgt[:, None])[:, 0]).mean()

    losses = []
    for model, inp, tgt in [(cpu_model, x, target), (dev_model, ocl(x), ocl(target))]:
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            loss = loss_fn(model(inp), tgt)
            loss.backward()
            opt.step()
        losses.append(loss.item())
    assert_close(losses[1], losses[0])
    for (name, p), q in zip(cpu_model.named_parameters(), dev_model.parameters()):
        assert q.device.type == "ocl"
        assert_close(q.detach().cpu(), p.detach(), msg=name)


OPINFO_OPS = ["nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d",
              "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d",
              "nn.functional.conv_transpose3d"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=str)
@pytest.mark.parametrize("name", OPINFO_OPS)
def test_opinfo_samples_native(name, dtype):
    """PyTorch's OpInfo samples, forward and backward, against the CPU; the
    status 'native' means no sample touched the CPU fallback."""
    from torch.testing._internal.common_methods_invocations import op_db
    from torch_ocl.testing.opinfo_sweep import check_op

    op = next(o for o in op_db if o.name == name and o.variant_test_name == "")
    result = check_op(op, dtype, "ocl")
    assert result.status == "native", (result.detail, result.fallback_ops)
    assert result.samples > 0 and result.backward
