// Kernels that work along one or two dims of a tensor (scans, triangles)
// take the other dims as an Indexer over "slices": the offsets of slice r of
// each tensor, built by TensorIterator from the tensors with those dims
// selected away (so the other dims coalesce and may be in any layout).
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <initializer_list>

#include "backend/kernel_launch.h"

namespace torch_ocl {

struct Slices {
  Indexer ix;                               // slice index -> element offsets per tensor
  int64_t count = 0;                        // number of slices
  std::array<void*, kMaxOperands> base{};   // each tensor's element 0
};

// `tensors` (up to kMaxOperands, same sizes, at least one element) sliced
// along `dims` (wrapped, distinct).
Slices slices_along(std::initializer_list<at::Tensor> tensors, std::initializer_list<int64_t> dims);

}  // namespace torch_ocl
