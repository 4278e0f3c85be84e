// _weight_norm_interface and its backward (nn.utils.weight_norm /
// parametrizations.weight_norm with dim 0 or the last dim: wav2vec2's
// positional convolution, WaveNet-style vocoders). ATen's _weight_norm picks
// this "fused" entry point on every device for those dims; here it is
// composed of native reductions and pointwise ops, with the CPU's and CUDA's
// formulas and dtypes (norms in float for half/bfloat16 weights):
//   norm_j = ||v_j||_2 over every dim but `dim`,   w = v * (g / norm)
//   backward: s_j = sum(grad_w * v) over the same dims,
//   grad_g = s / norm,   grad_v = (g / norm) * (grad_w - v * (s / norm^2)).
#include <ATen/ATen.h>
#include <ATen/OpMathType.h>
#include <torch/library.h>

#include <numeric>
#include <tuple>
#include <vector>

#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

using at::Tensor;

// Every dim of v but `dim` (dim is 0 or v.dim() - 1, as ATen's _weight_norm
// only calls the interface for those).
std::vector<int64_t> dims_except(const Tensor& v, int64_t dim) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < v.dim(); ++d)
    if (d != dim) dims.push_back(d);
  return dims;
}

void check_dim(const Tensor& v, int64_t dim) {
  TORCH_CHECK(dim == 0 || dim == v.dim() - 1, "fused kernels can only be applied for first or last dim");
}

at::ScalarType acc_type(const Tensor& v) { return at::toOpMathType(v.scalar_type()); }

std::tuple<Tensor, Tensor> weight_norm_interface(const Tensor& v, const Tensor& g, int64_t dim) {
  check_dim(v, dim);
  TORCH_CHECK(v.device() == g.device(), "weight_norm: v and g must be on the same device, got ", v.device(), " and ",
              g.device());
  const auto acc = acc_type(v);
  // keepdim norms have g's shape ([n, 1, ...] or [..., 1, n])
  const Tensor norms = at::linalg_vector_norm(v, 2, dims_except(v, dim), /*keepdim=*/true, acc);
  const Tensor w = v.to(acc).mul(g.to(acc).div(norms)).to(v.scalar_type());
  return {w, norms.reshape(g.sizes())};
}

std::tuple<Tensor, Tensor> weight_norm_interface_backward(const Tensor& grad_w, const Tensor& saved_v,
                                                          const Tensor& saved_g, const Tensor& saved_norms,
                                                          int64_t dim) {
  check_dim(saved_v, dim);
  TORCH_CHECK(saved_v.is_contiguous(), "saved_v must be contiguous");
  TORCH_CHECK(saved_g.is_contiguous(), "saved_g must be contiguous");
  TORCH_CHECK(saved_norms.is_contiguous(), "saved_norm must be contiguous");
  const auto acc = acc_type(saved_v);
  const Tensor v = saved_v.to(acc), gw = grad_w.to(acc), g = saved_g.to(acc);
  const Tensor norms = saved_norms.to(acc).reshape(g.sizes());
  const Tensor s = gw.mul(v).sum(dims_except(saved_v, dim), /*keepdim=*/true);
  const Tensor grad_g = s.div(norms);
  const Tensor grad_v = g.div(norms).mul(gw.sub(v.mul(s.div(norms.square()))));
  return {grad_v.to(saved_v.scalar_type()), grad_g.to(saved_g.scalar_type())};
}

}  // namespace
}  // namespace torch_ocl

OCL_NATIVE_FN("_weight_norm_interface", &torch_ocl::weight_norm_interface)
OCL_NATIVE_FN("_weight_norm_interface_backward", &torch_ocl::weight_norm_interface_backward)
