// Weight-only quantized matrix products on PrivateUse1, as CUDA has them
// (the ops of LLM int8 / int4 weight quantization: gpt-fast, torchao):
//   _weight_int8pack_mm(a [M, K], b int8 [N, K], scales [N]) = a @ (b * scales[:, None])^T
//   _convert_weight_to_int4pack(w uint8 [N, K/2], inner_k_tiles) -> int32 [N/8, K/(tiles*16), 32, tiles/2]
//   _weight_int4pack_mm(a [M, K], packed, group, scales_and_zeros [K/group, N, 2])
//   _int_mm(a int8 [M, K], b int8 [K, N]) -> int32
// Kernels: kernels/quantized_mm.cl (the int4 layout is described there: ocl's
// own, inside CUDA's output shape, as the packed tensor is opaque). Checks and
// messages follow ATen's CPU/CUDA implementations. a may have any strides (the
// CPU kernel's "A must be contiguous on the last dimension" does not apply).
#include <ATen/ATen.h>
#include <torch/library.h>

#include "backend/kernel_launch.h"
#include "kernels/register_op.h"

namespace torch_ocl {
namespace {

using at::Tensor;

constexpr int64_t kKTileSize = 16, kNTileSize = 8;  // CUDA's tile sizes: they fix the packed shape

void check_float_activation(const Tensor& a, const char* op) {
  TORCH_CHECK(a.scalar_type() == at::kBFloat16 || a.scalar_type() == at::kHalf || a.scalar_type() == at::kFloat,
              op, " : expect A to be either 32-bit or 16-bit float tensor.");
  TORCH_CHECK(a.dim() == 2, op, " : expect A to be 2D tensor.");
}

Tensor weight_int8pack_mm(const Tensor& a, const Tensor& b, const Tensor& scales) {
  constexpr const char* op = "_weight_int8pack_mm";
  check_float_activation(a, op);
  TORCH_CHECK(b.dtype() == at::kChar, op, " : expect B to be int8 tensor.");
  TORCH_CHECK(b.dim() == 2, op, " : expect B to be 2D tensor.");
  TORCH_CHECK(b.size(1) == a.size(1), op, " : expect B.size(1) == ", a.size(1));
  TORCH_CHECK(scales.dim() == 1 && scales.size(0) == b.size(0), op, " : expect scales to be 1d tensor with size ",
              b.size(0));
  TORCH_CHECK(scales.scalar_type() == a.scalar_type(), op, " : expect scales to have the dtype of A (", a.scalar_type(),
              "), got ", scales.scalar_type());
  Tensor out = at::empty({a.size(0), b.size(0)}, a.options());
  if (out.numel() == 0) return out;
  const auto device = out.device().index();
  Launch l(device, dtype_kernel(device, "quantized_mm", "int8_mm", a.scalar_type()));
  l.input(a).value(a.stride(0)).value(a.stride(1));
  l.input(b).value(b.stride(0)).value(b.stride(1));
  l.input(scales).value(scales.stride(0));
  l.tensor(out).value(out.size(0)).value(out.size(1)).value(a.size(1));
  l.run(static_cast<size_t>(out.numel()));
  return out;
}

Tensor convert_weight_to_int4pack(const Tensor& w, int64_t inner_k_tiles) {
  constexpr const char* op = "_convert_weight_to_int4pack";
  TORCH_CHECK(w.dim() == 2, op, " : expect weight to be 2D tensor.");
  TORCH_CHECK(w.dtype() == at::kByte, op, " : expect weight to be kByte.");
  TORCH_CHECK(inner_k_tiles == 2 || inner_k_tiles == 4 || inner_k_tiles == 8, op,
              " : innerKTiles need to be 2, 4, or 8, got ", inner_k_tiles);
  const int64_t n = w.size(0), k = w.size(1) * 2;
  TORCH_CHECK(n % kNTileSize == 0, op, " : expect n to be divisible by ", kNTileSize, ", got ", n);
  TORCH_CHECK(k % (inner_k_tiles * kKTileSize) == 0, op, " : the weight's k (", k, ") must be divisible by ",
              inner_k_tiles * kKTileSize);
  Tensor out = at::empty({n / kNTileSize, k / (inner_k_tiles * kKTileSize), 32, inner_k_tiles / 2},
                         w.options().dtype(at::kInt));
  if (out.numel() == 0) return out;
  const auto device = out.device().index();
  Launch l(device, dtype_kernel(device, "quantized_mm", "int4_pack", at::kFloat));
  l.input(w).value(w.stride(0)).value(w.stride(1)).tensor(out).value(k).value(out.numel());
  l.run(static_cast<size_t>(out.numel()));
  return out;
}

Tensor weight_int4pack_mm(const Tensor& a, const Tensor& packed, int64_t group, const Tensor& scales_and_zeros) {
  constexpr const char* op = "_weight_int4pack_mm";
  check_float_activation(a, op);
  TORCH_CHECK(packed.dtype() == at::kInt && packed.dim() == 4, op,
              " : expect B to be the int32 4D tensor of _convert_weight_to_int4pack");
  TORCH_CHECK(group == 32 || group == 64 || group == 128 || group == 256, op,
              " : expect qGroupSize to be 32, 64, 128 or 256, got ", group);
  const int64_t m = a.size(0), k = a.size(1), n = packed.size(0) * kNTileSize;
  TORCH_CHECK(packed.size(1) * packed.size(3) * 2 * kKTileSize == k && packed.size(2) == 32, op,
              " : the packed weight's shape ", packed.sizes(), " does not match A's k (", k, ")");
  TORCH_CHECK(k % group == 0, op, " : k (", k, ") must be divisible by qGroupSize (", group, ")");
  TORCH_CHECK(scales_and_zeros.dim() == 3 && scales_and_zeros.size(0) == k / group &&
                  scales_and_zeros.size(1) == n && scales_and_zeros.size(2) == 2,
              op, " : expect qScaleAndZeros to be 3d tensor with sizes [", k / group, ", ", n, ", 2]");
  TORCH_CHECK(scales_and_zeros.scalar_type() == a.scalar_type(), op, " : expect qScaleAndZeros to have the dtype of A (",
              a.scalar_type(), "), got ", scales_and_zeros.scalar_type());
  Tensor out = at::empty({m, n}, a.options());
  if (out.numel() == 0) return out;
  const Tensor words = packed.contiguous();  // the layout is defined on the contiguous words
  const auto device = out.device().index();
  Launch l(device, dtype_kernel(device, "quantized_mm", "int4_mm", a.scalar_type()));
  l.input(a).value(a.stride(0)).value(a.stride(1)).input(words);
  l.input(scales_and_zeros).value(scales_and_zeros.stride(0)).value(scales_and_zeros.stride(1))
      .value(scales_and_zeros.stride(2));
  l.tensor(out).value(m).value(n).value(k).value(group);
  l.run(static_cast<size_t>(out.numel()));
  return out;
}

// int8 x int8 -> int32, exactly (products and sums fit int32 for K < 2^17; wider
// K wraps as the CPU's int32 accumulation does): the integer product kernel
// over int32 copies of the operands.
Tensor& int_mm_out(const Tensor& a, const Tensor& b, Tensor& out) {
  TORCH_CHECK(a.dim() == 2, "Expected self to be 2D, but got ", a.dim(), "D");
  TORCH_CHECK(b.dim() == 2, "Expected mat2 to be 2D, but got ", b.dim(), "D");
  TORCH_CHECK(a.size(1) == b.size(0), "self.size(1) needs to match mat2.size(0) but got ", a.size(1), " and ",
              b.size(0));
  TORCH_CHECK(a.dtype() == at::kChar, "Expected self dtype int8 but got ", a.dtype());
  TORCH_CHECK(b.dtype() == at::kChar, "Expected mat2 dtype int8 but got ", b.dtype());
  TORCH_CHECK(out.dtype() == at::kInt, "Expected result dtype int32 but got ", out.dtype());
  at::native::resize_output(out, {a.size(0), b.size(1)});
  return at::mm_out(out, a.to(at::kInt), b.to(at::kInt));
}

Tensor int_mm(const Tensor& a, const Tensor& b) {
  Tensor out = at::empty({0}, a.options().dtype(at::kInt));
  return int_mm_out(a, b, out);
}

}  // namespace
}  // namespace torch_ocl

OCL_NATIVE_FN("_weight_int8pack_mm", &torch_ocl::weight_int8pack_mm)
OCL_NATIVE_FN("_convert_weight_to_int4pack", &torch_ocl::convert_weight_to_int4pack)
OCL_NATIVE_FN("_weight_int4pack_mm", &torch_ocl::weight_int4pack_mm)
OCL_NATIVE_FN("_int_mm", &torch_ocl::int_mm)
OCL_NATIVE_FN("_int_mm.out", &torch_ocl::int_mm_out)
