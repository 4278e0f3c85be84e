// segment_reduce (torch.segment_reduce, `_segment_reduce` in OpInfo) and its
// backward: ATen's own segment_reduce_kernel / _segment_reduce_backward_kernel
// (checks, contiguity, the unsafe=False validation) over its four
// DispatchStubs, whose PrivateUse1 kernels are here (kernels/segment_reduce.cl).
// Lengths become int64 offsets on the device (an exclusive cumsum), so both
// stub families launch the same kernels.
#include <ATen/native/DispatchStub.h>
#include <ATen/native/ReductionType.h>
#include <ATen/native/SegmentReduce.h>
#include <ATen/ops/_segment_reduce_backward_native.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/segment_reduce_native.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <cstring>

#include "backend/kernel_launch.h"
#include "kernels/register_op.h"

namespace torch_ocl {
namespace {

using at::Tensor;
using at::native::ReductionType;

// The data as [outer, size, inner] around `axis` (the last dim of lengths /
// offsets, as the CPU's kernels take it).
struct Layout {
  int64_t axis, outer = 1, size, inner = 1, segs;
};
Layout layout(const Tensor& data, const Tensor& index, bool offsets) {
  Layout l;
  l.axis = index.dim() - 1;
  for (int64_t d = 0; d < l.axis; ++d) l.outer *= data.size(d);
  for (int64_t d = l.axis + 1; d < data.dim(); ++d) l.inner *= data.size(d);
  l.size = data.size(l.axis);
  l.segs = index.size(l.axis) - (offsets ? 1 : 0);
  return l;
}

// int64 offsets [outer, segs + 1] from lengths (0, then their running sum) or offsets.
Tensor offsets_of(const Tensor& index, bool offsets) {
  const Tensor i = index.to(at::kLong).contiguous();
  if (offsets) return i;
  auto first = i.sizes().vec();
  first.back() = 1;
  return at::cat({at::zeros(first, i.options()), at::cumsum(i, -1)}, -1);
}

// `v` as the kernel's CT bits: a double for float64 data, else a float.
cl_ulong init_bits(const std::optional<c10::Scalar>& v, double otherwise, c10::ScalarType dtype) {
  const double x = v.has_value() ? v->toDouble() : otherwise;
  cl_ulong bits = 0;
  if (dtype == at::kDouble) {
    std::memcpy(&bits, &x, sizeof x);
  } else {
    const float f = static_cast<float>(x);
    uint32_t b;
    std::memcpy(&b, &f, sizeof f);
    bits = b;
  }
  return bits;
}

Launch segment_launch(const Tensor& like, const char* kernel) {
  const auto device = like.device().index();
  const c10::ScalarType dtype = like.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(dtype), "\"_segment_reduce_cpu\" not implemented for '",
                              c10::toString(dtype), "'");
  check_dtype_supported(dtype, device);
  return Launch(device, source_kernel(device, "segment_reduce", kernel, kernel_variant({static_cast<int>(dtype)}), [&] {
    return dtype_preamble(dtype) + (dtype == at::kDouble ? "#define CT_IS_DOUBLE 1\n" : "");
  }));
}

Tensor forward(bool offsets, ReductionType red, const Tensor& data_in, const Tensor& index,
               const std::optional<c10::Scalar>& initial) {
  const Tensor data = data_in.contiguous();
  const Layout l = layout(data, index, offsets);
  auto shape = data.sizes().vec();
  shape[l.axis] = l.segs;
  Tensor out = at::empty(shape, data.options());
  if (out.numel() == 0) return out;
  const Tensor off = offsets_of(index, offsets);
  Launch k = segment_launch(data, "segment_reduce");
  k.tensor(out).input(data).input(off).value(l.outer).value(l.segs).value(l.size).value(l.inner);
  k.value<cl_int>(static_cast<int>(red)).value<cl_int>(initial.has_value()).value(init_bits(initial, 0, data.scalar_type()));
  k.run_items(out.numel());
  return out;
}

Tensor backward(bool offsets, const Tensor& grad, const Tensor& output, const Tensor& data_in, ReductionType red,
                const Tensor& index, const std::optional<c10::Scalar>& initial) {
  const Tensor data = data_in.contiguous();
  const Layout l = layout(data, index, offsets);
  Tensor grad_input = at::zeros(data.sizes(), grad.options());
  if (output.numel() == 0 || data.numel() == 0) return grad_input;
  const Tensor off = offsets_of(index, offsets);
  Launch k = segment_launch(data, "segment_reduce_backward");
  k.tensor(grad_input).input(grad.contiguous()).input(output.contiguous()).input(data).input(off);
  k.value(l.outer).value(l.segs).value(l.size).value(l.inner).value<cl_int>(static_cast<int>(red));
  k.value(init_bits(initial, 1, data.scalar_type()));  // prod's exclusive products start from it
  k.run_items(output.numel());
  return grad_input;
}

Tensor lengths_kernel(ReductionType r, const Tensor& data, const Tensor& lengths, int64_t,
                      const std::optional<c10::Scalar>& initial) {
  return forward(false, r, data, lengths, initial);
}
Tensor offsets_kernel(ReductionType r, const Tensor& data, const Tensor& offsets, int64_t,
                      const std::optional<c10::Scalar>& initial) {
  return forward(true, r, data, offsets, initial);
}
Tensor lengths_backward_kernel(const Tensor& grad, const Tensor& output, const Tensor& data, ReductionType r,
                               const Tensor& lengths, int64_t, const std::optional<c10::Scalar>& initial) {
  return backward(false, grad, output, data, r, lengths, initial);
}
Tensor offsets_backward_kernel(const Tensor& grad, const Tensor& output, const Tensor& data, ReductionType r,
                               const Tensor& offsets, int64_t, const std::optional<c10::Scalar>& initial) {
  return backward(true, grad, output, data, r, offsets, initial);
}

}  // namespace
}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(_segment_reduce_lengths_stub, &::torch_ocl::lengths_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(_segment_reduce_offsets_stub, &::torch_ocl::offsets_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(_segment_reduce_lengths_backward_stub, &::torch_ocl::lengths_backward_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(_segment_reduce_offsets_backward_stub, &::torch_ocl::offsets_backward_kernel)
}  // namespace at::native

// The data's dtype is checked by the kernels (floating types, as the CPU's
// AT_DISPATCH); lengths / offsets are integer tensors: takes_real.
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  ::torch_ocl::register_op<&at::native::segment_reduce_kernel>(m, "segment_reduce");
  ::torch_ocl::register_op<&at::native::_segment_reduce_backward_kernel>(m, "_segment_reduce_backward");
}
