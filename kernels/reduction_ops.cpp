// The reduction op table: one ReduceOp per DispatchStub (see
// kernels/reduce_engine.h for what the strings may use), registered for
// PrivateUse1, and the ATen ops whose own impls call those stubs.
#include <ATen/native/ReduceAllOps.h>
#include <ATen/native/ReduceOps.h>
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/TensorCompare.h>
#include <ATen/ops/all_native.h>
#include <ATen/ops/amax_native.h>
#include <ATen/ops/amin_native.h>
#include <ATen/ops/aminmax_native.h>
#include <ATen/ops/any_native.h>
#include <ATen/ops/argmax_native.h>
#include <ATen/ops/argmin_native.h>
#include <ATen/ops/count_nonzero_native.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/hash_tensor_native.h>
#include <ATen/ops/linalg_vector_norm_native.h>
#include <ATen/ops/max_native.h>
#include <ATen/ops/mean_native.h>
#include <ATen/ops/min_native.h>
#include <ATen/ops/nansum_native.h>
#include <ATen/ops/norm_native.h>
#include <ATen/ops/prod_native.h>
#include <ATen/ops/std_mean_native.h>
#include <ATen/ops/std_native.h>
#include <ATen/ops/sum_native.h>
#include <ATen/ops/var_mean_native.h>
#include <ATen/ops/var_native.h>

#include "kernels/register_op.h"
#include "kernels/op_table.h"
#include "kernels/reduce_engine.h"

using namespace torch_ocl;
using at::Tensor;

namespace {

// FOLD_MAX / FOLD_MIN (kernels/reduce_engine.cl) fold NaN-propagating, as the CPU.
constexpr ReduceOp kSum{"sum", "ACC", "(ACC)0", "acc += (ACC)x;", "acc += other;", "acc"};
constexpr ReduceOp kNansum{"nansum", "ACC", "(ACC)0", "acc += red_isnan(x) ? (ACC)0 : (ACC)x;", "acc += other;", "acc"};
constexpr ReduceOp kProd{"prod", "ACC", "(ACC)1", "acc *= (ACC)x;", "acc *= other;", "acc", nullptr, "", false, false,
                        /*cascade=*/false};
// mean: p0 = 1 / (elements per result)
constexpr ReduceOp kMean{"mean", "ACC", "(ACC)0", "acc += (ACC)x;", "acc += other;", "acc * p0", nullptr, "F"};
constexpr ReduceOp kMax{"amax", "T", "T_LOWEST", "FOLD_MAX(acc, x)", "FOLD_MAX(acc, other)", "acc"};
constexpr ReduceOp kMin{"amin", "T", "T_HIGHEST", "FOLD_MIN(acc, x)", "FOLD_MIN(acc, other)", "acc"};
constexpr ReduceOp kAll{"all", "T", "(T)1", "acc = acc && x != (T)0;", "acc = acc && other;", "acc"};
constexpr ReduceOp kAny{"any", "T", "(T)0", "acc = acc || x != (T)0;", "acc = acc || other;", "acc"};
// ValueIndex: the first index of the extreme value (a NaN counts as extreme).
#define ARG_BETTER(cmp)                                                                        \
  "(other.i >= 0 && (acc.i < 0 || other.v " cmp " acc.v || (red_isnan(other.v) && !red_isnan(acc.v)) || " \
  "((other.v == acc.v || (red_isnan(other.v) && red_isnan(acc.v))) && other.i < acc.i)))"
#define ARG_OP(name, cmp, init)                                                                   \
  ReduceOp{name, "ValueIndex", "(ValueIndex){" init ", -1}",                                     \
           "ValueIndex other = {x, idx}; if (" ARG_BETTER(cmp) ") acc = other;",                 \
           "if (" ARG_BETTER(cmp) ") acc = other;", "acc.i"}
constexpr ReduceOp kArgmax = ARG_OP("argmax", ">", "T_LOWEST");
constexpr ReduceOp kArgmin = ARG_OP("argmin", "<", "T_HIGHEST");
// max.dim / min.dim: values and indices
constexpr ReduceOp kMaxDim{kArgmax.name, "ValueIndex", kArgmax.init, kArgmax.step, kArgmax.combine, "acc.v", "acc.i"};
constexpr ReduceOp kMinDim{kArgmin.name, "ValueIndex", kArgmin.init, kArgmin.step, kArgmin.combine, "acc.v", "acc.i"};
constexpr ReduceOp kMinMax{"aminmax", "MinMax", "(MinMax){T_HIGHEST, T_LOWEST}",
                           "FOLD_MIN(acc.mn, x) FOLD_MAX(acc.mx, x)",
                           "FOLD_MIN(acc.mn, other.mn) FOLD_MAX(acc.mx, other.mx)", "acc.mn", "acc.mx"};
// Welford's online mean/variance: WELFORD_STEP / WELFORD_COMBINE (kernels/reduce_engine.h);
// p0 correction, p1 take_sqrt.
#define WELFORD_PROJECT "(p1 ? sqrt(acc.m2 / fmax((ACC)0, acc.n - p0)) : acc.m2 / fmax((ACC)0, acc.n - p0))"
constexpr ReduceOp kStdVar{"std_var", "Welford", "(Welford){0, 0, 0}", WELFORD_STEP, WELFORD_COMBINE,
                           WELFORD_PROJECT, nullptr, "FL"};
constexpr ReduceOp kStdVarMean{"std_var_mean", "Welford", "(Welford){0, 0, 0}", WELFORD_STEP, WELFORD_COMBINE,
                               WELFORD_PROJECT, "acc.mean", "FL"};
// vector norms: p0 = ord (0, 1, 2, +-inf or any p)
#define NORM_INIT "(isinf(p0) && p0 < 0) ? (ACC)INFINITY : (ACC)0"
#define NORM_PROJECT "(isinf(p0) || p0 == 0 || p0 == 1) ? acc : (p0 == 2 ? sqrt(acc) : pow(acc, (ACC)1 / (ACC)p0))"
constexpr ReduceOp kNorm{
    "norm", "ACC", NORM_INIT,
    "const ACC a = fabs((ACC)x); "
    "if (isinf(p0)) { if (p0 > 0) { FOLD_MAX(acc, a) } else { FOLD_MIN(acc, a) } } "
    "else if (p0 == 0) acc += a != (ACC)0; else if (p0 == 1) acc += a; else if (p0 == 2) acc += a * a; "
    "else acc += pow(a, (ACC)p0);",
    "if (isinf(p0)) { if (p0 > 0) { FOLD_MAX(acc, other) } else { FOLD_MIN(acc, other) } } else acc += other;",
    NORM_PROJECT, nullptr, "F"};

// Complex inputs (T = float2 / double2, ACC = R its real type; see
// kernels/reduce_engine.h). Sums accumulate in T; prod multiplies as complex
// numbers; the norm folds |x| (NaN-propagating max / min written out, since
// FOLD_MAX's red_isnan takes a T).
constexpr ReduceOp kSumComplex{"sum", "T", "(T)(0)", "acc += x;", "acc += other;", "acc", nullptr, "", false, true};
// nansum of complex as CUDA's: an element with a NaN part counts as 0 (the CPU has no complex nansum)
constexpr ReduceOp kNansumComplex{"nansum", "T", "(T)(0)", "acc += any(isnan(x)) ? (T)(0) : x;",
                                  "acc += other;", "acc", nullptr, "", false, true};
constexpr ReduceOp kMeanComplex{"mean", "T", "(T)(0)", "acc += x;", "acc += other;", "acc * p0", nullptr, "F", false, true};
constexpr ReduceOp kProdComplex{"prod", "T", "(T)((R)1, (R)0)", "acc = c_mul(acc, x);", "acc = c_mul(acc, other);", "acc",
                                nullptr, "", false, true, /*cascade=*/false};
constexpr ReduceOp kAllComplex{"all", "ACC", "(ACC)1", "acc = (acc != (ACC)0 && (x.x != (R)0 || x.y != (R)0)) ? (ACC)1 : (ACC)0;",
                               "acc = (acc != (ACC)0 && other != (ACC)0) ? (ACC)1 : (ACC)0;", "acc", nullptr, "", false, true,
                               /*cascade=*/false};
constexpr ReduceOp kAnyComplex{"any", "ACC", "(ACC)0", "acc = (acc != (ACC)0 || x.x != (R)0 || x.y != (R)0) ? (ACC)1 : (ACC)0;",
                               "acc = (acc != (ACC)0 || other != (ACC)0) ? (ACC)1 : (ACC)0;", "acc", nullptr, "", false, true,
                               /*cascade=*/false};
#define NORM_FOLD_EXTREME(v)                                                            \
  "if (isinf(p0)) { if (isnan(" v ") || isnan(acc)) acc = (ACC)NAN; "                   \
  "else if (p0 > 0 ? " v " > acc : " v " < acc) acc = " v "; } "
constexpr ReduceOp kNormComplex{
    "norm", "ACC", NORM_INIT,
    "const ACC a = c_abs(x); " NORM_FOLD_EXTREME("a")
    "else if (p0 == 0) acc += a != (ACC)0; else if (p0 == 1) acc += a; else if (p0 == 2) acc += a * a; "
    "else acc += pow(a, (ACC)p0);",
    NORM_FOLD_EXTREME("other") "else acc += other;", NORM_PROJECT, nullptr, "F", false, true};
// hash_tensor mode 0: the xor of every element's 64 bits (red_bits64,
// kernels/reduce_engine.cl), into uint64.
constexpr ReduceOp kXorSum{"xor_sum", "ulong", "(ulong)0", "acc ^= red_bits64(x);", "acc ^= other;", "acc",
                           nullptr, "", /*needs_fp64=*/false};
constexpr ReduceOp kXorSumFloat{"xor_sum_float", "ulong", "(ulong)0", "acc ^= red_bits64(x);", "acc ^= other;", "acc",
                                nullptr, "", /*needs_fp64=*/true};
bool complex_input(const at::TensorIteratorBase& iter) { return c10::isComplexType(iter.input_dtype()); }

// ---- DispatchStub kernels ----
void sum_reduce(at::TensorIterator& iter) { run_reduction(iter, complex_input(iter) ? kSumComplex : kSum); }
void nansum_reduce(at::TensorIterator& iter) {
  // An integral out= of a floating input (nansum's reduction takes the out=
  // tensor's dtype): the CPU's and CUDA's kernels have no such case.
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(iter.dtype()) || c10::isComplexType(iter.dtype()),
                              "\"nansum\" not implemented for '", iter.dtype(), "'");
  run_reduction(iter, complex_input(iter) ? kNansumComplex : kNansum);
}

// trace as CUDA's trace_cuda: the diagonal's sum (integers and bool promote
// to int64 through sum; complex stays complex).
Tensor trace(const Tensor& self) {
  TORCH_CHECK(self.dim() == 2, "expected a matrix");
  return self.diagonal().sum();
}
// equal as CUDA's cuda_equal: same sizes and every element equal (NaN is not
// equal to itself); the answer comes back to the host (a sync, as on CUDA).
bool equal(const Tensor& self, const Tensor& other) {
  TORCH_CHECK(self.device() == other.device(), "Cannot compare two tensors on different devices. Got: ",
              self.device(), " and ", other.device());
  if (!self.is_same_size(other)) return false;
  if (self.numel() == 0) return true;
  return at::eq(self, other).all().item<bool>();
}
void prod_reduce(at::TensorIterator& iter) { run_reduction(iter, complex_input(iter) ? kProdComplex : kProd); }
void mean_reduce(at::TensorIterator& iter) {
  // An integral out= (mean's meta takes an out= tensor's dtype): CUDA's kernel
  // dispatches on floating and complex types only, so does this.
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(iter.dtype()) || c10::isComplexType(iter.dtype()),
                              "\"mean\" not implemented for '", iter.dtype(), "'");
  run_reduction(iter, complex_input(iter) ? kMeanComplex : kMean, {static_cast<double>(iter.num_output_elements()) / static_cast<double>(iter.numel())});
}
void max_values_reduce(at::TensorIterator& iter) { run_reduction(iter, kMax); }
void min_values_reduce(at::TensorIterator& iter) { run_reduction(iter, kMin); }
void and_reduce(at::TensorIterator& iter) { run_reduction(iter, complex_input(iter) ? kAllComplex : kAll); }
void or_reduce(at::TensorIterator& iter) { run_reduction(iter, complex_input(iter) ? kAnyComplex : kAny); }
void xor_sum_reduce(at::TensorIterator& iter) {
  run_reduction(iter, c10::isFloatingType(iter.input_dtype()) ? kXorSumFloat : kXorSum);
}
void argmax_reduce(at::TensorIterator& iter) { run_reduction(iter, kArgmax); }
void argmin_reduce(at::TensorIterator& iter) { run_reduction(iter, kArgmin); }
void std_var_reduce(at::TensorIterator& iter, double correction, bool take_sqrt) {
  run_reduction(iter, iter.noutputs() == 2 ? kStdVarMean : kStdVar, {correction, take_sqrt});
}
void norm_reduce(at::TensorIterator& iter, const c10::Scalar& ord) {
  run_reduction(iter, complex_input(iter) ? kNormComplex : kNorm, {ord.toDouble()});
}
void max_reduce(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t dim, bool keepdim) {
  auto iter = at::native::make_reduction("max", const_cast<Tensor&>(values), const_cast<Tensor&>(indices), self,
                                         dim, keepdim, self.scalar_type(), at::kLong);
  run_reduction(iter, kMaxDim);
}
void min_reduce(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t dim, bool keepdim) {
  auto iter = at::native::make_reduction("min", const_cast<Tensor&>(values), const_cast<Tensor&>(indices), self,
                                         dim, keepdim, self.scalar_type(), at::kLong);
  run_reduction(iter, kMinDim);
}
void max_all_reduce(Tensor& result, const Tensor& self) {
  auto iter = at::meta::make_reduction(self, result, at::IntArrayRef{}, false, self.scalar_type());
  run_reduction(iter, kMax);
}
void min_all_reduce(Tensor& result, const Tensor& self) {
  auto iter = at::meta::make_reduction(self, result, at::IntArrayRef{}, false, self.scalar_type());
  run_reduction(iter, kMin);
}
void aminmax_reduce(const Tensor& self, int64_t dim, bool keepdim, Tensor& min, Tensor& max) {
  auto iter = at::native::make_reduction("aminmax", min, max, self, dim, keepdim, self.scalar_type(), self.scalar_type());
  run_reduction(iter, kMinMax);
}
void aminmax_all_reduce(const Tensor& self, Tensor& min, Tensor& max) {
  auto iter = at::native::make_reduction("aminmax", min, max, self, at::IntArrayRef{}, false, self.scalar_type(),
                                         self.scalar_type());
  run_reduction(iter, kMinMax);
}

// ---- two-output structured ops (ATen's meta precomputes the dim) ----
template <class Native>
std::tuple<Tensor, Tensor> dim_values_indices(const Tensor& self, int64_t dim, bool keepdim) {
  OclStructured<Native> op(Variant::Functional);
  auto pre = op.meta(self, dim, keepdim);
  op.impl(self, pre.dim, keepdim, op.outputs[0], op.outputs[1]);
  return {std::move(op.outputs[0]), std::move(op.outputs[1])};
}
template <class Native>
std::tuple<Tensor&, Tensor&> dim_values_indices_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                                    Tensor& indices) {
  OclStructured<Native> op(Variant::Out, values);
  op.outputs[1] = indices;
  auto pre = op.meta(self, dim, keepdim);
  op.impl(self, pre.dim, keepdim, op.outputs[0], op.outputs[1]);
  return {values, indices};
}
std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  OclStructured<at::native::structured_aminmax_out> op(Variant::Functional);
  op.meta(self, dim, keepdim);
  op.impl(self, dim, keepdim, op.outputs[0], op.outputs[1]);
  return {std::move(op.outputs[0]), std::move(op.outputs[1])};
}
std::tuple<Tensor&, Tensor&> aminmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& min,
                                         Tensor& max) {
  OclStructured<at::native::structured_aminmax_out> op(Variant::Out, min);
  op.outputs[1] = max;
  op.meta(self, dim, keepdim);
  op.impl(self, dim, keepdim, op.outputs[0], op.outputs[1]);
  return {min, max};
}

}  // namespace

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(sum_stub, &sum_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(nansum_stub, &nansum_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(prod_stub, &prod_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(mean_stub, &mean_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(max_values_stub, &max_values_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(min_values_stub, &min_values_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(and_stub, &and_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(or_stub, &or_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(xor_sum_stub, &xor_sum_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(argmax_stub, &argmax_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(argmin_stub, &argmin_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(std_var_stub, &std_var_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(norm_stub, &norm_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(max_stub, &max_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(min_stub, &min_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(max_all_stub, &max_all_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(min_all_stub, &min_all_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(aminmax_stub, &aminmax_reduce)
REGISTER_PRIVATEUSE1_DISPATCH(aminmax_allreduce_stub, &aminmax_all_reduce)
}  // namespace at::native

OCL_NATIVE_OP_C(structured_sum_out, "sum.dim_IntList", nullptr, "sum.IntList_out")
OCL_NATIVE_OP_C(structured_mean_out, "mean.dim", nullptr, "mean.out")
OCL_NATIVE_OP_C(structured_prod_out, "prod.dim_int", nullptr, "prod.int_out")
OCL_NATIVE_FN_C("prod", &at::native::prod)
OCL_NATIVE_FN_C("nansum", &at::native::nansum)
OCL_NATIVE_FN_C("nansum.out", &at::native::nansum_out)
OCL_NATIVE_FN_C("trace", &trace)
OCL_NATIVE_FN("equal", &equal, ::torch_ocl::takes_any)
OCL_NATIVE_OP(structured_amax_out, "amax", nullptr, "amax.out")
OCL_NATIVE_OP(structured_amin_out, "amin", nullptr, "amin.out")
OCL_NATIVE_OP(structured_argmax_out, "argmax", nullptr, "argmax.out")
OCL_NATIVE_OP(structured_hash_tensor_out, "hash_tensor", nullptr, "hash_tensor.out")
OCL_NATIVE_OP(structured_argmin_out, "argmin", nullptr, "argmin.out")
OCL_NATIVE_OP_C(structured_all_out, "all.dim", nullptr, "all.out")
OCL_NATIVE_OP_C(structured_all_dims_out, "all.dims", nullptr, "all.dims_out")
OCL_NATIVE_OP_C(structured_all_all_out, "all", nullptr, "all.all_out")
OCL_NATIVE_OP_C(structured_any_out, "any.dim", nullptr, "any.out")
OCL_NATIVE_OP_C(structured_any_dims_out, "any.dims", nullptr, "any.dims_out")
OCL_NATIVE_OP_C(structured_any_all_out, "any", nullptr, "any.all_out")
OCL_NATIVE_OP_C(structured_norm_out, "norm.ScalarOpt_dim", nullptr, "norm.out")
OCL_NATIVE_OP_C(structured_norm_dtype_out, "norm.ScalarOpt_dim_dtype", nullptr, "norm.dtype_out")
OCL_NATIVE_OP_C(structured_linalg_vector_norm_out, "linalg_vector_norm", nullptr, "linalg_vector_norm.out")
// complex: ATen reduces the real and imaginary parts (real views) and adds the variances
OCL_NATIVE_FN_C("std.correction", static_cast<Tensor (*)(const Tensor&, at::OptionalIntArrayRef, const std::optional<at::Scalar>&, bool)>(&at::native::std))
OCL_NATIVE_FN_C("std.correction_out", static_cast<Tensor& (*)(const Tensor&, at::OptionalIntArrayRef, const std::optional<at::Scalar>&, bool, Tensor&)>(&at::native::std_out))
OCL_NATIVE_FN_C("var.correction", static_cast<Tensor (*)(const Tensor&, at::OptionalIntArrayRef, const std::optional<at::Scalar>&, bool)>(&at::native::var))
OCL_NATIVE_FN_C("var.correction_out", static_cast<Tensor& (*)(const Tensor&, at::OptionalIntArrayRef, const std::optional<at::Scalar>&, bool, Tensor&)>(&at::native::var_out))
OCL_NATIVE_FN_C("std_mean.correction", static_cast<std::tuple<Tensor, Tensor> (*)(const Tensor&, at::OptionalIntArrayRef, const std::optional<at::Scalar>&, bool)>(&at::native::std_mean))
OCL_NATIVE_FN_C("var_mean.correction", static_cast<std::tuple<Tensor, Tensor> (*)(const Tensor&, at::OptionalIntArrayRef, const std::optional<at::Scalar>&, bool)>(&at::native::var_mean))
OCL_NATIVE_FN_C("count_nonzero.dim_IntList", &at::native::count_nonzero_cuda)  // (self != 0).sum(dims): device-generic
OCL_NATIVE_FN("max", static_cast<Tensor (*)(const Tensor&)>(&at::native::max))
OCL_NATIVE_FN("max.unary_out", &at::native::max_unary_out)
OCL_NATIVE_FN("min", static_cast<Tensor (*)(const Tensor&)>(&at::native::min))
OCL_NATIVE_FN("min.unary_out", &at::native::min_unary_out)

// Complex reaches these (takes_complex) to be rejected with the CPU's error:
// max/min's meta raises it, aminmax's kernel (its meta lets complex through).
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using torch_ocl::takes_complex;
  ::torch_ocl::register_op<&dim_values_indices<at::native::structured_max_out>, takes_complex>(m, "max.dim");
  ::torch_ocl::register_op<&dim_values_indices_out<at::native::structured_max_out>, takes_complex>(m, "max.dim_max");
  ::torch_ocl::register_op<&dim_values_indices<at::native::structured_min_out>, takes_complex>(m, "min.dim");
  ::torch_ocl::register_op<&dim_values_indices_out<at::native::structured_min_out>, takes_complex>(m, "min.dim_min");
  ::torch_ocl::register_op<&aminmax, takes_complex>(m, "aminmax");
  ::torch_ocl::register_op<&aminmax_out, takes_complex>(m, "aminmax.out");
}
