// gather, scatter (src / value / reduce), scatter_add, scatter_reduce.two on
// PrivateUse1: ATen's structured impls (shape/dtype checks, out=, the
// include_self and mean handling) with our kernels behind their stubs. The
// kernel is kernels/index.cl (launcher: kernels/index_launch.h).
//
// Reductions with duplicate indices update atomically (compare-exchange
// loops); under torch.use_deterministic_algorithms(True) they run serially
// in the CPU's order instead, so results are reproducible bit for bit.
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/TensorAdvancedIndexing.h>
#include <ATen/ops/gather_native.h>
#include <ATen/ops/scatter_add_native.h>
#include <ATen/ops/scatter_native.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/scatter_reduce_native.h>

#include "backend/device_checks.h"
#include "kernels/index_launch.h"
#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

using at::Tensor;

const int kGatherCheck = register_device_check("gather", DeviceCheckKind::kRuntimeError,
                                               "index {index} is out of bounds for dimension {dim} with size {size}");
const int kScatterCheck = register_device_check("scatter", DeviceCheckKind::kRuntimeError,
                                                "index {index} is out of bounds for dimension {dim} with size {size}");

// 0-dim tensors as 1-element 1-dim views (the kernels index a dim).
Tensor nonempty(const Tensor& t) { return t.dim() == 0 ? t.unsqueeze(0) : t; }

IndexOperands dim_operands(const Tensor& self, int64_t dim, int first_index) {
  IndexOperands ops;
  ops.first_index = first_index;
  ops.index_sizes = {self.size(dim)};
  ops.index_strides = {self.stride(dim) * self.element_size()};
  ops.index_dims = {dim};
  return ops;
}

void gather_kernel(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index) {
  const Tensor r = nonempty(result), s = nonempty(self), i = nonempty(index);
  auto iter = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(r)
                  .add_owned_const_input(at::native::restride_dim(s, dim, i.sizes()))
                  .add_const_input(i)
                  .build();
  run_index_kernel({"gather", kGatherCheck, false, false}, iter, dim_operands(s, dim, 2), self.scalar_type());
}

// self[... index[i] ...] (op)= src[i] (or value), over index's shape.
void scatter_launch(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                    const c10::Scalar& value, IndexReduce reduce) {
  const Tensor s = nonempty(self), i = nonempty(index);
  at::TensorIteratorConfig config;
  config.set_check_mem_overlap(false).check_all_same_dtype(false).resize_outputs(false);
  config.add_owned_output(at::native::restride_dim(s, dim, i.sizes()));
  if (src) {
    const Tensor sr = nonempty(*src);
    config.add_owned_const_input(sr.as_strided(i.sizes(), sr.strides()));
  }
  config.add_const_input(i);
  auto iter = config.build();
  IndexOperands ops = dim_operands(s, dim, src ? 2 : 1);
  if (!src) ops.src = -1;
  run_index_kernel({"scatter", kScatterCheck, true, false, reduce}, iter, ops, self.scalar_type(), value, 1,
                   deterministic_indexing());
}

IndexReduce to_reduce(at::native::ReductionType r) {
  using at::native::ReductionType;
  switch (r) {
    case ReductionType::SUM:
    case ReductionType::MEAN: return IndexReduce::kSum;  // ATen divides by the counts afterwards
    case ReductionType::PROD: return IndexReduce::kProd;
    case ReductionType::MAX: return IndexReduce::kMax;
    case ReductionType::MIN: return IndexReduce::kMin;
  }
  TORCH_CHECK(false, "torch_ocl: unknown reduction");
}

void scatter_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  scatter_launch(self, dim, index, &src, 0, IndexReduce::kCopy);
}
void scatter_fill_kernel(const Tensor& self, int64_t dim, const Tensor& index, const c10::Scalar& value) {
  scatter_launch(self, dim, index, nullptr, value, IndexReduce::kCopy);
}
void scatter_add_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  scatter_launch(self, dim, index, &src, 0, IndexReduce::kSum);
}
void scatter_reduce_kernel(const Tensor& self, const int64_t dim, const Tensor& index, const Tensor& src,
                           const at::native::ReductionType& reduce) {
  scatter_launch(self, dim, index, &src, 0, to_reduce(reduce));
}
void scatter_scalar_reduce_kernel(const Tensor& self, const int64_t dim, const Tensor& index,
                                  const c10::Scalar& value, const at::native::ReductionType& reduce) {
  if (self.is_complex()) {  // the complex kernels reduce a source: the value broadcast as one
    const Tensor src = at::scalar_tensor(value, self.options()).expand(index.sizes());
    scatter_launch(self, dim, index, &src, 0, to_reduce(reduce));
    return;
  }
  scatter_launch(self, dim, index, nullptr, value, to_reduce(reduce));
}
void scatter_reduce_two_kernel(const Tensor& self, const int64_t dim, const Tensor& index, const Tensor& src,
                               const at::native::ReductionType& reduce) {
  using at::native::ReductionType;
  // complex amax / amin: the CPU kernel's dispatch error
  TORCH_CHECK_NOT_IMPLEMENTED(!self.is_complex() || (reduce != ReductionType::MAX && reduce != ReductionType::MIN),
                              "\"scatter_gather_tensor_cpu_reduce_", reduce == ReductionType::MAX ? "amax" : "amin",
                              "\" not implemented for '", c10::toString(self.scalar_type()), "'");
  scatter_launch(self, dim, index, &src, 0, to_reduce(reduce));
}

}  // namespace
}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(gather_stub, &torch_ocl::gather_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(scatter_stub, &torch_ocl::scatter_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(scatter_fill_stub, &torch_ocl::scatter_fill_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(scatter_add_stub, &torch_ocl::scatter_add_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(scatter_reduce_stub, &torch_ocl::scatter_reduce_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(scatter_scalar_reduce_stub, &torch_ocl::scatter_scalar_reduce_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(scatter_reduce_two_stub, &torch_ocl::scatter_reduce_two_kernel)
}  // namespace at::native

// Copies (and scatter_add's sum) take complex too (takes_complex).
OCL_NATIVE_OP_C(structured_gather_out, "gather", nullptr, "gather.out")
OCL_NATIVE_OP_C(structured_scatter_src_out, "scatter.src", "scatter_.src", "scatter.src_out")
OCL_NATIVE_OP_C(structured_scatter_value_out, "scatter.value", "scatter_.value", "scatter.value_out")
// complex reductions: sum, prod (serial), mean; amax / amin raise as the CPU
OCL_NATIVE_OP_C(structured_scatter_reduce_out, "scatter.reduce", "scatter_.reduce", "scatter.reduce_out")
OCL_NATIVE_OP_C(structured_scatter_value_reduce_out, "scatter.value_reduce", "scatter_.value_reduce",
              "scatter.value_reduce_out")
OCL_NATIVE_OP_C(structured_scatter_add, "scatter_add", "scatter_add_", "scatter_add.out")
OCL_NATIVE_OP_C(structured_scatter_reduce_two, "scatter_reduce.two", "scatter_reduce_.two",
              "scatter_reduce.two_out")
