"""Random numbers on the device (kernels/random.cl, kernels/random_ops.cpp,
backend/generator.cpp): a Philox4x32-10 counter-based generator, as CUDA's.

The device draws are not the CPU's draws (different generator), so values
are checked for reproducibility and against the distribution: mean,
variance, and the Kolmogorov-Smirnov statistic against the CDF, with fixed
seeds and generous bounds (a wrong transform gives a KS distance of 0.1 or
more; the bound is 0.02 at 20_000 samples). Every op runs in strict mode
(fallback_mode('error')), which proves it is native. Errors for bad
arguments are compared with the CPU's.
"""

import math

import pytest
import torch
from torch.testing import assert_close

DEV = "ocl"
N = 20_000
FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def ks_stat(samples, cdf):
    """Kolmogorov-Smirnov distance between the samples' empirical CDF and cdf."""
    x, _ = samples.double().flatten().sort()
    n = x.numel()
    f = cdf(x)
    hi = torch.arange(1, n + 1, dtype=torch.float64) / n
    lo = torch.arange(0, n, dtype=torch.float64) / n
    return max((hi - f).abs().max().item(), (f - lo).abs().max().item())


def normal_cdf(mean, std):
    return lambda x: 0.5 * (1 + torch.erf((x - mean) / (std * math.sqrt(2))))


# --- the generator -----------------------------------------------------------

def test_philox_known_answer(strict):
    # Random123's known-answer vector: philox4x32_10(counter 0, key 0). Seed 0,
    # offset 0: element-thread 0 uses exactly that block; the full 64-bit
    # random_ stores it as two little-endian 64-bit words.
    torch.ocl.manual_seed(0)
    x = torch.empty(2, dtype=torch.int64, device=DEV).random_(-2**63, None).cpu()
    words = [v & (2**64 - 1) for v in x.tolist()]
    assert words == [0xE169C58D6627E8D5, 0x9B00DBD8BC57AC4C]


def test_state_layout_and_offset(strict):
    torch.ocl.manual_seed(1234)
    state = torch.ocl.get_rng_state()
    assert state.dtype == torch.uint8 and state.numel() == 16
    assert int.from_bytes(bytes(state[:8].tolist()), "little") == 1234
    assert int.from_bytes(bytes(state[8:].tolist()), "little") == 0
    gen = torch.ocl.default_generators[torch.ocl.current_device()]
    torch.rand(1000, device=DEV)
    torch.randn(3, device=DEV)
    assert gen.get_offset() == 2  # one counter block per element-thread per op
    state = torch.ocl.get_rng_state()
    assert int.from_bytes(bytes(state[8:].tolist()), "little") == 2
    assert torch.ocl.initial_seed() == 1234


def test_manual_seed_replays_and_draws_differ(strict):
    torch.ocl.manual_seed(7)
    a, b = torch.rand(1000, device=DEV).cpu(), torch.rand(1000, device=DEV).cpu()
    torch.ocl.manual_seed(7)
    a2, b2 = torch.rand(1000, device=DEV).cpu(), torch.rand(1000, device=DEV).cpu()
    assert torch.equal(a, a2) and torch.equal(b, b2)
    assert not torch.equal(a, b)
    torch.ocl.manual_seed(8)
    assert not torch.equal(torch.rand(1000, device=DEV).cpu(), a)


def test_set_rng_state_replays_exactly(strict):
    torch.ocl.manual_seed(3)
    torch.randn(10, device=DEV)
    state = torch.ocl.get_rng_state()
    ops = lambda: [torch.randn(33, device=DEV).cpu(), torch.randint(0, 100, (17,), device=DEV).cpu(),
                   torch.empty(9, device=DEV).bernoulli_(0.3).cpu()]
    first = ops()
    torch.ocl.set_rng_state(state)
    again = ops()
    for x, y in zip(first, again):
        assert torch.equal(x, y)


def test_set_rng_state_rejects_bad_state():
    with pytest.raises(RuntimeError, match="RNG state is wrong size"):
        torch.ocl.set_rng_state(torch.zeros(5, dtype=torch.uint8))
    with pytest.raises((RuntimeError, TypeError)):
        torch.ocl.set_rng_state(torch.zeros(16, dtype=torch.float32))


def test_explicit_generators_are_independent(strict):
    g1 = torch.Generator(device=DEV).manual_seed(5)
    g2 = torch.Generator(device=DEV).manual_seed(5)
    torch.ocl.manual_seed(99)
    default_state = torch.ocl.get_rng_state()
    a = torch.rand(100, device=DEV, generator=g1).cpu()
    b = torch.rand(100, device=DEV, generator=g2).cpu()
    assert torch.equal(a, b)
    assert g1.get_offset() == 1 and g2.get_offset() == 1
    assert torch.equal(torch.ocl.get_rng_state(), default_state)  # the default one untouched
    g3 = torch.Generator(device=DEV).manual_seed(6)
    assert not torch.equal(torch.rand(100, device=DEV, generator=g3).cpu(), a)
    assert g1.device.type == DEV and g1.initial_seed() == 5


def test_generator_clone_state_and_set_state(strict):
    g = torch.Generator(device=DEV).manual_seed(11)
    torch.randn(5, device=DEV, generator=g)
    clone = g.clone_state()
    assert clone.device == g.device and clone.get_offset() == g.get_offset()
    x = torch.randn(50, device=DEV, generator=g).cpu()
    y = torch.randn(50, device=DEV, generator=clone).cpu()
    assert torch.equal(x, y)
    h = torch.Generator(device=DEV)
    h.set_state(g.get_state())
    assert torch.equal(torch.rand(20, device=DEV, generator=g).cpu(),
                       torch.rand(20, device=DEV, generator=h).cpu())
    g.set_offset(0)
    g.manual_seed(11)
    assert g.get_offset() == 0


def test_fork_rng(strict):
    torch.ocl.manual_seed(21)
    before = torch.ocl.get_rng_state()
    with torch.random.fork_rng(device_type=DEV):
        inside = torch.rand(64, device=DEV).cpu()
    assert torch.equal(torch.ocl.get_rng_state(), before)
    assert torch.equal(torch.rand(64, device=DEV).cpu(), inside)


def test_generator_of_another_device_type_rejected():
    with pytest.raises(RuntimeError, match="Expected a 'ocl' device type for generator"):
        torch.empty(4, device=DEV).uniform_(generator=torch.Generator())


def test_fallback_ops_use_the_ocl_seed():
    # Ops still on the CPU fallback (binomial) get a CPU generator seeded from
    # the ocl (seed, offset): reproducible, and the offset advances.
    count = torch.full((200,), 40.0, device=DEV)
    prob = torch.full((200,), 0.3, device=DEV)
    with torch.ocl.fallback_mode("silent"):
        torch.ocl.manual_seed(2)
        a, b = torch.binomial(count, prob).cpu(), torch.binomial(count, prob).cpu()
        torch.ocl.manual_seed(2)
        a2 = torch.binomial(count, prob).cpu()
    assert torch.equal(a, a2)
    assert not torch.equal(a, b)


# --- distributions -------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_uniform_distribution(strict, dtype):
    torch.ocl.manual_seed(0)
    x = torch.empty(N, dtype=dtype, device=DEV).uniform_(-2, 3).cpu()
    assert x.min() >= -2 and x.max() < 3
    assert ks_stat(x, lambda v: (v + 2) / 5) < 0.02
    assert abs(x.double().mean().item() - 0.5) < 0.06
    assert abs(x.double().var().item() - 25 / 12) < 0.1


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_normal_distribution(strict, dtype):
    torch.ocl.manual_seed(1)
    x = torch.empty(N, dtype=dtype, device=DEV).normal_(1.5, 2.0).cpu()
    assert x.isfinite().all()
    assert ks_stat(x, normal_cdf(1.5, 2.0)) < 0.02
    assert abs(x.double().mean().item() - 1.5) < 0.06
    assert abs(x.double().std().item() - 2.0) < 0.06


def test_exponential_distribution(strict):
    torch.ocl.manual_seed(2)
    x = torch.empty(N, device=DEV).exponential_(2.5).cpu()
    assert (x >= 0).all() and x.isfinite().all()
    assert ks_stat(x, lambda v: 1 - torch.exp(-2.5 * v)) < 0.02
    assert abs(x.mean().item() - 0.4) < 0.02


def test_cauchy_distribution(strict):
    torch.ocl.manual_seed(3)
    x = torch.empty(N, device=DEV).cauchy_(1.0, 0.5).cpu()
    assert x.isfinite().all()
    assert ks_stat(x, lambda v: 0.5 + torch.atan((v - 1.0) / 0.5) / math.pi) < 0.02
    assert abs(x.median().item() - 1.0) < 0.05


def test_log_normal_distribution(strict):
    torch.ocl.manual_seed(4)
    x = torch.empty(N, device=DEV).log_normal_(0.5, 0.75).cpu()
    assert (x > 0).all()
    assert ks_stat(x.log(), normal_cdf(0.5, 0.75)) < 0.02


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.int64, torch.float64])
def test_geometric_distribution(strict, dtype):
    p = 0.3
    torch.ocl.manual_seed(5)
    x = torch.empty(N, dtype=dtype, device=DEV).geometric_(p).cpu().double()
    assert (x >= 1).all() and (x == x.round()).all()
    assert abs(x.mean().item() - 1 / p) < 0.1
    assert abs(x.var().item() - (1 - p) / p**2) < 0.5
    assert abs((x == 1).double().mean().item() - p) < 0.02
    assert abs((x == 2).double().mean().item() - p * (1 - p)) < 0.02


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_bernoulli_scalar_frequency(strict, p):
    torch.ocl.manual_seed(6)
    x = torch.empty(N, device=DEV).bernoulli_(p).cpu()
    assert set(x.unique().tolist()) <= {0.0, 1.0}
    assert abs(x.mean().item() - p) < 0.015
    if p in (0.0, 1.0):
        assert (x == p).all()


def test_bernoulli_tensor_frequency(strict):
    torch.ocl.manual_seed(7)
    p = torch.tensor([0.0, 0.2, 0.7, 1.0], device=DEV).repeat(N // 4)
    x = torch.bernoulli(p).cpu().view(-1, 4)
    assert_close(x.mean(0), torch.tensor([0.0, 0.2, 0.7, 1.0]), atol=0.025, rtol=0)
    assert (x[:, 0] == 0).all() and (x[:, 3] == 1).all()
    # p broadcast into self, p of another float dtype, self of an integer dtype
    y = torch.empty(N // 4, 4, dtype=torch.int32, device=DEV).bernoulli_(
        torch.tensor([0.0, 0.2, 0.7, 1.0], dtype=torch.float64, device=DEV)).cpu()
    assert_close(y.double().mean(0), torch.tensor([0.0, 0.2, 0.7, 1.0], dtype=torch.float64),
                 atol=0.035, rtol=0)
    z = torch.empty(1000, dtype=torch.bool, device=DEV).bernoulli_(torch.full((1000,), 0.5).half().to(DEV))
    assert 350 < z.cpu().sum().item() < 650


# --- random_ -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INTS + [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_random_from_to_hits_every_value(strict, dtype):
    torch.ocl.manual_seed(8)
    lo = 0 if dtype == torch.uint8 else -3
    x = torch.empty(5000, dtype=dtype, device=DEV).random_(lo, lo + 7).cpu()
    assert sorted(x.unique().tolist()) == list(range(lo, lo + 7))
    torch.ocl.manual_seed(8)
    y = torch.empty(5000, dtype=dtype, device=DEV).random_(lo + 7).cpu()  # random_(to): [0, to)
    assert sorted(y.unique().tolist()) == list(range(0, lo + 7))


@pytest.mark.parametrize("dtype", [torch.uint16, torch.uint32, torch.uint64])
def test_random_from_to_unsigned(strict, dtype):
    x = torch.empty(3000, dtype=dtype, device=DEV).random_(2, 9).cpu()
    assert sorted(x.to(torch.int64).unique().tolist()) == list(range(2, 9))


def test_random_wide_and_full_range(strict):
    torch.ocl.manual_seed(9)
    x = torch.empty(4000, dtype=torch.int64, device=DEV).random_(0, 2**40).cpu()
    assert x.min() >= 0 and x.max() < 2**40 and x.max() > 2**39  # 64-bit draws
    y = torch.empty(4000, dtype=torch.int64, device=DEV).random_(-2**63, None).cpu()
    assert (y < 0).any() and (y > 0).any() and y.abs().double().max() > 2**62
    z = torch.empty(4000, dtype=torch.int64, device=DEV).random_(2**62, None).cpu()  # [from, max]
    assert z.min() >= 2**62


@pytest.mark.parametrize("dtype,top", [(torch.bool, 1), (torch.uint8, 255), (torch.int8, 127),
                                       (torch.int16, 2**15 - 1), (torch.int32, 2**31 - 1),
                                       (torch.int64, 2**63 - 1), (torch.float16, 2**11),
                                       (torch.bfloat16, 2**8), (torch.float32, 2**24),
                                       (torch.float64, 2**53)])
def test_random_default_range(strict, dtype, top):
    torch.ocl.manual_seed(10)
    x = torch.empty(4000, dtype=dtype, device=DEV).random_().cpu()
    v = x.double() if dtype != torch.int64 else x
    assert v.min() >= 0 and v.max() <= top
    assert v.max() >= top * 0.9 if dtype != torch.bool else set(x.tolist()) == {False, True}
    assert (v == v.round()).all()


def test_random_unsupported_dtypes_match_cpu():
    for dtype, name in ((torch.uint16, "UInt16"), (torch.uint64, "UInt64")):
        with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
            torch.empty(3, dtype=dtype).random_()
        with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
            torch.empty(3, dtype=dtype, device=DEV).random_()


# --- dtypes, layouts, factories -------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_float_dtypes(strict, dtype):
    torch.ocl.manual_seed(11)
    u = torch.empty(4000, dtype=dtype, device=DEV).uniform_(1, 2).cpu()
    assert u.dtype == dtype and u.min() >= 1 and u.max() < 2
    n = torch.empty(4000, dtype=dtype, device=DEV).normal_().cpu().double()
    assert abs(n.mean().item()) < 0.1 and abs(n.std().item() - 1) < 0.1
    for op in ("exponential_", "log_normal_", "cauchy_"):
        assert not getattr(torch.empty(100, dtype=dtype, device=DEV), op)().cpu().isnan().any()
    b = torch.empty(4000, dtype=dtype, device=DEV).bernoulli_(0.25).cpu().double()
    assert abs(b.mean().item() - 0.25) < 0.04


def test_uniform_never_returns_to_in_low_precision(strict):
    # [1, 1.0078125): bfloat16 rounds most of it up to the upper bound, which
    # must come back as `from`, as on the CPU.
    x = torch.empty(10_000, dtype=torch.bfloat16, device=DEV).uniform_(1, 1.0078125).cpu()
    assert (x == 1).all()
    h = torch.empty(10_000, dtype=torch.float16, device=DEV).uniform_(0, 1).cpu()
    assert h.max() < 1


def test_integer_dtypes(strict):
    for dtype in INTS + [torch.bool]:
        x = torch.empty(2000, dtype=dtype, device=DEV).bernoulli_(0.5).cpu()
        assert set(x.to(torch.int64).unique().tolist()) == {0, 1}
    for dtype in INTS:
        g = torch.empty(2000, dtype=dtype, device=DEV).geometric_(0.5).cpu()
        assert g.min() >= 1


def test_non_contiguous_views(strict):
    base = torch.full((300,), -7.0, device=DEV)
    base[::3].uniform_()
    b = base.cpu()
    assert (b[1::3] == -7).all() and (b[2::3] == -7).all()
    assert (b[::3] >= 0).all() and (b[::3] < 1).all()
    t = torch.full((64, 48), float("nan"), device=DEV).t()
    for op in (lambda v: v.uniform_(), lambda v: v.normal_(), lambda v: v.exponential_(),
               lambda v: v.bernoulli_(0.5), lambda v: v.random_(0, 10)):
        t.fill_(float("nan"))
        op(t)
        assert not t.cpu().isnan().any()
    # values follow memory order: a transposed view gets what its buffer would
    torch.ocl.manual_seed(12)
    a = torch.empty(48, 64, device=DEV).uniform_().cpu()
    torch.ocl.manual_seed(12)
    v = torch.empty(48, 64, device=DEV).t().uniform_()
    assert torch.equal(v.t().cpu(), a)


def test_large_tensor_every_element(strict):
    x = torch.full((100_003,), -1.0, device=DEV).uniform_(0, 1).cpu()
    assert (x >= 0).all()
    assert abs(x.mean().item() - 0.5) < 0.01
    assert x.unique().numel() > 95_000


def test_empty_and_zero_dim(strict):
    gen = torch.ocl.default_generators[torch.ocl.current_device()]
    offset = gen.get_offset()
    for op in (lambda v: v.uniform_(), lambda v: v.normal_(), lambda v: v.bernoulli_(0.5),
               lambda v: v.random_(), lambda v: v.exponential_(), lambda v: v.geometric_(0.5)):
        assert op(torch.empty(0, 3, device=DEV)).shape == (0, 3)
    assert gen.get_offset() == offset
    assert torch.rand((), device=DEV).shape == ()
    assert 0 <= torch.rand((), device=DEV).item() < 1


def test_factories_are_native(strict):
    torch.ocl.manual_seed(13)
    assert torch.rand(3, 4, device=DEV).shape == (3, 4)
    assert torch.randn(5, device=DEV, dtype=torch.float64).dtype == torch.float64
    r = torch.randint(3, 9, (1000,), device=DEV).cpu()
    assert r.dtype == torch.int64 and sorted(r.unique().tolist()) == list(range(3, 9))
    like = torch.empty(10, 10, device=DEV, dtype=torch.float16)
    assert torch.rand_like(like).dtype == torch.float16
    assert torch.randn_like(like).shape == (10, 10)
    assert torch.randint_like(like, 0, 4).cpu().max() <= 3
    m = torch.normal(torch.arange(4.0).to(DEV), torch.tensor([0.0, 1.0, 0.0, 1.0], device=DEV)).cpu()
    assert m[0] == 0 and m[2] == 2
    assert torch.normal(2.0, 3.0, size=(7,), device=DEV).shape == (7,)
    assert torch.normal(torch.zeros(5, device=DEV), 0.0).cpu().eq(0).all()
    assert torch.bernoulli(torch.full((6,), 0.5, device=DEV), p=1.0).cpu().eq(1).all()
    out = torch.empty(8, device=DEV)
    torch.bernoulli(torch.ones(8, device=DEV), out=out)
    assert out.cpu().eq(1).all()


def test_complex_uniform_and_normal(strict):
    torch.ocl.manual_seed(14)
    z = torch.empty(2000, dtype=torch.complex64, device=DEV).uniform_(0, 1).cpu()
    assert (z.real >= 0).all() and (z.imag < 1).all()
    w = torch.randn(4000, dtype=torch.complex64, device=DEV).cpu()
    assert abs(w.real.var().item() - 0.5) < 0.05 and abs(w.imag.var().item() - 0.5) < 0.05


# --- errors -------------------------------------------------------------------------

def _same_error(fn_cpu, fn_dev):
    with pytest.raises(Exception) as cpu_err:
        fn_cpu()
    with pytest.raises(type(cpu_err.value)) as dev_err:
        fn_dev()
    return str(cpu_err.value), str(dev_err.value)


@pytest.mark.parametrize("call", [
    lambda t: t.uniform_(2, 1),
    lambda t: t.bernoulli_(1.5),
    lambda t: t.bernoulli_(-0.1),
    lambda t: t.bernoulli_(torch.tensor([0.5, 2.0, 0.1]).to(t.device)),
    lambda t: t.bernoulli_(torch.tensor([0.5, float("nan"), 0.1]).to(t.device)),
    lambda t: t.random_(3, 3),
    lambda t: t.random_(5, 2),
    lambda t: t.normal_(0, -1),
    lambda t: t.log_normal_(0, 0),
    lambda t: t.exponential_(0),
    lambda t: t.geometric_(1.5),
    lambda t: t.cauchy_(0, -1),
    lambda t: t.to(torch.int8).random_(0, 1000),
    lambda t: t.to(torch.int32).exponential_(),
    lambda t: t.to(torch.int32).cauchy_(),
    lambda t: t.bernoulli_(torch.tensor([1, 0, 1]).to(t.device)),
])
def test_errors_match_cpu(strict, call):
    cpu_msg, dev_msg = _same_error(lambda: call(torch.empty(3)), lambda: call(torch.empty(3, device=DEV)))
    assert dev_msg.replace("_ocl", "_cpu") == cpu_msg


@pytest.mark.parametrize("op", ["normal_", "uniform_", "log_normal_"])
def test_integer_dtype_not_implemented(strict, op):
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        getattr(torch.empty(3, dtype=torch.int32), op)()
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        getattr(torch.empty(3, dtype=torch.int32, device=DEV), op)()


# --- dropout -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_native_dropout(strict, dtype):
    torch.ocl.manual_seed(15)
    x_cpu = torch.randn(40_000).to(dtype)
    out, mask = torch.native_dropout(x_cpu.to(DEV), 0.3, True)
    out, mask = out.cpu(), mask.cpu()
    assert mask.dtype == torch.bool and out.dtype == dtype
    assert abs(mask.double().mean().item() - 0.7) < 0.01
    assert_close(out, x_cpu.mul(mask).mul_(1 / 0.7))
    grad = torch.randn(40_000).to(dtype)
    g = torch.ops.aten.native_dropout_backward(grad.to(DEV), mask.to(DEV), 1 / 0.7).cpu()
    assert_close(g, grad * mask * (1 / 0.7))


def test_native_dropout_edge_cases(strict):
    x = torch.randn(100, device=DEV)
    out, mask = torch.native_dropout(x, 0.0, True)
    assert mask.cpu().all() and torch.equal(out.cpu(), x.cpu())
    out, mask = torch.native_dropout(x, 1.0, True)
    assert not mask.cpu().any() and (out.cpu() == 0).all()
    out, mask = torch.native_dropout(x, 0.5, False)
    assert mask.cpu().all() and torch.equal(out.cpu(), x.cpu()) and out.data_ptr() != x.data_ptr()
    e = torch.empty(0, 4, device=DEV)
    out, mask = torch.native_dropout(e, 0.5, True)
    assert out.shape == (0, 4) and mask.dtype == e.dtype  # as the CPU
    t = torch.randn(30, 20, device=DEV).t()
    out, mask = torch.native_dropout(t, 0.5, True)
    assert_close(out.cpu(), t.cpu() * mask.cpu() * 2.0)
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\]"):
        torch.native_dropout(torch.randn(3), 1.5, True)
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\]"):
        torch.native_dropout(x, 1.5, True)


def test_nn_dropout_training_forward_backward(strict):
    torch.ocl.manual_seed(16)
    layer = torch.nn.Dropout(0.25).train()
    x = torch.randn(64, 128, device=DEV, requires_grad=True)
    y = layer(x)
    y.sum().backward()
    kept = y.detach().cpu() != 0
    assert_close(y.detach().cpu()[kept], x.detach().cpu()[kept] / 0.75)
    assert_close(x.grad.cpu(), kept.float() / 0.75)
    assert abs(kept.float().mean().item() - 0.75) < 0.03
    layer.eval()
    assert torch.equal(layer(x).detach().cpu(), x.detach().cpu())


# --- randperm ---------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000, 100_003])
def test_randperm_is_a_permutation(strict, n):
    torch.ocl.manual_seed(17)
    p = torch.randperm(n, device=DEV).cpu()
    assert p.dtype == torch.int64
    assert torch.equal(p.sort().values, torch.arange(n))


def test_randperm_dtypes_generator_and_reproducibility(strict):
    for dtype in (torch.int32, torch.int16, torch.float32, torch.float64):
        p = torch.randperm(500, device=DEV, dtype=dtype).cpu()
        assert p.dtype == dtype and torch.equal(p.sort().values, torch.arange(500, dtype=dtype))
    g = torch.Generator(device=DEV).manual_seed(4)
    a = torch.randperm(300, device=DEV, generator=g).cpu()
    b = torch.randperm(300, device=DEV, generator=g).cpu()
    g.manual_seed(4)
    assert torch.equal(torch.randperm(300, device=DEV, generator=g).cpu(), a)
    assert not torch.equal(a, b)
    assert not torch.equal(a, torch.arange(300))
    out = torch.empty(10, 10, device=DEV, dtype=torch.int64).t()  # resized to (n,)
    torch.randperm(20, out=out)
    assert torch.equal(out.cpu().sort().values, torch.arange(20))


def test_randperm_positions_are_uniform(strict):
    torch.ocl.manual_seed(18)
    n, draws = 6, 1500
    counts = torch.zeros(n, n)
    for _ in range(draws):
        p = torch.randperm(n, device=DEV).cpu()
        counts[torch.arange(n), p] += 1
    expected = draws / n
    assert ((counts - expected).abs() < 0.25 * expected).all(), counts


def test_randperm_errors_match_cpu():
    cpu_msg, dev_msg = _same_error(lambda: torch.randperm(-1), lambda: torch.randperm(-1, device=DEV))
    assert cpu_msg == dev_msg
    cpu_msg, dev_msg = _same_error(lambda: torch.randperm(3000, dtype=torch.float16),
                                   lambda: torch.randperm(3000, dtype=torch.float16, device=DEV))
    assert cpu_msg == dev_msg


# --- multinomial / poisson (kernels/random.cl rng_multinomial, rng_poisson) -------

def chi_square(counts, probs):
    expected = probs / probs.sum() * counts.sum()
    keep = expected > 0
    return (((counts[keep] - expected[keep]) ** 2) / expected[keep]).sum().item()


# chi-square quantiles at 1 - 1e-6 (df = categories - 1): a fixed seed makes
# each statistic a fixed number, the bound only has to hold for a correct sampler.
CHI2_1E6 = {3: 27.9, 4: 30.7, 5: 33.4}
MULTI_P = torch.tensor([[0.1, 0.0, 0.6, 0.3, 0.5, 0.0], [3.0, 1.0, 0.0, 2.0, 1.0, 1.0]], dtype=torch.float64)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_multinomial_with_replacement_frequencies(strict, dtype):
    torch.ocl.manual_seed(12)
    n = 20_000
    s = torch.multinomial(MULTI_P.to(dtype).to(DEV), n, replacement=True).cpu()
    assert s.shape == (2, n) and s.dtype == torch.int64
    for row in range(2):
        counts = torch.bincount(s[row], minlength=6).double()
        p = MULTI_P[row].to(dtype).double()
        assert (counts[p == 0] == 0).all()  # never a category of probability 0
        assert chi_square(counts, p) < CHI2_1E6[4]
    # 1-D input, non-contiguous input
    v = torch.multinomial(torch.tensor([0.0, 1.0, 3.0], device=DEV), 4000, replacement=True).cpu()
    assert v.shape == (4000,) and (v != 0).all()
    assert chi_square(torch.bincount(v, minlength=3).double(), torch.tensor([0.0, 1.0, 3.0])) < CHI2_1E6[3]
    w = torch.multinomial(MULTI_P.to(DEV).t().contiguous().t(), 7, replacement=True)
    assert w.shape == (2, 7)


def test_multinomial_single_sample_frequencies(strict):
    torch.ocl.manual_seed(13)
    p = MULTI_P[0].float().to(DEV).expand(20_000, 6)  # one draw per row (exponential_ + argmax)
    s = torch.multinomial(p, 1).cpu().view(-1)
    counts = torch.bincount(s, minlength=6).double()
    assert (counts[MULTI_P[0] == 0] == 0).all()
    assert chi_square(counts, MULTI_P[0]) < CHI2_1E6[4]


def test_multinomial_without_replacement():
    # n_sample > 1 without replacement uses topk, which may still run on the
    # fallback until the sort family is native: not strict.
    torch.ocl.manual_seed(14)
    p = torch.tensor([0.1, 0.0, 0.6, 0.3, 0.5], device=DEV).expand(5000, 5)
    with torch.ocl.fallback_mode("silent"):
        s = torch.multinomial(p, 3).cpu()
    assert s.shape == (5000, 3)
    assert (s.sort(dim=1).values.diff(dim=1) > 0).all()  # distinct within a row
    assert (s != 1).all()
    first = torch.bincount(s[:, 0], minlength=5).double()
    assert chi_square(first, torch.tensor([0.1, 0.0, 0.6, 0.3, 0.5])) < CHI2_1E6[4]


def test_multinomial_reproducible(strict):
    p = torch.rand(3, 50, device=DEV)
    torch.ocl.manual_seed(15)
    a = torch.multinomial(p, 100, replacement=True).cpu()
    b = torch.multinomial(p, 100, replacement=True).cpu()
    torch.ocl.manual_seed(15)
    a2 = torch.multinomial(p, 100, replacement=True).cpu()
    assert torch.equal(a, a2) and not torch.equal(a, b)
    g = torch.Generator(device=DEV).manual_seed(3)
    c = torch.multinomial(p, 100, replacement=True, generator=g).cpu()
    g.manual_seed(3)
    assert torch.equal(c, torch.multinomial(p, 100, replacement=True, generator=g).cpu())


def _same_error_args(fn, *args, **kw):
    with pytest.raises(Exception) as cpu:
        fn(*args, **kw)
    with pytest.raises(type(cpu.value)) as dev:
        fn(*[a.to(DEV) if isinstance(a, torch.Tensor) else a for a in args], **kw)
    assert str(dev.value).split("\n")[0] == str(cpu.value).split("\n")[0]


@pytest.mark.parametrize("replacement", [False, True])
def test_multinomial_errors(strict, replacement):
    for probs in ([1.0, -1.0, 1.0], [1.0, math.inf, 1.0], [1.0, 1.0, math.nan], [0.0, 0.0, 0.0]):
        _same_error_args(torch.multinomial, torch.tensor(probs), 2, replacement)
    _same_error_args(torch.multinomial, torch.tensor([[1.0, 2.0], [0.0, 0.0]]), 2, replacement)  # a zero-sum row
    _same_error_args(torch.multinomial, torch.tensor([1.0, 2.0]), 0, replacement)
    _same_error_args(torch.multinomial, torch.ones(2, 2, 2), 1, replacement)
    _same_error_args(torch.multinomial, torch.tensor([1, 2]), 1, replacement)
    if not replacement:
        _same_error_args(torch.multinomial, torch.tensor([1.0, 2.0]), 3, False)  # n_sample > categories


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_poisson_moments(strict, dtype):
    torch.ocl.manual_seed(16)
    rates = torch.tensor([0.0, 0.5, 3.0, 9.5, 20.0, 1000.0], dtype=dtype)
    n = 20_000
    x = torch.poisson(rates.to(DEV).repeat(n, 1)).cpu().double()
    assert x.dtype == torch.float64 and (x == x.round()).all() and (x >= 0).all()
    assert (x[:, 0] == 0).all()
    lam = rates.double()[1:]
    mean, var = x[:, 1:].mean(0), x[:, 1:].var(0)
    assert ((mean - lam).abs() < 6 * (lam / n).sqrt()).all(), mean
    assert ((var / lam - 1).abs() < 0.06).all(), var
    # the small-rate path: P(X = 0) = exp(-rate)
    assert abs((x[:, 1] == 0).double().mean().item() - math.exp(-0.5)) < 0.02


def test_poisson_shapes_and_reproducible(strict):
    rates = torch.rand(40, 30, device=DEV) * 15
    torch.ocl.manual_seed(17)
    a = torch.poisson(rates.t()).cpu()  # non-contiguous rates
    b = torch.poisson(rates.t()).cpu()
    torch.ocl.manual_seed(17)
    assert torch.equal(a, torch.poisson(rates.t()).cpu()) and not torch.equal(a, b)
    assert a.shape == (30, 40)
    assert torch.poisson(torch.empty(0, 3, device=DEV)).shape == (0, 3)
    z = torch.poisson(torch.tensor(4.0, device=DEV))
    assert z.shape == () and z.device.type == "ocl"
    big = torch.poisson(torch.full((100_003,), 2.0, device=DEV)).cpu()
    assert abs(big.mean().item() - 2.0) < 0.03


def test_poisson_errors(strict):
    _same_error_args(torch.poisson, torch.tensor([1, 2]))


def test_randint_large_range_is_uniform():
    # from a range of 2^28 the draw takes 64 random bits, as CUDA and the CPU
    # do: 32 bits modulo 0.75 * 2^32 made the first third of the values twice
    # as likely (PyTorch's test_randint_distribution)
    torch.ocl.manual_seed(0)
    n_max, size = int(0.75 * 2**32), 1_000_000
    res = torch.randint(n_max, (size,), device="ocl")
    hist = (res // (n_max // 8)).float().cpu().histc(8, 0, 8)
    expected = size / 8
    assert ((hist - expected).abs().max() / expected).item() < 3 * expected ** -0.5
