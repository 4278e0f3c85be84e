// Dense linear algebra on ocl: ATen's own linalg ops (structured impls and
// at::native functions: shapes, broadcasting, out=, error checks through
// `info`, the LU/Cholesky compositions of solve, inv, det, slogdet, ...)
// behind the LAPACK DispatchStubs, whose kernels are kernels/linalg.cl.
// float32 / float64; complex inputs go to the counted CPU fallback.
#include <ATen/native/BatchLinearAlgebra.h>
#include <ATen/native/LinearAlgebraUtils.h>
#include <ATen/native/TransposeType.h>
#include <ATen/ops/_cholesky_solve_helper_native.h>
#include <ATen/ops/_linalg_det_native.h>
#include <ATen/ops/_linalg_eigh_native.h>
#include <ATen/ops/_linalg_slogdet_native.h>
#include <ATen/ops/_linalg_solve_ex_native.h>
#include <ATen/ops/_linalg_svd_native.h>
#include <ATen/ops/cholesky_inverse_native.h>
#include <ATen/ops/cholesky_native.h>
#include <ATen/ops/geqrf_native.h>
#include <ATen/ops/linalg_householder_product_native.h>
#include <ATen/ops/linalg_lstsq_native.h>
#include <ATen/ops/linalg_qr_native.h>
#include <ATen/ops/ormqr_native.h>
#include <ATen/ops/linalg_cholesky_ex_native.h>
#include <ATen/ops/linalg_inv_ex_native.h>
#include <ATen/ops/linalg_ldl_factor_ex_native.h>
#include <ATen/ops/linalg_ldl_solve_native.h>
#include <ATen/ops/linalg_lu_factor_ex_native.h>
#include <ATen/ops/linalg_lu_native.h>
#include <ATen/ops/linalg_lu_solve_native.h>
#include <ATen/ops/linalg_solve_triangular_native.h>
#include <ATen/ops/lu_unpack_native.h>
#include <ATen/ops/triangular_solve_native.h>
#include <torch/library.h>

#include <algorithm>
#include <limits>

#include "backend/kernel_launch.h"
#include "kernels/linalg_launch.h"
#include "kernels/register_op.h"
#include "kernels/structured.h"

namespace torch_ocl {
namespace {

using at::Tensor;
using at::native::TransposeType;

// The dtypes these kernels take: float32 / float64 matrices, int32 pivots and
// infos, int64 permutations; takes_linalg_complex (the LU / Cholesky /
// triangular and QR families) complex64 / complex128 too (the others'
// complex matrices: the counted fallback).
bool takes_linalg(c10::ScalarType t) {
  return t == at::kFloat || t == at::kDouble || t == at::kInt || t == at::kLong;
}
bool takes_linalg_complex(c10::ScalarType t) {
  return takes_linalg(t) || t == at::kComplexFloat || t == at::kComplexDouble;
}
// matrix_exp takes float16 / bfloat16 too (computed in float32, as the CPU's and CUDA's take them).
bool takes_matrix_exp(c10::ScalarType t) { return takes_linalg_complex(t) || t == at::kHalf || t == at::kBFloat16; }

// A batch of matrices as kernels/linalg.cl addresses it: matrix b's entry
// (i, j) at b * ms + i * rs + j * cs elements into `t`. `t` is the tensor
// itself when its batch is dense (row- or column-major matrices one after
// another), else a column-major copy that finish() writes back.
struct Matrices {
  Tensor t;
  int64_t rows, cols, rs, cs, ms, count;

  Matrices transposed() const { return {t, cols, rows, cs, rs, ms, count}; }
};

Matrices matrices(const Tensor& x) {
  const int64_t rows = x.size(-2), cols = x.size(-1);
  const int64_t count = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
  if (x.mT().is_contiguous()) return {x, rows, cols, 1, rows, rows * cols, count};
  if (x.is_contiguous()) return {x, rows, cols, cols, 1, rows * cols, count};
  return {x.mT().contiguous().mT(), rows, cols, 1, rows, rows * cols, count};
}
// infos (LAPACK's, one per matrix: ATen flattens or broadcasts the batch) =
// 1 + the first zero on the diagonal of the triangular factors `f`, else 0.
void zero_diagonal_infos(const Tensor& f, const Tensor& infos) {
  const Tensor zero = f.diagonal(0, -2, -1) == 0;
  const Tensor first = at::where(zero.any(-1), zero.to(at::kInt).argmax(-1) + 1, 0);
  if (first.numel() == infos.numel()) infos.copy_(first.reshape(infos.sizes()));
  else infos.copy_(first.max().expand(infos.sizes()));
}
// After a kernel wrote `m`: the result into `x` if `m` was a copy.
void finish(const Matrices& m, const Tensor& x) {
  if (!m.t.is_same(x)) x.copy_(m.t);
}
// A column-major copy of `x` the kernels may overwrite (never `x` itself,
// which .contiguous() would return when it already is).
Tensor column_major_copy(const Tensor& x) { return x.mT().clone(at::MemoryFormat::Contiguous).mT(); }
// t (a batch of matrices) set to identities, in place (complex too).
const Tensor& set_identity(const Tensor& t) {
  t.zero_();
  t.diagonal(0, -2, -1).fill_(1);
  return t;
}
// A read-only input with its lazy conjugate / negative bits applied (the
// kernels read memory).
Tensor resolved(const Tensor& x) { return x.resolve_conj().resolve_neg(); }
// `x` (int32 pivots / infos) as a contiguous tensor the kernel may write.
Tensor contiguous_ints(const Tensor& x) { return x.is_contiguous() ? x : x.contiguous(); }

Launch linalg_launch(const Tensor& like, const char* kernel) { return linalg_source_launch(like, "linalg", kernel); }
// One work group per matrix: the group size grows with the matrix, up to 256.
size_t group_size(const Launch& l, int64_t n) {
  size_t cap = 16;
  while (cap < 256 && static_cast<int64_t>(cap) < n) cap *= 2;
  return l.pow2_work_group(cap);
}
void run_per_matrix(Launch& l, size_t local, int64_t count) { l.run(static_cast<size_t>(count) * local, local); }

// Solves op(A) X = B in place of B (left side, A triangular and already
// transposed by its strides where op is a transpose; conj: A^H's conjugate).
void trsm(const Matrices& a, const Matrices& x, bool upper, bool unit, bool conj = false) {
  if (x.count == 0 || x.rows == 0 || x.cols == 0) return;
  Launch l = linalg_launch(x.t, "trsm_left");
  const size_t local = group_size(l, x.rows * x.cols);
  l.input(a.t).tensor(x.t).value(x.rows).value(x.cols).value(a.rs).value(a.cs).value(a.ms);
  l.value(x.rs).value(x.cs).value(x.ms).value(x.count).value<cl_int>(upper).value<cl_int>(unit).value<cl_int>(conj);
  run_per_matrix(l, local, x.count);
}

// x = A^-1 x for A = L L^H (upper: U^H U) given the factor f: L y = x, then L^H x = y.
void solve_with_cholesky_factor(const Matrices& f, const Matrices& x, bool upper) {
  if (upper) {  // L = U^H: U's transposed view, conjugated
    trsm(f.transposed(), x, /*upper=*/false, /*unit=*/false, /*conj=*/true);
    trsm(f, x, /*upper=*/true, /*unit=*/false);
  } else {
    trsm(f, x, /*upper=*/false, /*unit=*/false);
    trsm(f.transposed(), x, /*upper=*/true, /*unit=*/false, /*conj=*/true);
  }
}

// Row exchanges of `pivots` [count, npiv] applied to x's columns.
void laswp(const Matrices& x, const Tensor& pivots, bool reverse) {
  const int64_t npiv = pivots.size(-1);
  if (x.count == 0 || x.cols == 0 || npiv == 0) return;
  Launch l = linalg_launch(x.t, "laswp");
  l.tensor(x.t).input(pivots).value(npiv).value(x.cols).value(x.rs).value(x.cs).value(x.ms).value(npiv);
  l.value(x.count).value<cl_int>(reverse);
  l.run(static_cast<size_t>(x.count * x.cols));
}

// `x` broadcast to `batch` (its leading dims) and made addressable.
Tensor expand_batch(const Tensor& x, at::IntArrayRef batch) {
  std::vector<int64_t> shape(batch.begin(), batch.end());
  shape.insert(shape.end(), x.sizes().end() - 2, x.sizes().end());
  return x.expand(shape);
}

// ---- the DispatchStubs -----------------------------------------------------

// potrf_lower on matrices f (a work group each), infos into `inf`.
void potrf(const Matrices& f, const Tensor& inf) {
  Launch l = linalg_launch(f.t, "potrf_lower");
  const size_t local = group_size(l, f.rows);
  l.tensor(f.t).tensor(inf).value(f.rows).value(f.rs).value(f.cs).value(f.ms).value(f.count);
  run_per_matrix(l, local, f.count);
}

// The order from which a single factorization is blocked: below it one work
// group per matrix does everything (the batched small matrices of models);
// from it the trailing updates are matrix products over every compute unit.
constexpr int64_t kBlockedFrom = 256;
constexpr int64_t kBlock = 64;

// Right-looking blocked Cholesky of the lower factor of `x` ([..., n, n], a
// column-major work copy), LAPACK potrf's order: per block column, the
// diagonal block by potrf_lower, the panel below by trsm (A21 L11^-H, as
// conj(L11) X^T = A21^T), the trailing matrix by a GEMM (A22 -= A21 A21^H);
// info = the first failing step of each matrix.
void blocked_cholesky_lower(const Tensor& x, const Tensor& infos) {
  const int64_t n = x.size(-1);
  const Tensor flat = x.view({-1, n, n});
  Tensor info = at::zeros({flat.size(0)}, infos.options().dtype(at::kInt));
  const Tensor block_info = at::empty_like(info);
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t jb = std::min(kBlock, n - j0), rest = n - j0 - jb;
    const Tensor a11 = flat.narrow(-2, j0, jb).narrow(-1, j0, jb);
    potrf({a11, jb, jb, a11.stride(-2), a11.stride(-1), a11.stride(0), flat.size(0)}, block_info);
    info = at::where((info == 0) & (block_info > 0), block_info + j0, info);
    if (rest == 0) break;
    const Tensor a21 = flat.narrow(-2, j0 + jb, rest).narrow(-1, j0, jb);
    const Matrices l11{a11, jb, jb, a11.stride(-2), a11.stride(-1), a11.stride(0), flat.size(0)};
    const Tensor a21t = a21.mT();  // jb x rest
    trsm(l11, {a21t, jb, rest, a21t.stride(-2), a21t.stride(-1), a21t.stride(0), flat.size(0)}, /*upper=*/false,
         /*unit=*/false, /*conj=*/x.is_complex());
    Tensor a22 = flat.narrow(-2, j0 + jb, rest).narrow(-1, j0 + jb, rest);
    a22.baddbmm_(a21, a21.mH(), /*beta=*/1, /*alpha=*/-1);
  }
  infos.copy_(info.view(infos.sizes()));
}

void cholesky_kernel(const Tensor& input, const Tensor& info, bool upper) {
  Matrices a = matrices(input);
  if (a.count == 0) return;
  if (a.rows >= kBlockedFrom) {
    // A = U^H U: U^H is the lower factor; a conjugate transpose's lower factor is U
    Tensor work = column_major_copy(upper ? input.mH().resolve_conj() : input);
    blocked_cholesky_lower(work, info);
    input.copy_(upper ? work.mH() : work);
    return;
  }
  // A = U^T U: U^T is the lower factor, computed on the transposed view.
  const Matrices f = upper ? a.transposed() : a;
  const Tensor inf = contiguous_ints(info);
  potrf(f, inf);
  finish(a, input);
  if (!inf.is_same(info)) info.copy_(inf);
}

// Matrices of a view `v` ([count, rows, cols], any strides) as the kernels address it.
Matrices view_matrices(const Tensor& v) {
  return {v, v.size(-2), v.size(-1), v.stride(-2), v.stride(-1), v.stride(0), v.size(0)};
}

// Right-looking blocked LU with partial pivoting of `x` ([..., m, n], a
// column-major work copy), LAPACK getrf's order: per block column, the
// panel's getf2 (the getrf kernel on the tall panel), its row exchanges
// applied to the columns left and right of it, U12 = L11^-1 A12 (trsm), then
// A22 -= A21 U12 (a GEMM over every compute unit). Pivots 1-based, info =
// the first zero pivot, as getrf's.
void blocked_lu(const Tensor& x, const Tensor& pivots, const Tensor& infos) {
  const int64_t m = x.size(-2), n = x.size(-1), k = std::min(m, n);
  const Tensor flat = x.view({-1, m, n});
  const int64_t count = flat.size(0);
  Tensor piv = at::empty({count, k}, pivots.options());
  Tensor info = at::zeros({count}, infos.options());
  const Tensor block_info = at::empty_like(info);
  for (int64_t j0 = 0; j0 < k; j0 += kBlock) {
    const int64_t jb = std::min(kBlock, k - j0);
    const Tensor panel = flat.narrow(-2, j0, m - j0).narrow(-1, j0, jb);
    Tensor ppiv = at::empty({count, jb}, pivots.options());
    {
      const Matrices p = view_matrices(panel);
      Launch l = linalg_launch(panel, "getrf");
      const size_t local = group_size(l, std::max(p.rows, p.cols));
      l.tensor(panel).tensor(ppiv).tensor(block_info).value(p.rows).value(p.cols).value(p.rs).value(p.cs).value(p.ms);
      const size_t real_size = c10::elementSize(c10::toRealValueType(panel.scalar_type()));
      l.value(p.count).value<cl_int>(1).local_memory(local * real_size).local_memory(local * 8);
      run_per_matrix(l, local, p.count);
    }
    info = at::where((info == 0) & (block_info > 0), block_info + j0, info);
    piv.narrow(-1, j0, jb).copy_(ppiv + j0);
    // the panel's row exchanges on the columns beside it (rows j0.. of the matrix)
    if (j0 > 0) laswp(view_matrices(flat.narrow(-2, j0, m - j0).narrow(-1, 0, j0)), ppiv, false);
    const int64_t right = n - j0 - jb;
    if (right == 0) continue;
    laswp(view_matrices(flat.narrow(-2, j0, m - j0).narrow(-1, j0 + jb, right)), ppiv, false);
    const Tensor l11 = flat.narrow(-2, j0, jb).narrow(-1, j0, jb);
    const Tensor a12 = flat.narrow(-2, j0, jb).narrow(-1, j0 + jb, right);
    trsm(view_matrices(l11), view_matrices(a12), /*upper=*/false, /*unit=*/true);
    const int64_t below = m - j0 - jb;
    if (below == 0) continue;
    Tensor a22 = flat.narrow(-2, j0 + jb, below).narrow(-1, j0 + jb, right);
    a22.baddbmm_(flat.narrow(-2, j0 + jb, below).narrow(-1, j0, jb), a12, /*beta=*/1, /*alpha=*/-1);
  }
  pivots.copy_(piv.view(pivots.sizes()));
  infos.copy_(info.view(infos.sizes()));
}

void lu_factor_kernel(const Tensor& input, const Tensor& pivots, const Tensor& infos, bool compute_pivots) {
  Matrices a = matrices(input);
  if (a.count == 0) return;
  if (compute_pivots && std::min(a.rows, a.cols) >= kBlockedFrom) {
    Tensor work = column_major_copy(input);
    blocked_lu(work, pivots, infos);
    input.copy_(work);
    return;
  }
  const Tensor piv = contiguous_ints(pivots), inf = contiguous_ints(infos);
  Launch l = linalg_launch(a.t, "getrf");
  const size_t local = group_size(l, std::max(a.rows, a.cols));
  l.tensor(a.t).tensor(piv).tensor(inf).value(a.rows).value(a.cols).value(a.rs).value(a.cs).value(a.ms);
  const size_t real_size = c10::elementSize(c10::toRealValueType(a.t.scalar_type()));
  l.value(a.count).value<cl_int>(compute_pivots).local_memory(local * real_size).local_memory(local * 8);
  run_per_matrix(l, local, a.count);
  finish(a, input);
  if (!piv.is_same(pivots)) pivots.copy_(piv);
  if (!inf.is_same(infos)) infos.copy_(inf);
}

void lu_solve_kernel(const Tensor& LU_in, const Tensor& pivots, const Tensor& B, TransposeType trans) {
  if (B.numel() == 0) return;
  const Tensor LU = resolved(LU_in);
  const auto batch = B.sizes().slice(0, B.dim() - 2);
  const Matrices lu = matrices(expand_batch(LU, batch));
  const Tensor piv = expand_batch(pivots.unsqueeze(-1), batch).squeeze(-1).contiguous();
  Matrices x = matrices(B);
  if (trans == TransposeType::NoTranspose) {  // A = P L U
    laswp(x, piv, false);
    trsm(lu, x, /*upper=*/false, /*unit=*/true);
    trsm(lu, x, /*upper=*/true, /*unit=*/false);
  } else {  // A^T = U^T L^T P^T (A^H: the same with conjugates)
    const bool conj = trans == TransposeType::ConjTranspose;
    trsm(lu.transposed(), x, /*upper=*/false, /*unit=*/false, conj);
    trsm(lu.transposed(), x, /*upper=*/true, /*unit=*/true, conj);
    laswp(x, piv, true);
  }
  finish(x, B);
}

void triangular_solve_kernel(const Tensor& A_in, const Tensor& B, bool left, bool upper, TransposeType transpose,
                             bool unitriangular) {
  // linalg_solve_triangular's out= reaches here as B: another dtype is the
  // CPU's and CUDA's kernel error (no cast into out=)
  TORCH_CHECK(B.scalar_type() == A_in.scalar_type(), "expected scalar type ", A_in.scalar_type(), " but found ",
              B.scalar_type());
  if (B.numel() == 0) return;
  // LAPACK reads A's memory column-major whatever its strides and math bits:
  // ATen passes a row-major A (upper and transpose flipped) to mean A^T, and
  // a conjugate view unresolved with transpose = ConjTranspose to mean A^H.
  const Tensor A = (A_in.is_conj() ? A_in.conj() : A_in).resolve_neg();
  const auto batch = B.sizes().slice(0, B.dim() - 2);
  const bool row_major = A.size(-1) > 1 && A.stride(-1) == 1 && A.stride(-2) == A.size(-1);
  Matrices a = matrices(expand_batch(row_major ? A.mT() : A, batch));
  const Matrices b = matrices(B);
  Matrices x = b;
  if (transpose != TransposeType::NoTranspose) {
    a = a.transposed();
    upper = !upper;
  }
  if (!left) {  // X op(A) = B  <=>  op(A)^T X^T = B^T
    a = a.transposed();
    upper = !upper;
    x = x.transposed();
  }
  // op(A) = A^H: conjugated entries, on the left side and (op(A)^T = conj(A)) on the right.
  trsm(a, x, upper, unitriangular, transpose == TransposeType::ConjTranspose);
  finish(b, B);
}

void unpack_pivots_kernel(at::TensorIterator& iter, int64_t dim_size, int64_t max_pivot) {
  const Tensor& perm = iter.tensor(0);
  const Tensor& piv = iter.tensor(1);
  if (perm.numel() == 0 || max_pivot == 0) return;
  TORCH_INTERNAL_ASSERT(perm.is_contiguous() && piv.is_contiguous());
  const int64_t count = perm.numel() / max_pivot;
  Launch l = linalg_launch(at::empty({0}, perm.options().dtype(at::kFloat)), "unpack_pivots");  // int32 data
  l.tensor(perm).input(piv).value(max_pivot).value(dim_size).value(count);
  l.run(static_cast<size_t>(count));
}

// LD (the input's lower triangle, ATen's tril_ already applied) becomes L
// and D of Bunch-Kaufman's A = L D L^T in place. Real matrices only (the
// gate): `hermitian` means the same as symmetric there; ATen's API always
// asks for the lower triangle.
void ldl_factor_kernel(const Tensor& LD, const Tensor& pivots, const Tensor& infos, bool upper, bool hermitian) {
  TORCH_INTERNAL_ASSERT(!upper, "torch_ocl: ldl_factor takes the lower triangle");
  Matrices a = matrices(LD);
  if (a.count == 0) return;
  const Tensor piv = contiguous_ints(pivots), inf = contiguous_ints(infos);
  Launch l = linalg_launch(a.t, "sytrf_lower");
  const size_t local = group_size(l, a.rows);
  l.tensor(a.t).tensor(piv).tensor(inf).value(a.rows).value(a.rs).value(a.cs).value(a.ms).value(a.count);
  l.value<cl_int>(hermitian && LD.is_complex());
  run_per_matrix(l, local, a.count);
  finish(a, LD);
  if (!piv.is_same(pivots)) pivots.copy_(piv);
  if (!inf.is_same(infos)) infos.copy_(inf);
}

// result (B on entry) = A^-1 B from ldl_factor's LD and pivots (broadcast
// over result's batch); an item per column of B.
void ldl_solve_kernel(const Tensor& LD_in, const Tensor& pivots, const Tensor& result, bool upper, bool hermitian) {
  TORCH_INTERNAL_ASSERT(!upper, "torch_ocl: ldl_solve takes the lower triangle");
  if (result.numel() == 0) return;
  const auto batch = result.sizes().slice(0, result.dim() - 2);
  const Matrices a = matrices(expand_batch(resolved(LD_in), batch));
  const Tensor piv = expand_batch(pivots.unsqueeze(-1), batch).squeeze(-1).contiguous();
  Matrices x = matrices(result);
  Launch l = linalg_launch(x.t, "sytrs_lower");
  l.input(a.t).input(piv).tensor(x.t).value(x.rows).value(x.cols).value(a.rs).value(a.cs).value(a.ms);
  l.value(x.rs).value(x.cs).value(x.ms).value(x.count).value<cl_int>(hermitian && result.is_complex());
  l.run(static_cast<size_t>(x.count * x.cols));
  finish(x, result);
}

// inv(A) for A = L L^T (U^T U): X = I, then L Y = X and L^T X = Y.
Tensor& cholesky_inverse_kernel(Tensor& result, Tensor& infos, bool upper) {
  if (result.numel() == 0) return result;
  const Tensor factor = result.clone();
  const Matrices f = matrices(factor);
  zero_diagonal_infos(factor, infos);
  set_identity(result);
  Matrices x = matrices(result);
  solve_with_cholesky_factor(f, x, upper);
  finish(x, result);
  return result;
}

// Householder QR in place of `a` (LAPACK's layout), tau [count, min(m, n)].
// One block of reflectors applied to x (rows aligned with y's): y ([count,
// r, jb]) holds them as geqrf stores them (unit diagonal implied, zeros
// above), tau [count, jb]. H_0 ... H_{jb-1} = I - Y Tf Y^H (larft);
// forward applies its conjugate transpose (Q^H x), else Q x: three GEMMs.
void apply_block(const Tensor& y_stored, const Tensor& tau, const Tensor& x, bool forward) {
  const int64_t jb = y_stored.size(-1);
  Tensor y = y_stored.clone(at::MemoryFormat::Contiguous);
  Tensor top = y.narrow(-2, 0, jb);
  top.copy_(top.tril(-1));
  top.diagonal(0, -2, -1).fill_(1);
  const Tensor g = at::bmm(y.mH(), y).contiguous();
  const Tensor f = at::empty({y.size(0), jb, jb}, y.options());
  const Tensor t = tau.contiguous();
  Launch l = linalg_launch(f, "larft");
  const size_t local = group_size(l, jb);
  l.input(g).input(t).tensor(f).value(jb).value(y.size(0));
  run_per_matrix(l, local, y.size(0));
  const Tensor w = at::bmm(forward ? f.mH() : f, at::bmm(y.mH(), x));
  const_cast<Tensor&>(x).baddbmm_(y, w, /*beta=*/1, /*alpha=*/-1);
}

// geqrf of x ([count, m, n] column-major work copy) in LAPACK's blocked
// order: each 64-column panel by the geqrf kernel, the trailing columns by
// its block reflector (apply_block).
void blocked_geqrf(const Tensor& x, const Tensor& tau) {
  const int64_t m = x.size(-2), n = x.size(-1), k = std::min(m, n);
  for (int64_t j0 = 0; j0 < k; j0 += kBlock) {
    const int64_t jb = std::min(kBlock, k - j0);
    const Tensor panel = x.narrow(-2, j0, m - j0).narrow(-1, j0, jb);
    const Tensor tb = at::empty({x.size(0), jb}, tau.options());
    const Matrices p = view_matrices(panel);
    Launch l = linalg_launch(panel, "geqrf");
    const size_t local = group_size(l, std::max(p.rows, p.cols));
    l.tensor(panel).tensor(tb).value(p.rows).value(p.cols).value(p.rs).value(p.cs).value(p.ms).value(p.count);
    l.local_memory(local * panel.element_size());
    run_per_matrix(l, local, p.count);
    tau.narrow(-1, j0, jb).copy_(tb);
    if (j0 + jb < n) apply_block(panel, tb, x.narrow(-2, j0, m - j0).narrow(-1, j0 + jb, n - j0 - jb), true);
  }
}

void geqrf_kernel(const Tensor& input, const Tensor& tau) {
  Matrices a = matrices(input);
  if (a.count == 0 || a.rows == 0 || a.cols == 0) return;
  if (a.rows >= kBlockedFrom && std::min(a.rows, a.cols) > kBlock) {
    const int64_t m = a.rows, n = a.cols;
    Tensor work = column_major_copy(input).reshape({-1, m, n});
    Tensor t = at::empty({work.size(0), std::min(m, n)}, tau.options());
    blocked_geqrf(work, t);
    input.copy_(work.view(input.sizes()));
    tau.copy_(t.view(tau.sizes()));
    return;
  }
  const Tensor t = tau.is_contiguous() ? tau : tau.contiguous();
  Launch l = linalg_launch(a.t, "geqrf");
  const size_t local = group_size(l, std::max(a.rows, a.cols));
  l.tensor(a.t).tensor(t).value(a.rows).value(a.cols).value(a.rs).value(a.cs).value(a.ms).value(a.count);
  l.local_memory(local * a.t.element_size());
  run_per_matrix(l, local, a.count);
  finish(a, input);
  if (!t.is_same(tau)) tau.copy_(t);
}

// x = H_i x over the reflectors of v (geqrf's layout), forward (Q^T x) or backward (Q x).
void apply_reflectors(const Matrices& v, const Tensor& tau, const Matrices& x, bool forward) {
  const int64_t k = tau.size(-1);
  if (x.count == 0 || x.rows == 0 || x.cols == 0 || k == 0) return;
  if (x.rows >= kBlockedFrom && k > kBlock) {  // block reflectors: GEMMs over every compute unit
    const Tensor vv = at::as_strided(v.t, {v.count, v.rows, k}, {v.ms, v.rs, v.cs});
    const Tensor xx = at::as_strided(x.t, {x.count, x.rows, x.cols}, {x.ms, x.rs, x.cs});
    const Tensor tt = tau.reshape({x.count, k});
    const int64_t nblocks = (k + kBlock - 1) / kBlock;
    for (int64_t s = 0; s < nblocks; ++s) {
      const int64_t j0 = (forward ? s : nblocks - 1 - s) * kBlock, jb = std::min(kBlock, k - j0);
      apply_block(vv.narrow(-2, j0, v.rows - j0).narrow(-1, j0, jb), tt.narrow(-1, j0, jb),
                  xx.narrow(-2, j0, x.rows - j0), forward);
    }
    return;
  }
  const Tensor t = tau.contiguous();
  Launch l = linalg_launch(x.t, "apply_reflectors");
  const size_t local = group_size(l, x.cols);
  l.input(v.t).input(t).tensor(x.t).value(x.rows).value(x.cols).value(k).value(v.rs).value(v.cs).value(v.ms);
  l.value(x.rs).value(x.cs).value(x.ms).value(x.count).value<cl_int>(forward);
  run_per_matrix(l, local, x.count);
}

// Q (m x n, n <= m) of the reflectors stored in `result` itself.
Tensor& orgqr_kernel(Tensor& result, const Tensor& tau) {
  if (result.numel() == 0) return result;
  const Tensor reflectors = result.clone();
  set_identity(result);
  Matrices q = matrices(result);
  apply_reflectors(matrices(reflectors), tau, q, /*forward=*/false);
  finish(q, result);
  return result;
}

// other = op(Q) other (left) or other op(Q) (right): the right side is the
// left one on other^T, Q^T's order and Q's swapped.
void ormqr_kernel(const Tensor& input, const Tensor& tau, const Tensor& other, bool left, bool transpose) {
  if (other.numel() == 0) return;
  const auto batch = other.sizes().slice(0, other.dim() - 2);
  const Matrices v = matrices(expand_batch(resolved(input), batch));
  const Tensor t = expand_batch(resolved(tau).unsqueeze(-1), batch).squeeze(-1);
  const Matrices c = matrices(other);
  // The right side as the left one on other^H (complex: its conjugated
  // values through the transposed view): C op(Q) = (op(Q)^H C^H)^H.
  const bool conj = !left && other.is_complex();
  if (conj) c.t.conj_physical_();
  apply_reflectors(v, t, left ? c : c.transposed(), /*forward=*/left == transpose);
  if (conj) c.t.conj_physical_();
  finish(c, other);
}

// The gels driver (as CUDA's, the default off the CPU): full-rank systems,
// the solution in b's first n rows.
void lstsq_kernel(const Tensor& a, Tensor& b, Tensor& rank, Tensor& singular_values, Tensor& infos, double rcond,
                  std::string driver) {
  const int64_t m = a.size(-2), n = a.size(-1);
  if (a.numel() == 0 || b.numel() == 0) return;
  const auto batch = b.sizes().slice(0, b.dim() - 2);
  // Overdetermined: A = QR, x = R^-1 Q^H b. Underdetermined (the minimum-norm
  // solution): A^H = QR, x = Q [R^-H b; 0].
  const Tensor qr = column_major_copy(expand_batch(m >= n ? resolved(a) : resolved(a.mH()), batch));
  const int64_t k = std::min(m, n);
  std::vector<int64_t> tau_shape(qr.sizes().begin(), qr.sizes().end() - 1);
  tau_shape.back() = k;
  const Tensor tau = at::empty(tau_shape, a.options());
  geqrf_kernel(qr, tau);
  const Matrices r = matrices(qr.narrow(-2, 0, k));
  if (m >= n) {
    const Tensor rhs = b.narrow(-2, 0, m), top = b.narrow(-2, 0, n);
    const Matrices c = matrices(rhs);
    apply_reflectors(matrices(qr), tau, c, /*forward=*/true);
    finish(c, rhs);
    Matrices x = matrices(top);
    trsm(r, x, /*upper=*/true, /*unit=*/false);
    finish(x, top);
  } else {
    const Tensor top = b.narrow(-2, 0, m), all = b.narrow(-2, 0, n);
    Matrices y = matrices(top);
    trsm(r.transposed(), y, /*upper=*/false, /*unit=*/false, /*conj=*/a.is_complex());
    finish(y, top);
    b.narrow(-2, m, n - m).zero_();
    const Matrices x = matrices(all);
    apply_reflectors(matrices(qr), tau, x, /*forward=*/false);
    finish(x, all);
  }
  zero_diagonal_infos(qr.narrow(-2, 0, k), infos);
}

// Symmetric eigenproblem: `vectors` holds A (its `upper` or lower triangle
// is read); Jacobi rotations on a symmetric work copy, then eigenvalues
// ascending, their vectors in the same order.
// The Jacobi kernels' convergence threshold: the real type's epsilon.
void push_eps(Launch& l, const Tensor& like) {
  if (c10::toRealValueType(like.scalar_type()) == at::kDouble) l.value<cl_double>(std::numeric_limits<double>::epsilon());
  else l.value<cl_float>(std::numeric_limits<float>::epsilon());
}

void eigh_kernel(const Tensor& values, const Tensor& vectors, const Tensor& infos, bool upper, bool compute_v) {
  infos.zero_();
  const int64_t n = vectors.size(-1);
  if (vectors.numel() == 0) return;
  const int64_t count = vectors.numel() / (n * n);
  const Tensor tri = upper ? vectors.triu() : vectors.tril();
  // Hermitian (symmetric) from the given triangle, stored column-major as the kernel reads it
  const Tensor a = (tri + (upper ? vectors.triu(1) : vectors.tril(-1)).mH()).resolve_conj().mT().contiguous();
  if (a.is_complex()) at::imag(a.diagonal(0, -2, -1)).zero_();  // LAPACK takes the diagonal as real
  const Tensor v = set_identity(at::empty_like(vectors, at::MemoryFormat::Contiguous));
  const Tensor w = at::empty(values.sizes(), values.options());
  const Tensor rot = at::empty({count, 3 * (n + 1)}, vectors.options());
  Launch l = linalg_launch(a, "syevj");
  const size_t local = group_size(l, n);
  l.tensor(a).tensor(v).tensor(w).value(n).value(n * n).value(count);
  push_eps(l, a);
  l.tensor(rot);
  run_per_matrix(l, local, count);
  const Tensor order = w.argsort(/*stable=*/true, -1, /*descending=*/false);
  values.copy_(w.gather(-1, order));
  if (compute_v) vectors.copy_(v.mT().gather(-1, order.unsqueeze(-2).expand_as(vectors)));
}

// SVD by one-sided Jacobi on A (or A^T when wide: m >= n in the kernel),
// singular values descending; U's missing columns (of zero singular values,
// and past n for full_matrices) from a Householder QR of its columns.
void svd_kernel(const Tensor& A, bool full_matrices, bool compute_uv, const std::optional<c10::string_view>& driver,
                const Tensor& U, const Tensor& S, const Tensor& Vh, const Tensor& info) {
  info.zero_();
  if (A.numel() == 0) return;
  const bool wide = A.size(-2) < A.size(-1);
  const Tensor X = resolved(wide ? A.mH() : A);
  const int64_t m = X.size(-2), n = X.size(-1), count = X.numel() / (m * n);
  const Tensor w = column_major_copy(X).mT();  // X column-major, as a row-major [n, m]
  const Tensor v = set_identity(at::empty({count, n, n}, A.options()));  // V column-major
  const Tensor s = at::empty(S.sizes(), S.options());
  const Tensor rot = at::empty({count, 3 * (n + 1)}, A.options());
  Launch l = linalg_launch(w, "gesvj");
  const size_t local = group_size(l, n * (m + n) / 2);
  l.tensor(w).tensor(v).tensor(s).value(m).value(n).value(count);
  push_eps(l, A);
  l.tensor(rot);
  run_per_matrix(l, local, count);
  const Tensor order = s.argsort(/*stable=*/true, -1, /*descending=*/true);
  S.copy_(s.gather(-1, order));
  if (!compute_uv) return;
  std::vector<int64_t> shape(X.sizes().begin(), X.sizes().end());  // batch, m, n
  const Tensor u = w.mT().gather(-1, order.unsqueeze(-2).expand(shape));
  shape[shape.size() - 2] = n;
  const Tensor vm = v.view(shape).mT().gather(-1, order.unsqueeze(-2).expand(shape));
  // U's columns of zero singular values are zero: a Householder QR of U
  // keeps the others (up to the sign of R's diagonal) and completes the
  // basis there, and past n for full_matrices, as LAPACK's U.
  const auto [qr, tau] = at::geqrf(u);
  const int64_t cols = full_matrices ? m : n;
  shape[shape.size() - 2] = m;
  shape.back() = cols - n;
  const Tensor q = at::linalg_householder_product(cols > n ? at::cat({qr, at::zeros(shape, qr.options())}, -1) : qr, tau);
  const Tensor sign = at::where(at::real(qr.diagonal(0, -2, -1)) < 0, -1.0, 1.0).to(q.scalar_type()).unsqueeze(-2);
  const Tensor u_out = cols > n ? at::cat({q.narrow(-1, 0, n) * sign, q.narrow(-1, n, cols - n)}, -1) : q * sign;
  if (wide) {  // A = X^H = V S U^H
    U.copy_(vm);
    Vh.copy_(u_out.mH());
  } else {
    U.copy_(u_out);
    Vh.copy_(vm.mH());
  }
}

// ---- ops without a stub ----------------------------------------------------

// cholesky_solve's kernel: B and the factor A broadcast to one batch by ATen.
Tensor cholesky_solve_helper(const Tensor& self, const Tensor& A, bool upper) {
  Tensor result = column_major_copy(resolved(self));
  if (result.numel() == 0) return result;
  Matrices x = matrices(result);
  const Matrices f = matrices(expand_batch(resolved(A), self.sizes().slice(0, self.dim() - 2)));
  solve_with_cholesky_factor(f, x, upper);
  return result;
}

// exp(A) by scaling and squaring with the degree-13 Padé approximant
// (Higham 2005): each matrix scaled by 2^-s, s from its 1-norm, then squared
// s times. ATen's CPU/CUDA implementation calls device-specific code.
Tensor matrix_exp(const Tensor& self) {
  at::native::squareCheckInputs(self, "linalg.matrix_exp");
  at::native::checkFloatingOrComplex(self, "linalg.matrix_exp");
  if (self.scalar_type() == at::kHalf || self.scalar_type() == at::kBFloat16)  // computed in float32, rounded once
    return torch_ocl::matrix_exp(self.to(at::kFloat)).to(self.scalar_type());
  const int64_t n = self.size(-1);
  if (self.numel() == 0) return at::empty_like(self, at::MemoryFormat::Contiguous);
  if (n == 1) return self.exp();
  static constexpr double b[] = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
                                 1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
                                 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0};
  constexpr double theta13 = 5.371920351148152;
  const Tensor norm = self.abs().sum(-2).amax(-1);  // the 1-norm per matrix
  const Tensor s = at::clamp_min(at::ceil(at::log2(norm / theta13)), 0).nan_to_num(0, 0, 0);  // inf or NaN entries: no squarings (the result is NaN)
  const int64_t squarings = static_cast<int64_t>(s.max().item<double>());  // s >= 0: one sync
  const Tensor a = self / at::pow(2.0, s).unsqueeze(-1).unsqueeze(-1);
  const Tensor eye = at::eye(n, self.options()).expand_as(self);
  const Tensor a2 = at::matmul(a, a), a4 = at::matmul(a2, a2), a6 = at::matmul(a4, a2);
  const Tensor u = at::matmul(a, at::matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 +
                                     b[3] * a2 + b[1] * eye);
  const Tensor v = at::matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye;
  Tensor r = at::linalg_solve(v - u, v + u);
  for (int64_t i = 0; i < squarings; ++i) {
    const Tensor squared = at::matmul(r, r);
    r = at::where((s > i).unsqueeze(-1).unsqueeze(-1), squared, r);
  }
  return r;
}

// matrix_exp's helper on CPU and CUDA: output[i] += sum_j coefficients[i, j] * input[j]
// (coefficients real for a complex input), as one product over input's flattened rows;
// the out= overload adds to `output` as ATen's does.
Tensor& compute_linear_combination_out(const Tensor& input, const Tensor& coefficients, Tensor& output) {
  const Tensor rows = input.reshape({input.size(0), -1});
  output.add_(at::mm(coefficients.to(input.scalar_type()), rows).view(output.sizes()));
  return output;
}

Tensor compute_linear_combination(const Tensor& input, const Tensor& coefficients) {
  TORCH_CHECK(input.dim() > 0 && input.numel() > 0, "Empty tensor not supported");
  auto sizes = input.sizes().vec();
  sizes[0] = coefficients.size(0);
  Tensor output = at::zeros(sizes, input.options().memory_format(at::MemoryFormat::Contiguous));
  return compute_linear_combination_out(input, coefficients, output);
}

}  // namespace
}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(cholesky_stub, &::torch_ocl::cholesky_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(cholesky_inverse_stub, &::torch_ocl::cholesky_inverse_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(lu_factor_stub, &::torch_ocl::lu_factor_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(lu_solve_stub, &::torch_ocl::lu_solve_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(triangular_solve_stub, &::torch_ocl::triangular_solve_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(linalg_eigh_stub, &::torch_ocl::eigh_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(svd_stub, &::torch_ocl::svd_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(geqrf_stub, &::torch_ocl::geqrf_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(orgqr_stub, &::torch_ocl::orgqr_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(ormqr_stub, &::torch_ocl::ormqr_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(lstsq_stub, &::torch_ocl::lstsq_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(unpack_pivots_stub, &::torch_ocl::unpack_pivots_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(ldl_factor_stub, &::torch_ocl::ldl_factor_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(ldl_solve_stub, &::torch_ocl::ldl_solve_kernel)
}  // namespace at::native

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace torch_ocl;
  using namespace at::native;
  register_native_multi<structured_linalg_cholesky_ex_out>(m, "linalg_cholesky_ex", "linalg_cholesky_ex.L", takes_linalg_complex);
  register_native_multi<structured_linalg_lu_factor_ex_out>(m, "linalg_lu_factor_ex", "linalg_lu_factor_ex.out",
                                                            takes_linalg_complex);
  register_native_multi<structured_linalg_lu_out>(m, "linalg_lu", "linalg_lu.out", takes_linalg_complex);
  register_native_multi<structured_lu_unpack_out>(m, "lu_unpack", "lu_unpack.out", takes_linalg_complex);
  register_native_multi<structured_linalg_lu_solve_out>(m, "linalg_lu_solve", "linalg_lu_solve.out", takes_linalg_complex);
  register_native_multi<structured__linalg_solve_ex_out>(m, "_linalg_solve_ex", "_linalg_solve_ex.result", takes_linalg_complex);
  register_native_multi<structured_linalg_inv_ex_out>(m, "linalg_inv_ex", "linalg_inv_ex.inverse", takes_linalg_complex);
  register_native_multi<structured__linalg_det_out>(m, "_linalg_det", "_linalg_det.result", takes_linalg_complex);
  register_native_multi<structured__linalg_slogdet_out>(m, "_linalg_slogdet", "_linalg_slogdet.sign", takes_linalg_complex);
  register_native_multi<structured_triangular_solve_out>(m, "triangular_solve", "triangular_solve.X", takes_linalg_complex);
  register_native_multi<structured__linalg_eigh_out>(m, "_linalg_eigh", "_linalg_eigh.eigenvalues", takes_linalg_complex);
  register_native_multi<structured__linalg_svd_out>(m, "_linalg_svd", "_linalg_svd.U", takes_linalg_complex);
  register_native_multi<structured_linalg_qr_out>(m, "linalg_qr", "linalg_qr.out", takes_linalg_complex);
  register_native_multi<structured_linalg_ldl_factor_ex_out>(m, "linalg_ldl_factor_ex", "linalg_ldl_factor_ex.out",
                                                             takes_linalg_complex);
  register_native_multi<structured_linalg_ldl_solve_out>(m, "linalg_ldl_solve", "linalg_ldl_solve.out",
                                                         takes_linalg_complex);
  register_op<&geqrf, takes_linalg_complex>(m, "geqrf");
  register_op<&geqrf_out, takes_linalg_complex>(m, "geqrf.a");
  register_op<&linalg_householder_product, takes_linalg_complex>(m, "linalg_householder_product");
  register_op<&linalg_householder_product_out, takes_linalg_complex>(m, "linalg_householder_product.out");
  register_op<&ormqr, takes_linalg_complex>(m, "ormqr");
  register_op<&ormqr_out, takes_linalg_complex>(m, "ormqr.out");
  register_op<&linalg_lstsq_out, takes_linalg_complex>(m, "linalg_lstsq.out");
  register_op<&torch_ocl::matrix_exp, takes_matrix_exp>(m, "linalg_matrix_exp");
  register_op<&compute_linear_combination, takes_matrix_exp>(m, "_compute_linear_combination");
  register_op<&compute_linear_combination_out, takes_matrix_exp>(m, "_compute_linear_combination.out");
  register_op<&linalg_solve_triangular, takes_linalg_complex>(m, "linalg_solve_triangular");
  register_op<&linalg_solve_triangular_out, takes_linalg_complex>(m, "linalg_solve_triangular.out");
  register_op<&cholesky, takes_linalg_complex>(m, "cholesky");
  register_op<&cholesky_out, takes_linalg_complex>(m, "cholesky.out");
  register_op<&cholesky_inverse, takes_linalg_complex>(m, "cholesky_inverse");
  register_op<&cholesky_inverse_out, takes_linalg_complex>(m, "cholesky_inverse.out");
  register_op<&cholesky_solve_helper, takes_linalg_complex>(m, "_cholesky_solve_helper");
}
