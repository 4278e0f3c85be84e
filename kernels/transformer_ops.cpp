// The transformer fast path of nn.MultiheadAttention and
// nn.TransformerEncoderLayer in inference (`_native_multi_head_attention`,
// `_transformer_encoder_layer_fwd`), which PyTorch takes for PrivateUse1
// devices as for CPU and CUDA. Both are ATen's own device-generic
// compositions (dispatched matmul, bmm, layer_norm, _addmm_activation, ...);
// ocl supplies the two ops they need beyond those: `_transform_bias_rescale_qkv`
// and `_masked_softmax` (+ backward), composed here of ocl kernels.
// Nested-tensor inputs (padding masks turned into nested tensors by
// nn.TransformerEncoder) take the CPU fallback: ocl has no nested kernels.
#include <ATen/WrapDimUtils.h>
#include <ATen/OpMathType.h>
#include <ATen/ops/_native_multi_head_attention_native.h>
#include <ATen/ops/_softmax.h>
#include <ATen/ops/_transformer_encoder_layer_fwd_native.h>
#include <ATen/ops/masked_fill.h>
#include <ATen/ops/sum.h>

#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

#include "kernels/register_op.h"

namespace torch_ocl {
namespace {

// q, k, v of shape [B, num_heads, T, D / num_heads] from a [B, T, 3 D]
// projection: bias added, q scaled by 1 / sqrt(D / num_heads), computed in
// the op-math type (float for half types) and stored once, as CPU and CUDA do.
// The three are views of one [3 B, num_heads, T, dim] buffer, as there.
std::tuple<at::Tensor, at::Tensor, at::Tensor> transform_bias_rescale_qkv(const at::Tensor& qkv,
                                                                         const at::Tensor& qkv_bias,
                                                                         int64_t num_heads) {
  TORCH_CHECK(qkv.dim() == 3, "expected 3-D `qkv`, got ", qkv.dim(), "-D tensor");
  TORCH_CHECK(qkv_bias.dim() == 1 && qkv_bias.size(0) == qkv.size(2),
              "expected `qkv_bias` of shape [", qkv.size(2), "], got ", qkv_bias.sizes());
  const int64_t B = qkv.size(0), T = qkv.size(1), D3 = qkv.size(2), D = D3 / 3;
  TORCH_CHECK(num_heads > 0 && D % num_heads == 0);
  TORCH_CHECK(D3 % 3 == 0);
  const int64_t dim = D / num_heads;
  const auto acc = at::toOpMathType(qkv.scalar_type());
  at::Tensor q_k_v = (qkv.to(acc) + qkv_bias.to(acc))
                         .view({B, T, 3, num_heads, dim})
                         .permute({2, 0, 3, 1, 4})
                         .contiguous();
  if (q_k_v.numel() != 0) q_k_v[0].mul_(1.0 / std::sqrt(static_cast<double>(dim)));
  const at::Tensor stacked = q_k_v.to(qkv.scalar_type()).view({3 * B, num_heads, T, dim});
  return {stacked.narrow(0, 0, B), stacked.narrow(0, B, B), stacked.narrow(0, 2 * B, B)};
}

// The mask of _masked_softmax expanded to the input's shape. mask_type 0: an
// [L, L] attention mask of a [B, H, L, L] input; 1: a [B, L] padding mask;
// 2 (and any mask that is not 2-D of a 4-D input): the input's shape.
at::Tensor expand_softmax_mask(const at::Tensor& input, const at::Tensor& mask, std::optional<int64_t> mask_type) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "Mask should be a boolean tensor");
  int64_t type = mask_type.value_or(2);
  if (mask.dim() != 2 || input.dim() != 4) type = 2;
  switch (type) {
    case 0:
      TORCH_CHECK(input.size(2) == mask.size(0) && input.size(3) == mask.size(1) && mask.size(0) == mask.size(1),
                  "For mask_type == 0 mask shape should be (L, L)");
      return mask.view({1, 1, mask.size(0), mask.size(1)}).expand(input.sizes());
    case 1:
      TORCH_CHECK(input.size(0) == mask.size(0) && input.size(3) == mask.size(1),
                  "For mask_type == 1 mask shape should be (B, L)");
      return mask.view({mask.size(0), 1, 1, mask.size(1)}).expand(input.sizes());
    case 2:
      TORCH_CHECK(input.sizes() == mask.sizes(), "For mask_type == 2 mask shape should match input shape");
      return mask;
    default:
      TORCH_CHECK(false, "Unknown mask_type value");
  }
}

// softmax over the entries whose mask is false; masked entries are 0, and so
// is a row masked entirely (CUDA's result; the CPU's is NaN there, which
// PyTorch's tests leave unspecified).
at::Tensor masked_softmax(const at::Tensor& input, const at::Tensor& mask, std::optional<int64_t> dim,
                          std::optional<int64_t> mask_type) {
  const at::Tensor full_mask = expand_softmax_mask(input, mask, mask_type);
  const int64_t d = at::maybe_wrap_dim(dim.value_or(input.dim() - 1), input.dim());
  const at::Tensor filled = input.masked_fill(full_mask, -std::numeric_limits<double>::infinity());
  return at::_softmax(filled, d, false).masked_fill_(full_mask, 0);
}

// grad_input = output * (grad - sum(grad * output)), 0 where masked (in the
// op-math type).
at::Tensor masked_softmax_backward(const at::Tensor& grad, const at::Tensor& output, const at::Tensor& mask,
                                   std::optional<int64_t> dim) {
  TORCH_CHECK(grad.sizes() == mask.sizes(), "Mask shape should match grad shape");
  TORCH_CHECK(mask.scalar_type() == at::kBool, "Mask should be a boolean tensor");
  const int64_t d = at::maybe_wrap_dim(dim.value_or(grad.dim() - 1), grad.dim());
  const auto acc = at::toOpMathType(grad.scalar_type());
  const at::Tensor o = output.to(acc), go = grad.to(acc) * o;
  return (go - o * at::sum(go, {d}, true)).masked_fill_(mask, 0).to(grad.scalar_type());
}

}  // namespace
}  // namespace torch_ocl

OCL_NATIVE_FN("_transform_bias_rescale_qkv", &torch_ocl::transform_bias_rescale_qkv)
OCL_NATIVE_FN("_masked_softmax", &torch_ocl::masked_softmax)
OCL_NATIVE_FN("_masked_softmax_backward", &torch_ocl::masked_softmax_backward)
// ATen's compositions (named _cpu / no suffix there; they only call dispatched ops on dense inputs).
OCL_NATIVE_FN("_native_multi_head_attention", &at::native::native_multi_head_attention_cpu)
OCL_NATIVE_FN("_transformer_encoder_layer_fwd", &at::native::transformer_encoder_layer_forward)
