"""sum, mm/addmm/bmm, matmul and F.linear on ocl against PyTorch CPU."""

import itertools

import pytest
import torch
import torch.nn.functional as F

from cpu_reference import assert_matches_cpu


def dname(dtype):
    return str(dtype).replace("torch.", "")


def make(dtype, shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    return torch.randint(-20, 20, shape, generator=g).to(dtype)


# sum ---------------------------------------------------------------------------------------------

DIM_COMBOS = [c for r in (1, 2, 3) for c in itertools.combinations(range(3), r)]


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dims", DIM_COMBOS, ids=lambda d: "d" + "".join(map(str, d)))
def test_sum_dims(strict, dims, keepdim):
    x = make(torch.float32, (3, 4, 5), seed=1)
    d = x.to("ocl")
    assert_matches_cpu(d.sum(dim=dims, keepdim=keepdim), x.sum(dim=dims, keepdim=keepdim))
    neg = tuple(i - 3 for i in dims)
    assert_matches_cpu(d.sum(dim=neg, keepdim=keepdim), x.sum(dim=neg, keepdim=keepdim))
    if len(dims) == 1:
        assert_matches_cpu(d.sum(dims[0], keepdim), x.sum(dims[0], keepdim))


def test_sum_full(strict):
    x = make(torch.float32, (3, 4, 5), seed=2)
    d = x.to("ocl")
    assert_matches_cpu(d.sum(), x.sum())
    assert d.sum().dim() == 0
    assert_matches_cpu(torch.sum(d), x.sum())
    s = torch.tensor(2.5)
    assert_matches_cpu(s.to("ocl").sum(), s.sum())
    assert_matches_cpu(s.to("ocl").sum(0), s.sum(0))
    assert_matches_cpu(s.to("ocl").sum(0, keepdim=True), s.sum(0, keepdim=True))


@pytest.mark.parametrize(
    "in_dtype,kwargs",
    [
        (torch.float32, {"dtype": torch.float64}),
        (torch.float64, {"dtype": torch.float32}),
        (torch.int32, {}),
        (torch.bool, {}),
        (torch.uint8, {}),
        (torch.int64, {}),
        (torch.int32, {"dtype": torch.float32}),
        (torch.float16, {}),
        (torch.bfloat16, {}),
        (torch.float16, {"dtype": torch.float32}),
        (torch.bool, {"dtype": torch.int32}),
    ],
    ids=lambda v: dname(v) if isinstance(v, torch.dtype) else "-".join(f"{k}={dname(x)}" for k, x in v.items()) or "default",
)
def test_sum_dtypes(strict, in_dtype, kwargs):
    x = make(in_dtype, (6, 7, 5), seed=3)
    d = x.to("ocl")
    for dims in ((), (1,), (0, 2)):
        if dims:
            expected = x.sum(dim=dims, **kwargs)
            actual = d.sum(dim=dims, **kwargs)
        else:
            expected, actual = x.sum(**kwargs), d.sum(**kwargs)
        assert_matches_cpu(actual, expected)
    if in_dtype in (torch.int32, torch.bool, torch.uint8) and not kwargs:
        assert d.sum().dtype == torch.int64


def test_sum_int_exact_large_values(strict):
    x = torch.full((1000,), 2**40, dtype=torch.int64)
    x[::7] = -(2**41)
    assert_matches_cpu(x.to("ocl").sum(), x.sum(), rtol=0, atol=0)
    y = torch.full((3000,), 2**30, dtype=torch.int32)  # sum overflows int32, fits int64
    assert_matches_cpu(y.to("ocl").sum(), y.sum(), rtol=0, atol=0)


@pytest.mark.parametrize(
    "view",
    [lambda t: t.transpose(0, 2), lambda t: t[:, ::2], lambda t: t.permute(1, 2, 0)[1:],
     lambda t: t[:, :1].expand(6, 5, 7)],
    ids=["transposed", "sliced", "permuted", "expanded"],
)
@pytest.mark.parametrize("dims", [None, (0,), (1,), (2,), (0, 2), (1, 2)], ids=str)
def test_sum_non_contiguous(strict, view, dims):
    x = make(torch.float64, (6, 8, 7), seed=4)
    d = x.to("ocl")
    v, vd = view(x), view(d)
    if dims is None:
        assert_matches_cpu(vd.sum(), v.sum())
    else:
        assert_matches_cpu(vd.sum(dims), v.sum(dims))
        assert_matches_cpu(vd.sum(dims, keepdim=True), v.sum(dims, keepdim=True))


def test_sum_empty(strict):
    for shape, dims in [((0,), None), ((0, 3), (0,)), ((0, 3), (1,)), ((2, 0, 4), (1,)), ((2, 0, 4), (0, 2)),
                        ((0, 3), None)]:
        x = torch.empty(shape)
        d = torch.empty(shape, device="ocl")
        if dims is None:
            assert_matches_cpu(d.sum(), x.sum())
        else:
            assert_matches_cpu(d.sum(dims), x.sum(dims))
            assert_matches_cpu(d.sum(dims, keepdim=True), x.sum(dims, keepdim=True))
    assert_matches_cpu(torch.empty(0, 5, dtype=torch.int32, device="ocl").sum(0), torch.empty(0, 5, dtype=torch.int32).sum(0))


def test_sum_out(strict):
    x = make(torch.float32, (4, 5), seed=5)
    out = torch.empty(0, device="ocl")
    torch.sum(x.to("ocl"), 1, out=out)
    assert_matches_cpu(out, x.sum(1))
    out2 = torch.zeros(10, device="ocl")[::2]
    torch.sum(x.to("ocl"), 0, out=out2)
    assert_matches_cpu(out2, x.sum(0))


def test_sum_large_1d(strict):
    n = 2**22
    # small integers: every summation order is exact in float32
    xi = torch.randint(0, 4, (n,), generator=torch.Generator().manual_seed(6)).float()
    assert_matches_cpu(xi.to("ocl").sum(), xi.sum(), rtol=0, atol=0)
    x = torch.randn(n, generator=torch.Generator().manual_seed(7))
    ref = x.double().sum()
    got = x.to("ocl").sum().cpu().double()
    assert abs(got - ref) <= 1e-5 * x.abs().double().sum(), (got, ref)
    assert_matches_cpu(x.to("ocl")[1::3].sum(), x[1::3].sum(), rtol=1e-4, atol=1e-1)


@pytest.mark.parametrize(
    "shape,dims",
    [((2048, 1024), (0,)), ((2048, 1024), (1,)), ((2048, 1024), None), ((3, 300001), (1,)),
     ((300001, 3), (0,)), ((700, 1500), (0,))],
    ids=str,
)
def test_sum_large_2d(strict, shape, dims):
    x = torch.randint(-3, 4, shape, generator=torch.Generator().manual_seed(8)).float()
    d = x.to("ocl")
    if dims is None:
        assert_matches_cpu(d.sum(), x.sum(), rtol=0, atol=0)
    else:
        assert_matches_cpu(d.sum(dims), x.sum(dims), rtol=0, atol=0)
        assert_matches_cpu(d.t().sum(dims), x.t().sum(dims), rtol=0, atol=0)
    xf = torch.randn(shape, generator=torch.Generator().manual_seed(9))
    if dims is not None:
        assert_matches_cpu(xf.to("ocl").sum(dims), xf.sum(dims), rtol=1e-4, atol=1e-3)


def test_sum_backward(strict):
    x = make(torch.float32, (3, 4, 5), seed=10)
    xd = x.to("ocl").requires_grad_()
    xc = x.clone().requires_grad_()
    g = make(torch.float32, (3, 5), seed=11)
    xd.sum(1).backward(g.to("ocl"))
    xc.sum(1).backward(g)
    assert_matches_cpu(xd.grad, xc.grad)
    xd.grad = None
    xd.sum().backward()
    assert_matches_cpu(xd.grad, torch.ones(3, 4, 5))


# mm / addmm / bmm ----------------------------------------------------------------------------------

BLAS_DTYPES = [torch.float32, torch.float64]
# (m, k, n)
MM_SHAPES = [(5, 7, 3), (1, 9, 4), (6, 8, 1), (1, 5, 1), (4, 0, 3), (33, 65, 17), (0, 3, 4)]


def operand(x, transposed):
    """x (CPU) and the same values on ocl, as a transposed view when asked."""
    if transposed:
        d = x.t().contiguous().to("ocl").t()
        assert not d.is_contiguous() or min(x.shape) <= 1
        return d
    return x.to("ocl")


def tol(dtype):
    return {"rtol": 1e-4, "atol": 1e-4} if dtype == torch.float32 else {"rtol": 1e-10, "atol": 1e-10}


@pytest.mark.parametrize("tb", [False, True], ids=["b", "bT"])
@pytest.mark.parametrize("ta", [False, True], ids=["a", "aT"])
@pytest.mark.parametrize("shape", MM_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", BLAS_DTYPES, ids=dname)
def test_mm(strict, dtype, shape, ta, tb):
    m, k, n = shape
    a, b = make(dtype, (m, k), seed=12), make(dtype, (k, n), seed=13)
    da, db = operand(a, ta), operand(b, tb)
    assert_matches_cpu(torch.mm(da, db), a @ b, **tol(dtype))
    assert_matches_cpu(da @ db, a @ b, **tol(dtype))


def test_mm_sliced_operands_and_out(strict):
    a, b = make(torch.float32, (10, 12), seed=14), make(torch.float32, (12, 9), seed=15)
    da, db = a.to("ocl"), b.to("ocl")
    assert_matches_cpu(da[1:7, 2:9] @ db[2:9, ::2], a[1:7, 2:9] @ b[2:9, ::2], **tol(torch.float32))
    assert_matches_cpu(da[::2, ::3] @ db[::3, 1:], a[::2, ::3] @ b[::3, 1:], **tol(torch.float32))
    out = torch.empty(9, 10, device="ocl").t()
    torch.mm(da, db, out=out)
    assert out.stride() == (1, 10)
    assert_matches_cpu(out, a @ b, **tol(torch.float32))
    out2 = torch.empty(0, device="ocl")
    torch.mm(da, db, out=out2)
    assert_matches_cpu(out2, a @ b, **tol(torch.float32))


def test_mm_shape_mismatch_raises(strict):
    with pytest.raises(RuntimeError):
        torch.mm(torch.ones(2, 3, device="ocl"), torch.ones(4, 2, device="ocl"))
    with pytest.raises(RuntimeError):
        torch.bmm(torch.ones(2, 2, 3, device="ocl"), torch.ones(3, 3, 2, device="ocl"))


@pytest.mark.parametrize(
    "fn,shapes",
    [
        (torch.mm, [(2, 3), (3, 2)]),
        (torch.bmm, [(1, 2, 3), (1, 3, 2)]),
        (torch.matmul, [(2, 3), (3, 2)]),
        (lambda c, a, b: torch.addmm(c, a, b), [(2, 2), (2, 3), (3, 2)]),
    ],
    ids=["mm", "bmm", "matmul", "addmm"],
)
@pytest.mark.parametrize("order", ["f32_f64", "f64_f32"])
def test_blas_dtype_mismatch_raises(strict, fn, shapes, order):
    first, second = (torch.float32, torch.float64) if order == "f32_f64" else (torch.float64, torch.float32)
    cpu = [torch.ones(s, dtype=first if i < len(shapes) - 1 else second) for i, s in enumerate(shapes)]
    with pytest.raises(RuntimeError):
        fn(*cpu)
    with pytest.raises(RuntimeError, match="(dtype|scalar type)"):
        fn(*[t.to("ocl") for t in cpu])


@pytest.mark.parametrize(
    "beta,alpha,nan_in_self",
    [(1, 1, False), (0.5, 2.0, False), (0, 1, True), (0, 0.5, True), (1, 0, False), (-1.5, 1, False), (0, 0, True)],
    ids=lambda v: str(v),
)
@pytest.mark.parametrize("self_shape", ["full", "row", "col", "scalar"])
@pytest.mark.parametrize("dtype", BLAS_DTYPES, ids=dname)
def test_addmm(strict, dtype, self_shape, beta, alpha, nan_in_self):
    m, k, n = 6, 5, 4
    shapes = {"full": (m, n), "row": (n,), "col": (m, 1), "scalar": ()}
    c = make(dtype, shapes[self_shape], seed=16)
    if nan_in_self:
        c.fill_(float("nan"))
    a, b = make(dtype, (m, k), seed=17), make(dtype, (k, n), seed=18)
    expected = torch.addmm(c, a, b, beta=beta, alpha=alpha)
    for ta, tb in itertools.product([False, True], repeat=2):
        actual = torch.addmm(c.to("ocl"), operand(a, ta), operand(b, tb), beta=beta, alpha=alpha)
        assert_matches_cpu(actual, expected, **tol(dtype))


@pytest.mark.parametrize("dtype", BLAS_DTYPES, ids=dname)
def test_addmm_inplace_out_and_k0(strict, dtype):
    c, a, b = make(dtype, (4, 3), seed=19), make(dtype, (4, 6), seed=20), make(dtype, (6, 3), seed=21)
    dc = c.to("ocl")
    ret = dc.addmm_(a.to("ocl"), b.to("ocl"), beta=2, alpha=-1)
    assert ret is dc
    assert_matches_cpu(dc, c.clone().addmm_(a, b, beta=2, alpha=-1), **tol(dtype))
    # in-place on a transposed self
    ct = make(dtype, (3, 4), seed=22)
    dct = ct.to("ocl")
    dct.t().addmm_(a.to("ocl"), b.to("ocl"), beta=0.5)
    ct.t().addmm_(a, b, beta=0.5)
    assert_matches_cpu(dct, ct, **tol(dtype))
    out = torch.empty(0, dtype=dtype, device="ocl")
    torch.addmm(c.to("ocl"), a.to("ocl"), b.to("ocl"), out=out)
    assert_matches_cpu(out, torch.addmm(c, a, b), **tol(dtype))
    # k = 0: the result is beta * self
    a0, b0 = torch.empty(4, 0, dtype=dtype), torch.empty(0, 3, dtype=dtype)
    assert_matches_cpu(torch.addmm(c.to("ocl"), a0.to("ocl"), b0.to("ocl"), beta=3), torch.addmm(c, a0, b0, beta=3))
    nan_c = torch.full((4, 3), float("nan"), dtype=dtype)
    assert_matches_cpu(torch.addmm(nan_c.to("ocl"), a0.to("ocl"), b0.to("ocl"), beta=0), torch.addmm(nan_c, a0, b0, beta=0))


BMM_LAYOUTS = {
    "contig": lambda x: x.to("ocl"),
    "transposed": lambda x: x.transpose(1, 2).contiguous().to("ocl").transpose(1, 2),
    "batch_inner": lambda x: x.permute(1, 0, 2).contiguous().to("ocl").permute(1, 0, 2),
    "sliced": lambda x: torch.cat([x, x], 2).to("ocl")[:, :, : x.shape[2]],
}


@pytest.mark.parametrize("lb", list(BMM_LAYOUTS))
@pytest.mark.parametrize("la", list(BMM_LAYOUTS))
@pytest.mark.parametrize("dtype", BLAS_DTYPES, ids=dname)
def test_bmm(strict, dtype, la, lb):
    a, b = make(dtype, (3, 5, 7), seed=23), make(dtype, (3, 7, 4), seed=24)
    da, db = BMM_LAYOUTS[la](a), BMM_LAYOUTS[lb](b)
    assert_matches_cpu(torch.bmm(da, db), torch.bmm(a, b), **tol(dtype))


@pytest.mark.parametrize("dtype", BLAS_DTYPES, ids=dname)
def test_bmm_odd_shapes(strict, dtype):
    for (bs, m, k, n) in [(1, 1, 5, 1), (4, 3, 0, 2), (0, 3, 4, 2), (2, 1, 6, 3), (2, 6, 1, 1), (5, 17, 33, 9)]:
        a, b = make(dtype, (bs, m, k), seed=25), make(dtype, (bs, k, n), seed=26)
        assert_matches_cpu(torch.bmm(a.to("ocl"), b.to("ocl")), torch.bmm(a, b), **tol(dtype))
    # an expanded (batch stride 0) operand
    a, b = make(dtype, (1, 4, 5), seed=27), make(dtype, (3, 5, 2), seed=28)
    assert_matches_cpu(torch.bmm(a.to("ocl").expand(3, 4, 5), b.to("ocl")), torch.bmm(a.expand(3, 4, 5), b), **tol(dtype))


def test_bmm_out(strict):
    a, b = make(torch.float32, (2, 3, 4), seed=29), make(torch.float32, (2, 4, 5), seed=30)
    out = torch.empty(2, 5, 3, device="ocl").transpose(1, 2)
    torch.bmm(a.to("ocl"), b.to("ocl"), out=out)
    assert_matches_cpu(out, torch.bmm(a, b), **tol(torch.float32))


MATMUL_SHAPES = [
    ((4, 5), (5, 3)), ((2, 4, 5), (2, 5, 3)), ((2, 4, 5), (5, 3)), ((3, 2, 4, 5), (5, 6)),
    ((5,), (5, 3)), ((2, 3, 5), (1, 5, 4)),
]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", BLAS_DTYPES, ids=dname)
def test_matmul(strict, dtype, shapes):
    a, b = make(dtype, shapes[0], seed=31), make(dtype, shapes[1], seed=32)
    assert_matches_cpu(torch.matmul(a.to("ocl"), b.to("ocl")), torch.matmul(a, b), **tol(dtype))


@pytest.mark.parametrize("shapes", [((4, 5), (5,)), ((5,), (5,)), ((2, 3, 5), (5,))], ids=str)
def test_matmul_vector_cases(strict, shapes):
    # matrix-vector and dot products: native (addmv / dot)
    a, b = make(torch.float32, shapes[0], seed=33), make(torch.float32, shapes[1], seed=34)
    actual = torch.matmul(a.to("ocl"), b.to("ocl"))
    assert_matches_cpu(actual, torch.matmul(a, b), **tol(torch.float32))


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("in_shape", [(6,), (4, 6), (2, 3, 6)], ids=str)
@pytest.mark.parametrize("dtype", BLAS_DTYPES, ids=dname)
def test_linear_forward(strict, dtype, in_shape, bias):
    x, w = make(dtype, in_shape, seed=35), make(dtype, (5, 6), seed=36)
    b = make(dtype, (5,), seed=37) if bias else None
    actual = F.linear(x.to("ocl"), w.to("ocl"), b.to("ocl") if bias else None)
    assert_matches_cpu(actual, F.linear(x, w, b), **tol(dtype))
    # a transposed weight view
    wt = w.t().contiguous().to("ocl").t()
    assert_matches_cpu(F.linear(x.to("ocl"), wt, b.to("ocl") if bias else None), F.linear(x, w, b), **tol(dtype))


# Backward -----------------------------------------------------------------------------------------


def grads(fn, inputs, device, grad_seed=50):
    leaves = [t.detach().to(device).requires_grad_() for t in inputs]
    out = fn(*leaves)
    g = make(out.dtype, tuple(out.shape), seed=grad_seed)
    out.backward(g.to(device))
    return out.detach(), [leaf.grad for leaf in leaves]


BACKWARD_CASES = {
    "mm": (lambda a, b: torch.mm(a, b), [(5, 4), (4, 3)]),
    "mm_t": (lambda a, b: torch.mm(a.t(), b.t()), [(4, 5), (3, 4)]),
    "mm_1xN": (lambda a, b: a @ b, [(1, 7), (7, 3)]),
    "mm_Nx1": (lambda a, b: a @ b, [(6, 7), (7, 1)]),
    "addmm": (lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2), [(5, 3), (5, 4), (4, 3)]),
    "addmm_bias": (lambda c, a, b: torch.addmm(c, a, b), [(3,), (5, 4), (4, 3)]),
    "bmm": (lambda a, b: torch.bmm(a, b), [(2, 5, 4), (2, 4, 3)]),
    "matmul_3d_2d": (lambda a, b: torch.matmul(a, b), [(2, 5, 4), (4, 3)]),
    "matmul_4d": (lambda a, b: torch.matmul(a, b), [(2, 2, 5, 4), (2, 2, 4, 3)]),
    "linear": (lambda x, w, b: F.linear(x, w, b), [(2, 3, 4), (5, 4), (5,)]),
    "linear_nobias": (lambda x, w: F.linear(x, w), [(3, 4), (5, 4)]),
}


@pytest.mark.parametrize("case", list(BACKWARD_CASES))
@pytest.mark.parametrize("dtype", BLAS_DTYPES, ids=dname)
def test_blas_backward(strict, dtype, case):
    fn, shapes = BACKWARD_CASES[case]
    inputs = [make(dtype, s, seed=60 + i) for i, s in enumerate(shapes)]
    out_c, grads_c = grads(fn, inputs, "cpu")
    out_d, grads_d = grads(fn, inputs, "ocl")
    assert_matches_cpu(out_d, out_c, **tol(dtype))
    for gd, gc in zip(grads_d, grads_c):
        assert gd is not None
        assert_matches_cpu(gd, gc, **tol(dtype))


# Integer products are native (kernels/blas_integer.cl; more in test_blas.py); float16/bfloat16 too


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64], ids=dname)
def test_mm_integer_dtypes(strict, dtype):
    a, b = make(dtype, (6, 5), seed=70), make(dtype, (5, 4), seed=71)
    expected = torch.mm(a, b)
    assert_matches_cpu(torch.mm(a.to("ocl"), b.to("ocl")), expected)
    assert_matches_cpu(torch.mm(a.t().contiguous().to("ocl").t(), b.to("ocl")), expected)


@pytest.mark.parametrize("dtype", [torch.int32], ids=dname)
def test_addmm_bmm_integer_dtypes(strict, dtype):
    c, a, b = make(dtype, (6, 4), seed=72), make(dtype, (6, 5), seed=73), make(dtype, (5, 4), seed=74)
    actual = torch.addmm(c.to("ocl"), a.to("ocl"), b.to("ocl"), beta=2, alpha=3)
    actual_b = torch.bmm(a.to("ocl").unsqueeze(0), b.to("ocl").unsqueeze(0))
    assert_matches_cpu(actual, torch.addmm(c, a, b, beta=2, alpha=3))
    assert_matches_cpu(actual_b, torch.bmm(a.unsqueeze(0), b.unsqueeze(0)))


def test_sum_size_one_and_many_dims(strict):
    x = make(torch.float32, (3, 1, 5, 1), seed=80)
    d = x.to("ocl")
    for dims in [(1,), (0, 1), (1, 2), (3,), (1, 3), (0, 2)]:
        assert_matches_cpu(d.sum(dims), x.sum(dims))
        assert_matches_cpu(d.sum(dims, keepdim=True), x.sum(dims, keepdim=True))
    y = make(torch.float32, (2,) * 12, seed=81)
    perm = list(range(0, 12, 2)) + list(range(1, 12, 2))
    assert_matches_cpu(y.to("ocl").permute(perm).sum((0, 2, 4)), y.permute(perm).sum((0, 2, 4)))


@pytest.mark.parametrize("m,k,n", [(4096, 64, 256), (1000, 33, 517), (130, 70, 90)])
def test_mm_needing_clblast_temp_buffer_leaves_other_tensors_intact(strict, m, k, n):
    """Sizes that make CLBlast use its temp buffer; the temp buffer once
    overwrote neighbouring allocator blocks (wrong logits in the demo)."""
    g = torch.Generator().manual_seed(m + k + n)
    a, b = torch.randn(m, k, generator=g), torch.randn(k, n, generator=g)
    # 2.4 MB each: large-pool blocks that share a segment with the temp buffer
    neighbours = [torch.randn(600_000, generator=g) for _ in range(3)]
    on_device = [t.to("ocl") for t in neighbours]
    out = (a.to("ocl") @ b.to("ocl")).cpu()
    torch.testing.assert_close(out, a @ b, rtol=1e-4, atol=1e-4)
    for dev, host in zip(on_device, neighbours):
        torch.testing.assert_close(dev.cpu(), host, rtol=0, atol=0)


def test_mlp_forward_on_a_large_batch_matches_cpu(strict):
    """The demo's model on 4096 rows: CLBlast's temp buffer once overwrote
    neighbouring allocator blocks here (logits off by ~3)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                torch.nn.ReLU(), torch.nn.Linear(256, 8))
    x = torch.randn(4096, 64)
    ref = model(x)
    with torch.no_grad():
        got = model.to("ocl")(x.to("ocl")).cpu()
    torch.testing.assert_close(got, ref.detach(), rtol=1e-4, atol=1e-4)
