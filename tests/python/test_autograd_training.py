"""F.linear forward and backward (PyTorch's generic formula over the native
addmm/mm kernels) and end-to-end training of a small MLP on ocl against the
same training on the CPU."""

import copy

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close


def make(shape, seed, dtype=torch.float32):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def tol(dtype):
    return {"rtol": 1e-5, "atol": 1e-5} if dtype == torch.float32 else {"rtol": 1e-10, "atol": 1e-10}


def linear_grads(device, x, w, b, g):
    xs = x.detach().to(device).requires_grad_()
    ws = w.detach().to(device).requires_grad_()
    bs = b.detach().to(device).requires_grad_() if b is not None else None
    y = F.linear(xs, ws, bs)
    y.backward(g.to(device))
    return y.detach(), xs.grad, ws.grad, (bs.grad if bs is not None else None), y


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "nobias"])
@pytest.mark.parametrize("in_shape", [(7,), (4, 7), (2, 3, 7), (0, 7)], ids=lambda s: f"{len(s)}d-{s[0]}")
def test_linear_forward_backward(strict, in_shape, bias, dtype):
    x, w = make(in_shape, 1, dtype), make((5, 7), 2, dtype)
    b = make((5,), 3, dtype) if bias else None
    g = make(tuple(in_shape[:-1]) + (5,), 4, dtype)
    ref = linear_grads("cpu", x, w, b, g)
    got = linear_grads("ocl", x, w, b, g)
    y = got[-1]
    assert y.device.type == "ocl" and y.shape == ref[0].shape
    assert y.grad_fn is not None
    for a, e in zip(got[:4], ref[:4]):
        if e is None:
            assert a is None
            continue
        assert a.device.type == "ocl" and a.dtype == e.dtype and a.shape == e.shape
        assert_close(a.cpu(), e, **tol(dtype))


def test_linear_only_some_inputs_require_grad(strict):
    x, w, b = make((3, 4), 5), make((2, 4), 6), make((2,), 7)
    # only the weight requires grad (a frozen input, a frozen bias)
    wd = w.to("ocl").requires_grad_()
    F.linear(x.to("ocl"), wd, b.to("ocl")).sum().backward()
    wc = w.clone().requires_grad_()
    F.linear(x, wc, b).sum().backward()
    assert_close(wd.grad.cpu(), wc.grad, **tol(torch.float32))
    # only the input
    xd = x.to("ocl").requires_grad_()
    F.linear(xd, w.to("ocl"), b.to("ocl")).sum().backward()
    xc = x.clone().requires_grad_()
    F.linear(xc, w, b).sum().backward()
    assert_close(xd.grad.cpu(), xc.grad, **tol(torch.float32))


def test_linear_non_contiguous_input(strict):
    x, w, b = make((6, 4), 8), make((3, 6), 9), make((3,), 10)
    xd = x.to("ocl").requires_grad_()
    wd = w.to("ocl").requires_grad_()
    y = F.linear(xd.t(), wd, b.to("ocl"))
    xc, wc = x.clone().requires_grad_(), w.clone().requires_grad_()
    yc = F.linear(xc.t(), wc, b)
    assert_close(y.detach().cpu(), yc.detach(), **tol(torch.float32))
    g = make((4, 3), 11)
    y.backward(g.to("ocl"))
    yc.backward(g)
    assert_close(xd.grad.cpu(), xc.grad, **tol(torch.float32))
    assert_close(wd.grad.cpu(), wc.grad, **tol(torch.float32))


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "nobias"])
def test_linear_create_graph(strict, bias):
    """Second-order gradients through the override's backward."""
    x, w = make((4, 3), 12, torch.float64), make((5, 3), 13, torch.float64)
    b = make((5,), 14, torch.float64) if bias else None

    def run(device):
        xs = x.to(device).requires_grad_()
        ws = w.to(device).requires_grad_()
        bs = b.to(device).requires_grad_() if bias else None
        y = F.linear(xs, ws, bs)
        loss = (y * y).sum()
        gx, gw = torch.autograd.grad(loss, (xs, ws), create_graph=True)
        assert gx.requires_grad and gw.requires_grad
        second = (gx * gx).sum() + (gw * gw).sum()
        second.backward()
        return [t.detach().cpu() for t in (gx, gw, xs.grad, ws.grad)] + (
            [bs.grad.detach().cpu()] if bias else [])

    for a, e in zip(run("ocl"), run("cpu")):
        assert_close(a, e, **tol(torch.float64))


def test_linear_shape_error(strict):
    with pytest.raises(RuntimeError):
        F.linear(torch.ones(2, 3, device="ocl"), torch.ones(4, 5, device="ocl"))


# Training ---------------------------------------------------------------------------------------


def train(device, model, X, y, steps=20):
    model = model.to(device)
    X, y = X.to(device), y.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(X), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, model


def test_mlp_training_matches_cpu(fallback_stats):
    torch.manual_seed(0)
    X = torch.randn(64, 10)
    y = torch.randint(0, 3, (64,))
    model = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
    model_ocl = copy.deepcopy(model)

    losses_cpu, trained_cpu = train("cpu", model, X, y)
    with torch.ocl.fallback_mode("silent"):
        losses_ocl, trained_ocl = train("ocl", model_ocl, X, y)
    fell_back = fallback_stats()
    print("ops that fell back during ocl training:", dict(sorted(fell_back.items())))

    assert len(losses_ocl) == 20
    assert losses_cpu[-1] < losses_cpu[0]  # the reference does learn
    assert_close(torch.tensor(losses_ocl), torch.tensor(losses_cpu), rtol=1e-4, atol=1e-5)
    for (name, p_ocl), p_cpu in zip(trained_ocl.named_parameters(), trained_cpu.parameters()):
        assert p_ocl.device.type == "ocl", name
        assert_close(p_ocl.detach().cpu(), p_cpu.detach(), rtol=1e-4, atol=1e-5)
    # linear and relu must not be among the CPU fallbacks
    assert not any(k.startswith(("aten::linear", "aten::addmm", "aten::mm", "aten::relu", "aten::threshold"))
                   for k in fell_back), fell_back


def test_mlp_forward_backward_native_parts(strict):
    """Linear-ReLU-Linear with an MSE-like loss built only from native ops."""
    torch.manual_seed(1)
    X = torch.randn(16, 8)
    target = torch.randn(16, 2)
    model = torch.nn.Sequential(torch.nn.Linear(8, 12), torch.nn.ReLU(), torch.nn.Linear(12, 2))
    model_ocl = copy.deepcopy(model).to("ocl")

    def loss_fn(m, x, t):
        d = m(x) - t
        return (d * d).sum() / d.numel()

    loss_c = loss_fn(model, X, target)
    loss_c.backward()
    loss_d = loss_fn(model_ocl, X.to("ocl"), target.to("ocl"))
    loss_d.backward()
    assert_close(loss_d.detach().cpu(), loss_c.detach(), rtol=1e-5, atol=1e-6)
    for p_d, p_c in zip(model_ocl.parameters(), model.parameters()):
        assert_close(p_d.grad.cpu(), p_c.grad, rtol=1e-5, atol=1e-6)
