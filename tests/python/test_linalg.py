"""Dense linear algebra on the device (kernels/linalg.cl behind ATen's LAPACK
stubs), against the CPU's LAPACK: forward, backward, batches, broadcasting,
non-contiguous and empty inputs, rectangular LU, LAPACK's error semantics
(info, _ex variants, PyTorch's messages). Every test runs with the fallback
forbidden (strict)."""

import pytest
import torch

from cpu_reference import run_both

pytestmark = pytest.mark.usefixtures("strict")

LA_TOL = dict(rtol=1e-4, atol=1e-4)  # factorizations sum n terms per entry, in a different order than LAPACK's


def spd(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(*shape, generator=g, dtype=torch.float64)
    n = shape[-1]
    return (a @ a.mT + n * torch.eye(n, dtype=torch.float64)).to(dtype)


def rand(*shape, dtype=torch.float32, seed=1):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


@pytest.mark.parametrize("shape", [(5, 5), (3, 7, 7), (2, 1, 33, 33), (0, 4, 4), (1, 1)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(shape, upper):
    run_both(lambda a: torch.linalg.cholesky(a, upper=upper), spd(*shape), **LA_TOL)
    run_both(lambda a: torch.linalg.cholesky_ex(a, upper=upper), spd(*shape), **LA_TOL)


def test_cholesky_errors_and_info():
    a = spd(3, 4, 4)
    a[1, 2, 2] = -100.0  # the second matrix's leading minor of order 3 is not positive-definite
    run_both(torch.linalg.cholesky, a, same_message=True)
    run_both(lambda a: torch.linalg.cholesky_ex(a).info, a)
    run_both(torch.linalg.cholesky, torch.full((3, 3), float("nan")), same_message=True)
    run_both(torch.linalg.cholesky, rand(3, 4), same_message=True)  # not square
    run_both(torch.linalg.cholesky, torch.eye(3, dtype=torch.int64), same_message=True)


@pytest.mark.parametrize("shape", [(6, 6), (4, 3, 3), (2, 5, 8), (2, 8, 5), (0, 3, 3), (3, 0, 0)])
def test_lu_factor_and_unpack(shape):
    run_both(torch.linalg.lu_factor_ex, rand(*shape), **LA_TOL)
    run_both(torch.linalg.lu, rand(*shape), **LA_TOL)
    run_both(lambda a: torch.lu_unpack(*torch.linalg.lu_factor(a)), rand(*shape), **LA_TOL)


def test_lu_singular_info_and_no_pivoting():
    a = rand(3, 4, 4)
    a[1, :, 2] = 0  # singular: a zero pivot, LAPACK's info
    run_both(lambda a: torch.linalg.lu_factor_ex(a), a, **LA_TOL)
    run_both(torch.linalg.lu_factor, a, same_message=True)
    # pivot=False as on CUDA (the CPU has none): no P (empty), L U == A, pivots 1..n
    a = spd(4, 4)
    P, L, U = torch.linalg.lu(a.to("ocl"), pivot=False)
    assert P.numel() == 0
    torch.testing.assert_close((L @ U).cpu(), a, **LA_TOL)
    assert torch.linalg.lu_factor(a.to("ocl"), pivot=False).pivots.tolist() == [1, 2, 3, 4]


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(left, adjoint):
    a, b = rand(3, 5, 5), rand(3, 5, 2) if left else rand(3, 2, 5)
    run_both(lambda a, b: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b, left=left, adjoint=adjoint), a, b,
             **LA_TOL)
    run_both(lambda a, b: torch.linalg.lu_solve(*torch.linalg.lu_factor(a[:1]), b, left=left, adjoint=adjoint), a, b,
             **LA_TOL)  # LU broadcast over B's batch


def test_solve_inv_det_and_gradients():
    a, b = rand(4, 6, 6, dtype=torch.float64), rand(4, 6, 3, dtype=torch.float64, seed=2)

    def grads(a, b):
        a, b = a.clone().requires_grad_(), b.clone().requires_grad_()
        loss = torch.linalg.solve(a, b).sum() + torch.linalg.inv(a).pow(2).sum() + torch.linalg.det(a).sum()
        loss = loss + torch.linalg.slogdet(a).logabsdet.sum() + torch.logdet(a @ a.mT).sum()
        loss.backward()
        return a.grad, b.grad

    run_both(grads, a, b)
    run_both(lambda a, b: torch.linalg.solve(a, b[..., 0]), a, b)  # vector right-hand side
    run_both(lambda a, b: torch.linalg.solve(a.mT, b.mT, left=False), a, b)  # non-contiguous, right side
    run_both(lambda a: torch.linalg.inv_ex(a), a[0].mT)
    run_both(lambda a: torch.linalg.matrix_power(a, -3), a, rtol=1e-6, atol=1e-6)
    x = a.detach().to("ocl").requires_grad_()
    torch.autograd.gradcheck(lambda x: torch.linalg.solve(x, x[..., :2]), (x[:2, :4, :4].detach().requires_grad_(),))


def test_solve_errors():
    run_both(torch.linalg.inv, torch.zeros(2, 3, 3), same_message=True)  # singular
    run_both(torch.linalg.solve, rand(3, 3), rand(4, 2), same_message=True)  # shapes
    run_both(torch.linalg.det, rand(2, 3), same_message=True)  # not square
    run_both(lambda a: torch.linalg.inv_ex(a).info, torch.zeros(2, 3, 3))
    with pytest.raises(RuntimeError, match="same device"):
        torch.linalg.solve(rand(3, 3).to("ocl"), rand(3, 1))


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(upper, left, unit):
    a = rand(2, 5, 5) + 4 * torch.eye(5)
    a = a.triu() if upper else a.tril()
    b = rand(2, 5, 3) if left else rand(2, 3, 5)
    f = lambda a, b: torch.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)  # noqa: E731
    run_both(f, a, b, **LA_TOL)
    run_both(f, a.mT.contiguous().mT, b, **LA_TOL)  # column-major A
    run_both(f, a[:1], b, **LA_TOL)  # A broadcast over B's batch
    run_both(lambda a, b: torch.triangular_solve(b.mT if not left else b, a, upper=upper, transpose=True,
                                                 unitriangular=unit), a, b, **LA_TOL)


@pytest.mark.parametrize("out_dtype", [torch.int64, torch.float64, torch.complex64], ids=str)
def test_solve_triangular_out_of_another_dtype_raises_as_cpu(out_dtype):
    # no cast into out= (PyTorch's test_out_linalg_solve_triangular: an int64 out= failed to
    # build a program, float64 / complex64 took the float32 solution)
    a, b = rand(4, 4).triu() + 4 * torch.eye(4), rand(4, 2)
    run_both(lambda a, b, o: torch.linalg.solve_triangular(a, b, upper=True, out=o), a, b,
             torch.empty(0, dtype=out_dtype), same_message=True)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse(upper):
    a, b = spd(3, 5, 5, dtype=torch.float64), rand(1, 5, 2, dtype=torch.float64)

    def grads(a, b):
        a, b = a.clone().requires_grad_(), b.clone().requires_grad_()
        f = torch.linalg.cholesky(a, upper=upper)
        x = torch.cholesky_solve(b, f, upper=upper)
        (x.sum() + torch.cholesky_inverse(f[0], upper=upper).sum()).backward()
        return x, a.grad, b.grad

    run_both(grads, a, b)


# ---- QR, least squares, symmetric eigen, SVD ---------------------------------------------------


@pytest.mark.parametrize("shape", [(5, 5), (3, 6, 4), (2, 4, 6), (0, 3, 3), (1, 1)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape, mode):
    run_both(lambda a: torch.linalg.qr(a, mode=mode), rand(*shape), **LA_TOL)
    run_both(torch.geqrf, rand(*shape), **LA_TOL)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
def test_householder_product_and_ormqr(left, transpose):
    reflectors, tau = torch.geqrf(rand(3, 6, 4))
    run_both(torch.linalg.householder_product, reflectors, tau, **LA_TOL)
    c = rand(3, 6, 5) if left else rand(3, 5, 6)
    run_both(lambda v, t, c: torch.ormqr(v, t, c, left=left, transpose=transpose), reflectors, tau, c, **LA_TOL)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5)])
def test_lstsq_gels(shape):
    a, b = rand(3, *shape, dtype=torch.float64), rand(3, shape[0], 2, dtype=torch.float64, seed=3)

    def solve(a, b):
        a, b = a.clone().requires_grad_(), b.clone().requires_grad_()
        r = torch.linalg.lstsq(a, b)
        (r.solution.sum() + r.residuals.sum()).backward()
        return r.solution, r.residuals, a.grad, b.grad

    run_both(solve, a, b)
    run_both(lambda a, b: torch.linalg.lstsq(a, b[..., 0]).solution, a, b)  # vector right-hand side
    with pytest.raises(RuntimeError, match="other than `gels` is not supported"):  # as on CUDA
        torch.linalg.lstsq(a.to("ocl"), b.to("ocl"), driver="gelsd")


@pytest.mark.parametrize("shape", [(5, 5), (3, 8, 8), (33, 33), (1, 1), (0, 4, 4), (4, 2, 2)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(shape, uplo):
    a = rand(*shape, dtype=torch.float64)
    w, v = torch.linalg.eigh(a.to("ocl"), UPLO=uplo)
    w_cpu, v_cpu = torch.linalg.eigh(a, UPLO=uplo)
    torch.testing.assert_close(w.cpu(), w_cpu)
    torch.testing.assert_close(v.cpu().abs(), v_cpu.abs())  # eigenvectors up to sign
    sym = a.tril() + a.tril(-1).mT if uplo == "L" else a.triu() + a.triu(1).mT
    torch.testing.assert_close((v @ torch.diag_embed(w) @ v.mT).cpu(), sym)
    run_both(lambda a: torch.linalg.eigvalsh(a, UPLO=uplo), a.float(), **LA_TOL)


def test_eigh_gradients():
    a = rand(3, 4, 4, dtype=torch.float64)
    a = (a + a.mT).to("ocl").requires_grad_()
    sym = lambda x: (x + x.mT) / 2  # noqa: E731  (gradcheck's perturbations must stay symmetric)
    torch.autograd.gradcheck(lambda x: torch.linalg.eigvalsh(sym(x)), (a,))
    torch.autograd.gradcheck(lambda x: torch.linalg.eigh(sym(x)).eigenvectors.abs(), (a,))


@pytest.mark.parametrize("shape", [(5, 5), (3, 6, 4), (2, 4, 7), (40, 8), (1, 1), (0, 3, 3)])
@pytest.mark.parametrize("full", [False, True])
def test_svd(shape, full):
    a = rand(*shape, dtype=torch.float64)
    u, s, vh = (t.cpu() for t in torch.linalg.svd(a.to("ocl"), full_matrices=full))
    u_cpu, s_cpu, vh_cpu = torch.linalg.svd(a, full_matrices=full)
    assert u.shape == u_cpu.shape and vh.shape == vh_cpu.shape
    torch.testing.assert_close(s, s_cpu)
    k = s.shape[-1]
    torch.testing.assert_close(u[..., :k] @ torch.diag_embed(s) @ vh[..., :k, :], a)
    eye = lambda n: torch.eye(n, dtype=a.dtype)  # noqa: E731
    torch.testing.assert_close(u.mT @ u, eye(u.shape[-1]).expand(*u.shape[:-2], -1, -1))
    torch.testing.assert_close(vh @ vh.mT, eye(vh.shape[-2]).expand(*vh.shape[:-2], -1, -1))


def test_svd_rank_deficient_and_derived_ops():
    # Zero singular values: U's columns there still orthonormal (as LAPACK's), so
    # the subgradients of the nuclear norm and of pinv at singular inputs agree.
    zero, rank1 = torch.zeros(4, 3, dtype=torch.float64), torch.ones(3, 5, dtype=torch.float64)
    for a in (zero, rank1):
        u = torch.linalg.svd(a.to("ocl")).U.cpu()
        torch.testing.assert_close(u.mT @ u, torch.eye(u.shape[-1], dtype=a.dtype))

    def grads(a):
        a = a.clone().requires_grad_()
        y = torch.linalg.matrix_norm(a, "nuc") + torch.linalg.pinv(a).sum() + torch.linalg.matrix_norm(a, 2)
        y.backward()
        return y, a.grad

    run_both(grads, rand(4, 3, dtype=torch.float64))
    run_both(grads, rand(3, 5, dtype=torch.float64))
    run_both(lambda a: (torch.linalg.matrix_rank(a), torch.linalg.cond(a), torch.linalg.svdvals(a)),
             rand(2, 5, 5, dtype=torch.float64))


@pytest.mark.parametrize("name", ["cholesky", "lu_factor", "lu_solve", "solve_triangular", "cholesky_solve", "qr",
                                  "lstsq", "eigh", "svd", "pinv", "ldl_factor", "ldl_solve"])
def test_inputs_are_not_written(name):
    # The kernels work in place: every op must factor a copy, never the caller's tensor.
    a = spd(2, 4, 4, dtype=torch.float64).to("ocl")
    wide, b = rand(2, 3, 4, dtype=torch.float64).to("ocl"), rand(2, 4, 2, dtype=torch.float64).to("ocl")
    args = {"cholesky": (a,), "lu_factor": (a,), "lu_solve": (*torch.linalg.lu_factor(a), b),
            "solve_triangular": (a.mT.contiguous().mT, b), "cholesky_solve": (b.mT.contiguous().mT, a), "qr": (wide,),
            "lstsq": (wide, b[:, :3]), "eigh": (a,), "svd": (wide,), "pinv": (wide,), "ldl_factor": (a,),
            "ldl_solve": (*torch.linalg.ldl_factor(a), b)}[name]
    fn = {"cholesky": torch.linalg.cholesky, "lu_factor": torch.linalg.lu_factor, "lu_solve": torch.linalg.lu_solve,
          "solve_triangular": lambda a, b: torch.linalg.solve_triangular(a, b, upper=True),
          "cholesky_solve": torch.cholesky_solve, "qr": torch.linalg.qr, "lstsq": torch.linalg.lstsq,
          "eigh": torch.linalg.eigh, "svd": torch.linalg.svd, "pinv": torch.linalg.pinv,
          "ldl_factor": torch.linalg.ldl_factor, "ldl_solve": torch.linalg.ldl_solve}[name]
    before = [t.cpu().clone() for t in args]
    fn(*args)
    for t, old in zip(args, before):
        assert torch.equal(t.cpu(), old)


def test_batched_infos_and_broadcast_least_squares():
    # ATen flattens (cholesky_inverse) or keeps A's batch (lstsq) in `infos`.
    run_both(lambda a: torch.cholesky_inverse(torch.linalg.cholesky(a)), spd(2, 2, 3, 3, dtype=torch.float64))
    a, b = rand(1, 5, 3, dtype=torch.float64), rand(2, 5, 2, dtype=torch.float64)
    run_both(lambda a, b: torch.linalg.lstsq(a, b).solution, a, b)


@pytest.mark.parametrize("scale", [0.01, 1.0, 10.0])
def test_matrix_exp(scale):
    # Scaling and squaring: a batch whose matrices need different numbers of squarings.
    a = rand(3, 4, 4, dtype=torch.float64) * torch.tensor([scale, scale / 10, scale * 3], dtype=torch.float64).view(3, 1, 1)
    run_both(torch.linalg.matrix_exp, a)
    run_both(torch.linalg.matrix_exp, a.float(), rtol=1e-5, atol=1e-5 * max(scale, 1) ** 4)
    x = a[:2, :3, :3].clone().to("ocl").requires_grad_()
    torch.autograd.gradcheck(torch.linalg.matrix_exp, (x,))
    run_both(torch.linalg.matrix_exp, torch.zeros(0, 2, 2), same_message=True)
    run_both(torch.linalg.matrix_exp, rand(2, 3), same_message=True)  # not square
    # an infinite entry gives NaN as on the CPU (it once meant ~2^1024 squarings: a hang)
    run_both(torch.linalg.matrix_exp, torch.tensor([[1.0, float("inf")], [0.0, 1.0]]))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_half_matrix_exp(dtype):
    # computed in float32 and rounded once: the float64 result rounded to the type (the CPU's
    # float16 Pade steps return NaN for some of these matrices)
    a = rand(3, 4, 4) * 0.5
    exact = torch.linalg.matrix_exp(a.to(dtype).double())
    got = torch.linalg.matrix_exp(a.to(dtype).to("ocl")).cpu()
    assert got.dtype == dtype
    tol = dict(rtol=2e-3, atol=2e-3) if dtype == torch.float16 else dict(rtol=1.6e-2, atol=1e-2)
    torch.testing.assert_close(got.double(), exact, **tol)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
def test_complex_matrix_exp(dtype):
    # The same scaling and squaring on complex matrices (complex GEMMs and solve); the
    # backward (ATen's matrix_exp of a 2n x 2n block matrix) too.
    a = rand(3, 4, 4, dtype=dtype) * torch.tensor([0.1, 1.0, 4.0]).view(3, 1, 1)
    tol = dict(rtol=1e-5, atol=1e-4) if dtype == torch.complex64 else {}
    run_both(torch.linalg.matrix_exp, a, **tol)
    if dtype == torch.complex128:
        x = a[:2, :3, :3].clone().to("ocl").requires_grad_()
        torch.autograd.gradcheck(torch.linalg.matrix_exp, (x,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64], ids=str)
def test_compute_linear_combination(strict, dtype):
    # matrix_exp's helper: output[i] (+)= sum_j coefficients[i, j] * input[j]; out= adds to out
    for coeff_shape, data_shape in [((1, 3), (2, 2)), ((3, 1), (2, 2)), ((5, 3), (2, 2)), ((2, 4), ())]:
        c = torch.rand(*coeff_shape)
        x = torch.rand(coeff_shape[1], *data_shape, dtype=dtype)
        expected = torch._compute_linear_combination(x, c)
        assert_close = torch.testing.assert_close
        assert_close(torch._compute_linear_combination(x.to("ocl"), c.to("ocl")).cpu(), expected)
        out = torch.ones(coeff_shape[0], *data_shape, dtype=dtype, device="ocl")
        torch._compute_linear_combination(x.to("ocl"), c.to("ocl"), out=out)
        assert_close(out.cpu() - 1, expected)
    with pytest.raises(RuntimeError, match="Empty tensor not supported"):
        torch._compute_linear_combination(torch.empty(0, 2, device="ocl"), torch.rand(2, 0, device="ocl"))


# ---- complex matrices (the LU / Cholesky / triangular family) -------------------------------------


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_factorizations_and_solves(dtype):
    a, b = rand(3, 5, 5, dtype=dtype), rand(3, 5, 2, dtype=dtype, seed=2)
    h = a @ a.mH + 5 * torch.eye(5, dtype=dtype)  # Hermitian positive-definite
    for upper in (False, True):
        run_both(lambda h: torch.linalg.cholesky(h, upper=upper), h, **LA_TOL)
        run_both(lambda b, h: torch.cholesky_solve(b, torch.linalg.cholesky(h, upper=upper), upper=upper), b, h,
                 **LA_TOL)
        run_both(lambda h: torch.cholesky_inverse(torch.linalg.cholesky(h, upper=upper), upper=upper), h, **LA_TOL)
    run_both(torch.linalg.lu_factor, a, **LA_TOL)
    run_both(lambda a, b: (torch.linalg.solve(a, b), torch.linalg.inv(a), torch.linalg.det(a), torch.linalg.slogdet(a)),
             a, b, **LA_TOL)
    run_both(lambda a, b: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b, adjoint=True), a, b, **LA_TOL)
    # Householder QR as zgeqr2 / zlarfg (real beta, complex tau): LAPACK's R, reflectors and Q
    for shape in ((5, 5), (2, 6, 4), (2, 4, 6)):
        x = rand(*shape, dtype=dtype, seed=4)
        run_both(torch.geqrf, x, **LA_TOL)
        run_both(lambda x: torch.linalg.qr(x, mode="complete"), x, **LA_TOL)
        c = rand(*shape[:-2], shape[-2], 3, dtype=dtype, seed=5)
        for left, transpose in ((True, False), (True, True), (False, False), (False, True)):
            other = c if left else c.mT.contiguous()
            run_both(lambda x, o: torch.ormqr(*torch.geqrf(x), o, left=left, transpose=transpose), x, other, **LA_TOL)
    run_both(lambda x: torch.linalg.householder_product(*torch.geqrf(x)), rand(6, 4, dtype=dtype), **LA_TOL)
    # least squares (gels, as CUDA's): QR of A, or of A^H for the minimum-norm solution; a conjugate view
    for shape in ((6, 4), (4, 6), (2, 5, 5)):
        x, rhs = rand(*shape, dtype=dtype, seed=8), rand(*shape[:-1], 2, dtype=dtype, seed=9)
        run_both(lambda x, r: torch.linalg.lstsq(x, r, driver="gels").solution, x, rhs, **LA_TOL)
        run_both(lambda x, r: torch.linalg.lstsq(x.conj(), r, driver="gels").solution, x, rhs, **LA_TOL)
    # Hermitian eigenproblem (complex Jacobi: each off-diagonal made real by a phase, then rotated)
    # and SVD (one-sided complex Jacobi): LAPACK's values; vectors up to a phase per column
    def phase_free(v):
        top = v.gather(-2, v.abs().argmax(-2, keepdim=True))
        return v * (top.abs() / top)
    for shape in ((5, 5), (2, 6, 6), (17, 17)):
        x = rand(*shape, dtype=dtype, seed=10)
        herm = x + x.mH
        got, expected = torch.linalg.eigh(herm.to("ocl")), torch.linalg.eigh(herm)
        torch.testing.assert_close(got.eigenvalues.cpu(), expected.eigenvalues, **LA_TOL)
        torch.testing.assert_close(phase_free(got.eigenvectors.cpu()), phase_free(expected.eigenvectors), **LA_TOL)
        run_both(lambda h: torch.linalg.eigvalsh(h, UPLO="U"), herm.triu() + x.tril(-1), **LA_TOL)
        # a non-Hermitian input: one triangle is read, the diagonal's imaginary part ignored (LAPACK)
        for uplo in ("L", "U"):
            run_both(lambda h: torch.linalg.eigvalsh(h, UPLO=uplo), x, **LA_TOL)
    for shape in ((5, 5), (2, 6, 4), (2, 4, 6)):
        x = rand(*shape, dtype=dtype, seed=11)
        for full in (False, True):
            u, s_, vh = (t.cpu() for t in torch.linalg.svd(x.to("ocl"), full_matrices=full))
            torch.testing.assert_close(s_, torch.linalg.svdvals(x), **LA_TOL)
            k = min(shape[-2:])
            torch.testing.assert_close((u[..., :k] * s_.unsqueeze(-2).to(dtype)) @ vh[..., :k, :], x, **LA_TOL)
            eye = torch.eye(u.size(-1), dtype=dtype).expand_as(u.mH @ u)
            torch.testing.assert_close(u.mH @ u, eye, **LA_TOL)
        run_both(lambda x: (torch.linalg.pinv(x), torch.linalg.matrix_rank(x)), x, **LA_TOL)
    if dtype == torch.complex128:  # the complex products of the backward are native too
        h = rand(4, 4, dtype=dtype, seed=12).requires_grad_()
        assert torch.autograd.gradcheck(lambda t: torch.linalg.eigvalsh(t.to("ocl") + t.to("ocl").mH).cpu(), (h,))
        assert torch.autograd.gradcheck(lambda t: torch.linalg.svdvals(t.to("ocl")).cpu(), (h[:, :3].detach().requires_grad_(),))
        x = rand(4, 3, dtype=dtype, seed=6).requires_grad_()
        assert torch.autograd.gradcheck(lambda t: tuple(r.cpu() for r in torch.linalg.qr(t.to("ocl"))), (x,))
        assert torch.autograd.gradcheck(lambda t: torch.linalg.solve(t.to("ocl"), t.to("ocl").mH[:, :2].sum(1)).cpu(),
                                        (rand(3, 3, dtype=dtype, seed=7).requires_grad_(),))


@pytest.mark.parametrize("left", [True, False])
def test_complex_triangular_solves_with_conjugate_views(left):
    # ATen hands LAPACK's stub a conjugate view unresolved, with op = A^H.
    a = rand(2, 4, 4, dtype=torch.complex64) + 3 * torch.eye(4)
    b = rand(2, 4, 3, dtype=torch.complex64, seed=2)
    b = b if left else b.mT
    for f in (lambda a, b: torch.linalg.solve_triangular(a.triu().conj(), b, upper=True, left=left),
              lambda a, b: torch.linalg.solve_triangular(a.triu().mH, b, upper=False, left=left),
              lambda a, b: torch.linalg.solve_triangular(a.tril(), b.conj(), upper=False, left=left, unitriangular=True)):
        run_both(f, a, b, **LA_TOL)


def indefinite(*shape, dtype=torch.float64, seed=3, zero_corner=False):
    a = rand(*shape, dtype=torch.float64, seed=seed)
    a = a + a.mT
    if zero_corner:
        a[..., 0, 0] = 0  # |a00| < alpha * colmax: Bunch-Kaufman takes a 2x2 or an exchanged pivot
    return a.to(dtype)


@pytest.mark.parametrize("shape", [(5, 5), (3, 7, 7), (2, 1, 33, 33), (1, 1), (0, 4, 4), (70, 70)])
@pytest.mark.parametrize("zero_corner", [False, True])
def test_ldl_factor_matches_lapack(shape, zero_corner):
    # LAPACK sytf2's Bunch-Kaufman pivoting: the same pivots (1x1 and 2x2
    # blocks), info and L / D as the CPU's sytrf
    for dtype in (torch.float32, torch.float64):
        a = indefinite(*shape, dtype=dtype, zero_corner=zero_corner and shape[-1] > 1)
        got = torch.linalg.ldl_factor_ex(a.to("ocl"))
        expected = torch.linalg.ldl_factor_ex(a)
        assert torch.equal(got.pivots.cpu(), expected.pivots) and torch.equal(got.info.cpu(), expected.info)
        tol = dict(rtol=1e-4, atol=1e-4) if dtype == torch.float32 else dict(rtol=1e-9, atol=1e-9)
        torch.testing.assert_close(got.LD.cpu(), expected.LD, **tol)
    if shape[-2] > 1:  # some 2x2 blocks among the draws
        assert (torch.linalg.ldl_factor(indefinite(8, 8, zero_corner=True)).pivots < 0).any()


def test_ldl_factor_singular_and_noncontiguous():
    zero = torch.zeros(2, 3, 3)
    zero[1] = torch.eye(3)
    got, expected = torch.linalg.ldl_factor_ex(zero.to("ocl")), torch.linalg.ldl_factor_ex(zero)
    assert got.info.cpu().tolist() == expected.info.tolist() == [1, 0]
    assert torch.equal(got.LD.cpu(), expected.LD)
    a = indefinite(6, 6)
    run_both(lambda x: torch.linalg.ldl_factor(x.mT, hermitian=True), a, rtol=1e-9, atol=1e-9)
    run_both(lambda x: torch.linalg.ldl_factor(x[::2, ::2]), indefinite(12, 12), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
@pytest.mark.parametrize("hermitian", [False, True], ids=["symmetric", "hermitian"])
def test_complex_ldl_matches_lapack(dtype, hermitian):
    # zsytf2 (A = L D L^T) and zhetf2 (A = L D L^H: real 1x1 blocks, conjugated updates) with
    # izamax's |re| + |im| pivot scans: the CPU's pivots, info and L / D; zsytrs / zhetrs solves
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == torch.complex64 else dict(rtol=1e-9, atol=1e-9)
    for seed, shape in enumerate([(4, 6, 6), (1, 1), (2, 13, 13)]):
        a = rand(*shape, dtype=dtype, seed=seed)
        a = a + (a.mH if hermitian else a.mT)
        a[..., 0, 0] = 0 if shape[-1] > 1 else a[..., 0, 0]  # exchanged / 2x2 pivots
        got = torch.linalg.ldl_factor_ex(a.to("ocl"), hermitian=hermitian)
        expected = torch.linalg.ldl_factor_ex(a, hermitian=hermitian)
        assert torch.equal(got.pivots.cpu(), expected.pivots) and torch.equal(got.info.cpu(), expected.info)
        torch.testing.assert_close(got.LD.cpu(), expected.LD, **tol)
        b = rand(*shape[:-1], 2, dtype=dtype, seed=9)
        x = torch.linalg.ldl_solve(got.LD, got.pivots, b.to("ocl"), hermitian=hermitian)
        torch.testing.assert_close(x.cpu(), torch.linalg.ldl_solve(expected.LD, expected.pivots, b, hermitian=hermitian),
                                   **tol)
    assert (torch.linalg.ldl_factor(a, hermitian=hermitian).pivots < 0).any()  # a 2x2 block was taken


@pytest.mark.parametrize("b_shape", [(7, 3), (4, 7, 2), (7, 0)])
def test_ldl_solve(b_shape):
    # LAPACK sytrs with the factor's pivots; the factor broadcasts over B's batch
    a = indefinite(7, 7, zero_corner=True)
    ld, piv = torch.linalg.ldl_factor(a)
    b = rand(*b_shape, dtype=torch.float64, seed=5)
    got = torch.linalg.ldl_solve(ld.to("ocl"), piv.to("ocl"), b.to("ocl"))
    torch.testing.assert_close(got.cpu(), torch.linalg.ldl_solve(ld, piv, b), rtol=1e-9, atol=1e-9)
    if b.numel():
        torch.testing.assert_close((a @ got.cpu()), b, rtol=1e-9, atol=1e-9)
    batched = indefinite(3, 5, 5, dtype=torch.float32)
    ld, piv = torch.linalg.ldl_factor(batched.to("ocl"))
    rhs = rand(3, 5, 2)
    torch.testing.assert_close((batched @ torch.linalg.ldl_solve(ld, piv, rhs.to("ocl")).cpu()), rhs, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128], ids=str)
def test_blocked_cholesky_and_lu_of_large_matrices(dtype):
    # from order 256 the factorizations are blocked (LAPACK's right-looking
    # order: a work group factors each diagonal block / panel, GEMMs update the
    # rest): the same factors, pivots and info as the CPU's
    a = rand(2, 260, 260, dtype=dtype, seed=13)
    h = a @ a.mH + 260 * torch.eye(260, dtype=dtype)
    for upper in (False, True):
        run_both(lambda h: torch.linalg.cholesky(h, upper=upper), h, rtol=1e-9, atol=1e-9)
    bad = h.clone()
    bad[1, 130, 130] = -1e6
    got, expected = torch.linalg.cholesky_ex(bad.to("ocl")), torch.linalg.cholesky_ex(bad)
    assert got.info.cpu().tolist() == expected.info.tolist() == [0, 131]
    for shape in ((2, 260, 260), (300, 258)):
        x = rand(*shape, dtype=dtype, seed=14)
        got, expected = torch.linalg.lu_factor_ex(x.to("ocl")), torch.linalg.lu_factor_ex(x)
        assert torch.equal(got.pivots.cpu(), expected.pivots) and torch.equal(got.info.cpu(), expected.info)
        torch.testing.assert_close(got.LU.cpu(), expected.LU, rtol=1e-9, atol=1e-9)
    singular = rand(260, 260, dtype=dtype, seed=15)
    singular[:, 200] = 0
    got, expected = torch.linalg.lu_factor_ex(singular.to("ocl")), torch.linalg.lu_factor_ex(singular)
    assert got.info.item() == expected.info.item() == 201


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128], ids=str)
def test_blocked_qr_of_large_matrices(dtype):
    # from 256 rows geqrf runs in 64-column panels whose block reflectors
    # (I - Y T Y^H, LAPACK larft) update the rest by GEMMs, and Q / ormqr /
    # lstsq apply the reflectors by blocks: LAPACK's R and reflectors. (Tall
    # inputs: for a square complex matrix LAPACK implementations differ in the
    # last 1x1 reflector, tau 0 or not.)
    x = rand(300, 270, dtype=dtype, seed=16)
    run_both(torch.geqrf, x, rtol=1e-9, atol=1e-9)
    run_both(lambda x: torch.linalg.qr(x), x, rtol=1e-9, atol=1e-9)
    c = rand(300, 3, dtype=dtype, seed=17)
    for left, transpose in ((True, True), (True, False), (False, False)):
        other = c if left else c.mT.contiguous()
        run_both(lambda x, o: torch.ormqr(*torch.geqrf(x), o, left=left, transpose=transpose), x, other,
                 rtol=1e-9, atol=1e-9)
    run_both(lambda x, b: torch.linalg.lstsq(x, b, driver="gels").solution, x, c, rtol=1e-9, atol=1e-9)


# ---- the general eigenproblem (kernels/eig.cl: LAPACK's geev) --------------------------------------


def eig_matches_lapack(actual, expected, tol):
    """Eigenvalues as the CPU's, in the CPU's order; each eigenvector the CPU's up to a
    unit factor (LAPACK fixes only its norm and that its largest component is real: a
    sign, or for components of equal modulus a phase, is open)."""
    (l, v), (le, ve) = actual, expected
    torch.testing.assert_close(l.cpu(), le, **tol)
    v = v.cpu()
    dot = (ve.conj() * v).sum(-2, keepdim=True)
    phase = torch.where(dot.abs() > 0, dot.conj() / dot.abs(), torch.ones_like(dot))
    torch.testing.assert_close(v * phase, ve, **tol)


EIG_MATRICES = {
    "random": lambda dt: rand(4, 6, 6, dtype=dt),
    "single": lambda dt: rand(9, 9, dtype=dt, seed=3),
    "1x1": lambda dt: rand(2, 1, 1, dtype=dt),
    # gebal's permutations isolate every eigenvalue (the CPU's order: 6, 3, 1)
    "lower": lambda dt: torch.tensor([[1.0, 0, 0], [2, 3, 0], [4, 5, 6]]).to(dt),
    "upper": lambda dt: torch.triu(rand(5, 5, dtype=dt)),
    "permuted triangular": lambda dt: torch.triu(rand(6, 6, dtype=dt))[[3, 0, 5, 1, 4, 2]][:, [3, 0, 5, 1, 4, 2]],
    "rotation": lambda dt: torch.tensor([[0.0, 1], [-1, 0]]).to(dt),  # a complex pair of a real matrix
    "zeros": lambda dt: torch.zeros(3, 3, dtype=dt),
    # geev's scaling of a matrix out of [smlnum, bignum]; balancing of badly scaled columns
    "tiny": lambda dt: rand(5, 5, dtype=dt) * (1e-160 if dt in (torch.float64, torch.complex128) else 1e-20),
    "badly scaled": lambda dt: rand(6, 6, dtype=dt) * torch.logspace(-3, 3, 6).to(dt),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64, torch.complex128], ids=str)
@pytest.mark.parametrize("kind", list(EIG_MATRICES))
def test_eig_as_lapack(kind, dtype):
    a = EIG_MATRICES[kind](dtype)
    single = dtype in (torch.float32, torch.complex64)
    scale = a.abs().max().item() or 1.0
    tol = dict(rtol=1e-4, atol=1e-4 * scale) if single else dict(rtol=1e-10, atol=1e-10 * scale)
    vec_tol = dict(rtol=1e-3, atol=1e-3) if single else dict(rtol=1e-8, atol=1e-8)
    l, v = torch.linalg.eig(a.to("ocl"))
    le, ve = torch.linalg.eig(a)
    torch.testing.assert_close(l.cpu(), le, **tol)
    eig_matches_lapack((l, v), (le, ve), vec_tol)
    # A V = V diag(L), and eigvals alone gives the same values
    ac = a.to(l.dtype)
    torch.testing.assert_close(ac @ v.cpu(), v.cpu() * l.cpu().unsqueeze(-2), **tol)
    torch.testing.assert_close(torch.linalg.eigvals(a.to("ocl")).cpu(), le, **tol)


def test_eig_out_views_and_errors():
    a = rand(3, 5, 5, dtype=torch.float64)
    expected = torch.linalg.eig(a)
    # out= (resized), a transposed / conjugated input
    l, v = torch.empty(0, dtype=torch.complex128, device="ocl"), torch.empty(0, dtype=torch.complex128, device="ocl")
    torch.linalg.eig(a.to("ocl"), out=(l, v))
    eig_matches_lapack((l, v), expected, dict(rtol=1e-10, atol=1e-10))
    out = torch.empty(0, dtype=torch.complex128, device="ocl")
    torch.linalg.eigvals(a.to("ocl"), out=out)
    torch.testing.assert_close(out.cpu(), expected[0])
    at = a.mT.contiguous().mT
    eig_matches_lapack(torch.linalg.eig(at.to("ocl")), torch.linalg.eig(at), dict(rtol=1e-10, atol=1e-10))
    c = rand(4, 4, dtype=torch.complex64)
    eig_matches_lapack(torch.linalg.eig(c.conj().to("ocl")), torch.linalg.eig(c.conj()), dict(rtol=1e-4, atol=1e-4))
    # empty batches and matrices
    run_both(torch.linalg.eig, torch.zeros(2, 0, 0))
    run_both(torch.linalg.eigvals, torch.zeros(0, 3, 3))
    # PyTorch's errors: not square, integer input, non-finite input, a real out= dtype
    run_both(torch.linalg.eig, rand(3, 4), same_message=True)
    run_both(torch.linalg.eig, torch.ones(2, 2, dtype=torch.int64), same_message=True)
    run_both(torch.linalg.eig, torch.tensor([[float("nan"), 1.0], [2.0, 3.0]]), same_message=True)
    run_both(lambda a: torch.linalg.eig(a.to(torch.complex64)), torch.tensor([[float("inf"), 1.0], [2.0, 3.0]]),
             same_message=True)
    run_both(lambda a: torch.linalg.eig(a, out=(torch.empty(2, device=a.device), torch.empty(2, 2, device=a.device))),
             torch.eye(2), same_message=True)


def test_eig_backward():
    # ATen's linalg_eig_backward over the device's eigenvectors: gauge-invariant losses
    a = rand(2, 4, 4, dtype=torch.float64).to("ocl").requires_grad_()
    torch.autograd.gradcheck(lambda a: torch.linalg.eigvals(a), (a,))
    torch.autograd.gradcheck(lambda a: torch.linalg.eig(a)[1].abs(), (a,))
    c = rand(3, 3, dtype=torch.complex128).to("ocl").requires_grad_()
    torch.autograd.gradcheck(lambda c: torch.linalg.eig(c)[0], (c,))
