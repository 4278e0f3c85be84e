"""torch.compile's default backend (Inductor) on ocl: the OpenCL C code
generator (torch_ocl/_inductor.py). Compiled results equal eager (CPU)
results, forward and backward, with every op native (strict mode)."""

import pytest
import torch
import torch_ocl
import torch.nn.functional as F
from torch._inductor.utils import run_and_get_code

from cpu_reference import SUM_TOL, assert_matches_cpu

pytestmark = pytest.mark.usefixtures("strict")


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def idx():
    return torch.tensor([1, 3, 7])


# (name, fn, CPU inputs, tolerance)
CASES = [
    ("pointwise_chain", lambda x, w, b, y: F.gelu(x * w + b) * y, lambda: [torch.randn(1000) for _ in range(4)], {}),
    ("broadcast_transposed", lambda a, b: torch.sigmoid(a) * b.t() + 1, lambda: [torch.randn(8, 5), torch.randn(5, 8)], {}),
    ("var_mean", lambda a: torch.var_mean(a, dim=1), lambda: [torch.randn(7, 300)], {}),
    ("argmax_argmin", lambda a: (a.argmax(1), a.argmin(0)), lambda: [torch.randn(9, 31)], {}),
    ("sum_amax_softmax", lambda a: (a.sum(1), a.amax(0), torch.softmax(a, -1)), lambda: [torch.randn(33, 70)], {}),
    ("log_softmax_long_rows", lambda a: F.log_softmax(a, -1), lambda: [torch.randn(6, 2000)], {}),
    ("layer_norm", lambda a, w, b: F.layer_norm(a, (64,), w, b),
     lambda: [torch.randn(10, 64), torch.randn(64), torch.randn(64)], {}),
    ("pad_cat_masked_loads", lambda a, b: torch.cat([F.pad(a, (1, 2)), b], 0),
     lambda: [torch.randn(3, 5), torch.randn(2, 8)], {}),
    ("integers_where", lambda a: torch.where(a > 0, (a * 3).to(torch.int64) // 2, -a.to(torch.int32)),
     lambda: [torch.randn(40)], {}),
    ("float16_via_float", lambda a, b: (a.half() * b.half()).relu().sum(0),
     lambda: [torch.randn(16, 33), torch.randn(16, 33)], SUM_TOL[torch.float16]),
    ("bfloat16_via_float", lambda a: F.gelu(a.bfloat16()).float().mean(), lambda: [torch.randn(100)],
     SUM_TOL[torch.bfloat16]),
    ("linear_extern_gemm", lambda x, w, b: F.gelu(F.linear(x, w, b)),
     lambda: [torch.randn(4, 16), torch.randn(32, 16), torch.randn(32)], dict(rtol=1e-4, atol=1e-5)),
    ("indirect_index", lambda a, i: a[i] + 1, lambda: [torch.randn(10, 3), idx()], {}),
    ("scatter_add_atomics", lambda a, i, s: a.index_add(0, i, s),
     lambda: [torch.randn(10, 3), idx(), torch.randn(3, 3)], {}),
]


@pytest.mark.parametrize("name,fn,make,tol", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_cpu(name, fn, make, tol):
    args = make()
    expected = fn(*args)
    got = torch.compile(fn)(*[a.to("ocl") for a in args])
    assert_matches_cpu(got, expected, **tol)


def test_backward_matches_cpu():
    def fn(x, w):
        return torch.softmax(torch.tanh(x @ w) * 2, -1).pow(2).sum()

    x, w = torch.randn(6, 8), torch.randn(8, 5)
    xc, wc = x.clone().requires_grad_(), w.clone().requires_grad_()
    fn(xc, wc).backward()
    xo, wo = x.to("ocl").requires_grad_(), w.to("ocl").requires_grad_()
    torch.compile(fn)(xo, wo).backward()
    assert_matches_cpu(xo.grad, xc.grad, rtol=1e-4, atol=1e-5)
    assert_matches_cpu(wo.grad, wc.grad, rtol=1e-4, atol=1e-5)


def test_generated_code_is_opencl():
    x = torch.randn(64, device="ocl")
    _, codes = run_and_get_code(torch.compile(lambda a: (a * 2).exp().sum()), x)
    code = "\n".join(codes)
    assert "__kernel void ocl_kernel_" in code and "GeneratedKernel" in code
    assert "triton" not in code.split("import torch_ocl")[-1]


def test_out_of_bounds_index_raises_at_sync():
    f = torch.compile(lambda a, i: a[i] * 2)
    a = torch.randn(10, 3, device="ocl")
    with pytest.raises(IndexError, match="index 12 is out of bounds for dimension with size 10"):
        f(a, torch.tensor([1, 12], device="ocl")).cpu()


def test_dynamic_shapes():
    f = torch.compile(lambda a, b: (a * b + 1).sum(0), dynamic=True)
    for n in (5, 9, 33):
        a, b = torch.randn(n, 7), torch.randn(n, 7)
        assert_matches_cpu(f(a.to("ocl"), b.to("ocl")), (a * b + 1).sum(0), rtol=1e-5, atol=1e-5)


def test_dynamic_shapes_symbolic_row_count():
    """Both sizes symbolic: the row count the kernel bounds its work items by
    is a kernel parameter (it was renamed after the parameter list was made:
    an undeclared identifier in the OpenCL source)."""
    f = torch.compile(lambda a: ((a.sum(1) * 2).relu(), a.cumsum(0), a.amax(0)), dynamic=True)
    for shape in ((5, 7), (6, 9), (33, 2)):
        a = torch.randn(*shape)
        assert_matches_cpu(f(a.to("ocl")), ((a.sum(1) * 2).relu(), a.cumsum(0), a.amax(0)), rtol=1e-5, atol=1e-5)


SCANS = [
    ("cumsum_fused", lambda x, y: (x.cumsum(1) * 2 + y).relu(), lambda: [torch.randn(5, 37), torch.randn(5, 37)]),
    ("cumprod_dim0", lambda x: torch.cumprod(x, 0), lambda: [torch.rand(20, 4) + 0.5]),
    ("logcumsumexp", lambda x: torch.logcumsumexp(x, 1), lambda: [torch.randn(3, 50)]),
    ("cummax_values_indices", lambda x: torch.cummax(x, 1), lambda: [torch.randn(4, 25)]),
    ("cummin_int64", lambda x: torch.cummin(x, 0), lambda: [torch.randint(-9, 9, (30, 3))]),
    ("cumsum_long_row", lambda x: x.cumsum(0), lambda: [torch.randn(20000)]),
]


@pytest.mark.parametrize("name,fn,make", SCANS, ids=[c[0] for c in SCANS])
def test_scans_are_generated(name, fn, make):
    """Scans compile into the generated kernel on CPU devices (one work item
    walks each row, as the eager kernels there); GPU-profile devices call the
    eager work-group scan."""
    args = make()
    got, codes = run_and_get_code(torch.compile(fn), *[a.to("ocl") for a in args])
    assert_matches_cpu(got, fn(*args), rtol=1e-5, atol=1e-5)
    calls_eager = any("torch.ops.aten.cum" in c or "torch.ops.aten.logcum" in c for c in codes)
    assert calls_eager == (torch.ocl.get_device_properties().profile != "cpu")


def test_graph_break():
    def g(x):
        y = x.sin()
        torch._dynamo.graph_break()
        return y.cos() * 2

    x = torch.randn(10)
    assert_matches_cpu(torch.compile(g)(x.to("ocl")), g(x))


def test_compiled_optimizer_step():
    """Adam's step counts are CPU scalars: copied in for the ocl kernels.
    (Inductor's Adam is less accurate than eager's: 1.7e-6 from float64 after
    two steps against 1.8e-7, the same on Inductor's CPU backend, within
    torch.testing's float32 atol.)"""
    p = [torch.randn(10, device="ocl", requires_grad=True) for _ in range(3)]
    pc = [q.detach().cpu().requires_grad_() for q in p]
    for q, r in zip(p, pc):
        q.grad = torch.randn(10, device="ocl")
        r.grad = q.grad.cpu()
    opt, opt_cpu = torch.optim.Adam(p, lr=0.1), torch.optim.Adam(pc, lr=0.1)
    step = torch.compile(opt.step)
    for _ in range(2):
        step()
        opt_cpu.step()
    for q, r in zip(p, pc):
        assert_matches_cpu(q.detach(), r.detach())


def test_gpt_trains_as_eager():
    """The GPT-style test model: compiled forward + backward (AOTAutograd) with
    AdamW gives eager's losses step for step."""
    from torch_ocl.testing.models import SPECS, batches, build, step

    spec = SPECS["gpt"]
    data = [(x.to("ocl"), y.to("ocl")) for x, y in batches(spec, 3)]
    losses = {}
    for mode in ("eager", "compiled"):
        torch._dynamo.reset()
        model, opt = build(spec, "ocl")
        m = torch.compile(model) if mode == "compiled" else model
        losses[mode] = [step(spec, m, opt, b).item() for b in data]
    assert losses["compiled"] == pytest.approx(losses["eager"], rel=1e-5, abs=1e-6)


def test_reflection_pad_nested_abs_indexing():
    """Reflect padding indexes with nested abs(): OpenCL's integer abs is
    unsigned, so the generated index must cast it back (it read out of
    bounds and gave wrong values)."""
    x = torch.randn(2, 3, 5)
    for pad in [(1, 2), (2, 2), (4, 1)]:
        f = torch.compile(lambda a: F.pad(a, pad, mode="reflect") * 1.5)
        assert_matches_cpu(f(x.to("ocl")), F.pad(x, pad, mode="reflect") * 1.5)
        torch._dynamo.reset()
    ints = torch.randint(-9, 9, (50,))
    assert_matches_cpu(torch.compile(lambda a: a.abs() * 2 - 3)(ints.to("ocl")), ints.abs() * 2 - 3)


def test_random_ops_are_generated():
    # Inductor's rand / randn / randint64 (dropout, rand_like in a compiled
    # graph) are Philox draws in the generated OpenCL (was NotImplementedError)
    def f(x):
        return F.dropout(x * 2, 0.5, training=True) + torch.rand_like(x), torch.randn_like(x), \
            torch.randint(3, 10, x.shape, device=x.device)

    torch.manual_seed(0)
    x = torch.ones(1 << 16, device="ocl")
    (y, n, i), (code,) = run_and_get_code(torch.compile(f), x)
    assert "ocl_rand(" in code and "ocl_randn(" in code and "ocl_randint64(" in code
    y, n, i = y.cpu(), n.cpu(), i.cpu()
    kept = y >= 2  # dropout keeps 4 (scaled by 2), drops 0; plus a uniform in [0, 1)
    assert abs(kept.float().mean().item() - 0.5) < 0.02
    assert ((y - 4 * kept) >= 0).all() and ((y - 4 * kept) < 1).all()
    assert abs(n.mean().item()) < 0.03 and abs(n.std().item() - 1) < 0.03
    assert i.min().item() == 3 and i.max().item() == 9
    # a second call draws new numbers (a new seed from the ocl generator)
    assert not torch.equal(torch.compile(f)(x)[1].cpu(), n)
    # and a model with dropout trains compiled
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Dropout(0.1), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    m = m.to("ocl")
    opt = torch.optim.SGD(m.parameters(), 0.05)
    step = torch.compile(lambda a, b: ((m(a) - b) ** 2).mean())
    a = torch.randn(64, 8, device="ocl")
    b = a.sum(1, keepdim=True)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = step(a, b)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_rng_state_calls_in_compiled_code_run_eagerly():
    # freeze_rng_state (OpInfo's wrapper_set_seed) reads and restores torch.ocl's RNG state
    # inside no_dispatch(); Dynamo must not trace torch.ocl (as it does not trace torch.cuda),
    # or the resumed frame fakeifies the state tensor there and raises.
    from torch.testing._internal.common_utils import freeze_rng_state

    def f(x):
        with freeze_rng_state():
            torch.manual_seed(42)
            return x * 2

    x = torch.randn(5, device="ocl")
    torch.testing.assert_close(torch.compile(f)(x).cpu(), x.cpu() * 2)


def test_reduction_of_a_constant_runs_over_the_whole_range():
    # A reduction whose value reads no element (the sum of ones, the zero gradient of a
    # rounding division) must still loop over the reduced range: it once summed one
    # element (int64: [1, 0, 0, ...] instead of 300) or did not build (float).
    x = torch.randn(7, 300, device="ocl")
    for fn in (lambda x: torch.ones_like(x).sum(1), lambda x: torch.ones_like(x, dtype=torch.int64).sum(1),
               lambda x: torch.full_like(x, 3).amax(1) + torch.ones_like(x).cumsum(1)[:, -1]):
        torch.testing.assert_close(torch.compile(fn)(x).cpu(), fn(x.cpu()))
    a = torch.randn(5, device="ocl", requires_grad=True)
    b = torch.randn((), device="ocl", requires_grad=True)
    torch.compile(lambda a, b: torch.div(a, b, rounding_mode="trunc"))(a, b).sum().backward()
    assert torch.equal(b.grad.cpu(), torch.tensor(0.0)) and torch.equal(a.grad.cpu(), torch.zeros(5))


def test_special_functions_run_eagerly_inside_compiled_graphs():
    # The generator writes no OpenCL for Inductor's ops.digamma / i0 / erfinv / Bessel
    # functions ...: on ocl they become extern calls of the eager ocl kernels (one warning
    # per op), forward and backward, instead of raising NotImplementedError at compile time.
    x = (torch.rand(6, 5) + 0.5).requires_grad_()
    fn = lambda x: (torch.special.digamma(x) * torch.special.i0(x) + torch.erfinv(x / 4)
                    + torch.special.bessel_j0(x) + torch.lgamma(x)).sum()  # noqa: E731
    expected = fn(x)
    expected.backward()
    xo = x.detach().to("ocl").requires_grad_()
    torch_ocl._compile.EAGER_WARNED.clear()
    # (a graph from Inductor's cache is not lowered again: no warning then)
    with torch._inductor.config.patch(fx_graph_cache=False), \
            pytest.warns(UserWarning, match="runs as its eager ocl kernel"):
        actual = torch.compile(fn)(xo)
    actual.backward()
    torch.testing.assert_close(actual.detach().cpu(), expected.detach(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(xo.grad.cpu(), x.grad, rtol=1e-4, atol=1e-5)


def test_generated_kernel_launch_arguments():
    # One C++ call per launch: ints are int64 sizes, a CPU input scalar is copied in, a CPU
    # output is refused with the kernel's name.
    from torch_ocl import _inductor

    src = _inductor._prelude(False, False) + (
        "__kernel void scale_k(__global char* o, ulong oo, __global char* a, ulong ao, __global char* s, ulong so,"
        " long n) { const long i = get_global_id(0); if (i < n) PTR(float, o, oo)[i] ="
        " PTR(float, a, ao)[i] * PTR(float, s, so)[0]; }")
    k = _inductor.GeneratedKernel("scale_k", src)
    a, out = torch.arange(5.0, device="ocl"), torch.empty(5, device="ocl")
    k.run(5, [out, a, torch.tensor(3.0), 5], outputs=1)
    assert out.cpu().tolist() == [0.0, 3.0, 6.0, 9.0, 12.0]
    with pytest.raises(RuntimeError, match="scale_k: output 0 is a CPU tensor"):
        k.run(5, [torch.empty(5), a, torch.tensor(3.0), 5], outputs=1)


def test_fma_is_generated():
    # prims.fma (decompositions of addcmul / lerp in optimizer and model code) is written as
    # OpenCL's fma, not sent to the eager fallback of the special functions.
    x, y, z = (torch.randn(100, device="ocl") for _ in range(3))
    fn = lambda x, y, z: torch.ops.prims.fma(x, y, z) + torch.lerp(x, y, 0.3)  # noqa: E731
    code = run_and_get_code(torch.compile(fn), x, y, z)[1][0]
    assert "fma(" in code
    torch.testing.assert_close(torch.compile(fn)(x, y, z).cpu(), x.cpu() * y.cpu() + z.cpu() + torch.lerp(x.cpu(), y.cpu(), 0.3))


def _rnn_loss(mod, x):
    out, state = mod(x)
    hidden = state if isinstance(state, torch.Tensor) else sum(s.sum() for s in state)
    return out.sum() + hidden.sum() * 2


@pytest.mark.parametrize("cls", [torch.nn.LSTM, torch.nn.GRU, torch.nn.RNN], ids=["lstm", "gru", "rnn"])
def test_rnn_modules_on_ocl_are_traced(cls, monkeypatch):
    """Dynamo graph-breaks at nn.RNN/GRU/LSTM on every device unless
    allow_rnn is set; modules whose parameters are on ocl are traced (one
    graph), others keep Dynamo's default, and TORCH_OCL_COMPILE_RNN=0
    restores the break on ocl."""
    m = cls(4, 5, num_layers=2, batch_first=True, bidirectional=True)
    x = torch.randn(2, 3, 4)
    on_cpu = torch._dynamo.explain(_rnn_loss)(m, x)
    assert on_cpu.graph_count == 0  # Dynamo's default: the RNN runs eagerly
    m_ocl = cls(4, 5, num_layers=2, batch_first=True, bidirectional=True).to("ocl")
    traced = torch._dynamo.explain(_rnn_loss)(m_ocl, x.to("ocl"))
    assert (traced.graph_count, traced.graph_break_count) == (1, 0)
    torch._dynamo.reset()
    monkeypatch.setenv("TORCH_OCL_COMPILE_RNN", "0")
    assert torch._dynamo.explain(_rnn_loss)(m_ocl, x.to("ocl")).graph_count == 0


def test_compiled_lstm_matches_cpu_forward_and_backward():
    """The traced LSTM (cells unrolled into the graph, one fused kernel per
    cell and direction) gives the CPU's loss and gradients."""
    torch.manual_seed(0)
    m = torch.nn.LSTM(6, 8, num_layers=2, batch_first=True, bidirectional=True)
    x = torch.randn(3, 4, 6)
    m_ocl = type(m)(6, 8, num_layers=2, batch_first=True, bidirectional=True)
    m_ocl.load_state_dict(m.state_dict())
    m_ocl.to("ocl")
    got = torch.compile(_rnn_loss)(m_ocl, x.to("ocl"))
    got.backward()
    expected = _rnn_loss(m, x)
    expected.backward()
    assert_matches_cpu(got.detach(), expected.detach(), rtol=1e-5, atol=1e-4)
    for p, q in zip(m_ocl.parameters(), m.parameters()):
        assert_matches_cpu(p.grad, q.grad, rtol=1e-4, atol=1e-5)


def _packed_lstm_loss(mod, x):
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    out, _ = mod(pack_padded_sequence(x, torch.tensor([5, 4, 2, 1]), batch_first=True))
    return pad_packed_sequence(out, batch_first=True)[0].sum()


RNN_VARIANTS = [
    ("lstm_proj_size", lambda: torch.nn.LSTM(3, 6, proj_size=2, batch_first=True), lambda m, x: m(x)[0].sum()),
    ("gru_h0_seq_first", lambda: torch.nn.GRU(3, 6, num_layers=2),
     lambda m, x: m(x, torch.ones(2, 5, 6, device=x.device))[0].sum()),
    ("lstm_packed_sequence", lambda: torch.nn.LSTM(3, 6, batch_first=True), _packed_lstm_loss),
]


@pytest.mark.parametrize("name,make,loss", RNN_VARIANTS, ids=[c[0] for c in RNN_VARIANTS])
def test_traced_rnn_variants_match_cpu(name, make, loss):
    torch.manual_seed(0)
    m, x = make(), torch.randn(4, 5, 3)
    m_ocl = make()
    m_ocl.load_state_dict(m.state_dict())
    assert_matches_cpu(torch.compile(loss)(m_ocl.to("ocl"), x.to("ocl")), loss(m, x), rtol=1e-5, atol=1e-4)
