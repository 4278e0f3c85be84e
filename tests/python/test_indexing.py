"""The indexing family (kernels/index_ops.cpp, kernels/scatter_gather_ops.cpp,
kernels/masked_ops.cpp; kernels/index.cl, kernels/nonzero.cl) against PyTorch CPU.

Every test runs under fallback_mode('error'), so each op is proven native.
Covered: gather, scatter (src/value/reduce), scatter_add, scatter_reduce
(sum/prod/mean/amax/amin, include_self), index_select, index.Tensor,
index_put_ (accumulate too), index_add/copy/fill/reduce, take, put_,
nonzero/argwhere, masked_select, masked_scatter: dtypes, odd shapes,
gradients, deterministic mode, CPU error messages, and the device-side
bounds-check flag (an out-of-range index raises at the next sync).
"""

import pytest
import torch
from torch.testing import assert_close

D = "ocl"
from dtype_lists import ALL, FLOATS, INTS, dname  # noqa: F401


pytestmark = pytest.mark.usefixtures("strict")  # every test proves its ops native


def make(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g) * 5
    if dtype == torch.bool:
        return x > 0
    if not dtype.is_floating_point:
        x = x.round().clamp(0 if dtype == torch.uint8 else -100, 100)
    return x.to(dtype)


def idx(high, shape, seed=1):
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(seed))


def dev(*ts):
    return [t.to(D) if isinstance(t, torch.Tensor) else t for t in ts]


def close(got, exp, dtype=None):
    dtype = dtype or exp.dtype
    tol = {torch.float16: dict(rtol=2e-3, atol=2e-3), torch.bfloat16: dict(rtol=2e-2, atol=2e-2)}.get(dtype, {})
    assert_close(got.cpu(), exp, equal_nan=True, **tol)


# ---- forward, per dtype ------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
def test_gather_scatter_dtypes(dtype):
    x, src = make((5, 7), dtype), make((4, 7), dtype, 2)
    i = idx(5, (4, 7))
    xo, so, io = dev(x, src, i)
    close(torch.gather(xo, 0, io), torch.gather(x, 0, i))
    close(torch.gather(xo, 1, io[:, :3]), torch.gather(x, 1, i[:, :3]))
    u = torch.stack([torch.randperm(5)[:4] for _ in range(7)], 1)  # unique per column
    close(x.to(D).scatter(0, u.to(D), so), x.scatter(0, u, src))
    close(x.to(D).scatter(0, u.to(D), 3), x.scatter(0, u, 3))
    close(x.to(D).scatter_add(0, io, so), x.scatter_add(0, i, src), dtype)


@pytest.mark.parametrize("dtype", FLOATS + [torch.int64, torch.int32, torch.int8, torch.uint8])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(dtype, reduce, include_self):
    x, src = make((6, 5), dtype), make((9, 5), dtype, 3)
    if reduce == "prod" and dtype.is_floating_point:
        src = src / 4
    i = idx(6, (9, 5))  # duplicates: atomics
    got = x.to(D).scatter_reduce(0, i.to(D), src.to(D), reduce, include_self=include_self)
    close(got, x.scatter_reduce(0, i, src, reduce, include_self=include_self))


@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_legacy_reduce(reduce):
    x, src = make((6, 5), torch.float32), make((3, 5), torch.float32, 3)
    i = idx(6, (3, 5))
    close(x.to(D).scatter(0, i.to(D), src.to(D), reduce=reduce), x.scatter(0, i, src, reduce=reduce))
    close(x.to(D).scatter(0, i.to(D), 2.0, reduce=reduce), x.scatter(0, i, 2.0, reduce=reduce))


@pytest.mark.parametrize("dtype", ALL)
def test_index_family_dtypes(dtype):
    x = make((4, 5, 6), dtype)
    xo = x.to(D)
    i = torch.tensor([4, 0, 2, 0])
    close(torch.index_select(xo, 1, i.to(D)), torch.index_select(x, 1, i))
    close(torch.index_select(xo, 1, i.int().to(D)), torch.index_select(x, 1, i.int()))
    close(xo[torch.tensor([3, 0, -1]).to(D)], x[torch.tensor([3, 0, -1])])
    close(xo[:, [1, 2], [0, 5]], x[:, [1, 2], [0, 5]])
    close(xo[[1, 2], :, [0, -5]], x[[1, 2], :, [0, -5]])
    close(xo[x > 0 if dtype != torch.bool else x], x[x > 0 if dtype != torch.bool else x])
    t = torch.tensor([[0, 7], [-1, 3]])
    close(torch.take(xo.transpose(0, 2), t.to(D)), torch.take(x.transpose(0, 2), t))
    close(xo.index_fill(1, torch.tensor([0, -2]).to(D), 1), x.index_fill(1, torch.tensor([0, -2]), 1))
    close(xo.index_fill(2, torch.tensor([1]).to(D), torch.tensor(0)), x.index_fill(2, torch.tensor([1]), torch.tensor(0)))
    s = make((4, 3, 6), dtype, 4)
    u = torch.tensor([4, 0, 2])
    close(xo.index_copy(1, u.to(D), s.to(D)), x.index_copy(1, u, s))
    close(xo.index_add(1, i[:3].to(D), s.to(D)), x.index_add(1, i[:3], s), dtype)
    v = make((2, 6), dtype, 5)
    y, yo = x.clone(), x.clone().to(D)
    y[[1, 3], [0, 4]] = v
    yo[torch.tensor([1, 3]).to(D), torch.tensor([0, 4]).to(D)] = v.to(D)
    close(yo, y)
    y.index_put_((torch.tensor([1, 1, 2]),), make((3, 5, 6), dtype, 6), accumulate=True)
    yo.index_put_((torch.tensor([1, 1, 2]).to(D),), make((3, 5, 6), dtype, 6).to(D), accumulate=True)
    close(yo, y, dtype)
    p = torch.tensor([5, 0, 5])
    z, zo = x.clone(), x.clone().to(D)
    z.put_(p, make((3,), dtype, 7), accumulate=True)
    zo.put_(p.to(D), make((3,), dtype, 7).to(D), accumulate=True)
    close(zo, z, dtype)
    q = torch.tensor([7, 1])
    close(x.to(D).put(q.to(D), make((2,), dtype, 8).to(D)), x.put(q, make((2,), dtype, 8)))


@pytest.mark.parametrize("dtype", FLOATS + [torch.int64, torch.int32])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(dtype, reduce, include_self):
    x, s = make((4, 5), dtype), make((4, 7), dtype, 2)
    i = idx(5, (7,))
    got = x.to(D).index_reduce(1, i.to(D), s.to(D), reduce, include_self=include_self)
    close(got, x.index_reduce(1, i, s, reduce, include_self=include_self))


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", [(4, 5, 6), (100_003,), (), (0, 3), (1,)])
def test_nonzero_masked(dtype, shape):
    x = make(shape, dtype).round() if dtype.is_floating_point else make(shape, dtype)
    xo = x.to(D)
    close(torch.nonzero(xo), torch.nonzero(x))
    close(torch.argwhere(xo), torch.argwhere(x))
    m = torch.rand(shape, generator=torch.Generator().manual_seed(9)) > 0.5
    close(torch.masked_select(xo, m.to(D)), torch.masked_select(x, m))
    src = make((max(x.numel(), 1),), dtype, 3)
    close(xo.masked_scatter(m.to(D), src.to(D)), x.masked_scatter(m, src))


# ---- shapes: empty, 0-dim, non-contiguous, broadcast, large ------------------

def test_odd_shapes():
    x = make((6, 8), torch.float32)
    xt, xs = x.t(), x[::2, 1::3]
    i = idx(3, (5, 2))
    close(torch.gather(xt.to(D), 0, i.to(D)), torch.gather(xt, 0, i))
    close(torch.gather(x.to(D)[::2, 1::3], 1, i[:3].to(D)), torch.gather(xs, 1, i[:3]))
    close(torch.gather(x.to(D), 1, i.t().to(D)), torch.gather(x, 1, i.t()))  # transposed index
    close(torch.index_select(xt.to(D), 0, torch.tensor([7, 0]).to(D)), torch.index_select(xt, 0, torch.tensor([7, 0])))
    s = torch.tensor(2.5)
    close(torch.gather(s.to(D), 0, torch.tensor(0).to(D)), torch.gather(s, 0, torch.tensor(0)))
    close(torch.index_select(s.to(D), 0, torch.tensor([0]).to(D)), torch.index_select(s, 0, torch.tensor([0])))
    e = torch.empty(0, 3)
    close(torch.gather(e.to(D), 0, torch.empty(0, 3, dtype=torch.long).to(D)), torch.gather(e, 0, torch.empty(0, 3, dtype=torch.long)))
    close(torch.index_select(x.to(D), 0, torch.empty(0, dtype=torch.long).to(D)), torch.index_select(x, 0, torch.empty(0, dtype=torch.long)))
    close(x.to(D)[torch.empty(0, dtype=torch.long).to(D)], x[torch.empty(0, dtype=torch.long)])
    # broadcast index tensors in advanced indexing
    a, b = torch.tensor([[0], [5]]), torch.tensor([1, 2, 7])
    close(x.to(D)[a.to(D), b.to(D)], x[a, b])
    # large: 100_003 elements, atomics with many duplicates
    n = 100_003
    big = make((n,), torch.float32)
    bi = idx(97, (n,))
    # ~1031 float32 additions per bin in the order the atomics happen to take:
    # rounding differs from the CPU's sequential sum by up to ~n * eps * |partial sums|.
    got = torch.zeros(97).to(D).scatter_add(0, bi.to(D), big.to(D))
    assert_close(got.cpu(), torch.zeros(97).scatter_add(0, bi, big), rtol=1e-5, atol=2e-3)
    close(torch.zeros(97, dtype=torch.int64).to(D).index_add(0, bi.to(D), torch.ones(n, dtype=torch.int64).to(D)),
          torch.zeros(97, dtype=torch.int64).index_add(0, bi, torch.ones(n, dtype=torch.int64)))
    close(big.to(D)[bi.to(D)], big[bi])
    # out= into a non-contiguous view
    r2 = torch.empty(2, 6).t().to(D)  # (6, 2) non-contiguous
    torch.index_select(x.to(D), 1, torch.tensor([0, 3]).to(D), out=r2)
    close(r2, torch.index_select(x, 1, torch.tensor([0, 3])))
    nz = torch.empty(0, dtype=torch.long).to(D)
    torch.nonzero(x.to(D) > 0, out=nz)
    close(nz, torch.nonzero(x > 0))


def test_index_put_bool_mask_and_cpu_indices():
    x = make((5, 6), torch.float32)
    y, yo = x.clone(), x.clone().to(D)
    y[y > 0] = 0
    yo[yo > 0] = 0
    close(yo, y)
    y[torch.tensor([0, 4])] = torch.arange(6.0)
    yo[torch.tensor([0, 4])] = torch.arange(6.0).to(D)  # CPU index into an ocl tensor
    close(yo, y)
    close(yo[torch.tensor([1, 2])], y[torch.tensor([1, 2])])


def test_masks_over_more_dims_than_one_launch_takes():
    # ATen expands a k-dim mask into k index tensors; a launch takes 8. A mask
    # over 12 dims (as make_tensor's exclude_zero writes) indexes the same
    # elements flattened. Leading / trailing dims stay, a non-viewable layout
    # raises the launcher's limit instead of writing into a copy.
    x = make((2, 1, 3, 1, 2, 1, 2, 1, 2, 1, 2, 3), torch.float32)
    for mask_of, lead in ((lambda t: t > 0, ()), (lambda t: t[0] > 0, (0,))):
        y, yo = x.clone(), x.clone().to(D)
        m = mask_of(y)
        with torch.ocl.fallback_mode("error"):
            close(yo[(*lead, m.to(D))], y[(*lead, m)])
            y[(*lead, m)] = -1.0
            yo[(*lead, m.to(D))] = -1.0
            close(yo, y)
            y.index_put_((*[torch.tensor(i) for i in lead], m), torch.tensor(0.5), accumulate=True)
            yo.index_put_((*[torch.tensor(i).to(D) for i in lead], m.to(D)), torch.tensor(0.5).to(D), accumulate=True)
            close(yo, y)
    t = x.to(D).transpose(0, 11)
    with pytest.raises(RuntimeError, match="handles 1 to 8 index tensors"), torch.ocl.fallback_mode("error"):
        t[t > 0] = 0
    g_cpu, g_ocl = grads(lambda t: t[x > 0] * 2, x)
    close(g_ocl[0], g_cpu[0])


# ---- autograd ------------------------------------------------------------------

def grads(fn, *inputs):
    """Gradients of fn(*inputs).sum() w.r.t. the float inputs, on CPU and ocl."""
    out = []
    for device in ("cpu", D):
        ins = [t.detach().to(device).requires_grad_(t.is_floating_point()) if isinstance(t, torch.Tensor) else t
               for t in inputs]
        r = fn(*ins)
        w = torch.linspace(-1, 1, r.numel()).reshape(r.shape).to(device)
        (r * w).sum().backward()
        out.append([t.grad.cpu() for t in ins if isinstance(t, torch.Tensor) and t.is_floating_point()])
    return out


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("case", [
    "gather", "scatter", "scatter_add", "scatter_reduce_mean", "scatter_reduce_amax", "index_select", "index",
    "index_put", "index_put_acc", "index_add", "index_copy", "take", "put", "masked_select", "masked_scatter",
    "index_fill",
])
def test_backward(dtype, case):
    x, src = make((6, 5), dtype), make((4, 5), dtype, 2)
    i = idx(6, (4, 5))
    u = torch.stack([torch.randperm(6, generator=torch.Generator().manual_seed(c))[:4] for c in range(5)], 1)
    v = torch.tensor([5, 0, 2, 3])
    m = x > 0
    fns = {
        "gather": (lambda a: torch.gather(a, 0, i.to(a.device)), [x]),
        "scatter": (lambda a, b: a.scatter(0, u.to(a.device), b), [x, src]),
        "scatter_add": (lambda a, b: a.scatter_add(0, i.to(a.device), b), [x, src]),
        "scatter_reduce_mean": (lambda a, b: a.scatter_reduce(0, i.to(a.device), b, "mean"), [x, src]),
        "scatter_reduce_amax": (lambda a, b: a.scatter_reduce(0, i.to(a.device), b, "amax"), [x, src]),
        "index_select": (lambda a: torch.index_select(a, 0, i[:, 0].to(a.device)), [x]),
        "index": (lambda a: a[i.to(a.device), 2], [x]),
        "index_put": (lambda a, b: a.index_put((v.to(a.device),), b), [x, src]),
        "index_put_acc": (lambda a, b: a.index_put((i[:, 0].to(a.device),), b, accumulate=True), [x, src]),
        "index_add": (lambda a, b: a.index_add(0, i[:, 0].to(a.device), b, alpha=3), [x, src]),
        "index_copy": (lambda a, b: a.index_copy(0, v.to(a.device), b), [x, src]),
        "take": (lambda a: torch.take(a, i.to(a.device)), [x]),
        "put": (lambda a, b: a.put(v.to(a.device), b[0, :4], accumulate=True), [x, src]),
        "masked_select": (lambda a: torch.masked_select(a, m.to(a.device)), [x]),
        "masked_scatter": (lambda a, b: a.masked_scatter(m.to(a.device), b.repeat(2, 1)), [x, src]),
        "index_fill": (lambda a: a.index_fill(0, v[:2].to(a.device), 2.0), [x]),
    }
    fn, ins = fns[case]
    if case == "masked_scatter":
        # its backward formula also calls cat (the shape-ops family, not native yet here)
        with torch.ocl.fallback_mode("silent"):
            cpu, ocl = grads(fn, *ins)
    else:
        cpu, ocl = grads(fn, *ins)
    for c, o in zip(cpu, ocl):
        assert_close(o, c)


# ---- determinism -----------------------------------------------------------------

def test_deterministic_mode_matches_cpu_bitwise():
    n = 20_000
    src = make((n,), torch.float32)
    i = idx(7, (n,))
    prev = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        a = torch.zeros(7).to(D).scatter_add(0, i.to(D), src.to(D)).cpu()
        b = torch.zeros(7).to(D).scatter_add(0, i.to(D), src.to(D)).cpu()
        c = torch.zeros(7).to(D).index_put((i.to(D),), src.to(D), accumulate=True).cpu()
        d = torch.zeros(7).to(D).index_add(0, i.to(D), src.to(D)).cpu()
    finally:
        torch.use_deterministic_algorithms(prev)
    assert torch.equal(a, b)
    assert torch.equal(a, torch.zeros(7).scatter_add(0, i, src))  # same order as the CPU
    assert torch.equal(c, torch.zeros(7).index_put((i,), src, accumulate=True))
    assert torch.equal(d, torch.zeros(7).index_add(0, i, src))


# ---- errors ----------------------------------------------------------------------

def same_error(fn_cpu, fn_ocl):
    with pytest.raises(Exception) as cpu_err:
        fn_cpu()
    with pytest.raises(type(cpu_err.value)) as ocl_err:
        fn_ocl()
    return str(cpu_err.value), str(ocl_err.value)


def test_host_checked_errors_match_cpu():
    x, i = torch.randn(4, 5), torch.tensor([[0, 1]])
    cases = [
        (lambda t, j: torch.gather(t, 0, j.float()), "gather"),
        (lambda t, j: torch.gather(t, 0, j.unsqueeze(0)), "Index tensor must have the same number of dimensions"),
        (lambda t, j: t.scatter(0, j, torch.ones(1, 2, dtype=torch.float64).to(t.device)), "scatter(): Expected self.dtype to be equal to src.dtype"),
        (lambda t, j: torch.index_select(t, 0, j), "index_select(): Index is supposed to be a vector"),
        (lambda t, j: torch.index_select(t, 0, j[0].float()), "index_select(): Expected dtype int32 or int64 for index"),
        (lambda t, j: t[j, j, j], "too many indices for tensor of dimension 2"),
        (lambda t, j: t.index_add(0, j[0], torch.ones(3, 5).to(t.device)), "index_add_(): Number of indices"),
        (lambda t, j: t.index_fill_(0, j[0].int(), 1), "index_fill_(): Expected dtype int64 for index"),
        (lambda t, j: torch.masked_select(t, t.int()), "masked_select: expected BoolTensor for mask"),
        (lambda t, j: t.masked_scatter(t > 0, torch.ones(2).to(t.device)), "Number of elements of source < number of ones in mask"),
        (lambda t, j: t.scatter_reduce(0, j, torch.ones(1, 2).to(t.device), "foo"), "reduce argument must be either sum, prod, mean, amax or amin"),
    ]
    for fn, text in cases:
        c, o = same_error(lambda: fn(x, i), lambda: fn(x.to(D), i.to(D)))
        assert text in c and text in o, (c, o)


@pytest.mark.parametrize("case", ["gather", "scatter", "scatter_add", "index_select", "index", "index_put",
                                  "index_put_acc", "index_add", "index_copy", "index_fill", "take", "put"])
def test_device_side_bounds_check(case):
    """An out-of-range index skips the element and raises at the next sync,
    with the CPU's exception type and message; later ops work."""
    x = torch.arange(20.0).reshape(4, 5)
    bad2 = torch.tensor([[0, 9]])
    bad1 = torch.tensor([1, 9])
    ops = {
        "gather": lambda t: torch.gather(t, 0, bad2.to(t.device)),
        "scatter": lambda t: t.scatter(0, bad2.to(t.device), 1.0),
        "scatter_add": lambda t: t.scatter_add(0, bad2.to(t.device), torch.ones(1, 2).to(t.device)),
        "index_select": lambda t: torch.index_select(t, 0, bad1.to(t.device)),
        "index": lambda t: t[bad1.to(t.device)],
        "index_put": lambda t: t.index_put((bad1.to(t.device),), torch.ones(5).to(t.device)),
        "index_put_acc": lambda t: t.index_put((bad1.to(t.device),), torch.ones(5).to(t.device), accumulate=True),
        "index_add": lambda t: t.index_add(0, bad1.to(t.device), torch.ones(2, 5).to(t.device)),
        "index_copy": lambda t: t.index_copy(0, bad1.to(t.device), torch.ones(2, 5).to(t.device)),
        "index_fill": lambda t: t.index_fill(0, bad1.to(t.device), 1.0),
        "take": lambda t: torch.take(t, torch.tensor([3, 20]).to(t.device)),
        "put": lambda t: t.put(torch.tensor([3, -21]).to(t.device), torch.ones(2).to(t.device)),
    }
    fn = ops[case]
    with pytest.raises(Exception) as cpu_err:
        fn(x)
    r = fn(x.to(D))  # no error yet: the kernel only flagged it
    with pytest.raises(type(cpu_err.value)) as ocl_err:
        r.cpu()
    cpu_msg = str(cpu_err.value).split(" (")[0]
    # CPU kernels word a few of these differently; the core is shared
    core = {"index_put": "out of bounds", "index_put_acc": "out of bounds", "index_copy": "out of bounds",
            "index_fill": "out of bounds", "gather": "out of bounds", "scatter": "out of bounds",
            "scatter_add": "out of bounds", "index_add": "out of bounds"}.get(case, cpu_msg)
    assert core in str(ocl_err.value), (str(cpu_err.value), str(ocl_err.value))
    assert "found by an ocl kernel" in str(ocl_err.value)
    # the flag was cleared; the device keeps working
    close(torch.gather(x.to(D), 0, torch.tensor([[3, 0]]).to(D)), torch.gather(x, 0, torch.tensor([[3, 0]])))
    assert torch.index_select(x.to(D), 0, torch.tensor([2]).to(D)).sum().item() == x[2].sum().item()


def test_device_side_check_reported_by_synchronize_and_item():
    x = torch.arange(6.0).to(D)
    torch.index_select(x, 0, torch.tensor([6]).to(D))
    with pytest.raises(IndexError, match="index out of range in self"):
        torch.ocl.synchronize()
    torch.ocl.synchronize()  # reported once
    y = x[torch.tensor([7]).to(D)]
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0 with size 6"):
        y.sum().item()
    assert x.sum().item() == 15.0


def test_large_blocks():
    """Tensors big enough for many elements per work item on CPU devices
    (kernels/index_launch.cpp index_block): rows copied whole, indices read
    once per block, partial last blocks, strided rows, reductions, and a bad
    index inside a block (the rest of that block is skipped, the error raised)."""
    rows, width = 2400, 513  # 1.2M elements; 513 leaves partial blocks
    x = make((rows, width), torch.float32)
    xd = x.to(D)
    ri = idx(rows, (1700,))
    close(torch.index_select(xd, 0, ri.to(D)), torch.index_select(x, 0, ri))  # contiguous rows
    close(torch.index_select(xd.t(), 1, ri.to(D)), torch.index_select(x.t(), 1, ri))  # rows of stride 513
    close(torch.index_select(xd[:, ::2], 0, ri.to(D)), torch.index_select(x[:, ::2], 0, ri))  # strided rows
    close(xd[ri.to(D)], x[ri])  # index.Tensor, one index
    close(xd[(ri - rows).to(D)], x[ri - rows])  # negative indices count from the end
    ui = torch.randperm(rows, generator=torch.Generator().manual_seed(8))[:1700]  # unique: copies are deterministic
    v = make((1700, width), torch.float32, seed=9)
    close(xd.index_put((ui.to(D),), v.to(D)), x.index_put((ui,), v))  # rows written whole
    close(xd.index_copy(0, ui.to(D), v.to(D)), x.index_copy(0, ui, v))
    ci = idx(width, (rows, 300), seed=2)
    close(xd[torch.arange(rows).to(D)[:, None], ci.to(D)], x[torch.arange(rows)[:, None], ci])  # two indices
    n = 700_001
    src = make((n,), torch.float32, seed=3)
    gi = idx(n, (n,), seed=4)
    close(torch.gather(src.to(D), 0, gi.to(D)), torch.gather(src, 0, gi))  # a moving index
    close(torch.gather(src.to(D)[::2], 0, gi.to(D)[: n // 2] // 2), torch.gather(src[::2], 0, gi[: n // 2] // 2))
    sa = torch.zeros(1000)  # many duplicates: atomic adds (integers: exact)
    si = idx(1000, (n,), seed=5)
    ones = torch.ones(n)
    close(sa.to(D).scatter_add(0, si.to(D), ones.to(D)), sa.scatter_add(0, si, ones))
    acc = torch.zeros(rows, width)
    pi = idx(rows, (1700,), seed=6)
    v = make((1700, width), torch.float32, seed=7).round()
    close(acc.to(D).index_put((pi.to(D),), v.to(D), accumulate=True), acc.index_put((pi,), v, accumulate=True))
    close(xd.clone().index_fill_(1, ci[0, :50].to(D), 2.5), x.clone().index_fill_(1, ci[0, :50], 2.5))
    bad = ri.clone()
    bad[1234] = rows + 7
    r = torch.index_select(xd, 0, bad.to(D))
    with pytest.raises(IndexError, match="index out of range in self"):
        r.cpu()
    close(torch.index_select(xd, 0, ri.to(D)), torch.index_select(x, 0, ri))
