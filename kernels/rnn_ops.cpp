// Fused RNN cells on PrivateUse1: _thnn_fused_lstm_cell, its backward
// (_thnn_fused_lstm_cell_backward_impl), _thnn_fused_gru_cell and
// _thnn_fused_gru_cell_backward. ATen calls them (instead of the CPU's
// unfused cell) for every non-CPU device, and they have no CPU kernel, so the
// fallback cannot serve them. Checks and workspace layouts follow ATen's CUDA
// ones (aten/src/ATen/native/cuda/RNN.cu); kernels: kernels/rnn.cl.
#include <ATen/TensorUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <torch/library.h>

#include "kernels/register_op.h"
#include "backend/kernel_launch.h"

namespace torch_ocl {
namespace {

using at::Tensor;
using at::TensorArg;

const Tensor& or_undefined(const std::optional<Tensor>& t) {
  static const Tensor undefined;
  return t.has_value() ? *t : undefined;
}

// As AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16) does for other dtypes.
void check_rnn_dtype(const char* name, c10::ScalarType t) {
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(t) && has_kernels(t), "\"", name, "\" not implemented for '",
                              c10::toString(t), "'");
}

// The CUDA op's checks (factor: 4 for LSTM, 3 for GRU), plus one device.
void check_cell_sizes(at::CheckedFrom c, const TensorArg& input_gates, const TensorArg& hidden_gates,
                      const TensorArg& input_bias, const TensorArg& hidden_bias, int64_t factor,
                      const TensorArg& prev_hidden) {
  at::checkDim(c, input_gates, 2);
  at::checkSameSize(c, input_gates, hidden_gates);
  const int64_t gates_size = input_gates->size(1);
  if (input_bias->defined()) {
    at::checkDim(c, input_bias, 1);
    at::checkNumel(c, input_bias, gates_size);
    at::checkSameSize(c, input_bias, hidden_bias);
  }
  at::checkDim(c, prev_hidden, 2);
  at::checkNumel(c, prev_hidden, input_gates->size(0) * gates_size / factor);
  for (const TensorArg* t : {&hidden_gates, &input_bias, &hidden_bias, &prev_hidden}) {
    if (!(*t)->defined()) continue;
    TORCH_CHECK((*t)->device() == input_gates->device() && (*t)->scalar_type() == input_gates->scalar_type(),
                "Expected tensor for argument #", t->pos, " '", t->name, "' to have the same device and dtype as ",
                "argument #", input_gates.pos, " '", input_gates.name, "'; but got ", (*t)->device(), " ",
                (*t)->scalar_type(), " and ", input_gates->device(), " ", input_gates->scalar_type(),
                " (while checking arguments for ", c, ")");
  }
}

Launch rnn_launch(const Tensor& like, const char* kernel) {
  const auto device = like.device().index();
  check_dtype_supported(like.scalar_type(), device);
  const auto dtype = like.scalar_type();
  return Launch(device, dtype_kernel(device, "rnn", kernel, dtype));
}


Tensor contiguous_or_undefined(const Tensor& t) { return t.defined() ? t.contiguous() : t; }

std::tuple<Tensor, Tensor, Tensor> lstm_cell(const Tensor& input_gates, const Tensor& hidden_gates,
                                             const Tensor& cx, const std::optional<Tensor>& input_bias_opt,
                                             const std::optional<Tensor>& hidden_bias_opt) {
  const Tensor& input_bias = or_undefined(input_bias_opt);
  const Tensor& hidden_bias = or_undefined(hidden_bias_opt);
  check_cell_sizes("_thnn_fused_lstm_cell", {input_gates, "input_gates", 1}, {hidden_gates, "hidden_gates", 2},
                   {input_bias, "input_bias", 3}, {hidden_bias, "hidden_bias", 4}, 4, {cx, "prev_hidden", 5});
  check_rnn_dtype("_thnn_fused_lstm_cell", input_gates.scalar_type());
  Tensor workspace = at::empty_like(input_gates, at::MemoryFormat::Contiguous);
  Tensor hy = at::empty_like(cx, at::MemoryFormat::Contiguous);
  Tensor cy = at::empty_like(cx, at::MemoryFormat::Contiguous);
  const int64_t n = cx.numel();
  if (n == 0) return {hy, cy, workspace};
  const bool has_bias = input_bias.defined();
  Launch l = rnn_launch(input_gates, "lstm_cell_forward");
  l.input(input_gates.contiguous()).input(hidden_gates.contiguous());
  l.input(contiguous_or_undefined(input_bias));
  l.input(contiguous_or_undefined(hidden_bias));
  l.input(cx.contiguous()).tensor(hy).tensor(cy).tensor(workspace);
  l.value<int64_t>(cx.size(1)).value<int64_t>(n).value<int32_t>(has_bias);
  l.run_items(n);
  return {hy, cy, workspace};
}

std::tuple<Tensor, Tensor, Tensor> lstm_cell_backward(const std::optional<Tensor>& grad_hy_opt,
                                                      const std::optional<Tensor>& grad_cy_opt, const Tensor& cx,
                                                      const Tensor& cy, const Tensor& workspace, bool has_bias) {
  const Tensor& grad_hy = or_undefined(grad_hy_opt);
  const Tensor& grad_cy = or_undefined(grad_cy_opt);
  if (!grad_hy.defined() && !grad_cy.defined()) return {};
  {
    at::CheckedFrom c = "fused_lstm_cell_backward";
    const TensorArg gh{grad_hy, "grad_hy", 1}, gc{grad_cy, "grad_cy", 2};
    const TensorArg& defined_grad = grad_hy.defined() ? gh : gc;
    at::checkDim(c, defined_grad, 2);
    const auto exp_size = defined_grad->sizes();
    if (grad_hy.defined()) at::checkSize(c, gh, exp_size);
    if (grad_cy.defined()) at::checkSize(c, gc, exp_size);
    const TensorArg cx_arg{cx, "cx", 3}, cy_arg{cy, "cy", 4}, ws_arg{workspace, "workspace", 5};
    at::checkSize(c, cx_arg, exp_size);
    at::checkSize(c, cy_arg, exp_size);
    at::checkDim(c, ws_arg, 2);
    at::checkNumel(c, ws_arg, exp_size[0] * exp_size[1] * 4);
  }
  check_rnn_dtype("_thnn_fused_lstm_cell_cuda_backward", workspace.scalar_type());
  Tensor grad_gates = at::empty_like(workspace, at::MemoryFormat::Contiguous);
  Tensor grad_cx = at::empty_like(cx, at::MemoryFormat::Contiguous);
  const int64_t n = cx.numel();
  if (n > 0) {
    const auto dt = workspace.scalar_type();
    Launch l = rnn_launch(workspace, "lstm_cell_backward");
    l.input(grad_hy.defined() ? grad_hy.to(dt).contiguous() : grad_hy);
    l.input(grad_cy.defined() ? grad_cy.to(dt).contiguous() : grad_cy);
    l.input(cx.contiguous()).input(cy.contiguous()).input(workspace.contiguous()).tensor(grad_gates).tensor(grad_cx);
    l.value<int64_t>(cx.size(1)).value<int64_t>(n);
    l.value<int32_t>(grad_hy.defined()).value<int32_t>(grad_cy.defined());
    l.run_items(n);
  }
  Tensor grad_bias = has_bias ? grad_gates.sum(0, /*keepdim=*/false) : Tensor();
  return {grad_gates, grad_cx, grad_bias};
}

constexpr int64_t kGruWorkspace = 5;  // r, z, n, hx, hidden_n + bias_n

std::tuple<Tensor, Tensor> gru_cell(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& hx,
                                    const std::optional<Tensor>& input_bias_opt,
                                    const std::optional<Tensor>& hidden_bias_opt) {
  const Tensor& input_bias = or_undefined(input_bias_opt);
  const Tensor& hidden_bias = or_undefined(hidden_bias_opt);
  check_cell_sizes("_thnn_fused_gru_cell", {input_gates, "input_gates", 1}, {hidden_gates, "hidden_gates", 2},
                   {input_bias, "input_bias", 3}, {hidden_bias, "hidden_bias", 4}, 3, {hx, "prev_hidden", 5});
  check_rnn_dtype("_thnn_fused_gru_cell", input_gates.scalar_type());
  Tensor workspace = at::empty({hx.size(0), hx.size(1) * kGruWorkspace}, hx.options());
  Tensor hy = at::empty_like(hx, at::MemoryFormat::Contiguous);
  const int64_t n = hx.numel();
  if (n == 0) return {hy, workspace};
  Launch l = rnn_launch(input_gates, "gru_cell_forward");
  l.input(input_gates.contiguous()).input(hidden_gates.contiguous());
  l.input(contiguous_or_undefined(input_bias));
  l.input(contiguous_or_undefined(hidden_bias));
  l.input(hx.contiguous()).tensor(hy).tensor(workspace);
  l.value<int64_t>(hx.size(1)).value<int64_t>(n).value<int32_t>(input_bias.defined());
  l.run_items(n);
  return {hy, workspace};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> gru_cell_backward(const Tensor& grad_hy,
                                                                     const Tensor& workspace, bool has_bias) {
  at::CheckedFrom c = "fused_gru_cell_backward";
  const TensorArg gh_arg{grad_hy, "grad_hy", 1}, ws_arg{workspace, "workspace", 2};
  at::checkDim(c, gh_arg, 2);
  at::checkSize(c, ws_arg, {grad_hy.size(0), grad_hy.size(1) * kGruWorkspace});
  check_rnn_dtype("_thnn_fused_gru_cell_cuda_backward", grad_hy.scalar_type());
  const int64_t H = workspace.size(1) / kGruWorkspace;
  Tensor grad_input_gates = at::empty({workspace.size(0), H * 3}, workspace.options());
  Tensor grad_hidden_gates = at::empty({workspace.size(0), H * 3}, workspace.options());
  Tensor grad_hx = at::empty_like(grad_hy, at::MemoryFormat::Contiguous);
  const int64_t n = grad_hy.numel();
  if (n > 0) {
    Launch l = rnn_launch(workspace, "gru_cell_backward");
    l.input(grad_hy.to(workspace.scalar_type()).contiguous()).input(workspace.contiguous());
    l.tensor(grad_input_gates).tensor(grad_hidden_gates).tensor(grad_hx);
    l.value<int64_t>(H).value<int64_t>(n);
    l.run_items(n);
  }
  Tensor grad_input_bias, grad_hidden_bias;
  if (has_bias) {
    grad_input_bias = grad_input_gates.sum(0, /*keepdim=*/false);
    grad_hidden_bias = grad_hidden_gates.sum(0, /*keepdim=*/false);
  }
  return {grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias, grad_hidden_bias};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  ::torch_ocl::register_op<&lstm_cell>(m, "_thnn_fused_lstm_cell");
  ::torch_ocl::register_op<&lstm_cell_backward>(m, "_thnn_fused_lstm_cell_backward_impl");
  ::torch_ocl::register_op<&gru_cell>(m, "_thnn_fused_gru_cell");
  ::torch_ocl::register_op<&gru_cell_backward>(m, "_thnn_fused_gru_cell_backward");
}

}  // namespace torch_ocl
