// Fused optimizer steps on PrivateUse1 (torch.optim's fused=True):
// _fused_sgd_, _fused_adam_, _fused_adamw_, with a float or a tensor lr.
// One kernel launch per parameter tensor (kernels/optim.cl); the step count,
// grad_scale and found_inf stay on the device, so a step never synchronises.
// The list checks are the CPU's (aten/src/ATen/native/FusedSGD.cpp,
// FusedAdam.cpp), with its messages.
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "backend/device_profile.h"
#include "backend/kernel_launch.h"
#include "backend/runtime.h"
#include "kernels/register_op.h"

namespace torch_ocl {
namespace {

using at::Tensor;
using at::TensorList;
using OptTensor = std::optional<Tensor>;

// The compute type of `dtype`'s kernels: device scalars of this type (lr_t).
c10::ScalarType compute_dtype(c10::ScalarType dtype) { return dtype == c10::kDouble ? c10::kDouble : c10::kFloat; }

void check_fused_dtype(const char* name, const Tensor& t) {
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(t.scalar_type()) && has_kernels(t.scalar_type()), "\"", name,
                              "\" not implemented for '", c10::toString(t.scalar_type()), "'");
}

// A float32 device scalar (grad_scale, found_inf, step) on `device`.
Tensor device_float(const OptTensor& t, const c10::Device& device) {
  if (!t.has_value() || !t->defined()) return Tensor();
  return t->to(device, c10::kFloat).contiguous();
}

// The tensor to hand a kernel for state tensor `t`: itself when contiguous,
// else a contiguous copy that `write_back` copies into `t` afterwards.
struct Contig {
  Tensor orig, work;
  explicit Contig(const Tensor& t) : orig(t), work(t.defined() ? t.contiguous() : t) {}
  void write_back() {
    if (orig.defined() && !work.is_same(orig)) orig.copy_(work);
  }
};

// Elements per work item (PER_ITEM in kernels/optim.cl): 1 on GPUs, a
// contiguous run of 32 on CPU devices (measured with PoCL: 3-4x faster than
// one element per item).
int64_t per_item(c10::DeviceIndex device) { return device_profile(device).optim_per_item; }

// "#define NAME 0|1" lines: the kernels' compile-time options.
std::string flags(c10::DeviceIndex device, std::initializer_list<std::pair<const char*, bool>> options) {
  std::string s = "#define PER_ITEM " + std::to_string(per_item(device)) + "\n";
  for (const auto& [name, on] : options) s += std::string("#define ") + name + (on ? " 1\n" : " 0\n");
  return s;
}

// optim.cl's `kernel` for `dtype` with `options` (the same names on every
// call of a kernel): keyed by the dtype and the options' bits.
CachedKernel& optim_kernel(c10::DeviceIndex device, c10::ScalarType dtype, const char* kernel,
                           std::initializer_list<std::pair<const char*, bool>> options) {
  int bits = 0, i = 0;
  for (const auto& option : options) bits |= static_cast<int>(option.second) << i++;
  return source_kernel(device, "optim", kernel, kernel_variant({static_cast<int>(dtype), bits}),
                       [&] { return dtype_preamble(dtype) + flags(device, options); });
}

void check_same(const char* name, const Tensor& param, const Tensor& t) {
  TORCH_CHECK(t.device() == param.device() && t.scalar_type() == param.scalar_type() && t.sizes() == param.sizes(),
              name, ": every tensor must have the device, dtype and shape of its parameter; got ", t.device(), " ",
              t.scalar_type(), " ", t.sizes(), " for a parameter on ", param.device(), " ", param.scalar_type(), " ",
              param.sizes());
}

void fused_sgd(TensorList params, TensorList grads, TensorList momentum_buffer_list, double weight_decay,
               double momentum, double lr, const Tensor& lr_t, double dampening, bool nesterov, bool maximize,
               bool is_first_step, const OptTensor& grad_scale, const OptTensor& found_inf) {
  const size_t n_tensors = params.size();
  TORCH_CHECK(grads.size() == n_tensors);
  const bool no_momentum_buffer = momentum == 0.0;
  if (no_momentum_buffer) {
    TORCH_CHECK(momentum_buffer_list.empty());
  } else {
    TORCH_CHECK(momentum_buffer_list.size() == n_tensors);
  }
  for (size_t i = 0; i < n_tensors; ++i) {
    const Tensor& param = params[i];
    check_fused_dtype("fused_sgd_kernel", param);
    check_same("_fused_sgd_", param, grads[i]);
    if (!no_momentum_buffer) check_same("_fused_sgd_", param, momentum_buffer_list[i]);
    if (param.numel() == 0) continue;
    const auto dev = param.device();
    const auto ct = compute_dtype(param.scalar_type());
    const Tensor scale = device_float(grad_scale, dev), inf = device_float(found_inf, dev);
    const Tensor lr_dev = lr_t.defined() ? lr_t.to(dev, ct) : Tensor();
    Contig p(param), g(grads[i]), buf(no_momentum_buffer ? Tensor() : momentum_buffer_list[i]);
    check_dtype_supported(param.scalar_type(), dev.index());
    Launch l(dev.index(), optim_kernel(dev.index(), param.scalar_type(), "fused_sgd",
                                       {{"GRAD_SCALE", scale.defined()}, {"MAXIMIZE", maximize},
                                        {"WEIGHT_DECAY", weight_decay != 0}, {"MOMENTUM", momentum != 0},
                                        {"NESTEROV", nesterov}}));
    l.tensor(p.work).tensor(g.work);
    l.tensor(buf.work);
    l.input(lr_dev);
    l.input(scale);
    l.input(inf);
    l.scalar(weight_decay, ct).scalar(momentum, ct).scalar(lr, ct).scalar(1 - dampening, ct);
    l.value<int32_t>(is_first_step).value<int64_t>(param.numel());
    l.run_items((param.numel() + per_item(dev.index()) - 1) / per_item(dev.index()));
    p.write_back();
    if (scale.defined()) g.write_back();
    buf.write_back();
  }
}

void fused_sgd_float_lr(TensorList params, TensorList grads, TensorList bufs, double weight_decay, double momentum,
                        double lr, double dampening, bool nesterov, bool maximize, bool is_first_step,
                        const OptTensor& grad_scale, const OptTensor& found_inf) {
  fused_sgd(params, grads, bufs, weight_decay, momentum, lr, Tensor(), dampening, nesterov, maximize, is_first_step,
            grad_scale, found_inf);
}

// A tensor lr on the CPU is read once on the host (as the CPU and CUDA ops
// do); on the device, the kernel reads it.
void fused_sgd_tensor_lr(TensorList params, TensorList grads, TensorList bufs, double weight_decay, double momentum,
                         const Tensor& lr, double dampening, bool nesterov, bool maximize, bool is_first_step,
                         const OptTensor& grad_scale, const OptTensor& found_inf) {
  if (lr.device().is_cpu()) {
    fused_sgd(params, grads, bufs, weight_decay, momentum, lr.item<double>(), Tensor(), dampening, nesterov,
              maximize, is_first_step, grad_scale, found_inf);
  } else {
    fused_sgd(params, grads, bufs, weight_decay, momentum, 0.0, lr, dampening, nesterov, maximize, is_first_step,
              grad_scale, found_inf);
  }
}

void fused_adam(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                TensorList max_exp_avg_sqs, TensorList state_steps, double lr, const Tensor& lr_t, double beta1,
                double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                const OptTensor& grad_scale, const OptTensor& found_inf, bool adamw) {
  const char* name = adamw ? "_fused_adamw_" : "_fused_adam_";
  const size_t n_tensors = params.size();
  TORCH_CHECK(grads.size() == n_tensors);
  TORCH_CHECK(exp_avgs.size() == n_tensors);
  TORCH_CHECK(exp_avg_sqs.size() == n_tensors);
  if (amsgrad) {
    TORCH_CHECK(max_exp_avg_sqs.size() == n_tensors);
  } else {
    TORCH_CHECK(max_exp_avg_sqs.empty());
  }
  TORCH_CHECK(state_steps.size() == n_tensors);
  for (size_t i = 0; i < n_tensors; ++i) {
    const Tensor& param = params[i];
    check_fused_dtype("fused_adam_kernel", param);
    check_same(name, param, grads[i]);
    check_same(name, param, exp_avgs[i]);
    check_same(name, param, exp_avg_sqs[i]);
    if (amsgrad) check_same(name, param, max_exp_avg_sqs[i]);
    TORCH_CHECK(state_steps[i].numel() == 1, name, ": every state_step must have one element, got ",
                state_steps[i].sizes());
    if (param.numel() == 0) continue;
    const auto dev = param.device();
    const auto ct = compute_dtype(param.scalar_type());
    const Tensor scale = device_float(grad_scale, dev), inf = device_float(found_inf, dev);
    const Tensor step = device_float(state_steps[i], dev);
    const Tensor lr_dev = lr_t.defined() ? lr_t.to(dev, ct) : Tensor();
    Contig p(param), g(grads[i]), m(exp_avgs[i]), v(exp_avg_sqs[i]), vmax(amsgrad ? max_exp_avg_sqs[i] : Tensor());
    check_dtype_supported(param.scalar_type(), dev.index());
    Launch l(dev.index(), optim_kernel(dev.index(), param.scalar_type(), "fused_adam",
                                       {{"GRAD_SCALE", scale.defined()}, {"MAXIMIZE", maximize},
                                        {"WEIGHT_DECAY", weight_decay != 0}, {"AMSGRAD", amsgrad}, {"ADAMW", adamw}}));
    l.tensor(p.work).tensor(g.work).tensor(m.work).tensor(v.work);
    l.tensor(vmax.work);
    l.input(step);
    l.input(lr_dev);
    l.input(scale);
    l.input(inf);
    l.scalar(lr, ct).scalar(beta1, ct).scalar(beta2, ct).scalar(weight_decay, ct).scalar(eps, ct);
    l.value<int64_t>(param.numel());
    l.run_items((param.numel() + per_item(dev.index()) - 1) / per_item(dev.index()));
    p.write_back();
    if (scale.defined()) g.write_back();
    m.write_back();
    v.write_back();
    vmax.write_back();
  }
}

template <bool AdamW>
void fused_adam_float_lr(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                         TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1, double beta2,
                         double weight_decay, double eps, bool amsgrad, bool maximize, const OptTensor& grad_scale,
                         const OptTensor& found_inf) {
  fused_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, Tensor(), beta1, beta2,
             weight_decay, eps, amsgrad, maximize, grad_scale, found_inf, AdamW);
}

template <bool AdamW>
void fused_adam_tensor_lr(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                          TensorList max_exp_avg_sqs, TensorList state_steps, const Tensor& lr, double beta1,
                          double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                          const OptTensor& grad_scale, const OptTensor& found_inf) {
  const bool host_lr = lr.device().is_cpu();
  fused_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, host_lr ? lr.item<double>() : 0.0,
             host_lr ? Tensor() : lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf,
             AdamW);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_op<&fused_sgd_float_lr>(m, "_fused_sgd_");
  register_op<&fused_sgd_tensor_lr>(m, "_fused_sgd_.tensor_lr");
  register_op<&fused_adam_float_lr<false>>(m, "_fused_adam_");
  register_op<&fused_adam_tensor_lr<false>>(m, "_fused_adam_.tensor_lr");
  register_op<&fused_adam_float_lr<true>>(m, "_fused_adamw_");
  register_op<&fused_adam_tensor_lr<true>>(m, "_fused_adamw_.tensor_lr");
}

}  // namespace torch_ocl
