// Loss functions on PrivateUse1.
// - mse / smooth_l1 / huber: ATen's impls are generic (structured or plain
//   natives that call a DispatchStub): table rows for the stubs, ATen's impls
//   registered as they are; the reductions are ATen's mean/sum (native).
// - nll_loss (1-d/2-d input) and nll_loss2d: ATen's meta (nll_loss) or the
//   CPU's checks (nll_loss2d) + kernels/loss.cl; a target out of range is
//   reported by the device-side flag (IndexError "Target t is out of bounds.")
// - multi_margin_loss / multilabel_margin_loss (+ backward): ATen's shape
//   checks (ATen/native/LossMulti.h) + kernels/loss.cl, one work item per row;
//   a target out of range is reported by the device-side flag (RuntimeError,
//   the CPU's message). float32/float64 only, as the CPU.
// - binary_cross_entropy: kernels/loss.cl (it checks 0 <= input <= 1 on the
//   device), its backward a table row; weights and reductions are ATen ops.
// Composites that need nothing here: cross_entropy (incl. probabilities and
// label smoothing), nll_loss_nd, l1_loss, kl_div, soft_margin_loss,
// binary_cross_entropy_with_logits, poisson/gaussian nll, hinge, margin
// ranking, cosine embedding, triplet margin.
#include <ATen/core/Reduction.h>
#include <ATen/TensorUtils.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/native/LossMulti.h>
#include <ATen/native/PointwiseOps.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/huber_loss_backward_native.h>
#include <ATen/ops/huber_loss_native.h>
#include <ATen/ops/mse_loss_backward_native.h>
#include <ATen/ops/mse_loss_native.h>
#include <ATen/ops/nll_loss_backward_meta.h>
#include <ATen/ops/nll_loss_forward_meta.h>
#include <ATen/ops/smooth_l1_loss_backward_native.h>
#include <ATen/ops/smooth_l1_loss_native.h>
#include <ATen/ops/squeeze.h>
#include <functional>

#include "kernels/register_op.h"
#include "backend/device_checks.h"
#include "backend/program_cache.h"
#include "kernels/op_table.h"

using namespace torch_ocl;
using at::Tensor;

// ---- pointwise losses: table rows for ATen's stubs ----
// mse(input, target); mse_backward(input, target, grad; p0 = norm)
OCL_POINTWISE_STUB(mse, mse_stub, .expr = "(a - b) * (a - b)", .ninputs = 2, .dtypes = kFloating)
OCL_NATIVE_OP(structured_mse_loss_out, "mse_loss", nullptr, "mse_loss.out")
OCL_POINTWISE_STUB(mse_backward, mse_backward_stub, .expr = "p0 * (a - b) * c", .ninputs = 3, .dtypes = kFloating,
                   .params = "T")
OCL_NATIVE_FN("mse_loss_backward", &at::native::mse_loss_backward)
OCL_NATIVE_FN("mse_loss_backward.grad_input", &at::native::mse_loss_backward_out)
// smooth_l1(input, target; p0 = beta); backward(input, target, grad; p0 = norm, p1 = beta)
OCL_POINTWISE_STUB(smooth_l1, smooth_l1_stub,
                   .expr = "fabs(a - b) < p0 ? (T)0.5 * (a - b) * (a - b) / p0 : fabs(a - b) - (T)0.5 * p0",
                   .ninputs = 2, .dtypes = kFloating, .params = "T")
OCL_NATIVE_OP(structured_smooth_l1_loss_out, "smooth_l1_loss", nullptr, "smooth_l1_loss.out")
OCL_POINTWISE_STUB(smooth_l1_backward, smooth_l1_backward_stub,
                   .expr = "(a - b) <= -p1 ? -p0 * c : ((a - b) >= p1 ? p0 * c : p0 * (a - b) * c / p1)",
                   .ninputs = 3, .dtypes = kFloating, .params = "TT")
OCL_NATIVE_FN("smooth_l1_loss_backward.grad_input", &at::native::smooth_l1_loss_backward_out)
// huber(input, target; p0 = delta); backward(input, target, grad; p0 = norm, p1 = delta)
OCL_POINTWISE_STUB(huber, huber_stub,
                   .expr = "fabs(a - b) < p0 ? (T)0.5 * (a - b) * (a - b) : p0 * (fabs(a - b) - (T)0.5 * p0)",
                   .ninputs = 2, .dtypes = kFloating, .params = "T")
OCL_NATIVE_FN("huber_loss", &at::native::huber_loss)
OCL_NATIVE_FN("huber_loss.out", &at::native::huber_loss_out)
OCL_POINTWISE_STUB(huber_backward, huber_backward_stub,
                   .expr = "(a - b) <= -p1 ? -p0 * c * p1 : ((a - b) >= p1 ? p0 * c * p1 : p0 * (a - b) * c)",
                   .ninputs = 3, .dtypes = kFloating, .params = "TT")
OCL_NATIVE_FN("huber_loss_backward.out", &at::native::huber_loss_backward_out)

namespace {

using at::Reduction::Mean;
using at::Reduction::None;

const int kNllCheck = register_device_check("nll_loss", DeviceCheckKind::kIndexError, "Target {index} is out of bounds.");
const int kBceCheck = register_device_check("binary_cross_entropy", DeviceCheckKind::kRuntimeError,
                                            "all elements of input should be between 0 and 1");

// The CPU's AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16, ...) error.
void check_floating(c10::ScalarType dtype, const char* name) {
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(dtype) && has_kernels(dtype), "\"", name,
                              "\" not implemented for '", c10::toString(dtype), "'");
}
// The CPU's data_ptr<scalar_t>() / accessor error for an operand of another dtype.
void check_scalar_type(const Tensor& t, c10::ScalarType expected) {
  TORCH_CHECK(!t.defined() || t.scalar_type() == expected, "expected scalar type ", expected, " but found ",
              t.scalar_type());
}

std::string loss_preamble(c10::ScalarType dtype, c10::ScalarType target = c10::kLong) {
  return dtype_preamble(dtype) + kernel_source("device_checks") + "#define TGT " +
         (target == c10::kByte ? "uchar" : "long") + "\n";
}

int reduction_mode(int64_t reduction) { return reduction == None ? 0 : (reduction == Mean ? 1 : 2); }

// x: the input as [N, C, S]; target: N * S class indices (Long or Byte).
void nll_forward_launch(const Tensor& x, const Tensor& target, const Tensor& weight, int64_t reduction,
                        int64_t ignore_index, const Tensor& output, const Tensor& total_weight) {
  const auto dtype = x.scalar_type();
  const auto device = x.device().index();
  check_dtype_supported(dtype, device);
  const int mode = reduction_mode(reduction);
  const Tensor t = target.contiguous();
  const Tensor w = weight.defined() ? weight.contiguous() : Tensor();
  const bool direct = mode != 0 || output.is_contiguous();
  const Tensor out = direct ? output : at::empty(output.sizes(), output.options());
  const int64_t N = x.size(0), C = x.size(1), S = x.size(2);
  Launch l(device, source_kernel(device, "loss", "nll_forward", kernel_variant({static_cast<int>(dtype), static_cast<int>(t.scalar_type())}),
                                 [&] { return loss_preamble(dtype, t.scalar_type()); }));
  l.input(x).value(x.stride(0)).value(x.stride(1)).value(x.stride(2)).input(t);
  if (w.defined()) l.input(w); else l.null_tensor();
  l.value<cl_int>(w.defined()).value(N).value(C).value(S).value(ignore_index).value<cl_int>(mode);
  l.tensor(out).tensor(total_weight);
  check_arg(l, device, kNllCheck);
  if (mode == 0) {
    l.local_memory(8).run(static_cast<size_t>(std::max<int64_t>(N * S, 1)));
  } else {
    const size_t local = l.pow2_work_group();
    l.local_memory(2 * local * sizeof(double)).run(local, local);
  }
  if (!direct) output.copy_(out);
}

// grad_input (zeroed here) and x as [N, C, S].
void nll_backward_launch(const Tensor& grad_input, const Tensor& grad_output, const Tensor& target,
                         const Tensor& weight, int64_t reduction, int64_t ignore_index,
                         const Tensor& total_weight) {
  const auto dtype = grad_input.scalar_type();
  const auto device = grad_input.device().index();
  check_dtype_supported(dtype, device);
  grad_input.zero_();
  const int64_t N = grad_input.size(0), C = grad_input.size(1), S = grad_input.size(2);
  if (N * S == 0) return;
  const int mode = reduction_mode(reduction);
  const Tensor t = target.contiguous();
  const Tensor w = weight.defined() ? weight.contiguous() : Tensor();
  const Tensor go = mode == 0 ? grad_output.contiguous() : grad_output;
  Launch l(device, source_kernel(device, "loss", "nll_backward", kernel_variant({static_cast<int>(dtype), static_cast<int>(t.scalar_type())}),
                                 [&] { return loss_preamble(dtype, t.scalar_type()); }));
  l.tensor(grad_input).value(grad_input.stride(0)).value(grad_input.stride(1)).value(grad_input.stride(2)).input(t);
  if (w.defined()) l.input(w); else l.null_tensor();
  l.value<cl_int>(w.defined()).input(go).value<int64_t>(mode == 0 ? 1 : 0).input(total_weight);
  l.value(N).value(C).value(S).value(ignore_index).value<cl_int>(mode);
  check_arg(l, device, kNllCheck);
  l.run(static_cast<size_t>(N * S));
}

// nll_loss's input (1-d: [C], 2-d: [N, C]) as [N, C, 1] (a view).
Tensor nll_input_3d(const Tensor& self) {
  return self.dim() == 1 ? self.unsqueeze(0).unsqueeze(2) : self.unsqueeze(2);
}

void nll_forward_impl(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                      int64_t reduction, int64_t ignore_index, const Tensor& output, const Tensor& total_weight) {
  check_floating(self.scalar_type(), "nll_loss_out_frame");
  if (weight && weight->defined()) check_scalar_type(*weight, self.scalar_type());
  nll_forward_launch(nll_input_3d(self), target, weight ? *weight : Tensor(), reduction, ignore_index, output,
                     total_weight);
}

std::tuple<Tensor, Tensor> nll_loss_forward(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction,
                                            int64_t ignore_index) {
  OclStructured<at::meta::structured_nll_loss_forward> op(Variant::Functional);
  op.meta(self, target, to_meta_arg(weight), reduction, ignore_index);
  nll_forward_impl(self, target, weight, reduction, ignore_index, op.outputs[0], op.outputs[1]);
  return {std::move(op.outputs[0]), std::move(op.outputs[1])};
}

std::tuple<Tensor&, Tensor&> nll_loss_forward_out(const Tensor& self, const Tensor& target,
                                                  const std::optional<Tensor>& weight, int64_t reduction,
                                                  int64_t ignore_index, Tensor& output, Tensor& total_weight) {
  OclStructured<at::meta::structured_nll_loss_forward> op(Variant::Out, output);
  op.outputs[1] = total_weight;
  op.meta(self, target, to_meta_arg(weight), reduction, ignore_index);
  nll_forward_impl(self, target, weight, reduction, ignore_index, op.outputs[0], op.outputs[1]);
  return {output, total_weight};
}

void nll_backward_impl(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                       const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                       const Tensor& total_weight, const Tensor& grad_input) {
  check_floating(self.scalar_type(), "nll_loss_backward_out_frame");
  if (target.scalar_type() != c10::kByte) check_scalar_type(target, c10::kLong);
  if (weight && weight->defined()) check_scalar_type(*weight, self.scalar_type());
  check_scalar_type(grad_output, self.scalar_type());
  check_scalar_type(total_weight, self.scalar_type());
  nll_backward_launch(nll_input_3d(grad_input), grad_output, target, weight ? *weight : Tensor(), reduction,
                      ignore_index, total_weight);
}

Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                         const Tensor& total_weight) {
  OclStructured<at::meta::structured_nll_loss_backward> op(Variant::Functional);
  op.meta(grad_output, self, target, to_meta_arg(weight), reduction, ignore_index, total_weight);
  nll_backward_impl(grad_output, self, target, weight, reduction, ignore_index, total_weight, op.outputs[0]);
  return std::move(op.outputs[0]);
}

Tensor& nll_loss_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                              const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                              const Tensor& total_weight, Tensor& grad_input) {
  OclStructured<at::meta::structured_nll_loss_backward> op(Variant::Out, grad_input);
  op.meta(grad_output, self, target, to_meta_arg(weight), reduction, ignore_index, total_weight);
  nll_backward_impl(grad_output, self, target, weight, reduction, ignore_index, total_weight, op.outputs[0]);
  return grad_input;
}

// ---- nll_loss2d: [N, C, H, W] input, [N, H, W] target (the CPU's checks) ----
void check_inputs_nll_loss2d(const Tensor& input, const Tensor& target, const Tensor& weight) {
  TORCH_CHECK(target.dim() == 3,
              "only batches of spatial targets supported (3D tensors) but got targets of dimension: ", target.dim());
  TORCH_CHECK(input.dim() == 4,
              "only batches of spatial inputs supported (4D tensors), but got input of dimension: ", input.dim());
  TORCH_CHECK(!weight.defined() || weight.numel() == input.size(1),
              "weight tensor should be defined either for all or no classes");
  TORCH_CHECK(input.size(0) == target.size(0) && input.size(2) == target.size(1) && input.size(3) == target.size(2),
              "size mismatch (got input: ", input.sizes(), " , target: ", target.sizes());
}

Tensor input_nc_s(const Tensor& input) {
  return input.reshape({input.size(0), input.size(1), input.size(2) * input.size(3)});
}

std::tuple<Tensor&, Tensor&> nll_loss2d_forward_out(const Tensor& self, const Tensor& target,
                                                    const std::optional<Tensor>& weight_opt, int64_t reduction,
                                                    int64_t ignore_index, Tensor& output, Tensor& total_weight) {
  const Tensor weight = weight_opt ? *weight_opt : Tensor();
  check_inputs_nll_loss2d(self, target, weight);
  check_floating(self.scalar_type(), "nll_loss2d_forward_out_frame");
  check_scalar_type(weight, self.scalar_type());
  check_scalar_type(target, c10::kLong);
  total_weight.resize_({});
  if (reduction == None) at::native::resize_output(output, {self.size(0), self.size(2), self.size(3)});
  else at::native::resize_output(output, {});
  nll_forward_launch(input_nc_s(self), target, weight, reduction, ignore_index, output, total_weight);
  return {output, total_weight};
}

std::tuple<Tensor, Tensor> nll_loss2d_forward(const Tensor& self, const Tensor& target,
                                              const std::optional<Tensor>& weight, int64_t reduction,
                                              int64_t ignore_index) {
  Tensor output = at::empty({0}, self.options()), total_weight = at::empty({0}, self.options());
  nll_loss2d_forward_out(self, target, weight, reduction, ignore_index, output, total_weight);
  return {output, total_weight};
}

Tensor& nll_loss2d_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                const std::optional<Tensor>& weight_opt, int64_t reduction, int64_t ignore_index,
                                const Tensor& total_weight, Tensor& grad_input) {
  const Tensor weight = weight_opt ? *weight_opt : Tensor();
  check_inputs_nll_loss2d(self, target, weight);
  grad_input.resize_as_(self);
  TORCH_CHECK(grad_input.is_contiguous(), "grad_input must be contiguous");
  TORCH_CHECK(total_weight.numel() == 1, "expected total_weight to be a single element tensor, got: ",
              total_weight.sizes(), " (", total_weight.numel(), " elements)");
  check_floating(self.scalar_type(), "nll_loss2d_backward_out_frame");
  if (reduction == None) {
    TORCH_CHECK(grad_output.dim() == 3,
                "grad_output must have same dimension as target (3) but got dimension: ", grad_output.sizes());
    TORCH_CHECK(grad_output.size(0) == target.size(0) && grad_output.size(1) == target.size(1) &&
                    grad_output.size(2) == target.size(2),
                "size mismatch (got grad_output: ", grad_output.sizes(), " target: ", target.sizes());
  } else {
    TORCH_CHECK(grad_output.dim() <= 1 && grad_output.numel() == 1,
                "Expected a single element grad_output tensor, but got: ", grad_output.sizes());
  }
  check_scalar_type(weight, self.scalar_type());
  check_scalar_type(target, c10::kLong);
  check_scalar_type(grad_output, self.scalar_type());
  check_scalar_type(total_weight, self.scalar_type());
  nll_backward_launch(input_nc_s(grad_input), grad_output, target, weight, reduction, ignore_index, total_weight);
  return grad_input;
}

Tensor nll_loss2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                           const Tensor& total_weight) {
  Tensor grad_input = at::empty(self.sizes(), self.options());  // contiguous, zeroed by the kernel launcher
  return nll_loss2d_backward_out(grad_output, self, target, weight, reduction, ignore_index, total_weight,
                                 grad_input);
}

// ---- binary_cross_entropy ----
constexpr PointwiseOp k_bce_backward{.name = "binary_cross_entropy_backward",
                                     .expr = "a * (b - c) / fmax(((T)1 - b) * b, (T)1e-12)", .ninputs = 3,
                                     .dtypes = kFloating};

Tensor apply_loss_reduction(const Tensor& unreduced, int64_t reduction) {
  if (reduction == Mean) return unreduced.mean();
  if (reduction == at::Reduction::Sum) return unreduced.sum();
  return unreduced;
}

Tensor& binary_cross_entropy_out(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                                 int64_t reduction, Tensor& loss) {
  check_floating(loss.scalar_type(), "binary_cross_entropy");
  Tensor loss_squeezed = at::squeeze(loss);
  auto iter = at::TensorIteratorConfig()
                  .add_output(loss_squeezed)
                  .add_owned_const_input(at::squeeze(input))
                  .add_owned_const_input(at::squeeze(target))
                  .build();
  if (iter.numel() > 0) {
    const auto device = iter.device().index();
    const auto dtype = iter.dtype(0);
    check_dtype_supported(dtype, device);
    Launch l(device, source_kernel(device, "loss", "bce_forward", kernel_variant({static_cast<int>(dtype), static_cast<int>(c10::kLong)}),
                                 [&] { return loss_preamble(dtype); }));
    l.value(make_indexer(iter)).value<int64_t>(iter.numel());
    for (int k = 0; k < 3; ++k) l.device_pointer(iter.data_ptr(k));
    check_arg(l, device, kBceCheck);
    l.run(static_cast<size_t>(iter.numel()));
  }
  if (weight && weight->defined()) loss.mul_(*weight);
  if (reduction != None) {
    Tensor reduced = apply_loss_reduction(loss, reduction);
    loss.resize_as_(reduced).copy_(reduced);
  }
  return loss;
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t reduction) {
  Tensor loss = at::empty_like(input);
  return binary_cross_entropy_out(input, target, weight, reduction, loss);
}

Tensor& binary_cross_entropy_backward_out(const Tensor& grad, const Tensor& input, const Tensor& target,
                                          const std::optional<Tensor>& weight, int64_t reduction,
                                          Tensor& grad_input) {
  check_floating(grad_input.scalar_type(), "binary_cross_entropy_backward");
  Tensor grad_input_squeezed = at::squeeze(grad_input);
  auto iter = at::TensorIteratorConfig()
                  .add_output(grad_input_squeezed)
                  .add_owned_const_input(at::squeeze(grad))
                  .add_owned_const_input(at::squeeze(input))
                  .add_owned_const_input(at::squeeze(target))
                  .build();
  run_pointwise(iter, k_bce_backward);
  if (weight && weight->defined()) grad_input.mul_(*weight);
  if (reduction == Mean) grad_input.div_(input.numel());
  return grad_input;
}

Tensor binary_cross_entropy_backward(const Tensor& grad, const Tensor& input, const Tensor& target,
                                     const std::optional<Tensor>& weight, int64_t reduction) {
  Tensor grad_input = at::empty_like(input);
  return binary_cross_entropy_backward_out(grad, input, target, weight, reduction, grad_input);
}

// ---- multi_margin_loss / multilabel_margin_loss ----
const int kMultiMarginCheck =
    register_device_check("multi_margin_loss", DeviceCheckKind::kRuntimeError, "target out of range");
const int kMultilabelCheck = register_device_check("multilabel_margin_loss", DeviceCheckKind::kRuntimeError,
                                                   "argument #2 'target' is out of range");
const int kMultilabelBackwardCheck = register_device_check(
    "multilabel_margin_loss_backward", DeviceCheckKind::kRuntimeError, "argument #3 'target' is out of range");

// The CPU's AT_DISPATCH_FLOATING_TYPES error (float32/float64 only).
void check_float_or_double(c10::ScalarType dtype, const char* name) {
  TORCH_CHECK_NOT_IMPLEMENTED(dtype == c10::kFloat || dtype == c10::kDouble, "\"", name, "\" not implemented for '",
                              c10::toString(dtype), "'");
}

// A kernel parameter of the compute type CT (float or double here).
void value_ct(Launch& l, c10::ScalarType dtype, double v) {
  if (dtype == c10::kDouble) l.value(v);
  else l.value(static_cast<float>(v));
}

// Runs `fill(rows)` that writes one value per row into a [nframe] tensor, then
// stores it into `output` unreduced (when it is the [nframe] output) or
// reduced to a sum / mean.
template <typename Fill>
void per_row_loss(const Tensor& output, int64_t nframe, int64_t reduction, const Fill& fill) {
  const bool unreduced = reduction == None && output.dim() > 0;
  if (unreduced && output.is_contiguous()) return fill(output);
  Tensor rows = at::empty({nframe}, output.options());
  fill(rows);
  if (unreduced) output.copy_(rows);
  else output.copy_(apply_loss_reduction(rows, reduction).reshape(output.sizes()));
}

// Runs `compute(float inputs..., float result)` for half / bfloat16 inputs, as
// CUDA does (the CPU has no half kernels for the margin losses): the inputs in
// float, the result rounded into `result`'s dtype. False for other dtypes.
bool as_float_if_reduced(const Tensor& input, Tensor& result, const std::function<void(Tensor&)>& compute) {
  if (input.scalar_type() != c10::kHalf && input.scalar_type() != c10::kBFloat16) return false;
  Tensor tmp = at::empty({0}, result.options().dtype(c10::kFloat));
  compute(tmp);
  result.resize_(tmp.sizes());
  result.copy_(tmp);
  return true;
}

std::optional<Tensor> float_opt(const std::optional<Tensor>& t) {
  return t && t->defined() ? std::optional<Tensor>(t->to(c10::kFloat)) : t;
}

Tensor& multi_margin_loss_out(const Tensor& input, const Tensor& target, const c10::Scalar& p_s,
                              const c10::Scalar& margin, const std::optional<Tensor>& weight_opt, int64_t reduction,
                              Tensor& output) {
  if (as_float_if_reduced(input, output, [&](Tensor& out) {
        multi_margin_loss_out(input.to(c10::kFloat), target, p_s, margin, float_opt(weight_opt), reduction, out);
      }))
    return output;
  const int64_t p = p_s.toLong();
  TORCH_CHECK(p == 1 || p == 2, "only p == 1 and p == 2 supported");
  int64_t nframe = 0, dim = 0;
  at::native::multi_margin_loss_shape_check(nframe, dim, input.dim(), input, target, weight_opt);
  if (reduction == None && target.dim() > 0) output.resize_({nframe});
  else output.resize_({});
  if (input.numel() == 0) return output;
  const auto dtype = input.scalar_type();
  check_float_or_double(dtype, "multi_margin_loss_cpu_kernel");
  check_scalar_type(target, c10::kLong);
  const Tensor w = weight_opt && weight_opt->defined() ? weight_opt->contiguous() : Tensor();
  check_scalar_type(w, dtype);
  const auto device = input.device().index();
  check_dtype_supported(dtype, device);
  const Tensor x = input.contiguous(), t = target.contiguous();
  per_row_loss(output, nframe, reduction, [&](const Tensor& rows) {
    Launch l(device, source_kernel(device, "loss", "multi_margin_forward", kernel_variant({static_cast<int>(dtype), static_cast<int>(c10::kLong)}),
                                 [&] { return loss_preamble(dtype); }));
    l.input(x).input(t);
    if (w.defined()) l.input(w); else l.null_tensor();
    l.value<cl_int>(w.defined()).value(nframe).value(dim).value<cl_int>(static_cast<cl_int>(p));
    value_ct(l, dtype, margin.toDouble());
    l.tensor(rows);
    check_arg(l, device, kMultiMarginCheck);
    l.run(static_cast<size_t>(nframe));
  });
  return output;
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const c10::Scalar& p, const c10::Scalar& margin,
                         const std::optional<Tensor>& weight, int64_t reduction) {
  Tensor output = at::empty({0}, input.options());
  return multi_margin_loss_out(input, target, p, margin, weight, reduction, output);
}

Tensor& multi_margin_loss_backward_out(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                                       const c10::Scalar& p_s, const c10::Scalar& margin,
                                       const std::optional<Tensor>& weight_opt, int64_t reduction,
                                       Tensor& grad_input) {
  if (as_float_if_reduced(input, grad_input, [&](Tensor& g) {
        multi_margin_loss_backward_out(grad_output.to(c10::kFloat), input.to(c10::kFloat), target, p_s, margin,
                                       float_opt(weight_opt), reduction, g);
      }))
    return grad_input;
  const int64_t p = p_s.toLong();
  TORCH_CHECK(p == 1 || p == 2, "only p == 1 and p == 2 supported");
  int64_t nframe = 0, dim = 0;
  at::native::multi_margin_loss_shape_check(nframe, dim, input.dim(), input, target, weight_opt);
  grad_input.resize_as_(input);
  TORCH_CHECK(grad_input.is_contiguous(), "grad_input must be contiguous");
  if (input.numel() == 0) return grad_input;
  const auto dtype = input.scalar_type();
  check_float_or_double(dtype, "multi_margin_loss_backward_cpu_kernel");
  check_scalar_type(target, c10::kLong);
  const Tensor w = weight_opt && weight_opt->defined() ? weight_opt->contiguous() : Tensor();
  check_scalar_type(w, dtype);
  check_scalar_type(grad_output, dtype);
  const auto device = input.device().index();
  check_dtype_supported(dtype, device);
  const bool one_grad = reduction != None || grad_output.dim() == 0;
  const Tensor x = input.contiguous(), t = target.contiguous(), go = grad_output.contiguous();
  const double g = reduction == Mean ? 1. / static_cast<double>(nframe * dim) : 1. / static_cast<double>(dim);
  Launch l(device, source_kernel(device, "loss", "multi_margin_backward", kernel_variant({static_cast<int>(dtype), static_cast<int>(c10::kLong)}),
                                 [&] { return loss_preamble(dtype); }));
  l.tensor(grad_input).input(x).input(t);
  if (w.defined()) l.input(w); else l.null_tensor();
  l.value<cl_int>(w.defined()).input(go).value<int64_t>(one_grad ? 0 : 1).value(nframe).value(dim);
  l.value<cl_int>(static_cast<cl_int>(p));
  value_ct(l, dtype, margin.toDouble());
  value_ct(l, dtype, g);
  check_arg(l, device, kMultiMarginCheck);
  l.run(static_cast<size_t>(nframe));
  return grad_input;
}

Tensor multi_margin_loss_backward(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                                  const c10::Scalar& p, const c10::Scalar& margin,
                                  const std::optional<Tensor>& weight, int64_t reduction) {
  Tensor grad_input = at::empty({0}, input.options());
  return multi_margin_loss_backward_out(grad_output, input, target, p, margin, weight, reduction, grad_input);
}

std::tuple<Tensor&, Tensor&> multilabel_margin_loss_forward_out(const Tensor& input, const Tensor& target,
                                                                int64_t reduction, Tensor& output,
                                                                Tensor& is_target) {
  if (input.scalar_type() == c10::kHalf || input.scalar_type() == c10::kBFloat16) {
    Tensor out = at::empty({0}, output.options().dtype(c10::kFloat)), it = at::empty({0}, out.options());
    multilabel_margin_loss_forward_out(input.to(c10::kFloat), target, reduction, out, it);
    output.resize_(out.sizes()).copy_(out);
    is_target.resize_(it.sizes()).copy_(it);
    return {output, is_target};
  }
  int64_t nframe = 0, dim = 0;
  at::native::multilabel_margin_loss_shape_check(nframe, dim, input.dim(), input, target);
  if (reduction != None || target.dim() <= 1) output.resize_({});
  else output.resize_({nframe});
  is_target.resize_as_(target);
  TORCH_CHECK(is_target.is_contiguous(), "is_target must be contiguous");
  is_target.zero_();
  if (input.numel() == 0) return {output, is_target};
  const auto dtype = input.scalar_type();
  check_float_or_double(dtype, "multilabel_margin_loss_forward_out_frame");
  check_scalar_type(target, c10::kLong);
  check_scalar_type(is_target, dtype);
  const auto device = input.device().index();
  check_dtype_supported(dtype, device);
  const Tensor x = input.contiguous(), t = target.contiguous();
  per_row_loss(output, nframe, reduction, [&](const Tensor& rows) {
    Launch l(device, source_kernel(device, "loss", "multilabel_margin_forward", kernel_variant({static_cast<int>(dtype), static_cast<int>(c10::kLong)}),
                                 [&] { return loss_preamble(dtype); }));
    l.input(x).input(t).tensor(is_target).value(nframe).value(dim).tensor(rows);
    check_arg(l, device, kMultilabelCheck);
    l.run(static_cast<size_t>(nframe));
  });
  return {output, is_target};
}

std::tuple<Tensor, Tensor> multilabel_margin_loss_forward(const Tensor& input, const Tensor& target,
                                                          int64_t reduction) {
  Tensor output = at::empty({0}, input.options()), is_target = at::empty({0}, input.options());
  multilabel_margin_loss_forward_out(input, target, reduction, output, is_target);
  return {output, is_target};
}

Tensor& multilabel_margin_loss_backward_out(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                                            int64_t reduction, const Tensor& is_target, Tensor& grad_input) {
  if (as_float_if_reduced(input, grad_input, [&](Tensor& g) {
        multilabel_margin_loss_backward_out(grad_output.to(c10::kFloat), input.to(c10::kFloat), target, reduction,
                                            is_target.to(c10::kFloat), g);
      }))
    return grad_input;
  int64_t nframe = 0, dim = 0;
  at::native::multilabel_margin_loss_shape_check(nframe, dim, input.dim(), input, target);
  at::checkSameSize("multilabel_margin_loss_backward_cpu_template", at::TensorArg(target, "target", 3),
                    at::TensorArg(is_target, "is_target", 5));
  grad_input.resize_as_(input);
  if (grad_input.numel() == 0) return grad_input;
  TORCH_CHECK(grad_input.is_contiguous(), "grad_input must be contiguous");
  const auto dtype = input.scalar_type();
  check_float_or_double(dtype, "multilabel_margin_loss_backward_out_frame");
  check_scalar_type(target, c10::kLong);
  check_scalar_type(is_target, dtype);
  check_scalar_type(grad_output, dtype);
  const bool one_grad = reduction != None || grad_output.dim() == 0;
  if (!one_grad) at::check_dim_size(grad_output, 1, 0, nframe);
  const auto device = input.device().index();
  check_dtype_supported(dtype, device);
  const Tensor x = input.contiguous(), t = target.contiguous(), it = is_target.contiguous(),
               go = grad_output.contiguous();
  const double g = reduction == Mean ? 1. / static_cast<double>(nframe * dim) : 1. / static_cast<double>(dim);
  Launch l(device, source_kernel(device, "loss", "multilabel_margin_backward", kernel_variant({static_cast<int>(dtype), static_cast<int>(c10::kLong)}),
                                 [&] { return loss_preamble(dtype); }));
  l.tensor(grad_input).input(x).input(t).input(it).input(go).value<int64_t>(one_grad ? 0 : 1);
  l.value(nframe).value(dim);
  value_ct(l, dtype, g);
  check_arg(l, device, kMultilabelBackwardCheck);
  l.run(static_cast<size_t>(nframe));
  return grad_input;
}

Tensor multilabel_margin_loss_backward(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                                       int64_t reduction, const Tensor& is_target) {
  Tensor grad_input = at::empty(input.sizes(), input.options());
  return multilabel_margin_loss_backward_out(grad_output, input, target, reduction, is_target, grad_input);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  ::torch_ocl::register_op<&nll_loss_forward>(m, "nll_loss_forward");
  ::torch_ocl::register_op<&nll_loss_forward_out>(m, "nll_loss_forward.output");
  ::torch_ocl::register_op<&nll_loss_backward>(m, "nll_loss_backward");
  ::torch_ocl::register_op<&nll_loss_backward_out>(m, "nll_loss_backward.grad_input");
  ::torch_ocl::register_op<&nll_loss2d_forward>(m, "nll_loss2d_forward");
  ::torch_ocl::register_op<&nll_loss2d_forward_out>(m, "nll_loss2d_forward.output");
  ::torch_ocl::register_op<&nll_loss2d_backward>(m, "nll_loss2d_backward");
  ::torch_ocl::register_op<&nll_loss2d_backward_out>(m, "nll_loss2d_backward.grad_input");
  ::torch_ocl::register_op<&multi_margin_loss>(m, "multi_margin_loss");
  ::torch_ocl::register_op<&multi_margin_loss_out>(m, "multi_margin_loss.out");
  ::torch_ocl::register_op<&multi_margin_loss_backward>(m, "multi_margin_loss_backward");
  ::torch_ocl::register_op<&multi_margin_loss_backward_out>(m, "multi_margin_loss_backward.grad_input");
  ::torch_ocl::register_op<&multilabel_margin_loss_forward>(m, "multilabel_margin_loss_forward");
  ::torch_ocl::register_op<&multilabel_margin_loss_forward_out>(m, "multilabel_margin_loss_forward.output");
  ::torch_ocl::register_op<&multilabel_margin_loss_backward>(m, "multilabel_margin_loss_backward");
  ::torch_ocl::register_op<&multilabel_margin_loss_backward_out>(m, "multilabel_margin_loss_backward.grad_input");
  ::torch_ocl::register_op<&binary_cross_entropy>(m, "binary_cross_entropy");
  ::torch_ocl::register_op<&binary_cross_entropy_out>(m, "binary_cross_entropy.out");
  ::torch_ocl::register_op<&binary_cross_entropy_backward>(m, "binary_cross_entropy_backward");
  ::torch_ocl::register_op<&binary_cross_entropy_backward_out>(m, "binary_cross_entropy_backward.grad_input");
}
