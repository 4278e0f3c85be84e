// The im2col / col2im kernels of kernels/conv.cl over 2-d images, for the
// im2col / col2im ops (nn.functional.unfold / fold, kernels/fold_ops.cpp).
// Convolutions use the same kernels inside kernels/conv_ops.cpp.
#pragma once

#include <ATen/core/Tensor.h>

namespace torch_ocl {

// A 2-d sliding window: kernel, dilation, padding, stride (H, W) and the
// number of window positions (H, W).
struct Window2d {
  int64_t kernel[2], dilation[2], padding[2], stride[2], blocks[2];
};

// col [n, C * kH * kW, blocks] (contiguous) = the windows of img [n, C, H, W]
// (any strides).
void im2col_2d(const at::Tensor& img, const at::Tensor& col, const Window2d& w);
// img [n, C, H, W] (written, any strides) = the sum of the window entries of
// col [n, C * kH * kW, blocks] (contiguous) at each position.
void col2im_2d(const at::Tensor& col, const at::Tensor& img, const Window2d& w);

}  // namespace torch_ocl
