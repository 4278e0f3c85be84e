// Two ATen-generic ops registered for PrivateUse1 (DESIGN decision 3, stubs
// first): channel_shuffle (at::native::channel_shuffle: checks, then the
// native_channel_shuffle view/reshape composite) and unfold_backward
// (Tensor.unfold's backward: at::native::unfold_backward zero-fills and, for
// overlapping windows, calls unfold_backward_stub, provided here).
#include <ATen/native/UnfoldBackward.h>
#include <ATen/ops/channel_shuffle_native.h>
#include <ATen/ops/unfold_backward_native.h>
#include <torch/library.h>

#include "kernels/register_op.h"

namespace torch_ocl {
namespace {

// grad_in (zero-filled, the input's sizes) += each window's grad: window
// offset k of every window is one strided view of grad_in, so `size`
// in-place adds (native pointwise kernels; deterministic, no atomics).
void unfold_backward_kernel(at::Tensor& grad_in, const at::Tensor& grad, int64_t dim, int64_t size, int64_t step) {
  dim = c10::maybe_wrap_dim(dim, grad_in.dim());
  const int64_t windows = grad_in.dim() == 0 ? 1 : grad.size(dim);
  if (windows == 0 || grad_in.numel() == 0) return;
  for (int64_t k = 0; k < size; ++k) {
    at::Tensor positions = grad_in.dim() == 0
                               ? grad_in
                               : grad_in.narrow(dim, k, (windows - 1) * step + 1).slice(dim, 0, c10::nullopt, step);
    // (grad broadcasts to grad_in, as the CPU's TensorIterator lets it: istft's
    // reference passes a window expanded over one batch row.)
    const at::Tensor window_k = grad.select(-1, k);
    positions.add_(grad_in.dim() == 0 ? window_k.view({}) : window_k);
  }
}

// ATen's composite (math_channel_shuffle) starts with self.view(b, groups,
// oc, -1), which raises for strides a view cannot express (a transposed or
// sliced input; the CPU kernel accepts any strides). Found by the fuzzer.
at::Tensor channel_shuffle(const at::Tensor& self, int64_t groups) {
  return at::native::channel_shuffle(self.numel() == 0 ? self : self.contiguous(), groups);
}

}  // namespace
}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(unfold_backward_stub, &torch_ocl::unfold_backward_kernel)
}  // namespace at::native

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  torch_ocl::register_op<&torch_ocl::channel_shuffle, torch_ocl::takes_complex>(m, "channel_shuffle");
  torch_ocl::register_op<&at::native::unfold_backward, torch_ocl::takes_complex>(m, "unfold_backward");
}
