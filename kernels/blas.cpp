// Matrix products through CLBlast: mm, addmm, bmm. Transposed views are passed
// as transposes with their leading dimension, not copied.
#include <ATen/Operators.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/addmm_meta.h>
#include <ATen/ops/bmm_meta.h>
#include <ATen/ops/mm_meta.h>
#include <ATen/ops/addmm_ops.h>
#include <ATen/ops/bmm_ops.h>
#include <ATen/ops/mm_ops.h>
#include <c10/core/DeviceGuard.h>
#include <clblast.h>

#include "backend/device_ptr.h"
#include "backend/fallback.h"
#include "backend/kernel_launch.h"
#include "backend/runtime.h"
#include "backend/scratch_buffer.h"
#include "kernels/blas.h"
#include "kernels/structured.h"

namespace torch_ocl {
namespace {

void check_clblast(clblast::StatusCode status, const char* routine) {
  const int code = static_cast<int>(status);
  TORCH_CHECK(status == clblast::StatusCode::kSuccess, "CLBlast call ", routine, " failed: ",
              code > -1024 ? cl_error_name(code) : "CLBlast error", " (", code, ")");
}

// One matrix operand as CLBlast sees it (row-major layout).
struct Operand {
  at::Tensor keep;  // the tensor whose memory is used (a copy if needed)
  cl_mem buffer = nullptr;
  size_t offset = 0;  // elements
  size_t ld = 1;
  clblast::Transpose trans = clblast::Transpose::kNo;
  int64_t batch_stride = 0;
};

// `t` is [..., rows, cols]; the last two dims must be expressible with a
// leading dimension, otherwise t is made contiguous.
Operand operand(const at::Tensor& t) {
  const int64_t nd = t.dim();
  const int64_t rows = t.size(nd - 2), cols = t.size(nd - 1);
  int64_t s0 = t.stride(nd - 2), s1 = t.stride(nd - 1);
  // A size-1 dim's stride is free: pick the one that avoids a copy.
  if (rows == 1) s0 = s1 == 1 ? std::max<int64_t>(cols, 1) : 1;
  if (cols == 1) s1 = 1;
  Operand op;
  if (s1 == 1 && s0 >= std::max<int64_t>(1, cols)) {
    op.keep = t;
    op.ld = static_cast<size_t>(s0);
  } else if (s0 == 1 && s1 >= std::max<int64_t>(1, rows)) {
    op.keep = t;
    op.ld = static_cast<size_t>(s1);
    op.trans = clblast::Transpose::kYes;
  } else {
    op.keep = t.contiguous();
    op.ld = static_cast<size_t>(std::max<int64_t>(1, cols));
  }
  if (nd == 3) op.batch_stride = op.keep.size(0) == 1 ? 0 : op.keep.stride(0);
  const DeviceBuffer b = resolve_device_ptr(op.keep.data_ptr());
  op.buffer = b.buffer;
  op.offset = b.offset / op.keep.element_size();
  return op;
}

void check_same_dtype(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "expected m1 and m2 to have the same dtype, but got: ",
              a.scalar_type(), " != ", b.scalar_type());
}

void check_same_device(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.device() == b.device(),
              "Expected all tensors to be on the same device, but found at least two devices, ",
              a.device(), " and ", b.device(), "!");
}

bool gemm_native(c10::ScalarType t) { return t == c10::kFloat || t == c10::kDouble; }

// out[b] = alpha * a[b] @ b[b] + beta * out[b]; out must be row-major.
template <class T>
void gemm_typed(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, double alpha,
                double beta) {
  const bool batched = out.dim() == 3;
  const size_t m = out.size(-2), n = out.size(-1), k = a.size(-1);
  const size_t batch = batched ? out.size(0) : 1;
  Operand A = operand(a), B = operand(b), C = operand(out);
  TORCH_INTERNAL_ASSERT(C.keep.is_same(out) && C.trans == clblast::Transpose::kNo);
  const c10::Stream stream = current_stream(out.device().index());
  cl_command_queue queue = stream_queue(stream);
  if (!batched) {
    size_t temp = 0;
    check_clblast(clblast::GemmTempBufferSize<T>(clblast::Layout::kRowMajor, A.trans, B.trans, m, n, k,
                                                 A.offset, A.ld, B.offset, B.ld, C.offset, C.ld, &queue,
                                                 temp),
                  "GemmTempBufferSize");
    // CLBlast uses its temp buffer from offset 0: a scratch cl_mem, not an
    // allocator block (whose neighbours it would overwrite).
    const ScratchBuffer temp_buffer = temp ? stream_scratch(stream, temp) : ScratchBuffer();
    check_clblast(clblast::Gemm<T>(clblast::Layout::kRowMajor, A.trans, B.trans, m, n, k,
                                   static_cast<T>(alpha), A.buffer, A.offset, A.ld, B.buffer, B.offset,
                                   B.ld, static_cast<T>(beta), C.buffer, C.offset, C.ld, &queue,
                                   nullptr, temp_buffer.get()),
                  "Gemm");
  } else {
    check_clblast(clblast::GemmStridedBatched<T>(
                      clblast::Layout::kRowMajor, A.trans, B.trans, m, n, k, static_cast<T>(alpha),
                      A.buffer, A.offset, A.ld, A.batch_stride, B.buffer, B.offset, B.ld,
                      B.batch_stride, static_cast<T>(beta), C.buffer, C.offset, C.ld,
                      out.stride(0), batch, &queue, nullptr),
                  "GemmStridedBatched");
  }
}

// out = alpha * a @ b + beta * out (out already holds the addend when beta != 0).
void gemm(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, double alpha, double beta) {
  if (out.numel() == 0) return;
  c10::DeviceGuard guard(out.device());
  if (a.size(-1) == 0 || alpha == 0) {  // nothing to multiply
    if (beta == 0) out.zero_();
    else if (beta != 1) out.mul_(beta);
    return;
  }
  if (beta == 0) out.zero_();  // beta = 0 must ignore NaNs in out
  const int64_t nd = out.dim();
  // Row-major matrices that do not overlap: stacked, or (in views of a larger
  // matrix) side by side in the same rows.
  const bool row_major = out.stride(nd - 1) == 1 && out.stride(nd - 2) >= std::max<int64_t>(1, out.size(nd - 1)) &&
                         (nd == 2 || out.size(0) == 1 || out.stride(0) >= out.size(1) * out.stride(1) ||
                          (out.stride(0) >= out.size(2) && out.stride(1) >= out.size(0) * out.stride(0)));
  at::Tensor c = row_major ? out : out.contiguous();
  if (out.scalar_type() == c10::kFloat) gemm_typed<float>(c, a, b, alpha, beta);
  else gemm_typed<double>(c, a, b, alpha, beta);
  if (!c.is_same(out)) out.copy_(c);
}

}  // namespace

void gemm_batched(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, double alpha,
                  double beta) {
  TORCH_INTERNAL_ASSERT(gemm_native(out.scalar_type()) && a.scalar_type() == out.scalar_type() &&
                        b.scalar_type() == out.scalar_type());
  TORCH_INTERNAL_ASSERT(out.dim() >= 2 && out.dim() <= 4 && a.dim() == out.dim() && b.dim() == out.dim());
  if (out.stride(-2) == 1 && out.stride(-1) != 1)  // column-major out: out^T = b^T @ a^T
    return gemm_batched(out.mT(), b.mT(), a.mT(), alpha, beta);
  if (out.dim() < 4) return gemm(out, a, b, alpha, beta);
  // Loop over the smaller leading dim, batch over the other.
  const bool swap = out.size(0) > out.size(1);
  const at::Tensor o = swap ? out.transpose(0, 1) : out, x = swap ? a.transpose(0, 1) : a,
                   y = swap ? b.transpose(0, 1) : b;
  for (int64_t i = 0; i < o.size(0); ++i) gemm(o[i], x[i], y[i], alpha, beta);
}

namespace {

// mm and bmm: `FallbackOp` is the op's .out overload, used for dtypes CLBlast lacks.
template <class FallbackOp>
void matmul_impl(at::impl::MetaBase&, const at::Tensor& out, const at::Tensor& self, const at::Tensor& mat2) {
  check_same_device(self, mat2);
  check_same_device(self, out);
  check_same_dtype(self, mat2);
  if (!gemm_native(self.scalar_type())) {
    at::native::call_fallback_fn<&cpu_fallback_kernel, FallbackOp>::call(self, mat2, const_cast<at::Tensor&>(out));
    return;
  }
  gemm(out, self, mat2, 1.0, 0.0);
}

void addmm_impl(at::impl::MetaBase&, const at::Tensor& out, const at::Tensor& self, const at::Tensor& mat1,
                const at::Tensor& mat2, const c10::Scalar& beta, const c10::Scalar& alpha) {
  check_same_device(mat1, mat2);
  check_same_device(mat1, out);
  check_same_device(self, out);
  if (!gemm_native(mat1.scalar_type())) {
    at::native::call_fallback_fn<&cpu_fallback_kernel, ATEN_OP2(addmm, out)>::call(
        self, mat1, mat2, beta, alpha, const_cast<at::Tensor&>(out));
    return;
  }
  const double b = beta.toDouble();
  if (b != 0 && !out.is_same(self)) out.copy_(self.expand_as(out));
  gemm(out, mat1, mat2, alpha.toDouble(), b);
}

using TensorRef = const at::Tensor&;
using ScalarRef = const c10::Scalar&;

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace at::meta;
  register_structured<structured_mm, &matmul_impl<ATEN_OP2(mm, out)>, TensorRef>(m, "mm", nullptr, "mm.out");
  register_structured<structured_bmm, &matmul_impl<ATEN_OP2(bmm, out)>, TensorRef>(m, "bmm", nullptr, "bmm.out");
  register_structured<structured_addmm, &addmm_impl, TensorRef, TensorRef, ScalarRef, ScalarRef>(
      m, "addmm", "addmm_", "addmm.out");
}

}  // namespace torch_ocl
