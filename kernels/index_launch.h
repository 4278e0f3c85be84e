// The launcher of kernels/index.cl, shared by the indexing ops
// (kernels/scatter_gather_ops.cpp, kernels/index_ops.cpp): one kernel that
// moves or reduces elements between a destination and a source, one side
// displaced by index tensors, with device-side bounds checks.
#pragma once

#include <ATen/TensorIterator.h>
#include <c10/core/Scalar.h>

#include <vector>

namespace torch_ocl {

// Index operands one launch takes (MAX_IDX in kernels/index.cl).
constexpr int kMaxIndices = 8;

enum class IndexReduce { kCopy = 0, kSum = 1, kProd = 2, kMax = 3, kMin = 4 };

// What the kernel does.
struct IndexKernel {
  const char* name;            // in program labels
  int check;                   // register_device_check() id for a bad index
  bool displace_dst;           // indices pick the destination (scatter) instead of the source (gather)
  bool allow_negative;         // indices in [-size, 0) count from the end
  IndexReduce reduce = IndexReduce::kCopy;
};

// Where its operands are. `iter` is built by ATen or the caller.
struct IndexOperands {
  int dst = 0;                 // iter operand, or -1: `linear` is the destination
  int src = 1;                 // iter operand, or -1: `linear` (if set, and dst is not -1) or the fill value
  int first_index = 2;         // the index operands: first_index .. first_index + index_sizes.size() - 1
  std::vector<int64_t> index_sizes;    // size of the dim each index addresses
  std::vector<int64_t> index_strides;  // its stride in bytes (unused with `linear`)
  std::vector<int64_t> index_dims;     // its number, for error messages
  const at::TensorBase* linear = nullptr;  // take / put_: the one index is a linear index into it
};

// Runs `k` over `iter` for elements of `dtype`. `value` fills when there is
// no source; `alpha` scales the source of a sum (index_add). Reductions are
// atomic unless `serial` or the device lacks 64-bit atomics for 8-byte
// types; then one work item does the elements in order (deterministic).
void run_index_kernel(const IndexKernel& k, at::TensorIteratorBase& iter, const IndexOperands& ops,
                      c10::ScalarType dtype, const c10::Scalar& value = 0, const c10::Scalar& alpha = 1,
                      bool serial = false);

// True when use_deterministic_algorithms(True) is on: reductions with
// duplicate indices then run serially, in the CPU's order.
bool deterministic_indexing();

}  // namespace torch_ocl
