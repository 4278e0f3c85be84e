"""Device mismatches raise PyTorch's (CUDA's) error on ocl.

An op that mixes ocl tensors with CPU tensors (a functional operand, an out=
tensor, the self of an in-place op) raises RuntimeError "Expected all
tensors to be on the same device, ..." (or ATen's own wording of the same
check) before anything runs or is written, whether the op is native or runs
through the CPU fallback. 0-dim CPU tensors stay allowed where CUDA allows
them (TensorIterator's CPU scalars). See backend/same_device.h.
"""

import re
import warnings

import pytest
import torch
import torch.nn.functional as F

import torch_ocl  # noqa: F401

D = "ocl"
# CUDA's wordings: check_and_update_common_device / TensorIterator /
# "Expected out tensor to have device" (structured out=) / ATen's own checks.
FAMILY = re.compile(r"Expected all tensors to be on the same device|Expected out tensor to have device"
                    r"|(must|to) be on (the )?same device|should have same device")


def o(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype).to(D)


def c(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def ints(*shape, high=3):
    return torch.randint(0, high, shape)


# (name, kind, call). kind: native or fallback (checked against the fallback
# counters, so a row that stops falling back is noticed).
ROWS = [
    # native: TensorIterator, structured, hand-written launchers
    ("add functional", "native", lambda: torch.add(o(4, 4), c(4, 4))),
    ("add cpu first", "native", lambda: torch.add(c(4, 4), o(4, 4))),
    ("add out=cpu", "native", lambda: torch.add(o(4), o(4), out=c(4))),
    ("add_ on cpu self", "native", lambda: c(4).add_(o(4))),
    ("mul_ on ocl self", "native", lambda: o(4).mul_(c(4))),
    ("sum out=cpu", "native", lambda: torch.sum(o(4, 4), 0, out=c(4))),
    ("mm", "native", lambda: torch.mm(o(4, 4), c(4, 4))),
    ("mm out=cpu", "native", lambda: torch.mm(o(4, 4), o(4, 4), out=c(4, 4))),
    ("addmm cpu bias", "native", lambda: torch.addmm(c(4, 4), o(4, 4), o(4, 4))),
    ("bmm", "native", lambda: torch.bmm(o(2, 3, 3), c(2, 3, 3))),
    ("dot", "native", lambda: torch.dot(o(4), c(4))),
    ("cat", "native", lambda: torch.cat([o(2, 3), c(2, 3)])),
    ("cat out=cpu", "native", lambda: torch.cat([o(2, 3), o(2, 3)], out=c(4, 3))),
    # clamp's TensorIterator takes no CPU scalars: CUDA refuses a 0-dim CPU bound too.
    ("clamp 0-dim cpu max", "native", lambda: torch.clamp(o(4), max=torch.tensor(0.5))),
    ("where", "native", lambda: torch.where(o(4) > 0, o(4), c(4))),
    ("index_select cpu index", "native", lambda: torch.index_select(o(4, 3), 0, ints(2))),
    ("gather cpu index", "native", lambda: torch.gather(o(4, 3), 0, ints(4, 3))),
    ("scatter_ cpu src", "native", lambda: o(4, 3).scatter_(0, ints(4, 3).to(D), c(4, 3))),
    ("nonzero out=cpu", "native", lambda: torch.nonzero(o(4), out=torch.empty(0, dtype=torch.long))),
    ("masked_select cpu mask", "native", lambda: torch.masked_select(o(4), c(4) > 0)),
    ("sort out=cpu", "native", lambda: torch.sort(o(5), out=(c(5), torch.empty(5, dtype=torch.long)))),
    ("histc out=cpu", "native", lambda: torch.histc(o(10), bins=4, out=c(4))),
    ("cumsum out=cpu", "native", lambda: torch.cumsum(o(5), 0, out=c(5))),
    ("max.dim out=cpu", "native", lambda: torch.max(o(3, 4), 1, out=(c(3), torch.empty(3, dtype=torch.long)))),
    ("conv2d cpu weight", "native", lambda: F.conv2d(o(1, 2, 5, 5), c(3, 2, 3, 3))),
    ("conv2d cpu bias", "native", lambda: F.conv2d(o(1, 2, 5, 5), o(3, 2, 3, 3), c(3))),
    ("max_pool3d out=cpu", "native", lambda: torch.ops.aten.max_pool3d_with_indices.out(
        o(1, 1, 4, 4, 4), [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False,
        out=c(1, 1, 2, 2, 2), indices=torch.empty(1, 1, 2, 2, 2, dtype=torch.long))),
    ("embedding cpu indices", "native", lambda: F.embedding(ints(3), o(4, 2))),
    ("_embedding_bag cpu offsets", "native",  # (F.embedding_bag's own type check comes first, as on CUDA)
     lambda: torch.ops.aten._embedding_bag(o(4, 2), ints(6).to(D), torch.tensor([0, 3]))),
    ("nll_loss cpu target", "native", lambda: F.nll_loss(o(4, 3).log_softmax(1), ints(4))),
    ("nll_loss cpu weight", "native", lambda: F.nll_loss(o(4, 3).log_softmax(1), ints(4).to(D), weight=c(3))),
    ("cross_entropy cpu target", "native", lambda: F.cross_entropy(o(4, 3), ints(4))),
    ("mse_loss", "native", lambda: F.mse_loss(o(4), c(4))),
    ("bce cpu target", "native", lambda: F.binary_cross_entropy(o(4).sigmoid(), c(4).sigmoid())),
    ("layer_norm cpu weight", "native", lambda: F.layer_norm(o(2, 4), (4,), c(4))),
    ("batch_norm cpu stats", "native", lambda: F.batch_norm(o(3, 4), c(4), c(4).abs())),
    ("group_norm cpu weight", "native", lambda: F.group_norm(o(2, 4, 3), 2, c(4))),
    ("grid_sample cpu grid", "native", lambda: F.grid_sample(o(1, 1, 4, 4), c(1, 2, 2, 2), align_corners=False)),
    ("searchsorted cpu values", "native", lambda: torch.searchsorted(o(5).sort().values, c(3))),
    ("lstm_cell cpu hidden", "native", lambda: torch._VF.lstm_cell(
        o(2, 3), (c(2, 4), o(2, 4)), o(16, 3), o(16, 4), o(16), o(16))),
    # the boxed CPU fallback
    ("linalg.inv out=cpu", "native", lambda: torch.linalg.inv(o(3, 3) + 3 * torch.eye(3, device=D), out=c(3, 3))),
    ("linalg.solve cpu B", "native", lambda: torch.linalg.solve(o(3, 3) + 3 * torch.eye(3, device=D), c(3, 2))),
    ("fft out=cpu", "native", lambda: torch.fft.fft(o(4), out=c(4, dtype=torch.complex64))),
    ("cdist cpu x2", "native", lambda: torch.cdist(o(3, 2), c(4, 2))),
    ("linalg.lstsq cpu b", "native", lambda: torch.linalg.lstsq(o(4, 3), c(4, 2))),
    ("mvlgamma out=cpu", "fallback", lambda: torch.mvlgamma(o(3).abs() + 1, 1, out=c(3))),
    ("lu_unpack cpu pivots", "native",
     lambda: torch.lu_unpack(o(3, 3), torch.tensor([1, 2, 3], dtype=torch.int32))),
    ("renorm out=cpu", "native", lambda: torch.renorm(o(3, 3), 2, 0, 1.0, out=c(3, 3))),
    ("histogramdd cpu weight", "native",
     lambda: torch.ops.aten._histogramdd_from_bin_cts(o(5, 2), [2, 2], weight=c(5))),
]


@pytest.fixture
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_every_row_raises_the_device_mismatch_error(quiet):
    failures = []
    for name, kind, call in ROWS:
        torch.ocl.reset_fallback_stats()
        try:
            call()
        except RuntimeError as e:
            msg = str(e)
            if not FAMILY.search(msg) or "cpu" not in msg or "ocl:0" not in msg:
                failures.append(f"{name}: {type(e).__name__}: {msg.splitlines()[0][:200]}")
        except Exception as e:  # NotImplementedError, IndexError, ... are wrong types
            failures.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
        else:
            failures.append(f"{name}: no error")
        if kind == "native" and torch.ocl.fallback_stats():
            failures.append(f"{name}: listed native but ran {sorted(torch.ocl.fallback_stats())}")
    assert not failures, "\n".join(failures)


def test_fallback_rows_are_fallback_ops(quiet):
    # The same ops on one device do run through the fallback (so the rows
    # above test the fallback's check, not a native kernel's).
    a = o(3).abs() + 1  # mvlgamma's out= form: the counted fallback
    for call in (lambda: a.mvlgamma_(1), lambda: torch.mvlgamma(a, 1, out=torch.empty(3, device=D))):
        torch.ocl.reset_fallback_stats()
        call()
        assert torch.ocl.fallback_stats(), call


def test_nothing_is_written_before_the_error(quiet):
    out = torch.full((2, 2), 7.0)
    with pytest.raises(RuntimeError, match=FAMILY):
        torch.linalg.inv(o(3, 3) + 3 * torch.eye(3, device=D), out=out)
    assert out.shape == (2, 2) and bool((out == 7).all())
    idx = torch.full((1,), 5, dtype=torch.long)
    with pytest.raises(RuntimeError, match=FAMILY):
        torch.nonzero(o(4), out=idx)
    assert idx.tolist() == [5]
    self_cpu = torch.ones(3)
    with pytest.raises(RuntimeError, match=FAMILY):
        self_cpu.add_(o(3))
    assert self_cpu.tolist() == [1.0, 1.0, 1.0]


def test_fallback_checks_devices_before_strict_mode(strict):
    # CUDA's error, not "has no native ocl kernel": the device check comes first.
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.cdist(o(3, 2), c(4, 2))


def test_cpu_scalars_still_work(quiet):
    x = torch.randn(5)
    s = torch.tensor(2.5)
    xd = x.to(D)
    cases = [
        (lambda t, k: torch.add(t, k), torch.add(x, s)),
        (lambda t, k: torch.add(k, t), torch.add(s, x)),
        (lambda t, k: t.clone().mul_(k), x * s),
        (lambda t, k: torch.where(t > 0, t, k), torch.where(x > 0, x, s)),
        (lambda t, k: torch.lerp(t, t * 2, k), torch.lerp(x, x * 2, s)),
        (lambda t, k: t.clone().masked_fill_(t > 0, k), x.clone().masked_fill_(x > 0, s)),
        (lambda t, k: torch.igamma(t.abs(), k), torch.igamma(x.abs(), s)),  # runs on the fallback
        (lambda t, k: torch.igamma(k, t.abs()), torch.igamma(s, x.abs())),
        (lambda t, k: torch.polygamma(1, t.abs() + k), torch.polygamma(1, x.abs() + s)),
    ]
    for i, (f, want) in enumerate(cases):
        got = f(xd, s)
        assert got.device.type == D, i
        torch.testing.assert_close(got.cpu(), want, msg=f"case {i}")
    # Indices of advanced indexing may live on the CPU (as on CUDA), and
    # copies cross devices.
    i = torch.tensor([0, 2])
    torch.testing.assert_close(xd[i].cpu(), x[i])
    y = xd.clone()
    y[i] = torch.tensor(1.0)
    assert y.cpu()[i].tolist() == [1.0, 1.0]
    z = torch.empty(5, device=D).copy_(x)
    torch.testing.assert_close(z.cpu(), x)


@pytest.mark.skipif(torch.ocl.device_count() < 2, reason="needs two ocl devices (this machine has one)")
def test_two_ocl_devices(quiet):
    a, b = torch.randn(4).to("ocl:0"), torch.randn(4).to("ocl:1")
    for call in (lambda: a + b, lambda: torch.mm(a[None], b[:, None]), lambda: torch.cdist(a[None], b[None])):
        with pytest.raises(RuntimeError, match=FAMILY):
            call()


def test_foreach_scalar_tensor_checks_as_cuda():
    # CUDA's fused _foreach_{add,mul,div}.Tensor: the scalar tensor must be 0-dim and,
    # on the fused route (every tensor on the device, the scalar's dtype), on the device.
    tensors = [o(2, 2), o(2, 2)]
    with pytest.raises(RuntimeError, match="scalar tensor expected to be on ocl:0 but is on cpu"):
        torch._foreach_add(tensors, torch.tensor(1.0), alpha=1.0)
    for fn in (torch._foreach_mul, torch._foreach_div, torch._foreach_add_):
        with pytest.raises(RuntimeError, match="scalar tensor expected to be 0 dim but"):
            fn([c(2, 2), o(2, 2)], o(2))
    scale = torch.tensor(2.0, device=D)
    for fn, ref in ((torch._foreach_mul, torch.mul), (torch._foreach_div, torch.div), (torch._foreach_add, torch.add)):
        for got, t in zip(fn(tensors, scale), tensors):
            torch.testing.assert_close(got, ref(t, scale))
    # another dtype takes CUDA's per-tensor route, which accepts a CPU scalar as any op does
    torch.testing.assert_close(torch._foreach_mul(tensors, torch.tensor(3))[0], tensors[0] * 3)
    # mul and div take a CPU scalar on the fused route too (optimizers with a CPU tensor lr:
    # _foreach_mul_(params, 1 - lr * weight_decay))
    cpu_scale = torch.tensor(4.0)
    for fn, ref in ((torch._foreach_mul, torch.mul), (torch._foreach_div, torch.div)):
        for got, t in zip(fn(tensors, cpu_scale), tensors):
            torch.testing.assert_close(got, ref(t, cpu_scale))
    for cls in (torch.optim.NAdam, torch.optim.RAdam):
        w = torch.nn.Parameter(o(10, 5))
        opt = cls([w], lr=torch.tensor(1e-3), weight_decay=0.1, decoupled_weight_decay=True, foreach=True)
        w.pow(2).sum().backward()
        opt.step()


def test_addr_out_checks_devices_and_casts_as_cuda():
    m, v1, v2 = o(3, 2), o(3), o(2)
    with pytest.raises(RuntimeError, match=FAMILY):
        torch.addr(m, v1, v2, out=c(3, 2))
    with pytest.raises(RuntimeError, match="can't be cast"):
        torch.addr(m, v1, v2, out=torch.empty(3, 2, dtype=torch.long, device=D))
    out = torch.empty(0, device=D)
    torch.addr(m, v1, v2, beta=0.5, alpha=2, out=out)
    torch.testing.assert_close(out.cpu(), torch.addr(m.cpu(), v1.cpu(), v2.cpu(), beta=0.5, alpha=2))
