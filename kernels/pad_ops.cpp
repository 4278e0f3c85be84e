// Reflection and replication padding on PrivateUse1 (reflection_pad1d/2d/3d,
// replication_pad1d/2d/3d and their backward ops; F.pad's 'reflect' and
// 'replicate' modes; 'circular' is an ATen composite of narrow/cat).
// Kernels: kernels/pad.cl (one program per dtype).
//
// The structured ones reuse ATen's metas. reflection_pad2d(_backward) and
// replication_pad2d/3d_backward have CPU-only entry points: their checks
// below repeat the CPU's (ReflectionPad.cpp, ReplicationPadding.cpp) with its
// messages, using ATen's padding::check_valid_input. Forward: every dtype
// but bool (the CPU rejects it), complex included; backward: floating types; other dtypes go
// to the counted CPU fallback (its result or its error).
#include <ATen/native/Padding.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/reflection_pad1d_backward_meta.h>
#include <ATen/ops/reflection_pad1d_meta.h>
#include <ATen/ops/reflection_pad3d_backward_meta.h>
#include <ATen/ops/reflection_pad3d_meta.h>
#include <ATen/ops/replication_pad1d_backward_meta.h>
#include <ATen/ops/replication_pad1d_meta.h>
#include <ATen/ops/replication_pad2d_meta.h>
#include <ATen/ops/replication_pad3d_meta.h>

#include "kernels/register_op.h"
#include "backend/kernel_launch.h"
#include "kernels/ncdhw.h"
#include "kernels/structured.h"

namespace torch_ocl {
namespace {

using at::IntArrayRef;
using at::Tensor;

// Mirrors PadParams in kernels/pad.cl.
struct PadParams {
  int64_t N = 1, C = 1;
  int64_t in_size[3] = {1, 1, 1}, out_size[3] = {1, 1, 1};
  int64_t in_stride[5] = {}, out_stride[5] = {};
  int64_t pad[3] = {0, 0, 0};
  int64_t reflect = 0, channels_last = 0;
};

// Between `input` (input or grad_input) and `output` (output or
// grad_output); padding as the schema's (left, right, top, bottom, front,
// back); work items follow `dst`'s layout.
void run_pad(bool forward, bool reflect, const Tensor& input, const Tensor& output, IntArrayRef padding,
             const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  const int dims = static_cast<int>(padding.size() / 2);
  PadParams p;
  fill_ncdhw(p, input, output, dst, dims);
  p.reflect = reflect;
  for (int i = 0; i < dims; ++i) p.pad[2 - i] = padding[2 * i];
  const auto device = dst.device().index();
  const auto dtype = dst.scalar_type();
  check_storable(dtype, device);
  // the forward moves elements (any storable dtype, complex too); the backward adds
  Launch(device, forward ? bits_kernel(device, "pad", "pad_forward", dtype)
                         : dtype_kernel(device, "pad", "pad_backward", dtype))
      .tensor(dst)
      .input(src)
      .value(p)
      .run_items(dst.numel());
}

void pad_forward(bool reflect, const Tensor& out, const Tensor& self, IntArrayRef padding) {
  run_pad(true, reflect, self, out, padding, out, self);
}

void pad_backward(bool reflect, const Tensor& grad_input, const Tensor& grad_output, IntArrayRef padding) {
  const Tensor go = grad_output.scalar_type() == grad_input.scalar_type()
                        ? grad_output
                        : grad_output.to(grad_input.scalar_type());
  run_pad(false, reflect, grad_input, go, padding, grad_input, go);
}

// The pads' dtypes on the CPU and CUDA: every dtype but bool, complex included (the forward moves bits).
bool not_bool(at::ScalarType t) { return t != at::kBool && has_data_kernels(t); }

// ---- structured impls ----

template <bool Reflect, bool Restride>
void forward_impl(at::impl::MetaBase&, const Tensor& out, const Tensor& self, IntArrayRef padding) {
  // (The CPU's 2-d / 3-d pads give the output the input's memory format.)
  if (Restride) out.resize_(out.sizes(), self.suggest_memory_format());
  pad_forward(Reflect, out, self, padding);
}

template <bool Reflect, bool Restride>
void backward_impl(at::impl::MetaBase&, const Tensor& grad_input, const Tensor& grad_output, const Tensor& self,
                   IntArrayRef padding) {
  if (grad_output.numel() == 0) return;
  if (Restride) grad_input.resize_(self.sizes(), self.suggest_memory_format());
  pad_backward(Reflect, grad_input, grad_output, padding);
}

// ---- the CPU-only entry points ----

Tensor& reflection_pad2d_out(const Tensor& input, IntArrayRef padding, Tensor& output) {
  at::native::padding::check_valid_input<2>(input, padding);
  const int64_t ndim = input.dim();
  const int64_t dim_w = ndim == 4 ? 3 : 2, dim_h = dim_w - 1;
  const int64_t pad_l = padding[0], pad_r = padding[1], pad_t = padding[2], pad_b = padding[3];
  const int64_t nplane = input.size(dim_h - 1), input_h = input.size(dim_h), input_w = input.size(dim_w);
  const int64_t output_h = input_h + pad_t + pad_b, output_w = input_w + pad_l + pad_r;
  TORCH_CHECK(pad_l < input_w && pad_r < input_w,
              "Argument #4: Padding size should be less than the corresponding "
              "input dimension, but got: padding (", pad_l, ", ", pad_r, ") at dimension ", dim_w, " of input ",
              input.sizes());
  TORCH_CHECK(pad_t < input_h && pad_b < input_h,
              "Argument #6: Padding size should be less than the corresponding "
              "input dimension, but got: padding (", pad_t, ", ", pad_b, ") at dimension ", dim_h, " of input ",
              input.sizes());
  TORCH_CHECK(output_w >= 1 || output_h >= 1, "input (H: ", input_h, ", W: ", input_w,
              ") is too small. Calculated output H: ", output_h, " W: ", output_w);
  if (ndim == 3) {
    output.resize_({nplane, output_h, output_w});
  } else {
    output.resize_({input.size(0), nplane, output_h, output_w}, input.suggest_memory_format());
  }
  pad_forward(true, output, input, padding);
  return output;
}

Tensor reflection_pad2d(const Tensor& input, IntArrayRef padding) {
  Tensor output = at::empty({0}, input.options());
  return reflection_pad2d_out(input, padding, output);
}

// The CPU's gradOutput size checks of the non-structured backward ops.
void check_grad_output_sizes(const Tensor& grad_output, const Tensor& input, IntArrayRef padding, int dims,
                             const char* prefix) {
  const int64_t dim_w = input.dim() == dims + 2 ? dims + 1 : dims;
  const char* names[3] = {"width", "height", "depth"};
  for (int i = 0; i < dims; ++i) {
    const int64_t d = dim_w - i;
    const int64_t expected = input.size(d) + padding[2 * i] + padding[2 * i + 1];
    TORCH_CHECK(expected == grad_output.size(d), prefix, " ", names[i], " unexpected. Expected: ", expected,
                ", Got: ", grad_output.size(d));
  }
}

template <bool Reflect, int Dims>
Tensor& backward_out(const Tensor& grad_output, const Tensor& input, IntArrayRef padding, Tensor& grad_input) {
  if (!Reflect)
    TORCH_CHECK(static_cast<int>(padding.size()) == 2 * Dims, "padding size is expected to be ", 2 * Dims);
  if (Reflect) grad_input.resize_as_(input, input.suggest_memory_format());
  check_grad_output_sizes(grad_output, input, padding, Dims, "gradOutput");
  if (!Reflect) grad_input.resize_(input.sizes(), input.suggest_memory_format());
  pad_backward(Reflect, grad_input, grad_output, padding);
  return grad_input;
}

template <bool Reflect, int Dims>
Tensor backward_functional(const Tensor& grad_output, const Tensor& input, IntArrayRef padding) {
  Tensor grad_input = at::empty({0}, input.options());
  return backward_out<Reflect, Dims>(grad_output, input, padding, grad_input);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace at::meta;
  using IA = IntArrayRef;
  using CT = const Tensor&;
  register_structured<structured_reflection_pad1d, &forward_impl<true, false>, IA>(m, "reflection_pad1d", nullptr, "reflection_pad1d.out", not_bool);
  register_structured<structured_reflection_pad3d, &forward_impl<true, true>, IA>(m, "reflection_pad3d", nullptr, "reflection_pad3d.out", not_bool);
  register_structured<structured_replication_pad1d, &forward_impl<false, false>, IA>(m, "replication_pad1d", nullptr, "replication_pad1d.out", not_bool);
  register_structured<structured_replication_pad2d, &forward_impl<false, true>, IA>(m, "replication_pad2d", nullptr, "replication_pad2d.out", not_bool);
  register_structured<structured_replication_pad3d, &forward_impl<false, true>, IA>(m, "replication_pad3d", nullptr, "replication_pad3d.out", not_bool);
  register_structured<structured_reflection_pad1d_backward, &backward_impl<true, false>, CT, IA>(m, "reflection_pad1d_backward", nullptr, "reflection_pad1d_backward.grad_input", takes_floating);
  register_structured<structured_reflection_pad3d_backward, &backward_impl<true, true>, CT, IA>(m, "reflection_pad3d_backward", nullptr, "reflection_pad3d_backward.grad_input", takes_floating);
  register_structured<structured_replication_pad1d_backward, &backward_impl<false, false>, CT, IA>(m, "replication_pad1d_backward", nullptr, "replication_pad1d_backward.grad_input", takes_floating);

  register_op<&reflection_pad2d, not_bool>(m, "reflection_pad2d");
  register_op<&reflection_pad2d_out, not_bool>(m, "reflection_pad2d.out");
  register_op<&backward_functional<true, 2>, takes_floating>(m, "reflection_pad2d_backward");
  register_op<&backward_out<true, 2>, takes_floating>(m, "reflection_pad2d_backward.grad_input");
  register_op<&backward_functional<false, 2>, takes_floating>(m, "replication_pad2d_backward");
  register_op<&backward_out<false, 2>, takes_floating>(m, "replication_pad2d_backward.grad_input");
  register_op<&backward_functional<false, 3>, takes_floating>(m, "replication_pad3d_backward");
  register_op<&backward_out<false, 3>, takes_floating>(m, "replication_pad3d_backward.grad_input");
}

}  // namespace torch_ocl
