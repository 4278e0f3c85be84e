// torch._grouped_mm (the mixture-of-experts GEMM: transformers' Mixtral,
// torch.nn.functional.grouped_mm) on PrivateUse1, without a host sync.
// ATen's own checks and output (ATen/native/GroupedMMUtils.h: dtypes, dims,
// strides, offs int32, the output's padded strides), then one launch of
// kernels/grouped_mm.cl for the three layouts with offsets (3d x 2d as the
// transposed 2d x 3d), which reads offs
// on the device (ATen's CompositeExplicitAutograd _grouped_mm_fallback reads
// them to the host and runs one mm per group); 3d x 3d is at::bmm_out, as
// there. Rows / columns / K slices that offs do not cover are written as 0
// (the fallback leaves them uninitialised). The backward is PyTorch's formula
// (_grouped_mm on transposed views), which lands here again: the kernel takes
// any strides.
#include <ATen/ATen.h>
#include <ATen/native/GroupedMMUtils.h>
#include <torch/library.h>

#include <algorithm>
#include <optional>

#include "backend/kernel_launch.h"
#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

using at::Tensor;

enum GmmMode : cl_int { kGmmRows = 0, kGmmK = 2 };  // GMM_* in grouped_mm.cl

// Element strides (group, row, col) of a 2-d or 3-d operand; 0 for the group of a 2-d one.
struct GmmStrides {
  int64_t g, r, c;
};
GmmStrides gmm_strides(const Tensor& t) {
  return t.dim() == 3 ? GmmStrides{t.stride(0), t.stride(1), t.stride(2)} : GmmStrides{0, t.stride(0), t.stride(1)};
}

Tensor grouped_mm(const Tensor& mat_a, const Tensor& mat_b, const std::optional<Tensor>& offs,
                  const std::optional<Tensor>& bias, std::optional<at::ScalarType> out_dtype) {
  at::native::_grouped_mm_validate_inputs(mat_a, mat_b, offs, bias, out_dtype);
  const auto dtype = at::native::_resolve_grouped_mm_out_dtype(mat_a, mat_b, out_dtype);
  Tensor out = at::native::create_grouped_gemm_output_tensor(mat_a, mat_b, offs, dtype);
  const bool a2 = mat_a.dim() == 2, b2 = mat_b.dim() == 2;
  if (!a2 && !b2) return at::bmm_out(out, mat_a, mat_b);
  // The fallback's mm raises this for mixed dtypes (its message).
  TORCH_CHECK(mat_a.dtype() == mat_b.dtype(), "expected m1 and m2 to have the same dtype, but got: ", mat_a.dtype(),
              " != ", mat_b.dtype());
  if (out.numel() == 0) return out;
  // 3d x 2d (offs partition b's columns) runs as 2d x 3d of the transpose,
  // out^T = b^T a^T (offs partition its rows): the kernel groups rows only.
  const bool cols = !a2;
  const Tensor A = cols ? mat_b.transpose(-2, -1) : mat_a;
  const Tensor B = cols ? mat_a.transpose(-2, -1) : mat_b;
  const Tensor C = cols ? out.transpose(-2, -1) : out;
  const GmmMode mode = b2 && !cols ? kGmmK : kGmmRows;
  // C is [M, N] or [G, M, N]; K is the contraction length of the operands
  // (ATen does not check that a 2d x 2d pair agrees on it; the fallback's mm
  // raises only for offs past the shorter one, which would cost a sync to
  // check here: the kernel reads only the common part, never past either).
  const int64_t M = C.size(-2), N = C.size(-1), K = std::min(A.size(-1), B.size(-2));
  const int64_t groups_out = C.dim() == 3 ? C.size(0) : 1;
  const GmmStrides sa = gmm_strides(A), sb = gmm_strides(B), so = gmm_strides(C);
  const Tensor& o = *offs;
  const auto device = out.device().index();
  Launch l(device, dtype_kernel(device, "grouped_mm", "grouped_mm", dtype));
  l.input(A).value(sa.g).value(sa.r).value(sa.c);
  l.input(B).value(sb.g).value(sb.r).value(sb.c);
  l.input(o).value(o.stride(0)).value(o.size(0));
  l.tensor(C).value(so.g).value(so.r).value(so.c);
  constexpr int64_t kColumnsPerItem = 8;  // GMM_TJ in grouped_mm.cl
  const int64_t total = groups_out * M * ((N + kColumnsPerItem - 1) / kColumnsPerItem);
  l.value(M).value(N).value(K).value(total).value<cl_int>(mode);
  l.run(static_cast<size_t>(total));
  return out;
}

}  // namespace
}  // namespace torch_ocl

OCL_NATIVE_FN("_grouped_mm", &torch_ocl::grouped_mm)
