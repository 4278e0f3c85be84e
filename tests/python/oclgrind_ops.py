"""Every kernel family once, at small sizes, forward and backward, compared
with the CPU under TORCH_OCL_FALLBACK=error. test_oclgrind.py runs this
script on oclgrind (a simulated GPU-class OpenCL device that reports
out-of-bounds accesses, API misuse and data races); it can run on any ocl
device: `python tests/python/oclgrind_ops.py [name-substring]`.

Prints one line per case ("ok <name>" or "FAIL <name>: <why>") and exits 1
if any case failed."""

import sys

import torch
import torch.nn.functional as F
import torch_ocl  # noqa: F401
from torch.testing import assert_close

torch.manual_seed(0)
OCL = "ocl"


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def grads_of(fn, args, device):
    """fn(*args) on `device`, and the gradients of its sum w.r.t. the floating args."""
    moved = [a.to(device).requires_grad_(a.is_floating_point()) if isinstance(a, torch.Tensor) else a for a in args]
    out = fn(*moved)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    float_outs = [o for o in outs if isinstance(o, torch.Tensor) and o.is_floating_point() and o.requires_grad]
    leaves = [a for a in moved if isinstance(a, torch.Tensor) and a.requires_grad]
    grads = torch.autograd.grad(sum(o.float().sum() for o in float_outs), leaves) if float_outs and leaves else ()
    return [o.detach() for o in outs if isinstance(o, torch.Tensor)], list(grads)


def check(fn, *args, backward=True, atol=1e-4, rtol=1e-4):
    if backward:
        cpu_out, cpu_grads = grads_of(fn, args, "cpu")
        ocl_out, ocl_grads = grads_of(fn, args, OCL)
    else:
        cpu_out = fn(*args)
        ocl_out = fn(*[a.to(OCL) if isinstance(a, torch.Tensor) else a for a in args])
        cpu_out, ocl_out = [cpu_out] if isinstance(cpu_out, torch.Tensor) else list(cpu_out), (
            [ocl_out] if isinstance(ocl_out, torch.Tensor) else list(ocl_out))
        cpu_grads = ocl_grads = []
    for got, want in zip(list(ocl_out) + list(ocl_grads), list(cpu_out) + list(cpu_grads)):
        assert_close(got.cpu(), want, atol=atol, rtol=rtol, equal_nan=True)


def compiled_on_ocl(fn):
    """fn compiled (Inductor's OpenCL generator) for ocl inputs, eager for the CPU reference."""
    compiled = torch.compile(fn)
    return lambda *args: (compiled if args[0].device.type != "cpu" else fn)(*args)


def _inductor_graph(x, w, i):
    # pointwise with broadcasting, a welford (var_mean) and a softmax reduction, an indirect load
    h = torch.nn.functional.gelu(x * w + 1.0)
    v, m = torch.var_mean(h, dim=1, keepdim=True)
    return torch.softmax((h - m) / (v + 1e-5).sqrt(), dim=-1)[i % x.shape[0]], h.amax(0)


x4 = r(2, 3, 5, 6)
idx = torch.randint(0, 5, (7,))
CASES = {
    # pointwise: contiguous, strided, broadcast, dtypes
    "add_mul_strided": lambda: check(lambda a, b: a.t() * 2 + b, r(5, 4), r(4, 5)),
    "unary_transcendental": lambda: check(lambda a: torch.tanh(a).exp() + torch.sigmoid(a), r(33)),
    "where_broadcast": lambda: check(lambda a, b: torch.where(a > 0, a, b), r(3, 1, 4), r(1, 5, 4)),
    "half_bfloat16": lambda: check(lambda a, b: (a * 3).float() + b.float(), r(17, dtype=torch.half),
                                   r(17, dtype=torch.bfloat16), backward=False, atol=1e-2, rtol=1e-2),
    "float64": lambda: check(lambda a: a.pow(3) - a, r(9, dtype=torch.float64)),
    "int_ops": lambda: check(lambda a: (a // 3) % 5 + (a << 1), torch.randint(-50, 50, (40,)), backward=False),
    "complex": lambda: check(lambda a: (a * a.conj()).abs(), torch.randn(8, dtype=torch.complex64), backward=False),
    "copy_cast_strided": lambda: check(lambda a: a.t().contiguous().to(torch.float64), r(6, 7), backward=False),
    # reductions: every layout
    "sum_all": lambda: check(lambda a: a.sum(), r(1000)),
    "sum_inner_outer": lambda: check(lambda a: (a.sum(1), a.sum(0)), r(37, 41)),
    "mean_var_std": lambda: check(lambda a: (a.mean(0), a.var(1), a.std()), r(9, 11)),
    "max_argmin": lambda: check(lambda a: (a.amax(1), a.argmin(0)), r(8, 13)),
    "norm_logsumexp": lambda: check(lambda a: (torch.linalg.vector_norm(a, dim=1), torch.logsumexp(a, 0)), r(6, 10)),
    # nn
    "softmax_log_softmax": lambda: check(lambda a: (F.softmax(a, 1), F.log_softmax(a, 0)), r(5, 9)),
    "layer_norm": lambda: check(lambda a, w, b: F.layer_norm(a, (8,), w, b), r(4, 8), r(8), r(8)),
    "batch_norm_train": lambda: check(lambda a, w, b: F.batch_norm(a, None, None, w, b, training=True),
                                      r(4, 3, 5), r(3), r(3)),
    "group_norm": lambda: check(lambda a: F.group_norm(a, 2), r(2, 4, 6)),
    "conv2d": lambda: check(lambda a, w, b: F.conv2d(a, w, b, padding=1), x4, r(4, 3, 3, 3), r(4)),
    "conv_transpose2d": lambda: check(lambda a, w: F.conv_transpose2d(a, w, stride=2), r(1, 2, 3, 3), r(2, 3, 2, 2)),
    "max_avg_pool": lambda: check(lambda a: (F.max_pool2d(a, 2), F.avg_pool2d(a, 3, 1, 1)), x4),
    "adaptive_pool": lambda: check(lambda a: F.adaptive_avg_pool2d(a, (2, 3)), x4),
    "upsample": lambda: check(lambda a: (F.interpolate(a, scale_factor=2, mode="bilinear"),
                                         F.interpolate(a, size=(4, 9), mode="nearest")), x4),
    "pad_reflect": lambda: check(lambda a: F.pad(a, (1, 2, 2, 1), mode="reflect"), x4),
    "embedding": lambda: check(lambda w, i: F.embedding(i, w), r(5, 4), idx),
    "losses": lambda: check(lambda a, t: (F.cross_entropy(a, t), F.mse_loss(a, a * 0.5)), r(6, 5),
                            torch.randint(0, 5, (6,))),
    "sdpa": lambda: check(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                          r(2, 2, 5, 8), r(2, 2, 5, 8), r(2, 2, 5, 8)),
    "lstm": lambda: check(lambda a, w1, w2, b1, b2: torch._VF.lstm(a, (torch.zeros_like(a[:1, :, :4]).expand(1, 3, 4).contiguous(),) * 2,
                                                               (w1, w2, b1, b2), True, 1, 0.0, False, False, False)[0],
                          r(5, 3, 6), r(16, 6), r(16, 4), r(16), r(16)),
    # BLAS (CLBlast)
    "mm_bmm_addmm": lambda: check(lambda a, b, c: (a @ b, torch.bmm(c, c.transpose(1, 2)), torch.addmm(a[:, :1], a, b)),
                                  r(6, 7), r(7, 5), r(2, 3, 4)),
    # one-launch tiny products (CPU profile, kernels/blas_small.cl): both layouts, the addend broadcast
    # from (n,), (m, 1) and (m, n), a column-major out= and an expanded (stride-0) batch
    "gemm_tiny_layouts": lambda: check(
        lambda a, w, bn, bm, c: (a @ w.t(), a @ w.t().contiguous(),
                                 torch.addmm(bn, a, w.t()), torch.addmm(bm, a, w.t(), beta=0.5, alpha=2),
                                 torch.addmm(bm.expand(5, 6), a.t().contiguous().t(), w.t()),
                                 torch.mm(a.detach(), w.detach().t(), out=torch.empty(6, 5, device=a.device).t()),
                                 torch.bmm(c.expand(3, 4, 7), a[:, :7].t().expand(3, 7, 5)[:, :, :2])),
        r(5, 9), r(6, 9), r(6), r(5, 1), r(1, 4, 7), backward=True),
    # weight-only quantized products (kernels/quantized_mm.cl); the int4 weight is packed on each side
    "quantized_mm": lambda: check(
        lambda a, q, sz, b8, s8: (torch._weight_int4pack_mm(a, torch._convert_weight_to_int4pack(q, 2), 32, sz),
                                  torch._weight_int8pack_mm(a[:, ::2], b8, s8))
        if a.device.type != "cpu" else
        (torch._weight_int4pack_mm_for_cpu(a, torch._convert_weight_to_int4pack_for_cpu(
            torch.stack([q >> 4, q & 15], -1).view(q.shape[0], -1).int(), 2), 32, sz),
         torch._weight_int8pack_mm(a[:, ::2].contiguous(), b8, s8)),
        r(3, 64), torch.randint(0, 256, (16, 32), dtype=torch.uint8), torch.rand(2, 16, 2),
        torch.randint(-128, 128, (5, 32), dtype=torch.int8), torch.rand(5), backward=False),
    # FFT (VkFFT's generated kernels; 17: Bluestein)
    "fft_rfft_irfft": lambda: check(lambda a, b: (torch.view_as_real(torch.fft.rfft(a)), torch.fft.irfft(torch.fft.fft(b), n=17)),
                                    r(3, 12), r(2, 17)),
    # dense linear algebra (kernels/linalg.cl: a work group per matrix, barriers between steps)
    "cholesky_lu_solve": lambda: check(lambda a, b: (torch.linalg.cholesky(a @ a.mT + 5 * torch.eye(5, device=a.device)),
                                                     torch.linalg.solve(a, b), torch.linalg.lu_factor(a[0, :4]).LU,
                                                     torch.linalg.solve_triangular(a.triu() + 3 * torch.eye(5, device=a.device), b,
                                                                                   upper=True)),
                                       r(2, 5, 5), r(2, 5, 3)),
    "qr_eigh_svd": lambda: check(lambda a: (torch.linalg.qr(a).R.abs(), torch.linalg.eigvalsh(a[:, :4] @ a[:, :4].mT),
                                            torch.linalg.svdvals(a)), r(2, 6, 4), backward=False),
    "ldl": lambda: (check(lambda a, b: (torch.linalg.ldl_factor(a + a.mT).LD,
                                        torch.linalg.ldl_solve(*torch.linalg.ldl_factor(a + a.mT), b)),
                          r(2, 6, 6), r(2, 6, 2), backward=False),
                    check(lambda a, b: torch.linalg.ldl_solve(*torch.linalg.ldl_factor(a + a.mH, hermitian=True), b,
                                                              hermitian=True),
                          torch.randn(5, 5, dtype=torch.complex64), torch.randn(5, 2, dtype=torch.complex64),
                          backward=False)),
    "eig": lambda: (check(lambda a: (torch.linalg.eigvals(a), torch.linalg.eig(a)[1].abs()), r(2, 5, 5), backward=False),
                    check(lambda a: (torch.linalg.eigvals(a), torch.linalg.eig(a)[1].abs()),
                          torch.randn(4, 4, dtype=torch.complex64), backward=False)),
    "inductor_generated": lambda: check(compiled_on_ocl(_inductor_graph), r(6, 37), r(37), idx),
    "cdist_pdist": lambda: check(lambda a, b: (torch.cdist(a, b, p=1.5), torch.pdist(a)), r(5, 3), r(4, 3)),
    # sort / select / scans
    "sort_topk": lambda: check(lambda a: (torch.sort(a, 1)[0], torch.topk(a, 3).values), r(4, 37)),
    "cumsum_cumprod": lambda: check(lambda a: (torch.cumsum(a, 1), torch.cumprod(a, 0)), r(5, 40)),
    # (cumsum and cumprod: the eager logcumsumexp and cummax variants of scan_serial do not build on
    # oclgrind, whose LLVM lacks llvm.experimental.noalias.scope.decl; the gpu profile calls them here)
    "inductor_scan": lambda: check(compiled_on_ocl(lambda a: ((a.cumsum(1) * 2).relu(), torch.cumprod(a, 0))),
                                   r(5, 9), backward=False),
    "mm_integer": lambda: check(lambda a, b: (a @ b, torch.addmv(a[:, 0], a, b[:, 1], beta=2)),
                                torch.randint(-9, 9, (5, 7)), torch.randint(-9, 9, (7, 3)), backward=False),
    # indexing
    "gather_scatter": lambda: check(lambda a, s, i: (torch.gather(a, 1, i.view(1, 7).expand(3, 7) % 4),
                                                     s.new_zeros(3, 5).scatter_add(1, i.view(1, 7).expand(3, 7), s)),
                                    r(3, 4), r(3, 7), idx),
    "index_select_put": lambda: check(lambda a, i: (a[i], a.index_put((i,), a.new_ones(7, 3), accumulate=True)),
                                      r(5, 3), idx),
    "index_add": lambda: check(lambda a, s, i: a.index_add(0, i, s), r(5, 3), r(7, 3), idx),
    "masked": lambda: check(lambda a: (a.masked_fill(a > 0, 0.0), a[a > 0.5]), r(4, 9)),
    "nonzero_unique": lambda: check(lambda a: (torch.nonzero(a > 0), torch.unique(a.round())), r(6, 7),
                                    backward=False),
    "cat_flip_roll": lambda: check(lambda a, b: (torch.cat([a, b], 1), a.flip(0), a.roll(2, 1)), r(3, 4), r(3, 2)),
    "tril_triu": lambda: check(lambda a: (a.tril(-1), a.triu(1)), r(5, 5)),
    # RNG: distribution sanity only (streams differ from the CPU's)
    "rng": lambda: _rng(),
}


def _rng():
    g = torch.Generator(OCL).manual_seed(3)
    u = torch.rand(4096, device=OCL, generator=g)
    n = torch.randn(4096, device=OCL, generator=g)
    d = F.dropout(torch.ones(4096, device=OCL), 0.5)
    assert 0 <= u.min().item() and u.max().item() < 1 and abs(u.mean().item() - 0.5) < 0.05
    assert abs(n.mean().item()) < 0.1 and abs(n.std().item() - 1) < 0.1
    assert abs((d == 0).float().mean().item() - 0.5) < 0.05


def main(argv):
    pattern = argv[1] if len(argv) > 1 else ""
    failed = 0
    with torch.ocl.fallback_mode("error"):
        for name, case in CASES.items():
            if pattern not in name:
                continue
            try:
                case()
                torch.ocl.synchronize()
                print(f"ok {name}", flush=True)
            except Exception as e:  # noqa: BLE001 -- every case reports
                failed += 1
                print(f"FAIL {name}: {type(e).__name__}: {str(e).splitlines()[0][:300]}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
