"""The generated pointwise kernels' argument layout (kernels/pointwise_engine.cpp).

- PwHead carries the element count, the tensors' byte offsets and every value
  (CPU scalar operands, op parameters) in 16-byte slots: checked for each kind
  of value (compute-type, int64 and float parameters; real, integer, bool and
  complex scalars) against the CPU.
- On CPU devices a launch whose tensors all live in one cl_mem (small tensors
  share the allocator's 2 MiB segments) takes the one-buffer kernel
  (`_C._one_buffer_launches()` counts them); tensors in different segments
  take the kernel with a buffer per tensor. Both must give the CPU's results,
  contiguous and strided, and in-place.
"""
import pytest
import torch

import torch_ocl
from torch_ocl import _C

DEV = "ocl"
CPU_DEVICE = torch.ocl.get_device_properties(0).type == "cpu"
# 3M float32 = 12 MiB: at least 10 MiB gets a segment of its own.
BIG = 3_000_000


def counted(fn):
    before = _C._one_buffer_launches()
    out = fn()
    return out, _C._one_buffer_launches() - before


def expect_one_buffer(n):
    """The one-buffer launches a call must make on this device."""
    return n if CPU_DEVICE else 0


# Every test of this file runs in strict mode: a missing native kernel raises.
pytestmark = pytest.mark.usefixtures("strict")


def test_small_operands_share_one_buffer():
    a = torch.randn(1000)
    b = torch.randn(1000)
    da, db = a.to(DEV), b.to(DEV)
    out, n = counted(lambda: torch.add(da, db, alpha=2.5))
    assert n == expect_one_buffer(1)
    torch.testing.assert_close(out.cpu(), torch.add(a, b, alpha=2.5))
    # Unary (two tensors), strided (a transposed view), in-place.
    out, n = counted(lambda: da.view(10, 100).t().exp())
    assert n == expect_one_buffer(1)
    torch.testing.assert_close(out.cpu(), a.view(10, 100).t().exp())
    s = torch.randn(40, 50)
    ds = s.to(DEV)
    out, n = counted(lambda: ds[:, ::3] * ds[:, 1::3])
    assert n == expect_one_buffer(1)
    torch.testing.assert_close(out.cpu(), s[:, ::3] * s[:, 1::3])
    c = da.clone()
    _, n = counted(lambda: c.mul_(db))
    assert n == expect_one_buffer(1)
    torch.testing.assert_close(c.cpu(), a * b)


def test_operands_in_separate_segments():
    a = torch.randn(BIG)
    b = torch.randn(BIG)
    da, db = a.to(DEV), b.to(DEV)
    out, n = counted(lambda: torch.sub(da, db, alpha=0.5))
    assert n == 0
    torch.testing.assert_close(out.cpu(), torch.sub(a, b, alpha=0.5))
    # Strided over separate segments.
    out, n = counted(lambda: da.view(1000, 3000)[:, ::2] + db.view(1000, 3000)[:, 1::2])
    assert n == 0
    torch.testing.assert_close(out.cpu(), a.view(1000, 3000)[:, ::2] + b.view(1000, 3000)[:, 1::2])
    # One operand small (its own small segment), one a view into a big one.
    small = torch.randn(1000)
    dsmall = small.to(DEV)
    out, n = counted(lambda: dsmall * da[5:1005])
    assert n == 0
    torch.testing.assert_close(out.cpu(), small * a[5:1005])


def test_the_same_op_through_both_kernels():
    # The same (op, dtypes) program serves both kernels: results identical.
    x = torch.randn(BIG)
    dx = x.to(DEV)
    big, n_big = counted(lambda: torch.lerp(dx, dx.flip(0), 0.3))
    small, n_small = counted(lambda: torch.lerp(dx[:1000].clone(), dx.flip(0)[:1000].clone(), 0.3))
    assert n_big == 0  # flip's output lives in another segment
    assert n_small == expect_one_buffer(1)
    torch.testing.assert_close(big[:1000].cpu(), small.cpu(), rtol=0, atol=0)
    torch.testing.assert_close(big.cpu(), torch.lerp(x, x.flip(0), 0.3))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16,
                                   torch.int8, torch.uint8, torch.int32, torch.int64, torch.bool,
                                   torch.complex64, torch.complex128])
def test_values_in_the_head(dtype):
    """CPU scalar operands and 'T' parameters of every compute type."""
    g = torch.Generator().manual_seed(0)
    if dtype == torch.bool:
        a = torch.rand(257, generator=g) > 0.5
        b = torch.rand(257, generator=g) > 0.5
    elif dtype.is_floating_point or dtype.is_complex:
        a = torch.randn(257, generator=g, dtype=dtype)
        b = torch.randn(257, generator=g, dtype=dtype)
    else:
        a = torch.randint(0, 50, (257,), generator=g, dtype=dtype)
        b = torch.randint(0, 50, (257,), generator=g, dtype=dtype)
    da, db = a.to(DEV), b.to(DEV)
    cases = [lambda t, u: t * u]
    if dtype != torch.bool:
        alpha = 2 if not (dtype.is_floating_point or dtype.is_complex) else (1.5 - 0.5j if dtype.is_complex else 1.5)
        cases += [lambda t, u: torch.add(t, u, alpha=alpha), lambda t, u: t - 3, lambda t, u: 7 * t]
    if dtype.is_complex:
        cases += [lambda t, u: t * (0.25 + 2j), lambda t, u: torch.add(t, u, alpha=-1j)]
    if dtype == torch.bool:
        cases += [lambda t, u: t & True, lambda t, u: t ^ u]
    for f in cases:
        torch.testing.assert_close(f(da, db).cpu(), f(a, b))


def test_int64_and_float_parameters():
    # 'L' (int64) and 'F' (float, double for float64) slots, and a large int64 'T' value.
    x = torch.rand(300, dtype=torch.float64) * 4 + 0.5
    dx = x.to(DEV)
    torch.testing.assert_close(torch.mvlgamma(dx, p=3).cpu(), torch.mvlgamma(x, p=3))
    torch.testing.assert_close(torch.polygamma(2, dx).cpu(), torch.polygamma(2, x))
    y = torch.randn(300)
    dy = y.to(DEV)
    torch.testing.assert_close(torch.nn.functional.hardtanh(dy, -0.25, 0.75).cpu(),
                               torch.nn.functional.hardtanh(y, -0.25, 0.75))
    torch.testing.assert_close(torch.nan_to_num(dy.log(), nan=1.5, posinf=2.5, neginf=-3.5).cpu(),
                               torch.nan_to_num(y.log(), nan=1.5, posinf=2.5, neginf=-3.5))
    big = torch.full((100,), 2**40, dtype=torch.int64)
    torch.testing.assert_close((big.to(DEV) + (2**50 + 3)).cpu(), big + (2**50 + 3))
    torch.testing.assert_close(torch.add(big.to(DEV), big.to(DEV), alpha=-(2**20)).cpu(),
                               torch.add(big, big, alpha=-(2**20)))


def test_many_values_and_dims():
    # linspace / logspace: nullary ops with several parameters; addcdiv over
    # three differently laid out 6-dim tensors and a value: a strided launch
    # whose indexer keeps six dims beside the head's value slot.
    torch.testing.assert_close(torch.linspace(-3, 7, 1001, device=DEV).cpu(), torch.linspace(-3, 7, 1001))
    torch.testing.assert_close(torch.logspace(-2, 2, 77, base=3.0, device=DEV).cpu(),
                               torch.logspace(-2, 2, 77, base=3.0))
    x = torch.randn(2, 3, 2, 3, 2, 3)
    b = torch.randn(3, 3, 3, 2, 2, 2)
    z = torch.randn(2, 2, 2, 3, 3, 3)
    a, c = x.permute(5, 3, 1, 0, 2, 4), z.permute(3, 4, 5, 0, 1, 2)
    da, db, dc = x.to(DEV).permute(5, 3, 1, 0, 2, 4), b.to(DEV), z.to(DEV).permute(3, 4, 5, 0, 1, 2)
    out = torch.addcdiv(da, db, dc.abs() + 1, value=0.75)
    torch.testing.assert_close(out.cpu(), torch.addcdiv(a, b, c.abs() + 1, value=0.75))


@pytest.mark.parametrize("fn", [
    lambda t: t.sum(),                       # one chunk
    lambda t: t.view(40, 25).var(1),         # a work item per result
    lambda t: t.view(40, 25).amax(0),        # results along the contiguous dim
    lambda t: t.view(40, 25).max(1),         # two outputs (values, indices)
    lambda t: t.view(4, 250).argmin(1),
], ids=["sum", "var_dim1", "amax_dim0", "max_dim1", "argmin"])
def test_reductions_share_one_buffer(fn):
    # The reduction kernels have the same two entry points (kernels/reduce_engine.cpp).
    x = torch.randn(1000)
    out, n = counted(lambda: fn(x.to(DEV)))
    assert n == expect_one_buffer(1)
    torch.testing.assert_close(torch.utils._pytree.tree_map(lambda t: t.cpu(), out), fn(x))


def test_reductions_over_separate_segments():
    x = torch.randn(BIG)
    dx = x.to(DEV)
    # (fn, one-buffer launches): the chunked sum's first pass reads the big
    # input (separate buffers), its combining pass reads the partials and
    # writes the small result (one segment); a row sum is one pass over the
    # input; amax over dim 0 goes row by row, then combines the partials.
    cases = [(lambda t: t.sum(), 1), (lambda t: t.view(3000, 1000).sum(1), 0),
             (lambda t: t.view(1000, 3000).amax(0), 1)]
    for fn, one in cases:
        out, n = counted(lambda: fn(dx))
        assert n == expect_one_buffer(one)
        torch.testing.assert_close(out.cpu(), fn(x), rtol=1e-4, atol=1e-3)


def test_offsets_of_kept_outputs_and_of_more_than_three_tensors():
    # One-buffer kernels take the first three tensors' offsets as the range's
    # global offsets and the rest from their head: kept outputs (a new offset
    # each launch), four tensors (addcmul), and all operands at one offset.
    x, y, z = (torch.randn(777) for _ in range(3))
    dx, dy, dz = x.to(DEV), y.to(DEV), z.to(DEV)
    outs, n = counted(lambda: [torch.addcmul(dx, dy, dz, value=k - 2.5) for k in range(6)])
    assert n == expect_one_buffer(6)
    for k, o in enumerate(outs):
        torch.testing.assert_close(o.cpu(), torch.addcmul(x, y, z, value=k - 2.5))
    outs, n = counted(lambda: [dx[k:] - dy[:777 - k] for k in range(0, 40, 7)])
    assert n == expect_one_buffer(6)
    for k, o in zip(range(0, 40, 7), outs):
        torch.testing.assert_close(o.cpu(), x[k:] - y[:777 - k])
    w = dz.clone()
    _, n = counted(lambda: w.mul_(w))
    assert n == expect_one_buffer(1)
    torch.testing.assert_close(w.cpu(), z * z)
