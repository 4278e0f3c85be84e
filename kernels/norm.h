// Shared by the normalization launchers (kernels/norm_ops.cpp: layer, RMS and
// batch norm; kernels/group_norm_ops.cpp: group norm): their rows of the
// reduction and pointwise engines and small helpers. (Two files because
// ATen's layer_norm.h and group_norm.h cannot be included together.)
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/op_registration/adaption.h>

#include <initializer_list>
#include <optional>

#include "kernels/pointwise_engine.h"
#include "kernels/reduce_engine.h"

namespace torch_ocl::norm {

// Welford over the normalized elements: mean and rstd = 1 / sqrt(var + p0).
inline constexpr ReduceOp kMeanRstd{"norm_mean_rstd", "Welford", "(Welford){0, 0, 0}", WELFORD_STEP, WELFORD_COMBINE,
                                    "acc.mean", "(ACC)1 / sqrt(fmax(acc.m2 / acc.n, (ACC)0) + p0)", "F"};
// Welford over a batch norm channel: mean and the sum of squared deviations.
inline constexpr ReduceOp kMeanM2{"norm_mean_m2", "Welford", "(Welford){0, 0, 0}", WELFORD_STEP, WELFORD_COMBINE,
                                  "acc.mean", "acc.m2"};
// A sum (batch norm's per-channel sums into a wide_dtype output).
inline constexpr ReduceOp kSumStat{"norm_sum", "ACC", "(ACC)0", "acc += (ACC)x;", "acc += other;", "acc"};
// Per channel (batch norm) or (sample, channel) (group norm), from a mean,
// b rstd, c weight, d bias: scale = rstd * weight, shift = bias - mean * scale.
inline constexpr PointwiseOp kScaleShift{.name = "norm_scale_shift", .expr = "b * c", .ninputs = 4,
                                         .dtypes = kFloating, .expr2 = "d - a * (b * c)"};
// y = x * scale + shift
inline constexpr PointwiseOp kScaleAdd{.name = "norm_scale_add", .expr = "a * b + c", .ninputs = 3, .dtypes = kFloating};
// Batch norm's summands of the weight gradient: dy * (x - mean) (times invstd after the sum, as the CPU).
inline constexpr PointwiseOp kDyXc{.name = "norm_dy_xc", .expr = "a * (b - c)", .ninputs = 3, .dtypes = kFloating};
// The summands of the weight gradients: dy * (x - mean) * rstd.
inline constexpr PointwiseOp kDyXhat{.name = "norm_dy_xhat", .expr = "a * ((b - c) * d)", .ninputs = 4,
                              .dtypes = kFloating};
// Input gradients of batch / group norm: dx = dy * c + x * d + e (per-channel c, d, e).
inline constexpr PointwiseOp kInputGrad{.name = "norm_input_grad", .expr = "a * c + b * d + e", .ninputs = 5,
                                 .dtypes = kFloating};
// Batch norm's saved invstd from m2: p0 eps, p1 count; 0 where var and eps are 0 (as the CPU).
inline constexpr PointwiseOp kInvStd{.name = "norm_invstd", .expr = "(a == (T)0 && p0 == (T)0) ? (T)0 : (T)1 / sqrt(a / p1 + p0)",
                              .dtypes = kFloating, .params = "FF"};
// 1 / sqrt(running_var + p0)
inline constexpr PointwiseOp kRsqrtEps{.name = "norm_rsqrt_eps", .expr = "(T)1 / sqrt(a + p0)", .dtypes = kFloating,
                                .params = "F"};
// running = momentum * stat / divisor + (1 - momentum) * running (p0 momentum, p1 divisor)
inline constexpr PointwiseOp kRunningUpdate{.name = "norm_running_update", .expr = "p0 * (b / p1) + ((T)1 - p0) * a",
                                     .ninputs = 2, .dtypes = kFloating, .params = "FF"};

// float for half / bfloat16 / float, double for double.
c10::ScalarType acc_dtype(c10::ScalarType t);
// Per-channel statistics and sums of batch norm before their last rounding:
// double where `like`'s device has fp64 (as the CPU's acc_type), else acc_dtype.
c10::ScalarType wide_dtype(const at::Tensor& like);
// The CPU's NotImplementedError for non-floating inputs.
void check_floating(const char* name, const at::Tensor& t);
inline at::Tensor opt(const std::optional<at::Tensor>& t) { return t.value_or(at::Tensor()); }
// `t`, or when undefined a 0-dim device tensor `absent` (as `like`'s options)
// for an engine operand.
at::Tensor or_value(const at::Tensor& t, double absent, const at::Tensor& like);
// Runs pointwise `op` computing in `compute` over outputs `outs` (allocated,
// full shape) and broadcast inputs `ins` of any dtypes.
void pointwise(const PointwiseOp& op, std::initializer_list<at::Tensor> outs, std::initializer_list<at::Tensor> ins,
               c10::ScalarType compute, std::initializer_list<c10::Scalar> params = {});
// Reduces `in` into out0 / out1 (same dims as `in`, size 1 where reduced;
// out1 undefined for one-output ops).
void reduce(const ReduceOp& op, const at::Tensor& out0, const at::Tensor& out1, const at::Tensor& in,
            std::initializer_list<c10::Scalar> params = {});

}  // namespace torch_ocl::norm
