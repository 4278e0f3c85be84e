// Shape ops on ocl: cat (and so stack/hstack/vstack/chunk composites), flip,
// roll, tril/triu, tril_indices/triu_indices. ATen's metas do every check, promotion and output
// allocation; the data moves with the native copy (backend/copy.h) or with
// the kernels in kernels/shape.cl.
#include <ATen/Dispatch.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/TensorFactories.h>
#include <ATen/native/IndexKernel.h>
#include <ATen/native/TensorShape.h>
#include <ATen/ops/cat_meta.h>
#include <ATen/ops/flip_native.h>
#include <ATen/ops/roll_native.h>
#include <ATen/ops/tril_meta.h>
#include <ATen/ops/triu_meta.h>
#include <torch/library.h>

#include "kernels/register_op.h"
#include "kernels/dim_slices.h"
#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

// cat: every input copied into its slice of the output (one native copy
// each, casting to the promoted dtype).
void cat_into(const at::ITensorListRef& tensors, int64_t dim, const at::Tensor& result) {
  if (result.numel() == 0) return;
  int64_t offset = 0;
  for (const at::Tensor& t : tensors) {
    TORCH_CHECK(t.device() == result.device(),
                "Expected all tensors to be on the same device, but found at least two devices, ",
                result.device(), " and ", t.device(), "!");
    if (at::native::cat_should_skip_tensor(t)) continue;
    const int64_t size = t.size(dim);
    if (size > 0) result.narrow(dim, offset, size).copy_(t);
    offset += size;
  }
}

using CatMeta = OclStructured<at::meta::structured_cat>;

at::Tensor cat(const at::ITensorListRef& tensors, int64_t dim) {
  CatMeta op(Variant::Functional);
  const auto pre = op.meta(tensors, dim);
  cat_into(tensors, pre.dim, op.outputs[0]);
  return std::move(op.outputs[0]);
}

at::Tensor& cat_out(const at::ITensorListRef& tensors, int64_t dim, at::Tensor& out) {
  CatMeta op(Variant::Out, out);
  const auto pre = op.meta(tensors, dim);
  cat_into(tensors, pre.dim, out);
  return out;
}

// flip_stub: at::native::flip hands over an iterator whose output has
// negative strides and a data pointer at the flipped end: a plain bit copy
// (operand 2, the restrided input, only kept dims from coalescing).
void flip_kernel(at::TensorIterator& iter, bool quantized) {
  TORCH_CHECK(!quantized, "torch_ocl: flip of a quantized tensor");
  const int64_t n = iter.numel();
  if (n == 0) return;
  const auto device = iter.device().index();
  const c10::ScalarType dtype = iter.dtype(0);
  Launch(device, source_kernel(device, "copy", "copy_cast", kernel_variant({0xff, static_cast<int>(dtype)}),  // 0xff: the bits program
                               [&] { return bits_preamble(dtype) + bits_preamble(dtype, "SRC_"); }))
      .value(make_indexer(iter))
      .value<int64_t>(n)
      .device_pointer(iter.data_ptr(0))
      .device_pointer(iter.data_ptr(1))
      .run(n);
}

// tril / triu: the last two dims are (row, col), the others are batches.
template <bool Upper>
void triangle_impl(at::impl::MetaBase&, const at::Tensor& out, const at::Tensor& self, int64_t k) {
  if (self.numel() == 0) return;
  const int64_t nd = self.dim(), rows = self.size(-2), cols = self.size(-1);
  const Slices s = slices_along({out, self}, {nd - 2, nd - 1});
  const auto dtype = self.scalar_type();
  Launch(out.device().index(), bits_kernel(out.device().index(), "shape", "triangle", dtype))
      .value(s.ix)
      .value<int64_t>(s.count)
      .value<int64_t>(rows)
      .value<int64_t>(cols)
      .value<int64_t>(k)
      .value<cl_int>(Upper ? 1 : 0)
      .value<int64_t>(out.stride(-2))
      .value<int64_t>(out.stride(-1))
      .value<int64_t>(self.stride(-2))
      .value<int64_t>(self.stride(-1))
      .device_pointer(s.base[0])
      .device_pointer(s.base[1])
      .run(self.numel());
}

// tril_indices / triu_indices: the CPU's checks and sizes, then one kernel.
template <bool Upper>
at::Tensor tri_indices(int64_t row, int64_t col, int64_t offset, std::optional<c10::ScalarType> dtype,
                       std::optional<c10::Layout> layout, std::optional<c10::Device> device,
                       std::optional<bool> pin_memory) {
  at::native::check_args(row, col, layout);
  const auto st = dtype.value_or(c10::kLong);
  AT_DISPATCH_INDEX_TYPES(st, Upper ? "triu_indices" : "tril_indices", [] {});
  const int64_t total = Upper ? std::max<int64_t>(0, row * col - at::native::get_tril_size(row, col, offset - 1))
                              : at::native::get_tril_size(row, col, offset);
  at::Tensor result = at::empty({2, total}, at::TensorOptions().dtype(st).layout(layout).device(device)
                                                .pinned_memory(pin_memory));
  if (total == 0) return result;
  Launch(result.device().index(), source_kernel(result.device().index(), "shape", "tri_indices",
                                                kernel_variant({static_cast<int>(st)}), [&] { return dtype_preamble(st); }))
      .value<int64_t>(row)
      .value<int64_t>(col)
      .value<int64_t>(offset)
      .value<cl_int>(Upper ? 1 : 0)
      .value<int64_t>(total)
      .tensor(result)
      .run(row);
  return result;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  ::torch_ocl::register_op<&tri_indices<false>>(m, "tril_indices");
  ::torch_ocl::register_op<&tri_indices<true>>(m, "triu_indices");
  ::torch_ocl::register_op<&cat, takes_complex>(m, "cat");
  ::torch_ocl::register_op<&cat_out, takes_complex>(m, "cat.out");
  register_structured<at::meta::structured_tril, &triangle_impl<false>, int64_t>(m, "tril", "tril_", "tril.out",
                                                                                 takes_complex);
  register_structured<at::meta::structured_triu, &triangle_impl<true>, int64_t>(m, "triu", "triu_", "triu.out",
                                                                                takes_complex);
}

}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(flip_stub, &::torch_ocl::flip_kernel)
}  // namespace at::native

// Data movement: complex too (kernels over raw element bits).
OCL_NATIVE_FN_C("flip", &at::native::flip)
// ATen's CPU roll: narrow + cat per rolled dim (all native here).
OCL_NATIVE_FN_C("roll", &at::native::roll)
