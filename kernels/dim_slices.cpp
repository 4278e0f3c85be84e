#include "kernels/dim_slices.h"

#include <ATen/TensorIterator.h>

#include <algorithm>
#include <vector>

namespace torch_ocl {

Slices slices_along(std::initializer_list<at::Tensor> tensors, std::initializer_list<int64_t> dims) {
  TORCH_INTERNAL_ASSERT(tensors.size() >= 1 && tensors.size() <= kMaxOperands);
  std::vector<int64_t> sorted(dims);
  std::sort(sorted.rbegin(), sorted.rend());  // select the highest dim first
  at::TensorIteratorConfig config;
  config.set_check_mem_overlap(false).resize_outputs(false).check_all_same_dtype(false);
  bool first = true;
  for (const at::Tensor& t : tensors) {
    at::Tensor v = t;
    for (int64_t d : sorted) v = v.select(d, 0);
    if (first) config.add_owned_output(v);
    else config.add_owned_const_input(v);
    first = false;
  }
  at::TensorIterator iter = config.build();
  Slices s;
  s.ix = make_indexer(iter);
  s.count = iter.numel();
  for (int k = 0; k < iter.ntensors(); ++k) s.base[k] = iter.data_ptr(k);
  return s;
}

}  // namespace torch_ocl
