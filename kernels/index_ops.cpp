// index_select, index.Tensor (advanced indexing), _index_put_impl_
// (index_put_), index_add, index_copy, index_fill_, index_reduce, take, put_
// on PrivateUse1. Where ATen's impl is generic (index.Tensor, _index_put_impl_,
// index_copy, index_fill_, take, put_) it is registered as it is and our
// kernel sits behind its stub; index_select, index_add and index_reduce have
// CPU/CUDA-only impls in ATen, so they are written here on ATen's meta
// functions and checks. Kernel: kernels/index.cl via kernels/index_launch.h.
// Bad indices are reported by the device-side flag at the next sync
// (backend/device_checks.h), with the CPU's exception type and message.
#include <ATen/ExpandUtils.h>
#include <ATen/TensorUtils.h>
#include <ATen/native/IndexKernel.h>
#include <ATen/native/TensorAdvancedIndexing.h>
#include <ATen/native/IndexingUtils.h>
#include <ATen/native/TensorAdvancedIndexingUtils.h>

#include <algorithm>
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/ReductionType.h>
#include <ATen/native/Resize.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/_index_put_impl_native.h>
#include <ATen/ops/index_add_meta.h>
#include <ATen/ops/index_copy_native.h>
#include <ATen/ops/index_fill_native.h>
#include <ATen/ops/index_native.h>
#include <ATen/ops/index_reduce_meta.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/put_native.h>
#include <ATen/ops/take_native.h>
#include <ATen/ops/zeros_like.h>

#include <limits>

#include "backend/device_checks.h"
#include "kernels/index_launch.h"
#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

using at::Tensor;
constexpr auto kIndexError = DeviceCheckKind::kIndexError;
constexpr const char* kOutOfBounds = "index {index} is out of bounds for dimension {dim} with size {size}";
constexpr const char* kOutOfRangeInSelf = "index out of range in self";
constexpr const char* kLinearOutOfRange = "out of range: tried to access index {index} on a tensor of {size} elements.";

const int kIndexSelectCheck = register_device_check("index_select", kIndexError, kOutOfRangeInSelf);
const int kIndexCheck = register_device_check("index", kIndexError, kOutOfBounds);
const int kIndexPutCheck = register_device_check("index_put_", kIndexError, kOutOfBounds);
const int kIndexFillCheck = register_device_check("index_fill_", kIndexError, kOutOfBounds);
const int kIndexCopyCheck = register_device_check(
    "index_copy_", kIndexError, "index_copy_(): index {index} is out of bounds for dimension {dim} with size {size}");
const int kIndexAddCheck = register_device_check("index_add", DeviceCheckKind::kRuntimeError, kOutOfBounds);
const int kIndexReduceCheck = register_device_check("index_reduce", kIndexError, kOutOfRangeInSelf);
const int kTakeCheck = register_device_check("take", kIndexError, kLinearOutOfRange);
const int kPutCheck = register_device_check("put_", kIndexError, kLinearOutOfRange);

Tensor nonempty(const Tensor& t) { return t.dim() == 0 ? t.unsqueeze(0) : t; }

IndexOperands dim_operands(int64_t size, int64_t stride_bytes, int64_t dim) {
  IndexOperands ops;
  ops.index_sizes = {size};
  ops.index_strides = {stride_bytes};
  ops.index_dims = {dim};
  return ops;
}

// A 1-D (or 0-dim) index laid along `dim` of a tensor of `sizes`: stride 0
// in every other dim.
Tensor index_along(const Tensor& index, int64_t dim, at::IntArrayRef sizes) {
  std::vector<int64_t> strides(sizes.size(), 0);
  strides[dim] = index.dim() > 0 ? index.stride(0) : 1;
  return index.as_strided(sizes, strides);
}

// ---- stubs of ATen's generic impls ----------------------------------------

void index_kernel(at::TensorIteratorBase& iter, at::IntArrayRef sizes, at::IntArrayRef strides) {
  IndexOperands ops;
  ops.index_sizes = sizes.vec();
  ops.index_strides = strides.vec();
  run_index_kernel({"index", kIndexCheck, false, true}, iter, ops, iter.dtype(0));
}

void index_put_kernel(at::TensorIterator& iter, at::IntArrayRef sizes, at::IntArrayRef strides, bool accumulate) {
  IndexOperands ops;
  ops.index_sizes = sizes.vec();
  ops.index_strides = strides.vec();
  run_index_kernel({"index_put_", kIndexPutCheck, true, true, accumulate ? IndexReduce::kSum : IndexReduce::kCopy},
                   iter, ops, iter.dtype(0), 0, 1, deterministic_indexing());
}

// ATen's make_info() (whose AdvancedIndex constructor libtorch does not
// export): masks expanded to long indices, indices broadcast together and
// moved to the front when not adjacent, then `src` restrided so that the
// indexed dims have the indices' shape and stride 0.
struct IndexInfo {
  Tensor src;
  std::vector<Tensor> indices;
  std::vector<int64_t> sizes, strides;  // of the indexed dims of self; strides in bytes
};
IndexInfo advanced_index(Tensor self, const c10::List<std::optional<Tensor>>& orig) {
  at::native::checkIndexTensorTypes(orig, /*allow_int=*/true);
  auto indices = at::native::expandTensors(self, orig, /*ensure_same_device=*/true);
  try {
    indices = at::expand_outplace(indices);
  } catch (std::exception&) {
    TORCH_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together with shapes ",
                      at::native::shapes_as_str(indices));
  }
  while (indices.size() < static_cast<size_t>(self.dim())) indices.emplace_back();
  if (!at::native::hasContiguousSubspace(indices)) std::tie(self, indices) = at::native::transposeToFront(self, indices);
  IndexInfo info;
  int64_t before = 0, after = 0, indexed = 0;
  at::IntArrayRef replacement;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d].defined()) {
      (indexed == 0 ? before : after)++;
      continue;
    }
    ++indexed;
    replacement = indices[d].sizes();
    info.sizes.push_back(self.size(d));
    info.strides.push_back(self.stride(d) * self.element_size());
  }
  if (std::find(info.sizes.begin(), info.sizes.end(), 0) != info.sizes.end() &&
      std::find(replacement.begin(), replacement.end(), 0) == replacement.end())
    TORCH_CHECK_INDEX(false, "index is out of bounds for dimension with size 0");
  at::DimVector shape(self.sizes()), strides(self.strides());
  shape.erase(shape.begin() + before, shape.begin() + before + indexed);
  strides.erase(strides.begin() + before, strides.begin() + before + indexed);
  shape.insert(shape.begin() + before, replacement.begin(), replacement.end());
  strides.insert(strides.begin() + before, replacement.size(), 0);
  info.src = self.as_strided(shape, strides);
  for (auto& index : indices) {
    if (!index.defined()) continue;
    at::DimVector s(before, 1);
    s.append(index.sizes().begin(), index.sizes().end());
    s.append(after, 1);
    info.indices.push_back((index.scalar_type() == at::kInt ? index.to(at::kLong) : index).reshape(s));
  }
  return info;
}

// _index_put_impl_ sends accumulate=True (and deterministic mode) here on
// PrivateUse1 as on CUDA. No sort: atomics, or one work item in order when
// deterministic (the CPU's order: the last duplicate wins, sums in order).
void index_put_with_sort_kernel(Tensor& self, const c10::List<std::optional<Tensor>>& indices,
                                const Tensor& value, bool accumulate, bool unsafe) {
  TORCH_CHECK(value.device() == self.device(), "expected device ", self.device(), " but got device ",
              value.device(), " for value tensor");
  IndexInfo info = advanced_index(self, indices);
  TORCH_CHECK(at::is_expandable_to(value.sizes(), info.src.sizes()), "shape mismatch: value tensor of shape ",
              value.sizes(), " cannot be broadcast to indexing result of shape ", info.src.sizes());
  TORCH_CHECK(value.scalar_type() == info.src.scalar_type(),
              "Index put requires the source and destination dtypes match, got ", info.src.scalar_type(),
              " for the destination and ", value.scalar_type(), " for the source.");
  at::TensorIteratorConfig config;
  config.set_check_mem_overlap(false).resize_outputs(false).check_all_same_dtype(false);
  config.add_output(info.src).add_const_input(value);
  for (auto& index : info.indices) config.add_const_input(index);
  auto iter = config.build();
  index_put_kernel(iter, info.sizes, info.strides, accumulate);
}

void index_fill_kernel(at::TensorIterator& iter, int64_t dim, int64_t self_dim_size, int64_t self_dim_stride,
                       const c10::Scalar& source) {
  IndexOperands ops = dim_operands(self_dim_size, self_dim_stride * iter.element_size(0), dim);
  ops.src = -1;
  ops.first_index = 1;
  run_index_kernel({"index_fill_", kIndexFillCheck, true, true}, iter, ops, iter.dtype(0), source);
}

void index_copy_kernel(at::TensorIterator& iter, int64_t dim, int64_t self_dim_size, int64_t self_dim_stride) {
  // operands: result (restrided), index, source
  IndexOperands ops = dim_operands(self_dim_size, self_dim_stride * iter.element_size(0), dim);
  ops.src = 2;
  ops.first_index = 1;
  run_index_kernel({"index_copy_", kIndexCopyCheck, true, false}, iter, ops, iter.dtype(0), 0, 1,
                   deterministic_indexing());
}

void take_kernel(at::TensorIterator& iter, const at::TensorBase& input) {
  IndexOperands ops = dim_operands(input.numel(), 0, 0);
  ops.src = -1;
  ops.first_index = 1;
  ops.linear = &input;
  run_index_kernel({"take", kTakeCheck, false, true}, iter, ops, iter.dtype(0));
}

void put_kernel(at::TensorIterator& iter, const at::TensorBase& self, const bool accumulate) {
  // operands: source, index
  IndexOperands ops = dim_operands(self.numel(), 0, 0);
  ops.dst = -1;
  ops.src = 0;
  ops.first_index = 1;
  ops.linear = &self;
  run_index_kernel({"put_", kPutCheck, true, true, accumulate ? IndexReduce::kSum : IndexReduce::kCopy}, iter,
                   ops, self.scalar_type(), 0, 1, deterministic_indexing());
}

// ---- index_select ------------------------------------------------------------

Tensor& index_select_out(const Tensor& self, int64_t dim, const Tensor& index, Tensor& result) {
  dim = at::maybe_wrap_dim(dim, self.dim());
  const int64_t numel = index.numel();
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt,
              "index_select(): Expected dtype int32 or int64 for index");
  TORCH_CHECK(self.scalar_type() == result.scalar_type(),
              "index_select(): self and result must have the same scalar type");
  TORCH_CHECK(self.device() == index.device() && self.device() == result.device(),
              "index_select(): self, index and result must be on the same device, got ", self.device(), ", ",
              index.device(), " and ", result.device());
  at::assert_no_internal_overlap(result);
  at::assert_no_overlap(result, self);
  at::assert_no_overlap(result, index);
  auto result_size = self.sizes().vec();
  if (self.dim() > 0) result_size[dim] = numel;
  at::native::resize_output(result, result_size);
  if (numel == 0) return result;
  TORCH_CHECK_INDEX(self.dim() == 0 || self.size(dim) > 0 || self.numel() > 0,
                    "index_select(): self indexing axis dim should be positive");
  if (result.numel() == 0) return result;
  const Tensor r = nonempty(result), s = nonempty(self);
  auto iter = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(r)
                  .add_owned_const_input(at::native::restride_dim(s, dim, r.sizes()))
                  .add_owned_const_input(index_along(index, dim, r.sizes()))
                  .build();
  IndexOperands ops = dim_operands(s.size(dim), s.stride(dim) * s.element_size(), dim);
  run_index_kernel({"index_select", kIndexSelectCheck, false, false}, iter, ops, self.scalar_type());
  return result;
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor result = at::empty({0}, self.options());
  return index_select_out(self, dim, index, result);
}

// ---- index.Tensor: ATen's structured impl, whose meta returns the indexed
// sizes and strides its impl needs ----------------------------------------------

// ATen expands a k-dim boolean mask into k index tensors, more than one
// launch takes for k > kMaxIndices (x[x > 0] of a 12-dim x). The mask picks
// the same elements as the mask flattened from the same dims of self, flattened
// too: one index operand. Returns nullopt when no rewrite is needed, or when
// those dims cannot be viewed flat (the launcher then raises its limit).
struct FlatMask {
  Tensor self;
  c10::List<std::optional<Tensor>> indices;
};
std::optional<FlatMask> flatten_wide_mask(const Tensor& self, const c10::List<std::optional<Tensor>>& indices) {
  int64_t operands = 0, dim = 0, mask_dim = -1;
  size_t mask_pos = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::optional<Tensor> t = indices[i];
    const bool mask = t && t->defined() && (t->scalar_type() == at::kBool || t->scalar_type() == at::kByte);
    if (mask && t->dim() > 1 && mask_dim < 0) mask_dim = dim, mask_pos = i;
    operands += mask ? t->dim() : (t && t->defined() ? 1 : 0);
    dim += mask ? t->dim() : 1;
  }
  if (operands <= kMaxIndices || mask_dim < 0) return std::nullopt;
  const Tensor mask = *indices.get(mask_pos);
  const int64_t k = mask.dim();
  if (mask_dim + k > self.dim() || mask.sizes() != self.sizes().slice(mask_dim, k)) return std::nullopt;  // ATen's error
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + mask_dim);
  shape.push_back(mask.numel());
  shape.insert(shape.end(), self.sizes().begin() + mask_dim + k, self.sizes().end());
  const auto strides = at::detail::computeStride(self.sizes(), self.strides(), shape);
  if (!strides) return std::nullopt;
  FlatMask flat{self.as_strided(shape, *strides), indices.copy()};
  flat.indices.set(mask_pos, mask.reshape({mask.numel()}));
  return flat;
}

template <Variant V>
Tensor index_run(const Tensor& self_in, const c10::List<std::optional<Tensor>>& indices_in, const Tensor& out) {
  const auto flat = flatten_wide_mask(self_in, indices_in);
  const Tensor& self = flat ? flat->self : self_in;
  const auto& indices = flat ? flat->indices : indices_in;
  OclStructured<at::native::structured_index_out> op(V, out);
  auto pre = op.meta(self, at::IOptTensorListRef(indices));
  op.impl(self, pre.sizes, pre.strides, op.outputs[0]);
  return op.outputs[0];
}
Tensor index_functional(const Tensor& self, const c10::List<std::optional<Tensor>>& indices) {
  return index_run<Variant::Functional>(self, indices, Tensor());
}
Tensor& index_out(const Tensor& self, const c10::List<std::optional<Tensor>>& indices, Tensor& out) {
  index_run<Variant::Out>(self, indices, out);
  return out;
}
Tensor& index_put_impl(Tensor& self, const c10::List<std::optional<Tensor>>& indices, const Tensor& values,
                       bool accumulate, bool unsafe) {
  if (auto flat = flatten_wide_mask(self, indices)) {
    at::native::_index_put_impl_(flat->self, flat->indices, values, accumulate, unsafe);
    return self;
  }
  return at::native::_index_put_impl_(self, indices, values, accumulate, unsafe);
}

// ---- index_add / index_reduce / index_copy ------------------------------------

// result[..., index[i], ...] (op)= source[..., i, ...] (* alpha)
void index_accumulate(const IndexKernel& k, const Tensor& result, int64_t dim, const Tensor& index,
                      const Tensor& source, const c10::Scalar& alpha) {
  if (index.numel() == 0 || result.numel() == 0) return;
  const Tensor r = nonempty(result), src = nonempty(source);
  auto iter = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_owned_output(at::native::restride_dim(r, dim, src.sizes()))
                  .add_const_input(src)
                  .add_owned_const_input(index_along(index, dim, src.sizes()))
                  .build();
  IndexOperands ops = dim_operands(r.size(dim), r.stride(dim) * r.element_size(), dim);
  run_index_kernel(k, iter, ops, result.scalar_type(), 0, alpha, deterministic_indexing());
}

void index_add_impl(at::impl::MetaBase&, const Tensor& result, const Tensor& self, int64_t dim,
                    const Tensor& index, const Tensor& source, const c10::Scalar& alpha) {
  dim = at::maybe_wrap_dim(dim, self.dim());
  if (!result.is_same(self)) result.copy_(self);
  // Complex: the kernel adds (re, im) as reals, scaled by a real alpha; a
  // truly complex alpha scales the source first.
  Tensor src = source;
  c10::Scalar a = alpha;
  if (alpha.isComplex()) {
    const auto c = alpha.toComplexDouble();
    if (c.imag() == 0) a = c.real(); else { src = source.mul(alpha); a = 1; }
  }
  index_accumulate({"index_add", kIndexAddCheck, true, false, IndexReduce::kSum}, result, dim, index, src, a);
}

void index_reduce_impl(at::impl::MetaBase&, const Tensor& result, const Tensor& self, int64_t dim,
                       const Tensor& index, const Tensor& source, c10::string_view reduce, bool include_self) {
  TORCH_WARN_ONCE("index_reduce() is in beta and the API may change at any time.");
  dim = at::maybe_wrap_dim(dim, self.dim());
  if (!result.is_same(self)) result.copy_(self);
  const auto op = at::native::get_reduction_enum(reduce);
  using at::native::ReductionType;
  if (!include_self) {
    AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(), "index_reduce_func_exclude_input_init",
                               [&] {
                                 c10::Scalar init = scalar_t(0);
                                 if (op == ReductionType::PROD) init = scalar_t(1);
                                 if (op == ReductionType::MAX) init = at::native::lower_bound<scalar_t>();
                                 if (op == ReductionType::MIN) init = at::native::upper_bound<scalar_t>();
                                 result.index_fill_(dim, index.to(at::kLong), init);
                               });
  }
  if (self.is_complex()) {  // the CPU's errors: its 0/1-dim kernel has no complex, its slice path uses maximum/minimum
    TORCH_CHECK_NOT_IMPLEMENTED(self.dim() > 1, "\"index_func_\" not implemented for '",
                                c10::toString(self.scalar_type()), "'");
    TORCH_CHECK_NOT_IMPLEMENTED(op != ReductionType::MAX && op != ReductionType::MIN, "\"",
                                op == ReductionType::MAX ? "maximum_cpu" : "minimum_cpu", "\" not implemented for '",
                                c10::toString(self.scalar_type()), "'");
  }
  IndexReduce r = op == ReductionType::PROD ? IndexReduce::kProd
                  : op == ReductionType::MAX ? IndexReduce::kMax
                  : op == ReductionType::MIN ? IndexReduce::kMin
                                             : IndexReduce::kSum;
  index_accumulate({"index_reduce", kIndexReduceCheck, true, false, r}, result, dim, index, source, 1);
  if (op == ReductionType::MEAN && index.numel() > 0) {
    Tensor counts = include_self ? at::ones_like(result) : at::zeros_like(result);
    counts.index_add_(dim, index, at::ones_like(source));
    counts.masked_fill_(counts.eq(0), 1);
    if (result.is_floating_point() || result.is_complex())
      result.div_(counts);
    else
      result.div_(counts, "floor");
  }
}

void index_copy_impl(at::impl::MetaBase& meta, const Tensor& result, const Tensor& self, int64_t dim,
                     const Tensor& index, const Tensor& source) {
  static_cast<at::native::structured_index_copy_out&>(meta).impl(self, at::maybe_wrap_dim(dim, self.dim()), index,
                                                                 source, result);
}

}  // namespace
}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(index_stub, &torch_ocl::index_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(index_put_stub, &torch_ocl::index_put_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(index_put_with_sort_stub, &torch_ocl::index_put_with_sort_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(index_fill_stub, &torch_ocl::index_fill_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(index_copy_stub, &torch_ocl::index_copy_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(take_stub, &torch_ocl::take_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(put_stub, &torch_ocl::put_kernel)
}  // namespace at::native

using at::Tensor;
// Copies (and the sums of index_put_/put_ with accumulate=True) take complex
// too (takes_complex), as index_add and index_reduce (prod / mean).
OCL_NATIVE_FN_C("index_select", &torch_ocl::index_select)
OCL_NATIVE_FN_C("index_select.out", &torch_ocl::index_select_out)
OCL_NATIVE_FN_C("index.Tensor", &torch_ocl::index_functional)
OCL_NATIVE_FN_C("index.Tensor_out", &torch_ocl::index_out)
OCL_NATIVE_FN_C("_index_put_impl_", &torch_ocl::index_put_impl)
OCL_NATIVE_FN_C("index_fill_.int_Scalar",
              static_cast<Tensor& (*)(Tensor&, int64_t, const Tensor&, const c10::Scalar&)>(&at::native::index_fill_))
OCL_NATIVE_FN_C("index_fill_.int_Tensor",
              static_cast<Tensor& (*)(Tensor&, int64_t, const Tensor&, const Tensor&)>(&at::native::index_fill_))
OCL_NATIVE_FN_C("take", &at::native::take)
OCL_NATIVE_FN_C("take.out", &at::native::take_out)
OCL_NATIVE_FN_C("put_", &at::native::put_)

namespace torch_ocl {
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_structured<at::native::structured_index_copy_out, &index_copy_impl, int64_t, const Tensor&,
                      const Tensor&>(m, "index_copy", "index_copy_", "index_copy.out",
                                                        takes_complex);
  register_structured<at::meta::structured_index_add, &index_add_impl, int64_t, const Tensor&, const Tensor&,
                      const c10::Scalar&>(m, "index_add", "index_add_", "index_add.out", takes_complex);
  register_structured<at::meta::structured_index_reduce, &index_reduce_impl, int64_t, const Tensor&,
                      const Tensor&, c10::string_view, bool>(m, "index_reduce", "index_reduce_", "index_reduce.out",
                                                                  takes_complex);
}
}  // namespace torch_ocl
