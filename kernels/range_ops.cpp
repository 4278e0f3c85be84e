// Range factories on ocl: arange, linspace, logspace, eye. arange and
// linspace are ATen's own generic out= impls (checks, sizes, resize) behind
// arange_stub / linspace_stub; their kernels are nullary pointwise rows whose
// expression uses the element index `idx`. logspace and eye have CPU-only
// impls in ATen, so their out= impls are here, with the CPU's checks.
#include <ATen/Dispatch.h>
#include <ATen/Dispatch_v2.h>
#include <ATen/OpMathType.h>
#include <ATen/native/RangeFactories.h>
#include <ATen/ops/arange_native.h>
#include <ATen/ops/linspace_native.h>
#include <ATen/ops/diagonal.h>
#include <torch/library.h>

#include <cmath>

#include "backend/runtime.h"
#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

// start + step * idx, in the CPU kernel's accumulation type.
constexpr PointwiseOp kArange{.name = "arange", .expr = "p0 + p1 * (T)idx", .ninputs = 0,
                              .dtypes = kNumbers, .params = "TT"};
// Both halves are computed from their own end, as on CPU (p0 start, p1 step,
// p2 end, p3 steps).
#define FROM_ENDS "(idx < p3 / 2 ? p0 + p1 * (T)idx : p2 - p1 * (T)(p3 - idx - 1))"
// linspace rounds each step to the dtype as the CPU's Half/BFloat16
// arithmetic does (p4: pw_round_to's kind; 0 for other dtypes).
#define R(x) "pw_round_to(" x ", p4)"
constexpr PointwiseOp kLinspace{
    .name = "linspace",
    .expr = "(idx < p3 / 2 ? " R("p0 + " R("p1 * " R("(T)idx"))) " : " R("p2 - " R("p1 * " R("(T)(p3 - idx - 1)"))) ")",
    .ninputs = 0, .dtypes = kNumbers, .params = "TTTLL"};
#undef R
// p4: the base
constexpr PointwiseOp kLogspace{.name = "logspace", .expr = "pow(p4, " FROM_ENDS ")", .ninputs = 0,
                                .dtypes = kNumbers, .params = "TTTLT"};

// double where the CPU computes in double and the device has it, else float.
c10::ScalarType wide_float(c10::DeviceIndex device) {
  return device_info(device).fp64 ? c10::kDouble : c10::kFloat;
}

// at::acc_type<scalar_t, /*is_cuda=*/false>: the CPU arange's type.
c10::ScalarType cpu_acc_dtype(c10::ScalarType t, c10::DeviceIndex device) {
  if (t == c10::kHalf || t == c10::kBFloat16) return c10::kFloat;
  if (c10::isFloatingType(t)) return wide_float(device);
  return t == c10::kUInt64 ? c10::kUInt64 : c10::kLong;
}

void arange_kernel(at::TensorIterator& iter, const c10::Scalar& start, const c10::Scalar& /*size*/,
                   const c10::Scalar& step) {
  run_pointwise(iter, kArange, {start, step}, cpu_acc_dtype(iter.dtype(), iter.device().index()));
}

// The CPU's linspace: start and end in the output dtype; the step in it too
// for floating types, in double for integral ones.
void linspace_kernel(at::TensorIterator& iter, const c10::Scalar& start, const c10::Scalar& end,
                     int64_t steps) {
  const auto dtype = iter.dtype();
  c10::Scalar s, step, en;
  AT_DISPATCH_ALL_TYPES_AND2(c10::kHalf, c10::kBFloat16, dtype, "linspace_cpu", [&] {
    const scalar_t st = start.to<scalar_t>(), et = end.to<scalar_t>();
    if constexpr (std::is_integral_v<scalar_t>) {
      s = static_cast<double>(st);
      en = static_cast<double>(et);
      step = (static_cast<double>(et) - static_cast<double>(st)) / static_cast<double>(steps - 1);
    } else {
      using opmath = at::opmath_type<scalar_t>;
      s = static_cast<opmath>(st);
      en = static_cast<opmath>(et);
      step = static_cast<opmath>(static_cast<scalar_t>((et - st) / static_cast<scalar_t>(steps - 1)));
    }
  });
  const c10::ScalarType compute = c10::isIntegralType(dtype, false) ? wide_float(iter.device().index())
                                  : dtype == c10::kDouble           ? c10::kDouble
                                                                    : c10::kFloat;
  const int64_t round = dtype == c10::kHalf ? 1 : dtype == c10::kBFloat16 ? 2 : 0;
  run_pointwise(iter, kLinspace, {s, step, en, steps, round}, compute);
}

at::Tensor& logspace_out(const c10::Scalar& start, const c10::Scalar& end, int64_t steps, double base,
                         at::Tensor& result) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  if (result.numel() != steps) result.resize_({steps});
  if (steps == 0) return result;
  if (steps == 1) return result.fill_(std::pow(base, start.to<double>()));
  at::Tensor r = result.is_contiguous() ? result : result.contiguous();
  // The CPU computes pow(double base, start + step * i) in double, with
  // start and end in the output dtype and step = (end - start) / (steps - 1).
  double s = 0, step = 0, en = 0;
  AT_DISPATCH_ALL_TYPES_AND2(c10::kHalf, c10::kBFloat16, r.scalar_type(), "logspace_cpu", [&] {
    const scalar_t st = start.to<scalar_t>(), et = end.to<scalar_t>();
    s = static_cast<double>(st);
    en = static_cast<double>(et);
    step = static_cast<double>(et - st) / static_cast<double>(steps - 1);
  });
  auto iter = at::TensorIterator::borrowing_nullary_op(r);
  run_pointwise(iter, kLogspace, {s, step, en, steps, base}, wide_float(r.device().index()));
  if (!result.is_same(r)) result.copy_(r);
  return result;
}

at::Tensor& eye_out_nm(int64_t n, int64_t m, at::Tensor& result) {
  TORCH_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TORCH_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  AT_DISPATCH_V2(result.scalar_type(), "eye", [] {}, c10::kBFloat16, c10::kHalf, c10::kBool,
                 AT_EXPAND(AT_ALL_TYPES_AND_COMPLEX), AT_EXPAND(AT_FLOAT8_TYPES));
  result.resize_({n, m});
  result.zero_();
  result.diagonal().fill_(1);
  return result;
}

at::Tensor& eye_out_n(int64_t n, at::Tensor& result) { return eye_out_nm(n, n, result); }

}  // namespace
}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(arange_stub, &::torch_ocl::arange_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(linspace_stub, &::torch_ocl::linspace_kernel)
}  // namespace at::native

OCL_NATIVE_FN("arange.start_out", static_cast<at::Tensor& (*)(const at::Scalar&, const at::Scalar&, const at::Scalar&, at::Tensor&)>(&at::native::arange_out))
OCL_NATIVE_FN("linspace.out", static_cast<at::Tensor& (*)(const at::Scalar&, const at::Scalar&, int64_t, at::Tensor&)>(&at::native::linspace_out))
OCL_NATIVE_FN("logspace.out", &torch_ocl::logspace_out)
OCL_NATIVE_FN_C("eye.m_out", &torch_ocl::eye_out_nm)  // zeros and a filled diagonal: complex too
OCL_NATIVE_FN_C("eye.out", &torch_ocl::eye_out_n)
