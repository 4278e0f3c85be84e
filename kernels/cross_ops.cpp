// linalg_cross on ocl: ATen's structured linalg_cross_out (shape checks,
// broadcasting, dim wrapping) behind cross_stub, whose kernel here is three
// native pointwise expressions over the broadcast inputs' components.
#include <ATen/native/Cross.h>
#include <ATen/ops/linalg_cross_native.h>
#include <ATen/ops/mul.h>
#include <torch/library.h>

#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

// result[.., i, ..] = a[j] * b[k] - a[k] * b[j] along `dim` (size 3), (i, j, k)
// the cyclic permutations of (0, 1, 2); a and b are broadcast to result's shape
// (ATen's meta refuses a result overlapping them).
void cross_kernel(const at::Tensor& result, const at::Tensor& a, const at::Tensor& b, int64_t dim) {
  // The CPU's and CUDA's kernels dispatch on all types but bool.
  TORCH_CHECK_NOT_IMPLEMENTED(result.scalar_type() != at::kBool, "\"cross\" not implemented for 'Bool'");
  for (int64_t i = 0; i < 3; ++i) {
    const int64_t j = (i + 1) % 3, k = (i + 2) % 3;
    at::Tensor out = result.select(dim, i);
    at::mul_out(out, a.select(dim, j), b.select(dim, k));
    out.sub_(at::mul(a.select(dim, k), b.select(dim, j)));
  }
}

}  // namespace
}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(cross_stub, &::torch_ocl::cross_kernel)
}

OCL_NATIVE_OP_C(structured_linalg_cross_out, "linalg_cross", nullptr, "linalg_cross.out")
