"""_weight_norm_interface + backward natively (weight_norm with dim 0 or the
last dim: wav2vec2's positional convolution), against the CPU's kernels."""

import pytest
import torch
import torch.nn as nn
from torch.testing import assert_close

from tolerances import WEIGHT_NORM as TOL  # noqa: E402 (one table per family, tests/python/tolerances.py)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
@pytest.mark.parametrize("dim", [0, 2, -1, None], ids=lambda d: f"dim{d}")
@pytest.mark.parametrize("api", ["parametrizations", "legacy"])
def test_weight_norm_conv_forward_backward(strict, dtype, dim, api):
    wn = nn.utils.parametrizations.weight_norm if api == "parametrizations" else nn.utils.weight_norm

    def make():
        torch.manual_seed(0)
        return wn(nn.Conv1d(4, 6, 3).to(dtype), dim=dim)

    cpu, dev = make(), make().to("ocl")
    x = torch.randn(2, 4, 9, dtype=dtype)
    y_d = dev(x.to("ocl"))
    y_d.square().sum().backward()
    y_c = cpu(x)
    y_c.square().sum().backward()
    assert_close(y_d.cpu(), y_c, **TOL[dtype])
    for (name, a), (_, b) in zip(dev.named_parameters(), cpu.named_parameters()):
        assert a.grad is not None and a.grad.device.type == "ocl", name
        assert_close(a.grad.cpu(), b.grad, **TOL[dtype])


def test_weight_norm_interface_direct_and_double_backward(strict):
    v, g = torch.randn(5, 3, 2, dtype=torch.float64), torch.rand(5, 1, 1, dtype=torch.float64) + 0.5
    w_c, n_c = torch._weight_norm_interface(v, g, 0)
    w_d, n_d = torch._weight_norm_interface(v.to("ocl"), g.to("ocl"), 0)
    assert_close(w_d.cpu(), w_c)
    assert_close(n_d.cpu(), n_c)
    # double backward goes through _weight_norm_differentiable_backward (composite)
    res = []
    for dev in ("cpu", "ocl"):
        vv, gg = v.to(dev).requires_grad_(), g.to(dev).requires_grad_()
        w = torch._weight_norm(vv, gg, 0)
        (gv,) = torch.autograd.grad(w.sin().sum(), vv, create_graph=True)
        (gg2,) = torch.autograd.grad(gv.square().sum(), gg)
        res.append((gv.detach().cpu(), gg2.cpu()))
    assert_close(res[1], res[0])


def test_weight_norm_interface_bad_dim():
    v, g = torch.randn(3, 4, 5, device="ocl"), torch.rand(1, 4, 1, device="ocl")
    with pytest.raises(RuntimeError, match="first or last dim"):
        torch._weight_norm_interface(v, g, 1)
