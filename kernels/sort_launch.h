// The device sort behind kernels/sort_ops.cpp and kernels/unique_ops.cpp:
// every slice of a tensor along one dim sorted as (key, index) pairs in a
// scratch array (kernels/sort.cl explains the layout), then written out or
// picked from.
#pragma once

#include <ATen/core/Tensor.h>

#include "kernels/dim_slices.h"

namespace torch_ocl {

struct SortScratch {
  at::Tensor keys;     // rows * P ordered keys (ulong bits in a kLong tensor)
  at::Tensor indices;  // rows * P original indices along the dim
  int64_t rows = 0;    // number of slices
  int64_t P = 0;       // slice stride in the scratch (a power of two)
  Slices sl;           // slice r of (values, self, indices): one order for every pass
};

// Sorts every slice of `self` (at least one element, at least 1-d) along
// `dim` (slices numbered as TensorIterator orders them over the outputs
// `values` / `indices`, which the later write_sorted / pick_sorted fill), ascending or descending, stably (ties keep their order; NaN is
// larger than everything, -0.0 equals 0.0). Only the first `limit` entries of
// each slice are guaranteed sorted (topk / kthvalue with a small k take
// selection rounds instead of a full sort).
SortScratch sort_slices(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                        bool descending, int64_t limit);

// values / indices (size `count` along dim; any strides) = the first `count`
// sorted entries of each slice of self.
void write_sorted(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                  const SortScratch& s, int64_t count);

enum class Pick { Position = 0, Median = 1, NanMedian = 2, Mode = 3 };
// values / indices (size 1 along dim) = one entry of each ascending-sorted
// slice: the one at `pos`, the median as torch.median / torch.nanmedian pick
// it, or the mode as torch.mode picks it.
void pick_sorted(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                 const SortScratch& s, Pick what, int64_t pos);

}  // namespace torch_ocl
