// nonzero (argwhere is composite over it), masked_select, masked_scatter_ on
// PrivateUse1. ATen's impls of these are CPU/CUDA-only. nonzero reads the
// number of nonzeros back to the host (a sync, as on CUDA): a count pass,
// a prefix sum of the per-block counts, a write pass (kernels/nonzero.cl).
// masked_select and masked_scatter_ are advanced indexing with the mask's
// nonzero() coordinates (kernels/index_ops.cpp).
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/index.h>
#include <ATen/ops/nonzero.h>
#include <torch/library.h>

#include <numeric>

#include "backend/kernel_launch.h"
#include "backend/runtime.h"
#include "backend/scratch_buffer.h"
#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

using at::Tensor;
constexpr int64_t kPerItem = 16;  // PER_ITEM in kernels/nonzero.cl

Tensor& nonzero_out(const Tensor& self, Tensor& result) {
  TORCH_CHECK(result.scalar_type() == at::kLong,
              "nonzero: Expected out tensor to have scalar type Long but got scalar type", result.scalar_type());
  TORCH_CHECK(self.numel() < std::numeric_limits<int>::max(),
              "nonzero is not supported for tensors with more than INT_MAX elements, file a support request");
  at::assert_no_internal_overlap(result);
  at::assert_no_overlap(result, self);
  const int64_t n = self.numel(), ndim = self.dim();
  if (n == 0) {
    at::native::resize_output(result, {0, ndim});
    return result;
  }
  const auto device = self.device().index();
  const Tensor in = self.contiguous();
  // A complex element is nonzero when re != 0 || im != 0: read as 2 reals.
  const auto dtype = in.scalar_type();
  const bool complex = c10::isComplexType(dtype);
  const auto real = complex ? c10::toRealValueType(dtype) : dtype;
  check_dtype_supported(real, device);
  auto nonzero_kernel = [&](const char* name) -> CachedKernel& {
    return source_kernel(device, "nonzero", name, kernel_variant({static_cast<int>(real), complex}),
                         [&] { return dtype_preamble(real) + "#define COMPONENTS " + (complex ? "2" : "1") + "\n"; });
  };

  Launch count(device, nonzero_kernel("nonzero_count"));
  const int64_t local = static_cast<int64_t>(count.pow2_work_group());
  const int64_t block = local * kPerItem, nblocks = (n + block - 1) / block;
  Tensor counts = at::empty({nblocks}, in.options().dtype(at::kLong));
  count.input(in).value(n);
  count.tensor(counts).local_memory(local * sizeof(int64_t)).run(nblocks * local, local);
  Tensor host = counts.cpu();  // the sync
  std::vector<int64_t> starts(nblocks);
  const int64_t* c = host.const_data_ptr<int64_t>();
  std::exclusive_scan(c, c + nblocks, starts.begin(), int64_t{0});
  const int64_t total = starts.back() + c[nblocks - 1];

  at::native::resize_output(result, {total, ndim});
  if (total == 0 || ndim == 0) return result;
  Tensor out = result.is_contiguous() ? result : at::empty({total, ndim}, result.options());
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end());
  ScratchBuffer starts_buf = ScratchBuffer::from_host(device, starts.data(), starts.size() * sizeof(int64_t));
  ScratchBuffer sizes_buf = ScratchBuffer::from_host(device, sizes.data(), sizes.size() * sizeof(int64_t));
  cl_mem sm = starts_buf.get(), zm = sizes_buf.get();
  Launch write(device, nonzero_kernel("nonzero_write"));
  write.input(in).value(n).raw(sizeof(cl_mem), &sm).raw(sizeof(cl_mem), &zm).value(ndim).tensor(out);
  write.local_memory(local * sizeof(int64_t)).run(nblocks * local, local);
  if (!out.is_same(result)) result.copy_(out);
  return result;
}

Tensor nonzero(const Tensor& self) {
  Tensor result = at::empty({0}, self.options().dtype(at::kLong));
  return nonzero_out(self, result);
}

Tensor masked_select_impl(const Tensor& self, const Tensor& mask) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_select: expected BoolTensor for mask");
  auto [m, s] = at::expand_outplace(mask, self);
  const Tensor sv = s->dim() == 0 ? s->unsqueeze(0) : *s;
  const Tensor mv = m->dim() == 0 ? m->unsqueeze(0) : *m;
  return at::index(sv, {std::optional<Tensor>(mv)});
}

Tensor& masked_select_out(const Tensor& self, const Tensor& mask, Tensor& result) {
  TORCH_CHECK(self.scalar_type() == result.scalar_type(),
              "masked_select(): self and result must have the same scalar type");
  at::assert_no_internal_overlap(result);
  at::assert_no_overlap(result, self);
  at::assert_no_overlap(result, mask);
  Tensor r = masked_select_impl(self, mask);
  at::native::resize_output(result, r.sizes());
  result.copy_(r);
  return result;
}

Tensor masked_select(const Tensor& self, const Tensor& mask) { return masked_select_impl(self, mask); }

Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  at::assert_no_internal_overlap(self);
  TORCH_CHECK(self.scalar_type() == source.scalar_type(),
              "masked_scatter_: expected self and source to have same dtypes but got", self.scalar_type(), " and ",
              source.scalar_type());
  TORCH_CHECK(mask.dtype() == at::ScalarType::Bool, "masked_scatter_ only supports boolean masks, but got mask with dtype ",
              mask.dtype());
  auto b_mask = at::expand_inplace(self, mask, "masked_scatter_");
  if (self.numel() == 0) return self;
  Tensor s = self.dim() == 0 ? self.unsqueeze(0) : self;
  const Tensor m = b_mask->dim() == 0 ? b_mask->unsqueeze(0) : *b_mask;
  const Tensor coords = at::nonzero(m);  // syncs
  const int64_t count = coords.size(0);
  TORCH_CHECK(source.numel() >= count, "Number of elements of source < number of ones in mask");
  if (count == 0) return self;
  c10::List<std::optional<Tensor>> indices;
  for (const Tensor& c : coords.unbind(1)) indices.push_back(c);
  s.index_put_(indices, source.reshape(-1).narrow(0, 0, count));
  return self;
}

}  // namespace
}  // namespace torch_ocl

// Complex too (takes_complex): nonzero tests (re, im), the others move bits.
OCL_NATIVE_FN_C("nonzero", &torch_ocl::nonzero)
OCL_NATIVE_FN_C("nonzero.out", &torch_ocl::nonzero_out)
OCL_NATIVE_FN_C("masked_select", &torch_ocl::masked_select)
OCL_NATIVE_FN_C("masked_select.out", &torch_ocl::masked_select_out)
OCL_NATIVE_FN_C("masked_scatter_", &torch_ocl::masked_scatter_)
