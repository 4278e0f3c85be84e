// GradScaler's ops on PrivateUse1 (torch.amp.GradScaler("ocl") calls them for
// every non-CPU device): _amp_foreach_non_finite_check_and_unscale_ and
// _amp_update_scale_. ATen's CPU entry points dispatch their stubs on the
// device type of found_inf / growth_tracker, so they are registered as they
// are and the stubs here are built from native ops: no kernel of their own,
// no host synchronisation (found_inf, the scale and the tracker stay on the
// device).
#include <ATen/native/AmpKernels.h>
#include <ATen/ops/_amp_foreach_non_finite_check_and_unscale_native.h>
#include <ATen/ops/_amp_update_scale_native.h>
#include <ATen/ops/maximum.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros_like.h>
#include <torch/library.h>

#include "kernels/register_op.h"

namespace torch_ocl {
namespace {

using at::Tensor;

void non_finite_check_and_unscale(at::TensorList scaled_grads, Tensor& found_inf, const Tensor& inv_scale) {
  TORCH_CHECK(inv_scale.numel() == 1, "inv_scale must be a 1-element tensor.");
  TORCH_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TORCH_CHECK(inv_scale.scalar_type() == at::ScalarType::Float, "inv_scale must be a float tensor.");
  TORCH_CHECK(found_inf.scalar_type() == at::ScalarType::Float, "found_inf must be a float tensor.");
  if (scaled_grads.empty()) return;
  for (const Tensor& g : scaled_grads) {
    TORCH_CHECK(g.device() == found_inf.device(), "one of scaled_grads was not on the same device as found_inf.");
    TORCH_CHECK(at::isFloatingType(g.scalar_type()), "scaled_grads must be floating point tensors.");
    if (g.numel() == 0) continue;
    // found_inf = max(found_inf, any(!isfinite(g))), then g *= inv_scale
    found_inf.copy_(at::maximum(found_inf, g.isfinite().logical_not().any().to(at::kFloat).reshape(found_inf.sizes())));
    g.mul_(inv_scale.to(g.device()).reshape({}));
  }
}

Tensor& update_scale(Tensor& current_scale, Tensor& growth_tracker, const Tensor& found_inf, double growth_factor,
                     double backoff_factor, int64_t growth_interval) {
  TORCH_CHECK(growth_tracker.numel() == 1, "growth_tracker must be a 1-element tensor.");
  TORCH_CHECK(current_scale.numel() == 1, "current_scale must be a 1-element tensor.");
  TORCH_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TORCH_CHECK(growth_tracker.scalar_type() == at::ScalarType::Int, "growth_tracker must be an int tensor.");
  TORCH_CHECK(current_scale.scalar_type() == at::ScalarType::Float, "current_scale must be a float tensor.");
  TORCH_CHECK(found_inf.scalar_type() == at::ScalarType::Float, "found_inf must be a float tensor.");
  // found_inf: scale *= backoff, tracker = 0. Else tracker + 1; reaching
  // growth_interval: scale *= growth (when that stays finite), tracker = 0.
  const Tensor found = found_inf.to(current_scale.device()).reshape(current_scale.sizes()).ne(0);
  const Tensor successful = growth_tracker.add(1);
  const Tensor grow = found.logical_not().logical_and(successful.eq(growth_interval));
  const Tensor grown = current_scale.mul(growth_factor);
  Tensor new_scale = at::where(found, current_scale.mul(backoff_factor),
                               at::where(grow.logical_and(grown.isfinite()), grown, current_scale));
  Tensor new_tracker = at::where(found.logical_or(grow), at::zeros_like(growth_tracker), successful);
  current_scale.copy_(new_scale);
  growth_tracker.copy_(new_tracker);
  return current_scale;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_op<&at::native::_amp_foreach_non_finite_check_and_unscale_cpu_>(m, "_amp_foreach_non_finite_check_and_unscale_");
  register_op<&at::native::_amp_update_scale_cpu_>(m, "_amp_update_scale_");
}

}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(_amp_foreach_non_finite_check_and_unscale_cpu_stub,
                              &torch_ocl::non_finite_check_and_unscale)
REGISTER_PRIVATEUSE1_DISPATCH(_amp_update_scale_cpu_stub, &torch_ocl::update_scale)
}  // namespace at::native
