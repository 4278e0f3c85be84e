// AutogradPrivateUse1 override of aten::linear: one fused addmm forward
// (bias folded into the GEMM) and a backward of two GEMMs on transposed views
// plus a column sum, instead of the generic decomposition
// (t, matmul/addmm, reshapes) and its recorded graph.
#include <ATen/ops/addmm.h>
#include <ATen/ops/_unsafe_view.h>
#include <ATen/ops/mm.h>
#include <torch/autograd.h>
#include <torch/library.h>

namespace torch_ocl {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class LinearFunction : public torch::autograd::Function<LinearFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& input, const at::Tensor& weight,
                            const std::optional<at::Tensor>& bias) {
    TORCH_CHECK(input.dim() >= 1, "linear: input must have at least 1 dimension");
    const int64_t in_features = weight.size(-1);
    TORCH_CHECK(input.size(-1) == in_features, "mat1 and mat2 shapes cannot be multiplied (",
                input.numel() / std::max<int64_t>(input.size(-1), 1), "x", input.size(-1), " and ",
                weight.size(1), "x", weight.size(0), ")");
    const at::Tensor x = input.reshape({-1, in_features});
    const bool has_bias = bias.has_value() && bias->defined();
    at::Tensor out = has_bias ? at::addmm(*bias, x, weight.t()) : at::mm(x, weight.t());
    std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end() - 1);
    shape.push_back(weight.size(0));
    ctx->save_for_backward({input, weight});
    ctx->saved_data["has_bias"] = has_bias;
    // _unsafe_view: not a view in autograd's eyes, so callers may modify the
    // output in place (the RNN tanh/relu cells do), as with the generic linear.
    return at::_unsafe_view(out, shape);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& input = saved[0];
    const at::Tensor& weight = saved[1];
    const at::Tensor g = grads[0].reshape({-1, weight.size(0)});
    at::Tensor grad_input, grad_weight, grad_bias;
    if (ctx->needs_input_grad(0)) grad_input = at::mm(g, weight).view(input.sizes());
    if (ctx->needs_input_grad(1)) grad_weight = at::mm(g.t(), input.reshape({-1, weight.size(1)}));
    if (ctx->saved_data["has_bias"].toBool() && ctx->needs_input_grad(2)) grad_bias = g.sum(0);
    return {grad_input, grad_weight, grad_bias};
  }
};

at::Tensor linear(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>& bias) {
  return LinearFunction::apply(input, weight, bias);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, AutogradPrivateUse1, m) {
  m.impl("linear", TORCH_FN(linear));
}

}  // namespace torch_ocl
