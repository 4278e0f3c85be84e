// The unique family on PrivateUse1: _unique, _unique2, unique_dim,
// unique_consecutive, unique_dim_consecutive (ATen's are CPU/CUDA-only).
// Built from native device ops: a stable sort (kernels/sort_ops.cpp; for
// unique_dim one per column, last column first), run starts where a value
// differs from its predecessor (ne / any), their positions by nonzero (the
// one host sync: the number of unique values), ids by cumsum, counts by
// differences of the run starts, inverse indices scattered back through the
// sort permutation. Output is always sorted (sorted=False allows any order,
// as on CUDA).
#include <ATen/ATen.h>
#include <ATen/WrapDimUtils.h>
#include <torch/library.h>

#include <algorithm>

#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

using at::Tensor;
using Triple = std::tuple<Tensor, Tensor, Tensor>;

// Runs of equal rows of `rows` ([n, m], n >= 1): (starts of the runs, id of
// the run of every row, count of every run).
struct Runs {
  Tensor starts, ids, counts;
};
Runs runs_of(const Tensor& rows) {
  const int64_t n = rows.size(0);
  const auto lopt = rows.options().dtype(at::kLong);
  Tensor first = at::empty({n}, rows.options().dtype(at::kBool));
  first.narrow(0, 0, 1).fill_(true);
  if (n > 1) {
    Tensor differs = at::ne(rows.narrow(0, 1, n - 1), rows.narrow(0, 0, n - 1));
    first.narrow(0, 1, n - 1).copy_(differs.dim() > 1 ? differs.any(1) : differs);
  }
  Runs r;
  r.starts = at::nonzero(first).view({-1});  // syncs
  r.ids = at::cumsum(first, 0, at::kLong).sub_(1);
  const int64_t num = r.starts.size(0);
  Tensor bounds = at::empty({num + 1}, lopt);
  bounds.narrow(0, 0, num).copy_(r.starts);
  bounds.narrow(0, num, 1).fill_(n);
  r.counts = bounds.narrow(0, 1, num) - bounds.narrow(0, 0, num);
  return r;
}

Tensor empty_long(const Tensor& self) { return at::empty({0}, self.options().dtype(at::kLong)); }

// Flattened unique (sorted = true) or unique_consecutive (sorted = false).
Triple unique_flat(const Tensor& self, bool sort, bool return_inverse, bool return_counts) {
  if (self.numel() == 0) {
    Tensor inv = return_inverse ? at::empty(self.sizes(), self.options().dtype(at::kLong)) : empty_long(self);
    return {at::empty({0}, self.options()), inv, empty_long(self)};
  }
  Tensor flat = self.reshape({-1});
  Tensor perm;
  if (sort) std::tie(flat, perm) = at::sort(flat, /*stable=*/true, 0, false);
  const Runs r = runs_of(flat);
  Tensor out = flat.index_select(0, r.starts);
  Tensor inv = empty_long(self);
  if (return_inverse) {
    if (sort) {
      inv = at::empty({self.numel()}, r.ids.options());
      inv.index_copy_(0, perm, r.ids);
    } else {
      inv = r.ids;
    }
    inv = inv.view(self.sizes());
  }
  return {out, inv, return_counts ? r.counts : empty_long(self)};
}

// unique along `dim` (sorted lexicographically) or unique_dim_consecutive.
Triple unique_dim_impl(const Tensor& self, int64_t dim_, bool sort, bool return_inverse, bool return_counts) {
  const int64_t dim = at::maybe_wrap_dim(dim_, self.dim(), /*wrap_scalar=*/false);
  const auto sizes = self.sizes().vec();
  const auto num_zero_dims = std::count(sizes.begin(), sizes.end(), 0);
  if (self.size(dim) == 0) {
    TORCH_CHECK(num_zero_dims == 1,
                "Number of zero sized dimensions is more than one, so unique cannot be applied ");
    return {at::empty(sizes, self.options()), empty_long(self), empty_long(self)};
  }
  TORCH_CHECK(num_zero_dims == 0, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  const int64_t n = self.size(dim);
  Tensor rows = self.moveaxis(dim, 0).contiguous().view({n, -1});
  Tensor perm;
  if (sort) {
    perm = at::arange(n, self.options().dtype(at::kLong));
    for (int64_t c = rows.size(1) - 1; c >= 0; --c) {
      Tensor col = rows.select(1, c).index_select(0, perm);
      perm = perm.index_select(0, std::get<1>(at::sort(col, /*stable=*/true, 0, false)));
    }
    rows = rows.index_select(0, perm);
  }
  const Runs r = runs_of(rows);
  Tensor out = self.index_select(dim, sort ? perm.index_select(0, r.starts) : r.starts);
  Tensor inv = empty_long(self);
  if (return_inverse) {
    if (sort) {
      inv = at::empty({n}, r.ids.options());
      inv.index_copy_(0, perm, r.ids);
    } else {
      inv = r.ids;
    }
  }
  return {out, inv, return_counts ? r.counts : empty_long(self)};
}

Triple unique2(const Tensor& self, bool sorted, bool return_inverse, bool return_counts) {
  return unique_flat(self, true, return_inverse, return_counts);
}
std::tuple<Tensor, Tensor> unique1(const Tensor& self, bool sorted, bool return_inverse) {
  auto [out, inv, counts] = unique_flat(self, true, return_inverse, false);
  return {out, inv};
}
Triple unique_dim(const Tensor& self, int64_t dim, bool sorted, bool return_inverse, bool return_counts) {
  return unique_dim_impl(self, dim, true, return_inverse, return_counts);
}
Triple unique_dim_consecutive(const Tensor& self, int64_t dim, bool return_inverse, bool return_counts) {
  return unique_dim_impl(self, dim, false, return_inverse, return_counts);
}
Triple unique_consecutive(const Tensor& self, bool return_inverse, bool return_counts, std::optional<int64_t> dim) {
  if (dim && !(*dim == 0 && self.dim() == 1))
    return unique_dim_impl(self, *dim, false, return_inverse, return_counts);
  return unique_flat(self, false, return_inverse, return_counts);
}

}  // namespace
}  // namespace torch_ocl

OCL_NATIVE_FN("_unique", &torch_ocl::unique1)
OCL_NATIVE_FN("_unique2", &torch_ocl::unique2)
OCL_NATIVE_FN("unique_dim", &torch_ocl::unique_dim)
OCL_NATIVE_FN("unique_dim_consecutive", &torch_ocl::unique_dim_consecutive)
OCL_NATIVE_FN("unique_consecutive", &torch_ocl::unique_consecutive)
