"""A user OpenCL kernel as a PyTorch op on ocl tensors.

    PYTHONPATH=plugin_api/python python examples/user_kernel.py
"""

import torch

import torch_ocl

SOURCE = r"""
__kernel void swish(__global const float* x, __global float* y, float beta, long n) {
  long i = get_global_id(0);
  if (i < n) y[i] = x[i] / (1.0f + exp(-beta * x[i]));
}
"""


def setup_context(ctx, inputs, output):
    x, beta, _ = inputs
    ctx.save_for_backward(x)
    ctx.beta = beta


def backward(ctx, grad):
    (x,) = ctx.saved_tensors
    s = torch.sigmoid(ctx.beta * x)
    return grad * (s + ctx.beta * x * s * (1 - s)), None, None


# An op: inputs are the kernel's other parameters (x, beta, n); y is allocated like x.
swish = torch_ocl.kernel(SOURCE, "swish", outputs={"y": "x"}, backward=backward, setup_context=setup_context)

x = torch.randn(1000, device="ocl", requires_grad=True)
y = swish(x, 1.5, x.numel())
y.sum().backward()
ref = x.detach().cpu() * torch.sigmoid(1.5 * x.detach().cpu())
print("max |y - ref| =", (y.detach().cpu() - ref).abs().max().item())

# Under torch.compile (aot_eager): traced through the op's fake implementation.
f = torch.compile(lambda t: swish(t, 1.5, t.numel()) * 2, backend="aot_eager", fullgraph=True)
print("compiled ok:", torch.allclose(f(x.detach()).cpu(), 2 * ref, atol=1e-5))

# The raw kernel, launched by hand on the current stream.
k = torch_ocl.Kernel(SOURCE, "swish")
out = torch.empty(1000, device="ocl")
k(1000, x.detach(), out, 1.5, 1000)
print("launch ok:", torch.allclose(out.cpu(), ref, atol=1e-5))
