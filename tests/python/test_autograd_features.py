"""Every autograd feature works through ocl's kernels as through the CPU's:
forward-mode AD, double backward, torch.func transforms and torch.compile
tracing, on the layers models are made of. torch_ocl registers no
AutogradPrivateUse1 override that would cost one of them (issue 27: the
`linear` override broke forward AD and was removed; bench/bench_linear.py)."""

import pytest
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, jvp, vmap
from torch.testing import assert_close

from tolerances import AUTOGRAD_FEATURES as TOL  # noqa: E402 (one table per family, tests/python/tolerances.py)

# Ops torch_ocl registers on AutogradPrivateUse1, each with its reason. A new
# override must add a row here and pass every test of this file.
AUTOGRAD_OVERRIDES = {
    "aten::_has_compatible_shallow_copy_type": "returns a bool (no derivative): module conversion keeps identity",
}


def test_no_unlisted_autograd_override():
    regs = set(torch._C._dispatch_get_registrations_for_dispatch_key("AutogradPrivateUse1"))
    assert regs == set(AUTOGRAD_OVERRIDES)


def model(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 6), nn.LayerNorm(6), nn.GELU(), nn.Linear(6, 3), nn.Tanh())


def inputs(seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(4, 5, generator=g), torch.randn(4, 5, generator=g)


def linear(seed=0):
    torch.manual_seed(seed)
    return nn.Linear(5, 3)


@pytest.mark.parametrize("make", [linear, model], ids=["linear", "mlp"])
def test_forward_mode_ad(strict, make):
    x, t = inputs()
    outs = []
    for dev in ("cpu", "ocl"):
        m = make().to(dev)
        with fwAD.dual_level():
            y = m(fwAD.make_dual(x.to(dev), t.to(dev)))
            p, tangent = fwAD.unpack_dual(y)
            outs.append((p.detach().cpu(), tangent.cpu()))
    assert_close(outs[1], outs[0], **TOL)


def test_double_backward(strict):
    x, _ = inputs()
    res = []
    for dev in ("cpu", "ocl"):
        m = model().to(dev)
        xd = x.to(dev).requires_grad_()
        (gx,) = torch.autograd.grad(m(xd).square().sum(), xd, create_graph=True)
        gw = torch.autograd.grad(gx.square().sum(), m[0].weight)[0]
        res.append((gx.detach().cpu(), gw.cpu()))
    assert_close(res[1], res[0], **TOL)


def test_torch_func_transforms(strict):
    x, t = inputs()
    res = []
    for dev in ("cpu", "ocl"):
        m = model().to(dev)
        params = {k: v.detach() for k, v in m.named_parameters()}
        xd, td = x.to(dev), t.to(dev)

        def loss(p, xin):
            return functional_call(m, p, (xin,)).square().sum()

        def f(xin):
            return functional_call(m, params, (xin,))

        row = xd[0]
        out = {
            "grad": grad(loss)(params, xd),
            "vmap": vmap(f)(xd),
            "vmap_grad": vmap(grad(lambda xi: loss(params, xi)))(xd),
            "jacrev": jacrev(f)(row),
            "jacfwd": jacfwd(f)(row),
            "hessian": hessian(lambda xi: f(xi).sum())(row),
            "jvp": jvp(f, (xd,), (td,)),
        }
        res.append(torch.utils._pytree.tree_map(lambda a: a.cpu(), out))
    assert_close(res[1], res[0], **TOL)


def test_compile_traces_forward_and_backward(strict):
    x, _ = inputs()
    res = []
    for dev in ("cpu", "ocl"):
        torch._dynamo.reset()
        m = model().to(dev)
        cm = torch.compile(m, backend="aot_eager", fullgraph=True)
        xd = x.to(dev).detach().requires_grad_()
        y = cm(xd)
        y.sum().backward()
        res.append((y.detach().cpu(), xd.grad.cpu(), m[0].weight.grad.cpu()))
    assert_close(res[1], res[0], **TOL)
