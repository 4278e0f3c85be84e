"""PyTorch ecosystem features on ocl: autocast + GradScaler, streams and
events, the compile log and profiler, user OpenCL kernels as custom ops,
torch.compile."""

import pytest
import torch
import torch.nn.functional as F

import torch_ocl
from torch_ocl.testing import models

LOW = [torch.float16, torch.bfloat16]


# Autocast ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", LOW, ids=["float16", "bfloat16"])
def test_autocast_op_dtypes_follow_cuda_policy(strict, dtype):
    a = torch.randn(6, 6, device="ocl")
    img = torch.randn(2, 3, 5, 5, device="ocl")
    w = torch.randn(4, 3, 3, 3, device="ocl")
    with torch.autocast("ocl", dtype=dtype):
        low = {
            "mm": torch.mm(a, a), "matmul": a @ a, "linear": F.linear(a, a),
            "bmm": torch.bmm(a[None], a[None]), "addmm": torch.addmm(a, a, a),
            "conv2d": F.conv2d(img, w),
        }
        fp32 = {
            # float32 outputs even from lower-precision inputs
            "softmax": torch.softmax(a.to(dtype), 0), "log_softmax": F.log_softmax(a.to(dtype), 1),
            "sum": a.to(dtype).sum(), "exp": torch.exp(a.to(dtype)), "log": torch.log(a.abs().to(dtype)),
            "layer_norm": F.layer_norm(a.to(dtype), (6,)), "mse_loss": F.mse_loss(a.to(dtype), a),
            "cross_entropy": F.cross_entropy(a.to(dtype), torch.arange(6, device="ocl")),
            # promote: the widest input dtype
            "addcmul": torch.addcmul(a, a.to(dtype), a.to(dtype)),
        }
        untouched = torch.relu(a.to(dtype))  # not on any list: runs in its input dtype
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            F.binary_cross_entropy(torch.rand(3, device="ocl"), torch.rand(3, device="ocl"))
    for name, t in low.items():
        assert t.dtype == dtype, name
    for name, t in fp32.items():
        assert t.dtype == torch.float32, name
    assert untouched.dtype == dtype
    # Values: the lower-precision product equals the CPU product of the rounded inputs.
    ref = torch.mm(a.cpu().to(dtype).float(), a.cpu().to(dtype).float())
    torch.testing.assert_close(low["mm"].float().cpu(), ref, atol=0.1, rtol=0.02)
    assert torch.get_autocast_dtype("ocl") in LOW


def test_autocast_rejects_unsupported_dtype():
    with pytest.warns(UserWarning, match="not supported"):
        with torch.autocast("ocl", dtype=torch.float64):
            pass


def _train(dtype, steps=3):
    spec = models.SPECS["resnet18"]
    model, opt = models.build(spec, "ocl")
    scaler = torch.amp.GradScaler("ocl", enabled=dtype == torch.float16)
    losses = []
    for x, y in models.batches(spec, steps):
        x, y = x.to("ocl"), y.to("ocl")
        opt.zero_grad(set_to_none=True)
        with torch.autocast("ocl", dtype=dtype or torch.float16, enabled=dtype is not None):
            out = model(x)
            loss = spec.loss(out, y)
        if dtype is not None:
            assert out.dtype == dtype and loss.dtype == torch.float32
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    return losses, model


def test_autocast_training_step_close_to_fp32(strict):
    ref, ref_model = _train(None)
    for dtype in LOW:
        losses, model = _train(dtype)
        # Same weights and batches: the losses track the float32 run.
        assert losses == pytest.approx(ref, abs=0.15), (dtype, losses, ref)
        for p, q in zip(model.parameters(), ref_model.parameters()):
            assert p.dtype == torch.float32 and p.grad.dtype == torch.float32
    assert ref[-1] != ref[0]  # it trained


def test_grad_scaler_skips_step_on_inf_and_backs_off(strict):
    p = torch.nn.Parameter(torch.ones(4, device="ocl"))
    opt = torch.optim.SGD([p], lr=0.1)
    scaler = torch.amp.GradScaler("ocl", init_scale=1024.0)
    scaler.scale((p * torch.tensor([1.0, float("inf"), 1.0, 1.0], device="ocl")).sum()).backward()
    scaler.step(opt)
    scaler.update()
    assert torch.equal(p.detach().cpu(), torch.ones(4))  # step skipped
    assert scaler.get_scale() == 512.0
    opt.zero_grad()
    scaler.scale((p * 2).sum()).backward()
    scaler.step(opt)
    scaler.update()
    torch.testing.assert_close(p.detach().cpu(), torch.full((4,), 0.8))  # unscaled grad 2, lr 0.1
    assert scaler.get_scale() == 512.0
