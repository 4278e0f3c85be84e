"""Small vector ops, native, against the CPU: linalg.cross (ATen's structured
op over ocl's cross kernel), torch.equal (as CUDA's: eq, all, one sync) and
renorm (ATen's structured op over ocl's scale-factor kernel)."""

import pytest
import torch

from cpu_reference import run_both

pytestmark = pytest.mark.usefixtures("strict")


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.complex64, torch.bool])
def test_cross_broadcast_and_dims(dtype):
    g = torch.Generator().manual_seed(0)
    a = (torch.randn(4, 3, 5, generator=g) * 4).to(dtype)
    b = (torch.randn(1, 3, 5, generator=g) * 4).to(dtype)
    run_both(lambda a, b: torch.linalg.cross(a, b, dim=1), a, b, same_message=True)
    run_both(lambda a, b: torch.cross(a, b, dim=-2), a.transpose(0, 2), b.transpose(0, 2), same_message=True)


def test_cross_gradients_and_errors():
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(2, 3, generator=g), torch.randn(2, 3, generator=g)

    def grads(a, b):
        a, b = a.clone().requires_grad_(), b.clone().requires_grad_()
        torch.linalg.cross(a, b).pow(2).sum().backward()
        return a.grad, b.grad

    run_both(grads, a, b)
    run_both(lambda a, b: torch.linalg.cross(a, b), torch.randn(2, 4), torch.randn(2, 4), same_message=True)
    run_both(lambda a: torch.linalg.cross(a, a[:, [1, 2, 0]], out=a), a.clone(), same_message=True)  # overlap


@pytest.mark.parametrize("case", ["same", "different", "nan", "shape", "empty", "promoted", "strided"])
def test_equal(case):
    x = torch.arange(6.0).view(2, 3)
    y = {"same": x.clone(), "different": x + (torch.arange(6).view(2, 3) == 4), "nan": x, "shape": x.view(3, 2),
         "empty": x[:0], "promoted": x.long(), "strided": x.t().contiguous().t()}[case]
    if case == "nan":
        x = y = torch.tensor([1.0, float("nan")])
    if case == "empty":
        x = x[:0]
    run_both(torch.equal, x, y)


@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 1.0), (1, 1, 2.0), (float("inf"), 2, 0.5), (3, -1, 100.0)])
def test_renorm(p, dim, maxnorm):
    g = torch.Generator().manual_seed(2)
    x = torch.randn(4, 5, 3, generator=g) * 3

    def forward_backward(x):
        x = x.clone().requires_grad_()
        y = torch.renorm(x, p, dim, maxnorm)
        y.pow(2).sum().backward()
        return y, x.grad

    run_both(forward_backward, x)
    run_both(lambda x: x.clone().renorm_(p, dim, maxnorm), x.transpose(0, 2))
    run_both(lambda x: torch.renorm(x, p, dim, maxnorm), x.long(), same_message=True)  # integers refused


def distance_grads(fn):
    def run(*xs):
        xs = [x.clone().requires_grad_() for x in xs]
        y = fn(*xs)
        y.pow(2).sum().backward()
        return (y, *[x.grad for x in xs])
    return run


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
def test_cdist_pdist(p):
    # ATen's _cdist_* / _pdist_* over ocl's kernels (kernels/distance.cl); p = 2
    # with more than 25 rows takes ATen's matrix-product path
    g = torch.Generator().manual_seed(4)
    a, b = torch.randn(3, 1, 5, 4, generator=g), torch.randn(2, 6, 4, generator=g)
    tol = dict(rtol=1e-4, atol=1e-3 if p < 1 else 1e-4)  # p < 1 amplifies rounding (|d|^(p-1))
    run_both(distance_grads(lambda a, b: torch.cdist(a, b, p=p, compute_mode="donot_use_mm_for_euclid_dist")),
             a, b, **tol)
    run_both(distance_grads(lambda a, b: torch.cdist(a, b, p=p)), torch.randn(30, 4, generator=g),
             torch.randn(27, 4, generator=g), **tol)
    run_both(distance_grads(lambda a: torch.pdist(a, p=p)), torch.randn(6, 3, generator=g).double(),
             rtol=1e-10, atol=1e-10)


def test_distance_edge_cases():
    run_both(lambda a, b: torch.cdist(a, b), torch.randn(2, 0, 3), torch.randn(2, 4, 3))  # no rows
    run_both(lambda a, b: torch.cdist(a, b, p=1), torch.randn(2, 3, 0), torch.randn(2, 4, 0))  # no columns
    run_both(lambda a: torch.pdist(a), torch.randn(1, 3))  # no pairs
    run_both(lambda a, b: torch.cdist(a, b), torch.randn(3, 4).long(), torch.randn(3, 4).long(), same_message=True)
    run_both(lambda a, b: torch.cdist(a, b), torch.randn(3, 4).half(), torch.randn(3, 4).half(), same_message=True)
    run_both(lambda a: torch.pdist(a), torch.randn(3, 4).bfloat16(), same_message=True)
