// The aten registrations of copies: _copy_from, _copy_from_and_resize,
// _local_scalar_dense on PrivateUse1, and their fallthroughs on the Conjugate
// and Negative keys. The copy mechanism itself is backend/copy.{h,cpp}.
#include <ATen/native/Resize.h>
#include <ATen/ops/_local_scalar_dense.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "backend/copy.h"

namespace torch_ocl {
namespace {

at::Tensor copy_from_op(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  return copy_from(self, dst, non_blocking);
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  at::native::resize_output(dst, self.sizes());
  return copy_from(self, dst, false);
}

c10::Scalar local_scalar_dense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() > 0, "_local_scalar_dense: empty tensor");
  at::Tensor host = at::empty({}, self.options().device(c10::kCPU));
  copy_device_to_host(host, self.reshape({}), false);
  return at::_local_scalar_dense(host);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_copy_from", TORCH_FN(copy_from_op));
  m.impl("_copy_from_and_resize", TORCH_FN(copy_from_and_resize));
  m.impl("_local_scalar_dense", TORCH_FN(local_scalar_dense));
}

// The Conjugate and Negative keys' boxed fallbacks would materialise a
// conj/neg `self` of _copy_from with clone(), and clone() copies through
// _copy_from again: an endless recursion. copy_from() resolves the lazy bits
// itself, so these keys pass _copy_from straight through to it.
TORCH_LIBRARY_IMPL(aten, Conjugate, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}
TORCH_LIBRARY_IMPL(aten, Negative, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}

}  // namespace torch_ocl
