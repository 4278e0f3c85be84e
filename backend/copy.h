// The copy mechanism: between host and device and between device tensors, any
// strides, offsets and broadcasting, casts among the supported dtypes. The aten
// registrations that use it (_copy_from, ...) live in kernels/copy_ops.cpp.
#pragma once

#include <ATen/core/Tensor.h>

namespace torch_ocl {

// dst.copy_(src) where at least one of them is on ocl (aten::_copy_from).
at::Tensor copy_from(const at::Tensor& src, const at::Tensor& dst, bool non_blocking);
// Device-to-device on one device: a strided cast kernel or clEnqueueCopyBuffer.
void copy_device_to_device(const at::Tensor& dst, const at::Tensor& src);
// Device to host: reads src's stored bytes (its conj/neg bits are ignored).
void copy_device_to_host(const at::Tensor& dst, const at::Tensor& src, bool non_blocking);

}  // namespace torch_ocl
