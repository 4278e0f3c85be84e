// The macros an op table row is made of (kernels/pointwise_ops.cpp,
// kernels/reduction_ops.cpp). A row names the kernel once; the macro
// registers it with ATen's DispatchStub for PrivateUse1 and registers the
// op's functional / in-place / out= overloads on the dispatcher, reusing
// ATen's own structured impl (shapes, dtypes, promotion, out= checks).
#pragma once

#include <ATen/native/DispatchStub.h>
#include <torch/library.h>

#include <tuple>
#include <type_traits>
#include <utility>

#include "kernels/pointwise_engine.h"
#include "kernels/register_op.h"
#include "kernels/structured.h"

namespace torch_ocl {

// A stub's extra arguments as the kernel's parameters.
template <class P>
c10::Scalar to_param(const P& p) {
  if constexpr (std::is_enum_v<P>) return static_cast<int64_t>(p);
  else return c10::Scalar(p);
}

// The PrivateUse1 kernel of a DispatchStub whose function type is Fn:
// void(TensorIterator[Base]&, extra...) -> run_pointwise(iter, *Op, {extra...}).
template <const PointwiseOp* Op, class Fn>
struct PointwiseStub;
template <const PointwiseOp* Op, class Iter, class... P>
struct PointwiseStub<Op, void (*)(Iter&, P...)> {
  static void fn(Iter& iter, P... p) { run_pointwise(iter, *Op, {to_param(p)...}); }
};

}  // namespace torch_ocl

// The kernel `k_<id>` of stub `stub` (a pointwise op descriptor's fields
// follow, as designated initialisers).
#define OCL_POINTWISE_STUB(id, stub, ...)                                          \
  constexpr ::torch_ocl::PointwiseOp k_##id{.name = #id, __VA_ARGS__};             \
  namespace at::native {                                                           \
  REGISTER_PRIVATEUSE1_DISPATCH(stub, (&::torch_ocl::PointwiseStub<&k_##id, decltype(stub)::FnPtr>::fn)) \
  }

// functional / in-place / out= of ATen's structured impl `Native` (in at::native).
// An optional last argument, OCL_DIRECT(id) (or OCL_DIRECT_NEGATED(id)), says
// that Native's impl() is one call of kernel k_<id>'s stub with the op's
// tensors as inputs and its Scalars as parameters (negated): same-shape
// contiguous floating calls then launch k_<id> without a TensorIterator
// (DirectPointwise in kernels/pointwise_engine.h).
#define OCL_NATIVE_OP(Native, functional, inplace, out, ...)                                             \
  TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {                                                             \
    ::torch_ocl::register_native<at::native::Native>(m, functional, inplace, out,                        \
                                                     ::torch_ocl::takes_real __VA_OPT__(, ) __VA_ARGS__); \
  }

// The same for an op whose kernels also take complex64/128 (takes_complex).
#define OCL_NATIVE_OP_C(Native, functional, inplace, out, ...)                                           \
  TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {                                                             \
    ::torch_ocl::register_native<at::native::Native>(m, functional, inplace, out,                        \
                                                     ::torch_ocl::takes_complex __VA_OPT__(, ) __VA_ARGS__); \
  }
#define OCL_DIRECT(id) ::torch_ocl::DirectPointwise{&k_##id}
#define OCL_DIRECT_NEGATED(id) ::torch_ocl::DirectPointwise{&k_##id, true}

// The common row: op `id` with stub id_stub and ATen impl structured_id_out
// (one call of the stub: the direct path too).
#define OCL_UNARY(id, ...)                   \
  OCL_POINTWISE_STUB(id, id##_stub, __VA_ARGS__) \
  OCL_NATIVE_OP(structured_##id##_out, #id, #id "_", #id ".out", OCL_DIRECT(id))
// The same for a row with a complex_expr.
#define OCL_UNARY_C(id, ...)                     \
  OCL_POINTWISE_STUB(id, id##_stub, __VA_ARGS__) \
  OCL_NATIVE_OP_C(structured_##id##_out, #id, #id "_", #id ".out", OCL_DIRECT(id))
// A unary op with a bool result (signbit, isposinf): no direct path, whose
// output takes its input's dtype.
#define OCL_UNARY_PREDICATE(id, ...)             \
  OCL_POINTWISE_STUB(id, id##_stub, __VA_ARGS__) \
  OCL_NATIVE_OP(structured_##id##_out, #id, #id "_", #id ".out")
