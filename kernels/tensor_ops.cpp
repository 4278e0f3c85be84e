// Tensor creation, views, resize_/set_, fill_ and zero_ on ocl tensors.
// Views share storage exactly as on CUDA; they never run a kernel.
#include <ATen/EmptyTensor.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/Resize.h>
#include <ATen/native/ResizeCommon.h>
#include <ATen/native/TensorFactories.h>
#include <ATen/native/TensorShape.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_native.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/view_as_real_native.h>
#include <ATen/ops/is_set_to_native.h>
#include <ATen/ops/view_as_complex_native.h>
#include <ATen/ops/_nested_view_from_buffer_native.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "allocator/device_allocator.h"
#include "backend/copy.h"
#include "backend/kernel_launch.h"
#include "backend/runtime.h"
#include "backend/storage_resize.h"
#include "kernels/register_op.h"
#include "kernels/tensor_ops.h"

namespace torch_ocl {
namespace {

constexpr c10::DispatchKeySet kOclKeys{c10::DispatchKey::PrivateUse1};

// torch.use_deterministic_algorithms(True) with
// torch.utils.deterministic.fill_uninitialized_memory (the default): new
// memory is filled with NaN (floating, complex) or the dtype's largest value,
// as CUDA's empty / empty_strided / resize_ do.
bool fill_uninitialized() {
  auto& ctx = at::globalContext();
  return C10_UNLIKELY(ctx.deterministicAlgorithms() && ctx.deterministicFillUninitializedMemory());
}

at::Tensor filled_if_deterministic(at::Tensor t) {
  if (fill_uninitialized()) at::native::fill_empty_deterministic_(t);
  return t;
}

// Checks the factory arguments; returns the device, with its index resolved.
c10::Device check_factory_args(std::optional<c10::Device> device, c10::ScalarType dtype,
                               std::optional<c10::Layout> layout, std::optional<bool> pin_memory) {
  TORCH_CHECK(!layout || *layout == c10::kStrided, "torch_ocl: only strided tensors are supported, got ", *layout);
  TORCH_CHECK(!pin_memory.value_or(false), "Only dense CPU tensors can be pinned");
  c10::DeviceIndex index = device && device->has_index() ? device->index() : current_device_index();
  check_device_index(index);
  check_storable(dtype, index);
  return c10::Device(c10::DeviceType::PrivateUse1, index);
}

at::Tensor empty_memory_format(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype,
                               std::optional<c10::Layout> layout, std::optional<c10::Device> device,
                               std::optional<bool> pin_memory,
                               std::optional<c10::MemoryFormat> memory_format) {
  const auto st = c10::dtype_or_default(dtype);
  c10::DeviceGuard guard(check_factory_args(device, st, layout, pin_memory));
  return filled_if_deterministic(at::detail::empty_generic(size, device_allocator(), kOclKeys, st, memory_format));
}

at::Tensor empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride,
                         std::optional<c10::ScalarType> dtype, std::optional<c10::Layout> layout,
                         std::optional<c10::Device> device, std::optional<bool> pin_memory) {
  const auto st = c10::dtype_or_default(dtype);
  c10::DeviceGuard guard(check_factory_args(device, st, layout, pin_memory));
  return filled_if_deterministic(at::detail::empty_strided_generic(size, stride, device_allocator(), kOclKeys, st));
}

// A ZeroTensor (autograd's known-zero gradients, e.g. sgn's backward of a
// real input): no storage; ATen's ZeroTensor kernels and fallback handle it,
// materialising zeros where an op needs values. As CUDA's factory.
at::Tensor efficient_zero_tensor(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype,
                                 std::optional<c10::Layout> layout, std::optional<c10::Device> device,
                                 std::optional<bool> pin_memory) {
  const auto st = c10::dtype_or_default(dtype);
  const c10::Device resolved = check_factory_args(device, st, layout, pin_memory);
  at::native::ZeroTensorAllocator allocator(resolved);
  return at::detail::empty_generic(size, &allocator, kOclKeys | c10::DispatchKeySet(c10::DispatchKey::ZeroTensor),
                                   st, std::nullopt);
}

// Sets sizes/strides, growing the storage when it is too small (as resize_
// does on CPU and CUDA).
void resize_impl(at::TensorImpl* self, c10::IntArrayRef size, at::OptionalIntArrayRef stride) {
  if (self->sizes() == size && (!stride || self->strides() == *stride)) return;
  const auto itemsize = self->dtype().itemsize();
  const auto offset = self->storage_offset();
  size_t bytes = 0;
  if (stride) {
    self->set_sizes_and_strides(size, *stride);
    bytes = at::detail::computeStorageNbytes(size, *stride, itemsize, offset);
  } else {
    self->set_sizes_contiguous(size);
    bytes = at::detail::computeStorageNbytesContiguous(size, itemsize, offset);
  }
  if (self->numel() == 0) return;
  const c10::Storage& storage = self->unsafe_storage();
  if (bytes > storage.nbytes()) resize_storage_bytes(storage.unsafeGetStorageImpl(), bytes);
}

// resize_impl, then (deterministic mode) the bytes the storage grew by
// filled as empty() fills new memory; as CUDA's resize_.
void resize_and_fill(const at::Tensor& self, c10::IntArrayRef size, at::OptionalIntArrayRef stride) {
  const auto old_nbytes = static_cast<int64_t>(self.unsafeGetTensorImpl()->unsafe_storage().nbytes());
  resize_impl(self.unsafeGetTensorImpl(), size, stride);
  if (fill_uninitialized() && self.has_storage()) at::native::fill_resize_deterministic_(self, old_nbytes);
}

const at::Tensor& resize_(const at::Tensor& self, c10::IntArrayRef size,
                          std::optional<c10::MemoryFormat> memory_format) {
  for (auto s : size) TORCH_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", size);
  c10::DeviceGuard guard(self.device());
  resize_and_fill(self, size, std::nullopt);
  if (memory_format) {
    TORCH_CHECK(*memory_format != c10::MemoryFormat::Preserve, "Unsupported memory format ", *memory_format);
    self.unsafeGetTensorImpl()->empty_tensor_restride(*memory_format);
  }
  return self;
}

at::Tensor& set_storage_offset(at::Tensor& self, c10::Storage source, int64_t offset,
                               c10::IntArrayRef size, c10::IntArrayRef stride) {
  at::native::checkSetStorage(self, std::move(source), offset, size, stride);
  self.unsafeGetTensorImpl()->set_storage_offset(offset);
  c10::DeviceGuard guard(self.device());
  resize_impl(self.unsafeGetTensorImpl(), size,
              stride.data() ? at::OptionalIntArrayRef(stride) : std::nullopt);
  return self;
}

at::Tensor& set_storage(at::Tensor& self, c10::Storage source) {
  const int64_t n = static_cast<int64_t>(source.nbytes() / self.dtype().itemsize());
  return set_storage_offset(self, std::move(source), 0, {n}, {});
}

at::Tensor& set_tensor(at::Tensor& self, const at::Tensor& src) {
  if (self.unsafeGetTensorImpl() != src.unsafeGetTensorImpl())
    set_storage_offset(self, src.storage(), src.storage_offset(), src.sizes(), src.strides());
  return self;
}

at::Tensor& set_empty(at::Tensor& self) {
  c10::Storage storage(c10::Storage::use_byte_size_t(), 0, device_allocator(), true);
  return set_storage_offset(self, std::move(storage), 0, {0}, {});
}

at::Tensor& fill_scalar(at::Tensor& self, const c10::Scalar& value) {
  if (self.numel() == 0) return self;
  const auto device = self.device().index();
  check_storable(self.scalar_type(), device);
  if (c10::elementSize(self.scalar_type()) == 16) {  // complex128: fill the (re, im) halves
    const auto value_c = value.toComplexDouble();
    at::Tensor pairs = at::view_as_real(self.is_conj() ? self.conj() : self);
    at::Tensor re = pairs.select(-1, 0), im = pairs.select(-1, 1);
    fill_scalar(re, value_c.real());
    fill_scalar(im, self.is_conj() ? -value_c.imag() : value_c.imag());
    return self;
  }
  c10::DeviceGuard guard(self.device());
  // The value's bits in the element type, written as an unsigned integer.
  at::Tensor bits = at::scalar_tensor(value, at::TensorOptions().dtype(self.scalar_type()));
  uint64_t raw = 0;
  std::memcpy(&raw, bits.const_data_ptr(), bits.element_size());
  const c10::ScalarType bt = bits_dtype(self.scalar_type());
  auto iter = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)  // fill_ of an expanded tensor is fine
                  .add_output(self)
                  .resize_outputs(false)
                  .check_all_same_dtype(false)
                  .build();
  Launch(device, dtype_kernel(device, "fill", "fill", bt))
      .value(make_indexer(iter))
      .value<int64_t>(iter.numel())
      .tensor(iter.tensor_base(0))
      .raw(bits.element_size(), &raw)
      .run(iter.numel());
  return self;
}

at::Tensor& fill_tensor(at::Tensor& self, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ",
              value.dim(), " dimensions.");
  if (value.device().is_cpu()) return fill_scalar(self, value.item());
  copy_from(value, self, false);
  return self;
}

at::Tensor& zero_(at::Tensor& self) { return fill_scalar(self, 0); }

}  // namespace

at::Tensor empty_ocl(c10::IntArrayRef size, c10::IntArrayRef stride, const c10::TensorOptions& options) {
  const auto dtype = c10::optTypeMetaToScalarType(options.dtype_opt());
  if (stride.empty())
    return empty_memory_format(size, dtype, options.layout_opt(), options.device_opt(), options.pinned_memory_opt(),
                               options.memory_format_opt());
  return empty_strided(size, stride, dtype, options.layout_opt(), options.device_opt(), options.pinned_memory_opt());
}

at::Tensor empty_contiguous_like(const at::TensorBase& like) {
  std::optional<c10::DeviceGuard> guard;
  if (like.device().index() != current_device_index()) guard.emplace(like.device());
  return at::detail::empty_generic(like.sizes(), device_allocator(), kOclKeys, like.scalar_type(),
                                   c10::MemoryFormat::Contiguous);
}

at::Tensor empty_like_contiguous_input(const at::TensorBase& like) {
  // A contiguous tensor's strides can differ from the default ones only at
  // size-1 dims (an "ambiguous" channels_last tensor such as (10, 3, 1, 1)):
  // TensorIterator gives results the input's strides there, and so does this.
  int64_t expected = 1;
  for (int64_t d = like.dim() - 1; d >= 0; --d) {
    if (like.size(d) != 1 && like.stride(d) != expected) break;
    if (like.size(d) == 1 && like.stride(d) != expected) {
      std::optional<c10::DeviceGuard> guard;
      if (like.device().index() != current_device_index()) guard.emplace(like.device());
      return at::detail::empty_strided_generic(like.sizes(), like.strides(), device_allocator(), kOclKeys,
                                               like.scalar_type());
    }
    expected *= like.size(d);
  }
  return empty_contiguous_like(like);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  // creation
  m.impl("empty.memory_format", TORCH_FN(empty_memory_format));
  m.impl("empty_strided", TORCH_FN(empty_strided));
  m.impl("_efficientzerotensor", TORCH_FN(efficient_zero_tensor));
  // views: the generic strided implementations, valid for any device
  m.impl("as_strided", TORCH_FN(at::native::as_strided_tensorimpl));
  m.impl("view", TORCH_FN(at::native::view));
  m.impl("_reshape_alias", TORCH_FN(at::native::_reshape_alias));
  m.impl("unfold", TORCH_FN(at::native::unfold));
  m.impl("view_as_real", TORCH_FN(at::native::view_as_real));
  m.impl("view_as_complex", TORCH_FN(at::native::view_as_complex));
  m.impl("_nested_view_from_buffer", TORCH_FN(at::native::_nested_view_from_buffer));
  // storage
  m.impl("is_set_to", TORCH_FN(at::native::is_set_to));  // metadata: never via CPU copies
  m.impl("resize_", TORCH_FN(resize_));
  m.impl("set_.source_Storage", TORCH_FN(set_storage));
  m.impl("set_.source_Storage_storage_offset", TORCH_FN(set_storage_offset));
  m.impl("set_.source_Tensor", TORCH_FN(set_tensor));
  m.impl("set_", TORCH_FN(set_empty));
  // fills
  register_op<&fill_scalar, takes_any>(m, "fill_.Scalar");
  register_op<&fill_tensor, takes_any>(m, "fill_.Tensor");
  register_op<&zero_, takes_any>(m, "zero_");
}

}  // namespace torch_ocl
