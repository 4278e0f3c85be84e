"""Search and counting ops on ocl against PyTorch CPU (kernels/search_ops.cpp,
kernels/search.cl): searchsorted, bucketize, isin, repeat_interleave,
nonzero_static, bincount, histc, histogram, histogramdd.

Tests run under fallback_mode('error') (the `strict` fixture) unless they say
otherwise: isin's path for large test sets sorts a copy of the test elements
with at::sort, which is still on the CPU fallback until the sort family is
native, so strict tests of isin use test sets of <= 64 elements (the scan
path) and the sorted path is checked against the CPU with the fallback allowed.
"""

import math

import pytest
import torch

from dtype_lists import FLOATS, INTS, dname
from cpu_reference import assert_matches_cpu, run_both, to_ocl

DEV = "ocl"
SEARCH_DTYPES = FLOATS + INTS


def compare(fn, *args, **kw):
    """fn(*args, **kw) on CPU and on ocl (tensor args moved): the same result,
    or the same error type and message."""
    return run_both(fn, *args, kwargs=kw, same_message=True)


def sorted_values(shape, dtype, seed=0, nan=False):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=g, dtype=torch.float64).mul(3).round().to(dtype)  # ties
        if nan and x.numel():
            x.view(-1)[:: 5] = math.nan
    else:
        lo = 0 if dtype == torch.uint8 else -20
        x = torch.randint(lo, 20, shape, generator=g, dtype=dtype)
    return x.sort(dim=-1).values


def values(shape, dtype, seed=1, nan=False):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=g, dtype=torch.float64).mul(4).round().to(dtype)
        if nan and x.numel():
            x.view(-1)[1::7] = math.nan
        return x
    lo = 0 if dtype == torch.uint8 else -25
    return torch.randint(lo, 25, shape, generator=g, dtype=dtype)


# --- searchsorted / bucketize ------------------------------------------------

@pytest.mark.parametrize("dtype", SEARCH_DTYPES, ids=dname)
@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_1d_boundaries(strict, dtype, right):
    bd = sorted_values((33,), dtype)
    x = values((4, 9), dtype)
    compare(torch.searchsorted, bd, x, right=right)
    compare(torch.searchsorted, bd, x, side="right" if right else "left", out_int32=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=dname)
def test_searchsorted_nan(strict, dtype):
    bd = sorted_values((3, 17), dtype, nan=True)  # NaNs sort last
    x = values((3, 11), dtype, nan=True)
    compare(torch.searchsorted, bd, x)
    compare(torch.searchsorted, bd, x, right=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.int16], ids=dname)
def test_searchsorted_batched_and_sorter(strict, dtype):
    g = torch.Generator().manual_seed(3)
    raw = values((2, 3, 15), dtype, seed=4)
    sorter = raw.argsort(dim=-1, stable=True)
    x = values((2, 3, 8), dtype, seed=5)
    compare(torch.searchsorted, raw.sort(dim=-1).values, x)
    compare(torch.searchsorted, raw, x, sorter=sorter)
    compare(torch.searchsorted, raw, x, sorter=sorter, right=True, out_int32=True)
    # 1-D boundaries with a sorter
    raw1 = values((40,), dtype, seed=6)
    compare(torch.searchsorted, raw1, x, sorter=raw1.argsort(), side="right")
    del g


def test_searchsorted_non_contiguous_and_mixed_dtypes(strict):
    bd = sorted_values((50, 6), torch.float32).t()[:, ::3]  # non-contiguous rows of a (6, 17) sequence
    bd = bd.sort(dim=-1).values.t().t()  # sorted, still non-contiguous
    x = values((20, 6), torch.float32).t()  # non-contiguous (6, 20)
    assert not bd.is_contiguous() and not x.is_contiguous()
    compare(torch.searchsorted, bd, x)
    # int boundaries, float values: promoted to the common type as the CPU
    compare(torch.searchsorted, sorted_values((21,), torch.int32), values((30,), torch.float64) / 3)
    compare(torch.searchsorted, sorted_values((21,), torch.float16), values((30,), torch.int64))


def test_searchsorted_scalar_empty_0dim_large(strict):
    bd = sorted_values((25,), torch.float32)
    compare(torch.searchsorted, bd, 1.5)
    compare(torch.searchsorted, bd, 2, right=True, out_int32=True)
    compare(torch.searchsorted, bd, torch.tensor(0.5))  # 0-dim value
    compare(torch.searchsorted, bd, torch.empty(0, 3))
    compare(torch.searchsorted, torch.empty(0), values((5,), torch.float32))  # no boundaries
    compare(torch.searchsorted, torch.empty(3, 0), values((3, 4), torch.float32))
    big_bd = torch.linspace(-5, 5, 100_003, dtype=torch.float64)
    compare(torch.searchsorted, big_bd, torch.randn(100_003, dtype=torch.float64) * 3)
    compare(torch.searchsorted, big_bd[:1000], torch.randn(100_003, dtype=torch.float64), right=True)


def test_searchsorted_out(strict):
    bd = sorted_values((25,), torch.float32)
    x = values((6, 5), torch.float32)
    expected = torch.searchsorted(bd, x)
    out = torch.empty(5, 6, dtype=torch.int64, device=DEV).t()  # non-contiguous out
    torch.searchsorted(to_ocl(bd), to_ocl(x), out=out)
    assert_matches_cpu(out, expected)
    out32 = torch.empty(0, dtype=torch.int32, device=DEV)
    torch.searchsorted(to_ocl(bd), to_ocl(x), out_int32=True, out=out32)
    assert_matches_cpu(out32, torch.searchsorted(bd, x, out_int32=True))


def test_searchsorted_errors(strict):
    bd = sorted_values((2, 3, 5), torch.float32)
    compare(torch.searchsorted, bd, values((3, 2, 4), torch.float32))  # mismatched leading dims
    compare(torch.searchsorted, bd, values((2, 4), torch.float32))
    compare(torch.searchsorted, bd, torch.tensor(1.0))  # 0-dim value, N-D boundaries
    compare(torch.searchsorted, torch.tensor(1.0), values((3,), torch.float32))  # 0-dim boundaries
    b1 = sorted_values((5,), torch.float32)
    x = values((4,), torch.float32)
    compare(torch.searchsorted, b1, x, side="middle")
    compare(torch.searchsorted, b1, x, side="left", right=True)
    compare(torch.searchsorted, b1, x, sorter=torch.arange(5, dtype=torch.int32))
    compare(torch.searchsorted, b1, x, sorter=torch.arange(4))
    compare(torch.searchsorted, b1, x, sorter=torch.tensor([0, 1, 2, 3, 5]))
    compare(torch.searchsorted, b1, x, sorter=torch.tensor([0, 1, -1, 3, 4]))
    with pytest.raises(RuntimeError) as e_cpu:
        torch.searchsorted(b1, x, out=torch.empty(4, dtype=torch.int32))
    with pytest.raises(RuntimeError) as e_ocl:
        torch.searchsorted(to_ocl(b1), to_ocl(x), out=torch.empty(4, dtype=torch.int32, device=DEV))
    assert str(e_ocl.value) == str(e_cpu.value)


@pytest.mark.parametrize("dtype", SEARCH_DTYPES, ids=dname)
def test_bucketize(strict, dtype):
    bd = sorted_values((19,), dtype)
    x = values((3, 4, 5), dtype)
    compare(torch.bucketize, x, bd)
    compare(torch.bucketize, x, bd, right=True, out_int32=True)
    compare(torch.bucketize, x.transpose(0, 2), bd[::2])  # non-contiguous both
    compare(torch.bucketize, x[0, 0, 0].clone(), bd)  # 0-dim
    compare(torch.bucketize, 3, bd)  # Scalar overload
    compare(torch.bucketize, x[:0], bd)  # empty


def test_bucketize_errors(strict):
    compare(torch.bucketize, values((4,), torch.float32), sorted_values((2, 5), torch.float32))
    compare(torch.bucketize, values((4,), torch.float32), torch.tensor(1.0))
    compare(torch.bucketize, 1.0, sorted_values((2, 5), torch.float32))


def test_search_bool_matches_cpu(strict):
    # The CPU has no bool kernel for searchsorted: the same error.
    compare(torch.searchsorted, torch.tensor([False, True]), torch.tensor([True, False, True]))


# --- isin ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", SEARCH_DTYPES, ids=dname)
@pytest.mark.parametrize("invert", [False, True])
def test_isin_scan(strict, dtype, invert):
    x = values((7, 13), dtype, nan=True)
    t = values((11,), dtype, seed=9, nan=True)
    compare(torch.isin, x, t, invert=invert)
    compare(torch.isin, x, t, assume_unique=True, invert=invert)
    compare(torch.isin, x.t(), t[::2], invert=invert)  # non-contiguous
    compare(torch.isin, x, t.view(1, 11)[:, :0], invert=invert)  # empty test set
    compare(torch.isin, x[:0], t, invert=invert)  # empty elements
    compare(torch.isin, x[0, 0].clone(), t, invert=invert)  # 0-dim
    compare(torch.isin, x, t.view(-1)[3].clone(), invert=invert)  # 0-dim test tensor


def test_isin_scalars_mixed_dtypes_large(strict):
    x = values((100_003,), torch.int64)
    compare(torch.isin, x, torch.tensor([3, -7, 11, 100]))
    compare(torch.isin, x, 5)  # Tensor_Scalar
    compare(torch.isin, x, 5, invert=True)
    compare(torch.isin, 4, x[:50])  # Scalar_Tensor
    compare(torch.isin, 4.5, x[:50].double())
    compare(torch.isin, x.float() / 2, torch.tensor([1, 2, 3], dtype=torch.int16))
    compare(torch.isin, x.to(torch.int8), torch.tensor([1.0, 2.5, -3.0]))
    compare(torch.isin, torch.tensor([-0.0, 0.0, 1.0]), torch.tensor([0.0]))


def test_isin_out(strict):
    x = values((5, 6), torch.float32)
    t = values((4,), torch.float32)
    out = torch.empty(6, 5, dtype=torch.bool, device=DEV).t()
    torch.isin(to_ocl(x), to_ocl(t), out=out)
    assert_matches_cpu(out, torch.isin(x, t))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.int64, torch.uint8], ids=dname)
def test_isin_sorted_path(dtype):
    # > 64 test elements: sorted copy + binary search (at::sort may still run
    # on the fallback, so no strict mode here).
    x = values((3, 2000), dtype, nan=True)
    t = values((500,), dtype, seed=11, nan=True)
    with torch.ocl.fallback_mode("silent"):
        compare(torch.isin, x, t)
        compare(torch.isin, x, t, invert=True)
        compare(torch.isin, x.t(), t[::3].clone(), assume_unique=False)


def test_isin_errors():
    # complex has no kernels: the counted CPU fallback, which raises the CPU's error
    with torch.ocl.fallback_mode("silent"):
        compare(torch.isin, torch.tensor([1 + 1j]), torch.tensor([1.0]))


# --- repeat_interleave -----------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.int64, torch.int32], ids=dname)
def test_repeat_interleave_tensor(strict, dtype):
    r = torch.randint(0, 5, (37,), dtype=dtype)
    compare(torch.repeat_interleave, r)
    compare(torch.repeat_interleave, r[::2])  # non-contiguous
    compare(torch.repeat_interleave, r[:0])
    compare(torch.repeat_interleave, torch.zeros(5, dtype=dtype))
    got = torch.repeat_interleave(to_ocl(r), output_size=int(r.sum()))
    assert_matches_cpu(got, torch.repeat_interleave(r))
    big = torch.randint(0, 3, (100_003,), dtype=dtype)
    compare(torch.repeat_interleave, big)


def test_repeat_interleave_self(strict):
    x = torch.randn(4, 3)
    compare(torch.repeat_interleave, x, torch.tensor([1, 0, 2, 3]), dim=0)
    compare(torch.repeat_interleave, x, torch.tensor([2, 1, 1]), dim=1)
    compare(torch.repeat_interleave, x, torch.tensor([2]), dim=1)


def test_repeat_interleave_errors(strict):
    compare(torch.repeat_interleave, torch.tensor([1, -2, 3]))
    compare(torch.repeat_interleave, torch.tensor([[1, 2]]))
    compare(torch.repeat_interleave, torch.tensor([1.0, 2.0]))


# --- nonzero_static --------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + INTS + [torch.bool], ids=dname)
def test_nonzero_static(strict, dtype):
    x = values((6, 7), dtype) if dtype != torch.bool else torch.rand(6, 7) > 0.5
    n = int(torch.count_nonzero(x))
    for size in (0, n // 2, n, n + 9):
        compare(torch.nonzero_static, x, size=size)
    compare(torch.nonzero_static, x.t(), size=n + 3, fill_value=-7)  # non-contiguous
    compare(torch.nonzero_static, x[:0], size=4)
    compare(torch.nonzero_static, x[0, 0].clone(), size=2)  # 0-dim
    compare(torch.nonzero_static, x, size=-1)


def test_nonzero_static_large_and_out(strict):
    x = torch.rand(100_003) > 0.7
    compare(torch.nonzero_static, x, size=20_000)
    out = torch.empty(3, 1, dtype=torch.int64, device=DEV)
    torch.nonzero_static(to_ocl(x), size=50, fill_value=5, out=out)
    assert_matches_cpu(out, torch.nonzero_static(x, size=50, fill_value=5))


# --- bincount --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64], ids=dname)
def test_bincount(strict, dtype):
    x = torch.randint(0, 30, (1000,), dtype=dtype)
    compare(torch.bincount, x)
    compare(torch.bincount, x[::3], minlength=50)
    compare(torch.bincount, x, minlength=5)
    compare(torch.bincount, x[:0])
    compare(torch.bincount, x[:0], minlength=4)
    w32, w64 = torch.rand(1000), torch.rand(1000, dtype=torch.float64)
    # weights: atomic adds in another order than the CPU's loop
    assert_matches_cpu(torch.bincount(to_ocl(x), to_ocl(w32)), torch.bincount(x, w32), rtol=1e-5, atol=1e-5)
    assert_matches_cpu(torch.bincount(to_ocl(x), to_ocl(w64)), torch.bincount(x, w64))
    assert_matches_cpu(torch.bincount(to_ocl(x), to_ocl(torch.ones(1000, dtype=torch.int32))), torch.bincount(x, torch.ones(1000, dtype=torch.int32)))


def test_bincount_large(strict):
    x = torch.randint(0, 1000, (100_003,))
    compare(torch.bincount, x)
    w = torch.rand(100_003, dtype=torch.float64)
    assert_matches_cpu(torch.bincount(to_ocl(x), to_ocl(w)), torch.bincount(x, w))
    one_bin = torch.zeros(100_003, dtype=torch.int64)  # every add on one counter
    compare(torch.bincount, one_bin)


def test_bincount_errors(strict):
    compare(torch.bincount, torch.tensor([1, -1, 2]))
    compare(torch.bincount, torch.tensor([[1, 2]]))
    compare(torch.bincount, torch.tensor([1, 2]), torch.tensor([1.0]))
    compare(torch.bincount, torch.tensor([1, 2]), minlength=-1)
    compare(torch.bincount, torch.tensor([1.0, 2.0]))


# --- histc / histogram / histogramdd ---------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_histc(strict, dtype):
    x = torch.randn(5000, dtype=dtype)
    compare(torch.histc, x)
    compare(torch.histc, x, bins=7, min=-1, max=1)
    compare(torch.histc, x.view(50, 100).t(), bins=13, min=-2, max=3)  # non-contiguous
    compare(torch.histc, torch.tensor([0.0, 1.0, 1.0, 2.0, 2.0], dtype=dtype), bins=2)  # values on the max edge
    compare(torch.histc, torch.tensor([float("nan"), 1.0, 2.0], dtype=dtype), bins=3, min=0, max=3)
    compare(torch.histc, x[:0], bins=4, min=0, max=1)
    compare(torch.histc, torch.tensor(0.5, dtype=dtype), bins=3, min=0, max=1)  # 0-dim
    compare(torch.histc, torch.full((10,), 3.0, dtype=dtype), bins=4)  # min == max
    compare(torch.histc, torch.randn(100_003, dtype=dtype), bins=64)


def histc_cuda_reference(x, bins, lo, hi):
    """CUDA's integer histc (_histc_cuda_template), which the CPU lacks: bounds
    in the input's type, min == max takes the data's extremes, bin =
    (x - min) * bins // (max - min) in int64, last bin closed, counts in x's dtype."""
    v = x.reshape(-1).long().tolist()
    lo, hi = int(lo), int(hi)
    if lo == hi and v:
        lo, hi = min(v), max(v)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    out = [0] * bins
    for e in v:
        if lo <= e <= hi:
            out[min((e - lo) * bins // (hi - lo), bins - 1)] += 1
    return torch.tensor(out, dtype=x.dtype)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64], ids=dname)
def test_histc_integer_as_cuda(strict, dtype):
    """Mixtral's router counts experts with torch.histc of an int tensor:
    CUDA accepts integers (the CPU raises "histogram_cpu" not implemented)."""
    x = torch.randint(0, 100, (120,), dtype=dtype)  # counts fit int8
    for bins, lo, hi in [(8, 0, 7), (10, 0, 0), (7, 10, 60), (3, 50, 50), (100, 0, 99)]:
        got = torch.histc(x.to("ocl"), bins=bins, min=lo, max=hi)
        assert got.dtype == dtype
        assert torch.equal(got.cpu(), histc_cuda_reference(x, bins, lo, hi)), (bins, lo, hi)
    nc = x[:100].view(10, 10).t()
    assert torch.equal(torch.histc(nc.to("ocl"), bins=5).cpu(), histc_cuda_reference(nc, 5, 0, 0))
    assert torch.equal(torch.histc(x[:0].to("ocl"), bins=4).cpu(), torch.zeros(4, dtype=dtype))
    out = torch.empty(0, dtype=dtype, device="ocl")
    torch.histc(x.to("ocl"), bins=6, min=0, max=99, out=out)
    assert torch.equal(out.cpu(), histc_cuda_reference(x, 6, 0, 99))
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        torch.histc(x.to("ocl"), bins=0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dname)
def test_histc_half(strict, dtype):
    # the bin index is computed in the input's precision, as the CPU; counts < 2048 stay exact
    x = (torch.randn(1500) * 2).to(dtype)
    compare(torch.histc, x, bins=10, min=-3, max=3)
    compare(torch.histc, x, bins=7, min=-1, max=2.5)


def test_histc_errors(strict):
    x = torch.randn(10)
    compare(torch.histc, x, bins=0)
    compare(torch.histc, x, bins=4, min=2, max=1)
    compare(torch.histc, x, bins=4, min=float("inf"), max=1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_histogram(strict, dtype):
    x = torch.randn(3000, dtype=dtype)
    w = torch.rand(3000, dtype=dtype)
    h, e = torch.histogram(x, bins=9)
    hg, eg = torch.histogram(to_ocl(x), bins=9)
    assert_matches_cpu(eg, e)  # linspace edges: close, not bit-equal
    assert_matches_cpu(hg, h, rtol=0, atol=0)
    h, e = torch.histogram(x, bins=6, range=(-1.0, 2.0), weight=w)
    hg, eg = torch.histogram(to_ocl(x), bins=6, range=(-1.0, 2.0), weight=to_ocl(w))
    assert_matches_cpu(hg, h)
    assert_matches_cpu(eg, e)
    edges = torch.tensor([-3.0, -1.0, 0.0, 0.5, 4.0], dtype=dtype)
    for kw in ({}, {"weight": w}, {"density": True}, {"weight": w, "density": True}):
        h, e = torch.histogram(x, edges, **kw)
        hg, eg = torch.histogram(to_ocl(x), to_ocl(edges), **{k: to_ocl(v) for k, v in kw.items()})
        assert_matches_cpu(hg, h)
        assert_matches_cpu(eg, e)
    h, _ = torch.histogram(x.view(30, 100).t(), bins=5, density=True)  # non-contiguous
    hg, _ = torch.histogram(to_ocl(x).view(30, 100).t(), bins=5, density=True)
    assert_matches_cpu(hg, h)


def test_histogram_errors(strict):
    x = torch.randn(10)
    compare(torch.histogram, x, torch.tensor([1.0, 0.0, 2.0]))
    compare(torch.histogram, x, bins=-1)
    compare(torch.histogram, x, bins=3, weight=torch.rand(9))
    compare(torch.histogram, torch.randn(10).half(), bins=3)


def test_histogramdd(strict):
    x = torch.randn(2000, 3)
    w = torch.rand(2000)
    h, e = torch.histogramdd(x, bins=[3, 4, 5])
    hg, eg = torch.histogramdd(to_ocl(x), bins=[3, 4, 5])
    assert_matches_cpu(hg, h, rtol=0, atol=0)
    assert_matches_cpu(eg, e)
    bins = [torch.tensor([-2.0, 0.0, 2.0]), torch.tensor([-1.0, 1.0]), torch.tensor([-3.0, -1.0, 0.0, 3.0])]
    h, _ = torch.histogramdd(x, bins=bins, weight=w, density=True)
    hg, _ = torch.histogramdd(to_ocl(x), bins=[to_ocl(b) for b in bins], weight=to_ocl(w), density=True)
    assert_matches_cpu(hg, h)
