// im2col / col2im on PrivateUse1 (nn.functional.unfold / fold; each is the
// other's backward). The kernels are convolution's (kernels/conv.cl, through
// kernels/conv_columns.h). Argument checks: ATen's im2col_shape_check /
// col2im_shape_check plus the CPU's (Im2Col.cpp, Col2Im.cpp) size checks.
// Dtypes: floating types and bool natively (as the CPU); the CPU's other
// dtypes (complex) or rejections go through the counted fallback.
#include <ATen/native/im2col_shape_check.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "kernels/register_op.h"
#include "backend/fallback.h"
#include "backend/kernel_launch.h"
#include "kernels/conv_columns.h"

namespace torch_ocl {
namespace {

using at::IntArrayRef;
using at::Tensor;

// The dtypes the kernels take (the others run on the CPU).
bool native_dtype(at::ScalarType d) { return (c10::isFloatingType(d) || d == at::kBool) && has_kernels(d); }

void check_sizes(IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  TORCH_CHECK(kernel_size.size() == 2, "It is expected kernel_size equals to 2, but got size ", kernel_size.size());
  TORCH_CHECK(dilation.size() == 2, "It is expected dilation equals to 2, but got size ", dilation.size());
  TORCH_CHECK(padding.size() == 2, "It is expected padding equals to 2, but got size ", padding.size());
  TORCH_CHECK(stride.size() == 2, "It is expected stride equals to 2, but got size ", stride.size());
}

Window2d make_window(IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride,
                     int64_t height, int64_t width) {
  Window2d w{};
  const int64_t size[2] = {height, width};
  for (int i = 0; i < 2; ++i) {
    w.kernel[i] = kernel_size[i];
    w.dilation[i] = dilation[i];
    w.padding[i] = padding[i];
    w.stride[i] = stride[i];
    w.blocks[i] = at::native::sliding_window_count(size[i], padding[i], dilation[i], kernel_size[i], stride[i]);
  }
  return w;
}

Tensor& im2col_out(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                   IntArrayRef stride, Tensor& output) {
  check_sizes(kernel_size, dilation, padding, stride);
  at::native::im2col_shape_check(input, Tensor(), kernel_size[0], kernel_size[1], dilation[0], dilation[1],
                                 padding[0], padding[1], stride[0], stride[1]);
  const bool batched = input.dim() == 4;
  const Tensor img = batched ? input : input.unsqueeze(0);
  const Window2d w = make_window(kernel_size, dilation, padding, stride, img.size(2), img.size(3));
  const int64_t planes = img.size(1) * kernel_size[0] * kernel_size[1], length = w.blocks[0] * w.blocks[1];
  output.resize_({img.size(0), planes, length});
  const Tensor col = output.is_contiguous() ? output : at::empty(output.sizes(), output.options());
  im2col_2d(img, col, w);
  if (!col.is_same(output)) output.copy_(col);
  if (!batched) output.resize_({planes, length});
  return output;
}

Tensor im2col(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride) {
  Tensor output = at::empty({0}, input.options());
  return im2col_out(input, kernel_size, dilation, padding, stride, output);
}

Tensor& col2im_out(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                   IntArrayRef padding, IntArrayRef stride, Tensor& output) {
  TORCH_CHECK(output_size.size() == 2, "It is expected output_size equals to 2, but got size ", output_size.size());
  check_sizes(kernel_size, dilation, padding, stride);
  at::native::col2im_shape_check(input, Tensor(), output_size[0], output_size[1], kernel_size[0], kernel_size[1],
                                 dilation[0], dilation[1], padding[0], padding[1], stride[0], stride[1]);
  const bool batched = input.dim() == 3;
  const Tensor col = (batched ? input : input.unsqueeze(0)).contiguous();
  const int64_t planes = col.size(1) / (kernel_size[0] * kernel_size[1]);
  output.resize_({col.size(0), planes, output_size[0], output_size[1]});
  col2im_2d(col, output, make_window(kernel_size, dilation, padding, stride, output_size[0], output_size[1]));
  if (!batched) output.resize_({planes, output_size[0], output_size[1]});
  return output;
}

Tensor col2im(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  Tensor output = at::empty({0}, input.options());
  return col2im_out(input, output_size, kernel_size, dilation, padding, stride, output);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_op<&im2col, native_dtype>(m, "im2col");
  register_op<&im2col_out, native_dtype>(m, "im2col.out");
  register_op<&col2im, native_dtype>(m, "col2im");
  register_op<&col2im_out, native_dtype>(m, "col2im.out");
}

}  // namespace torch_ocl
