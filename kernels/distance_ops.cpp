// cdist and pdist on ocl: ATen's own _cdist_forward / _cdist_backward /
// _pdist_forward / _pdist_backward (checks, batch broadcasting, the mm path
// for p = 2, output allocation) behind their DispatchStubs, whose kernels
// are kernels/distance.cl (float32 / float64, as the CPU's and CUDA's).
#include <ATen/native/Distance.h>
#include <ATen/ops/_cdist_backward_native.h>
#include <ATen/ops/_cdist_forward_native.h>
#include <ATen/ops/_pdist_backward_native.h>
#include <ATen/ops/_pdist_forward_native.h>
#include <torch/library.h>

#include "backend/kernel_launch.h"
#include "kernels/register_op.h"

namespace torch_ocl {
namespace {

using at::Tensor;

// `op`'s kernel for like's dtype: float32 / float64, as the CPU's and CUDA's
// (ATen's checks refuse non-floating inputs first; this, the half types).
Launch distance_launch(const Tensor& like, const char* op, const char* kernel) {
  const auto device = like.device().index();
  TORCH_CHECK_NOT_IMPLEMENTED(like.scalar_type() == at::kFloat || like.scalar_type() == at::kDouble, "\"", op,
                              "\" not implemented for '", like.scalar_type(), "'");
  check_dtype_supported(like.scalar_type(), device);
  return Launch(device, dtype_kernel(device, "distance", kernel, like.scalar_type()));
}

// p as the kernel's ACC (float or double).
void value_p(Launch& l, const Tensor& like, double p) {
  if (like.scalar_type() == at::kDouble) l.value<cl_double>(p);
  else l.value<cl_float>(static_cast<float>(p));
}

// result (the broadcast batch dims, P, R) = distances of x1 [B, P, M] and x2
// [B, R, M] (batch dims expanded and flattened by ATen).
void cdist_kernel(Tensor& result, const Tensor& x1, const Tensor& x2, double p) {
  if (result.numel() == 0) return;
  const int64_t B = x1.size(0), P = x1.size(1), R = x2.size(1), M = x1.size(2);
  if (M == 0) {
    result.zero_();
    return;
  }
  const Tensor a = x1.contiguous(), b = x2.contiguous();
  const Tensor out = result.is_contiguous() ? result : at::empty_like(result, at::MemoryFormat::Contiguous);
  Launch l = distance_launch(result, "cdist", "cdist_forward");
  l.input(a).input(b).tensor(out).value(B).value(P).value(R).value(M);
  value_p(l, result, p);
  l.run(static_cast<size_t>(B * P * R));
  if (!out.is_same(result)) result.copy_(out);
}

// grad_x1 [B, P, M] of the distances `dist` [B, P, R] for their gradient `grad`.
void cdist_backward_kernel(Tensor& grad_x1, const Tensor& grad, const Tensor& x1, const Tensor& x2, double p,
                           const Tensor& dist) {
  if (grad_x1.numel() == 0) return;
  const int64_t B = grad_x1.size(0), P = x1.size(-2), R = x2.size(-2), M = x1.size(-1);
  const Tensor g = grad.contiguous(), a = x1.contiguous(), b = x2.contiguous(), d = dist.contiguous();
  const Tensor out = grad_x1.is_contiguous() ? grad_x1 : at::empty_like(grad_x1, at::MemoryFormat::Contiguous);
  Launch l = distance_launch(grad_x1, "cdist", "cdist_backward");
  l.input(g).input(a).input(b).input(d).tensor(out).value(B).value(P).value(R).value(M);
  value_p(l, grad_x1, p);
  l.run(static_cast<size_t>(B * P * M));
  if (!out.is_same(grad_x1)) grad_x1.copy_(out);
}

// result [N (N - 1) / 2] = distances of the row pairs of self [N, M].
void pdist_kernel(Tensor& result, const Tensor& self, double p) {
  if (result.numel() == 0) return;
  const int64_t N = self.size(0), M = self.size(1);
  const Tensor x = self.contiguous();
  Launch l = distance_launch(result, "pdist", "pdist_forward");
  l.input(x).tensor(result).value(N).value(M);
  value_p(l, result, p);
  l.run(static_cast<size_t>(N));
}

void pdist_backward_kernel(Tensor& result, const Tensor& grad, const Tensor& self, double p, const Tensor& dist) {
  if (result.numel() == 0) return;
  const int64_t N = self.size(0), M = self.size(1);
  const Tensor g = grad.contiguous(), x = self.contiguous(), d = dist.contiguous();
  Launch l = distance_launch(result, "pdist", "pdist_backward");
  l.input(g).input(x).input(d).tensor(result).value(N).value(M);
  value_p(l, result, p);
  l.run(static_cast<size_t>(N * M));
}

}  // namespace
}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(cdist_stub, &::torch_ocl::cdist_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(cdist_backward_stub, &::torch_ocl::cdist_backward_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(pdist_forward_stub, &::torch_ocl::pdist_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(pdist_backward_stub, &::torch_ocl::pdist_backward_kernel)
}  // namespace at::native

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace torch_ocl;
  register_op<&at::native::_cdist_forward, takes_any>(m, "_cdist_forward");
  register_op<&at::native::_cdist_backward, takes_any>(m, "_cdist_backward");
  register_op<&at::native::_pdist_forward, takes_any>(m, "_pdist_forward");
  register_op<&at::native::_pdist_backward, takes_any>(m, "_pdist_backward");
}
