"""torch.optim on ocl against PyTorch CPU: SGD (momentum, nesterov), Adam,
AdamW with fused=True (_fused_sgd_ / _fused_adam_ / _fused_adamw_,
kernels/optim_ops.cpp, kernels/optim.cl), and the default foreach and
for-loop implementations (per-tensor ops, all native).

Every test runs under fallback_mode('error') (an op without a native kernel
raises).
"""

import pytest
import torch
from torch.testing import assert_close

from dtype_lists import FLOATS, dname

from tolerances import OPTIM as TOL  # noqa: E402 (one table per family, tests/python/tolerances.py)

SHAPES = [(5, 3), (7,), (), (2, 3, 4), (0, 3), (100_003,)]


@pytest.fixture(autouse=True)
def _strict(strict):
    yield


def make_params(dtype, device):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(s, generator=g, dtype=torch.float64).to(dtype).to(device).requires_grad_() for s in SHAPES]


def train(opt_name, kwargs, dtype, device, steps=3):
    params = make_params(dtype, device)
    opt = getattr(torch.optim, opt_name)(params, **kwargs)
    g = torch.Generator().manual_seed(1)
    for _ in range(steps):
        for p in params:
            p.grad = torch.randn(p.shape, generator=g, dtype=torch.float64).to(dtype).to(device)
        opt.step()
    state = [{k: v for k, v in opt.state[p].items() if torch.is_tensor(v)} for p in params]
    return [p.detach() for p in params], state


def compare(opt_name, kwargs, dtype=torch.float32, cpu_kwargs=None, tol=None):
    got, got_state = train(opt_name, kwargs, dtype, "ocl")
    exp, exp_state = train(opt_name, cpu_kwargs if cpu_kwargs is not None else kwargs, dtype, "cpu")
    for i, (g, e) in enumerate(zip(got, exp)):
        assert g.device.type == "ocl"
        assert_close(g.cpu(), e, msg=lambda m: f"param {i}: {m}", **(tol or TOL[dtype]))
    for i, (gs, es) in enumerate(zip(got_state, exp_state)):
        assert gs.keys() == es.keys()
        for k in es:
            assert_close(gs[k].cpu().to(es[k].dtype), es[k], msg=lambda m: f"state {i} {k}: {m}",
                         **(tol or TOL[dtype]))


SGD_CONFIGS = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01),
    dict(lr=0.05, momentum=0.5, dampening=0.3, maximize=True),
]
ADAM_CONFIGS = [
    dict(lr=1e-2),
    dict(lr=1e-2, weight_decay=0.1),
    dict(lr=1e-2, amsgrad=True, betas=(0.8, 0.95)),
    dict(lr=1e-2, maximize=True, weight_decay=0.05, eps=1e-6),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
@pytest.mark.parametrize("cfg", range(len(SGD_CONFIGS)))
def test_fused_sgd(cfg, dtype):
    # The CPU's fused SGD skips the parameter update in its vectorised half /
    # bfloat16 loop (torch 2.13: params stay unchanged); those dtypes are
    # compared with the CPU's for-loop SGD instead.
    # (which rounds every intermediate to the half type: a looser tolerance).
    if dtype in (torch.float32, torch.float64):
        compare("SGD", dict(SGD_CONFIGS[cfg], fused=True), dtype)
    else:
        tol = dict(rtol=1e-2, atol=1e-2) if dtype == torch.float16 else dict(rtol=5e-2, atol=5e-2)
        compare("SGD", dict(SGD_CONFIGS[cfg], fused=True), dtype, cpu_kwargs=dict(SGD_CONFIGS[cfg], foreach=False),
                tol=tol)


@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
@pytest.mark.parametrize("cfg", range(len(ADAM_CONFIGS)))
@pytest.mark.parametrize("opt", ["Adam", "AdamW"])
def test_fused_adam(opt, cfg, dtype):
    compare(opt, dict(ADAM_CONFIGS[cfg], fused=True), dtype)


@pytest.mark.parametrize("impl", [dict(), dict(foreach=False), dict(foreach=True)], ids=["default", "loop", "foreach"])
@pytest.mark.parametrize("opt,cfg", [("SGD", SGD_CONFIGS[2]), ("Adam", ADAM_CONFIGS[2]), ("AdamW", ADAM_CONFIGS[3])])
def test_unfused_implementations(opt, cfg, impl):
    """The default (foreach on ocl), foreach and for-loop paths are native and
    match the CPU's for-loop."""
    compare(opt, dict(cfg, **impl), cpu_kwargs=dict(cfg, foreach=False))


@pytest.mark.parametrize("lr_device", ["cpu", "ocl"])
@pytest.mark.parametrize("opt", ["SGD", "Adam", "AdamW"])
def test_fused_tensor_lr(opt, lr_device):
    cfg = dict(momentum=0.9) if opt == "SGD" else dict(weight_decay=0.1)
    got, _ = train(opt, dict(cfg, lr=torch.tensor(0.01, device=lr_device), fused=True), torch.float32, "ocl")
    exp, _ = train(opt, dict(cfg, lr=torch.tensor(0.01), fused=True), torch.float32, "cpu")
    assert_close([g.cpu() for g in got], exp, **TOL[torch.float32])


def op_args(kind, dtype, device, noncontiguous=False):
    g = torch.Generator().manual_seed(3)

    def t(shape=(6, 4), positive=False):
        x = torch.randn(shape, generator=g, dtype=torch.float64)
        x = (x.abs() if positive else x).to(dtype).to(device)
        return x.t().contiguous().t() if noncontiguous and x.dim() == 2 else x

    n = 3
    if kind == "sgd":
        return [t() for _ in range(n)], [t() for _ in range(n)], [t() for _ in range(n)]
    steps = [torch.tensor(float(k + 2), device=device) for k in range(n)]
    return ([t() for _ in range(n)], [t() for _ in range(n)], [t() for _ in range(n)],
            [t(positive=True) for _ in range(n)], [t(positive=True) for _ in range(n)], steps)


@pytest.mark.parametrize("found", [0.0, 1.0])
@pytest.mark.parametrize("kind", ["sgd", "adam", "adamw"])
@pytest.mark.parametrize("noncontiguous", [False, True])
def test_fused_ops_grad_scale_found_inf(kind, found, noncontiguous):
    """The ops called directly, with grad_scale / found_inf (GradScaler's
    unscale-and-skip) and non-contiguous state, against the CPU's ops."""
    results = []
    for device in ("cpu", "ocl"):
        args = op_args(kind, torch.float32, device, noncontiguous)
        extra = dict(grad_scale=torch.tensor(4.0, device=device), found_inf=torch.tensor(found, device=device))
        if kind == "sgd":
            torch._fused_sgd_(*args, weight_decay=0.01, momentum=0.9, lr=0.1, dampening=0.0, nesterov=True,
                              maximize=False, is_first_step=False, **extra)
        else:
            getattr(torch, f"_fused_{kind}_")(*args, lr=0.01, beta1=0.9, beta2=0.99, weight_decay=0.1, eps=1e-8,
                                              amsgrad=True, maximize=False, **extra)
        results.append([[x.cpu() for x in lst] for lst in args])
    assert_close(results[1], results[0], **TOL[torch.float32])
    if found == 1.0:
        untouched = op_args(kind, torch.float32, "cpu", noncontiguous)
        assert_close(results[1], [list(lst) for lst in untouched], rtol=0, atol=0)


def test_fused_sgd_first_step():
    results = []
    for device in ("cpu", "ocl"):
        p, g, b = op_args("sgd", torch.float64, device)
        torch._fused_sgd_(p, g, b, weight_decay=0.0, momentum=0.9, lr=0.1, dampening=0.5, nesterov=False,
                          maximize=False, is_first_step=True)
        results.append([[x.cpu() for x in lst] for lst in (p, g, b)])
    assert_close(results[1], results[0])


def test_fused_errors():
    """The CPU's list checks, with its messages."""
    def message(device, call):
        with pytest.raises(RuntimeError) as info:
            call(device)
        return str(info.value)

    sgd = dict(weight_decay=0.0, lr=0.1, dampening=0.0, nesterov=False, maximize=False, is_first_step=False)
    adam = dict(lr=0.01, beta1=0.9, beta2=0.99, weight_decay=0.0, eps=1e-8, maximize=False)
    calls = [
        lambda d: torch._fused_sgd_(*(lambda p, g, b: (p, g[:2], b))(*op_args("sgd", torch.float32, d)),
                                    momentum=0.9, **sgd),
        lambda d: torch._fused_sgd_(*op_args("sgd", torch.float32, d), momentum=0.0, **sgd),
        lambda d: torch._fused_adam_(*op_args("adam", torch.float32, d), amsgrad=False, **adam),
        lambda d: torch._fused_adamw_(*(lambda p, g, m, v, vm, s: (p, g, m[:1], v, vm, s))(
            *op_args("adam", torch.float32, d)), amsgrad=True, **adam),
    ]
    for call in calls:
        assert message("ocl", call) == message("cpu", call)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        p = [torch.ones(3, dtype=torch.long, device="ocl")]
        torch._fused_sgd_(p, p, [], momentum=0.0, **sgd)


def test_fused_step_does_not_synchronise_on_step_tensors():
    """The Adam step count lives on the device (torch.optim keeps it there for
    fused=True) and the kernel reads it there: several steps, then compare."""
    params = make_params(torch.float32, "ocl")
    opt = torch.optim.Adam(params, lr=0.01, fused=True)
    for p in params:
        p.grad = torch.ones_like(p)
    opt.step()
    assert all(opt.state[p]["step"].device.type == "ocl" for p in params)


@pytest.mark.parametrize("impl", [dict(), dict(fused=True)], ids=["foreach", "fused"])
@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_grad_scaler(opt_name, impl):
    """torch.amp.GradScaler('ocl'): _amp_foreach_non_finite_check_and_unscale_
    and _amp_update_scale_ native (kernels/amp_ops.cpp); a step with an inf
    gradient is skipped and the scale backs off, as on the CPU."""
    results = {}
    for device in ("cpu", "ocl"):
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 3).to(device)
        opt = getattr(torch.optim, opt_name)(model.parameters(), lr=0.1, **impl)
        scaler = torch.amp.GradScaler(device, init_scale=2.0**10, growth_interval=2)
        g = torch.Generator().manual_seed(5)
        trace = []
        for i in range(5):
            x = torch.randn(3, 4, generator=g)
            if i == 2:
                x[0, 0] = float("inf")
            loss = model(x.to(device)).sum()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            trace.append((scaler.get_scale(), scaler._growth_tracker.item(), model.weight.detach().cpu().clone()))
        results[device] = trace
    for (s_c, t_c, w_c), (s_o, t_o, w_o) in zip(results["cpu"], results["ocl"]):
        assert (s_o, t_o) == (s_c, t_c)
        assert_close(w_o, w_c, **TOL[torch.float32])
    assert results["cpu"][2][0] < results["cpu"][1][0]  # the inf step backed off


def test_amp_ops_errors():
    for device in ("cpu", "ocl"):
        with pytest.raises(RuntimeError, match="found_inf must be a float tensor"):
            torch._amp_foreach_non_finite_check_and_unscale_([torch.ones(2, device=device)],
                                                             torch.zeros(1, dtype=torch.double, device=device),
                                                             torch.ones(1, device=device))
        with pytest.raises(RuntimeError, match="growth_tracker must be an int tensor"):
            torch._amp_update_scale_(torch.ones(1, device=device), torch.zeros(1, device=device),
                                     torch.zeros(1, device=device), 2.0, 0.5, 2)
