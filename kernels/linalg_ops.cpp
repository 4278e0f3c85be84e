// Dense linear algebra on ocl: ATen's own linalg ops (structured impls and
// at::native functions: shapes, broadcasting, out=, error checks through
// `info`, the LU/Cholesky compositions of solve, inv, det, slogdet, ...)
// behind the LAPACK DispatchStubs, whose kernels are kernels/linalg.cl.
// float32 / float64; complex inputs go to the counted CPU fallback.
#include <ATen/native/BatchLinearAlgebra.h>
#include <ATen/native/TransposeType.h>
#include <ATen/ops/_cholesky_solve_helper_native.h>
#include <ATen/ops/_linalg_det_native.h>
#include <ATen/ops/_linalg_slogdet_native.h>
#include <ATen/ops/_linalg_solve_ex_native.h>
#include <ATen/ops/cholesky_inverse_native.h>
#include <ATen/ops/cholesky_native.h>
#include <ATen/ops/linalg_cholesky_ex_native.h>
#include <ATen/ops/linalg_inv_ex_native.h>
#include <ATen/ops/linalg_lu_factor_ex_native.h>
#include <ATen/ops/linalg_lu_native.h>
#include <ATen/ops/linalg_lu_solve_native.h>
#include <ATen/ops/linalg_solve_triangular_native.h>
#include <ATen/ops/lu_unpack_native.h>
#include <ATen/ops/triangular_solve_native.h>
#include <torch/library.h>

#include <algorithm>

#include "backend/kernel_launch.h"
#include "kernels/register_op.h"
#include "kernels/structured.h"

namespace torch_ocl {
namespace {

using at::Tensor;
using at::native::TransposeType;

// The dtypes these kernels take: float32 / float64 matrices, int32 pivots and
// infos, int64 permutations (complex matrices: the counted fallback).
bool takes_linalg(c10::ScalarType t) {
  return t == at::kFloat || t == at::kDouble || t == at::kInt || t == at::kLong;
}

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
// After a kernel wrote `m`: the result into `x` if `m` was a copy.
void finish(const Matrices& m, const Tensor& x) {
  if (!m.t.is_same(x)) x.copy_(m.t);
}
// `x` (int32 pivots / infos) as a contiguous tensor the kernel may write.
Tensor contiguous_ints(const Tensor& x) { return x.is_contiguous() ? x : x.contiguous(); }

Launch linalg_launch(const Tensor& like, const char* kernel) {
  const auto device = like.device().index();
  check_dtype_supported(like.scalar_type(), device);
  return Launch(device, dtype_kernel(device, "linalg", kernel, like.scalar_type()));
}
// One work group per matrix: the group size grows with the matrix, up to 256.
size_t group_size(const Launch& l, int64_t n) {
  size_t cap = 16;
  while (cap < 256 && static_cast<int64_t>(cap) < n) cap *= 2;
  return l.pow2_work_group(cap);
}
void run_per_matrix(Launch& l, size_t local, int64_t count) { l.run(static_cast<size_t>(count) * local, local); }

// Solves op(A) X = B in place of B (left side, A triangular and already
// transposed by its strides where op is a transpose).
void trsm(const Matrices& a, const Matrices& x, bool upper, bool unit) {
  if (x.count == 0 || x.rows == 0 || x.cols == 0) return;
  Launch l = linalg_launch(x.t, "trsm_left");
  const size_t local = group_size(l, x.rows * x.cols);
  l.input(a.t).tensor(x.t).value(x.rows).value(x.cols).value(a.rs).value(a.cs).value(a.ms);
  l.value(x.rs).value(x.cs).value(x.ms).value(x.count).value<cl_int>(upper).value<cl_int>(unit);
  run_per_matrix(l, local, x.count);
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

void cholesky_kernel(const Tensor& input, const Tensor& info, bool upper) {
  Matrices a = matrices(input);
  if (a.count == 0) return;
  // A = U^T U: U^T is the lower factor, computed on the transposed view.
  const Matrices f = upper ? a.transposed() : a;
  const Tensor inf = contiguous_ints(info);
  Launch l = linalg_launch(a.t, "potrf_lower");
  const size_t local = group_size(l, f.rows);
  l.tensor(f.t).tensor(inf).value(f.rows).value(f.rs).value(f.cs).value(f.ms).value(f.count);
  run_per_matrix(l, local, f.count);
  finish(a, input);
  if (!inf.is_same(info)) info.copy_(inf);
}

void lu_factor_kernel(const Tensor& input, const Tensor& pivots, const Tensor& infos, bool compute_pivots) {
  Matrices a = matrices(input);
  if (a.count == 0) return;
  const Tensor piv = contiguous_ints(pivots), inf = contiguous_ints(infos);
  Launch l = linalg_launch(a.t, "getrf");
  const size_t local = group_size(l, std::max(a.rows, a.cols));
  l.tensor(a.t).tensor(piv).tensor(inf).value(a.rows).value(a.cols).value(a.rs).value(a.cs).value(a.ms);
  l.value(a.count).value<cl_int>(compute_pivots).local_memory(local * a.t.element_size()).local_memory(local * 8);
  run_per_matrix(l, local, a.count);
  finish(a, input);
  if (!piv.is_same(pivots)) pivots.copy_(piv);
  if (!inf.is_same(infos)) infos.copy_(inf);
}

void lu_solve_kernel(const Tensor& LU, const Tensor& pivots, const Tensor& B, TransposeType trans) {
  if (B.numel() == 0) return;
  const auto batch = B.sizes().slice(0, B.dim() - 2);
  const Matrices lu = matrices(expand_batch(LU, batch));
  const Tensor piv = expand_batch(pivots.unsqueeze(-1), batch).squeeze(-1).contiguous();
  Matrices x = matrices(B);
  if (trans == TransposeType::NoTranspose) {  // A = P L U
    laswp(x, piv, false);
    trsm(lu, x, /*upper=*/false, /*unit=*/true);
    trsm(lu, x, /*upper=*/true, /*unit=*/false);
  } else {  // A^T = U^T L^T P^T (real dtypes: the conjugate transpose is the transpose)
    trsm(lu.transposed(), x, /*upper=*/false, /*unit=*/false);
    trsm(lu.transposed(), x, /*upper=*/true, /*unit=*/true);
    laswp(x, piv, true);
  }
  finish(x, B);
}

void triangular_solve_kernel(const Tensor& A, const Tensor& B, bool left, bool upper, TransposeType transpose,
                             bool unitriangular) {
  if (B.numel() == 0) return;
  const auto batch = B.sizes().slice(0, B.dim() - 2);
  // LAPACK reads A's memory column-major whatever its strides: ATen passes a
  // row-major A (unchanged, upper and transpose flipped) to mean A^T.
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
  trsm(a, x, upper, unitriangular);
  finish(b, B);
}

void unpack_pivots_kernel(at::TensorIterator& iter, int64_t dim_size, int64_t max_pivot) {
  const Tensor& perm = iter.tensor(0);
  const Tensor& piv = iter.tensor(1);
  if (perm.numel() == 0 || max_pivot == 0) return;
  TORCH_INTERNAL_ASSERT(perm.is_contiguous() && piv.is_contiguous());
  const int64_t count = perm.numel() / max_pivot;
  const auto device = perm.device().index();
  Launch l(device, dtype_kernel(device, "linalg", "unpack_pivots", at::kFloat));
  l.tensor(perm).input(piv).value(max_pivot).value(dim_size).value(count);
  l.run(static_cast<size_t>(count));
}

// inv(A) for A = L L^T (U^T U): X = I, then L Y = X and L^T X = Y.
Tensor& cholesky_inverse_kernel(Tensor& result, Tensor& infos, bool upper) {
  if (result.numel() == 0) return result;
  const Tensor factor = result.clone();
  const Matrices f = matrices(factor);
  const Tensor diag = factor.diagonal(0, -2, -1);
  const Tensor zero = diag == 0;
  infos.copy_(at::where(zero.any(-1), zero.to(at::kInt).argmax(-1) + 1, 0));
  result.copy_(at::eye(result.size(-1), result.options()).expand_as(result));
  Matrices x = matrices(result);
  const Matrices lower = upper ? f.transposed() : f;
  trsm(lower, x, /*upper=*/false, /*unit=*/false);
  trsm(lower.transposed(), x, /*upper=*/true, /*unit=*/false);
  finish(x, result);
  return result;
}

// ---- ops without a stub ----------------------------------------------------

// cholesky_solve's kernel: B and the factor A broadcast to one batch by ATen.
Tensor cholesky_solve_helper(const Tensor& self, const Tensor& A, bool upper) {
  Tensor result = self.mT().contiguous().mT();
  if (result.numel() == 0) return result;
  Matrices x = matrices(result);
  const Matrices f = matrices(expand_batch(A, self.sizes().slice(0, self.dim() - 2)));
  const Matrices lower = upper ? f.transposed() : f;
  trsm(lower, x, /*upper=*/false, /*unit=*/false);
  trsm(lower.transposed(), x, /*upper=*/true, /*unit=*/false);
  return result;
}

}  // namespace
}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(cholesky_stub, &::torch_ocl::cholesky_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(cholesky_inverse_stub, &::torch_ocl::cholesky_inverse_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(lu_factor_stub, &::torch_ocl::lu_factor_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(lu_solve_stub, &::torch_ocl::lu_solve_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(triangular_solve_stub, &::torch_ocl::triangular_solve_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(unpack_pivots_stub, &::torch_ocl::unpack_pivots_kernel)
}  // namespace at::native

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace torch_ocl;
  using namespace at::native;
  register_native_multi<structured_linalg_cholesky_ex_out>(m, "linalg_cholesky_ex", "linalg_cholesky_ex.L", takes_linalg);
  register_native_multi<structured_linalg_lu_factor_ex_out>(m, "linalg_lu_factor_ex", "linalg_lu_factor_ex.out",
                                                            takes_linalg);
  register_native_multi<structured_linalg_lu_out>(m, "linalg_lu", "linalg_lu.out", takes_linalg);
  register_native_multi<structured_lu_unpack_out>(m, "lu_unpack", "lu_unpack.out", takes_linalg);
  register_native_multi<structured_linalg_lu_solve_out>(m, "linalg_lu_solve", "linalg_lu_solve.out", takes_linalg);
  register_native_multi<structured__linalg_solve_ex_out>(m, "_linalg_solve_ex", "_linalg_solve_ex.result", takes_linalg);
  register_native_multi<structured_linalg_inv_ex_out>(m, "linalg_inv_ex", "linalg_inv_ex.inverse", takes_linalg);
  register_native_multi<structured__linalg_det_out>(m, "_linalg_det", "_linalg_det.result", takes_linalg);
  register_native_multi<structured__linalg_slogdet_out>(m, "_linalg_slogdet", "_linalg_slogdet.sign", takes_linalg);
  register_native_multi<structured_triangular_solve_out>(m, "triangular_solve", "triangular_solve.X", takes_linalg);
  register_op<&linalg_solve_triangular, takes_linalg>(m, "linalg_solve_triangular");
  register_op<&linalg_solve_triangular_out, takes_linalg>(m, "linalg_solve_triangular.out");
  register_op<&cholesky, takes_linalg>(m, "cholesky");
  register_op<&cholesky_out, takes_linalg>(m, "cholesky.out");
  register_op<&cholesky_inverse, takes_linalg>(m, "cholesky_inverse");
  register_op<&cholesky_inverse_out, takes_linalg>(m, "cholesky_inverse.out");
  register_op<&cholesky_solve_helper, takes_linalg>(m, "_cholesky_solve_helper");
}
