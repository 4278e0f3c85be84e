"""F.linear forward + backward on ocl: the registered path (whatever
`aten::linear` dispatches to on AutogradPrivateUse1) beside the same
product spelled as ATen's generic decomposition (`addmm(b, x, w.t())` on 2-d
inputs, reshape + addmm + view on 3-d), and beside PyTorch CPU, in one run.
It decided the fate of the `linear` override (issue 27: an override must not
cost an autograd feature and must be measured faster than the generic path).

  PYTHONPATH=plugin_api/python python bench/bench_linear.py
"""

import torch
import torch.nn.functional as F
import torch_ocl  # noqa: F401

from timing import best_time

SHAPES = [  # (input shape, out_features)
    ((32, 64), 64),
    ((256, 512), 512),
    ((8, 128, 256), 256),
]


def generic(x, w, b):
    x2 = x.reshape(-1, x.shape[-1])
    return torch.addmm(b, x2, w.t()).view(*x.shape[:-1], w.shape[0])


def step_fn(fn, x, w, b):
    def run():
        for t in (x, w, b):
            t.grad = None
        fn(x, w, b).sum().backward()
    return run


def main():
    print(f"{'input':>14} {'out':>5} | {'F.linear ms':>11} {'generic ms':>10} {'linear/generic':>14} | {'cpu ms':>7} {'ocl/cpu':>7}")
    for shape, out in SHAPES:
        times = {}
        for dev in ("ocl", "cpu"):
            g = torch.Generator().manual_seed(0)
            x = torch.randn(*shape, generator=g).to(dev).requires_grad_()
            w = torch.randn(out, shape[-1], generator=g).to(dev).requires_grad_()
            b = torch.randn(out, generator=g).to(dev).requires_grad_()
            sync = torch.ocl.synchronize if dev == "ocl" else (lambda: None)
            times[dev, "linear"] = best_time(step_fn(F.linear, x, w, b), sync).wall
            if dev == "ocl":
                times[dev, "generic"] = best_time(step_fn(generic, x, w, b), sync).wall
        lin, gen, cpu = times["ocl", "linear"], times["ocl", "generic"], times["cpu", "linear"]
        print(f"{str(shape):>14} {out:>5} | {lin * 1e3:11.3f} {gen * 1e3:10.3f} {lin / gen:14.2f} | {cpu * 1e3:7.3f} {lin / cpu:7.2f}")


if __name__ == "__main__":
    main()
