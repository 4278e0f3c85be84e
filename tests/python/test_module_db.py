"""Every module of PyTorch's module_db on ocl against the CPU, natively.

The CI-sized counterpart of upstream test/test_modules.py (which
`python -m torch_ocl.testing.run_upstream` runs whole, see README): for each
ModuleInfo, its first float32 inputs from module_inputs_func, the module built
on the CPU and copied to ocl (same weights), then

- forward: outputs equal the CPU's;
- backward: the same output gradients give the CPU's input and parameter
  gradients;
- non-contiguous inputs (every tensor made a stride-2 view, as
  test_modules.py test_non_contiguous_tensors does): the same results;
- channels-last inputs of 4-d / 5-d modules: results in channels-last where
  the CPU's are.

Under TORCH_OCL_FALLBACK=error (the strict fixture): a module that needs the
CPU fallback fails here.
"""

import copy

import pytest
import torch
from torch.testing._internal.common_modules import module_db
from torch.utils._pytree import tree_flatten, tree_map

# Modules whose outputs are random draws (the device's generator is not the CPU's).
RANDOM = {"FractionalMaxPool2d", "FractionalMaxPool3d", "RReLU", "Dropout", "Dropout1d", "Dropout2d",
          "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"}
from tolerances import MODULE_DB as TOL  # noqa: E402 (one table per family, tests/python/tolerances.py)


@pytest.fixture(autouse=True)
def _strict(strict):
    yield


def infos():
    return [m for m in module_db if torch.float32 in m.dtypes and m.module_cls.__name__ not in RANDOM]


def first_input(info):
    inputs = info.module_inputs_func(info, device="cpu", dtype=torch.float32, requires_grad=True, training=True)
    for mi in inputs:
        if mi.forward_input is not None:
            return mi
    pytest.skip("no forward input")


def every_other(t):
    if not isinstance(t, torch.Tensor) or t.dim() == 0:
        return t
    out = torch.repeat_interleave(t.detach(), 2, dim=-1)[..., ::2]
    return out.requires_grad_(t.requires_grad)


def channels_last(t):
    if isinstance(t, torch.Tensor) and t.dim() in (4, 5):
        fmt = torch.channels_last if t.dim() == 4 else torch.channels_last_3d
        return t.detach().contiguous(memory_format=fmt).requires_grad_(t.requires_grad)
    return t


def run(module, args, kwargs, device, layout):
    """Outputs, input gradients and parameter gradients of one forward + backward."""
    def move(t):
        if not isinstance(t, torch.Tensor):
            return t
        return layout(t.detach().to(device)).requires_grad_(t.requires_grad)

    args, kwargs = tree_map(move, (args, kwargs))
    out = module(*args, **kwargs)
    outs = [o for o in tree_flatten(out)[0] if isinstance(o, torch.Tensor)]
    diff = [o for o in outs if o.requires_grad]
    inputs = [t for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor) and t.requires_grad]
    params = [p for p in module.parameters() if p.requires_grad]
    grads = []
    if diff:
        g_outs = [layout((0.5 + torch.arange(o.numel()).reshape(o.shape) % 3).to(o.dtype).to(device)) for o in diff]
        grads = torch.autograd.grad(diff, inputs + params, g_outs, allow_unused=True)
    return outs, list(grads)


def compare(info, layout):
    mi = first_input(info)
    torch.manual_seed(0)
    cpu = info.module_cls(*mi.constructor_input.args, **mi.constructor_input.kwargs)
    args, kwargs = mi.forward_input.args, mi.forward_input.kwargs
    if any(torch.nn.parameter.is_lazy(p) for p in cpu.parameters()):
        cpu(*args, **kwargs)  # lazy modules: materialise the weights once, then copy them
    dev = copy.deepcopy(cpu).to("ocl")
    cpu.train(True)
    dev.train(True)
    c_out, c_grads = run(cpu, args, kwargs, "cpu", layout)
    d_out, d_grads = run(dev, args, kwargs, "ocl", layout)
    assert len(c_out) == len(d_out)
    for c, d in zip(c_out, d_out):
        torch.testing.assert_close(d.cpu(), c, **TOL)
        if layout is channels_last and c.dim() in (4, 5):
            fmt = torch.channels_last if c.dim() == 4 else torch.channels_last_3d
            assert d.is_contiguous(memory_format=fmt) == c.is_contiguous(memory_format=fmt), info.name
    for c, d in zip(c_grads, d_grads):
        assert (c is None) == (d is None)
        if c is not None:
            torch.testing.assert_close(d.cpu(), c, **TOL)


@pytest.mark.parametrize("info", infos(), ids=lambda m: m.name)
def test_module_matches_cpu(info):
    compare(info, lambda t: t)


@pytest.mark.parametrize("info", infos(), ids=lambda m: m.name)
def test_module_with_non_contiguous_inputs(info):
    compare(info, every_other)


CHANNELS_LAST = [m for m in infos() if m.module_cls.__name__ in
                 {"Conv2d", "Conv3d", "ConvTranspose2d", "ConvTranspose3d", "BatchNorm2d", "BatchNorm3d",
                  "GroupNorm", "InstanceNorm2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
                  "AdaptiveMaxPool2d", "Upsample", "PixelShuffle", "ReflectionPad2d", "ReplicationPad2d"}]


@pytest.mark.parametrize("info", CHANNELS_LAST, ids=lambda m: m.name)
def test_module_with_channels_last_inputs(info):
    compare(info, channels_last)
