// The _foreach ops on ocl run ATen's per-tensor kernels (the CPU's "slow"
// path, each op native). The overloads taking a scalar *tensor*
// (_foreach_add/mul/div.Tensor) add CUDA's checks of its fused route: the
// scalar must be 0-dim, and where every tensor is on one ocl device with the
// scalar's dtype (CUDA's fast-route condition), on that device too (for mul
// and div, or on the CPU).
#include <ATen/ops/_foreach_add_native.h>
#include <ATen/ops/_foreach_div_native.h>
#include <ATen/ops/_foreach_mul_native.h>
#include <torch/library.h>

#include <vector>

namespace torch_ocl {
namespace {

using at::Tensor;
using at::TensorList;

// cpu_ok: mul and div take a CPU scalar tensor on CUDA's fused route too (its
// value read once, as optimizers pass a CPU tensor lr: 1 - lr * weight_decay);
// add (with alpha) requires it on the device.
void check_scalar_tensor(TensorList self, const Tensor& scalar, bool cpu_ok = false) {
  TORCH_CHECK(scalar.dim() == 0 && scalar.numel() == 1, "scalar tensor expected to be 0 dim but it has ",
              scalar.dim(), " dimensions and ", scalar.numel(), " elements.");
  if (self.empty() || (cpu_ok && scalar.is_cpu())) return;
  for (const Tensor& t : self)
    if (t.device() != self[0].device() || t.scalar_type() != scalar.scalar_type()) return;  // CUDA's slow route
  TORCH_CHECK(self[0].device() == scalar.device(), "scalar tensor expected to be on ", self[0].device(),
              " but is on ", scalar.device());
}

std::vector<Tensor> foreach_add(TensorList self, const Tensor& other, const at::Scalar& alpha) {
  check_scalar_tensor(self, other);
  return at::native::foreach_tensor_add_tensor_kernel_slow(self, other, alpha);
}
void foreach_add_(TensorList self, const Tensor& other, const at::Scalar& alpha) {
  check_scalar_tensor(self, other);
  at::native::foreach_tensor_add_tensor_kernel_slow_(self, other, alpha);
}
std::vector<Tensor> foreach_mul(TensorList self, const Tensor& other) {
  check_scalar_tensor(self, other, /*cpu_ok=*/true);
  return at::native::foreach_tensor_mul_tensor_kernel_slow(self, other);
}
void foreach_mul_(TensorList self, const Tensor& other) {
  check_scalar_tensor(self, other, /*cpu_ok=*/true);
  at::native::foreach_tensor_mul_tensor_kernel_slow_(self, other);
}
std::vector<Tensor> foreach_div(TensorList self, const Tensor& other) {
  check_scalar_tensor(self, other, /*cpu_ok=*/true);
  return at::native::foreach_tensor_div_tensor_kernel_slow(self, other);
}
void foreach_div_(TensorList self, const Tensor& other) {
  check_scalar_tensor(self, other, /*cpu_ok=*/true);
  at::native::foreach_tensor_div_tensor_kernel_slow_(self, other);
}

}  // namespace
}  // namespace torch_ocl

// Checks in front of composite kernels: no kernel of their own (register_op.h's m.impl case).
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace torch_ocl;
  m.impl("_foreach_add.Tensor", TORCH_FN(foreach_add));
  m.impl("_foreach_add_.Tensor", TORCH_FN(foreach_add_));
  m.impl("_foreach_mul.Tensor", TORCH_FN(foreach_mul));
  m.impl("_foreach_mul_.Tensor", TORCH_FN(foreach_mul_));
  m.impl("_foreach_div.Tensor", TORCH_FN(foreach_div));
  m.impl("_foreach_div_.Tensor", TORCH_FN(foreach_div_));
}
