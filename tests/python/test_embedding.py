"""Embedding and EmbeddingBag (kernels/embedding_ops.cpp, kernels/embedding.cl)
against PyTorch CPU, under fallback_mode('error') for the whole file.

Forward results and the gradients of the weight (and of per_sample_weights)
are compared with the CPU's on the same inputs: padding_idx,
scale_grad_by_freq, max_norm, int32/int64 indices, 0-d/1-d/2-d indices,
embedding_bag modes sum/mean/max with offsets, include_last_offset, empty
bags, per_sample_weights, float32/float64/float16/bfloat16, empty inputs,
non-contiguous weights, deterministic mode; errors against the CPU's; and
PyTorch's OpInfo samples of embedding and embedding_bag.
"""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from cpu_reference import SUM_TOL as TOL

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


# Every test of this file runs in strict mode: a missing native kernel raises.
pytestmark = pytest.mark.usefixtures("strict")


def gen(seed):
    return torch.Generator().manual_seed(seed)


def table(rows, dim, dtype=torch.float32, seed=0):
    return torch.randn(rows, dim, generator=gen(seed), dtype=torch.float64).to(dtype)


def check(fn, weight, *args, extra_grad=None, **kwargs):
    """fn(weight, *args, **kwargs) on the CPU and on ocl; compares the result
    and the gradients of weight (and of kwargs[extra_grad])."""
    tol = TOL[weight.dtype]
    wc = weight.clone().requires_grad_(True)
    wd = weight.to("ocl").requires_grad_(True)
    kc, kd = dict(kwargs), {k: (v.to("ocl") if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()}
    if extra_grad:
        kc[extra_grad] = kc[extra_grad].clone().requires_grad_(True)
        kd[extra_grad] = kd[extra_grad].detach().requires_grad_(True)
    expected = fn(wc, *args, **kc)
    actual = fn(wd, *[a.to("ocl") if isinstance(a, torch.Tensor) else a for a in args], **kd)
    assert actual.device.type == "ocl" and actual.shape == expected.shape and actual.dtype == expected.dtype
    assert_close(actual.detach().cpu(), expected.detach(), **tol)
    g = torch.randn(expected.shape, generator=gen(7), dtype=torch.float64).to(expected.dtype)
    expected.backward(g)
    actual.backward(g.to("ocl"))
    assert_close(wd.grad.cpu(), wc.grad, **tol)
    if extra_grad:
        assert_close(kd[extra_grad].grad.cpu(), kc[extra_grad].grad, **tol)
    return actual


def emb(w, idx, **kw):
    return F.embedding(idx, w, **kw)


# ---- embedding ----
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32], ids=str)
def test_embedding(dtype, index_dtype):
    w = table(10, 6, dtype)
    idx = torch.tensor([[1, 3, 3, 0], [9, 3, 1, 1]], dtype=index_dtype)
    check(emb, w, idx)
    check(emb, w, idx, padding_idx=3)
    check(emb, w, idx, scale_grad_by_freq=True)
    check(emb, w, idx, padding_idx=1, scale_grad_by_freq=True)
    check(emb, w, idx[0])  # 1-d
    check(emb, w, torch.tensor(4, dtype=index_dtype))  # 0-d


def test_embedding_shapes():
    w = table(7, 5)
    check(emb, w, torch.randint(0, 7, (3, 4, 2), generator=gen(1)))  # 3-d indices
    check(emb, w, torch.zeros(0, dtype=torch.long))  # empty
    check(emb, table(5, 7).t(), torch.tensor([0, 6, 6, 2]))  # transposed weight
    check(emb, table(14, 5)[::2], torch.tensor([0, 6, 6, 2]))  # weight rows with a step
    idx = torch.randint(0, 7, (20, 3), generator=gen(2)).t()  # non-contiguous indices
    check(emb, w, idx, padding_idx=0)
    big = torch.randint(0, 1000, (100_003,), generator=gen(3))
    check(emb, table(1000, 4), big, scale_grad_by_freq=True)


def test_embedding_max_norm():
    w = table(8, 4) * 3
    idx = torch.tensor([1, 2, 2, 5, 7])
    wc, wd = w.clone(), w.to("ocl")
    ec = F.embedding(idx, wc, max_norm=1.5)
    ed = F.embedding(idx.to("ocl"), wd, max_norm=1.5, norm_type=2.0)
    assert_close(ed.cpu(), ec)
    assert_close(wd.cpu(), wc)  # the renormalised table (in place)
    F.embedding(idx, wc, max_norm=2.0, norm_type=1.0)
    F.embedding(idx.to("ocl"), wd, max_norm=2.0, norm_type=1.0)
    assert_close(wd.cpu(), wc)


def test_embedding_deterministic():
    w = table(6, 3)
    idx = torch.randint(0, 6, (500,), generator=gen(4))
    torch.use_deterministic_algorithms(True)
    try:
        grads = []
        for _ in range(2):
            wd = w.to("ocl").requires_grad_(True)
            F.embedding(idx.to("ocl"), wd).sum().backward()
            grads.append(wd.grad.cpu())
        assert torch.equal(grads[0], grads[1])
        wc = w.clone().requires_grad_(True)
        F.embedding(idx, wc).sum().backward()
        assert_close(grads[0], wc.grad)
    finally:
        torch.use_deterministic_algorithms(False)


def test_embedding_module_trains():
    torch.manual_seed(0)
    m = torch.nn.Embedding(12, 4, padding_idx=0)
    md = torch.nn.Embedding(12, 4, padding_idx=0).to("ocl")
    md.load_state_dict({k: v.to("ocl") for k, v in m.state_dict().items()})
    opt, optd = torch.optim.SGD(m.parameters(), lr=0.5), torch.optim.SGD(md.parameters(), lr=0.5)
    idx = torch.randint(0, 12, (5, 6), generator=gen(5))
    for _ in range(3):
        for mod, o, i in ((m, opt, idx), (md, optd, idx.to("ocl"))):
            o.zero_grad()
            (mod(i) ** 2).sum().backward()
            o.step()
    assert_close(md.weight.detach().cpu(), m.weight.detach())


def test_embedding_errors():
    w = table(3, 4)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(torch.tensor([5]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(torch.tensor([5], device="ocl"), w.to("ocl")).cpu()
    for dev in ("cpu", "ocl"):
        with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to have one of"):
            F.embedding(torch.tensor([1.0], device=dev), w.to(dev))
        with pytest.raises(RuntimeError, match="'indices' to have one of"):
            torch.ops.aten.embedding_dense_backward(w.to(dev), torch.tensor([1.0, 2, 0], device=dev), 5, -1, False)


# ---- embedding_bag ----
MODES = ["sum", "mean", "max"]


def bag(w, idx, offsets=None, **kw):
    return F.embedding_bag(idx, w, offsets, **kw)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("mode", MODES)
def test_embedding_bag(dtype, mode):
    w = table(10, 5, dtype)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 0, 7])
    offsets = torch.tensor([0, 3, 3, 8])  # bag 1 is empty
    check(bag, w, idx, offsets, mode=mode)
    check(bag, w, idx, offsets, mode=mode, padding_idx=4)
    check(bag, w, idx, torch.tensor([0, 3, 3, 8, 11]), mode=mode, include_last_offset=True)
    check(bag, w, idx.view(-1, 1)[:10].view(5, 2), mode=mode)  # 2-d input: fixed-size bags
    if mode == "sum":
        psw = torch.rand(11, generator=gen(3), dtype=torch.float64).to(dtype)
        check(bag, w, idx, offsets, mode=mode, per_sample_weights=psw, extra_grad="per_sample_weights")
        check(bag, w, idx, offsets, mode=mode, per_sample_weights=psw, padding_idx=2, extra_grad="per_sample_weights")


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_scale_grad_by_freq(mode):
    """The CPU's embedding_bag backward divides by the count of the wrong
    index (counts[indices[i]] with i the i-th distinct index), so the
    reference here is embedding(scale_grad_by_freq=True) with each index's
    bag gradient, which is what CUDA computes."""
    w = table(10, 5)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 0, 7])
    offsets = torch.tensor([0, 3, 3, 8])
    o2b = torch.tensor([0, 0, 0, 2, 2, 2, 2, 2, 3, 3, 3])
    sizes = torch.tensor([3, 0, 5, 3], dtype=torch.float32)
    g = torch.randn(4, 5, generator=gen(9))
    wd = w.to("ocl").requires_grad_(True)
    F.embedding_bag(idx.to("ocl"), wd, offsets.to("ocl"), mode=mode, scale_grad_by_freq=True).backward(g.to("ocl"))
    wr = w.clone().requires_grad_(True)
    rows = g[o2b] / (sizes[o2b].unsqueeze(1) if mode == "mean" else 1)
    F.embedding(idx, wr, scale_grad_by_freq=True).backward(rows)
    assert_close(wd.grad.cpu(), wr.grad)


@pytest.mark.parametrize("mode", MODES)
def test_embedding_bag_index_types_and_shapes(mode):
    w = table(9, 3)
    idx = torch.tensor([8, 0, 1, 1, 5, 3])
    check(bag, w, idx.int(), torch.tensor([0, 2], dtype=torch.int32), mode=mode)
    check(bag, w, idx, torch.tensor([0, 2], dtype=torch.int32), mode=mode)  # mixed: promoted to int64
    check(bag, table(3, 9).t(), idx, torch.tensor([0, 4]), mode=mode)  # transposed weight
    check(bag, w, torch.zeros(0, dtype=torch.long), torch.tensor([0, 0]), mode=mode)  # no indices
    check(bag, w, idx, torch.tensor([0, 1, 2, 3, 4, 5]), mode=mode, padding_idx=1)  # an all-padding bag
    big = torch.randint(0, 9, (20_000,), generator=gen(6))
    check(bag, w.double(), big, torch.arange(0, 20_000, 7), mode=mode)


def test_embedding_bag_module_trains():
    torch.manual_seed(0)
    for mode in MODES:
        m = torch.nn.EmbeddingBag(15, 4, mode=mode)
        md = torch.nn.EmbeddingBag(15, 4, mode=mode).to("ocl")
        md.load_state_dict({k: v.to("ocl") for k, v in m.state_dict().items()})
        idx = torch.randint(0, 15, (4, 5), generator=gen(8))
        for mod, i in ((m, idx), (md, idx.to("ocl"))):
            opt = torch.optim.SGD(mod.parameters(), lr=0.3)
            for _ in range(2):
                opt.zero_grad()
                (mod(i) ** 2).sum().backward()
                opt.step()
        assert_close(md.weight.detach().cpu(), m.weight.detach())


def test_embedding_bag_outputs():
    """The four outputs of _embedding_bag: output, offset2bag, bag_size (sum: 0,
    as on the CPU), max_indices (max mode)."""
    w = table(6, 2)
    idx, off = torch.tensor([0, 5, 5, 1, 2]), torch.tensor([0, 2, 2])
    for mode in (1, 2):
        e = torch.ops.aten._embedding_bag(w, idx, off, False, mode, False, None, False, -1)
        a = torch.ops.aten._embedding_bag(w.to("ocl"), idx.to("ocl"), off.to("ocl"), False, mode, False, None, False, -1)
        assert_close(a[0].cpu(), e[0])
        assert_close(a[1].cpu(), e[1])  # offset2bag
        assert_close(a[2].cpu(), e[2])  # bag_size
        if mode == 2:
            assert_close(a[3].cpu(), e[3])  # max_indices
    e = torch.ops.aten._embedding_bag_forward_only(w, idx, off, False, 0, False, None, False, -1)
    a = torch.ops.aten._embedding_bag_forward_only(w.to("ocl"), idx.to("ocl"), off.to("ocl"), False, 0, False, None,
                                                    False, -1)
    assert_close(a[0].cpu(), e[0])


def test_embedding_bag_errors():
    w = table(3, 4)

    def both(fn, exc, match):
        for dev in ("cpu", "ocl"):
            with pytest.raises(exc, match=match):
                out = fn(dev)
                (out[0] if isinstance(out, tuple) else out).cpu()

    both(lambda d: F.embedding_bag(torch.tensor([0, 1], device=d), w.to(d), torch.tensor([0], device=d), mode="mean",
                                   per_sample_weights=torch.rand(2, device=d)),
         NotImplementedError, "embedding_bag: per_sample_weights was not None")
    both(lambda d: torch.ops.aten._embedding_bag(w.to(d), torch.tensor([0, 1], device=d), torch.tensor([0], device=d),
                                                 False, 1, False, torch.rand(2, device=d), False, -1),
         RuntimeError, "per_sample_weights only supported with mode='sum'")
    both(lambda d: torch.ops.aten._embedding_bag(w.to(d), torch.tensor([0.0, 1.0], device=d),
                                                 torch.tensor([0], device=d), False, 0, False, None, False, -1),
         RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar types")
    both(lambda d: torch.ops.aten._embedding_bag(w[0].to(d), torch.tensor([0, 1], device=d),
                                                 torch.tensor([0], device=d), False, 0, False, None, False, -1),
         RuntimeError, "weight has to be a 2D Tensor, but got Tensor of dimension 1")
    both(lambda d: torch.ops.aten._embedding_bag(w.to(d).int(), torch.tensor([0, 1], device=d),
                                                 torch.tensor([0], device=d), False, 0, False, None, False, -1),
         RuntimeError, "Expected tensor for argument #1 'weight' to have one of the following scalar types")
    # an index out of range: a RuntimeError naming it (on ocl at the next sync)
    for mode in ("sum", "max"):
        with pytest.raises(RuntimeError, match="5"):
            F.embedding_bag(torch.tensor([0, 5]), w, torch.tensor([0]), mode=mode)
        with pytest.raises(RuntimeError, match="idx < num_embeddings but found idx to be 5"):
            F.embedding_bag(torch.tensor([0, 5], device="ocl"), w.to("ocl"), torch.tensor([0], device="ocl"),
                            mode=mode).cpu()


# ---- PyTorch's OpInfo samples ----
def _move(x):
    if isinstance(x, torch.Tensor):
        return x.detach().to("ocl").requires_grad_(x.requires_grad)
    if isinstance(x, (list, tuple)):
        return type(x)(_move(v) for v in x)
    if isinstance(x, dict):
        return {k: _move(v) for k, v in x.items()}
    return x


def _tensors(x):
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _tensors(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _tensors(v)]
    return []


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", ["nn.functional.embedding", "nn.functional.embedding_bag"])
def test_opinfo_samples(name, dtype):
    from torch.testing._internal.common_methods_invocations import op_db

    tol = TOL[dtype] if dtype in (torch.float16, torch.bfloat16) else dict(rtol=1e-4, atol=1e-5)
    n = 0
    for op in (o for o in op_db if o.name == name):
        grad = dtype in (torch.float32, torch.float64)
        for s in op.sample_inputs("cpu", dtype, requires_grad=grad):
            args_d, kwargs_d, input_d = _move(s.args), _move(s.kwargs), _move(s.input)
            expected = op(s.input, *s.args, **s.kwargs)
            actual = op(input_d, *args_d, **kwargs_d)
            assert actual.device.type == "ocl"
            assert_close(actual.detach().cpu(), expected.detach(), **tol)
            if grad and expected.requires_grad:
                src_c = [t for t in _tensors([s.input, s.args, s.kwargs]) if t.requires_grad]
                src_d = [t for t in _tensors([input_d, args_d, kwargs_d]) if t.requires_grad]
                g = torch.randn_like(expected)
                gc = torch.autograd.grad(expected, src_c, g, allow_unused=True)
                gd = torch.autograd.grad(actual, src_d, g.to("ocl"), allow_unused=True)
                for a, e in zip(gd, gc):
                    if e is not None:
                        assert_close(a.cpu(), e, **tol)
            n += 1
    assert n > 0


def test_embedding_bag_max_norm_with_int32_indices():
    # F.embedding_bag(max_norm=...) renormalises through embedding_renorm_,
    # whose index_copy_ takes int64 only (upstream test_embedding.py test_embedding_bag_device)
    w = torch.randn(10, 3) * 3
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9], dtype=torch.int32)
    off = torch.tensor([0, 4], dtype=torch.int32)
    w_dev = w.to("ocl")
    out = F.embedding_bag(idx.to("ocl"), w_dev, off.to("ocl"), max_norm=1.0)
    w_ref = w.clone()
    expected = F.embedding_bag(idx, w_ref, off, max_norm=1.0)
    assert_close(out.cpu(), expected)
    assert_close(w_dev.cpu(), w_ref)


def test_embedding_bag_per_sample_weights_grad_half_accuracy():
    # The gradient of the per-sample weights sums its products in float (as the
    # CPU); rounding each product to bfloat16 first was up to 0.1 off float64.
    torch.manual_seed(0)
    worst = {"cpu": 0.0, "ocl": 0.0}
    for _ in range(50):
        psw = torch.randn(6).to(torch.bfloat16)
        grad = torch.randn(4, 2).to(torch.bfloat16)
        weight = torch.arange(1, 11).view(5, 2).to(torch.bfloat16)
        inp, off = torch.tensor([3, 1, 1, 1, 4, 0]), torch.tensor([0, 0, 3, 3])
        results = {}
        for device, dtype in (("cpu", torch.bfloat16), ("ocl", torch.bfloat16), ("cpu", torch.float64)):
            p = psw.detach().to(dtype).to(device).requires_grad_()
            out = F.embedding_bag(inp.to(device), weight.to(dtype).to(device), off.to(device), mode="sum",
                                  per_sample_weights=p)
            out.backward(grad.to(dtype).to(device))
            results[(device, dtype)] = p.grad.cpu().double()
        exact = results[("cpu", torch.float64)]
        for device in ("cpu", "ocl"):
            worst[device] = max(worst[device], (results[(device, torch.bfloat16)] - exact).abs().max().item())
    assert worst["ocl"] <= worst["cpu"], worst
