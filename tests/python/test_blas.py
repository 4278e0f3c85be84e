"""dot/vdot, mv/addmv, baddbmm/addbmm, bmm.out and half-precision matrix products on ocl
against PyTorch CPU, under the strict fixture (the ops are native: CLBlast Dot / Gemv / Gemm /
GemmStridedBatched; on CPU devices the tiled kernels/gemm.cl and the skinny kernels/blas_small.cl).
mm/addmm/bmm float32/64 are covered in test_reduce_blas.py and by the tiled-GEMM tests at the end."""

import re

import pytest
import torch
from torch.testing import assert_close

from dtype_lists import dname
from cpu_reference import run_both

NAN = float("nan")


def make(dtype, shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    return torch.randint(-9, 10, shape, generator=g).to(dtype)


def tol(dtype):
    return {
        torch.float32: dict(rtol=1e-4, atol=1e-4),
        torch.float64: dict(rtol=1e-10, atol=1e-10),
        torch.float16: dict(rtol=1e-2, atol=1e-2),
        torch.bfloat16: dict(rtol=2e-2, atol=5e-2),
    }.get(dtype, dict(rtol=0, atol=0))


def compare(actual, expected, dtype=None):
    assert actual.device.type == "ocl"
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert_close(actual.cpu(), expected, equal_nan=True, **tol(dtype or expected.dtype))


def same_error(fn, *cpu_args):
    """fn raises on ocl with the CPU's exception type and message."""
    with pytest.raises(Exception) as cpu_err:
        fn(*cpu_args)
    with pytest.raises(cpu_err.type, match=re.escape(str(cpu_err.value).split("\n")[0])):
        fn(*[a.to("ocl") if isinstance(a, torch.Tensor) else a for a in cpu_args])


def layout(x, kind):
    """x (CPU) on ocl as: contiguous, transposed view of the last two dims, sliced with step."""
    if kind == "contig":
        return x.to("ocl")
    if kind == "T":
        return x.mT.contiguous().to("ocl").mT
    # every other element of a twice-as-wide buffer
    wide = torch.zeros(*x.shape[:-1], 2 * x.shape[-1], dtype=x.dtype)
    wide[..., ::2] = x
    return wide.to("ocl")[..., ::2]


# dot / vdot ---------------------------------------------------------------------------------------

DOT_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32]


@pytest.mark.parametrize("fn", [torch.dot, torch.vdot], ids=["dot", "vdot"])
@pytest.mark.parametrize("dtype", DOT_DTYPES, ids=dname)
@pytest.mark.parametrize("n", [0, 1, 7, 100_003])
def test_dot(strict, fn, dtype, n):
    a, b = make(dtype, (n,), 1), make(dtype, (n,), 2)
    actual = fn(a.to("ocl"), b.to("ocl"))
    if dtype in (torch.float16, torch.bfloat16) and n > 1000:
        # ocl accumulates half dots in float32: compare with the float32 result
        assert actual.dtype == dtype and actual.shape == ()
        assert_close(actual.cpu().float(), fn(a.float(), b.float()), rtol=1e-2, atol=1.0)
    else:
        compare(actual, fn(a, b))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_dot_strided_and_expanded(strict, dtype):
    a, b = make(dtype, (30,), 3), make(dtype, (10,), 4)
    da, db = a.to("ocl"), b.to("ocl")
    compare(torch.dot(da[::3], db), torch.dot(a[::3], b))
    compare(torch.dot(da[2::3], da[1:11]), torch.dot(a[2::3], a[1:11]))
    s = make(dtype, (1,), 5)
    compare(torch.dot(s.to("ocl").expand(10), db), torch.dot(s.expand(10), b))
    compare(torch.vdot(da.flip(0)[::3], db), torch.vdot(a.flip(0)[::3], b))


def test_dot_backward(strict):
    a, b = make(torch.float64, (9,), 6), make(torch.float64, (9,), 7)
    da, db = (t.to("ocl").requires_grad_() for t in (a, b))
    ca, cb = (t.clone().requires_grad_() for t in (a, b))
    (torch.dot(da, db) * 3).backward()
    (torch.dot(ca, cb) * 3).backward()
    compare(da.grad, ca.grad)
    compare(db.grad, cb.grad)


@pytest.mark.parametrize("fn", [torch.dot, torch.vdot], ids=["dot", "vdot"])
def test_dot_errors_match_cpu(strict, fn):
    same_error(fn, torch.ones(3), torch.ones(4))
    same_error(fn, torch.ones(2, 3), torch.ones(2, 3))
    same_error(fn, torch.ones(3), torch.ones(3, dtype=torch.float64))


# mv / addmv ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("vec_kind", ["contig", "step"])
@pytest.mark.parametrize("mat_kind", ["contig", "T", "step"])
@pytest.mark.parametrize("shape", [(5, 7), (1, 9), (6, 1), (0, 4), (4, 0), (33, 65)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_mv(strict, dtype, shape, mat_kind, vec_kind):
    m, n = shape
    a, v = make(dtype, (m, n), 8), make(dtype, (n,), 9)
    da = layout(a, mat_kind)
    dv = layout(v[None], vec_kind)[0]
    compare(torch.mv(da, dv), torch.mv(a, v))
    compare(da @ dv, a @ v)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dname)
def test_mv_half(strict, dtype):
    a, v = make(dtype, (12, 20), 10), make(dtype, (20,), 11)
    compare(torch.mv(a.to("ocl"), v.to("ocl")), torch.mv(a, v))
    compare(torch.mv(layout(a, "T"), v.to("ocl")), torch.mv(a, v))


@pytest.mark.parametrize(
    "beta,alpha,nan_in_self",
    [(1, 1, False), (0.5, 2.0, False), (0, 1, True), (0, 0.5, True), (1, 0, False), (-1.5, 1, False), (0, 0, True)],
    ids=str,
)
@pytest.mark.parametrize("self_shape", ["full", "scalar"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=dname)
def test_addmv(strict, dtype, self_shape, beta, alpha, nan_in_self):
    m, n = 6, 5
    c = make(dtype, (m,) if self_shape == "full" else (), 12)
    if nan_in_self:
        c.fill_(NAN)
    a, v = make(dtype, (m, n), 13), make(dtype, (n,), 14)
    expected = torch.addmv(c, a, v, beta=beta, alpha=alpha)
    for kind in ("contig", "T"):
        compare(torch.addmv(c.to("ocl"), layout(a, kind), v.to("ocl"), beta=beta, alpha=alpha), expected)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_addmv_inplace_out_and_k0(strict, dtype):
    c, a, v = make(dtype, (4,), 15), make(dtype, (4, 6), 16), make(dtype, (6,), 17)
    dc = c.to("ocl")
    ret = dc.addmv_(a.to("ocl"), v.to("ocl"), beta=2, alpha=-1)
    assert ret is dc
    compare(dc, c.clone().addmv_(a, v, beta=2, alpha=-1))
    # strided out / self (every other element)
    buf = torch.full((8,), NAN, dtype=dtype)
    dbuf = buf.to("ocl")
    torch.addmv(c.to("ocl"), a.to("ocl"), v.to("ocl"), beta=0, out=dbuf[::2])
    torch.addmv(c, a, v, beta=0, out=buf[::2])
    compare(dbuf, buf)
    out = torch.empty(0, dtype=dtype, device="ocl")
    torch.addmv(c.to("ocl"), a.to("ocl"), v.to("ocl"), out=out)
    compare(out, torch.addmv(c, a, v))
    a0, v0 = torch.empty(4, 0, dtype=dtype), torch.empty(0, dtype=dtype)
    compare(torch.addmv(c.to("ocl"), a0.to("ocl"), v0.to("ocl"), beta=3), torch.addmv(c, a0, v0, beta=3))
    nan_c = torch.full((4,), NAN, dtype=dtype)
    compare(torch.addmv(nan_c.to("ocl"), a0.to("ocl"), v0.to("ocl"), beta=0), torch.addmv(nan_c, a0, v0, beta=0))


def test_mv_backward(strict):
    c, a, v = make(torch.float64, (5,), 18), make(torch.float64, (5, 3), 19), make(torch.float64, (3,), 20)
    dev = [t.to("ocl").requires_grad_() for t in (c, a, v)]
    cpu = [t.clone().requires_grad_() for t in (c, a, v)]
    g = make(torch.float64, (5,), 21)
    torch.addmv(*dev, beta=0.5, alpha=2).backward(g.to("ocl"))
    torch.addmv(*cpu, beta=0.5, alpha=2).backward(g)
    for d, h in zip(dev, cpu):
        compare(d.grad, h.grad)


def test_mv_errors_match_cpu(strict):
    same_error(torch.mv, torch.ones(3, 4), torch.ones(5))
    same_error(torch.mv, torch.ones(3, 4, 2), torch.ones(2))
    same_error(torch.addmv, torch.ones(2), torch.ones(3, 4), torch.ones(4))
    same_error(torch.mv, torch.ones(3, 4), torch.ones(4, dtype=torch.float64))
    same_error(torch.addmv, torch.ones(3, dtype=torch.float64), torch.ones(3, 4), torch.ones(4))


# baddbmm / addbmm / bmm.out -------------------------------------------------------------------------

BATCH_LAYOUTS = ["contig", "T", "step", "expanded"]


def batch_operand(x, kind):
    if kind == "expanded":  # one matrix shared by every batch (stride 0)
        return x[:1].to("ocl").expand_as(x)
    return layout(x, kind)


def batch_cpu(x, kind):
    return x[:1].expand_as(x) if kind == "expanded" else x


@pytest.mark.parametrize("lb", BATCH_LAYOUTS)
@pytest.mark.parametrize("la", BATCH_LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_baddbmm_layouts(strict, dtype, la, lb):
    c, a, b = make(dtype, (3, 4, 6), 22), make(dtype, (3, 4, 5), 23), make(dtype, (3, 5, 6), 24)
    expected = torch.baddbmm(c, batch_cpu(a, la), batch_cpu(b, lb), beta=0.5, alpha=2)
    compare(torch.baddbmm(c.to("ocl"), batch_operand(a, la), batch_operand(b, lb), beta=0.5, alpha=2), expected)
    expected = torch.addbmm(c[0], batch_cpu(a, la), batch_cpu(b, lb), beta=0.5, alpha=2)
    compare(torch.addbmm(c[0].to("ocl"), batch_operand(a, la), batch_operand(b, lb), beta=0.5, alpha=2), expected)


@pytest.mark.parametrize("fn", [torch.baddbmm, torch.addbmm], ids=["baddbmm", "addbmm"])
@pytest.mark.parametrize(
    "beta,alpha,nan_in_self", [(1, 1, False), (0, 1, True), (0, 0, True), (1, 0, False), (-2, 0.5, False)], ids=str
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=dname)
def test_baddbmm_addbmm_beta_alpha(strict, fn, dtype, beta, alpha, nan_in_self):
    a, b = make(dtype, (4, 3, 7), 25), make(dtype, (4, 7, 5), 26)
    shape = (4, 3, 5) if fn is torch.baddbmm else (3, 5)
    for self_shape in (shape, (5,), ()):  # broadcast self
        c = make(dtype, self_shape, 27)
        if nan_in_self:
            c.fill_(NAN)
        compare(fn(c.to("ocl"), a.to("ocl"), b.to("ocl"), beta=beta, alpha=alpha),
                fn(c, a, b, beta=beta, alpha=alpha))


@pytest.mark.parametrize("fn", [torch.baddbmm, torch.addbmm], ids=["baddbmm", "addbmm"])
@pytest.mark.parametrize("bmkn", [(0, 3, 4, 5), (2, 0, 4, 5), (2, 3, 0, 5), (2, 3, 4, 0), (1, 1, 1, 1)],
                         ids=lambda s: "x".join(map(str, s)))
def test_baddbmm_addbmm_empty_and_k0(strict, fn, bmkn):
    bs, m, k, n = bmkn
    a, b = make(torch.float32, (bs, m, k), 28), make(torch.float32, (bs, k, n), 29)
    c = make(torch.float32, (bs, m, n) if fn is torch.baddbmm else (m, n), 30)
    compare(fn(c.to("ocl"), a.to("ocl"), b.to("ocl"), beta=2), fn(c, a, b, beta=2))
    c.fill_(NAN)
    compare(fn(c.to("ocl"), a.to("ocl"), b.to("ocl"), beta=0), fn(c, a, b, beta=0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_baddbmm_addbmm_inplace_and_out(strict, dtype):
    c, a, b = make(dtype, (2, 3, 4), 31), make(dtype, (2, 3, 5), 32), make(dtype, (2, 5, 4), 33)
    dc = c.to("ocl")
    assert dc.baddbmm_(a.to("ocl"), b.to("ocl"), beta=0.5) is dc
    compare(dc, c.clone().baddbmm_(a, b, beta=0.5))
    c2 = c[0].clone()
    dc2 = c2.to("ocl")
    assert dc2.addbmm_(a.to("ocl"), b.to("ocl"), alpha=3) is dc2
    compare(dc2, c2.clone().addbmm_(a, b, alpha=3))
    # transposed in-place self
    ct = make(dtype, (4, 3), 34)
    dct = ct.to("ocl")
    dct.t().addbmm_(a.to("ocl"), b.to("ocl"))
    ct.t().addbmm_(a, b)
    compare(dct, ct)
    for fn, self_ in ((torch.baddbmm, c), (torch.addbmm, c[0])):
        out = torch.empty(0, dtype=dtype, device="ocl")
        fn(self_.to("ocl"), a.to("ocl"), b.to("ocl"), out=out)
        compare(out, fn(self_, a, b))


@pytest.mark.parametrize("out_dtype", [torch.int64, torch.float64, torch.complex64], ids=dname)
def test_addbmm_out_of_another_dtype_raises_as_cpu(strict, out_dtype):
    # no cast into out= (PyTorch's test_out_addbmm: an int64 out= took a float32 product)
    s, a, b = make(torch.float32, (2, 3), 37), make(torch.float32, (4, 2, 5), 38), make(torch.float32, (4, 5, 3), 39)
    run_both(lambda s, a, b, o: torch.addbmm(s, a, b, out=o), s, a, b, torch.empty(0, dtype=out_dtype),
             same_message=True)


def test_bmm_out_strided(strict):
    a, b = make(torch.float32, (3, 4, 5), 35), make(torch.float32, (3, 5, 6), 36)
    out = torch.full((3, 6, 4), NAN, device="ocl").transpose(1, 2)  # column-major matrices
    ret = torch.bmm(a.to("ocl"), b.to("ocl"), out=out)
    assert ret is out and out.stride() == (24, 1, 4)
    compare(out, torch.bmm(a, b))
    out = torch.full((6, 3, 4), NAN, device="ocl").transpose(0, 1)[:, ::2]  # not row-major: copied back
    expected = torch.full((6, 3, 4), NAN).transpose(0, 1)[:, ::2]
    torch.bmm(a[:, :3].to("ocl"), b[:, :, :4].to("ocl"), out=out)
    torch.bmm(a[:, :3], b[:, :, :4], out=expected)
    compare(out, expected)


def test_baddbmm_addbmm_backward(strict):
    c, a, b = make(torch.float64, (2, 3, 4), 37), make(torch.float64, (2, 3, 5), 38), make(torch.float64, (2, 5, 4), 39)
    for fn, self_ in ((torch.baddbmm, c), (torch.addbmm, c[0])):
        dev = [t.to("ocl").requires_grad_() for t in (self_, a, b)]
        cpu = [t.clone().requires_grad_() for t in (self_, a, b)]
        fn(*dev, beta=0.5, alpha=2).sum().backward()
        fn(*cpu, beta=0.5, alpha=2).sum().backward()
        for d, h in zip(dev, cpu):
            compare(d.grad, h.grad)


def test_baddbmm_addbmm_errors_match_cpu(strict):
    for fn in (torch.baddbmm, torch.addbmm):
        self_ = torch.ones(2, 3, 4) if fn is torch.baddbmm else torch.ones(3, 4)
        same_error(fn, self_, torch.ones(2, 3, 5), torch.ones(2, 6, 4))  # k mismatch
        same_error(fn, self_, torch.ones(2, 3, 5), torch.ones(3, 5, 4))  # batch mismatch
        same_error(fn, self_, torch.ones(3, 5), torch.ones(2, 5, 4))  # not 3-d
        same_error(fn, torch.ones(7, 7), torch.ones(2, 3, 5), torch.ones(2, 5, 4))  # self shape
        f64 = torch.float64
        same_error(fn, self_, torch.ones(2, 3, 5), torch.ones(2, 5, 4, dtype=f64))
        same_error(fn, self_, torch.ones(2, 3, 5, dtype=f64), torch.ones(2, 5, 4))
        same_error(fn, self_.double(), torch.ones(2, 3, 5), torch.ones(2, 5, 4))


# float16 / bfloat16 mm, addmm, bmm ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dname)
@pytest.mark.parametrize("kind", ["contig", "T", "step"])
def test_half_mm_addmm_bmm(strict, dtype, kind):
    a, b = make(dtype, (9, 17), 40), make(dtype, (17, 6), 41)
    compare(torch.mm(layout(a, kind), b.to("ocl")), torch.mm(a, b))
    c = make(dtype, (6,), 42)
    compare(torch.addmm(c.to("ocl"), a.to("ocl"), layout(b, kind), beta=0.5, alpha=2),
            torch.addmm(c, a, b, beta=0.5, alpha=2))
    nan_c = torch.full((9, 6), NAN, dtype=dtype)
    compare(torch.addmm(nan_c.to("ocl"), a.to("ocl"), b.to("ocl"), beta=0), torch.addmm(nan_c, a, b, beta=0))
    ba, bb = make(dtype, (3, 9, 17), 43), make(dtype, (3, 17, 6), 44)
    compare(torch.bmm(layout(ba, kind), bb.to("ocl")), torch.bmm(ba, bb))
    compare(torch.mm(a[:, :0].to("ocl"), b[:0].to("ocl")), torch.mm(a[:, :0], b[:0]))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dname)
def test_half_linear_backward(strict, dtype):
    x, w, bias = make(dtype, (8, 5), 45), make(dtype, (3, 5), 46), make(dtype, (3,), 47)
    dev = [t.to("ocl").requires_grad_() for t in (x, w, bias)]
    cpu = [t.clone().requires_grad_() for t in (x, w, bias)]
    torch.nn.functional.linear(*dev).sum().backward()
    torch.nn.functional.linear(*cpu).sum().backward()
    for d, h in zip(dev, cpu):
        compare(d.grad, h.grad)


# skinny products (N <= 16 or M <= 16 with >= 64 rows: kernels/blas_small.cl on CPU devices) -------

@pytest.mark.parametrize("kind", ["contig", "T", "step"])
@pytest.mark.parametrize("mkn", [(100, 3, 1), (100, 13, 5), (130, 300, 8), (64, 9, 16), (70, 17, 12),
                                 (5, 300, 100), (16, 8, 64), (300, 64, 17)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_skinny_mm_addmm(strict, dtype, mkn, kind):
    m, k, n = mkn
    a, b = make(dtype, (m, k), 50), make(dtype, (k, n), 51)
    compare(torch.mm(layout(a, kind), b.to("ocl")), a @ b)
    compare(torch.mm(a.to("ocl"), layout(b, kind)), a @ b)
    c = make(dtype, (n,), 52)
    compare(torch.addmm(c.to("ocl"), layout(a, kind), b.to("ocl"), beta=0.5, alpha=-2),
            torch.addmm(c, a, b, beta=0.5, alpha=-2))
    nan_c = torch.full((m, n), NAN, dtype=dtype)
    compare(torch.addmm(nan_c.to("ocl"), a.to("ocl"), layout(b, kind), beta=0),
            torch.addmm(nan_c, a, b, beta=0))
    out = torch.full((n, m), NAN, dtype=dtype, device="ocl").t()  # column-major out
    torch.mm(layout(a, kind), b.to("ocl"), out=out)
    compare(out, a @ b)


# tiny products (<= 65536 multiply-adds) on CPU devices: kernels/blas_small.cl gemm_tiny (contiguous
# A rows and B columns: a linear layer's x @ W^T) and gemm_tiny_b_rows (contiguous B rows: x @ W,
# W^T @ x), with addmm's addend read in the kernel -------------------------------------------------

@pytest.mark.parametrize("beta,alpha", [(0, 1), (1, 1), (0.5, -2), (2, 0)])
@pytest.mark.parametrize("mkn", [(8, 24, 96), (1, 1, 1), (3, 7, 5), (9, 16, 1), (40, 40, 40), (4, 3, 17)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("b_layout", ["cols", "rows"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_tiny_addmm(strict, dtype, b_layout, mkn, beta, alpha):
    m, k, n = mkn
    x, w = make(dtype, (m, k), 90), make(dtype, (n, k), 91)

    def mat2():
        return w.to("ocl").t() if b_layout == "cols" else w.t().contiguous().to("ocl")

    for xo in (x.to("ocl"), x.t().contiguous().to("ocl").t()):  # A by rows, A by columns
        for addend in (make(dtype, (n,), 92), make(dtype, (m, 1), 93), make(dtype, (m, n), 94)):
            if beta == 0:
                addend = addend.fill_(NAN)  # beta == 0: NaN in self must not leak
            compare(torch.addmm(addend.to("ocl"), xo, mat2(), beta=beta, alpha=alpha),
                    torch.addmm(addend, x, w.t(), beta=beta, alpha=alpha))
    full = make(dtype, (m, n), 95)
    y = full.to("ocl")
    y.addmm_(x.to("ocl"), mat2(), beta=beta, alpha=alpha)  # the addend is the output
    compare(y, torch.addmm(full, x, w.t(), beta=beta, alpha=alpha))
    out = torch.full((n, m), NAN, dtype=dtype, device="ocl").t()  # column-major out
    torch.addmm(full.to("ocl"), x.to("ocl"), mat2(), beta=beta, alpha=alpha, out=out)
    compare(out, torch.addmm(full, x, w.t(), beta=beta, alpha=alpha))
    compare(torch.mm(x.to("ocl"), mat2()), x @ w.t())
    compare(torch.bmm(x.expand(3, m, k).to("ocl"), mat2().expand(3, k, n)),
            torch.bmm(x.expand(3, m, k), w.t().expand(3, k, n)))


@pytest.mark.parametrize("use_gelu", [False, True], ids=["relu", "gelu"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=dname)
def test_addmm_activation(strict, dtype, use_gelu):
    """_addmm_activation: addmm then relu / exact gelu in place, as the CPU (CUDA's
    cuBLASLt epilogue takes the tanh gelu; PyTorch's test expects erf off CUDA)."""
    x, w, b = make(dtype, (5, 3), 96), make(dtype, (7, 3), 97), make(dtype, (7,), 98)
    expected = torch._addmm_activation(b, x, w.t(), beta=0.8, alpha=1.2, use_gelu=use_gelu)
    compare(torch._addmm_activation(b.to("ocl"), x.to("ocl"), w.to("ocl").t(), beta=0.8, alpha=1.2,
                                    use_gelu=use_gelu), expected)
    out = torch.full((7, 5), NAN, dtype=dtype, device="ocl").t()  # column-major out
    torch._addmm_activation(b.to("ocl"), x.to("ocl"), w.to("ocl").t(), beta=0.8, alpha=1.2,
                            use_gelu=use_gelu, out=out)
    compare(out, expected)
    empty = torch._addmm_activation(b.to("ocl"), x[:0].to("ocl"), w.to("ocl").t(), use_gelu=use_gelu)
    assert empty.shape == (0, 7)


# register-tiled GEMM (kernels/gemm.cl; CPU devices: every shape the skinny kernel does not take) --
# Tiles are 6 x 16 (float32) and 4 x 8 (float64): sizes 1, tile-1, tile, tile+1 and a few
# multiples in M and N; K = 0, 1, odd, large.

TILE_M = [1, 3, 4, 5, 6, 7, 12, 13]
TILE_N = [1, 7, 8, 9, 15, 16, 17, 33]


def gemm_tol(dtype, k):
    t = tol(dtype)
    return dict(rtol=t["rtol"], atol=t["atol"] * max(1.0, k ** 0.5))


@pytest.mark.parametrize("kind_b", ["contig", "T", "step"])
@pytest.mark.parametrize("kind_a", ["contig", "T", "step"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_tiled_mm_edges(strict, dtype, kind_a, kind_b):
    for k in (0, 1, 2, 17):
        for m in TILE_M:
            for n in TILE_N:
                a, b = make(dtype, (m, k), m * 100 + n), make(dtype, (k, n), k + 7)
                r = torch.mm(layout(a, kind_a), layout(b, kind_b))
                assert r.device.type == "ocl"
                assert_close(r.cpu(), a @ b, msg=lambda s: f"{m}x{k}x{n}: {s}", **gemm_tol(dtype, k))


@pytest.mark.parametrize("mkn", [(7, 4099, 19), (70, 2000, 40), (97, 300, 65), (130, 129, 131), (300, 64, 17)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_tiled_mm_sizes(strict, dtype, mkn):
    m, k, n = mkn
    a, b = make(dtype, (m, k), 60), make(dtype, (k, n), 61)
    assert_close(torch.mm(a.to("ocl"), b.to("ocl")).cpu(), a @ b, **gemm_tol(dtype, k))
    assert_close(torch.mm(layout(a, "T"), layout(b, "T")).cpu(), a @ b, **gemm_tol(dtype, k))


@pytest.mark.parametrize("beta,alpha", [(0, 1), (0, -2.5), (1, 1), (0.5, -2), (-1, 0.25), (2, 0)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_tiled_addmm_beta_alpha(strict, dtype, beta, alpha):
    m, k, n = 37, 29, 45
    a, b = make(dtype, (m, k), 70), make(dtype, (k, n), 71)
    self_ = make(dtype, (m, n), 72)
    if beta == 0:
        self_[::3, ::2] = NAN  # beta == 0: NaN in self / out must not leak
    compare(torch.addmm(self_.to("ocl"), a.to("ocl"), b.to("ocl"), beta=beta, alpha=alpha),
            torch.addmm(self_, a, b, beta=beta, alpha=alpha))
    bias = make(dtype, (n,), 73)
    compare(torch.addmm(bias.to("ocl"), layout(a, "T"), layout(b, "step"), beta=beta, alpha=alpha),
            torch.addmm(bias, a, b, beta=beta, alpha=alpha))
    # in place, and out= of a column-major / step-sliced buffer prefilled with NaN
    x = self_.to("ocl")
    x.addmm_(a.to("ocl"), b.to("ocl"), beta=beta, alpha=alpha)
    compare(x, torch.addmm(self_, a, b, beta=beta, alpha=alpha))
    out = torch.full((n, m), NAN, dtype=dtype, device="ocl").t()
    torch.mm(a.to("ocl"), b.to("ocl"), out=out)
    compare(out, a @ b)
    wide = torch.full((m, 2 * n), NAN, dtype=dtype, device="ocl")
    torch.mm(a.to("ocl"), layout(b, "T"), out=wide[:, ::2])
    compare(wide[:, ::2], a @ b)
    assert torch.isnan(wide[:, 1::2].cpu()).all()  # the elements between are untouched


@pytest.mark.parametrize("kind", ["contig", "T", "step", "expand_a", "expand_b"])
@pytest.mark.parametrize("bmkn", [(3, 7, 5, 17), (1, 6, 16, 16), (4, 13, 33, 9), (2, 1, 1, 1), (5, 25, 0, 18)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dname)
def test_tiled_bmm_baddbmm(strict, dtype, bmkn, kind):
    bs, m, k, n = bmkn
    a, b = make(dtype, (bs, m, k), 80), make(dtype, (bs, k, n), 81)
    if kind == "expand_a":
        a = a[:1].expand(bs, m, k)
        da, db = a[:1].to("ocl").expand(bs, m, k), b.to("ocl")
    elif kind == "expand_b":
        b = b[:1].expand(bs, k, n)
        da, db = a.to("ocl"), b[:1].to("ocl").expand(bs, k, n)
    else:
        da, db = layout(a, kind), layout(b, kind)
    assert_close(torch.bmm(da, db).cpu(), torch.bmm(a, b), **gemm_tol(dtype, k))
    nan_c = torch.full((bs, m, n), NAN, dtype=dtype)
    compare(torch.baddbmm(nan_c.to("ocl"), da, db, beta=0, alpha=1.5), torch.baddbmm(nan_c, a, b, beta=0, alpha=1.5))
    c = make(dtype, (bs, m, n), 82)
    compare(torch.baddbmm(c.to("ocl"), da, db, beta=-0.5, alpha=2), torch.baddbmm(c, a, b, beta=-0.5, alpha=2))
    out = torch.full((bs, n, m), NAN, dtype=dtype, device="ocl").mT  # column-major matrices
    torch.bmm(da, db, out=out)
    compare(out, torch.bmm(a, b))


def test_tiled_matmul_4d_and_backward(strict):
    a = make(torch.float32, (2, 3, 13, 20), 90).requires_grad_()
    b = make(torch.float32, (2, 3, 20, 17), 91).requires_grad_()
    da, db = a.detach().to("ocl").requires_grad_(), b.detach().to("ocl").requires_grad_()
    y, dy = a @ b, da @ db
    g = make(torch.float32, y.shape, 92)
    y.backward(g)
    dy.backward(g.to("ocl"))
    compare(dy.detach(), y.detach())
    compare(da.grad, a.grad)
    compare(db.grad, b.grad)


def test_addr_checks_and_results_as_cpu():
    # ATen's math_addr (the composite other backends get) skips the scalar
    # checks of the CPU's and CUDA's addr; ocl's addr has them (upstream
    # test_linalg's test_addr_*).
    m, a, b = torch.randn(3, 4), torch.randn(3), torch.randn(4)
    mi, ai, bi = torch.randint(-2, 2, (3, 4)), torch.randint(-2, 2, (3,)), torch.randint(-2, 2, (4,))
    on = lambda *ts: [t.to("ocl") for t in ts]  # noqa: E731
    for args, kw, msg in [((m, a, b), dict(beta=True), "Boolean beta only supported for Boolean results"),
                          ((m, a, b), dict(alpha=True), "Boolean alpha only supported for Boolean results"),
                          ((mi, ai, bi), dict(beta=2.0), "argument beta must not be a floating point number"),
                          ((mi, ai, bi), dict(alpha=1.5), "argument alpha must not be a floating point number"),
                          ((m, m, b), {}, "Expected 1-D argument vec1")]:
        with pytest.raises(RuntimeError, match=msg):
            torch.addr(*args, **kw)
        with pytest.raises(RuntimeError, match=msg):
            torch.addr(*on(*args), **kw)
    nan_self = m.clone()
    nan_self[0, 0] = float("nan")
    for args, kw in [((m, a, b), {}), ((m, a, b), dict(beta=0.5, alpha=2)), ((nan_self, a, b), dict(beta=0)),
                     ((mi, ai, bi), dict(beta=2, alpha=3)), ((m[0], a, b), {}),
                     ((m > 0, a > 0, b > 0), dict(beta=False))]:
        assert_close(torch.addr(*on(*args), **kw).cpu(), torch.addr(*args, **kw), equal_nan=True)
    out = torch.empty(3, 4, device="ocl")
    torch.addr(*on(m, a, b), beta=2, out=out)
    assert_close(out.cpu(), torch.addr(m, a, b, beta=2))


def test_dot_refuses_bool_as_cpu_and_cuda():
    a = torch.tensor([True, False, True])
    run_both(torch.dot, a, a, same_message=True)
    run_both(torch.dot, torch.arange(4), torch.arange(4))  # integers: exact


@pytest.mark.parametrize("conj", ["none", "self", "other", "both"])
@pytest.mark.parametrize("fn", [torch.dot, torch.vdot], ids=["dot", "vdot"])
def test_complex_dot_vdot_conjugate_bits(strict, fn, conj):
    # native complex dot / vdot; conjugate views resolved as the CPU does
    # (a result may keep its conjugate bit, as the CPU's and CUDA's)
    g = torch.Generator().manual_seed(3)
    a, b = (torch.randn(7, dtype=torch.complex64, generator=g) for _ in range(2))
    view = lambda t, on: t.conj() if on else t

    def call(a, b):
        return fn(view(a, conj in ("self", "both")), view(b, conj in ("other", "both")))

    got, expected = call(a.to("ocl"), b.to("ocl")), call(a, b)
    assert got.is_conj() == expected.is_conj()
    assert_close(got.cpu(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
def test_complex_products_through_clblast(strict, dtype):
    # complex mm / bmm / addmm / addmv / baddbmm / addbmm natively (CLBlast's
    # CGEMM / ZGEMM, CGEMV / ZGEMV): conjugate and transposed views, complex
    # alpha and beta, empty K, batched broadcasting
    g = torch.Generator().manual_seed(0)
    a = torch.randn(5, 7, dtype=dtype, generator=g)
    b = torch.randn(7, 3, dtype=dtype, generator=g)
    c = torch.randn(5, 3, dtype=dtype, generator=g)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.complex64 else dict(rtol=1e-12, atol=1e-12)
    for f in (lambda a, b, c: a @ b, lambda a, b, c: a.conj() @ b, lambda a, b, c: b.mH @ a.mH,
              lambda a, b, c: a[::2] @ b[:, ::2], lambda a, b, c: a[:, :0] @ b[:0],
              lambda a, b, c: torch.addmm(c, a, b, beta=0.5 - 1j, alpha=2 + 3j),
              lambda a, b, c: torch.bmm(a.expand(2, 5, 7), b.expand(2, 7, 3).conj()),
              lambda a, b, c: torch.baddbmm(c.expand(2, 5, 3), a.expand(2, 5, 7), b.expand(2, 7, 3), alpha=1j),
              lambda a, b, c: torch.addbmm(c, a.expand(2, 5, 7), b.expand(2, 7, 3)),
              lambda a, b, c: a.conj() @ b[:, 0].conj(),
              lambda a, b, c: torch.addmv(c[:, 0], a, b[:, 0], beta=2j, alpha=1 - 1j),
              lambda a, b, c: torch.matmul(a.expand(3, 5, 7), b)):
        got = f(a.to("ocl"), b.to("ocl"), c.to("ocl"))
        torch.testing.assert_close(got.cpu(), f(a, b, c), **tol)
    x = torch.randn(4, 4, dtype=torch.complex128, generator=g, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: (t.to("ocl") @ t.to("ocl").mH).cpu(), (x,))


def conj_view(t):
    # the same values, held as a conjugate view (stored conjugated, conj bit set)
    return t.conj_physical().conj()


@pytest.mark.parametrize(
    "name, fn",
    [
        ("addmm_", lambda c, a, b: c.addmm_(a, b, beta=1 + 2j, alpha=2 + 3j)),
        ("addmm_conj_inputs", lambda c, a, b: c.addmm_(conj_view(a), conj_view(b), beta=0.5)),
        ("addmm_out", lambda c, a, b: torch.addmm(c.detach().clone(), a, b, beta=0.5, alpha=2j, out=c)),
        ("mm_out", lambda c, a, b: torch.mm(a, b, out=c)),
        ("matmul_out", lambda c, a, b: torch.matmul(a, b, out=c)),
        ("bmm_out", lambda c, a, b: torch.bmm(a.expand(2, 5, 7), b.expand(2, 7, 3), out=c.expand(2, 5, 3).clone())),
        ("baddbmm_", lambda c, a, b: c.unsqueeze(0).baddbmm_(a.unsqueeze(0), b.unsqueeze(0), beta=1 + 2j, alpha=1j)),
        ("baddbmm_out", lambda c, a, b: torch.baddbmm(c.unsqueeze(0), a.unsqueeze(0), b.unsqueeze(0), out=c.unsqueeze(0))),
        ("addmv_", lambda c, a, b: c[:, 0].addmv_(a, b[:, 0], beta=1 + 1j, alpha=2j)),
    ],
)
def test_products_into_a_conjugate_view(strict, name, fn):
    # The Conjugate key passes mm, addmm(_), bmm and baddbmm(_) and their out= forms
    # through to the kernel, so a result that is a conjugate view must be written
    # through its conj bit (PyTorch's TestMathBits.test_conj_view_addmm: addmm_ on a
    # conjugate view returned the conjugated product).
    g = torch.Generator().manual_seed(5)
    a = torch.randn(5, 7, dtype=torch.complex64, generator=g)
    b = torch.randn(7, 3, dtype=torch.complex64, generator=g)
    c = torch.randn(5, 3, dtype=torch.complex64, generator=g)
    results = []
    for dev in ("cpu", "ocl"):
        result_view = conj_view(c.to(dev))
        returned = fn(result_view, a.to(dev), b.to(dev))
        assert result_view.is_conj()
        results.append((result_view.resolve_conj().cpu(), returned.resolve_conj().cpu()))
    torch.testing.assert_close(results[1], results[0], rtol=1e-5, atol=1e-5)


# integer products (kernels/blas_integer.cl: 64-bit products and sums stored into the dtype, so
# overflow wraps as on the CPU); bool has no product on the CPU or CUDA ----------------------------

INT_DTYPES = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]


def make_int(dtype, shape, seed, big=False):
    g = torch.Generator().manual_seed(seed)
    info = torch.iinfo(dtype)
    lo, hi = (info.min, info.max) if big and dtype != torch.int64 else (max(info.min, -20), 21)
    return torch.randint(lo, hi, shape, generator=g, dtype=torch.int64).to(dtype)


@pytest.mark.parametrize("kind", ["contig", "T", "step"])
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dname)
def test_integer_products(strict, dtype, kind):
    for big in (False, True):  # big: values over the dtype's range, products and sums wrap
        a, b = make_int(dtype, (6, 9), 1, big), make_int(dtype, (9, 5), 2, big)
        bias, vec = make_int(dtype, (5,), 3, big), make_int(dtype, (9,), 4, big)
        ba, bb = make_int(dtype, (3, 6, 9), 5, big), make_int(dtype, (3, 9, 5), 6, big)
        compare(torch.mm(layout(a, kind), layout(b, kind)), a @ b)
        for beta, alpha in ((1, 1), (0, 2), (3, -1), (2, 0)):
            compare(torch.addmm(bias.to("ocl"), layout(a, kind), b.to("ocl"), beta=beta, alpha=alpha),
                    torch.addmm(bias, a, b, beta=beta, alpha=alpha))
            compare(torch.addmv(bias[:1].expand(6).to("ocl"), layout(a, kind), vec.to("ocl"), beta=beta, alpha=alpha),
                    torch.addmv(bias[:1].expand(6), a, vec, beta=beta, alpha=alpha))
            compare(torch.baddbmm(bias.to("ocl"), layout(ba, kind), bb.to("ocl"), beta=beta, alpha=alpha),
                    torch.baddbmm(bias, ba, bb, beta=beta, alpha=alpha))
            compare(torch.addbmm(bias.to("ocl"), ba.to("ocl"), layout(bb, kind), beta=beta, alpha=alpha),
                    torch.addbmm(bias, ba, bb, beta=beta, alpha=alpha))
        compare(torch.matmul(layout(ba, kind), b.to("ocl")), ba @ b)
        compare(torch.bmm(ba.to("ocl"), bb.to("ocl").expand(3, 9, 5)), torch.bmm(ba, bb))
        out = torch.zeros(5, 6, dtype=dtype, device="ocl").t()  # column-major out
        torch.mm(a.to("ocl"), layout(b, kind), out=out)
        compare(out, a @ b)


def test_integer_product_empty_and_bool_error(strict):
    a, b = torch.ones(3, 0, dtype=torch.int64), torch.ones(0, 4, dtype=torch.int64)
    compare(torch.mm(a.to("ocl"), b.to("ocl")), a @ b)  # K = 0: zeros
    compare(torch.addmm(torch.full((4,), 7).to("ocl"), a.to("ocl"), b.to("ocl"), beta=2),
            torch.addmm(torch.full((4,), 7), a, b, beta=2))
    x = torch.ones(2, 2, dtype=torch.bool)
    with pytest.raises(RuntimeError):
        torch.mm(x, x)
    with torch.ocl.fallback_mode("silent"), pytest.raises(RuntimeError):  # the CPU's error, through the fallback
        torch.mm(x.to("ocl"), x.to("ocl"))
