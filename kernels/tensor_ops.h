// What kernels/tensor_ops.cpp offers the other op files.
#pragma once

#include <ATen/core/Tensor.h>

namespace torch_ocl {

// An ocl tensor as at::empty (`stride` empty: options' memory format) or
// at::empty_strided makes it, without a trip through the dispatcher: the
// outputs of structured ops (kernels/structured.h), as CUDA's structured
// kernels call at::detail::empty_cuda. Same checks, guard and allocator.
at::Tensor empty_ocl(c10::IntArrayRef size, c10::IntArrayRef stride, const c10::TensorOptions& options);
// A new contiguous tensor of `like`'s sizes, dtype and device (an existing
// ocl tensor's: nothing to check; a guard only when `like` is not on the
// current device): the outputs of the direct pointwise path.
at::Tensor empty_contiguous_like(const at::TensorBase& like);
// For a contiguous `like`: a tensor of its sizes and strides (which may differ
// from empty_contiguous_like's at size-1 dims), as TensorIterator's outputs.
at::Tensor empty_like_contiguous_input(const at::TensorBase& like);

}  // namespace torch_ocl
