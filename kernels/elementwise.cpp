// Elementwise ops: kernels in kernels/elementwise.cl, one program per dtype,
// shapes/broadcasting/promotion from the ops' structured meta functions
// (TensorIterator). Registrations at the bottom of this file.
#include <ATen/ops/add_meta.h>
#include <ATen/ops/cos_meta.h>
#include <ATen/ops/div_meta.h>
#include <ATen/ops/eq_meta.h>
#include <ATen/ops/exp_meta.h>
#include <ATen/ops/ge_meta.h>
#include <ATen/ops/gt_meta.h>
#include <ATen/ops/le_meta.h>
#include <ATen/ops/log_meta.h>
#include <ATen/ops/lt_meta.h>
#include <ATen/ops/maximum_meta.h>
#include <ATen/ops/minimum_meta.h>
#include <ATen/ops/mul_meta.h>
#include <ATen/ops/ne_meta.h>
#include <ATen/ops/neg_meta.h>
#include <ATen/ops/reciprocal_meta.h>
#include <ATen/ops/rsqrt_meta.h>
#include <ATen/ops/sgn_meta.h>
#include <ATen/ops/sigmoid_backward_meta.h>
#include <ATen/ops/sigmoid_meta.h>
#include <ATen/ops/sin_meta.h>
#include <ATen/ops/sqrt_meta.h>
#include <ATen/ops/sub_meta.h>
#include <ATen/ops/tanh_backward_meta.h>
#include <ATen/ops/tanh_meta.h>
#include <ATen/ops/threshold_backward_meta.h>
#include <ATen/ops/threshold_meta.h>
#include <ATen/Dispatch.h>
#include <ATen/ops/empty_like.h>

#include <vector>

#include "backend/kernel_launch.h"
#include "kernels/structured.h"

namespace torch_ocl {
namespace {

bool one_of(const char* kernel, std::initializer_list<std::string_view> names) {
  for (auto n : names)
    if (n == kernel) return true;
  return false;
}

bool is_comparison(const char* kernel) {
  return one_of(kernel, {"ew_eq", "ew_ne", "ew_lt", "ew_le", "ew_gt", "ew_ge"});
}

// Runs `kernel` of kernels/elementwise.cl over a built iterator (1 output, 1
// or 2 inputs). alpha/beta are the op's scalar parameters.
void launch_elementwise(at::TensorIteratorBase& iter, const char* kernel,
                        const c10::Scalar& alpha, const c10::Scalar& beta) {
  if (iter.numel() == 0) return;
  const int ninputs = iter.ninputs();
  const bool to_bool = is_comparison(kernel);
  const c10::ScalarType common = iter.maybe_common_dtype().value_or(iter.input_dtype(0));
  const c10::ScalarType out_dtype = to_bool ? c10::kBool : common;

  bool mixed = iter.dtype(0) != out_dtype;
  for (int i = 0; i < ninputs; ++i)
    mixed |= !iter.is_cpu_scalar(iter.noutputs() + i) && iter.input_dtype(i) != common;
  if (mixed) {
    // Inputs of other dtypes are cast on the device, an output of another
    // dtype gets a temporary; then the op runs on same-dtype operands.
    const at::Tensor& out = iter.output(0);
    at::Tensor tmp = out.scalar_type() == out_dtype ? out : at::empty_like(out, out_dtype);
    at::TensorIteratorConfig config;
    config.add_output(tmp).resize_outputs(false).allow_cpu_scalars(true).check_all_same_dtype(false);
    std::vector<at::Tensor> inputs;
    for (int i = 0; i < ninputs; ++i) {
      const at::Tensor& in = iter.input(i);
      inputs.push_back(in.device().is_cpu() || in.scalar_type() == common ? in : in.to(common));
      config.add_const_input(inputs.back());
    }
    auto again = config.build();
    launch_elementwise(again, kernel, alpha, beta);
    if (!tmp.is_same(out)) out.copy_(tmp);
    return;
  }

  const auto device = iter.device().index();
  check_dtype_supported(common, device);
  // As the CPU kernels: these have no bool version, and the op's scalar
  // parameters (alpha, threshold, value) must fit the dtype.
  TORCH_CHECK_NOT_IMPLEMENTED(
      common != c10::kBool || !one_of(kernel, {"ew_abs", "ew_threshold", "ew_threshold_backward"}),
      "\"", kernel + 3, "\" not implemented for 'Bool'");
  AT_DISPATCH_ALL_TYPES_AND3(c10::kHalf, c10::kBFloat16, c10::kBool, common, "scalar parameters", [&] {
    (void)alpha.to<scalar_t>();  // raises when it does not fit, as on CPU
    (void)beta.to<scalar_t>();
  });
  std::string preamble = dtype_preamble(common);
  if (to_bool)
    preamble += "#define OUT_IS_BOOL 1\n#define OUT_ST uchar\n"
                "#define OUT_STORE(p, i, v) ((p)[i] = (uchar)((v) != 0))\n";
  Launch launch(device, "elementwise", preamble, kernel);
  launch.value(make_indexer(iter)).value<int64_t>(iter.numel()).tensor(iter.tensor_base(0));
  c10::Scalar values[2] = {0, 0};
  bool is_scalar[2] = {false, false};
  for (int i = 0; i < 2; ++i) {
    if (i >= ninputs) {
      launch.null_tensor();
    } else if (iter.is_cpu_scalar(iter.noutputs() + i)) {
      is_scalar[i] = true;
      values[i] = iter.input(i).item();
      launch.null_tensor();
    } else {
      launch.tensor(iter.tensor_base(iter.noutputs() + i));
    }
  }
  for (int i = 0; i < 2; ++i) launch.value<cl_int>(is_scalar[i] ? 1 : 0).scalar(values[i], common);
  launch.scalar(alpha, common).scalar(beta, common).run(iter.numel());
}

// The scalar parameters of an op, in order, from its argument list.
template <class T>
void collect_scalar(std::vector<c10::Scalar>& out, const T& v) {
  if constexpr (std::is_same_v<std::decay_t<T>, c10::Scalar>) out.push_back(v);
}

template <const char* Kernel, class... Rest>
void elementwise_impl(at::TensorIteratorBase& iter, const at::Tensor&, const at::Tensor&,
                      Rest... rest) {
  std::vector<c10::Scalar> s;
  // A comparison's Scalar (eq.Scalar) is an operand in the iterator, not a parameter.
  if (!is_comparison(Kernel)) (collect_scalar(s, rest), ...);
  launch_elementwise(iter, Kernel, s.size() > 0 ? s[0] : c10::Scalar(0),
                     s.size() > 1 ? s[1] : c10::Scalar(0));
}

template <class Meta, const char* Kernel, class... Rest>
void reg(torch::Library& m, const char* functional, const char* inplace, const char* out) {
  register_structured<Meta, &elementwise_impl<Kernel, Rest...>, Rest...>(m, functional, inplace, out);
}

using TensorRef = const at::Tensor&;
using ScalarRef = const c10::Scalar&;

#define KERNEL_NAME(name) constexpr char k_##name[] = "ew_" #name;
KERNEL_NAME(add) KERNEL_NAME(sub) KERNEL_NAME(mul) KERNEL_NAME(div) KERNEL_NAME(neg)
KERNEL_NAME(abs) KERNEL_NAME(sgn) KERNEL_NAME(reciprocal) KERNEL_NAME(exp) KERNEL_NAME(log) KERNEL_NAME(sqrt) KERNEL_NAME(rsqrt)
KERNEL_NAME(sin) KERNEL_NAME(cos) KERNEL_NAME(tanh) KERNEL_NAME(sigmoid)
KERNEL_NAME(sigmoid_backward) KERNEL_NAME(tanh_backward) KERNEL_NAME(maximum)
KERNEL_NAME(minimum) KERNEL_NAME(threshold) KERNEL_NAME(threshold_backward)
KERNEL_NAME(eq) KERNEL_NAME(ne) KERNEL_NAME(lt) KERNEL_NAME(le) KERNEL_NAME(gt) KERNEL_NAME(ge)
#undef KERNEL_NAME

at::Tensor& abs_out(const at::Tensor& self, at::Tensor& out) {
  if (any_lacks_kernels(self, out)) {  // complex: |z| on the CPU
    run_fallback("aten::abs.out", c10::impl::boxArgs<const at::Tensor&, at::Tensor&>(self, out));
    return out;
  }
  auto iter = at::TensorIterator::unary_op(out, self);
  launch_elementwise(iter, k_abs, 0, 0);
  return out;
}

at::Tensor relu(const at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != c10::kBool, "Boolean inputs not supported for relu");
  return at::threshold(self, 0, 0);
}
at::Tensor& relu_(at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != c10::kBool, "Boolean inputs not supported for relu");
  return at::threshold_(self, 0, 0);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace at::meta;
  // binary arithmetic (the .Scalar overloads are composites over these)
  reg<structured_add_Tensor, k_add, TensorRef, ScalarRef>(m, "add.Tensor", "add_.Tensor", "add.out");
  reg<structured_sub_Tensor, k_sub, TensorRef, ScalarRef>(m, "sub.Tensor", "sub_.Tensor", "sub.out");
  reg<structured_mul_Tensor, k_mul, TensorRef>(m, "mul.Tensor", "mul_.Tensor", "mul.out");
  reg<structured_div_Tensor, k_div, TensorRef>(m, "div.Tensor", "div_.Tensor", "div.out");
  reg<structured_maximum, k_maximum, TensorRef>(m, "maximum", nullptr, "maximum.out");
  reg<structured_minimum, k_minimum, TensorRef>(m, "minimum", nullptr, "minimum.out");
  // unary
  reg<structured_neg, k_neg>(m, "neg", "neg_", "neg.out");
  reg<structured_sgn, k_sgn>(m, "sgn", "sgn_", "sgn.out");
  reg<structured_reciprocal, k_reciprocal>(m, "reciprocal", "reciprocal_", "reciprocal.out");
  reg<structured_exp, k_exp>(m, "exp", "exp_", "exp.out");
  reg<structured_log, k_log>(m, "log", "log_", "log.out");
  reg<structured_sqrt, k_sqrt>(m, "sqrt", "sqrt_", "sqrt.out");
  reg<structured_rsqrt, k_rsqrt>(m, "rsqrt", "rsqrt_", "rsqrt.out");
  reg<structured_sin, k_sin>(m, "sin", "sin_", "sin.out");
  reg<structured_cos, k_cos>(m, "cos", "cos_", "cos.out");
  reg<structured_tanh, k_tanh>(m, "tanh", "tanh_", "tanh.out");
  reg<structured_sigmoid, k_sigmoid>(m, "sigmoid", "sigmoid_", "sigmoid.out");
  // activations and their backward kernels
  reg<structured_threshold, k_threshold, ScalarRef, ScalarRef>(m, "threshold", "threshold_", "threshold.out");
  reg<structured_threshold_backward, k_threshold_backward, TensorRef, ScalarRef>(
      m, "threshold_backward", nullptr, "threshold_backward.grad_input");
  reg<structured_sigmoid_backward, k_sigmoid_backward, TensorRef>(m, "sigmoid_backward", nullptr,
                                                                  "sigmoid_backward.grad_input");
  reg<structured_tanh_backward, k_tanh_backward, TensorRef>(m, "tanh_backward", nullptr,
                                                            "tanh_backward.grad_input");
  m.impl("relu", TORCH_FN(relu));
  m.impl("relu_", TORCH_FN(relu_));
  // comparisons (bool output)
  reg<structured_eq_Tensor, k_eq, TensorRef>(m, "eq.Tensor", "eq_.Tensor", "eq.Tensor_out");
  reg<structured_ne_Tensor, k_ne, TensorRef>(m, "ne.Tensor", "ne_.Tensor", "ne.Tensor_out");
  reg<structured_lt_Tensor, k_lt, TensorRef>(m, "lt.Tensor", "lt_.Tensor", "lt.Tensor_out");
  reg<structured_le_Tensor, k_le, TensorRef>(m, "le.Tensor", "le_.Tensor", "le.Tensor_out");
  reg<structured_gt_Tensor, k_gt, TensorRef>(m, "gt.Tensor", "gt_.Tensor", "gt.Tensor_out");
  reg<structured_ge_Tensor, k_ge, TensorRef>(m, "ge.Tensor", "ge_.Tensor", "ge.Tensor_out");
  reg<structured_eq_Scalar, k_eq, ScalarRef>(m, "eq.Scalar", "eq_.Scalar", "eq.Scalar_out");
  reg<structured_ne_Scalar, k_ne, ScalarRef>(m, "ne.Scalar", "ne_.Scalar", "ne.Scalar_out");
  reg<structured_lt_Scalar, k_lt, ScalarRef>(m, "lt.Scalar", "lt_.Scalar", "lt.Scalar_out");
  reg<structured_le_Scalar, k_le, ScalarRef>(m, "le.Scalar", "le_.Scalar", "le.Scalar_out");
  reg<structured_gt_Scalar, k_gt, ScalarRef>(m, "gt.Scalar", "gt_.Scalar", "gt.Scalar_out");
  reg<structured_ge_Scalar, k_ge, ScalarRef>(m, "ge.Scalar", "ge_.Scalar", "ge.Scalar_out");
  m.impl("abs.out", TORCH_FN(abs_out));  // abs and abs_ are composites over abs.out
}

}  // namespace torch_ocl
