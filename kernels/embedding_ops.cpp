// Embedding and EmbeddingBag on PrivateUse1.
// - embedding: ATen's composite (index_select, native).
// - embedding_dense_backward: index_add_ (native; serial, in the CPU's order,
//   under torch.use_deterministic_algorithms) of the gradient rows, with
//   padding_idx rows dropped and scale_grad_by_freq's 1/count factors.
// - embedding_renorm_: row norms, then index_copy_ of the rescaled rows.
// - _embedding_bag / _embedding_bag_forward_only: kernels/embedding.cl (one
//   work item per bag and feature, modes sum/mean/max, offsets,
//   include_last_offset, per_sample_weights, padding_idx); an index out of
//   range is reported by the device-side flag.
// - _embedding_bag_backward: ATen's generic impl; its dense backward and the
//   per_sample_weights backward are compositions of native ops here.
#include <ATen/OpMathType.h>
#include <ATen/TensorOperators.h>
#include <ATen/TensorUtils.h>
#include <ATen/native/EmbeddingBag.h>
#include <ATen/ops/_embedding_bag_backward_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>

#include "kernels/register_op.h"
#include "backend/device_checks.h"
#include "backend/program_cache.h"
#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

using at::Tensor;
using at::native::EmbeddingBagMode;

const int kEmbeddingBagCheck =
    register_device_check("embedding_bag", DeviceCheckKind::kRuntimeError,
                          "Expected idx >= 0 && idx < num_embeddings but found idx to be {index}");

// grad_weight[indices[i]] += grad[i] * scale_i for indices[i] != padding_idx,
// scale_i = 1 / (occurrences of indices[i]) with scale_grad_by_freq.
Tensor embedding_dense_backward(const Tensor& grad_, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq) {
  auto indices_arg = at::TensorArg(indices, "indices", 2);
  at::checkScalarTypes("embedding_backward", indices_arg, {at::kLong, at::kInt});
  const int64_t n = indices.numel(), D = grad_.size(-1);
  Tensor grad_weight = at::zeros({num_weights, D}, grad_.options());
  if (n == 0 || D == 0) return grad_weight;
  const Tensor idx = indices.reshape({n});
  Tensor grad = grad_.reshape({n, D});
  if (scale_grad_by_freq) {
    const auto count_type = grad.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
    Tensor counts = at::zeros({num_weights}, grad.options().dtype(count_type));
    counts.index_add_(0, idx, at::ones({n}, counts.options()));
    grad = (grad * counts.index_select(0, idx).reciprocal().unsqueeze(1)).to(grad_.scalar_type());
  }
  // Rows of padding_idx contribute nothing (not even a NaN).
  grad = at::where((idx != padding_idx).unsqueeze(1), grad, at::scalar_tensor(0, grad.options()));
  grad_weight.index_add_(0, idx, grad);
  return grad_weight;
}

Tensor& embedding_renorm_(Tensor& self, const Tensor& indices, double max_norm, double norm_type) {
  auto self_arg = at::TensorArg(self, "self", 1);
  auto indices_arg = at::TensorArg(indices, "indices", 2);
  at::checkDim("embedding_renorm_", self_arg, 2);
  at::checkScalarTypes("embedding_renorm_", indices_arg, {at::kLong, at::kInt});
  if (indices.numel() == 0) return self;
  const Tensor idx = indices.reshape({-1}).to(at::kLong);  // index_copy_ takes int64 only
  const Tensor rows = self.index_select(0, idx);
  const Tensor norms = rows.norm(norm_type, 1, /*keepdim=*/true);
  const Tensor scale = at::where(norms > max_norm, max_norm / (norms + 1e-7), at::scalar_tensor(1.0, norms.options()));
  // Duplicate indices write the same row: the result does not depend on the order.
  self.index_copy_(0, idx, (rows * scale).to(self.scalar_type()));
  return self;
}

// indices and offsets in their promoted type (ATen's promoteIndicesAndOffsets).
std::pair<Tensor, Tensor> promote_indices_offsets(const Tensor& indices, const Tensor& offsets) {
  const auto common = c10::promoteTypes(offsets.scalar_type(), indices.scalar_type());
  return {indices.to(common), offsets.to(common)};
}

// The checks of ATen's _embedding_bag_cpu_impl / check_arguments that need no
// values (offsets[0] == 0 and offsets[-1] <= n would need a sync: the kernel
// clamps bags to [0, n) instead).
void check_bag_arguments(const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode,
                         const Tensor& psw, bool include_last_offset) {
  TORCH_CHECK(indices.dim() == 1 || indices.dim() == 2,
              "input has to be a 1D or 2D Tensor, but got Tensor of dimension ", indices.dim());
  if (indices.dim() == 1)
    TORCH_CHECK(offsets.dim() == 1, "offsets has to be a 1D Tensor, but got Tensor of dimension ", offsets.dim());
  TORCH_CHECK(weight.dim() == 2, "weight has to be a 2D Tensor, but got Tensor of dimension ", weight.dim());
  auto indices_arg = at::TensorArg(indices, "indices", 1);
  at::checkScalarTypes("embedding_bag", indices_arg, {at::kLong, at::kInt});
  auto offsets_arg = at::TensorArg(offsets, "offsets", 1);
  at::checkScalarTypes("embedding_bag", offsets_arg, {at::kLong, at::kInt});
  at::checkSameType("embedding_bag", indices_arg, offsets_arg);
  auto weight_arg = at::TensorArg(weight, "weight", 1);
  at::checkScalarTypes("embedding_bag", weight_arg, {at::kHalf, at::kBFloat16, at::kFloat, at::kDouble});
  if (psw.defined()) {
    TORCH_CHECK(mode == EmbeddingBagMode::SUM, "embedding_bag: per_sample_weights only supported with mode='sum'");
    auto psw_arg = at::TensorArg(psw, "per_sample_weights", 1);
    at::checkSameType("embedding_bag", weight_arg, psw_arg);
    TORCH_CHECK(psw.dim() == 1);
    TORCH_CHECK(psw.numel() == indices.numel());
  }
  if (include_last_offset)
    TORCH_CHECK(offsets.size(0) >= 1, "include_last_offset: number of offset should be at least 1");
}

std::string bag_preamble(c10::ScalarType dtype, c10::ScalarType index) {
  return dtype_preamble(dtype) + kernel_source("device_checks") + "#define IDX " +
         (index == at::kInt ? "int" : "long") + "\n";
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag_forward(
    const Tensor& weight, const Tensor& indices_, const Tensor& offsets_, bool /*scale_grad_by_freq*/, int64_t mode,
    bool /*sparse*/, const std::optional<Tensor>& psw_opt, bool include_last_offset, int64_t padding_idx) {
  const Tensor psw = psw_opt && psw_opt->defined() ? psw_opt->contiguous() : Tensor();
  auto [indices, offsets] = promote_indices_offsets(indices_, offsets_);
  check_bag_arguments(weight, indices, offsets, mode, psw, include_last_offset);
  indices = indices.reshape({-1}).contiguous();
  offsets = offsets.contiguous();
  const int64_t noffsets = offsets.size(0), n = indices.size(0);
  const int64_t B = include_last_offset ? noffsets - 1 : noffsets, D = weight.size(1), V = weight.size(0);
  const auto iopts = offsets.options();
  Tensor output = at::empty({B, D}, weight.options());
  Tensor offset2bag = at::empty({n}, iopts);
  Tensor bag_size = at::zeros({B}, iopts);
  Tensor max_indices = mode == EmbeddingBagMode::MAX ? at::zeros({B, D}, iopts) : Tensor();
  const auto device = weight.device().index();
  check_dtype_supported(weight.scalar_type(), device);
  const auto wdtype = weight.scalar_type(), odtype = offsets.scalar_type();
  auto bag_kernel = [&](const char* name) -> CachedKernel& {
    return source_kernel(device, "embedding", name, kernel_variant({static_cast<int>(wdtype), static_cast<int>(odtype)}),
                         [&] { return bag_preamble(wdtype, odtype); });
  };
  if (n > 0 && B > 0) {
    Launch l(device, bag_kernel("embedding_bag_offset2bag"));
    l.input(offsets).value<int64_t>(B).value(n).tensor(offset2bag).run(static_cast<size_t>(n));
  } else if (n > 0) {
    offset2bag.zero_();
  }
  if (B > 0 && D > 0) {
    Launch l(device, bag_kernel("embedding_bag_forward"));
    l.input(weight).value(weight.stride(0)).value(weight.stride(1)).input(indices).input(offsets);
    if (psw.defined()) l.input(psw); else l.null_tensor();
    l.value<cl_int>(psw.defined()).value(B).value(D).value(n).value(V).value(noffsets).value(padding_idx);
    l.value<cl_int>(static_cast<cl_int>(mode)).tensor(output).tensor(bag_size);
    if (max_indices.defined()) l.tensor(max_indices); else l.null_tensor();
    check_arg(l, device, kEmbeddingBagCheck);
    l.run(static_cast<size_t>(B * D));
  } else {
    output.zero_();
  }
  if (!max_indices.defined()) max_indices = bag_size.clone();
  return {output, offset2bag, bag_size, max_indices};
}

Tensor embedding_bag_dense_backward(const Tensor& grad_, const Tensor& indices, const Tensor& offset2bag,
                                    const Tensor& bag_size, const Tensor& max_indices, int64_t num_weights,
                                    bool scale_grad_by_freq, int64_t mode, const std::optional<Tensor>& psw_opt,
                                    int64_t padding_idx) {
  const Tensor grad = grad_.contiguous();
  auto grad_arg = at::TensorArg(grad, "grad_", 1);
  at::checkScalarTypes("embedding_bag", grad_arg, {at::kHalf, at::kBFloat16, at::kFloat, at::kDouble});
  if (mode == EmbeddingBagMode::MAX) {
    Tensor grad_weight = at::zeros({num_weights, grad.size(1)}, grad.options());
    if (grad.numel() == 0) return grad_weight;
    // Empty bags (bag_size 0) have no maximum: their gradient is dropped.
    const Tensor g = at::where((bag_size != 0).unsqueeze(1), grad, at::scalar_tensor(0, grad.options()));
    return grad_weight.scatter_add_(0, max_indices.to(at::kLong), g);
  }
  TORCH_CHECK(mode == EmbeddingBagMode::MEAN || mode == EmbeddingBagMode::SUM);
  if (indices.numel() == 0) return at::zeros({num_weights, grad.size(1)}, grad.options());
  // Each index's gradient row: its bag's gradient times its scale.
  Tensor rows = grad.index_select(0, offset2bag);
  if (psw_opt && psw_opt->defined()) rows = rows * psw_opt->unsqueeze(1);
  if (mode == EmbeddingBagMode::MEAN) {
    const Tensor sizes = bag_size.index_select(0, offset2bag);
    const Tensor divisor = at::where(sizes == 0, at::scalar_tensor(1, sizes.options()), sizes);
    rows = (rows / divisor.unsqueeze(1)).to(grad.scalar_type());
  }
  return torch_ocl::embedding_dense_backward(rows, indices, num_weights, padding_idx, scale_grad_by_freq);
}

Tensor embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight, const Tensor& indices_,
                                                 const Tensor& offsets_, const Tensor& offset2bag, int64_t mode,
                                                 int64_t padding_idx) {
  TORCH_CHECK(mode == EmbeddingBagMode::SUM,
              "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  auto [indices, offsets] = promote_indices_offsets(indices_, offsets_);
  if (indices.numel() == 0) return at::zeros({0}, grad.options());
  // Products summed in float for half / bfloat16 (as the CPU): rounding each
  // product to the dtype first lost up to a unit in the last place per row.
  const auto acc = at::toOpMathType(grad.scalar_type());
  const Tensor dots =
      (grad.index_select(0, offset2bag).to(acc) * weight.index_select(0, indices).to(acc)).sum(1).to(grad.scalar_type());
  return at::where(indices != padding_idx, dots, at::scalar_tensor(0, dots.options()));
}

}  // namespace
}  // namespace torch_ocl

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace torch_ocl;
  ::torch_ocl::register_op<&embedding_dense_backward>(m, "embedding_dense_backward");
  ::torch_ocl::register_op<&embedding_renorm_>(m, "embedding_renorm_");
  ::torch_ocl::register_op<&embedding_bag_forward>(m, "_embedding_bag");
  ::torch_ocl::register_op<&embedding_bag_forward>(m, "_embedding_bag_forward_only");
  ::torch_ocl::register_op<&at::native::_embedding_bag_backward_symint>(m, "_embedding_bag_backward");
  ::torch_ocl::register_op<&embedding_bag_dense_backward>(m, "_embedding_bag_dense_backward");
  ::torch_ocl::register_op<&embedding_bag_per_sample_weights_backward>(m, "_embedding_bag_per_sample_weights_backward");
}
