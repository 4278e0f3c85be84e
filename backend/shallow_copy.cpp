// Module conversion keeps Parameter identity, as on CUDA (DESIGN.md
// decision 13).
//
// `nn.Module._apply` (so `.to()`, `.cuda()`-style moves, `.half()`, `to_empty`)
// and `Tensor.data = t` (`VariableHooks::set_data`) both ask
// `aten::_has_compatible_shallow_copy_type(self, from)` whether `self` may take
// `from`'s storage and metadata in place. c10's answer
// (`TensorImpl::has_compatible_shallow_copy_type`) counts CPU, CUDA, MPS, HIP,
// XPU, HPU and MTIA as dense backends but not PrivateUse1, so for a CPU
// Parameter moved to `ocl` it says no: `_apply` builds a new Parameter (tied
// weights untie, optimizers built before the move hold dead tensors, `.grad`
// is detached from the module) and `param.data = ocl_tensor` raises.
//
// The op is CompositeImplicitAutograd and is dispatched (not called
// directly), so a kernel on AutogradPrivateUse1 answers every call that has an
// `ocl` tensor among its arguments (PrivateUse1 is the highest backend bit of
// such a call) and nothing else: CPU/CUDA calls never reach it. The answer is
// c10's rule with PrivateUse1 among the dense backends. The PrivateUse1
// registration serves calls made below autograd (inference mode).
//
// Upstream change that makes this file unnecessary: add
// `BackendComponent::PrivateUse1Bit` to `dense_backends` in
// `TensorImpl::has_compatible_shallow_copy_type` (c10/core/TensorImpl.h).
#include <ATen/ATen.h>
#include <c10/core/DispatchKeySet.h>
#include <torch/library.h>

namespace torch_ocl {
namespace {

bool is_dense(c10::DispatchKeySet ks) {
  using B = c10::BackendComponent;
  constexpr auto dense_backends = c10::DispatchKeySet(
      {B::CPUBit, B::CUDABit, B::MPSBit, B::HIPBit, B::XPUBit, B::HPUBit, B::MTIABit, B::PrivateUse1Bit});
  return ks.has_any(c10::DispatchKeySet(c10::DispatchKey::Dense)) && ks.has_any(dense_backends);
}

bool has_compatible_shallow_copy_type(const at::Tensor& self, const at::Tensor& from) {
  auto* impl = self.unsafeGetTensorImpl();
  const auto from_keys = from.unsafeGetTensorImpl()->key_set();
  if (is_dense(impl->key_set()) && is_dense(from_keys)) return true;
  return impl->has_compatible_shallow_copy_type(from_keys);  // c10's rules for everything else
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, AutogradPrivateUse1, m) {
  m.impl("_has_compatible_shallow_copy_type", has_compatible_shallow_copy_type);
}
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_has_compatible_shallow_copy_type", has_compatible_shallow_copy_type);
}

}  // namespace torch_ocl
