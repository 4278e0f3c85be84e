// Sorting and selection along one dim on PrivateUse1 (kernels in
// kernels/sort.cl, shared machinery in kernels/sort_launch.h):
//   sort.stable / sort.values_stable: ATen's structured sort_stable_out, whose
//     impl calls sort_stub (registered here); sort, argsort, msort and
//     quantile / nanquantile are composites over it.
//   topk / topk.values: ATen's meta; the impl here (ATen's calls topk_stub
//     for kCPU only).
//   kthvalue.values, median(), median.dim_values, nanmedian(),
//   nanmedian.dim_values, mode, mode.values: the CPU impls' checks, then a
//   sort of each slice and one pick per slice on the device.
// Their backward formulas (value_selecting_reduction_backward, ...) run on
// native scatter / index ops.
#include <ATen/Dispatch.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/TensorUtils.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/native/Sorting.h>
#include <ATen/native/SortingUtils.h>
#include <ATen/ops/full.h>
#include <ATen/ops/sort_native.h>
#include <ATen/ops/topk_meta.h>
#include <torch/library.h>

#include "kernels/op_table.h"
#include "kernels/sort_launch.h"

namespace torch_ocl {
namespace {

using at::Tensor;

// The input to read: a copy when the values output shares memory with it
// (torch.sort(x, out=(x, i)) sorts in place); write_sorted gathers values
// from the input by the sorted indices, which must not see its own writes.
Tensor unaliased_input(const Tensor& self, const Tensor& values) {
  return at::get_overlap_status(self, values) == at::MemOverlapStatus::No ? self : self.clone();
}

void sort_kernel(const at::TensorBase& self_, const at::TensorBase& values_, const at::TensorBase& indices_,
                 int64_t dim, bool descending, bool /*stable: always stable*/) {
  const Tensor values(values_), indices(indices_);
  const Tensor self = unaliased_input(Tensor(self_), values);
  if (self.numel() == 0) return;
  SortScratch s = sort_slices(values, indices, self, dim, descending, self.size(dim));
  write_sorted(values, indices, self, dim, s, self.size(dim));
}

void sort_impl(at::native::structured_sort_stable_out& op, const Tensor& values, const Tensor& indices,
               const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  op.impl(self, stable, dim, descending, values, indices);
}

void topk_impl(at::impl::MetaBase&, const Tensor& values, const Tensor& indices, const Tensor& self_, int64_t k,
               int64_t dim_, bool largest, bool /*sorted: always sorted*/) {
  const Tensor self = unaliased_input(self_, values);
  TORCH_CHECK(self.scalar_type() != at::kBool, "topk does not support bool dtypes on CPU");
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(), "topk_cpu", [] {});
  const int64_t dim = at::maybe_wrap_dim(dim_, self.dim(), /*wrap_scalar=*/true);
  if (self.dim() == 0 && self.numel() == 1) {
    values.copy_(self);
    indices.zero_();
    return;
  }
  if (k == 0 || self.numel() == 0) return;
  SortScratch s = sort_slices(values, indices, self, dim, largest, k);
  write_sorted(values, indices, self, dim, s, k);
}

// values / indices of a reduction along dim with the dim kept (size 1).
struct Kept {
  Tensor values, indices;
};
Kept kept(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t dim, bool keepdim) {
  if (keepdim || self.dim() == 0 || values.dim() == self.dim()) return {values, indices};
  return {values.unsqueeze(dim), indices.unsqueeze(dim)};
}

std::tuple<Tensor&, Tensor&> kthvalue_out(const Tensor& self, int64_t k, int64_t dim_, bool keepdim, Tensor& values,
                                          Tensor& indices) {
  const int64_t dim = at::maybe_wrap_dim(dim_, self.dim(), /*wrap_scalar=*/true);
  const int64_t slicesize = self.dim() == 0 ? 1 : self.size(dim);
  at::native::zero_numel_check_dims(self, dim, "kthvalue()");
  TORCH_CHECK(k >= 1 && k <= slicesize, "kthvalue(): selected number k out of range for dimension ", dim);
  at::assert_no_overlap(self, values);
  at::native::_reduction_with_indices_allocate_or_resize_output(values, indices, self, dim_, keepdim);
  if (self.dim() == 0 && self.numel() == 1) {
    values.copy_(self);
    indices.zero_();
    return std::forward_as_tuple(values, indices);
  }
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(), "kthvalue_cpu", [] {});
  if (self.numel() > 0) {
    SortScratch s = sort_slices(values, indices, self, dim, /*descending=*/false, k);
    pick_sorted(values, indices, self, dim, s, Pick::Position, k - 1);
  }
  if (!keepdim) {
    values.squeeze_(dim);
    indices.squeeze_(dim);
  }
  return std::forward_as_tuple(values, indices);
}

std::tuple<Tensor&, Tensor&> median_dim_impl(const Tensor& self, int64_t dim_, bool keepdim, Tensor& values,
                                             Tensor& indices, bool ignore_nan) {
  const int64_t dim = at::maybe_wrap_dim(dim_, self.dim());
  const int64_t size = self.dim() > 0 ? self.size(dim) : 1;
  at::native::zero_numel_check_dims(self, dim, "median()");
  at::checkDeviceType("median", {values, indices}, self.device().type());
  at::checkScalarType("median", {indices, "indices", 1}, at::kLong);
  at::checkSameType("median", {values, "values", 0}, {self, "self", 2});
  std::vector<int64_t> out_shape = self.sizes().vec();
  if (self.dim() > 0) {
    if (keepdim) out_shape[dim] = 1;
    else out_shape.erase(out_shape.begin() + dim);
  }
  at::native::resize_output(values, out_shape);
  at::native::resize_output(indices, out_shape);
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(), "median_out", [] {});
  if (self.numel() == 0) return std::forward_as_tuple(values, indices);
  const Tensor in = self.dim() > 0 ? self : self.unsqueeze(0);
  const Kept o = kept(values, indices, in, dim, keepdim || self.dim() == 0);
  const Tensor ov = self.dim() == 0 ? values.unsqueeze(0) : o.values;
  const Tensor oi = self.dim() == 0 ? indices.unsqueeze(0) : o.indices;
  SortScratch s = sort_slices(ov, oi, in, dim, /*descending=*/false, size);
  pick_sorted(ov, oi, in, dim, s, ignore_nan ? Pick::NanMedian : Pick::Median, 0);
  return std::forward_as_tuple(values, indices);
}

std::tuple<Tensor&, Tensor&> median_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                        Tensor& indices) {
  return median_dim_impl(self, dim, keepdim, values, indices, false);
}
std::tuple<Tensor&, Tensor&> nanmedian_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                           Tensor& indices) {
  return median_dim_impl(self, dim, keepdim, values, indices, true);
}

Tensor median_all_impl(const Tensor& self, bool ignore_nan) {
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(), "median_cpu", [] {});
  if (self.numel() == 0)  // NaN in the dtype, as the CPU (a constant made on the host)
    return at::full({}, std::numeric_limits<double>::quiet_NaN(), at::kDouble).to(self.scalar_type()).to(self.device());
  const Tensor flat = self.reshape({-1});
  Tensor values = at::empty({1}, self.options());
  Tensor indices = at::empty({1}, self.options().dtype(at::kLong));
  SortScratch s = sort_slices(values, indices, flat, 0, /*descending=*/false, flat.numel());
  pick_sorted(values, indices, flat, 0, s, ignore_nan ? Pick::NanMedian : Pick::Median, 0);
  return values.squeeze(0);
}
Tensor median_all(const Tensor& self) { return median_all_impl(self, false); }
Tensor nanmedian_all(const Tensor& self) { return median_all_impl(self, true); }

std::tuple<Tensor&, Tensor&> mode_out(const Tensor& self, int64_t dim_, bool keepdim, Tensor& values,
                                      Tensor& indices) {
  TORCH_CHECK(self.layout() == at::Layout::Strided, "mode only supports strided layout, got: ", self.layout());
  TORCH_CHECK(self.device() == values.device(), "expected device '", self.device(), "' but got '",
              values.device(), "' for values output");
  TORCH_CHECK(self.device() == indices.device(), "expected device '", self.device(), "' but got '",
              indices.device(), "' for indices output");
  TORCH_CHECK(self.scalar_type() == values.scalar_type(), "expected scalar type '", self.scalar_type(),
              "' but got '", values.scalar_type(), "' for values output");
  TORCH_CHECK(indices.scalar_type() == at::ScalarType::Long, "expected scalar type '", at::ScalarType::Long,
              "' but got '", indices.scalar_type(), "' for indices output");
  const int64_t dim = at::maybe_wrap_dim(dim_, self.dim());
  if (self.numel() == 0) {
    at::native::zero_numel_tensor_resize(values, indices, self, dim, keepdim, "mode()");
    return std::forward_as_tuple(values, indices);
  }
  if (at::native::_dimreduce_return_trivial_no_ident(values, self, dim, keepdim, "mode")) {
    indices.resize_({}).fill_(0);
    return std::forward_as_tuple(values, indices);
  }
  AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, self.scalar_type(), "mode_cpu", [] {});
  at::native::_reduction_with_indices_allocate_or_resize_output(values, indices, self, dim, keepdim);
  SortScratch s = sort_slices(values, indices, self, dim, /*descending=*/false, self.size(dim));
  pick_sorted(values, indices, self, dim, s, Pick::Mode, 0);
  if (!keepdim) {
    values.squeeze_(dim);
    indices.squeeze_(dim);
  }
  return std::forward_as_tuple(values, indices);
}

std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  Tensor values = at::empty({0}, self.options());
  Tensor indices = at::empty({0}, self.options().dtype(at::kLong));
  mode_out(self, dim, keepdim, values, indices);
  return {values, indices};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_structured2<at::native::structured_sort_stable_out, &sort_impl, std::optional<bool>, int64_t, bool>(
      m, "sort.stable", "sort.values_stable");
  register_structured2<at::meta::structured_topk, &topk_impl, int64_t, int64_t, bool, bool>(m, "topk", "topk.values");
}

}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(sort_stub, &::torch_ocl::sort_kernel)
}  // namespace at::native

OCL_NATIVE_FN("kthvalue.values", &torch_ocl::kthvalue_out)
OCL_NATIVE_FN("median", &torch_ocl::median_all)
OCL_NATIVE_FN("median.dim_values", &torch_ocl::median_out)
OCL_NATIVE_FN("nanmedian", &torch_ocl::nanmedian_all)
OCL_NATIVE_FN("nanmedian.dim_values", &torch_ocl::nanmedian_out)
OCL_NATIVE_FN("mode", &torch_ocl::mode)
OCL_NATIVE_FN("mode.values", &torch_ocl::mode_out)
