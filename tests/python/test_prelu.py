"""prelu on ocl against PyTorch CPU: _prelu_kernel and _prelu_kernel_backward
(ATen's generic impls + pointwise-engine rows for prelu_stub /
prelu_backward_stub, kernels/pointwise_ops.cpp), forward and backward, under
fallback_mode('error')."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from dtype_lists import FLOATS, dname

HALF_TOL = dict(rtol=2e-2, atol=2e-2)


@pytest.fixture(autouse=True)
def _strict(strict):
    yield


def run(x, w, device, grad):
    xx = x.detach().clone().to(device).requires_grad_()
    ww = w.detach().clone().to(device).requires_grad_()
    y = F.prelu(xx, ww)
    y.backward(grad.to(device))
    return y.detach().cpu(), xx.grad.cpu(), ww.grad.cpu()


@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
@pytest.mark.parametrize("shape,channels", [((3, 4, 5), 4), ((3, 4, 5), 1), ((2, 3, 4, 5), 3), ((7,), 1), ((), 1),
                                            ((0, 3), 3), ((100_003,), 1)])
def test_prelu(shape, channels, dtype):
    x = torch.randn(shape).to(dtype)
    w = torch.rand(channels).to(dtype)
    grad = torch.randn(shape).to(dtype)
    tol = HALF_TOL if dtype in (torch.float16, torch.bfloat16) else {}
    assert_close(run(x, w, "ocl", grad), run(x, w, "cpu", grad), **tol)


def test_prelu_noncontiguous_and_module():
    x = torch.randn(4, 6, 5).transpose(1, 2)[:, ::2]  # channels dim 1 has stride 1, sliced
    m = torch.nn.PReLU(x.shape[1])
    m_o = torch.nn.PReLU(x.shape[1]).to("ocl")
    m_o.weight.data.copy_(m.weight.data)
    y, y_o = m(x), m_o(x.to("ocl"))
    y.sum().backward()
    y_o.sum().backward()
    assert_close(y_o.cpu(), y.detach())
    assert_close(m_o.weight.grad.cpu(), m.weight.grad)


def test_prelu_errors():
    for device in ("cpu", "ocl"):
        with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
            F.prelu(torch.randn(2, 3, device=device), torch.rand(4, device=device))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        torch.ops.aten._prelu_kernel(torch.ones(3, dtype=torch.long, device="ocl"),
                                     torch.ones(1, dtype=torch.long, device="ocl"))
