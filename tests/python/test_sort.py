"""Sorting and selection on ocl (kernels/sort_ops.cpp, sort.cl, unique_ops.cpp)
against PyTorch CPU, under the strict fixture (no CPU fallback)."""

import pytest
import torch
from torch.testing import assert_close

from dtype_lists import ALL, FLOATS, INTS, dname

OCL = "ocl"
NAN = float("nan")


def make(shape, dtype, low=-50, high=50):
    """Random values with many ties (small integer range)."""
    if dtype == torch.bool:
        return torch.randint(0, 2, shape).bool()
    lo = 0 if dtype == torch.uint8 else low
    return torch.randint(lo, high, shape).to(dtype)


def with_specials(x):
    """x (float) with NaN, +-inf and signed zeros sprinkled in."""
    f = x.reshape(-1)
    specials = torch.tensor([NAN, float("inf"), -float("inf"), 0.0, -0.0, NAN], dtype=x.dtype)
    pos = torch.randperm(f.numel())[: min(f.numel(), 12)]
    f[pos] = specials[torch.arange(pos.numel()) % specials.numel()]
    return x


def check_sorted(cpu_in, ov, oi, cv, ci, dim, exact_indices=True):
    assert_close(ov.cpu(), cv, equal_nan=True, rtol=0, atol=0)
    if exact_indices:
        assert torch.equal(oi.cpu(), ci)
    else:
        assert_close(cpu_in.gather(dim, oi.cpu()), cv, equal_nan=True, rtol=0, atol=0)


# --- sort / argsort / msort ---------------------------------------------------

@pytest.mark.parametrize("dtype", ALL + [torch.uint16, torch.uint32, torch.uint64], ids=dname)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_stable_dtypes(strict, dtype, descending):
    x = make((7, 301), dtype)
    if dtype.is_floating_point:
        x = with_specials(x)
    for dim in (-1, 0):
        ov, oi = x.to(OCL).sort(dim=dim, descending=descending, stable=True)
        cv, ci = x.sort(dim=dim, descending=descending, stable=True)
        check_sorted(x, ov, oi, cv, ci, dim)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64], ids=dname)
def test_sort_unstable_argsort_msort(strict, dtype):
    x = make((33, 50), dtype)
    ov, oi = x.to(OCL).sort(descending=True)
    cv, ci = x.sort(descending=True)
    check_sorted(x, ov, oi, cv, ci, -1, exact_indices=False)
    assert torch.equal(x.to(OCL).argsort(dim=0, stable=True).cpu(), x.argsort(dim=0, stable=True))
    assert torch.equal(torch.msort(x.to(OCL)).cpu(), torch.msort(x))


def test_sort_nan_and_signed_zero_order(strict):
    x = torch.tensor([0.0, NAN, -0.0, 1.0, -NAN, -float("inf"), 0.0, float("inf"), -0.0])
    for desc in (False, True):
        ov, oi = x.to(OCL).sort(descending=desc, stable=True)
        cv, ci = x.sort(descending=desc, stable=True)
        check_sorted(x, ov, oi, cv, ci, 0)
        # -0.0 and 0.0 are ties: their signs stay in input order
        assert torch.equal(torch.signbit(ov.cpu()), torch.signbit(cv))


@pytest.mark.parametrize("case", ["transposed", "stepped", "expanded", "channels_last"])
def test_sort_non_contiguous(strict, case):
    base = torch.randn(6, 40, 9)
    if case == "transposed":
        x = base.transpose(0, 2)
    elif case == "stepped":
        x = base[::2, 1::3, ::2]
    elif case == "expanded":
        x = base[:, :1, :].expand(6, 5, 9)
    else:
        x = torch.randn(2, 3, 8, 5).to(memory_format=torch.channels_last)
    for dim in range(x.dim()):
        ov, oi = x.to(OCL).sort(dim=dim, stable=True)
        cv, ci = x.sort(dim=dim, stable=True)
        check_sorted(x, ov, oi, cv, ci, dim)
    # out= with a non-contiguous destination
    v = torch.empty(x.shape[::-1], device=OCL).permute(*reversed(range(x.dim())))
    i = torch.empty(x.shape, dtype=torch.long, device=OCL)
    torch.sort(x.to(OCL), dim=1, stable=True, out=(v, i))
    cv, ci = x.sort(dim=1, stable=True)
    check_sorted(x, v, i, cv, ci, 1)


def test_sort_empty_and_scalar(strict):
    for x in (torch.empty(0), torch.empty(3, 0), torch.tensor(2.5)):
        ov, oi = x.to(OCL).sort(stable=True)
        cv, ci = x.sort(stable=True)
        assert ov.shape == cv.shape and oi.shape == ci.shape
        assert torch.equal(ov.cpu(), cv) and torch.equal(oi.cpu(), ci)


@pytest.mark.parametrize("n", [1 << 20, 1_000_003])
def test_sort_large_1d(strict, n):
    x = torch.randn(n)
    x[::1000] = 0.5  # ties
    ov, oi = x.to(OCL).sort(stable=True)
    cv, ci = x.sort(stable=True)
    check_sorted(x, ov, oi, cv, ci, 0)


def test_sort_radix_long_rows(strict):
    """Rows of >= 64K elements take the radix sort: NaNs last (first when
    descending), -0.0 and 0.0 tied in index order, duplicates stable,
    several rows, integer and 64-bit keys."""
    x = torch.randint(-300, 300, (1 << 20,)).float() / 4
    x = with_specials(x)
    x[torch.randperm(x.numel())[:5000]] = NAN
    x[torch.randperm(x.numel())[:5000]] = -0.0
    for descending in (False, True):
        ov, oi = x.to(OCL).sort(stable=True, descending=descending)
        cv, ci = x.sort(stable=True, descending=descending)
        check_sorted(x, ov, oi, cv, ci, 0)
    for dtype, shape in [(torch.int32, (3, 70_001)), (torch.float64, (2, 65_536)), (torch.int64, (70_000,))]:
        y = make(shape, dtype, -(1 << 20), 1 << 20)
        if dtype == torch.int64:
            y = y * (1 << 30)
        for descending in (False, True):
            ov, oi = y.to(OCL).sort(stable=True, descending=descending)
            cv, ci = y.sort(stable=True, descending=descending)
            check_sorted(y, ov, oi, cv, ci, -1)
    # a long row sorted along dim 0 of a 2-d tensor (strided input), and median on the radix scratch
    z = torch.randn(80_000, 2)
    ov, oi = z.to(OCL).sort(dim=0, stable=True)
    cv, ci = z.sort(dim=0, stable=True)
    check_sorted(z, ov, oi, cv, ci, 0)
    assert_close(z.to(OCL).topk(300, dim=0).values.cpu(), z.topk(300, dim=0).values)
    assert_close(z.to(OCL).median(dim=0).values.cpu(), z.median(dim=0).values)


def test_sort_many_short_and_few_long_rows(strict):
    for shape in [(20000, 3), (3, 5000), (2, 2049)]:
        x = make(shape, torch.int32, -1000, 1000)
        ov, oi = x.to(OCL).sort(stable=True, descending=True)
        cv, ci = x.sort(stable=True, descending=True)
        check_sorted(x, ov, oi, cv, ci, -1)


def test_sort_backward(strict):
    x = torch.randn(5, 30, dtype=torch.float64, requires_grad=True)
    xo = x.detach().to(OCL).requires_grad_()
    g = torch.randn(5, 30, dtype=torch.float64)
    x.sort(dim=1, descending=True)[0].backward(g)
    xo.sort(dim=1, descending=True)[0].backward(g.to(OCL))
    assert_close(xo.grad.cpu(), x.grad)


def test_sort_complex_falls_back_correctly():
    x = torch.randn(5, dtype=torch.complex64)
    with pytest.raises(RuntimeError) as ce:
        x.sort()
    with pytest.raises(RuntimeError) as oe:
        x.to(OCL).sort()
    assert str(oe.value) == str(ce.value)


# --- topk ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + INTS, ids=dname)
@pytest.mark.parametrize("largest", [True, False])
def test_topk_dtypes(strict, dtype, largest):
    x = make((9, 500), dtype)
    if dtype.is_floating_point:
        x = with_specials(x)
    for k, dim in [(1, -1), (7, -1), (500, -1), (3, 0), (9, 0), (0, -1)]:
        ov, oi = x.to(OCL).topk(k, dim=dim, largest=largest)
        cv, ci = x.topk(k, dim=dim, largest=largest)
        check_sorted(x, ov, oi, cv, ci, dim, exact_indices=False)


@pytest.mark.parametrize("k", [10, 100, 1000])
def test_topk_large(strict, k):
    x = torch.randn(1_000_003)
    for largest in (True, False):
        ov, oi = x.to(OCL).topk(k, largest=largest)
        cv, ci = x.topk(k, largest=largest)
        check_sorted(x, ov, oi, cv, ci, 0, exact_indices=False)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.uint8], ids=dname)
def test_topk_kthvalue_small_k_long_rows(strict, dtype):
    # k <= 128 of rows >= 512 / 2048: the fused encode + selection pass (sort_encode_select)
    x = make((5, 3001), dtype, -20, 20)
    if dtype.is_floating_point:
        x = with_specials(x)
    xt = x.t().contiguous().t()  # non-contiguous along the dim
    for k in (1, 5, 32, 33, 128, 129):
        for largest in (True, False):
            ov, oi = xt.to(OCL).topk(k, dim=1, largest=largest)
            cv, ci = x.topk(k, dim=1, largest=largest)
            check_sorted(x, ov, oi, cv, ci, 1, exact_indices=False)
        ov, oi = x.t().to(OCL).kthvalue(k, dim=0)
        cv, _ = x.t().kthvalue(k, dim=0)
        assert_close(ov.cpu(), cv, equal_nan=True, rtol=0, atol=0)
        assert_close(x.t().gather(0, oi.cpu().unsqueeze(0)).squeeze(0), cv, equal_nan=True, rtol=0, atol=0)


def test_topk_unsorted_and_non_contiguous(strict):
    x = torch.randn(40, 30).t()[:, ::2]
    ov, oi = x.to(OCL).topk(5, dim=0, sorted=False)
    cv, _ = x.topk(5, dim=0, sorted=False)
    assert_close(ov.cpu().sort(dim=0)[0], cv.sort(dim=0)[0])
    assert_close(x.gather(0, oi.cpu()), ov.cpu())


def test_topk_scalar_and_errors(strict):
    x = torch.tensor(3.0)
    ov, oi = x.to(OCL).topk(1)
    assert ov.cpu().item() == 3.0 and oi.cpu().item() == 0
    y = torch.randn(4, 5)
    for bad in (lambda t: t.topk(6), lambda t: t.topk(-1), lambda t: t.topk(2, dim=2),
                lambda t: t.bool().topk(2)):
        with pytest.raises((RuntimeError, IndexError)) as ce:
            bad(y)
        with pytest.raises(type(ce.value)) as oe:
            bad(y.to(OCL))
        assert str(oe.value) == str(ce.value)


def test_topk_backward(strict):
    x = torch.randn(6, 40, dtype=torch.float64, requires_grad=True)
    xo = x.detach().to(OCL).requires_grad_()
    g = torch.randn(6, 4, dtype=torch.float64)
    x.topk(4, dim=1)[0].backward(g)
    xo.topk(4, dim=1)[0].backward(g.to(OCL))
    assert_close(xo.grad.cpu(), x.grad)


# --- kthvalue / median / nanmedian / mode / quantile ----------------------------

@pytest.mark.parametrize("dtype", FLOATS + INTS, ids=dname)
def test_kthvalue(strict, dtype):
    x = torch.randperm(7 * 64).reshape(7, 64).to(dtype) if dtype != torch.int8 and dtype != torch.uint8 \
        else make((7, 64), dtype)
    for k, dim, keepdim in [(1, -1, False), (30, -1, True), (64, 1, False), (4, 0, False)]:
        ov, oi = x.to(OCL).kthvalue(k, dim, keepdim)
        cv, ci = x.kthvalue(k, dim, keepdim)
        assert_close(ov.cpu(), cv, rtol=0, atol=0)
        assert_close(x.gather(dim, oi.cpu() if keepdim else oi.cpu().unsqueeze(dim)),
                     cv if keepdim else cv.unsqueeze(dim), rtol=0, atol=0)


def test_kthvalue_errors_and_scalar(strict):
    y = torch.randn(3, 4)
    for bad in (lambda t: t.kthvalue(5), lambda t: t.kthvalue(0), lambda t: torch.empty(0).to(t.device).kthvalue(1),
                lambda t: torch.empty(3, 0).to(t.device).kthvalue(1), lambda t: t.bool().kthvalue(1),
                lambda t: t.kthvalue(1, dim=2)):
        with pytest.raises((RuntimeError, IndexError)) as ce:
            bad(y)
        with pytest.raises(type(ce.value)) as oe:
            bad(y.to(OCL))
        assert str(oe.value) == str(ce.value)
    ov, oi = torch.tensor(4.0).to(OCL).kthvalue(1)
    assert ov.cpu().item() == 4.0 and oi.cpu().item() == 0
    ov, oi = torch.empty(0, 3).to(OCL).kthvalue(2, 1)  # empty, but not along the dim
    assert ov.shape == (0,) and oi.shape == (0,)


@pytest.mark.parametrize("dtype", FLOATS + INTS, ids=dname)
@pytest.mark.parametrize("op", ["median", "nanmedian"])
def test_median_dim(strict, dtype, op):
    x = make((6, 41), dtype)
    if dtype.is_floating_point:
        x[1, 5] = NAN
        x[2, :] = NAN
        x[3, ::2] = NAN
    for dim, keepdim in [(-1, False), (0, True), (1, True)]:
        ov, oi = getattr(x.to(OCL), op)(dim, keepdim)
        cv, ci = getattr(x, op)(dim, keepdim)
        assert_close(ov.cpu(), cv, equal_nan=True, rtol=0, atol=0)
        # the CPU's choice among ties is deterministic (lowest index), except
        # for nanmedian of an all-NaN slice (any NaN)
        some = ~x.isnan().all(dim, keepdim=True) if op == "nanmedian" else torch.ones((), dtype=torch.bool)
        some = some if keepdim else some.squeeze(dim)
        assert torch.equal(oi.cpu()[some.expand_as(ci)], ci[some.expand_as(ci)])
        got = x.gather(dim, oi.cpu() if keepdim else oi.cpu().unsqueeze(dim))
        assert_close(got, cv if keepdim else cv.unsqueeze(dim), equal_nan=True, rtol=0, atol=0)
        assert_close(getattr(x.to(OCL), op)().cpu(), getattr(x, op)(), equal_nan=True, rtol=0, atol=0)


def test_median_odd_shapes_and_errors(strict):
    for x in (torch.tensor(2.0), torch.randn(1), torch.randn(100_003), torch.randn(30, 20).t()[::2]):
        assert_close(x.to(OCL).median().cpu(), x.median())
        if x.dim():
            ov, oi = x.to(OCL).median(0)
            cv, ci = x.median(0)
            assert_close(ov.cpu(), cv)
            assert torch.equal(oi.cpu(), ci)
    assert torch.equal(torch.tensor(2.0).to(OCL).median(0)[1].cpu(), torch.tensor(2.0).median(0)[1])
    for dtype in (torch.float32, torch.float16, torch.int64):
        e = torch.empty(0, dtype=dtype)
        assert_close(e.to(OCL).median().cpu(), e.median(), equal_nan=True)
        assert_close(e.to(OCL).nanmedian().cpu(), e.nanmedian(), equal_nan=True)
    ov, oi = torch.empty(0, 3, device=OCL).median(1)
    assert ov.shape == (0,) and oi.shape == (0,)
    for bad in (lambda t: torch.empty(3, 0, device=t.device).median(1),
                lambda t: torch.empty(3, 0, device=t.device).nanmedian(1),
                lambda t: torch.ones(3, dtype=torch.bool, device=t.device).median(),
                lambda t: torch.ones(3, dtype=torch.bool, device=t.device).median(0),
                lambda t: torch.empty(3, 0, device=t.device).mode(1)):
        with pytest.raises((RuntimeError, IndexError)) as ce:
            bad(torch.empty(0))
        with pytest.raises(type(ce.value)) as oe:
            bad(torch.empty(0, device=OCL))
        assert str(oe.value) == str(ce.value)


def test_selection_backward(strict):
    x = torch.randn(5, 11, dtype=torch.float64)
    for f in (lambda t: t.kthvalue(3, 1)[0], lambda t: t.median(1)[0], lambda t: t.median(),
              lambda t: t.nanmedian(0)[0], lambda t: torch.quantile(t, 0.3, dim=1)):
        xc = x.clone().requires_grad_()
        xo = x.to(OCL).requires_grad_()
        oc, oo = f(xc), f(xo)
        g = torch.randn(oc.shape, dtype=torch.float64)
        oc.backward(g)
        oo.backward(g.to(OCL))
        assert_close(xo.grad.cpu(), xc.grad)


@pytest.mark.parametrize("dtype", FLOATS + INTS + [torch.bool], ids=dname)
def test_mode(strict, dtype):
    x = make((5, 60), dtype, -4, 4)
    for dim, keepdim in [(-1, False), (0, True)]:
        ov, oi = x.to(OCL).mode(dim, keepdim)
        cv, ci = x.mode(dim, keepdim)
        assert_close(ov.cpu(), cv, rtol=0, atol=0)
        # which of the equal elements the CPU names is unspecified (unstable sort)
        got = x.gather(dim, oi.cpu() if keepdim else oi.cpu().unsqueeze(dim))
        assert_close(got, cv if keepdim else cv.unsqueeze(dim), rtol=0, atol=0)
    assert torch.equal(torch.tensor(3).to(OCL).mode()[0].cpu(), torch.tensor(3).mode()[0])


def test_selection_out_variants(strict, recwarn):
    x = torch.randn(4, 6)
    for name, f in [("kthvalue", lambda t, **o: torch.kthvalue(t, 2, 0, **o)),
                    ("mode", lambda t, **o: torch.mode(t, 0, **o)),
                    ("median", lambda t, **o: torch.median(t, 0, **o)),
                    ("nanmedian", lambda t, **o: torch.nanmedian(t, 1, True, **o)),
                    ("topk", lambda t, **o: torch.topk(t, 3, **o)),
                    ("sort", lambda t, **o: torch.sort(t, 1, True, **o))]:
        cv, ci = f(x)
        v = torch.empty(cv.shape, device=OCL)
        i = torch.empty(ci.shape, dtype=torch.long, device=OCL)
        ov, oi = f(x.to(OCL), out=(v, i))
        assert ov is v and oi is i, name
        assert_close(v.cpu(), cv, rtol=0, atol=0)
        assert i.shape == ci.shape
    # correctly shaped outputs are never resized (no deprecation warning)
    assert not [w for w in recwarn.list if "resized" in str(w.message)]


def test_quantile(strict):
    x = torch.randn(7, 33, dtype=torch.float64)
    x[2, 4] = NAN
    q = torch.tensor([0.0, 0.25, 0.5, 1.0], dtype=torch.float64)
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        for op in (torch.quantile, torch.nanquantile):
            assert_close(op(x.to(OCL), q.to(OCL), dim=1, interpolation=interp).cpu(),
                         op(x, q, dim=1, interpolation=interp), equal_nan=True)
            assert_close(op(x.to(OCL), 0.4).cpu(), op(x, 0.4), equal_nan=True)


# --- unique family ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL, ids=dname)
def test_unique(strict, dtype):
    x = make((13, 17), dtype, -10, 10)
    if dtype.is_floating_point:
        x[0, 0] = -0.0
        x[0, 1] = 0.0
    for kw in ({}, dict(return_inverse=True), dict(return_counts=True),
               dict(return_inverse=True, return_counts=True)):
        o = torch.unique(x.to(OCL), **kw)
        c = torch.unique(x, **kw)
        for a, b in zip(o if isinstance(o, tuple) else (o,), c if isinstance(c, tuple) else (c,)):
            assert a.shape == b.shape
            assert torch.equal(a.cpu(), b)
    oc = torch.unique(x.to(OCL), sorted=False, return_counts=True)
    cc = torch.unique(x, sorted=True, return_counts=True)
    assert torch.equal(oc[0].cpu(), cc[0]) and torch.equal(oc[1].cpu(), cc[1])


def test_unique_ops_direct_and_nan(strict):
    x = torch.tensor([[2.0, NAN, 1], [NAN, 2, -0.0]])
    for f in (lambda t: torch.ops.aten._unique(t, True, True), lambda t: torch.ops.aten._unique2(t, True, True, True),
              lambda t: torch.ops.aten._unique2(t, True, False, False)):
        for a, b in zip(f(x.to(OCL)), f(x)):
            assert a.shape == b.shape
            assert_close(a.cpu(), b, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.float16], ids=dname)
def test_unique_consecutive_and_dim(strict, dtype):
    x = make((40, 3), dtype, 0, 2)
    for f in (lambda t: torch.unique_consecutive(t.reshape(-1), return_inverse=True, return_counts=True),
              lambda t: torch.unique_consecutive(t, return_inverse=True, return_counts=True),
              lambda t: torch.unique_consecutive(t, dim=0, return_inverse=True, return_counts=True),
              lambda t: torch.unique_consecutive(t, dim=1),
              lambda t: torch.unique(t, dim=0, return_inverse=True, return_counts=True),
              lambda t: torch.unique(t.t(), dim=1, return_inverse=True, return_counts=True),
              lambda t: torch.unique(t, dim=1)):
        o, c = f(x.to(OCL)), f(x)
        for a, b in zip(o if isinstance(o, tuple) else (o,), c if isinstance(c, tuple) else (c,)):
            assert a.shape == b.shape
            assert torch.equal(a.cpu(), b)


def test_unique_empty_scalar_large_and_errors(strict):
    for x in (torch.empty(0), torch.tensor(5.0), torch.randint(0, 1000, (100_003,))):
        o = torch.unique(x.to(OCL), return_inverse=True, return_counts=True)
        c = torch.unique(x, return_inverse=True, return_counts=True)
        for a, b in zip(o, c):
            assert a.shape == b.shape and torch.equal(a.cpu(), b)
    o = torch.unique(torch.empty(0, 3, device=OCL), dim=0, return_inverse=True, return_counts=True)
    c = torch.unique(torch.empty(0, 3), dim=0, return_inverse=True, return_counts=True)
    assert [a.shape for a in o] == [b.shape for b in c]
    for bad in (lambda t: torch.unique(torch.empty(3, 0, device=t.device), dim=0),
                lambda t: torch.unique(torch.tensor(5.0, device=t.device), dim=0)):
        with pytest.raises((RuntimeError, IndexError)) as ce:
            bad(torch.empty(0))
        with pytest.raises(type(ce.value)) as oe:
            bad(torch.empty(0, device=OCL))
        assert str(oe.value) == str(ce.value)


def test_index_fill_native(strict):
    x = torch.randn(6, 5)
    idx = torch.tensor([4, 1, 1])
    assert_close(x.to(OCL).index_fill(1, idx.to(OCL), -2.0).cpu(), x.index_fill(1, idx, -2.0))


@pytest.mark.parametrize("op", ["sort", "topk"])
def test_values_output_aliasing_the_input(strict, op):
    # torch.sort(y, out=(y, i)) sorts in place (upstream test_sort_and_select.py
    # test_sort): the values are gathered from a copy of the input, not from
    # the output being written.
    x = torch.rand(4, 2049)
    y = x.to("ocl")
    idx = torch.empty(0, dtype=torch.long, device="ocl")
    if op == "sort":
        torch.sort(y, out=(y, idx))
        expected = torch.sort(x)
    else:
        vals = y[:, :5]
        torch.topk(y, 5, out=(vals, idx))
        expected = torch.topk(x, 5)
        y = vals
    assert_close(y.cpu(), expected.values)
    assert_close(idx.cpu(), expected.indices)
