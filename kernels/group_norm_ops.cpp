// Group norm: ATen's native_group_norm / native_group_norm_backward (checks,
// outputs, empty inputs) with their GroupNormKernel stubs: statistics by the
// reduction engine, the rest by the pointwise engine (rows in
// kernels/norm.h). torch 2.13's impls require contiguous tensors off the CPU,
// so inputs are made contiguous and results take the input's memory format
// (channels_last in, channels_last out, as on the CPU).
#include <ATen/native/group_norm.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/native_group_norm_backward_native.h>
#include <ATen/ops/native_group_norm_native.h>
#include <ATen/ops/sum.h>

#include "kernels/norm.h"
#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

using at::Tensor;
using namespace norm;

// X, Y, dY, dX are contiguous (see group_norm / group_norm_backward below), so
// [N, C, *] views as [N, group, C / group, HxW].
void group_norm_kernel(const Tensor& X, const Tensor& gamma, const Tensor& beta, int64_t N, int64_t C,
                       int64_t HxW, int64_t group, double eps, Tensor& Y, Tensor& mean, Tensor& rstd) {
  check_floating("GroupNormKernelImpl", X);
  const int64_t D = C / group;
  const auto acc = acc_dtype(X.scalar_type());
  const Tensor x = X.view({N, group, D, HxW});
  Tensor m = at::empty({N, group, 1, 1}, X.options().dtype(acc)), r = at::empty_like(m);
  reduce(kMeanRstd, m, r, x, {eps});
  Tensor scale = at::empty({N, group, D, 1}, m.options()), shift = at::empty_like(scale);
  pointwise(kScaleShift, {scale, shift},
            {m, r, or_value(gamma.defined() ? gamma.view({1, group, D, 1}) : gamma, 1, m),
             or_value(beta.defined() ? beta.view({1, group, D, 1}) : beta, 0, m)},
            acc);
  pointwise(kScaleAdd, {Y.view({N, group, D, HxW})}, {x, scale, shift}, acc);
  mean.copy_(m.view({N, group}));
  rstd.copy_(r.view({N, group}));
}

void group_norm_backward_kernel(const Tensor& dY, const Tensor& X, const Tensor& mean, const Tensor& rstd,
                                const Tensor& gamma, int64_t N, int64_t C, int64_t HxW, int64_t group, Tensor& dX,
                                Tensor& dgamma, Tensor& dbeta) {
  check_floating("GroupNormBackwardKernelImpl", X);
  const int64_t D = C / group;
  const auto acc = acc_dtype(X.scalar_type());
  const Tensor dy = dY.view({N, group, D, HxW}), x = X.view({N, group, D, HxW});
  const Tensor m = mean.to(acc).view({N, group, 1, 1}), r = rstd.to(acc).view({N, group, 1, 1});
  // Per (sample, channel): ds = sum(dy * xhat), db = sum(dy).
  Tensor t = at::empty_like(dy, dy.options().dtype(acc));
  pointwise(kDyXhat, {t}, {dy, x, m, r}, acc);
  const Tensor ds = t.sum(3, true), db = at::sum(dy, {3}, true, acc);
  if (dgamma.defined()) dgamma.copy_(ds.sum(0).view({C}));
  if (dbeta.defined()) dbeta.copy_(db.sum(0).view({C}));
  if (!dX.defined()) return;
  // dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) over the group, g = dy * gamma:
  // dx = dy * (rstd * gamma) + x * B + Cc.
  const Tensor w = gamma.defined() ? gamma.to(acc).view({1, group, D, 1}) : Tensor();
  const double K = static_cast<double>(D * HxW);
  const Tensor sgx = (w.defined() ? ds * w : ds).sum(2, true) / K;
  const Tensor sg = (w.defined() ? db * w : db).sum(2, true) / K;
  const Tensor A = w.defined() ? r * w : r;
  const Tensor B = -(r * r) * sgx;
  const Tensor Cc = -(B * m) - r * sg;
  pointwise(kInputGrad, {dX.view({N, group, D, HxW})}, {dy, x, A, B, Cc}, acc);
}

std::tuple<Tensor, Tensor, Tensor> group_norm(const Tensor& X, const std::optional<Tensor>& gamma,
                                              const std::optional<Tensor>& beta, int64_t N, int64_t C, int64_t HxW,
                                              int64_t group, double eps) {
  auto [Y, mean, rstd] = at::native::native_group_norm(X.contiguous(), gamma, beta, N, C, HxW, group, eps);
  return {Y.contiguous(X.suggest_memory_format()), mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> group_norm_backward(const Tensor& dY, const Tensor& X, const Tensor& mean,
                                                       const Tensor& rstd, const std::optional<Tensor>& gamma,
                                                       int64_t N, int64_t C, int64_t HxW, int64_t group,
                                                       std::array<bool, 3> mask) {
  auto [dX, dgamma, dbeta] = at::native::native_group_norm_backward(
      dY.contiguous(), X.contiguous(), mean.contiguous(), rstd.contiguous(), gamma, N, C, HxW, group, mask);
  if (dX.defined()) dX = dX.contiguous(X.suggest_memory_format());
  return {dX, dgamma, dbeta};
}

}  // namespace
}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(GroupNormKernel, &torch_ocl::group_norm_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(GroupNormBackwardKernel, &torch_ocl::group_norm_backward_kernel)
}  // namespace at::native

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  torch_ocl::register_op<&torch_ocl::group_norm>(m, "native_group_norm");
  torch_ocl::register_op<&torch_ocl::group_norm_backward>(m, "native_group_norm_backward");
}
