"""CTC loss natively (kernels/ctc.cl: the CPU's algorithm and order of sums):
forward and backward against the CPU for padded and concatenated targets,
int32/int64 targets, every reduction, zero_infinity, zero-length inputs and
targets, non-contiguous log_probs, float32 and float64."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close


def case(T=12, N=4, C=6, S=5, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    lp = torch.randn(T, N, C, generator=g, dtype=dtype).log_softmax(2)
    il = torch.randint(T // 2, T + 1, (N,), generator=g)
    tl = torch.randint(1, S + 1, (N,), generator=g)
    tg = torch.randint(1, C, (N, S), generator=g)
    return lp, tg, il, tl


def run(device, lp, tg, il, tl, **kw):
    x = lp.detach().to(device).requires_grad_()
    loss = F.ctc_loss(x, tg.to(device), il, tl, **kw)
    (loss * torch.arange(1, loss.numel() + 1, device=device).reshape(loss.shape)).sum().backward()
    return loss.detach().cpu(), x.grad.cpu()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("layout", ["padded", "concatenated", "int32", "noncontig"])
def test_ctc_loss_matches_cpu(strict, dtype, reduction, layout):
    lp, tg, il, tl = case(dtype=dtype)
    if layout == "concatenated":
        tg = torch.cat([tg[b, : tl[b]] for b in range(tg.shape[0])])
    if layout == "int32":
        tg = tg.int()
    if layout == "noncontig":
        lp = lp.transpose(0, 1).contiguous().transpose(0, 1)  # [T, N, C] with N outermost
        il, tl = il.tolist(), tl.tolist()  # the IntArrayRef overload
    ref = run("cpu", lp, tg, il, tl, reduction=reduction)
    got = run("ocl", lp, tg, il, tl, reduction=reduction)
    tol = {} if dtype == torch.float64 else {"rtol": 1e-5, "atol": 1e-5}
    assert_close(got, ref, **tol)


def test_ctc_loss_zero_infinity_and_edge_lengths(strict):
    lp, tg, il, tl = case(T=6, N=4, S=5, seed=3)
    il = torch.tensor([6, 2, 0, 6])  # element 1: target too long for 2 frames (inf); 2: no input
    tl = torch.tensor([3, 5, 0, 0])  # element 3: empty target
    for zi in (False, True):
        ref = run("cpu", lp, tg, il, tl, reduction="none", zero_infinity=zi)
        got = run("ocl", lp, tg, il, tl, reduction="none", zero_infinity=zi)
        assert_close(got, ref, equal_nan=True)


def test_ctc_loss_bad_input():
    lp, tg, il, tl = case()
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        F.ctc_loss(lp.to("ocl"), tg.to("ocl"), il, tl, blank=99)
    with pytest.raises(RuntimeError, match="input_lengths"):
        F.ctc_loss(lp.to("ocl"), tg.to("ocl"), il + 100, tl)


@pytest.mark.parametrize("shape", [(0, 0, 4), (0, 2, 4), (5, 0, 4)])
def test_empty_log_probs_raise_as_on_cpu(shape):
    n = shape[1]
    args = [torch.randn(shape).log_softmax(2), torch.ones(n, 1, dtype=torch.long),
            torch.full((n,), shape[0], dtype=torch.long), torch.ones(n, dtype=torch.long)]
    with pytest.raises(RuntimeError, match="log_probs tensor must not be empty"):
        F.ctc_loss(*args, reduction="none")
    with pytest.raises(RuntimeError, match="log_probs tensor must not be empty"):
        F.ctc_loss(*[a.to("ocl") for a in args], reduction="none")
