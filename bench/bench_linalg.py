"""Dense linear algebra on ocl (kernels/linalg.cl: one work group per
matrix) beside PyTorch CPU (LAPACK) on the same inputs, in one run: a batch
of small matrices (the models' case: many work groups, every compute unit
busy) and one large matrix (Cholesky, LU and QR blocked from order 256:
trailing updates as GEMMs; eigh and SVD on one work group; eig as LAPACK's
geev on one work item per matrix), float32, forward only.

  PYTHONPATH=plugin_api/python python bench/bench_linalg.py [--quick]
"""

import sys

import torch
import torch_ocl  # noqa: F401

from timing import best_time


def spd(*shape):
    a = torch.randn(*shape, generator=torch.Generator().manual_seed(0))
    return a @ a.mT + shape[-1] * torch.eye(shape[-1])


OPS = {  # name: (fn, input maker)
    "cholesky": (torch.linalg.cholesky, spd),
    "lu_factor": (torch.linalg.lu_factor, lambda *s: torch.randn(*s)),
    "solve": (lambda a: torch.linalg.solve(a, a[..., :1]), lambda *s: torch.randn(*s)),
    "qr": (torch.linalg.qr, lambda *s: torch.randn(*s)),
    "eigh": (torch.linalg.eigh, spd),
    "svd": (torch.linalg.svd, lambda *s: torch.randn(*s)),
    "eig": (torch.linalg.eig, lambda *s: torch.randn(*s)),  # general eigenproblem (kernels/eig.cl, one work item)
    "eigvals": (torch.linalg.eigvals, lambda *s: torch.randn(*s)),
}
SHAPES = [(256, 32, 32), (1024, 1024)]
# Jacobi sweeps on one work group / Hessenberg QR on one work item: the largest single matrix timed
LARGE_LIMIT = {"eigh": 256, "svd": 256, "eig": 128, "eigvals": 128}


def main():
    quick = "--quick" in sys.argv
    print(f"{'op':>10} {'shape':>16} | {'ocl ms':>10} {'cpu ms':>10} {'ocl/cpu':>8}")
    for name, (fn, make) in OPS.items():
        for shape in SHAPES:
            if len(shape) == 2:
                n = min(shape[0], LARGE_LIMIT.get(name, shape[0]), 256 if quick else shape[0])
                shape = (n, n)
            x = make(*shape)
            xo = x.to("ocl")
            with torch.ocl.fallback_mode("error"):  # what is timed is native
                fn(xo)
            ocl = best_time(lambda: fn(xo), torch.ocl.synchronize, loop_s=0.3, loops=2).wall
            cpu = best_time(lambda: fn(x), lambda: None, loop_s=0.3, loops=2).wall
            print(f"{name:>10} {'x'.join(map(str, shape)):>16} | {ocl * 1e3:10.3f} {cpu * 1e3:10.3f} {ocl / cpu:8.2f}")


if __name__ == "__main__":
    main()
