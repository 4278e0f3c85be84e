"""Recurrent layers on ocl against PyTorch CPU: nn.LSTM / nn.GRU / nn.RNN and
the cells, forward and backward. On ocl ATen runs the fused cells
(_thnn_fused_lstm_cell / _thnn_fused_gru_cell and their backward ops,
kernels/rnn_ops.cpp, kernels/rnn.cl), which have no CPU kernel; the CPU runs
its unfused cells, so the comparison checks the fused math too.

Every test runs under fallback_mode('error') (an op without a native kernel
raises) unless it says otherwise.
"""

import copy

import pytest
import torch
import torch.nn as nn
from torch.testing import assert_close

from dtype_lists import FLOATS, dname

from tolerances import RNN as TOL  # noqa: E402 (one table per family, tests/python/tolerances.py)


# Every test of this file runs in strict mode: a missing native kernel raises.
pytestmark = pytest.mark.usefixtures("strict")


def run_module(module, inputs, dtype, device):
    """Output(s) of `module` (a copy moved to device/dtype) on `inputs`, and the
    gradients of a weighted sum of every output w.r.t. inputs and parameters."""
    m = copy.deepcopy(module).to(device=device, dtype=dtype)
    xs = [x.to(device=device, dtype=dtype).detach().requires_grad_() for x in inputs]
    out = m(*xs)
    flat = []
    for o in out if isinstance(out, tuple) else (out,):
        flat.extend(o if isinstance(o, tuple) else (o,))
    g = torch.Generator().manual_seed(1)
    loss = sum((o * torch.randn(o.shape, generator=g).to(device=device, dtype=dtype)).sum() for o in flat)
    loss.backward()
    grads = [x.grad for x in xs] + [p.grad for p in m.parameters()]
    return flat, grads


def compare(module, inputs, dtype=torch.float32):
    """ocl against CPU; half types against the CPU in float32 (looser)."""
    ref_dtype = dtype if dtype in (torch.float32, torch.float64) else torch.float32
    out_c, grads_c = run_module(module, inputs, ref_dtype, "cpu")
    out_o, grads_o = run_module(module, inputs, dtype, "ocl")
    tol = TOL[dtype]
    for i, (o, c) in enumerate(zip(out_o, out_c)):
        assert o.device.type == "ocl" and o.dtype == dtype
        assert_close(o.cpu().to(ref_dtype), c, msg=lambda m: f"output {i}: {m}", **tol)
    for i, (o, c) in enumerate(zip(grads_o, grads_c)):
        assert o is not None, f"grad {i} missing"
        assert_close(o.cpu().to(ref_dtype), c, msg=lambda m: f"grad {i}: {m}", **tol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("layers,bidirectional,batch_first,bias", [
    (1, False, False, True), (2, True, True, True), (2, False, False, False), (3, True, False, True)])
def test_rnn_layers(kind, layers, bidirectional, batch_first, bias, dtype):
    module = getattr(nn, kind)(5, 7, num_layers=layers, bidirectional=bidirectional, batch_first=batch_first,
                               bias=bias)
    x = torch.randn((3, 6, 5) if batch_first else (6, 3, 5))
    compare(module, [x], dtype)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dname)
@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_rnn_layers_half(kind, dtype):
    compare(getattr(nn, kind)(4, 6, num_layers=2, bidirectional=True), [torch.randn(5, 2, 4)], dtype)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_rnn_initial_state_and_unbatched(kind):
    module = getattr(nn, kind)(4, 5, num_layers=2)
    h0 = torch.randn(2, 3, 5)
    state = (h0, torch.randn(2, 3, 5)) if kind == "LSTM" else h0

    class WithState(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = module

        def forward(self, x, *s):
            return self.rnn(x, tuple(s) if kind == "LSTM" else s[0])

    states = list(state) if kind == "LSTM" else [state]
    compare(WithState(), [torch.randn(6, 3, 4)] + states)
    compare(module, [torch.randn(6, 4)])  # unbatched input


def test_lstm_proj_size():
    compare(nn.LSTM(4, 6, num_layers=2, proj_size=3, bidirectional=True), [torch.randn(5, 2, 4)])


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_rnn_packed_sequence(kind):
    module = getattr(nn, kind)(3, 4, bidirectional=True)

    class Packed(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = module

        def forward(self, x):
            packed = nn.utils.rnn.pack_padded_sequence(x, torch.tensor([5, 3, 2]), enforce_sorted=True)
            out, _ = self.rnn(packed)
            return nn.utils.rnn.pad_packed_sequence(out)[0]

    compare(Packed(), [torch.randn(5, 3, 3)])


@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
@pytest.mark.parametrize("cell", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cells(cell, dtype):
    module = getattr(nn, cell)(5, 4)
    compare(module, [torch.randn(3, 5)], dtype)


def test_cells_without_bias():
    compare(nn.LSTMCell(5, 4, bias=False), [torch.randn(3, 5)])
    compare(nn.GRUCell(5, 4, bias=False), [torch.randn(3, 5)])


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_rnn_tanh_relu(nonlinearity):
    compare(nn.RNN(4, 5, num_layers=2, nonlinearity=nonlinearity, bidirectional=True), [torch.randn(6, 2, 4)])


# ---- the fused ops called directly, against their formulas on the CPU ----

def lstm_reference(ig, hg, cx, b1, b2):
    gates = ig + hg + (b1 + b2 if b1 is not None else 0)
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * cx + i * g
    return o * cy.tanh(), cy, torch.cat([i, f, g, o], 1)


def gru_reference(ig, hg, hx, b1, b2):
    if b1 is not None:
        ig, hg = ig + b1, hg + b2
    ir, iz, in_ = ig.chunk(3, 1)
    hr, hz, hn = hg.chunk(3, 1)
    r, z = (ir + hr).sigmoid(), (iz + hz).sigmoid()
    n = (in_ + r * hn).tanh()
    return n + z * (hx - n), torch.cat([r, z, n, hx, hn], 1)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
def test_fused_lstm_cell_op(bias, dtype):
    B, H = 3, 5
    ig, hg = torch.randn(B, 4 * H, dtype=torch.float64), torch.randn(B, 4 * H, dtype=torch.float64)
    cx = torch.randn(B, H, dtype=torch.float64)
    b1, b2 = (torch.randn(4 * H, dtype=torch.float64), torch.randn(4 * H, dtype=torch.float64)) if bias else (None, None)
    # non-contiguous gates: a transposed copy
    ig_o = ig.to(dtype).t().contiguous().t().to("ocl")
    args = [t.to(dtype).to("ocl") if t is not None else None for t in (hg, cx, b1, b2)]
    hy, cy, ws = torch.ops.aten._thnn_fused_lstm_cell(ig_o, args[0], args[1], args[2], args[3])
    ref = [t.to(dtype) for t in lstm_reference(ig.to(dtype).double(), hg.to(dtype).double(), cx.to(dtype).double(),
                                               None if b1 is None else b1.to(dtype).double(),
                                               None if b2 is None else b2.to(dtype).double())]
    tol = TOL[dtype]
    for got, exp in zip((hy, cy, ws), ref):
        assert_close(got.cpu(), exp, **tol)
    # backward: grads of the pre-activations, cx and the bias
    ghy, gcy = torch.randn(B, H, dtype=dtype), torch.randn(B, H, dtype=dtype)
    gg, gcx, gb = torch.ops.aten._thnn_fused_lstm_cell_backward_impl(ghy.to("ocl"), gcy.to("ocl"), args[1], cy, ws, bias)
    # (the biases only shift the input gates: differentiate w.r.t. the shifted gates)
    pre = ig.to(dtype).double()
    if bias:
        pre = pre + b1.to(dtype).double() + b2.to(dtype).double()
    x = [pre.detach().requires_grad_(), cx.to(dtype).double().requires_grad_()]
    r_hy, r_cy, _ = lstm_reference(x[0], hg.to(dtype).double(), x[1], None, None)
    torch.autograd.backward([r_hy, r_cy], [ghy.double(), gcy.double()])
    assert_close(gg.cpu(), x[0].grad.to(dtype), **tol)
    assert_close(gcx.cpu(), x[1].grad.to(dtype), **tol)
    if bias:
        assert_close(gb.cpu(), x[0].grad.sum(0).to(dtype), **tol)
    else:
        assert gb is None
    # only one of grad_hy / grad_cy
    gg2, _, _ = torch.ops.aten._thnn_fused_lstm_cell_backward_impl(None, gcy.to("ocl"), args[1], cy, ws, False)
    x0 = x[0].detach().requires_grad_()
    _, r_cy2, _ = lstm_reference(x0, hg.to(dtype).double(), x[1].detach(), None, None)
    r_cy2.backward(gcy.double())
    assert_close(gg2.cpu(), x0.grad.to(dtype), **tol)
    assert torch.ops.aten._thnn_fused_lstm_cell_backward_impl(None, None, args[1], cy, ws, False) == (None, None, None)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
def test_fused_gru_cell_op(bias, dtype):
    B, H = 4, 3
    ig, hg, hx = (torch.randn(s, dtype=torch.float64).to(dtype) for s in ((B, 3 * H), (B, 3 * H), (B, H)))
    b1, b2 = (torch.randn(3 * H).to(dtype), torch.randn(3 * H).to(dtype)) if bias else (None, None)
    on = lambda t: None if t is None else t.to("ocl")  # noqa: E731
    hy, ws = torch.ops.aten._thnn_fused_gru_cell(on(ig), on(hg), on(hx), on(b1), on(b2))
    d = lambda t: None if t is None else t.double().requires_grad_()  # noqa: E731
    x = [d(t) for t in (ig, hg, hx, b1, b2)]
    r_hy, r_ws = gru_reference(*x)
    tol = TOL[dtype]
    assert_close(hy.cpu(), r_hy.to(dtype), **tol)
    assert_close(ws.cpu(), r_ws.detach().to(dtype), **tol)
    ghy = torch.randn(B, H).to(dtype)
    gi, gh, ghx, gb1, gb2 = torch.ops.aten._thnn_fused_gru_cell_backward(ghy.to("ocl"), ws, bias)
    r_hy.backward(ghy.double())
    # the op's gradients w.r.t. the gates also stand for the biases' (summed over the batch)
    assert_close(ghx.cpu(), x[2].grad.to(dtype), **tol)
    assert_close(gi.cpu(), x[0].grad.to(dtype), **tol)
    assert_close(gh.cpu(), x[1].grad.to(dtype), **tol)
    if bias:
        assert_close(gb1.cpu(), x[3].grad.to(dtype), **tol)
        assert_close(gb2.cpu(), x[4].grad.to(dtype), **tol)
    else:
        assert gb1 is None and gb2 is None


def test_fused_cells_empty_batch():
    hy, cy, ws = torch.ops.aten._thnn_fused_lstm_cell(torch.empty(0, 8, device="ocl"), torch.empty(0, 8, device="ocl"),
                                              torch.empty(0, 2, device="ocl"))
    assert hy.shape == (0, 2) and ws.shape == (0, 8)
    out = nn.LSTM(3, 2).to("ocl")(torch.randn(4, 0, 3, device="ocl"))[0]
    assert out.shape == (4, 0, 2)


def test_fused_cell_errors():
    o = dict(device="ocl")
    with pytest.raises(RuntimeError, match="hidden_gates"):
        torch.ops.aten._thnn_fused_lstm_cell(torch.randn(2, 8, **o), torch.randn(2, 4, **o), torch.randn(2, 2, **o))
    with pytest.raises(RuntimeError, match="prev_hidden"):
        torch.ops.aten._thnn_fused_gru_cell(torch.randn(2, 6, **o), torch.randn(2, 6, **o), torch.randn(2, 3, **o))
    with pytest.raises(RuntimeError, match="input_bias"):
        torch.ops.aten._thnn_fused_lstm_cell(torch.randn(2, 8, **o), torch.randn(2, 8, **o), torch.randn(2, 2, **o),
                                    torch.randn(7, **o), torch.randn(7, **o))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        torch.ops.aten._thnn_fused_lstm_cell(*(torch.ones(2, s, dtype=torch.long, **o) for s in (8, 8, 2)))
    # nn.LSTM's own input checks: the same error as on the CPU
    for device in ("cpu", "ocl"):
        with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
            nn.LSTM(3, 2).to(device)(torch.randn(4, 1, 5, device=device))


def test_lstm_grad_of_grad_uses_differentiable_backward():
    """create_graph=True takes ATen's differentiable backward (composite ops),
    also native; its second derivative matches the CPU's."""
    m = nn.LSTMCell(3, 2).double()
    x = torch.randn(2, 3, dtype=torch.float64)
    res = []
    for device in ("cpu", "ocl"):
        mm = copy.deepcopy(m).to(device)
        xx = x.to(device).requires_grad_()
        h, c = mm(xx)
        (g,) = torch.autograd.grad((h * h).sum() + c.sum(), xx, create_graph=True)
        (gg,) = torch.autograd.grad(g.sum(), xx)
        res.append((g.detach().cpu(), gg.cpu()))
    assert_close(res[1], res[0])


def every_other(t):
    """A view of t's values with stride 2 in its last dim (as test_modules' non-contiguous inputs)."""
    return torch.repeat_interleave(t, 2, dim=-1)[..., ::2]


def test_fused_cells_with_every_argument_non_contiguous():
    # Each non-contiguous argument becomes a temporary contiguous copy: they
    # must all stay alive until the kernel is enqueued (two were given the
    # same memory, and the LSTM read its hidden gates as its input gates).
    B, H = 3, 5
    ig, hg, cx = torch.randn(B, 4 * H), torch.randn(B, 4 * H), torch.randn(B, H)
    on = lambda t: every_other(t.to("ocl"))  # noqa: E731
    hy, cy, ws = torch.ops.aten._thnn_fused_lstm_cell(on(ig), on(hg), on(cx))
    r_hy, r_cy, r_ws = lstm_reference(ig, hg, cx, None, None)
    for got, exp in zip((hy, cy, ws), (r_hy, r_cy, r_ws)):
        assert_close(got.cpu(), exp)
    ghy, gcy = torch.randn(B, H), torch.randn(B, H)
    gg, gcx, _ = torch.ops.aten._thnn_fused_lstm_cell_backward_impl(on(ghy), on(gcy), on(cx), every_other(cy),
                                                                    every_other(ws), False)
    x = [ig.clone().requires_grad_(), cx.clone().requires_grad_()]
    torch.autograd.backward(lstm_reference(x[0], hg, x[1], None, None)[:2], [ghy, gcy])
    assert_close(gg.cpu(), x[0].grad)
    assert_close(gcx.cpu(), x[1].grad)
    hx = torch.randn(B, H)
    ig3, hg3 = torch.randn(B, 3 * H), torch.randn(B, 3 * H)
    hy, ws = torch.ops.aten._thnn_fused_gru_cell(on(ig3), on(hg3), on(hx))
    assert_close(hy.cpu(), gru_reference(ig3, hg3, hx, None, None)[0])


def test_lstm_cell_module_with_non_contiguous_inputs_and_grads():
    # upstream test_modules.py test_non_contiguous_tensors (nn.LSTMCell), as a training step
    torch.manual_seed(0)
    cpu = nn.LSTMCell(5, 10)
    dev = copy.deepcopy(cpu).to("ocl")
    x, h, c = torch.randn(5), torch.randn(10), torch.randn(10)
    gh, gc = torch.randn(10), torch.randn(10)
    grads = []
    for m, d in ((cpu, "cpu"), (dev, "ocl")):
        args = [every_other(t.to(d)).requires_grad_() for t in (x, h, c)]
        hy, cy = m(args[0], (args[1], args[2]))
        torch.autograd.backward([hy, cy], [every_other(gh.to(d)), every_other(gc.to(d))])
        grads.append([a.grad.cpu() for a in args] + [p.grad.cpu() for p in m.parameters()])
    for got, exp in zip(grads[1], grads[0]):
        assert_close(got, exp)
