"""The last nn ops made native (kernels/loss.cl, kernels/pool.cl, kernels/random.cl
and their launchers) against PyTorch CPU, under the `strict` fixture:
multi_margin_loss and multilabel_margin_loss (forward + backward, p, margin,
weights, reductions, odd shapes, empty batch, non-contiguous inputs, errors
incl. targets out of range reported at the next sync).
"""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from test_loss import check, logits, raises_like_cpu

# The CPU runs these losses in float32/float64 only (AT_DISPATCH_FLOATING_TYPES).
MARGIN_FLOATS = [torch.float32, torch.float64]


@pytest.fixture(autouse=True)
def _strict(strict):
    yield


# ---- multi_margin_loss ----
@pytest.mark.parametrize("dtype", MARGIN_FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("weighted", [False, True], ids=["noweight", "weight"])
def test_multi_margin_loss(dtype, reduction, p, weighted):
    x = logits((7, 5), dtype)
    t = torch.randint(0, 5, (7,))
    w = (torch.rand(5, dtype=dtype) + 0.5) if weighted else None
    check(F.multi_margin_loss, x, t, p=p, margin=0.7, weight=w, reduction=reduction)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape", [(6,), (), (1, 1), (3, 1), (2, 33)], ids=str)
def test_multi_margin_loss_shapes(shape, reduction):
    x = logits(shape)
    n = shape[0] if len(shape) == 2 else 1
    d = shape[-1] if shape else 1
    t = torch.randint(0, d, (n,) if len(shape) == 2 else (() if not shape else (1,)))
    check(F.multi_margin_loss, x, t, reduction=reduction)


def test_multi_margin_loss_noncontiguous_and_empty():
    x = logits((5, 8)).t()  # [8, 5], transposed
    t = torch.randint(0, 5, (16,))[::2]
    check(F.multi_margin_loss, x, t, p=2, margin=1.5, reduction="none")
    check(F.multi_margin_loss, x, t, reduction="mean")
    out = check(F.multi_margin_loss, logits((0, 4)), torch.zeros(0, dtype=torch.long), reduction="none", grad=False)
    assert out.shape == (0,)


def test_multi_margin_loss_out_variant():
    x, t = logits((4, 3)), torch.tensor([0, 2, 1, 1])
    out = torch.empty(4, device="ocl")
    torch._C._nn.multi_margin_loss(x.to("ocl"), t.to("ocl"), 1, 1.0, None, 0, out=out)
    assert_close(out.cpu(), F.multi_margin_loss(x, t, reduction="none"))


def test_multi_margin_loss_errors():
    raises_like_cpu(F.multi_margin_loss, logits((3, 4)), torch.tensor([0, 1, 4]), match="target out of range")
    raises_like_cpu(F.multi_margin_loss, logits((3, 4)), torch.tensor([0, -1, 2]), match="target out of range")
    raises_like_cpu(F.multi_margin_loss, logits((3, 4)), torch.tensor([0, 1]), match="target tensor should be 1-D")
    raises_like_cpu(F.multi_margin_loss, logits((3, 4)), torch.tensor([0, 1, 2]), p=3, match="only p == 1 and p == 2")
    raises_like_cpu(F.multi_margin_loss, logits((3, 4)), torch.tensor([0, 1, 2]), weight=torch.ones(3),
                    match="inconsistent weight size")
    raises_like_cpu(F.multi_margin_loss, logits((2, 3, 4)), torch.tensor([0, 1]), match="Expected non-empty vector")
    raises_like_cpu(F.multi_margin_loss, logits((3, 4), torch.float16), torch.tensor([0, 1, 2]),
                    match="not implemented for 'Half'")


def test_multi_margin_loss_bad_target_backward():
    x = logits((3, 4)).to("ocl").requires_grad_()
    loss = F.multi_margin_loss(x, torch.tensor([0, 1, 2], device="ocl"))
    loss.backward()
    torch.ocl.synchronize()
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(x.detach(), torch.tensor([0, 9, 2], device="ocl")).cpu()


# ---- multilabel_margin_loss ----
def multilabel_targets(n, d, seed=3):
    g = torch.Generator().manual_seed(seed)
    t = torch.full((n, d), -1, dtype=torch.long)
    for i in range(n):
        k = int(torch.randint(0, d + 1, (1,), generator=g))
        t[i, :k] = torch.randperm(d, generator=g)[:k]
        if k + 1 < d:  # entries after the first -1 are ignored (but range-checked)
            t[i, k + 1:] = torch.randint(-1, d, (d - k - 1,), generator=g)
    return t


@pytest.mark.parametrize("dtype", MARGIN_FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape", [(6, 5), (1, 1), (3, 17), (5,), ()], ids=str)
def test_multilabel_margin_loss(dtype, reduction, shape):
    x = logits(shape, dtype)
    if len(shape) == 2:
        t = multilabel_targets(*shape)
    else:
        d = shape[0] if shape else 1
        t = multilabel_targets(1, d)[0]
        t = t if shape else t.reshape(())
    check(F.multilabel_margin_loss, x, t, reduction=reduction)


def test_multilabel_margin_loss_is_target_and_noncontiguous():
    x = logits((6, 9)).t()  # [9, 6]
    t = multilabel_targets(9, 12)[:, ::2].clamp(max=5)
    check(F.multilabel_margin_loss, x, t, reduction="none")
    out, is_target = torch.ops.aten.multilabel_margin_loss_forward(x.to("ocl"), t.to("ocl"), 1)
    eout, eis = torch.ops.aten.multilabel_margin_loss_forward(x, t, 1)
    assert_close(out.cpu(), eout)
    assert_close(is_target.cpu(), eis)
    out = check(F.multilabel_margin_loss, logits((0, 4)), torch.zeros(0, 4, dtype=torch.long), reduction="none")
    assert out.shape == (0,)


def test_multilabel_margin_loss_errors():
    raises_like_cpu(F.multilabel_margin_loss, logits((2, 4)), torch.tensor([[0, 4, -1, 0], [1, -1, 0, 0]]),
                    match="'target' is out of range")
    raises_like_cpu(F.multilabel_margin_loss, logits((2, 4)), torch.tensor([[0, -1, -1, 0], [1, -1, -2, 0]]),
                    match="'target' is out of range")
    raises_like_cpu(F.multilabel_margin_loss, logits((2, 4)), torch.zeros(2, 3, dtype=torch.long),
                    match="inconsistent target size")
    raises_like_cpu(F.multilabel_margin_loss, logits((2, 0)), torch.zeros(2, 0, dtype=torch.long),
                    match="Expected non-empty vector")
    raises_like_cpu(F.multilabel_margin_loss, logits((2, 4), torch.bfloat16), torch.zeros(2, 4, dtype=torch.long),
                    match="not implemented for 'BFloat16'")
