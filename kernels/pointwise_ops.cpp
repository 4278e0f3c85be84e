// The pointwise op table. One row per kernel: the op's expression (see
// kernels/pointwise_engine.h for what an expression may use) and the ATen
// ops it serves. The row macros (kernels/op_table.h) register the kernel
// with ATen's DispatchStub and the functional / in-place / out= overloads
// with the dispatcher; ATen's own structured impls do shapes, dtypes,
// promotion and out= checks. To add an op: add a row here, and a helper in
// kernels/pointwise_lib.cl if the expression needs one.
#include <ATen/MemoryOverlap.h>
#include <ATen/native/Activation.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/native/Gelu.h>
#include <ATen/native/Resize.h>
#include <ATen/native/Lerp.h>
#include <ATen/native/Normalization.h>
#include <ATen/native/PointwiseOps.h>
#include <ATen/native/Pow.h>
#include <ATen/native/TensorCompare.h>
#include <ATen/native/TensorFactories.h>
#include <ATen/native/UnaryOps.h>
#include <ATen/ops/abs_native.h>
#include <ATen/ops/acos_native.h>
#include <ATen/ops/acosh_native.h>
#include <ATen/ops/add_native.h>
#include <ATen/ops/addcdiv_native.h>
#include <ATen/ops/addcmul_native.h>
#include <ATen/ops/angle_native.h>
#include <ATen/ops/asin_native.h>
#include <ATen/ops/asinh_native.h>
#include <ATen/ops/atan_native.h>
#include <ATen/ops/atan2_native.h>
#include <ATen/ops/atanh_native.h>
#include <ATen/ops/bitwise_and_native.h>
#include <ATen/ops/bitwise_left_shift_native.h>
#include <ATen/ops/bitwise_not_native.h>
#include <ATen/ops/bitwise_or_native.h>
#include <ATen/ops/bitwise_right_shift_native.h>
#include <ATen/ops/bitwise_xor_native.h>
#include <ATen/ops/ceil_native.h>
#include <ATen/ops/clamp_native.h>
#include <ATen/ops/clamp_max_native.h>
#include <ATen/ops/clamp_min_native.h>
#include <ATen/ops/conj_physical_native.h>
#include <ATen/ops/copysign_native.h>
#include <ATen/ops/cos_native.h>
#include <ATen/ops/complex_native.h>
#include <ATen/ops/cosh_native.h>
#include <ATen/ops/digamma_native.h>
#include <ATen/ops/div_native.h>
#include <ATen/ops/elu_native.h>
#include <ATen/ops/elu_backward_native.h>
#include <ATen/ops/eq_native.h>
#include <ATen/ops/erf_native.h>
#include <ATen/ops/erfc_native.h>
#include <ATen/ops/erfinv_native.h>
#include <ATen/ops/exp_native.h>
#include <ATen/ops/exp2_native.h>
#include <ATen/ops/expm1_native.h>
#include <ATen/ops/floor_native.h>
#include <ATen/ops/floor_divide_native.h>
#include <ATen/ops/fmax_native.h>
#include <ATen/ops/fmin_native.h>
#include <ATen/ops/fmod_native.h>
#include <ATen/ops/frac_native.h>
#include <ATen/ops/frexp_native.h>
#include <ATen/ops/gcd_native.h>
#include <ATen/ops/ge_native.h>
#include <ATen/ops/gelu_native.h>
#include <ATen/ops/gelu_backward_native.h>
#include <ATen/ops/glu_native.h>
#include <ATen/ops/glu_backward_native.h>
#include <ATen/ops/gt_native.h>
#include <ATen/ops/_prelu_kernel_backward_native.h>
#include <ATen/ops/_prelu_kernel_native.h>
#include <ATen/ops/hardshrink_native.h>
#include <ATen/ops/hardshrink_backward_native.h>
#include <ATen/ops/hardsigmoid_native.h>
#include <ATen/ops/hardsigmoid_backward_native.h>
#include <ATen/ops/hardswish_native.h>
#include <ATen/ops/hardswish_backward_native.h>
#include <ATen/ops/hardtanh_native.h>
#include <ATen/ops/hardtanh_backward_native.h>
#include <ATen/ops/heaviside_native.h>
#include <ATen/ops/hypot_native.h>
#include <ATen/ops/isneginf_native.h>
#include <ATen/ops/isposinf_native.h>
#include <ATen/ops/lcm_native.h>
#include <ATen/ops/le_native.h>
#include <ATen/ops/leaky_relu_native.h>
#include <ATen/ops/leaky_relu_backward_native.h>
#include <ATen/ops/lerp_native.h>
#include <ATen/ops/lgamma_native.h>
#include <ATen/ops/log_native.h>
#include <ATen/ops/log10_native.h>
#include <ATen/ops/log1p_native.h>
#include <ATen/ops/log2_native.h>
#include <ATen/ops/log_sigmoid_backward_native.h>
#include <ATen/ops/log_sigmoid_forward_native.h>
#include <ATen/ops/logaddexp_native.h>
#include <ATen/ops/logaddexp2_native.h>
#include <ATen/ops/logical_and_native.h>
#include <ATen/ops/logical_not_native.h>
#include <ATen/ops/logical_or_native.h>
#include <ATen/ops/logical_xor_native.h>
#include <ATen/ops/logit_native.h>
#include <ATen/ops/logit_backward_native.h>
#include <ATen/ops/lt_native.h>
#include <ATen/ops/maximum_native.h>
#include <ATen/ops/minimum_native.h>
#include <ATen/ops/mish_native.h>
#include <ATen/ops/mish_backward_native.h>
#include <ATen/ops/mul_native.h>
#include <ATen/ops/nan_to_num_native.h>
#include <ATen/ops/ne_native.h>
#include <ATen/ops/neg_native.h>
#include <ATen/ops/polar_native.h>
#include <ATen/ops/pow_native.h>
#include <ATen/ops/reciprocal_native.h>
#include <ATen/ops/relu_native.h>
#include <ATen/ops/remainder_native.h>
#include <ATen/ops/renorm_native.h>
#include <ATen/ops/round_native.h>
#include <ATen/ops/rsqrt_native.h>
#include <ATen/ops/sgn_native.h>
#include <ATen/ops/sigmoid_native.h>
#include <ATen/ops/sigmoid_backward_native.h>
#include <ATen/ops/sign_native.h>
#include <ATen/ops/signbit_native.h>
#include <ATen/ops/silu_native.h>
#include <ATen/ops/silu_backward_native.h>
#include <ATen/ops/sin_native.h>
#include <ATen/ops/sinc_native.h>
#include <ATen/ops/sinh_native.h>
#include <ATen/ops/softplus_native.h>
#include <ATen/ops/softplus_backward_native.h>
#include <ATen/ops/softshrink_native.h>
#include <ATen/ops/softshrink_backward_native.h>
#include <ATen/ops/special_xlog1py_native.h>
#include <ATen/ops/sqrt_native.h>
#include <ATen/ops/sub_native.h>
#include <ATen/ops/tan_native.h>
#include <ATen/ops/tanh_native.h>
#include <ATen/ops/tanh_backward_native.h>
#include <ATen/ops/threshold_native.h>
#include <ATen/ops/threshold_backward_native.h>
#include <ATen/ops/trunc_native.h>
#include <ATen/ops/where_native.h>
#include <ATen/ops/where.h>
#include <ATen/ops/view_as_real.h>
#include <ATen/ops/result_type.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/xlogy_native.h>
#include <ATen/ExpandUtils.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/isnan_native.h>
#include <ATen/ops/rsub_native.h>
#include <ATen/ops/lshift_native.h>
#include <ATen/ops/rshift_native.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/result_type.h>
#include <ATen/ops/scalar_tensor.h>

#include "kernels/register_op.h"
#include "kernels/op_table.h"

using namespace torch_ocl;
using at::Tensor;
using at::Scalar;

// ---- unary math (float-promoting: integer inputs give float results) ----
OCL_UNARY_C(exp, .expr = "exp(a)", .dtypes = kFloating, .complex_expr = "c_exp(a)")
OCL_UNARY_C(exp2, .expr = "exp2(a)", .dtypes = kFloating, .complex_expr = "c_exp2(a)")
OCL_UNARY_C(expm1, .expr = "expm1(a)", .dtypes = kFloating, .complex_expr = "c_expm1(a)")
OCL_UNARY_C(log, .expr = "log(a)", .dtypes = kFloating, .complex_expr = "c_log(a)")
OCL_UNARY_C(log2, .expr = "log2(a)", .dtypes = kFloating, .complex_expr = "c_log2(a)")
OCL_UNARY_C(log10, .expr = "log10(a)", .dtypes = kFloating, .complex_expr = "c_log10(a)")
OCL_UNARY_C(log1p, .expr = "log1p(a)", .dtypes = kFloating, .complex_expr = "c_log1p(a)")
OCL_UNARY_C(sqrt, .expr = "sqrt(a)", .dtypes = kFloating, .complex_expr = "c_sqrt(a)")
OCL_UNARY_C(rsqrt, .expr = "rsqrt(a)", .dtypes = kFloating, .complex_expr = "c_rsqrt(a)")
OCL_UNARY_C(sin, .expr = "sin(a)", .dtypes = kFloating, .complex_expr = "c_sin(a)")
OCL_UNARY_C(cos, .expr = "cos(a)", .dtypes = kFloating, .complex_expr = "c_cos(a)")
OCL_UNARY_C(tan, .expr = "tan(a)", .dtypes = kFloating, .complex_expr = "c_tan(a)")
OCL_UNARY_C(sinh, .expr = "sinh(a)", .dtypes = kFloating, .complex_expr = "c_sinh(a)")
OCL_UNARY_C(cosh, .expr = "cosh(a)", .dtypes = kFloating, .complex_expr = "c_cosh(a)")
OCL_UNARY_C(tanh, .expr = "tanh(a)", .dtypes = kFloating, .complex_expr = "c_tanh(a)")
OCL_UNARY_C(asin, .expr = "asin(a)", .dtypes = kFloating, .complex_expr = "c_asin(a)")
OCL_UNARY_C(acos, .expr = "acos(a)", .dtypes = kFloating, .complex_expr = "c_acos(a)")
OCL_UNARY_C(atan, .expr = "atan(a)", .dtypes = kFloating, .complex_expr = "c_atan(a)")
OCL_UNARY_C(asinh, .expr = "asinh(a)", .dtypes = kFloating, .complex_expr = "c_asinh(a)")
OCL_UNARY_C(acosh, .expr = "acosh(a)", .dtypes = kFloating, .complex_expr = "c_acosh(a)")
OCL_UNARY_C(atanh, .expr = "atanh(a)", .dtypes = kFloating, .complex_expr = "c_atanh(a)")
OCL_UNARY(erf, .expr = "pw_erf(a)", .dtypes = kFloating, .complex_refused = true)
OCL_UNARY(erfc, .expr = "pw_erfc(a)", .dtypes = kFloating, .complex_refused = true)
OCL_UNARY(erfinv, .expr = "pw_erfinv(a)", .dtypes = kFloating, .complex_refused = true)
OCL_UNARY(lgamma, .expr = "lgamma(a)", .dtypes = kFloating, .complex_refused = true)
OCL_UNARY(digamma, .expr = "pw_digamma(a)", .dtypes = kFloating, .complex_refused = true)
OCL_UNARY_C(sinc, .expr = "pw_sinc(a)", .dtypes = kFloating, .complex_expr = "c_sinc(a)")
OCL_UNARY_C(sigmoid, .expr = "(T)1 / ((T)1 + exp(-a))", .dtypes = kFloating, .complex_expr = "c_sigmoid(a)")
OCL_UNARY_C(reciprocal, .expr = "(T)1 / a", .dtypes = kFloating, .complex_expr = "c_recip(a)")
// ---- unary, dtype-preserving (ATen copies integers for the rounding ops) ----
OCL_UNARY_C(neg, .expr = "-a", .dtypes = kNumbers, .complex_expr = "-a")
OCL_UNARY(ceil, .expr = "ceil(a)", .dtypes = kFloating)
OCL_UNARY(floor, .expr = "floor(a)", .dtypes = kFloating)
OCL_UNARY(round, .expr = "rint(a)", .dtypes = kFloating, .complex_refused = true)
OCL_UNARY(trunc, .expr = "trunc(a)", .dtypes = kFloating)
OCL_UNARY(frac, .expr = "a - trunc(a)", .dtypes = kFloating, .complex_refused = true)
OCL_POINTWISE_STUB(round_decimals, round_decimals_stub, .expr = "pw_round_decimals(a, p0)",
                   .dtypes = kFloating, .params = "L")
OCL_NATIVE_OP(structured_round_decimals_out, "round.decimals", "round_.decimals", "round.decimals_out")
OCL_UNARY(sign, .expr = "pw_sign(a)", .dtypes = kAllTypes)
// sgn: sign_stub for real dtypes, sgn_stub (z / |z|) for complex ones
OCL_POINTWISE_STUB(sgn, sgn_stub, .expr = "a", .dtypes = 0, .complex_expr = "c_sgn(a)")
OCL_NATIVE_OP_C(structured_sgn_out, "sgn", "sgn_", "sgn.out")
OCL_POINTWISE_STUB(conj_physical, conj_physical_stub, .expr = "a", .dtypes = kAllTypes, .complex_expr = "c_conj(a)")
OCL_NATIVE_FN_C("conj_physical.out", &at::native::conj_physical_out)
OCL_UNARY(bitwise_not, .expr = "(T)(T_IS_BOOL ? (a == (T)0) : ~a)", .dtypes = kIntegralAndBool, .complex_refused = true)
OCL_UNARY_PREDICATE(signbit, .expr = "signbit(a) != 0", .dtypes = kNumbers, .int_expr = "a < (T)0")
OCL_UNARY_PREDICATE(isposinf, .expr = "a == PW_INF", .dtypes = kFloating)
OCL_UNARY_PREDICATE(isneginf, .expr = "a == -PW_INF", .dtypes = kFloating)
// abs and angle of complex: ATen runs the stub into a complex temporary and copies its real part.
// abs of bool is the identity, as on CUDA (the CPU has no bool kernel).
OCL_POINTWISE_STUB(abs, abs_stub, .expr = "fabs(a)", .dtypes = kAllTypes,
                   .int_expr = "(T)(a < (T)0 ? (T)0 - a : a)", .complex_expr = "(T)(c_abs(a), (R)0)")
OCL_NATIVE_FN_C("abs.out", &at::native::abs_out)
OCL_POINTWISE_STUB(angle, angle_stub, .expr = "isnan(a) ? a : (a < (T)0 ? PW_PI : (T)0)", .dtypes = kFloating,
                   .complex_expr = "(T)(c_arg(a), (R)0)")
OCL_NATIVE_FN_C("angle", &at::native::angle)
OCL_NATIVE_FN_C("angle.out", &at::native::angle_out)
OCL_POINTWISE_STUB(logical_not, logical_not_stub, .expr = "a == (T)0", .dtypes = kAllTypes,
                   .complex_expr = "!c_truth(a)", .truth_value = true)
// logit(x, eps) and its backward: p0 = lo, p1 = hi, as the CPU rounds them to
// the dtype (lo = eps, hi = 1 - lo in float16/bfloat16 arithmetic); eps < 0: no clamp.
namespace {
constexpr PointwiseOp k_logit{.name = "logit", .expr = "pw_logit(p0 < (T)0 ? a : pw_clamp(a, p0, p1), (T)-1)",
                              .dtypes = kFloating, .params = "TT"};
constexpr PointwiseOp k_logit_backward{
    .name = "logit_backward", .expr = "(p0 >= (T)0 && (b < p0 || b > p1)) ? (T)0 : pw_logit_backward(a, b, (T)-1)",
    .ninputs = 2, .dtypes = kFloating, .params = "TT"};
std::pair<Scalar, Scalar> logit_bounds(c10::ScalarType dtype, const Scalar& eps) {
  if (eps.toDouble() < 0) return {eps, eps};
  Scalar lo, hi;
  AT_DISPATCH_FLOATING_TYPES_AND2(c10::kHalf, c10::kBFloat16, dtype, "logit", [&] {
    const scalar_t l = eps.to<scalar_t>();
    const scalar_t h = scalar_t(1) - l;
    lo = Scalar(static_cast<double>(l));
    hi = Scalar(static_cast<double>(h));
  });
  return {lo, hi};
}
void logit_kernel(at::TensorIteratorBase& iter, const Scalar& eps) {
  check_op_dtype(k_logit, iter.common_dtype());
  const auto [lo, hi] = logit_bounds(iter.common_dtype(), eps);
  run_pointwise(iter, k_logit, {lo, hi});
}
void logit_backward_kernel(at::TensorIteratorBase& iter, const Scalar& eps) {
  check_op_dtype(k_logit_backward, iter.common_dtype());
  const auto [lo, hi] = logit_bounds(iter.common_dtype(), eps);
  run_pointwise(iter, k_logit_backward, {lo, hi});
}
// renorm's factor per slice (ATen's structured renorm_out takes the norms
// and multiplies), as the CPU's and CUDA's kernels: maxnorm / (norm + 1e-7)
// where the norm exceeds maxnorm, else 1.
constexpr PointwiseOp k_renorm_scale{.name = "renorm_scale", .expr = "a > p0 ? p0 / (a + (T)1e-7) : (T)1",
                                     .ninputs = 1, .dtypes = kFloating, .params = "T"};
void renorm_scale_kernel(at::TensorIteratorBase& iter, double maxnorm) {
  run_pointwise(iter, k_renorm_scale, {maxnorm});
}
}  // namespace
namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(renorm_scale_factor_stub, &renorm_scale_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(logit_stub, &logit_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(logit_backward_stub, &logit_backward_kernel)
}  // namespace at::native
OCL_NATIVE_FN("logit", &at::native::logit)
OCL_NATIVE_OP(structured_renorm_out, "renorm", "renorm_", "renorm.out")
OCL_NATIVE_FN("logit_", &at::native::logit_)
OCL_NATIVE_FN("logit.out", &at::native::logit_out)
OCL_POINTWISE_STUB(frexp, frexp_stub, .expr = "pw_frexp_mantissa(a)", .dtypes = kFloating,
                   .expr2 = "pw_frexp_exponent(a)", .compute_operand = 2)
OCL_NATIVE_FN("frexp.Tensor_out", &at::native::frexp_out)

// complex(real, imag) and polar(abs, angle): real inputs, a complex result (the
// kernel computes in the output's type; the inputs arrive with imaginary part 0).
namespace {
constexpr PointwiseOp k_complex{.name = "complex", .expr = "a", .ninputs = 2, .dtypes = 0,
                                .complex_expr = "(T)(a.x, b.x)"};
constexpr PointwiseOp k_polar{.name = "polar", .expr = "a", .ninputs = 2, .dtypes = 0,
                              .complex_expr = "(T)(a.x * cos(b.x), a.x * sin(b.x))"};
// complex() of float16 makes complex32, which has no kernels: its real and
// imaginary halves are written as two strided half copies.
void complex_kernel(at::TensorIterator& iter) {
  if (iter.dtype(0) == at::kComplexHalf) {
    const Tensor parts = at::view_as_real(iter.tensor(0));
    parts.select(-1, 0).copy_(iter.tensor(1));
    parts.select(-1, 1).copy_(iter.tensor(2));
    return;
  }
  run_pointwise(iter, k_complex, {}, iter.dtype(0));
}
// polar takes float and double parts, as CUDA's kernel (its OpInfo lists half
// for MPS only); complex() also takes half parts.
void polar_kernel(at::TensorIterator& iter) {
  const auto parts = iter.input_dtype(0);
  TORCH_CHECK_NOT_IMPLEMENTED(parts == at::kFloat || parts == at::kDouble, "\"polar\" not implemented for '",
                              c10::toString(parts), "'");
  run_pointwise(iter, k_polar, {}, iter.dtype(0));
}
}  // namespace
namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(complex_stub, &complex_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(polar_stub, &polar_kernel)
}  // namespace at::native
// complex_out's own dtype check admits float16/32/64 parts only; the result
// is complex (complex32 for half parts: handled above).
namespace {
bool complex_parts(c10::ScalarType t) { return torch_ocl::takes_complex(t) || t == c10::kComplexHalf; }
}  // namespace
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { ::torch_ocl::register_op<&at::native::complex_out, complex_parts>(m, "complex.out"); }
OCL_NATIVE_FN_C("polar.out", &at::native::polar_out)

// ---- binary arithmetic ----
OCL_POINTWISE_STUB(add, add_stub, .expr = "a + p0 * b", .ninputs = 2, .params = "T",
                   .complex_expr = "a + c_mul(p0, b)")
OCL_NATIVE_OP_C(structured_ufunc_add_CPU, "add.Tensor", "add_.Tensor", "add.out", OCL_DIRECT(add))  // device-generic despite its name
OCL_NATIVE_OP_C(structured_sub_out, "sub.Tensor", "sub_.Tensor", "sub.out", OCL_DIRECT_NEGATED(add))       // add_stub with -alpha
OCL_POINTWISE_STUB(mul, mul_stub, .expr = "a * b", .ninputs = 2, .complex_expr = "c_mul(a, b)")
OCL_NATIVE_OP_C(structured_mul_out, "mul.Tensor", "mul_.Tensor", "mul.out", OCL_DIRECT(mul))
OCL_POINTWISE_STUB(div_true, div_true_stub, .expr = "a / b", .ninputs = 2, .dtypes = kFloating,
                   .complex_expr = "c_div(a, b)")
// (the quotient rounded to half / bfloat16 first, as the CPU and NumPy)
OCL_POINTWISE_STUB(div_trunc, div_trunc_stub, .expr = "trunc(ROUND_OUT(a / b))", .ninputs = 2, .dtypes = kNumbers,
                   .int_expr = "pw_idiv(a, b)")
OCL_POINTWISE_STUB(div_floor, div_floor_stub, .expr = "pw_div_floor(a, b)", .ninputs = 2, .dtypes = kNumbers)
OCL_NATIVE_OP_C(structured_div_out, "div.Tensor", "div_.Tensor", "div.out", OCL_DIRECT(div_true))
OCL_NATIVE_OP(structured_div_out_mode, "div.Tensor_mode", "div_.Tensor_mode", "div.out_mode")
OCL_NATIVE_FN("floor_divide", static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&at::native::floor_divide))
OCL_NATIVE_FN("floor_divide_.Tensor", static_cast<Tensor& (*)(Tensor&, const Tensor&)>(&at::native::floor_divide_))
OCL_NATIVE_FN("floor_divide.out", &at::native::floor_divide_out)
OCL_POINTWISE_STUB(remainder, remainder_stub, .expr = "pw_remainder(a, b)", .ninputs = 2, .dtypes = kNumbers)
OCL_NATIVE_OP(structured_remainder_out, "remainder.Tensor", "remainder_.Tensor", "remainder.Tensor_out")
OCL_NATIVE_FN("remainder.Scalar_Tensor", static_cast<Tensor (*)(const Scalar&, const Tensor&)>(&at::native::remainder))
OCL_POINTWISE_STUB(fmod, fmod_stub, .expr = "fmod(a, b)", .ninputs = 2, .dtypes = kNumbers,
                   .int_expr = "pw_imod(a, b)")
OCL_NATIVE_OP(structured_fmod_out, "fmod.Tensor", "fmod_.Tensor", "fmod.Tensor_out")
OCL_POINTWISE_STUB(atan2, atan2_stub, .expr = "atan2(a, b)", .ninputs = 2, .dtypes = kFloating)
OCL_NATIVE_OP(structured_atan2_out, "atan2", "atan2_", "atan2.out")
OCL_POINTWISE_STUB(hypot, hypot_stub, .expr = "hypot(a, b)", .ninputs = 2, .dtypes = kFloating)
OCL_NATIVE_OP(structured_hypot_out, "hypot", "hypot_", "hypot.out")
OCL_POINTWISE_STUB(copysign, copysign_stub, .expr = "copysign(a, b)", .ninputs = 2, .dtypes = kFloating)
OCL_NATIVE_OP(structured_copysign_out, "copysign.Tensor", "copysign_.Tensor", "copysign.out")
OCL_POINTWISE_STUB(logaddexp, logaddexp_stub, .expr = "pw_logaddexp(a, b)", .ninputs = 2, .dtypes = kFloating,
                   .complex_expr = "c_logaddexp(a, b)")
OCL_NATIVE_OP_C(structured_logaddexp_out, "logaddexp", nullptr, "logaddexp.out")
OCL_POINTWISE_STUB(logaddexp2, logaddexp2_stub, .expr = "pw_logaddexp2(a, b)", .ninputs = 2, .dtypes = kFloating)
OCL_NATIVE_OP(structured_logaddexp2_out, "logaddexp2", nullptr, "logaddexp2.out")
OCL_POINTWISE_STUB(xlogy, xlogy_stub, .expr = "pw_xlogy(a, b)", .ninputs = 2, .dtypes = kFloating)
OCL_NATIVE_OP(structured_xlogy_out, "xlogy.Tensor", "xlogy_.Tensor", "xlogy.OutTensor")
OCL_POINTWISE_STUB(xlog1py, xlog1py_stub, .expr = "pw_xlog1py(a, b)", .ninputs = 2, .dtypes = kFloating)
OCL_NATIVE_OP(structured_special_xlog1py_out, "special_xlog1py", nullptr, "special_xlog1py.out")
OCL_POINTWISE_STUB(heaviside, heaviside_stub, .expr = "a == (T)0 ? b : (T)(a > (T)0)", .ninputs = 2)
OCL_NATIVE_OP(structured_heaviside_out, "heaviside", "heaviside_", "heaviside.out")
OCL_POINTWISE_STUB(maximum, maximum_stub, .expr = "pw_maximum(a, b)", .ninputs = 2, .complex_refused = true)
OCL_NATIVE_OP(structured_maximum_out, "maximum", nullptr, "maximum.out", OCL_DIRECT(maximum))
OCL_POINTWISE_STUB(minimum, minimum_stub, .expr = "pw_minimum(a, b)", .ninputs = 2, .complex_refused = true)
OCL_NATIVE_OP(structured_minimum_out, "minimum", nullptr, "minimum.out", OCL_DIRECT(minimum))
OCL_POINTWISE_STUB(fmax, fmax_stub, .expr = "fmax(a, b)", .ninputs = 2, .dtypes = kAllTypes,
                   .int_expr = "max(a, b)")
OCL_NATIVE_OP(structured_fmax_out, "fmax", nullptr, "fmax.out")
OCL_POINTWISE_STUB(fmin, fmin_stub, .expr = "fmin(a, b)", .ninputs = 2, .dtypes = kAllTypes,
                   .int_expr = "min(a, b)")
OCL_NATIVE_OP(structured_fmin_out, "fmin", nullptr, "fmin.out")
OCL_POINTWISE_STUB(gcd, gcd_stub, .expr = "pw_gcd(a, b)", .ninputs = 2, .dtypes = kIntegral)
OCL_NATIVE_OP(structured_gcd_out, "gcd", "gcd_", "gcd.out")
OCL_POINTWISE_STUB(lcm, lcm_stub, .expr = "pw_lcm(a, b)", .ninputs = 2, .dtypes = kIntegral)
OCL_NATIVE_OP(structured_lcm_out, "lcm", "lcm_", "lcm.out")
OCL_POINTWISE_STUB(pow_tensor_tensor, pow_tensor_tensor_stub, .expr = "pw_pow(a, b)", .ninputs = 2,
                   .dtypes = kNumbers, .int_expr = "pw_powi(a, b)", .complex_expr = "c_pow(a, b)")
OCL_NATIVE_OP_C(structured_pow_Tensor_Tensor_out, "pow.Tensor_Tensor", "pow_.Tensor", "pow.Tensor_Tensor_out")
OCL_POINTWISE_STUB(pow_tensor_scalar, pow_tensor_scalar_stub, .expr = "pw_pow_scalar(a, p0)", .dtypes = kNumbers,
                   .int_expr = "pw_powi(a, p0)", .params = "T", .complex_expr = "c_pow_scalar(a, p0)")
OCL_NATIVE_OP_C(structured_pow_Tensor_Scalar_out, "pow.Tensor_Scalar", "pow_.Scalar", "pow.Tensor_Scalar_out")
// pow.Scalar: the base as a 0-dim tensor on the device (ATen's impl wraps it on the CPU).
namespace {
Tensor scalar_base(const Scalar& base, const Tensor& exp) {
  return at::scalar_tensor(base, exp.options().dtype(at::result_type(base, exp)));
}
Tensor pow_scalar(const Scalar& base, const Tensor& exp) { return at::pow(scalar_base(base, exp), exp); }
Tensor& pow_scalar_out(const Scalar& base, const Tensor& exp, Tensor& out) {
  return at::pow_out(out, scalar_base(base, exp), exp);
}
}  // namespace
OCL_NATIVE_FN_C("pow.Scalar", &pow_scalar)
OCL_NATIVE_FN_C("pow.Scalar_out", &pow_scalar_out)

// ---- bitwise and logical ----
OCL_POINTWISE_STUB(bitwise_and, bitwise_and_stub, .expr = "a & b", .ninputs = 2, .dtypes = kIntegralAndBool)
OCL_NATIVE_OP(structured_bitwise_and_out, "bitwise_and.Tensor", "bitwise_and_.Tensor", "bitwise_and.Tensor_out")
OCL_POINTWISE_STUB(bitwise_or, bitwise_or_stub, .expr = "a | b", .ninputs = 2, .dtypes = kIntegralAndBool)
OCL_NATIVE_OP(structured_bitwise_or_out, "bitwise_or.Tensor", "bitwise_or_.Tensor", "bitwise_or.Tensor_out")
OCL_POINTWISE_STUB(bitwise_xor, bitwise_xor_stub, .expr = "a ^ b", .ninputs = 2, .dtypes = kIntegralAndBool)
OCL_NATIVE_OP(structured_bitwise_xor_out, "bitwise_xor.Tensor", "bitwise_xor_.Tensor", "bitwise_xor.Tensor_out")
OCL_POINTWISE_STUB(lshift, lshift_stub, .expr = "pw_lshift(a, b)", .ninputs = 2, .dtypes = kIntegral)
OCL_NATIVE_OP(structured_bitwise_left_shift_out, "bitwise_left_shift.Tensor", "bitwise_left_shift_.Tensor",
              "bitwise_left_shift.Tensor_out")
OCL_POINTWISE_STUB(rshift, rshift_stub, .expr = "pw_rshift(a, b)", .ninputs = 2, .dtypes = kIntegral)
OCL_NATIVE_OP(structured_bitwise_right_shift_out, "bitwise_right_shift.Tensor", "bitwise_right_shift_.Tensor",
              "bitwise_right_shift.Tensor_out")
#define OCL_SHIFT_DUNDERS(op)                                                                              \
  OCL_NATIVE_FN("__" #op "__.Tensor", static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&at::native::__##op##__)) \
  OCL_NATIVE_FN("__" #op "__.Scalar", static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&at::native::__##op##__)) \
  OCL_NATIVE_FN("__i" #op "__.Tensor", static_cast<Tensor& (*)(Tensor&, const Tensor&)>(&at::native::__i##op##__))   \
  OCL_NATIVE_FN("__i" #op "__.Scalar", static_cast<Tensor& (*)(Tensor&, const Scalar&)>(&at::native::__i##op##__))
OCL_SHIFT_DUNDERS(lshift)  // a << b: lshift_stub
OCL_SHIFT_DUNDERS(rshift)
// (complex operands: true when re or im is nonzero)
OCL_POINTWISE_STUB(logical_and, logical_and_stub, .expr = "a != (T)0 && b != (T)0", .ninputs = 2,
                   .complex_expr = "c_truth(a) && c_truth(b)", .truth_value = true)
OCL_POINTWISE_STUB(logical_or, logical_or_stub, .expr = "a != (T)0 || b != (T)0", .ninputs = 2,
                   .complex_expr = "c_truth(a) || c_truth(b)", .truth_value = true)
OCL_POINTWISE_STUB(logical_xor, logical_xor_stub, .expr = "(a != (T)0) != (b != (T)0)", .ninputs = 2,
                   .complex_expr = "c_truth(a) != c_truth(b)", .truth_value = true)
// (a complex result, logical_and_ of a complex tensor or out= complex, stores
// the truth value as (v, 0): truth_value)
OCL_NATIVE_FN_C("logical_not.out", &at::native::logical_not_out)
OCL_NATIVE_FN_C("logical_and.out", &at::native::logical_and_out)
OCL_NATIVE_FN_C("logical_or.out", &at::native::logical_or_out)
OCL_NATIVE_FN_C("logical_xor.out", &at::native::logical_xor_out)

// ---- comparisons (bool output; the .Scalar overloads wrap the scalar as a CPU operand) ----
#define OCL_COMPARISON(id, e)                                                             \
  OCL_POINTWISE_STUB(id, id##_stub, .expr = e, .ninputs = 2)                              \
  OCL_NATIVE_OP(structured_##id##_Tensor_out, #id ".Tensor", #id "_.Tensor", #id ".Tensor_out") \
  OCL_NATIVE_OP(structured_##id##_Scalar_out, #id ".Scalar", #id "_.Scalar", #id ".Scalar_out")
// eq / ne also compare complex numbers (the ordering comparisons raise for them, as on the CPU)
#define OCL_EQUALITY(id, e, ce)                                                               \
  OCL_POINTWISE_STUB(id, id##_stub, .expr = e, .ninputs = 2, .complex_expr = ce, .truth_value = true) \
  OCL_NATIVE_OP_C(structured_##id##_Tensor_out, #id ".Tensor", #id "_.Tensor", #id ".Tensor_out") \
  OCL_NATIVE_OP_C(structured_##id##_Scalar_out, #id ".Scalar", #id "_.Scalar", #id ".Scalar_out")
OCL_EQUALITY(eq, "a == b", "a.x == b.x && a.y == b.y")
OCL_EQUALITY(ne, "a != b", "a.x != b.x || a.y != b.y")
OCL_COMPARISON(lt, "a < b")
OCL_COMPARISON(le, "a <= b")
OCL_COMPARISON(gt, "a > b")
OCL_COMPARISON(ge, "a >= b")

// ---- ternary and clamps ----
OCL_POINTWISE_STUB(addcmul, addcmul_stub, .expr = "a + p0 * b * c", .ninputs = 3, .dtypes = kNumbers, .params = "T",
                   .complex_expr = "a + c_mul(p0, c_mul(b, c))")
OCL_NATIVE_OP_C(structured_addcmul_out, "addcmul", "addcmul_", "addcmul.out", OCL_DIRECT(addcmul))
OCL_POINTWISE_STUB(addcdiv, addcdiv_stub, .expr = "a + p0 * (b / c)", .ninputs = 3, .dtypes = kNumbers,
                   .int_expr = "a + p0 * pw_idiv(b, c)", .params = "T", .complex_expr = "a + c_mul(p0, c_div(b, c))")
OCL_NATIVE_OP_C(structured_addcdiv_out, "addcdiv", "addcdiv_", "addcdiv.out", OCL_DIRECT(addcdiv))
// lerp as ATen's: weights below 0.5 start from `a`, the rest from `b`, for accuracy.
OCL_POINTWISE_STUB(lerp_scalar, lerp_kernel_scalar_weight,
                   .expr = "fabs(p0) < (T)0.5 ? a + p0 * (b - a) : b - (b - a) * ((T)1 - p0)",
                   .ninputs = 2, .dtypes = kFloating, .params = "T", .complex_expr = "c_lerp(a, b, p0)")
OCL_NATIVE_OP_C(structured_lerp_Scalar, "lerp.Scalar", "lerp_.Scalar", "lerp.Scalar_out")
OCL_POINTWISE_STUB(lerp_tensor, lerp_kernel_tensor_weight,
                   .expr = "fabs(c) < (T)0.5 ? a + c * (b - a) : b - (b - a) * ((T)1 - c)",
                   .ninputs = 3, .dtypes = kFloating, .complex_expr = "c_lerp(a, b, c)")
OCL_NATIVE_OP_C(structured_lerp_Tensor, "lerp.Tensor", "lerp_.Tensor", "lerp.Tensor_out")
OCL_POINTWISE_STUB(where, where_kernel, .expr = "a != (T)0 ? b : c", .ninputs = 3, .compute_operand = 0,
                   .complex_expr = "a.x != (R)0 ? b : c")
OCL_NATIVE_FN_C("where.self", static_cast<Tensor (*)(const Tensor&, const Tensor&, const Tensor&)>(&at::native::where))
OCL_NATIVE_FN_C("where.self_out", &at::native::where_self_out)
OCL_POINTWISE_STUB(clamp_scalar, clamp_scalar_stub, .expr = "pw_clamp(a, p0, p1)", .dtypes = kNumbers,
                   .params = "TT")
// std::max / std::min as the CPU: a NaN `a` comes back; a select, which vectorises.
OCL_POINTWISE_STUB(clamp_min_scalar, clamp_min_scalar_stub, .expr = "a < p0 ? p0 : a",
                   .dtypes = kNumbers, .int_expr = "max(a, p0)", .params = "T")
OCL_POINTWISE_STUB(clamp_max_scalar, clamp_max_scalar_stub, .expr = "p0 < a ? p0 : a",
                   .dtypes = kNumbers, .int_expr = "min(a, p0)", .params = "T")
OCL_POINTWISE_STUB(clamp_tensor, clamp_stub, .expr = "pw_clamp3(a, b, c)", .ninputs = 3, .dtypes = kNumbers)
OCL_NATIVE_OP(structured_clamp_out, "clamp", "clamp_", "clamp.out")
OCL_NATIVE_OP(structured_clamp_Tensor_out, "clamp.Tensor", "clamp_.Tensor", "clamp.Tensor_out")
OCL_NATIVE_OP(structured_clamp_min_out, "clamp_min", "clamp_min_", "clamp_min.out", OCL_DIRECT(clamp_min_scalar))
OCL_NATIVE_OP(structured_clamp_min_Tensor_out, "clamp_min.Tensor", "clamp_min_.Tensor", "clamp_min.Tensor_out",
              OCL_DIRECT(maximum))
OCL_NATIVE_OP(structured_clamp_max_out, "clamp_max", "clamp_max_", "clamp_max.out", OCL_DIRECT(clamp_max_scalar))
OCL_NATIVE_OP(structured_clamp_max_Tensor_out, "clamp_max.Tensor", "clamp_max_.Tensor", "clamp_max.Tensor_out",
              OCL_DIRECT(minimum))

// ---- activations and their backward kernels ----
OCL_NATIVE_FN("relu", &at::native::relu)      // clamp_min(self, 0)
OCL_NATIVE_FN("relu_", &at::native::relu_)
OCL_NATIVE_FN("hardtanh", &at::native::hardtanh)  // clamp
OCL_NATIVE_FN("hardtanh_", &at::native::hardtanh_)
OCL_NATIVE_FN("hardtanh.out", &at::native::hardtanh_out)
// threshold(x, threshold, value) and threshold_backward(grad, x, threshold): a = x, b = other
OCL_POINTWISE_STUB(threshold, threshold_stub, .expr = "a <= p0 ? p1 : b", .ninputs = 2, .dtypes = kNumbers,
                   .params = "TT")
OCL_NATIVE_OP(structured_threshold_out, "threshold", "threshold_", "threshold.out")
OCL_NATIVE_OP(structured_threshold_backward_out, "threshold_backward", nullptr, "threshold_backward.grad_input")
OCL_POINTWISE_STUB(hardtanh_backward, hardtanh_backward_stub, .expr = "(b <= p0 || b >= p1) ? (T)0 : a",
                   .ninputs = 2, .dtypes = kNumbers, .params = "TT")
OCL_NATIVE_FN("hardtanh_backward", &at::native::hardtanh_backward)
OCL_NATIVE_FN("hardtanh_backward.grad_input", &at::native::hardtanh_backward_out)
// (complex: the gradient times the conjugate derivative, as the CPU)
OCL_POINTWISE_STUB(sigmoid_backward, sigmoid_backward_stub, .expr = "a * ((T)1 - b) * b", .ninputs = 2,
                   .dtypes = kFloating, .complex_expr = "c_mul(a, c_conj(c_mul((T)((R)1, (R)0) - b, b)))")
OCL_NATIVE_OP_C(structured_sigmoid_backward_out, "sigmoid_backward", nullptr, "sigmoid_backward.grad_input",
                OCL_DIRECT(sigmoid_backward))
OCL_POINTWISE_STUB(tanh_backward, tanh_backward_stub, .expr = "a * ((T)1 - b * b)", .ninputs = 2,
                   .dtypes = kFloating, .complex_expr = "c_mul(a, c_conj((T)((R)1, (R)0) - c_mul(b, b)))")
OCL_NATIVE_OP_C(structured_tanh_backward_out, "tanh_backward", nullptr, "tanh_backward.grad_input",
                OCL_DIRECT(tanh_backward))
OCL_NATIVE_OP(structured_logit_backward_out, "logit_backward", nullptr, "logit_backward.grad_input")
OCL_POINTWISE_STUB(elu, elu_stub, .expr = "a <= (T)0 ? expm1(a * p2) * p0 * p1 : a * p1", .dtypes = kFloating,
                   .params = "TTT")
OCL_NATIVE_OP(structured_elu_out, "elu", "elu_", "elu.out")
// elu_backward(grad, self_or_result): p3 says whether b is the result
OCL_POINTWISE_STUB(elu_backward, elu_backward_stub,
                   .expr = "b <= (T)0 ? (p3 ? a * p2 * (b + p0 * p1) : a * p2 * p0 * p1 * exp(b * p2)) : a * p1",
                   .ninputs = 2, .dtypes = kFloating, .params = "TTTL")
OCL_NATIVE_OP(structured_elu_backward_out, "elu_backward", nullptr, "elu_backward.grad_input")
OCL_UNARY_C(silu, .expr = "a / ((T)1 + exp(-a))", .dtypes = kFloating,
            .complex_expr = "c_div(a, (T)((R)1, (R)0) + c_exp(-a))")
OCL_POINTWISE_STUB(silu_backward, silu_backward_stub,
                   .expr = "a * ((T)1 / ((T)1 + exp(-b))) * ((T)1 + b * ((T)1 - (T)1 / ((T)1 + exp(-b))))",
                   .ninputs = 2, .dtypes = kFloating)
OCL_NATIVE_OP(structured_silu_backward_out, "silu_backward", nullptr, "silu_backward.grad_input",
              OCL_DIRECT(silu_backward))
OCL_UNARY(mish, .expr = "a * tanh(log1p(exp(a)))", .dtypes = kFloating, .complex_refused = true)
OCL_POINTWISE_STUB(mish_backward, mish_backward_stub,
                   .expr = "a * (tanh(log1p(exp(b))) + b * ((T)1 / ((T)1 + exp(-b))) * "
                           "((T)1 - tanh(log1p(exp(b))) * tanh(log1p(exp(b)))))",
                   .ninputs = 2, .dtypes = kFloating)
OCL_NATIVE_FN("mish_backward", &at::native::mish_backward)
OCL_POINTWISE_STUB(softplus, softplus_stub, .expr = "a * p0 > p1 ? a : log1p(exp(a * p0)) / p0",
                   .dtypes = kFloating, .params = "TT")
OCL_NATIVE_OP(structured_softplus_out, "softplus", nullptr, "softplus.out")
OCL_POINTWISE_STUB(softplus_backward, softplus_backward_stub,
                   .expr = "b * p0 > p1 ? a : a * exp(b * p0) / (exp(b * p0) + (T)1)", .ninputs = 2,
                   .dtypes = kFloating, .params = "TT")
OCL_NATIVE_OP(structured_softplus_backward_out, "softplus_backward", nullptr, "softplus_backward.grad_input")
OCL_POINTWISE_STUB(leaky_relu, leaky_relu_stub, .expr = "a > (T)0 ? a : a * p0", .dtypes = kFloating,
                   .params = "T", .complex_refused = true)
OCL_NATIVE_OP(structured_leaky_relu_out, "leaky_relu", "leaky_relu_", "leaky_relu.out", OCL_DIRECT(leaky_relu))
OCL_POINTWISE_STUB(leaky_relu_backward, leaky_relu_backward_stub, .expr = "a > (T)0 ? b : b * p0",
                   .ninputs = 2, .dtypes = kFloating, .params = "T")
OCL_NATIVE_OP(structured_leaky_relu_backward_out, "leaky_relu_backward", nullptr, "leaky_relu_backward.grad_input")
// NaN propagates through pw_clamp (fmin/fmax would drop it), as on the CPU.
OCL_UNARY(hardsigmoid, .expr = "pw_clamp(a + (T)3, (T)0, (T)6) / (T)6", .dtypes = kFloating, .complex_refused = true)
OCL_POINTWISE_STUB(hardsigmoid_backward, hardsigmoid_backward_stub,
                   .expr = "(b > (T)-3 && b < (T)3) ? a / (T)6 : (T)0", .ninputs = 2, .dtypes = kFloating)
OCL_NATIVE_OP(structured_hardsigmoid_backward_out, "hardsigmoid_backward", nullptr, "hardsigmoid_backward.grad_input")
OCL_POINTWISE_STUB(hardswish, hardswish_stub, .expr = "a * pw_clamp(a + (T)3, (T)0, (T)6) / (T)6",
                   .dtypes = kFloating)
OCL_NATIVE_FN("hardswish", &at::native::hardswish)
OCL_NATIVE_FN("hardswish_", &at::native::hardswish_)
OCL_NATIVE_FN("hardswish.out", &at::native::hardswish_out)
OCL_POINTWISE_STUB(hardswish_backward, hardswish_backward_stub,
                   .expr = "b <= (T)-3 ? (T)0 : (b < (T)3 ? a * (b / (T)3 + (T)0.5) : a)", .ninputs = 2,
                   .dtypes = kFloating)
OCL_NATIVE_FN("hardswish_backward", &at::native::hardswish_backward)
OCL_POINTWISE_STUB(hardshrink, hardshrink_stub, .expr = "(a >= -p0 && a <= p0) ? (T)0 : a", .dtypes = kFloating,
                   .params = "T")
OCL_NATIVE_OP(structured_hardshrink_out, "hardshrink", nullptr, "hardshrink.out")
OCL_POINTWISE_STUB(softshrink, softshrink_stub,
                   .expr = "isnan(a) ? a : (a > p0 ? a - p0 : (a < -p0 ? a + p0 : a * (T)0))", .dtypes = kFloating,
                   .params = "T")
OCL_NATIVE_OP(structured_softshrink_out, "softshrink", nullptr, "softshrink.out")
// hardshrink_backward and softshrink_backward(grad, self, lambd)
OCL_POINTWISE_STUB(shrink_backward, shrink_backward_stub, .expr = "(b >= -p0 && b <= p0) ? (T)0 : a",
                   .ninputs = 2, .dtypes = kFloating, .params = "T")
OCL_NATIVE_OP(structured_hardshrink_backward_out, "hardshrink_backward", nullptr, "hardshrink_backward.grad_input")
OCL_NATIVE_OP(structured_softshrink_backward_out, "softshrink_backward", nullptr, "softshrink_backward.grad_input")
// prelu: ATen's _prelu_kernel / _prelu_kernel_backward (generic: a TensorIterator
// over self, weight (broadcast by the composite prelu) and grad + the stubs).
OCL_POINTWISE_STUB(prelu, prelu_stub, .expr = "a > (T)0 ? a : b * a", .ninputs = 2, .dtypes = kFloating)
OCL_NATIVE_FN("_prelu_kernel", &at::native::_prelu_kernel)
// (self, weight, grad) -> grad_self, grad_weight (per element; prelu's autograd sums it)
OCL_POINTWISE_STUB(prelu_backward, prelu_backward_stub, .expr = "a > (T)0 ? c : b * c", .ninputs = 3,
                   .dtypes = kFloating, .expr2 = "a > (T)0 ? (T)0 : a * c")
OCL_NATIVE_FN("_prelu_kernel_backward", &at::native::_prelu_kernel_backward)
OCL_POINTWISE_STUB(glu, glu_stub, .expr = "a * ((T)1 / ((T)1 + exp(-b)))", .ninputs = 2, .dtypes = kFloating)
OCL_NATIVE_OP(structured_glu_out, "glu", nullptr, "glu.out")
// glu_backward: a = sigmoid(second half), b = first half, c = grad
OCL_POINTWISE_STUB(glu_backward, glu_backward_stub, .expr = "((T)1 - a) * a * b * c", .ninputs = 3,
                   .dtypes = kFloating)
OCL_NATIVE_FN("glu_backward", &at::native::glu_backward_cpu)  // device-generic despite its name
OCL_NATIVE_FN("glu_backward.grad_input", &at::native::glu_backward_cpu_out)

// ---- ops whose ATen impl is CPU/CUDA-only: ATen's meta + our kernel ----
namespace {
constexpr PointwiseOp k_gelu{.name = "gelu", .expr = "pw_gelu(a, p0)", .dtypes = kFloating, .params = "L"};
constexpr PointwiseOp k_gelu_backward{.name = "gelu_backward", .expr = "pw_gelu_backward(a, b, p0)",
                                      .ninputs = 2, .dtypes = kFloating, .params = "L"};
int64_t gelu_type(c10::string_view approximate) {
  return static_cast<int64_t>(at::native::get_gelutype_enum(approximate)) ==
                 static_cast<int64_t>(at::native::GeluType::Tanh) ? 1 : 0;
}
void gelu_impl(at::TensorIteratorBase& iter, const Tensor&, const Tensor&, c10::string_view approximate) {
  run_pointwise(iter, k_gelu, {gelu_type(approximate)});
}
void gelu_backward_impl(at::TensorIteratorBase& iter, const Tensor&, const Tensor&, const Tensor&,
                        c10::string_view approximate) {
  run_pointwise(iter, k_gelu_backward, {gelu_type(approximate)});
}

// log_sigmoid_forward -> (output, buffer = exp(-|x|), as the CPU kernel);
// the backward recomputes from the input, as the CUDA kernel.
constexpr PointwiseOp k_log_sigmoid{.name = "log_sigmoid_forward",
                                    .expr = "fmin(a, (T)0) - log1p(exp(-fabs(a)))", .dtypes = kFloating,
                                    .expr2 = "exp(-fabs(a))"};
constexpr PointwiseOp k_log_sigmoid_backward{
    .name = "log_sigmoid_backward",
    .expr = "((a < (T)0 ? (T)1 : (T)0) - (a < (T)0 ? (T)1 : (T)-1) * exp(-fabs(a)) / ((T)1 + exp(-fabs(a)))) * b",
    .ninputs = 2, .dtypes = kFloating};
std::tuple<Tensor&, Tensor&> log_sigmoid_forward_out(const Tensor& self, Tensor& output, Tensor& buffer) {
  at::native::resize_output(output, self.sizes());
  at::native::resize_output(buffer, self.sizes());
  auto iter = at::TensorIteratorConfig().add_output(output).add_output(buffer).add_const_input(self).build();
  run_pointwise(iter, k_log_sigmoid);
  return {output, buffer};
}
std::tuple<Tensor, Tensor> log_sigmoid_forward(const Tensor& self) {
  Tensor output = at::empty_like(self), buffer = at::empty_like(self);
  log_sigmoid_forward_out(self, output, buffer);
  return {output, buffer};
}
Tensor& log_sigmoid_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor&, Tensor& grad_input) {
  auto iter = at::TensorIteratorConfig()
                  .add_output(grad_input).add_const_input(self).add_const_input(grad_output)
                  .promote_inputs_to_common_dtype(true).cast_common_dtype_to_outputs(true).build();
  run_pointwise(iter, k_log_sigmoid_backward);
  return grad_input;
}
Tensor log_sigmoid_backward(const Tensor& grad_output, const Tensor& self, const Tensor& buffer) {
  Tensor grad_input;
  auto iter = at::TensorIteratorConfig()
                  .add_output(grad_input).add_const_input(self).add_const_input(grad_output)
                  .promote_inputs_to_common_dtype(true).build();
  run_pointwise(iter, k_log_sigmoid_backward);
  return iter.output();
}

// nan_to_num: the CPU's defaults are 0 and the dtype's largest/lowest finite values.
constexpr PointwiseOp k_nan_to_num{.name = "nan_to_num", .expr = "isnan(a) ? p0 : (a == PW_INF ? p1 : (a == -PW_INF ? p2 : a))",
                                   .dtypes = kFloating, .params = "TTT"};
// complex: re and im replaced independently, with the real type's limits (as the CPU)
#define NAN_TO_NUM_PART(v) "(isnan(" v ") ? (R)p0 : (" v " == C_INF ? (R)p1 : (" v " == -C_INF ? (R)p2 : " v ")))"
constexpr PointwiseOp k_nan_to_num_complex{.name = "nan_to_num", .expr = "a", .dtypes = 0, .params = "FFF",
                                           .complex_expr = "(T)(" NAN_TO_NUM_PART("a.x") ", " NAN_TO_NUM_PART("a.y") ")"};
void nan_to_num_kernel(at::TensorIteratorBase& iter, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf) {
  double hi = 0, lo = 0;
  const auto value_type = c10::toRealValueType(iter.dtype(0));
  AT_DISPATCH_FLOATING_TYPES_AND2(c10::kHalf, c10::kBFloat16, value_type, "nan_to_num", [&] {
    hi = static_cast<double>(std::numeric_limits<scalar_t>::max());
    lo = static_cast<double>(std::numeric_limits<scalar_t>::lowest());
  });
  run_pointwise(iter, iter.dtype(0) == value_type ? k_nan_to_num : k_nan_to_num_complex,
                {nan.value_or(0.0), posinf.value_or(hi), neginf.value_or(lo)});
}
}  // namespace

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(nan_to_num_stub, &nan_to_num_kernel)
}
OCL_NATIVE_FN_C("nan_to_num.out", &at::native::nan_to_num_out)

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_structured<at::meta::structured_gelu, &gelu_impl, c10::string_view>(m, "gelu", "gelu_", "gelu.out");
  register_structured<at::meta::structured_gelu_backward, &gelu_backward_impl, const Tensor&, c10::string_view>(
      m, "gelu_backward", nullptr, "gelu_backward.grad_input");
  ::torch_ocl::register_op<&log_sigmoid_forward>(m, "log_sigmoid_forward");
  ::torch_ocl::register_op<&log_sigmoid_forward_out>(m, "log_sigmoid_forward.output");
  ::torch_ocl::register_op<&log_sigmoid_backward>(m, "log_sigmoid_backward");
  ::torch_ocl::register_op<&log_sigmoid_backward_out>(m, "log_sigmoid_backward.grad_input");
}

// masked_fill_: ATen's impls are CPU/CUDA-only; self = mask ? value : self.
namespace {
constexpr PointwiseOp k_masked_fill{.name = "masked_fill", .expr = "b != (T)0 ? p0 : a", .ninputs = 2,
                                    .params = "T", .compute_operand = 0, .complex_expr = "b.x != (R)0 ? p0 : a"};
Tensor& masked_fill_scalar(Tensor& self, const Tensor& mask, const Scalar& value) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
              mask.scalar_type());
  // As CPU and CUDA (masked_fill_impl): a warning for expanded outputs, an
  // error for a mask sharing part of the output's memory.
  if (at::has_internal_overlap(self) == at::MemOverlap::Yes)
    TORCH_WARN("Use of masked_fill_ on expanded tensors is deprecated. "
               "Please clone() the tensor before performing this operation. "
               "This also applies to advanced indexing e.g. tensor[mask] = scalar");
  at::assert_no_partial_overlap(self, mask);
  c10::MaybeOwned<Tensor> expanded_mask = at::expand_inplace(self, mask);
  if (self.is_complex()) {  // the (re, im) halves filled as two reals
    const auto v = value.toComplexDouble();
    Tensor pairs = at::view_as_real(self.is_conj() ? self.conj() : self);
    Tensor re = pairs.select(-1, 0), im = pairs.select(-1, 1);
    masked_fill_scalar(re, *expanded_mask, v.real());
    masked_fill_scalar(im, *expanded_mask, self.is_conj() ? -v.imag() : v.imag());
    return self;
  }
  auto iter = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(self)
                  .add_const_input(self)
                  .add_const_input(*expanded_mask)
                  .build();
  run_pointwise(iter, k_masked_fill, {value});
  return self;
}
Tensor& masked_fill_tensor(Tensor& self, const Tensor& mask, const Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return masked_fill_scalar(self, mask, value.item());
}
}  // namespace
OCL_NATIVE_FN_C("masked_fill_.Scalar", &masked_fill_scalar)
OCL_NATIVE_FN_C("masked_fill_.Tensor", &masked_fill_tensor)

// Composites ATen registers per backend (so PrivateUse1 would fall back).
OCL_NATIVE_FN_C("isnan", &at::native::isnan)  // self != self
OCL_NATIVE_FN_C("rsub.Tensor", static_cast<Tensor (*)(const Tensor&, const Tensor&, const Scalar&)>(&at::native::rsub))
