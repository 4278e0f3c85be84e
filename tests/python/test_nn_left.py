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
    # float16/bfloat16 compute on ocl as on CUDA (the CPU raises): test_cuda_dtypes.py


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
    # float16/bfloat16 compute on ocl as on CUDA (the CPU raises): test_cuda_dtypes.py


# ---- rrelu / rrelu_with_noise ----
RRELU_FLOATS = [torch.float32, torch.float64, torch.bfloat16]  # the CPU's training dtypes (ocl: float16 too, as CUDA)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
def test_rrelu_eval_matches_cpu(dtype):
    x = logits((5, 7), dtype)
    check(F.rrelu, x, 0.1, 0.3, False, tol=dict(rtol=0, atol=0))
    check(F.rrelu, x.t(), grad=False, tol=dict(rtol=0, atol=0))
    y = x.to("ocl")
    F.rrelu(y, 0.2, 0.4, training=False, inplace=True)
    assert_close(y.cpu(), F.rrelu(x, 0.2, 0.4, training=False), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", RRELU_FLOATS, ids=str)
def test_rrelu_training(dtype):
    x = logits((1001, 3), dtype).t()  # non-contiguous, 3003 elements
    lower, upper = 0.1, 0.3
    xd = x.to("ocl").requires_grad_()
    torch.ocl.manual_seed(123)
    noise = torch.empty_like(xd.detach())
    out = torch.ops.aten.rrelu_with_noise(xd, noise, lower, upper, True)
    neg = x <= 0
    n = noise.cpu()
    assert neg.any() and (~neg).any()
    assert (n[~neg] == 1).all()
    assert (n[neg] >= lower).all() and (n[neg] <= upper).all()
    assert n[neg].float().std() > 0.02  # really random, not a constant slope
    # out = x * slope in opmath, as the CPU (bfloat16 stores the slope rounded)
    exact = dict(rtol=0, atol=0) if dtype != torch.bfloat16 else dict(rtol=8e-3, atol=0)
    assert_close(out.detach().cpu(), torch.where(neg, x * n, x), **exact)
    # gradient equals the noise
    g = torch.rand(x.shape, dtype=dtype)
    out.backward(g.to("ocl"))
    assert_close(xd.grad.cpu(), g * n)
    # reproducible under torch.ocl.manual_seed; a second draw differs
    torch.ocl.manual_seed(123)
    again = F.rrelu(x.to("ocl"), lower, upper, training=True)
    assert_close(again.cpu(), out.detach().cpu(), rtol=0, atol=0)
    other = F.rrelu(x.to("ocl"), lower, upper, training=True)
    assert not torch.equal(other.cpu(), again.cpu())


def test_rrelu_training_inplace_and_module():
    x = logits((4, 50))
    torch.ocl.manual_seed(7)
    ref = F.rrelu(x.to("ocl"), training=True).cpu()
    torch.ocl.manual_seed(7)
    y = x.to("ocl")
    F.rrelu(y, training=True, inplace=True)
    assert_close(y.cpu(), ref, rtol=0, atol=0)
    m = torch.nn.RReLU(0.05, 0.2).to("ocl").train()
    xd = x.to("ocl").requires_grad_()
    m(xd).sum().backward()
    gr = xd.grad.cpu()
    assert ((gr[x > 0] == 1).all() and (gr[x <= 0] >= 0.05).all() and (gr[x <= 0] <= 0.2).all())
    assert F.rrelu(torch.empty(0, 3, device="ocl"), training=True).shape == (0, 3)


def test_rrelu_errors():
    # float16 training draws noise on ocl as on CUDA (the CPU raises): test_cuda_dtypes.py
    x = logits((3, 4))
    raises_like_cpu(torch.ops.aten.rrelu_with_noise, x, torch.empty(4, 3), 0.1, 0.3, True,
                    match="noise tensor shape must match")
    raises_like_cpu(F.rrelu, x, 0.5, 0.1, True, match="Lower bound should be less than or equal")


def test_rrelu_with_noise_functional_and_out():
    x = logits((6, 5)).to("ocl")
    torch.ocl.manual_seed(3)
    out, noise = torch.ops.aten.rrelu_with_noise_functional(x, torch.empty_like(x), 0.1, 0.3, True)
    torch.ocl.manual_seed(3)
    n2 = torch.empty_like(x)
    o2 = torch.empty(0, device="ocl")
    torch.ops.aten.rrelu_with_noise.out(x, n2, 0.1, 0.3, True, out=o2)
    assert_close(o2.cpu(), out.cpu(), rtol=0, atol=0)
    assert_close(n2.cpu(), noise.cpu(), rtol=0, atol=0)
    g = torch.ops.aten.rrelu_with_noise_backward(torch.ones_like(x), x, noise, 0.1, 0.3, True, False)
    assert_close(g.cpu(), noise.cpu())


# ---- fractional_max_pool2d / 3d (the caller's _random_samples: same windows as the CPU) ----
POOL_FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def frac_pool(dims):
    return torch.ops.aten.fractional_max_pool2d if dims == 2 else torch.ops.aten.fractional_max_pool3d


@pytest.mark.parametrize("dtype", POOL_FLOATS, ids=str)
@pytest.mark.parametrize("case", [
    (2, (2, 3, 11, 9), (2, 3), (5, 4)),
    (2, (3, 10, 10), (3, 3), (4, 7)),
    (2, (1, 2, 7, 7), (1, 1), (7, 1)),
    (3, (2, 2, 7, 8, 9), (2, 3, 2), (3, 4, 5)),
    (3, (3, 6, 7, 6), (2, 3, 2), (4, 1, 4)),
], ids=str)
def test_fractional_max_pool(dtype, case):
    dims, shape, kernel, out_size = case
    x = logits(shape, dtype)
    n = shape[0] if len(shape) == dims + 2 else 1
    c = shape[-dims - 1]
    samples = torch.rand(n + 1, c, dims, dtype=torch.float64).to(dtype)  # N' >= N is allowed
    op = frac_pool(dims)
    exact = dict(rtol=0, atol=0)
    check(lambda a, s: op(a, list(kernel), list(out_size), s)[0], x, samples, grad_args=[0], tol=exact)
    eo, ei = op(x, list(kernel), list(out_size), samples)
    ao, ai = op(x.to("ocl"), list(kernel), list(out_size), samples.to("ocl"))
    assert_close(ao.cpu(), eo, **exact)
    assert torch.equal(ai.cpu(), ei)


@pytest.mark.parametrize("dims", [2, 3])
def test_fractional_max_pool_module_noncontiguous(dims):
    shape = (2, 3) + (9,) * dims
    x = logits(shape)
    x = x.transpose(-1, -2)  # non-contiguous
    samples = torch.rand(2, 3, dims)
    f = F.fractional_max_pool2d if dims == 2 else F.fractional_max_pool3d
    check(lambda a, s: f(a, 2, output_ratio=(0.5,) * dims, _random_samples=s), x, samples, grad_args=[0],
          tol=dict(rtol=0, atol=0))
    # channels_last input
    if dims == 2:
        xc = x.contiguous(memory_format=torch.channels_last)
        check(lambda a, s: f(a, 3, output_size=5, _random_samples=s), xc, samples, grad_args=[0],
              tol=dict(rtol=0, atol=0))
    # empty batch
    e = f(torch.empty((0, 3) + (9,) * dims, device="ocl"), 2, output_size=4, _random_samples=samples.to("ocl"))
    assert e.shape == (0, 3) + (4,) * dims


def test_fractional_max_pool_random_samples_on_device():
    # without _random_samples the module draws them on ocl (uniform_, native)
    x = logits((2, 3, 12, 12)).to("ocl").requires_grad_()
    out = F.fractional_max_pool2d(x, 3, output_size=5)
    out.sum().backward()
    assert out.shape == (2, 3, 5, 5) and x.grad.sum().item() == 2 * 3 * 25


def test_fractional_max_pool_errors():
    def op2(*a):
        return frac_pool(2)(*a)[0]

    def op3(*a):
        return frac_pool(3)(*a)[0]

    raises_like_cpu(op2, logits((1, 1, 3, 3)), [2, 2], [4, 4], torch.rand(1, 1, 2), match="too large relative")
    raises_like_cpu(op2, logits((1, 1, 9, 9)), [2, 2], [4, 4], torch.rand(1, 1, 3), match="equals to 2; got 3")
    raises_like_cpu(op2, logits((1, 1, 9, 9)), [2, 2], [4, 4], torch.rand(1, 1, 2, dtype=torch.float64),
                    match="same dtype as input")
    raises_like_cpu(op3, logits((1, 1, 3, 9, 9)), [2, 2, 2], [4, 4, 4], torch.rand(1, 1, 3), match="pool time 2")
    raises_like_cpu(torch.ops.aten.fractional_max_pool3d_backward, logits((1, 1, 4, 4, 3)), logits((1, 1, 9, 9, 9)),
                    [2, 2, 2], [4, 4, 4], torch.zeros(1, 1, 4, 4, 4, dtype=torch.long), match="gradOutput width")
    raises_like_cpu(torch.ops.aten.fractional_max_pool2d_backward, logits((1, 1, 4, 3)), logits((1, 1, 9, 9)),
                    [2, 2], [4, 4], torch.zeros(1, 1, 4, 4, dtype=torch.long), match="gradOutput sizes unexpected")
    # an index outside the input plane is skipped and reported at the next sync
    idx = torch.zeros(1, 1, 2, 2, dtype=torch.long, device="ocl")
    idx[0, 0, 1, 1] = 81
    with pytest.raises(RuntimeError, match="index 81 is out of range"):
        torch.ops.aten.fractional_max_pool2d_backward(torch.ones(1, 1, 2, 2, device="ocl"),
                                                      torch.ones(1, 1, 9, 9, device="ocl"), [2, 2], [2, 2], idx).cpu()
