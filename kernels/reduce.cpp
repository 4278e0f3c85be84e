// Reductions: sum and mean over any dims. Kernels in kernels/reduce.cl; the output
// shape and dtype come from the structured meta function.
#include <ATen/WrapDimUtilsMulti.h>
#include <ATen/ops/mean_meta.h>
#include <ATen/ops/sum_meta.h>

#include <numeric>

#include "backend/kernel_launch.h"
#include "kernels/structured.h"

namespace torch_ocl {
namespace {

// Collapses `dims` (outer to inner) of t into one (size, stride); false when
// they are not evenly strided.
bool collapse(const at::Tensor& t, const std::vector<int64_t>& dims, int64_t& size, int64_t& stride) {
  size = 1;
  stride = 1;
  bool first = true;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    const int64_t n = t.size(*it), s = t.stride(*it);
    if (n == 1) continue;
    if (first) {
      stride = s;
      first = false;
    } else if (s != stride * size) {
      return false;
    }
    size *= n;
  }
  return true;
}

void sum_into(const at::Tensor& out, const at::Tensor& in, int64_t M, int64_t N, int64_t sM,
              int64_t sN) {
  const auto device = out.device().index();
  const std::string preamble = dtype_preamble(out.scalar_type());
  if (sM == 1 && M >= 256) {
    Launch(device, "reduce", preamble, "sum_cols")
        .tensor(in).value(M).value(N).value(sM).value(sN).tensor(out)
        .run(static_cast<size_t>(M));
    return;
  }
  Launch rows(device, "reduce", preamble, "sum_rows");
  const size_t local = rows.pow2_work_group();
  // Long rows with few outputs: a first pass over G chunks per row.
  const int64_t G = M >= 64 ? 1 : std::clamp<int64_t>(N / static_cast<int64_t>(local * 64), 1, 1024);
  if (G > 1) {
    at::Tensor partial = at::empty({M * G}, out.options());
    const int64_t C = (N + G - 1) / G;
    rows.tensor(in).value(M).value(N).value(sM).value(sN).value(G).value(C).tensor(partial)
        .local_memory(local * 8)  // ACC is at most 8 bytes
        .run(static_cast<size_t>(M * G) * local, local);
    sum_into(out, partial, M, G, G, 1);
    return;
  }
  rows.tensor(in).value(M).value(N).value(sM).value(sN).value<int64_t>(1).value(N).tensor(out)
      .local_memory(local * 8)
      .run(static_cast<size_t>(M) * local, local);
}

void sum_impl(at::impl::MetaBase&, const at::Tensor& out, const at::Tensor& self,
              at::OptionalIntArrayRef dim, bool, std::optional<c10::ScalarType>) {
  if (out.numel() == 0) return;
  if (self.numel() == 0) {
    out.zero_();
    return;
  }
  check_dtype_supported(out.scalar_type(), out.device().index());
  at::Tensor x = self.scalar_type() == out.scalar_type() ? self : self.to(out.scalar_type());
  const int64_t ndim = x.dim();
  const auto mask = at::dim_list_to_bitset(dim.value_or(at::IntArrayRef{}), std::max<int64_t>(ndim, 1));
  const bool all = !dim.has_value() || dim->empty();
  std::vector<int64_t> kept, reduced;
  for (int64_t d = 0; d < ndim; ++d) (all || mask[d] ? reduced : kept).push_back(d);
  int64_t M = 1, N = 1, sM = 1, sN = 1;
  if (!collapse(x, kept, M, sM) || !collapse(x, reduced, N, sN)) {
    std::vector<int64_t> perm(kept);
    perm.insert(perm.end(), reduced.begin(), reduced.end());
    x = x.permute(perm).contiguous();
    M = std::accumulate(x.sizes().begin(), x.sizes().begin() + kept.size(), int64_t{1}, std::multiplies<>());
    N = x.numel() / M;
    sM = N;
    sN = 1;
  }
  at::Tensor dst = out.is_contiguous() ? out : at::empty({M}, out.options());
  sum_into(dst, x, M, N, sM, sN);
  if (!dst.is_same(out)) out.copy_(dst.view(out.sizes()));
}

void mean_impl(at::impl::MetaBase& meta, const at::Tensor& out, const at::Tensor& self,
               at::OptionalIntArrayRef dim, bool keepdim, std::optional<c10::ScalarType> dtype) {
  if (out.numel() == 0) return;
  sum_impl(meta, out, self, dim, keepdim, dtype);
  out.div_(static_cast<double>(self.numel() / out.numel()));  // 0/0 = NaN for empty input, as on CPU
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_structured<at::meta::structured_sum_dim_IntList, &sum_impl, at::OptionalIntArrayRef, bool,
                      std::optional<c10::ScalarType>>(m, "sum.dim_IntList", nullptr, "sum.IntList_out");
  register_structured<at::meta::structured_mean_dim, &mean_impl, at::OptionalIntArrayRef, bool,
                      std::optional<c10::ScalarType>>(m, "mean.dim", nullptr, "mean.out");
}

}  // namespace torch_ocl
