"""Module conversion keeps identity, as on CUDA (DESIGN.md decision 13,
backend/shallow_copy.cpp): after `model.to("ocl")` every Parameter is the
object it was (buffers are replaced, as on CUDA), tied weights stay tied, `.grad` moves with its
Parameter, optimizers built before the move keep working, `param.data = t`
crosses devices, and deepcopy / load_state_dict(assign=True) / to_empty /
swap_tensors / lazy modules behave as they do on CUDA."""

import copy

import pytest
import torch
import torch.nn as nn
from torch.testing import assert_close


class TiedLM(nn.Module):
    """The shape of a language model with tied embeddings (GPT-2, Gemma, OPT,
    BART, Whisper): the LM head's weight is the token embedding."""

    def __init__(self, vocab=11, dim=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, ids):
        return self.head(self.norm(self.emb(ids)))


def make_tied(seed=0):
    torch.manual_seed(seed)
    return TiedLM()


def test_compatible_shallow_copy_type_answers():
    cpu, ocl = torch.randn(2), torch.randn(2, device="ocl")
    assert torch._has_compatible_shallow_copy_type(cpu, ocl)
    assert torch._has_compatible_shallow_copy_type(ocl, cpu)
    assert torch._has_compatible_shallow_copy_type(ocl, ocl.double())
    # c10's other rules stand: meta and sparse tensors are not dense.
    assert not torch._has_compatible_shallow_copy_type(ocl, torch.empty(2, device="meta"))
    assert not torch._has_compatible_shallow_copy_type(ocl, torch.randn(2).to_sparse())
    # CPU-only calls never reach the ocl kernel: their answers are c10's.
    assert torch._has_compatible_shallow_copy_type(cpu, cpu.double())
    assert not torch._has_compatible_shallow_copy_type(cpu, torch.empty(2, device="meta"))


@pytest.mark.parametrize("move", ["to", "ocl", "to_device_obj"])
def test_parameters_and_buffers_keep_identity(move):
    m = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))
    params, buffers = list(m.parameters()), list(m.buffers())
    values = [t.detach().clone() for t in params + buffers]
    moved = {"to": lambda: m.to("ocl"), "ocl": lambda: m.ocl(),
             "to_device_obj": lambda: m.to(torch.device("ocl", 0))}[move]()
    assert moved is m
    for before, after in zip(params, m.parameters()):
        assert before is after and after.device.type == "ocl"
    # Buffers are new objects, on CUDA too (Module._apply assigns fn(buf)).
    assert all(b.device.type == "ocl" for b in m.buffers())
    for t, v in zip(list(m.parameters()) + list(m.buffers()), values):
        assert_close(t.detach().cpu(), v)
    # and back, and across dtypes on the device
    m.double()
    m.cpu()
    assert all(a is b for a, b in zip(params, m.parameters()))
    assert all(p.device.type == "cpu" and p.dtype == torch.float64 for p in params)


def test_tied_weights_stay_tied_and_train_as_on_cpu():
    cpu, dev = make_tied(), make_tied()
    dev.to("ocl")
    assert dev.head.weight is dev.emb.weight
    assert len(list(dev.parameters())) == 3  # the tied weight counted once
    opt_c = torch.optim.AdamW(cpu.parameters(), lr=1e-2)
    opt_d = torch.optim.AdamW(dev.parameters(), lr=1e-2)
    ids = torch.randint(0, 11, (4, 5), generator=torch.Generator().manual_seed(1))
    for _ in range(3):
        for model, opt, x in ((cpu, opt_c, ids), (dev, opt_d, ids.to("ocl"))):
            opt.zero_grad()
            logits = model(x)
            nn.functional.cross_entropy(logits.flatten(0, 1), x.flatten()).backward()
            opt.step()
        assert_close(dev.emb.weight.detach().cpu(), cpu.emb.weight.detach(), rtol=1e-5, atol=1e-5)
    assert dev.head.weight is dev.emb.weight


def test_optimizer_built_before_the_move_keeps_working():
    cpu, dev = make_tied(), make_tied()
    opt_c = torch.optim.SGD(cpu.parameters(), lr=0.1, momentum=0.9)
    opt_d = torch.optim.SGD(dev.parameters(), lr=0.1, momentum=0.9)  # built on CPU
    dev.to("ocl")
    ids = torch.randint(0, 11, (3, 4), generator=torch.Generator().manual_seed(2))
    for _ in range(3):
        for model, opt, x in ((cpu, opt_c, ids), (dev, opt_d, ids.to("ocl"))):
            opt.zero_grad()
            model(x).square().mean().backward()
            opt.step()
    for a, b in zip(dev.parameters(), cpu.parameters()):
        assert a.device.type == "ocl"
        assert_close(a.detach().cpu(), b.detach(), rtol=1e-5, atol=1e-6)


def test_grad_moves_with_its_parameter():
    m = nn.Linear(3, 2)
    m(torch.randn(4, 3)).sum().backward()
    p, g = m.weight, m.weight.grad.clone()
    grad_obj = m.weight.grad
    m.to("ocl")
    assert m.weight is p and m.weight.grad is grad_obj
    assert p.grad.device.type == "ocl"
    assert_close(p.grad.cpu(), g)
    # gradients accumulate on the device after the move
    m(torch.randn(4, 3, device="ocl")).sum().backward()
    assert p.grad.device.type == "ocl"


def test_data_assignment_crosses_devices():
    p = nn.Parameter(torch.randn(3))
    p.data = torch.ones(3, device="ocl")
    assert p.device.type == "ocl" and isinstance(p, nn.Parameter)
    (p * 2).sum().backward()
    assert_close(p.grad.cpu(), torch.full((3,), 2.0))
    p.data = p.data.cpu()
    assert p.device.type == "cpu"
    with torch.inference_mode():
        q = torch.randn(2)
        q.data = torch.zeros(2, device="ocl")
        assert q.device.type == "ocl"


def test_deepcopy_keeps_ties():
    m = make_tied().to("ocl")
    c = copy.deepcopy(m)
    assert c.head.weight is c.emb.weight and c.emb.weight is not m.emb.weight
    assert c.emb.weight.device.type == "ocl"
    assert_close(c.emb.weight.detach().cpu(), m.emb.weight.detach().cpu())


def test_load_state_dict_assign_and_to_empty():
    src = make_tied()
    m = make_tied().to_empty(device="ocl")  # from the CPU: the tie holds
    assert m.head.weight is m.emb.weight and m.emb.weight.device.type == "ocl"
    with torch.device("meta"):
        m = TiedLM()
    # From meta, c10 has no shallow copy for CUDA either: new Parameters, as there.
    m.to_empty(device="ocl")
    assert all(p.device.type == "ocl" for p in m.parameters())
    with torch.device("meta"):
        m2 = TiedLM()
    sd = {k: v.to("ocl") for k, v in src.state_dict().items()}
    m2.load_state_dict(sd, assign=True)
    assert m2.emb.weight.device.type == "ocl" and isinstance(m2.emb.weight, nn.Parameter)
    assert_close(m2.norm.weight.detach().cpu(), src.norm.weight.detach())


def test_swap_tensors_and_the_swap_flag():
    a, b = nn.Parameter(torch.randn(3)), nn.Parameter(torch.randn(3, device="ocl"))
    va, vb = a.detach().clone(), b.detach().cpu()
    torch.utils.swap_tensors(a, b)
    assert a.device.type == "ocl" and b.device.type == "cpu"
    assert_close(a.detach().cpu(), vb) and assert_close(b.detach(), va)
    prev = torch.__future__.get_swap_module_params_on_conversion()
    torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        m = nn.Linear(3, 2)
        w = m.weight
        m.to("ocl")
        assert m.weight is w and w.device.type == "ocl"
    finally:
        torch.__future__.set_swap_module_params_on_conversion(prev)


@pytest.mark.parametrize("make, shape", [(lambda: nn.LazyConv2d(4, 3), (2, 3, 6, 6)),
                                         (lambda: nn.LazyLinear(5), (2, 7))], ids=["conv2d", "linear"])
def test_lazy_modules_moved_before_first_forward(strict, make, shape):
    torch.manual_seed(0)
    dev = make().to("ocl")
    x = torch.randn(*shape)
    y = dev(x.to("ocl"))
    assert dev.weight.device.type == "ocl" and not isinstance(dev.weight, nn.UninitializedParameter)
    ref = make()  # materialise with the same weights on the CPU
    ref(x)
    ref.load_state_dict({k: v.cpu() for k, v in dev.state_dict().items()})
    assert_close(y.cpu(), ref(x), rtol=1e-5, atol=1e-5)
