"""complex64 / complex128 through the native data-movement ops.

gather, scatter, scatter_add, index_select, index.Tensor, index_put_
(accumulate False/True), index_copy, index_fill, index_add, masked_fill,
masked_select, masked_scatter, take, put_, where, flip, roll, tril/triu,
cat/stack, diag_embed, constant_pad_nd, repeat, nonzero, clone/contiguous,
cumsum. Their kernels move raw element bits (8-byte / 16-byte storage
types), or add the (re, im) halves as reals. Every test runs under
fallback_mode('error') (the op is native) and compares with PyTorch CPU on
the same values: contiguous, transposed, step-sliced, 0-dim and empty inputs.
One test loops over the ops for each dtype (CI budget: one program per
kernel and dtype).
"""

import pytest
import torch
from torch.testing import assert_close

pytestmark = pytest.mark.usefixtures("strict")

COMPLEX = [torch.complex64, torch.complex128]


def cplx(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    re = torch.randn(shape, generator=g, dtype=torch.float64)
    im = torch.randn(shape, generator=g, dtype=torch.float64)
    return torch.complex(re, im).to(dtype)


def long_(*v):
    return torch.tensor(v[0] if len(v) == 1 else v, dtype=torch.long)


def on(t, device):
    return t.to(device) if isinstance(t, torch.Tensor) else t


# name -> f(x, device): x is a (5, 7) complex tensor (or a view of one with
# the same shape); index / mask arguments are built on `device`.
def _mask(x, device):
    g = torch.Generator().manual_seed(1)
    return (torch.rand(x.shape, generator=g) > 0.5).to(device)


OPS = {
    "gather": lambda x, d: x.gather(1, on(long_([[0, 6, 3]] * 5), d)),
    "scatter_src": lambda x, d: x.clone().scatter_(1, on(long_([[4, 0]] * 5), d), x[:, :2]),
    "scatter_value": lambda x, d: x.clone().scatter_(0, on(long_([[1, 2, 0, 4, 3, 1, 0]]), d), 2.5),
    "scatter_add": lambda x, d: x.clone().scatter_add_(1, on(long_([[1, 1, 2]] * 5), d), x[:, :3]),
    "index_select": lambda x, d: x.index_select(1, on(long_(6, 0, 0, 2), d)),
    "index": lambda x, d: x[on(long_(4, 0, -1), d), 1:],
    "index2": lambda x, d: x[on(long_([0, 1], [2, 3]), d), on(long_(6, 5), d)],
    "index_put": lambda x, d: x.clone().index_put_((on(long_(0, 3), d),), x[1:3].flip(0)),
    "index_put_acc": lambda x, d: x.clone().index_put_((on(long_(0, 3, 0), d),), x[1:4], accumulate=True),
    "index_copy": lambda x, d: x.clone().index_copy_(1, on(long_(6, 1), d), x[:, :2]),
    "index_fill": lambda x, d: x.clone().index_fill_(0, on(long_(1, 3), d), complex(1.5, -2)),
    "index_add": lambda x, d: x.clone().index_add_(0, on(long_(1, 1, 4), d), x[:3], alpha=2),
    "masked_fill": lambda x, d: x.masked_fill(_mask(x, d), complex(-1, 3)),
    "masked_fill_row": lambda x, d: x.masked_fill(_mask(x, d)[0], 0.5),
    "masked_select": lambda x, d: x.masked_select(_mask(x, d)),
    "masked_scatter": lambda x, d: x.clone().masked_scatter_(_mask(x, d), x.flip(1).contiguous()),
    "take": lambda x, d: x.take(on(long_(0, 34, -1, 7), d)),
    "put_": lambda x, d: x.clone().put_(on(long_(3, 30), d), x[2, 2:4]),
    "put_acc": lambda x, d: x.clone().put_(on(long_(3, 3), d), x[2, 2:4], accumulate=True),
    "where": lambda x, d: torch.where(_mask(x, d), x, x.flip(0)),
    "where_bcast": lambda x, d: torch.where(_mask(x, d)[:, :1], x, x[0]),
    "flip": lambda x, d: x.flip(0, 1),
    "roll": lambda x, d: x.roll((2, -1), (0, 1)),
    "tril": lambda x, d: x.tril(1),
    "triu": lambda x, d: x.triu(-1),
    "cat": lambda x, d: torch.cat([x, x[:2]]),
    "stack": lambda x, d: torch.stack([x, x], 1),
    "diag_embed": lambda x, d: torch.diag_embed(x[:2]),
    "pad": lambda x, d: torch.nn.functional.pad(x, (1, 2, 0, 1), value=0.0),
    "repeat": lambda x, d: x.repeat(2, 1, 1),
    "contiguous": lambda x, d: x.contiguous(),
    "clone": lambda x, d: x.clone(),
    "cumsum0": lambda x, d: x.cumsum(0),
    "cumsum1": lambda x, d: x.cumsum(1),
}


def views(base):
    """The same (5, 7) values as a contiguous, a transposed and a step-sliced tensor."""
    yield "contiguous", lambda t: t
    yield "transposed", lambda t: t.t().contiguous().t()
    yield "sliced", lambda t: torch.stack([t, t], 2).reshape(5, 14)[:, ::2]


@pytest.mark.parametrize("dtype", COMPLEX, ids=["c64", "c128"])
def test_ops_match_cpu(dtype):
    x = cplx((5, 7), dtype)
    x[1, 2] = 0
    x[3, 4] = complex(-0.0, 0.0)
    for view_name, make in views(x):
        xc = make(x)
        xo = make(x.to("ocl"))
        assert xc.is_contiguous() == xo.is_contiguous()
        for name, f in OPS.items():
            got = f(xo, "ocl")
            assert got.device.type == "ocl", name
            assert_close(got.cpu(), f(xc, "cpu"), msg=lambda m: f"{name} ({view_name}): {m}")


@pytest.mark.parametrize("dtype", COMPLEX, ids=["c64", "c128"])
def test_nonzero_reads_both_halves(dtype):
    x = torch.tensor([0, 1j, 2, -0.0 + 0j, complex(0.0, -0.0), 3 + 4j, complex(-0.0, 1e-30)], dtype=dtype)
    for t in (x, x.reshape(1, 7), x[::2], x[:0], x[5]):
        assert_close(t.to("ocl").nonzero().cpu(), t.nonzero())


def test_zero_dim_and_empty():
    for dtype in COMPLEX:
        s = torch.tensor(1 - 2j, dtype=dtype)
        so = s.to("ocl")
        assert_close(so.flip(0).cpu(), s.flip(0))
        assert_close(torch.where(torch.tensor(False, device="ocl"), so, torch.zeros((), dtype=dtype, device="ocl")).cpu(), torch.tensor(0j, dtype=dtype))
        assert_close(so.masked_fill(torch.tensor(True, device="ocl"), 3j).cpu(), s.masked_fill(torch.tensor(True), 3j))
        assert_close(so.gather(0, torch.zeros((), dtype=torch.long, device="ocl")).cpu(), s)
        assert_close(so.take(torch.tensor([0, 0], device="ocl")).cpu(), s.take(torch.tensor([0, 0])))
        e = torch.empty(0, 3, dtype=dtype)
        eo = e.to("ocl")
        assert eo.index_select(1, torch.tensor([2, 0], device="ocl")).shape == (0, 2)
        assert eo.flip(0).shape == (0, 3) and eo.cumsum(0).shape == (0, 3)
        assert eo.nonzero().shape == (0, 2)


def test_large_and_mixed_promotion():
    x = cplx((100_003,), torch.complex64, seed=3)
    idx = torch.randint(-100_003, 100_003, (5000,))
    xo, io = x.to("ocl"), idx.to("ocl")
    assert_close(xo[io].cpu(), x[idx])
    assert_close(xo.flip(0).cpu(), x.flip(0))
    assert_close(xo.cumsum(0).cpu(), x.cumsum(0), rtol=1e-4, atol=1e-3)
    # where with a complex64 and a complex128 operand: complex128, as on the CPU
    y = cplx((7,), torch.complex128)
    m = torch.tensor([1, 0, 1, 1, 0, 0, 1], dtype=torch.bool)
    got = torch.where(m.to("ocl"), x[:7].to("ocl"), y.to("ocl"))
    assert got.dtype == torch.complex128
    assert_close(got.cpu(), torch.where(m, x[:7], y))


def test_backward_matches_cpu():
    """Each op's input gradient (one use of x per backward: complex grad
    accumulation would be a complex add, a compute op)."""
    x = cplx((4, 6), torch.complex64, seed=5)
    ops = [
        lambda t, d: t.gather(1, long_([[0, 5, 5]] * 4).to(d)),
        lambda t, d: t.index_select(1, long_(1, 1, 2).to(d)),
        lambda t, d: t[:, long_(3, 0, 3).to(d)],
        lambda t, d: t.flip(1),
        lambda t, d: torch.where(_mask(x, d), t, torch.ones((), dtype=t.dtype, device=d)),
        lambda t, d: t.masked_fill(_mask(x, d), 1j),
        lambda t, d: t.cumsum(1),
        lambda t, d: t.tril(),
    ]
    for k, f in enumerate(ops):
        grads = []
        for d in ("ocl", "cpu"):
            xd = x.detach().to(d).requires_grad_()
            y = f(xd, d)
            y.backward(cplx(y.shape, torch.complex64, seed=k).to(d))
            grads.append(xd.grad.cpu())
        assert_close(grads[0], grads[1], msg=lambda m: f"op {k}: {m}")


def test_errors_match_cpu():
    x = cplx((3, 4), torch.complex64)
    msgs = []
    for device in ("cpu", "ocl"):
        with pytest.raises(RuntimeError) as e:
            x.to(device).gather(1, torch.zeros(3, 2, dtype=torch.float, device=device))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    with pytest.raises(IndexError, match="out of range"):
        x.to("ocl").index_select(0, torch.tensor([5], device="ocl")).cpu()


def _unit(shape, dtype, seed=0):
    """Values of modulus near 1: long products stay finite."""
    x = cplx(shape, dtype, seed)
    return x / x.abs() * 1.01


@pytest.mark.parametrize("dtype", COMPLEX, ids=["c64", "c128"])
def test_cumprod_matches_cpu(dtype):
    # kernels/scan.cl with SCAN_COMPLEX: complex<double> accumulator, as the CPU's
    x = _unit((5, 7), dtype)
    x[2, 3] = 0
    for view_name, make in views(x):
        for dim in (0, 1, -1):
            got = make(x.to("ocl")).cumprod(dim)
            assert_close(got.cpu(), make(x).cumprod(dim), msg=lambda m: f"{view_name} dim {dim}: {m}")
    long_rows = _unit((3, 700), dtype, seed=2)  # one work group per row (len >= 256)
    assert_close(long_rows.to("ocl").cumprod(1).cpu(), long_rows.cumprod(1))
    assert_close(x.to("ocl").conj().cumprod(1).cpu(), x.conj().cumprod(1))  # lazy conjugate
    out = torch.empty(0, dtype=dtype, device="ocl")
    torch.cumprod(x.to("ocl"), 0, out=out)
    assert_close(out.cpu(), x.cumprod(0))
    assert_close(x.to("ocl").clone().cumprod_(1).cpu(), x.cumprod(1))
    s = torch.tensor(1 - 2j, dtype=dtype)
    assert_close(s.to("ocl").cumprod(0).cpu(), s.cumprod(0))  # 0-dim
    assert x[:0].to("ocl").cumprod(0).shape == (0, 7)


def test_cumprod_large_and_backward():
    big = _unit((100_003,), torch.complex64, seed=4) / 1.01
    assert_close(big.to("ocl").cumprod(0).cpu(), big.cumprod(0), rtol=1e-4, atol=1e-4)
    # backward: ATen's composite (no zeros: reversed cumsum / conj(input); with zeros: the other branch)
    x = cplx((4, 6), torch.complex64, seed=6)
    for k, make in enumerate([lambda t: t, lambda t: t * (t.real > -0.5)]):
        grads = []
        for d in ("ocl", "cpu"):
            xd = x.detach().to(d).requires_grad_()
            make(xd).cumprod(1).abs().sum().backward()
            grads.append(xd.grad.cpu())
        assert_close(grads[0], grads[1], msg=lambda m: f"case {k}: {m}")


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("dtype", COMPLEX, ids=["c64", "c128"])
def test_scatter_and_index_reduce(dtype):
    x = cplx((5, 6), dtype, seed=7)
    src = cplx((7, 6), dtype, seed=8)
    g = torch.Generator().manual_seed(9)
    idx = torch.randint(0, 5, (7, 6), generator=g)
    ops = {}
    for red in ("sum", "prod", "mean"):
        for inc in (True, False):
            ops[f"scatter_reduce_{red}_{inc}"] = (lambda red=red, inc=inc: lambda t, s, i: t.scatter_reduce(0, i, s, red, include_self=inc))()
    ops["scatter_add_reduce"] = lambda t, s, i: t.scatter(0, i, s, reduce="add")
    ops["scatter_multiply"] = lambda t, s, i: t.scatter(0, i, s, reduce="multiply")
    ops["scatter_multiply_value"] = lambda t, s, i: t.scatter(0, i, 2 - 1j, reduce="multiply")
    ops["scatter_add_value"] = lambda t, s, i: t.scatter(0, i, 0.5j, reduce="add")
    ops["scatter_reduce_t"] = lambda t, s, i: t.t().scatter_reduce(1, i.t(), s.t(), "prod")  # strided
    ops["index_reduce_prod"] = lambda t, s, i: t.index_reduce(0, i[:, 0], s, "prod")
    ops["index_reduce_mean"] = lambda t, s, i: t.index_reduce(0, i[:, 0], s, "mean")
    for name, f in ops.items():
        got = f(x.to("ocl"), src.to("ocl"), idx.to("ocl"))
        assert got.device.type == "ocl"
        assert_close(got.cpu(), f(x, src, idx), msg=lambda m: f"{name}: {m}")


@pytest.mark.filterwarnings("ignore:index_reduce")
def test_scatter_reduce_errors_match_cpu():
    x = cplx((5, 6), torch.complex64, seed=10)
    src = cplx((7, 6), torch.complex64, seed=11)
    idx = torch.randint(0, 5, (7, 6), generator=torch.Generator().manual_seed(12))
    # scatter_reduce has no complex autograd formula, on the CPU either: the same error
    errs = []
    for d in ("cpu", "ocl"):
        xd, sd = x.to(d).requires_grad_(), src.to(d).requires_grad_()
        with pytest.raises(RuntimeError) as e:
            xd.scatter_reduce(0, idx.to(d), sd, "sum")
        errs.append(str(e.value))
    assert errs[0] == errs[1] and "automatic differentiation" in errs[0]
    # The CPU's errors for complex: amax / amin, index_reduce of a 0/1-dim self,
    # index_reduce with include_self=False.
    cases = [
        lambda t, s, i: t.scatter_reduce(0, i, s, "amax"),
        lambda t, s, i: t.scatter_reduce(0, i, s, "amin", include_self=False),
        lambda t, s, i: t.index_reduce(0, i[:, 0], s, "amax"),
        lambda t, s, i: t[:, 0].index_reduce(0, i[:, 0], s[:, 0], "prod"),
        lambda t, s, i: t.index_reduce(0, i[:, 0], s, "mean", include_self=False),
    ]
    for k, f in enumerate(cases):
        errs = []
        for d in ("cpu", "ocl"):
            with pytest.raises(NotImplementedError) as e:
                f(x.to(d), src.to(d), idx.to(d))
            errs.append(str(e.value))
        assert errs[0] == errs[1], f"case {k}: {errs}"
