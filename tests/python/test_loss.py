"""Loss functions (kernels/loss_ops.cpp, kernels/loss.cl) against PyTorch CPU.

Every test runs under fallback_mode('error') (the `strict` fixture, applied to
the whole file), so a loss that is not native on ocl fails instead of running
on the CPU. Each case computes the loss and the gradients of its floating
inputs on the CPU and on ocl copies of the same tensors, and compares both:
nll_loss / cross_entropy (class weights, ignore_index, reductions, 1-d to 5-d
inputs, uint8 targets, probability targets, label smoothing), mse, l1,
smooth_l1, huber, binary_cross_entropy (+ weights), the composite losses, in
float32/float64/float16/bfloat16, empty batches and non-contiguous inputs;
then errors (target out of range, shape and dtype mismatches) against the
CPU's exception type and message, and PyTorch's OpInfo samples.
"""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from cpu_reference import SUM_TOL as TOL

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


# Every test of this file runs in strict mode: a missing native kernel raises.
pytestmark = pytest.mark.usefixtures("strict")


def to_ocl(x, grad):
    if isinstance(x, torch.Tensor):
        y = x.detach().to("ocl")
        if grad and y.is_floating_point():
            y.requires_grad_(True)
        return y
    return x


def to_cpu(x, grad):
    if isinstance(x, torch.Tensor):
        y = x.detach().clone()
        if grad and y.is_floating_point():
            y.requires_grad_(True)
        return y
    return x


def check(fn, *args, grad=True, tol=None, grad_args=None, **kwargs):
    """fn(*args, **kwargs) on the CPU and on ocl: same value and, with grad,
    the same gradients of the floating tensor args (grad_args: their indices)."""
    which = set(range(len(args))) if grad_args is None else set(grad_args)
    cpu = [to_cpu(a, grad and i in which) for i, a in enumerate(args)]
    dev = [to_ocl(a, grad and i in which) for i, a in enumerate(args)]
    kw_cpu = {k: to_cpu(v, False) for k, v in kwargs.items()}
    kw_dev = {k: to_ocl(v, False) for k, v in kwargs.items()}
    expected = fn(*cpu, **kw_cpu)
    actual = fn(*dev, **kw_dev)
    assert actual.device.type == "ocl"
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    dtype = next(a.dtype for a in args if isinstance(a, torch.Tensor) and a.is_floating_point())
    t = tol or TOL[dtype]
    assert_close(actual.detach().cpu(), expected.detach(), equal_nan=True, **t)
    if grad:
        g = torch.rand(expected.shape, dtype=expected.dtype) + 0.5
        expected.backward(g)
        actual.backward(g.to("ocl"))
        for c, d in zip(cpu, dev):
            if isinstance(c, torch.Tensor) and c.requires_grad:
                assert d.grad is not None and d.grad.device.type == "ocl"
                assert_close(d.grad.cpu(), c.grad, equal_nan=True, **t)
    return actual


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def logits(shape, dtype=torch.float32, seed=0):
    return (torch.randn(shape, generator=gen(seed), dtype=torch.float64) * 2).to(dtype)


def targets(shape, classes, seed=1, dtype=torch.long):
    return torch.randint(0, classes, shape, generator=gen(seed)).to(dtype)


def raises_like_cpu(fn, *args, match=None, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the CPU's verdict is the reference
        kind, msg = type(e), str(e)
    else:
        raise AssertionError("the CPU did not raise")
    with pytest.raises(kind) as info:
        out = fn(*[to_ocl(a, False) for a in args], **{k: to_ocl(v, False) for k, v in kwargs.items()})
        torch.ocl.synchronize()  # device-side checks are reported at the next sync
        out.cpu()
    if match is not None:
        assert match in msg, msg
        assert match in str(info.value), str(info.value)
    return info.value


# ---- nll_loss / cross_entropy ----
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True], ids=["noweight", "weight"])
def test_nll_loss_2d_input(dtype, reduction, weighted):
    x = logits((13, 7), dtype).log_softmax(1)
    t = targets((13,), 7)
    t[3] = -100  # the default ignore_index
    w = (torch.rand(7, generator=gen(2)) + 0.1).to(dtype) if weighted else None
    check(F.nll_loss, x, t, weight=w, reduction=reduction)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_ignore_index_and_1d(reduction):
    x = logits((9, 5)).log_softmax(1)
    t = targets((9,), 5)
    check(F.nll_loss, x, t, ignore_index=2, reduction=reduction)
    check(F.nll_loss, x, t, ignore_index=2, reduction=reduction, weight=torch.rand(5) + 0.5)
    # 1-d input, 0-d target (no batch dim)
    check(F.nll_loss, x[0], t[0], reduction=reduction)
    check(F.nll_loss, x[0], torch.tensor(4), ignore_index=4, reduction=reduction)
    # every target ignored: mean is nan (0 / 0), as on the CPU
    check(F.nll_loss, x, torch.full((9,), 2), ignore_index=2, reduction=reduction)


def test_nll_loss_uint8_target_and_noncontiguous():
    x = logits((11, 5)).log_softmax(1)
    check(F.nll_loss, x, targets((11,), 5, dtype=torch.uint8))
    xt = logits((6, 10)).t()  # [10, 6], transposed
    check(F.nll_loss, xt, targets((10,), 6, dtype=torch.uint8))
    xs = logits((20, 8))[::2]  # rows with a step
    check(F.nll_loss, xs, targets((20,), 8)[::2], reduction="none")
    check(F.nll_loss, xs, targets((10,), 8), weight=(torch.rand(16) + 0.5)[::2])


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_spatial(dtype, reduction):
    # 4-d: nll_loss2d; 3-d and 5-d: nll_loss_nd reshapes onto it
    for shape in [(2, 4, 5, 3), (3, 4, 7), (2, 3, 2, 3, 2)]:
        x = logits(shape, dtype).log_softmax(1)
        t = targets((shape[0],) + shape[2:], shape[1])
        t.view(-1)[1] = -100
        w = (torch.rand(shape[1], generator=gen(3)) + 0.5).to(dtype)
        check(F.nll_loss, x, t, reduction=reduction)
        check(F.nll_loss, x, t.clamp(min=0), weight=w, reduction=reduction, ignore_index=0)


def test_nll_loss_spatial_noncontiguous():
    """A permuted input: the CPU's nll_loss2d_backward rejects it ("grad_input
    must be contiguous"), ocl computes it; compared with the CPU on a
    contiguous copy."""
    x = logits((2, 5, 6, 4)).permute(0, 1, 3, 2)  # [2, 5, 4, 6], a permuted view
    t = targets((2, 6, 4), 5).transpose(1, 2)
    for reduction in ["none", "mean", "sum"]:
        xc = x.contiguous().requires_grad_(True)
        expected = F.nll_loss(xc, t, reduction=reduction)
        xd = x.to("ocl").requires_grad_(True)
        assert not xd.is_contiguous()
        actual = F.nll_loss(xd, t.to("ocl"), reduction=reduction)
        assert_close(actual.detach().cpu(), expected.detach())
        g = torch.rand(expected.shape)
        expected.backward(g)
        actual.backward(g.to("ocl"))
        assert_close(xd.grad.cpu(), xc.grad)


def test_nll_loss_empty_batch():
    for reduction in ["none", "mean", "sum"]:
        check(F.nll_loss, logits((0, 4)), targets((0,), 4), reduction=reduction)
        check(F.nll_loss, logits((0, 4, 3, 3)), targets((0, 3, 3), 4), reduction=reduction)


def test_nll_loss_large():
    x = logits((100_003, 3)).log_softmax(1)
    t = targets((100_003,), 3)
    check(F.nll_loss, x, t, tol=dict(rtol=1e-4, atol=1e-4))
    check(F.nll_loss, x, t, reduction="sum", weight=torch.rand(3) + 0.5, tol=dict(rtol=1e-4, atol=1e-2))


def test_nll_loss_ops_direct():
    """nll_loss_forward returns (output, total_weight): both match the CPU."""
    x = logits((6, 4))
    t = targets((6,), 4)
    w = torch.rand(4) + 0.5
    for red in (0, 1, 2):
        e = torch.ops.aten.nll_loss_forward(x, t, w, red, 1)
        a = torch.ops.aten.nll_loss_forward(x.to("ocl"), t.to("ocl"), w.to("ocl"), red, 1)
        for ai, ei in zip(a, e):
            assert_close(ai.cpu(), ei)
    x4, t3 = logits((2, 4, 3, 3)), targets((2, 3, 3), 4)
    e = torch.ops.aten.nll_loss2d_forward(x4, t3, w, 1, -100)
    a = torch.ops.aten.nll_loss2d_forward(x4.to("ocl"), t3.to("ocl"), w.to("ocl"), 1, -100)
    for ai, ei in zip(a, e):
        assert_close(ai.cpu(), ei)
    # out= variant
    out, tw = torch.empty(0, device="ocl"), torch.empty(0, device="ocl")
    torch.ops.aten.nll_loss_forward.output(x.to("ocl"), t.to("ocl"), None, 0, -100, output=out, total_weight=tw)
    assert_close(out.cpu(), F.nll_loss(x, t, reduction="none"))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_cross_entropy(dtype):
    x = logits((8, 6), dtype)
    t = targets((8,), 6)
    w = (torch.rand(6, generator=gen(4)) + 0.5).to(dtype)
    for reduction in ["none", "mean", "sum"]:
        check(F.cross_entropy, x, t, reduction=reduction)
        check(F.cross_entropy, x, t, weight=w, reduction=reduction, label_smoothing=0.2)
        probs = torch.rand(8, 6, generator=gen(5)).softmax(1).to(dtype)
        check(F.cross_entropy, x, probs, reduction=reduction)
        check(F.cross_entropy, x, probs, weight=w, reduction=reduction, label_smoothing=0.1)
    x4 = logits((2, 3, 4, 5), dtype)
    check(F.cross_entropy, x4, targets((2, 4, 5), 3), label_smoothing=0.05, ignore_index=1)


def test_nn_modules_train():
    """nn.CrossEntropyLoss / NLLLoss through a small linear model: same grads."""
    torch.manual_seed(0)
    lin = torch.nn.Linear(5, 4)
    lin_d = torch.nn.Linear(5, 4).to("ocl")
    lin_d.load_state_dict({k: v.to("ocl") for k, v in lin.state_dict().items()})
    x, t = logits((16, 5)), targets((16,), 4)
    for loss_fn in [torch.nn.CrossEntropyLoss(label_smoothing=0.1), torch.nn.NLLLoss(ignore_index=2)]:
        lin.zero_grad()
        lin_d.zero_grad()
        inp = lin(x) if isinstance(loss_fn, torch.nn.CrossEntropyLoss) else lin(x).log_softmax(1)
        inp_d = lin_d(x.to("ocl"))
        inp_d = inp_d if isinstance(loss_fn, torch.nn.CrossEntropyLoss) else inp_d.log_softmax(1)
        loss_fn(inp, t).backward()
        loss_fn(inp_d, t.to("ocl")).backward()
        assert_close(lin_d.weight.grad.cpu(), lin.weight.grad, rtol=1e-5, atol=1e-6)
        assert_close(lin_d.bias.grad.cpu(), lin.bias.grad, rtol=1e-5, atol=1e-6)


# ---- nll errors ----
def test_nll_target_out_of_range():
    x = logits((3, 4))
    for t in ([0, 1, 5], [0, -5, 1]):
        for reduction in ["none", "mean"]:
            err = raises_like_cpu(F.nll_loss, x, torch.tensor(t), reduction=reduction, match=f"Target {max(t, key=abs)} is out of bounds.")
            assert isinstance(err, IndexError)
    raises_like_cpu(F.nll_loss, logits((2, 3, 4, 4)), torch.full((2, 4, 4), 7), match="Target 7 is out of bounds.")
    # the device is usable afterwards
    assert_close(F.nll_loss(x.to("ocl"), torch.tensor([0, 1, 2], device="ocl")).cpu(),
                 F.nll_loss(x, torch.tensor([0, 1, 2])))


def test_nll_errors():
    x = logits((3, 4))
    raises_like_cpu(F.nll_loss, x, torch.tensor([0, 1]), match="Expected input batch_size (3) to match target batch_size (2)")
    raises_like_cpu(F.nll_loss, x, torch.tensor([0, 1, 2]).int(), match="expected target dtype to be Long or Byte, but got Int")
    raises_like_cpu(F.nll_loss, x, torch.tensor([0, 1, 2]).float(), match="expected target dtype to be Long or Byte")
    raises_like_cpu(F.nll_loss, x.int(), torch.tensor([0, 1, 1]), match="\"nll_loss_out_frame\" not implemented for 'Int'")
    raises_like_cpu(F.nll_loss, x, torch.tensor([0, 1, 1]), weight=torch.rand(4).double(),
                    match="expected scalar type Float but found Double")
    raises_like_cpu(F.nll_loss, x, torch.tensor([0, 1, 1]), weight=torch.rand(5), match="weight tensor should be defined")
    raises_like_cpu(torch.ops.aten.nll_loss2d_forward, logits((2, 3, 4, 4)), torch.zeros(2, 4, 4).byte(), None, 1, -100,
                    match="expected scalar type Long but found Byte")
    raises_like_cpu(torch.ops.aten.nll_loss2d_forward, logits((2, 3, 4, 4)), torch.zeros(2, 4, 5).long(), None, 1, -100,
                    match="size mismatch")
    raises_like_cpu(torch.ops.aten.nll_loss2d_forward, logits((2, 3, 4)), torch.zeros(2, 4, 5).long(), None, 1, -100,
                    match="only batches of spatial inputs supported")


# ---- pointwise losses ----
POINTWISE = {
    "mse": lambda a, b, r: F.mse_loss(a, b, reduction=r),
    "l1": lambda a, b, r: F.l1_loss(a, b, reduction=r),
    "smooth_l1": lambda a, b, r: F.smooth_l1_loss(a, b, reduction=r, beta=0.7),
    "smooth_l1_beta0": lambda a, b, r: F.smooth_l1_loss(a, b, reduction=r, beta=0.0),
    "huber": lambda a, b, r: F.huber_loss(a, b, reduction=r, delta=0.8),
    "huber_big_delta": lambda a, b, r: F.huber_loss(a, b, reduction=r, delta=3.0),
    "soft_margin": lambda a, b, r: F.soft_margin_loss(a, b.sign(), reduction=r),
    "kl_div": lambda a, b, r: F.kl_div(a, b.abs(), reduction=r),
    "kl_div_log_target": lambda a, b, r: F.kl_div(a, b, reduction=r, log_target=True),
    "bce_logits": lambda a, b, r: F.binary_cross_entropy_with_logits(a, b.sigmoid(), reduction=r),
    "poisson_nll": lambda a, b, r: F.poisson_nll_loss(a, b.abs(), reduction=r),
    "hinge": lambda a, b, r: F.hinge_embedding_loss(a, b.sign(), reduction=r),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name", POINTWISE)
def test_pointwise_losses(name, reduction, dtype):
    fn = POINTWISE[name]
    a, b = logits((7, 9), dtype, seed=0), logits((7, 9), dtype, seed=1)
    check(fn, a, b, reduction, grad_args=[0])


@pytest.mark.parametrize("name", ["mse", "smooth_l1", "huber", "l1"])
def test_pointwise_losses_shapes(name):
    fn = POINTWISE[name]
    a = logits((8, 6))
    check(fn, a.t(), logits((6, 8), seed=1), "mean")  # transposed
    check(fn, a[::2, ::3], logits((4, 2), seed=1), "sum")  # sliced with steps
    check(fn, logits(()), logits((), seed=1), "mean")  # 0-dim
    check(fn, logits((0, 3)), logits((0, 3), seed=1), "sum")  # empty
    check(fn, logits((0, 3)), logits((0, 3), seed=1), "mean")  # empty: nan
    check(fn, logits((100_003,)), logits((100_003,), seed=1), "mean", tol=dict(rtol=1e-4, atol=1e-5))
    with pytest.warns(UserWarning):  # broadcast target: the same warning as on the CPU
        check(fn, logits((5, 4)), logits((4,), seed=1), "none")


def test_mse_mixed_dtype_and_errors():
    check(F.mse_loss, logits((4, 3)), logits((4, 3), torch.float64, seed=1), grad_args=[0, 1])
    raises_like_cpu(F.mse_loss, torch.ones(3, dtype=torch.int32), torch.ones(3, dtype=torch.int32),
                    match="not implemented for 'Int'")
    raises_like_cpu(F.smooth_l1_loss, logits((3,)), logits((3,)), beta=-1.0,
                    match="smooth_l1_loss does not support negative values for beta.")
    raises_like_cpu(F.huber_loss, logits((3,)), logits((3,)), delta=0.0,
                    match="huber_loss does not support non-positive values for delta.")


# ---- binary_cross_entropy ----
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_binary_cross_entropy(dtype, reduction):
    x = (torch.rand(6, 5, generator=gen(0)) * 0.9 + 0.05).to(dtype)
    y = torch.rand(6, 5, generator=gen(1)).to(dtype)
    check(F.binary_cross_entropy, x, y, reduction=reduction)
    w = (torch.rand(5, generator=gen(2)) + 0.5).to(dtype)  # broadcast weight
    check(F.binary_cross_entropy, x, y, weight=w, reduction=reduction)
    # 0 and 1 in the input: log clamped at -100, as on the CPU
    edge = torch.tensor([0.0, 1.0, 0.5]).to(dtype)
    check(F.binary_cross_entropy, edge, torch.tensor([1.0, 0.0, 1.0]).to(dtype), reduction=reduction, grad=False)


def test_binary_cross_entropy_shapes():
    x = torch.rand(8, 6, generator=gen(0)) * 0.9 + 0.05
    y = torch.rand(6, 8, generator=gen(1))
    check(F.binary_cross_entropy, x.t(), y, grad_args=[0])
    check(F.binary_cross_entropy, x[::2], y.t()[::2], reduction="sum")
    check(F.binary_cross_entropy, torch.rand(0, 3), torch.rand(0, 3), reduction="sum")
    check(F.binary_cross_entropy, torch.rand(100_003), torch.rand(100_003), tol=dict(rtol=1e-4, atol=1e-5))
    check(F.binary_cross_entropy_with_logits, logits((6, 4)), torch.rand(6, 4), weight=torch.rand(4),
          pos_weight=torch.rand(4) + 0.5, grad_args=[0])


def test_binary_cross_entropy_errors():
    raises_like_cpu(F.binary_cross_entropy, torch.tensor([0.5, 1.5]), torch.tensor([1.0, 0.0]),
                    match="all elements of input should be between 0 and 1")
    raises_like_cpu(F.binary_cross_entropy, torch.tensor([-0.1]), torch.tensor([1.0]),
                    match="all elements of input should be between 0 and 1")
    raises_like_cpu(F.binary_cross_entropy, torch.rand(3), torch.rand(3).double(), match="Found dtype Double but expected Float")
    raises_like_cpu(F.binary_cross_entropy, torch.rand(3), torch.rand(4), match="Using a target size")


# ---- other composites ----
def test_composite_losses():
    a, b = logits((6, 5)), logits((6, 5), seed=1)
    check(F.gaussian_nll_loss, a, b, torch.rand(6, 5) + 0.5, grad_args=[0, 2])
    check(F.cosine_embedding_loss, a, b, torch.tensor([1, -1, 1, -1, 1, 1]))
    check(F.margin_ranking_loss, a, b, torch.ones(6, 5).neg())
    check(F.triplet_margin_loss, a, b, logits((6, 5), seed=2))
    check(F.kl_div, a.log_softmax(1), b.softmax(1), reduction="batchmean", grad_args=[0])


# ---- PyTorch's OpInfo samples, forward and backward ----
OPINFO_OPS = [
    "nn.functional.cross_entropy", "nn.functional.nll_loss", "nn.functional.mse_loss", "nn.functional.l1_loss",
    "nn.functional.smooth_l1_loss", "nn.functional.huber_loss", "nn.functional.binary_cross_entropy",
    "nn.functional.binary_cross_entropy_with_logits", "nn.functional.kl_div", "nn.functional.soft_margin_loss",
]


def _flatten(x):
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _flatten(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _flatten(v)]
    return []


def _move(x):
    if isinstance(x, torch.Tensor):
        y = x.detach().to("ocl")
        return y.requires_grad_(x.requires_grad)
    if isinstance(x, (list, tuple)):
        return type(x)(_move(v) for v in x)
    if isinstance(x, dict):
        return {k: _move(v) for k, v in x.items()}
    return x


def run_opinfo(name, dtype):
    from torch.testing._internal.common_methods_invocations import op_db

    ops = [o for o in op_db if o.name == name]
    assert ops, name
    n = 0
    for op in ops:
        if dtype not in op.supported_dtypes("cpu"):
            continue
        grad = op.supports_autograd and dtype in (torch.float32, torch.float64)
        for s in op.sample_inputs("cpu", dtype, requires_grad=grad):
            expected = op(s.input, *s.args, **s.kwargs)
            d_input, d_args, d_kwargs = _move(s.input), _move(s.args), _move(s.kwargs)
            actual = op(d_input, *d_args, **d_kwargs)
            exp_t, act_t = _flatten(expected), _flatten(actual)
            tol = TOL[dtype] if dtype in (torch.float16, torch.bfloat16) else dict(rtol=1e-4, atol=1e-5)
            for a, e in zip(act_t, exp_t):
                assert a.device.type == "ocl"
                assert_close(a.detach().cpu(), e.detach(), equal_nan=True, **tol)
            if grad:
                inputs_c = [t for t in _flatten([s.input, s.args, s.kwargs]) if t.requires_grad]
                inputs_d = [t for t in _flatten([d_input, d_args, d_kwargs]) if t.requires_grad]
                outs = [(e, a) for e, a in zip(exp_t, act_t) if e.requires_grad]
                if inputs_c and outs:
                    gs = [torch.randn_like(e) for e, _ in outs]
                    gc = torch.autograd.grad([e for e, _ in outs], inputs_c, gs, allow_unused=True)
                    gd = torch.autograd.grad([a for _, a in outs], inputs_d, [g.to("ocl") for g in gs], allow_unused=True)
                    for x, y in zip(gd, gc):
                        if y is None:
                            continue
                        assert_close(x.cpu(), y, equal_nan=True, **tol)
            n += 1
    return n


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", OPINFO_OPS)
def test_opinfo_samples(name, dtype):
    assert run_opinfo(name, dtype) > 0
