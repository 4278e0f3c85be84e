// Normalization, forward and backward: layer norm and RMS norm
// (_fused_rms_norm; row kernels in kernels/norm.cl) and batch norm in all its ATen entry points (instance
// norm is ATen's composite over batch norm); group norm is in
// kernels/group_norm_ops.cpp. Batch statistics and every weight / bias
// gradient go through the reduction engine; the apply steps through the
// pointwise engine (rows in kernels/norm.h). As the
// CPU: statistics in float for half / bfloat16; saved statistics in the
// input's dtype, or float when half / bfloat16 inputs have float parameters.
#include <ATen/TensorIterator.h>
#include <ATen/native/cpu/mixed_data_type.h>
#include <ATen/native/layer_norm.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros_like.h>

#include <limits>

#include "backend/kernel_launch.h"
#include "backend/runtime.h"
#include "kernels/norm.h"
#include "kernels/op_table.h"

namespace torch_ocl {

using at::Tensor;

// ---- helpers shared with kernels/group_norm_ops.cpp (kernels/norm.h) ----
namespace norm {

c10::ScalarType acc_dtype(c10::ScalarType t) { return t == at::kDouble ? at::kDouble : at::kFloat; }

c10::ScalarType wide_dtype(const Tensor& like) {
  return device_info(like.device().index()).fp64 ? at::kDouble : acc_dtype(like.scalar_type());
}

void check_floating(const char* name, const Tensor& t) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(t.scalar_type()), "\"", name, "\" not implemented for '",
                              c10::toString(t.scalar_type()), "'");
}

Tensor or_value(const Tensor& t, double absent, const Tensor& like) {
  return t.defined() ? t : at::full({}, absent, like.options());
}

void pointwise(const PointwiseOp& op, std::initializer_list<Tensor> outs, std::initializer_list<Tensor> ins,
               c10::ScalarType compute, std::initializer_list<c10::Scalar> params) {
  at::TensorIteratorConfig config;
  config.set_check_mem_overlap(false).check_all_same_dtype(false).resize_outputs(false);
  for (const auto& o : outs) config.add_output(o);
  for (const auto& i : ins) config.add_const_input(i);
  auto iter = config.build();
  run_pointwise(iter, op, params, compute);
}

void reduce(const ReduceOp& op, const Tensor& out0, const Tensor& out1, const Tensor& in,
            std::initializer_list<c10::Scalar> params) {
  at::TensorIteratorConfig config;
  config.set_check_mem_overlap(false).add_output(out0);
  if (out1.defined()) config.add_output(out1);
  auto iter = config.add_const_input(in)
                  .resize_outputs(false)
                  .is_reduction(true)
                  .check_all_same_dtype(false)
                  .build();
  run_reduction(iter, op, params);
}

}  // namespace norm

namespace {

using namespace norm;

// `t` as a contiguous `dtype` tensor (undefined stays undefined).
Tensor as(const Tensor& t, c10::ScalarType dtype) { return t.defined() ? t.to(dtype).contiguous() : t; }

// A row kernel of kernels/norm.cl and which of its tensor arguments it
// writes (bit k: the k-th tensor).
struct RowKernel {
  const char* name;
  unsigned written;
};
// (X, Y, mean, rstd, weight, bias): writes Y, mean, rstd.
constexpr RowKernel k_row_forward{"row_norm_forward", 0b001110u};
// (dy, X, mean, rstd, weight, dX): writes dX.
constexpr RowKernel k_row_backward{"row_norm_backward", 0b100000u};

// One of kernels/norm.cl's row kernels over M rows of N (one work group each).
void launch_rows(const RowKernel& kernel, c10::ScalarType dtype, std::initializer_list<Tensor> tensors, int64_t M,
                 int64_t N, std::optional<double> eps, bool rms) {
  const auto device = tensors.begin()->device().index();
  check_dtype_supported(dtype, device);
  Launch l(device, dtype_kernel(device, "norm", kernel.name, dtype));
  const size_t local = l.pow2_work_group();
  unsigned k = 0;
  for (const auto& t : tensors) {
    if (!t.defined()) l.null_tensor();
    else if (kernel.written >> k & 1u) l.tensor(t);
    else l.input(t);
    ++k;
  }
  l.value<cl_long>(M).value<cl_long>(N);
  if (eps) {
    if (dtype == at::kDouble) l.value<cl_double>(*eps);
    else l.value<cl_float>(static_cast<float>(*eps));
  }
  l.value<cl_int>(rms).local_memory(local * 8).run(static_cast<size_t>(M) * local, local);
}

// The statistics' shape: the input's with the normalized dims 1.
std::vector<int64_t> stat_shape(const Tensor& input, size_t normalized_ndim) {
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  for (size_t d = shape.size() - normalized_ndim; d < shape.size(); ++d) shape[d] = 1;
  return shape;
}

// ---- layer norm ----
std::tuple<Tensor, Tensor, Tensor> layer_norm(const Tensor& input, at::IntArrayRef normalized_shape,
                                              const std::optional<Tensor>& weight_opt,
                                              const std::optional<Tensor>& bias_opt, double eps) {
  const Tensor weight = opt(weight_opt), bias = opt(bias_opt);
  const bool mixed = at::native::is_mixed_type(input, weight, bias);
  if (mixed) at::native::check_mixed_data_type(input, weight, bias);
  const auto [M, N] = at::native::_check_layer_norm_inputs(input, normalized_shape, weight, bias);
  check_floating("LayerNormKernelImpl", input);
  const Tensor X = input.contiguous();
  Tensor Y = at::empty_like(X, at::MemoryFormat::Contiguous);
  const auto acc = acc_dtype(input.scalar_type());
  Tensor mean = at::empty({M}, X.options().dtype(acc)), rstd = at::empty({M}, X.options().dtype(acc));
  if (M > 0 && N == 0) {
    mean.zero_();
    rstd.fill_(std::numeric_limits<double>::quiet_NaN());
  } else if (M > 0) {
    launch_rows(k_row_forward, input.scalar_type(), {X, Y, mean, rstd, as(weight, acc), as(bias, acc)}, M, N,
                eps, false);
  }
  // The statistics stay in the accumulation type (float for half /
  // bfloat16 input), as CUDA's and the meta function for non-CPU devices give
  // them (the CPU rounds them to the parameters' type).
  const auto shape = stat_shape(input, normalized_shape.size());
  return {std::move(Y), mean.view(shape), rstd.view(shape)};
}

// The weight gradient of layer / RMS norm (`mean` undefined): sum over rows
// of dy * (x - mean) * rstd.
Tensor row_weight_grad(const Tensor& dy, const Tensor& X, const Tensor& mean, const Tensor& rstd,
                       const Tensor& weight, int64_t M, int64_t N, c10::ScalarType acc) {
  if (M == 0) return at::zeros_like(weight, at::MemoryFormat::Contiguous);
  Tensor t = at::empty({M, N}, X.options().dtype(acc));
  const Tensor m = mean.defined() ? mean.view({M, 1}) : or_value(mean, 0, rstd);  // RMS norm: mean 0
  pointwise(kDyXhat, {t}, {dy.view({M, N}), X.view({M, N}), m, rstd.view({M, 1})}, acc);
  return t.sum(0).to(weight.scalar_type()).view(weight.sizes());
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& dY, const Tensor& input,
                                                       at::IntArrayRef normalized_shape, const Tensor& mean,
                                                       const Tensor& rstd, const std::optional<Tensor>& weight_opt,
                                                       const std::optional<Tensor>& bias_opt,
                                                       std::array<bool, 3> mask) {
  const Tensor weight = opt(weight_opt), bias = opt(bias_opt);
  const auto [M, N] = at::native::_check_layer_norm_inputs(input, normalized_shape, weight, bias);
  check_floating("LayerNormBackwardKernelImpl", input);
  const Tensor X = input.contiguous(), dy = dY.contiguous();
  const auto acc = acc_dtype(input.scalar_type());
  const Tensor mean_a = as(mean, acc), rstd_a = as(rstd, acc);
  Tensor dX, dgamma, dbeta;
  if (mask[0]) {
    dX = at::empty_like(X, at::MemoryFormat::Contiguous);
    if (M > 0 && N > 0)
      launch_rows(k_row_backward, input.scalar_type(), {dy, X, mean_a, rstd_a, as(weight, acc), dX}, M, N,
                  std::nullopt, false);
  }
  if (mask[1] && weight.defined()) dgamma = row_weight_grad(dy, X, mean_a, rstd_a, weight, M, N, acc);
  if (mask[2] && bias.defined()) {
    dbeta = M == 0 ? at::zeros_like(bias, at::MemoryFormat::Contiguous)
                   : at::sum(dy.view({M, N}), {0}, false, acc).to(bias.scalar_type()).view(bias.sizes());
  }
  return {std::move(dX), std::move(dgamma), std::move(dbeta)};
}

// ---- RMS norm: _fused_rms_norm, which rms_norm calls (rstd in float /
// double, keepdim-shaped, as rms_norm_composite) ----
std::pair<int64_t, int64_t> rms_rows(const Tensor& input, at::IntArrayRef normalized_shape, const Tensor& weight) {
  at::native::_check_rms_norm_inputs_symint(input, c10::fromIntArrayRefSlow(normalized_shape), weight);
  const int64_t N = c10::multiply_integers(normalized_shape);
  const int64_t M = c10::multiply_integers(input.sizes().begin(), input.sizes().end() - normalized_shape.size());
  return {M, N};
}

std::tuple<Tensor, Tensor> fused_rms_norm(const Tensor& input, at::IntArrayRef normalized_shape,
                                          const std::optional<Tensor>& weight_opt, std::optional<double> eps) {
  const Tensor weight = opt(weight_opt);
  const auto [M, N] = rms_rows(input, normalized_shape, weight);
  check_floating("rms_norm", input);
  const auto acc = acc_dtype(input.scalar_type());
  const double e = eps.value_or(acc == at::kDouble ? std::numeric_limits<double>::epsilon()
                                                   : std::numeric_limits<float>::epsilon());
  const Tensor X = input.contiguous();
  Tensor Y = at::empty_like(X, at::MemoryFormat::Contiguous);
  Tensor rstd = at::empty({M}, X.options().dtype(acc));
  if (M > 0 && N == 0) rstd.fill_(std::numeric_limits<double>::quiet_NaN());
  else if (M > 0)
    launch_rows(k_row_forward, input.scalar_type(), {X, Y, Tensor(), rstd, as(weight, acc), Tensor()}, M, N, e,
                true);
  return {std::move(Y), rstd.view(stat_shape(input, normalized_shape.size()))};
}

std::tuple<Tensor, Tensor> fused_rms_norm_backward(const Tensor& dY, const Tensor& input,
                                                   at::IntArrayRef normalized_shape, const Tensor& rstd,
                                                   const std::optional<Tensor>& weight_opt, std::array<bool, 2> mask) {
  const Tensor weight = opt(weight_opt);
  const auto [M, N] = rms_rows(input, normalized_shape, weight);
  check_floating("rms_norm", input);
  const auto acc = acc_dtype(input.scalar_type());
  const Tensor X = input.contiguous(), dy = dY.to(input.scalar_type()).contiguous(), rstd_a = as(rstd, acc);
  Tensor dX, dweight;
  if (mask[0]) {
    dX = at::empty_like(X, at::MemoryFormat::Contiguous);
    if (M > 0 && N > 0)
      launch_rows(k_row_backward, input.scalar_type(), {dy, X, Tensor(), rstd_a, as(weight, acc), dX}, M, N,
                  std::nullopt, true);
  }
  if (mask[1] && weight.defined()) dweight = row_weight_grad(dy, X, Tensor(), rstd_a, weight, M, N, acc);
  return {std::move(dX), std::move(dweight)};
}

// ---- batch norm ----
std::vector<int64_t> channel_shape(const Tensor& input) {
  std::vector<int64_t> shape(input.dim(), 1);
  shape[1] = input.size(1);
  return shape;
}
std::vector<int64_t> non_channel_dims(const Tensor& input) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  return dims;
}

// Batch statistics per channel (float / double): mean and m2; updates the
// running statistics (unbiased variance) when given.
std::pair<Tensor, Tensor> batch_stats(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                                      double momentum) {
  TORCH_CHECK(input.numel() != 0, "input tensor must have at least one element, but got input_sizes = ",
              input.sizes());
  const auto acc = acc_dtype(input.scalar_type());
  const int64_t C = input.size(1), n = input.numel() / C;
  // m2 stays wide (double where the device has fp64) for invstd and the running variance.
  Tensor mean = at::empty(channel_shape(input), input.options().dtype(acc)),
         m2 = at::empty(channel_shape(input), input.options().dtype(wide_dtype(input)));
  reduce(kMeanM2, mean, m2, input);
  mean = mean.view({C});
  m2 = m2.view({C});
  auto update = [&](const Tensor& running, const Tensor& stat, double divisor) {
    if (running.defined())
      pointwise(kRunningUpdate, {running}, {running, stat}, acc_dtype(running.scalar_type()), {momentum, divisor});
  };
  update(running_mean, mean, 1.0);
  update(running_var, m2, static_cast<double>(n - 1));
  return {mean, m2};
}

std::tuple<Tensor, Tensor, Tensor> batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                              const Tensor& running_mean, const Tensor& running_var, bool train,
                                              double momentum, double eps) {
  const bool mixed = at::native::is_mixed_type(input, weight, bias, running_mean, running_var);
  if (mixed) at::native::check_mixed_data_type(input, weight, bias, running_mean, running_var);
  check_floating("batch_norm", input);
  const int64_t C = input.size(1);
  // The saved statistics are [C] in the accumulation type in both modes (in
  // evaluation: the running mean and 1 / sqrt(running_var + eps)), as CUDA
  // and the decomposition for non-CPU devices give them; the CPU rounds them to
  // the parameters' type and saves [0] tensors in evaluation.
  const auto acc = acc_dtype(input.scalar_type());
  Tensor mean, invstd;
  if (train) {
    auto [m, m2] = batch_stats(input, running_mean, running_var, momentum);
    Tensor inv = at::empty_like(m2);
    pointwise(kInvStd, {inv}, {m2}, m2.scalar_type(), {eps, static_cast<double>(input.numel() / C)});
    mean = m.to(acc);
    invstd = inv.to(acc);
  } else {
    TORCH_CHECK(running_mean.defined() && running_var.defined(),
                "batch_norm: running_mean and running_var must be defined in evaluation mode");
    mean = running_mean.to(acc, /*non_blocking=*/false, /*copy=*/true);
    invstd = at::empty({C}, input.options().dtype(acc));
    pointwise(kRsqrtEps, {invstd}, {running_var}, acc, {eps});
  }
  Tensor save_mean = mean, save_invstd = invstd;
  Tensor output = at::empty_like(input, input.suggest_memory_format());
  if (input.numel() > 0) {
    Tensor scale = at::empty({C}, input.options().dtype(acc)), shift = at::empty_like(scale);
    pointwise(kScaleShift, {scale, shift}, {mean, invstd, or_value(weight, 1, scale), or_value(bias, 0, scale)}, acc);
    const auto shape = channel_shape(input);
    pointwise(kScaleAdd, {output}, {input, scale.view(shape), shift.view(shape)}, acc);
  }
  return {std::move(output), std::move(save_mean), std::move(save_invstd)};
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       const Tensor& weight, const Tensor& running_mean,
                                                       const Tensor& running_var, const Tensor& save_mean,
                                                       const Tensor& save_invstd, bool train, double eps,
                                                       std::array<bool, 3> mask) {
  const bool mixed = at::native::is_mixed_type(input, weight, running_mean, running_var, save_mean, save_invstd);
  if (mixed) at::native::check_mixed_data_type(input, weight, running_mean, running_var, save_mean, save_invstd);
  check_floating("batch_norm_backward_cpu", input);
  const int64_t C = input.size(1);
  const auto acc = acc_dtype(input.scalar_type()), stat = at::native::param_scalar_type(input, mixed);
  const auto options = input.options().dtype(acc);
  const auto shape = channel_shape(input), dims = non_channel_dims(input);
  const double n = static_cast<double>(input.numel() / std::max<int64_t>(C, 1));
  Tensor mean, invstd;
  if (train) {
    mean = save_mean.to(acc);
    invstd = save_invstd.to(acc);
  } else {
    TORCH_CHECK(running_mean.defined() && running_var.defined(),
                "batch_norm_backward: running_mean and running_var must be defined in evaluation mode");
    mean = running_mean.to(acc);
    invstd = at::empty({C}, options);
    pointwise(kRsqrtEps, {invstd}, {running_var}, acc, {eps});
  }
  const Tensor w = weight.defined() ? weight.to(acc) : at::ones({C}, options);
  // Per channel: sum(dy * (x - mean)) * invstd (= the weight gradient; the
  // sum and its product in wide_dtype, as the CPU) and sum(dy).
  Tensor dot_invstd, sum_dy;
  if (mask[1] || (mask[0] && train)) {
    Tensor t = at::empty_like(input, options, input.suggest_memory_format());
    pointwise(kDyXc, {t}, {grad_out, input, mean.view(shape)}, acc);
    Tensor dot = at::empty(shape, options.dtype(wide_dtype(input)));
    reduce(kSumStat, dot, Tensor(), t);
    dot_invstd = dot.view({C}) * invstd;
  }
  if (mask[2] || (mask[0] && train)) sum_dy = at::sum(grad_out, dims, false, acc);
  Tensor grad_input, grad_weight, grad_bias;
  if (mask[0]) {
    grad_input = at::empty_like(input, input.suggest_memory_format());
    const Tensor scale = invstd * w;
    if (train) {
      // dx = (dy - sum_dy / n - (x - mean) * k) * invstd * w, k = dot * invstd^2 / n
      const Tensor k = dot_invstd * invstd / n;
      const Tensor B = -(k * scale);
      const Tensor Cc = (mean * k - sum_dy / n) * scale;
      pointwise(kInputGrad, {grad_input}, {grad_out, input, scale.view(shape), B.view(shape), Cc.view(shape)}, acc);
    } else {
      pointwise(kScaleAdd, {grad_input}, {grad_out, scale.view(shape), or_value(Tensor(), 0, scale)}, acc);
    }
  }
  if (mask[1]) grad_weight = dot_invstd.to(stat);
  if (mask[2]) grad_bias = sum_dy.to(stat);
  return {std::move(grad_input), std::move(grad_weight), std::move(grad_bias)};
}

// ---- the ATen entry points of batch norm ----
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool train,
                                                     double momentum, double eps) {
  return batch_norm(input, opt(weight), opt(bias), opt(running_mean), opt(running_var), train, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> batch_norm_legit(const Tensor& input, const std::optional<Tensor>& weight,
                                                    const std::optional<Tensor>& bias, Tensor& running_mean,
                                                    Tensor& running_var, bool train, double momentum, double eps) {
  return batch_norm(input, opt(weight), opt(bias), running_mean, running_var, train, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> batch_norm_legit_no_stats(const Tensor& input,
                                                             const std::optional<Tensor>& weight,
                                                             const std::optional<Tensor>& bias, bool train,
                                                             double momentum, double eps) {
  return batch_norm(input, opt(weight), opt(bias), Tensor(), Tensor(), train, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor, Tensor> batch_norm_with_update(const Tensor& input,
                                                                  const std::optional<Tensor>& weight,
                                                                  const std::optional<Tensor>& bias,
                                                                  Tensor& running_mean, Tensor& running_var,
                                                                  double momentum, double eps) {
  auto [out, mean, invstd] = batch_norm(input, opt(weight), opt(bias), running_mean, running_var, true, momentum, eps);
  return {out, mean, invstd, at::empty({0}, input.options().dtype(at::kByte))};
}
std::tuple<Tensor, Tensor, Tensor, Tensor> batch_norm_no_update(const Tensor& input,
                                                                const std::optional<Tensor>& weight,
                                                                const std::optional<Tensor>& bias,
                                                                const std::optional<Tensor>& running_mean,
                                                                const std::optional<Tensor>& running_var,
                                                                double momentum, double eps) {
  auto [out, mean, invstd] =
      batch_norm(input, opt(weight), opt(bias), opt(running_mean), opt(running_var), false, momentum, eps);
  return {out, mean, invstd, at::empty({0}, input.options().dtype(at::kByte))};
}
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> mask) {
  return batch_norm_backward(grad_out, input, opt(weight), opt(running_mean), opt(running_var), opt(save_mean),
                             opt(save_invstd), train, eps, mask);
}
std::tuple<Tensor, Tensor, Tensor> new_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& running_mean,
    const std::optional<Tensor>& running_var, const std::optional<Tensor>& save_mean,
    const std::optional<Tensor>& save_var, bool update, double eps, std::array<bool, 3> mask, const Tensor&) {
  return batch_norm_backward(grad_out, input, weight, opt(running_mean), opt(running_var), opt(save_mean),
                             opt(save_var), update, eps, mask);
}
// out= variants (CUDA's batch_norm_cuda_out): the functional's results
// resized into and copied to the given tensors, so both agree (a CPU
// fallback would give the CPU's [0] evaluation statistics).
std::tuple<Tensor&, Tensor&, Tensor&> write_outs(const std::tuple<Tensor, Tensor, Tensor>& r, Tensor& out,
                                                 Tensor& save_mean, Tensor& save_invstd) {
  const Tensor* values[] = {&std::get<0>(r), &std::get<1>(r), &std::get<2>(r)};
  Tensor* outs[] = {&out, &save_mean, &save_invstd};
  for (int i = 0; i < 3; ++i) {
    TORCH_CHECK(c10::canCast(values[i]->scalar_type(), outs[i]->scalar_type()), "result type ",
                values[i]->scalar_type(), " can't be cast to the desired output type ", outs[i]->scalar_type());
    at::native::resize_output(*outs[i], values[i]->sizes());
    outs[i]->copy_(*values[i]);
  }
  return {out, save_mean, save_invstd};
}
std::tuple<Tensor&, Tensor&, Tensor&> native_batch_norm_out(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool train, double momentum,
    double eps, Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  return write_outs(torch_ocl::native_batch_norm(input, weight, bias, running_mean, running_var, train, momentum, eps), out,
                    save_mean, save_invstd);
}
std::tuple<Tensor&, Tensor&, Tensor&> batch_norm_legit_out(const Tensor& input, const std::optional<Tensor>& weight,
                                                           const std::optional<Tensor>& bias, Tensor& running_mean,
                                                           Tensor& running_var, bool train, double momentum,
                                                           double eps, Tensor& out, Tensor& save_mean,
                                                           Tensor& save_invstd) {
  return write_outs(batch_norm_legit(input, weight, bias, running_mean, running_var, train, momentum, eps), out,
                    save_mean, save_invstd);
}
std::tuple<Tensor&, Tensor&, Tensor&> batch_norm_legit_no_stats_out(const Tensor& input,
                                                                    const std::optional<Tensor>& weight,
                                                                    const std::optional<Tensor>& bias, bool train,
                                                                    double momentum, double eps, Tensor& out,
                                                                    Tensor& save_mean, Tensor& save_invstd) {
  return write_outs(batch_norm_legit_no_stats(input, weight, bias, train, momentum, eps), out, save_mean,
                    save_invstd);
}
// The batch's mean and (biased) variance; updates the running statistics.
std::tuple<Tensor, Tensor> batch_norm_update_stats(const Tensor& input, const std::optional<Tensor>& running_mean,
                                                   const std::optional<Tensor>& running_var, double momentum) {
  const Tensor rm = opt(running_mean), rv = opt(running_var);
  const bool mixed = at::native::is_mixed_type(input, rm, rv);
  if (mixed) at::native::check_mixed_data_type(input, rm, rv);
  check_floating("batch_norm_update_stats_cpu", input);
  const auto stat = at::native::param_scalar_type(input, mixed);
  auto [mean, m2] = batch_stats(input, rm, rv, momentum);
  return {mean.to(stat), (m2 / static_cast<double>(input.numel() / input.size(1))).to(stat)};
}

}  // namespace
}  // namespace torch_ocl

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace torch_ocl;
  register_op<&layer_norm>(m, "native_layer_norm");
  register_op<&layer_norm_backward>(m, "native_layer_norm_backward");
  register_op<&fused_rms_norm>(m, "_fused_rms_norm");
  register_op<&fused_rms_norm_backward>(m, "_fused_rms_norm_backward");
  register_op<&native_batch_norm>(m, "native_batch_norm");
  register_op<&native_batch_norm_backward>(m, "native_batch_norm_backward");
  register_op<&batch_norm_legit>(m, "_native_batch_norm_legit");
  register_op<&batch_norm_legit_no_stats>(m, "_native_batch_norm_legit.no_stats");
  register_op<&native_batch_norm_out>(m, "native_batch_norm.out");
  register_op<&batch_norm_legit_out>(m, "_native_batch_norm_legit.out");
  register_op<&batch_norm_legit_no_stats_out>(m, "_native_batch_norm_legit.no_stats_out");
  register_op<&batch_norm_with_update>(m, "_batch_norm_with_update");
  register_op<&batch_norm_no_update>(m, "_batch_norm_no_update");
  register_op<&new_batch_norm_backward>(m, "batch_norm_backward");
  register_op<&batch_norm_update_stats>(m, "batch_norm_update_stats");
}
