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

template <class R>
struct is_tensor_tuple : std::false_type {};
template <class... T>
struct is_tensor_tuple<std::tuple<T...>> : std::bool_constant<(std::is_same_v<T, at::Tensor> && ...)> {};

// A plain ATen native function (not structured) registered as it is, except
// that dtypes without kernels (complex for compute ops, see KernelGate) go
// to the counted CPU fallback.
template <auto Fn, KernelGate Gate = KernelGate::kReal, class Sig = decltype(Fn)>
struct GuardedNative;
template <auto Fn, KernelGate Gate, class R, class... A>
struct GuardedNative<Fn, Gate, R (*)(A...)> {
  static std::string& name() {
    static std::string n;
    return n;
  }
  static bool& check_devices() {
    static bool c = true;
    return c;
  }
  template <class First, class... More>
  static First&& first(First&& f, More&&...) { return std::forward<First>(f); }
  template <class... All>
  static decltype(auto) last(All&&... all) {
    return std::get<sizeof...(All) - 1>(std::forward_as_tuple(std::forward<All>(all)...));
  }
  static R call(A... a) {
    check_same_device<A...>(name(), check_devices(), a...);
    if (any_lacks_kernels(Gate, a...)) {
      auto stack = run_fallback(name(), c10::impl::boxArgs<A...>(a...));
      if constexpr (std::is_same_v<R, at::Tensor>) {
        return stack[0].toTensor();
      } else if constexpr (std::is_same_v<R, at::Tensor&>) {
        // In-place ops return their first argument, out= ops their last.
        using F = std::tuple_element_t<0, std::tuple<A...>>;
        if constexpr (std::is_same_v<F, at::Tensor&>) return first(a...);
        else return last(a...);
      } else if constexpr (is_tensor_tuple<R>::value) {
        // (Undefined results, e.g. of a backward's output mask, come back as None.)
        return [&]<size_t... I>(std::index_sequence<I...>) {
          return R{(stack[I].isNone() ? at::Tensor() : stack[I].toTensor())...};
        }(std::make_index_sequence<std::tuple_size_v<R>>{});
      } else {
        TORCH_CHECK(false, name(), ": no fallback for this return type");
      }
    }
    return Fn(a...);
  }
};
template <auto Fn, KernelGate Gate = KernelGate::kReal>
void register_guarded(torch::Library& m, const char* schema) {
  GuardedNative<Fn, Gate>::name() = std::string("aten::") + schema;
  GuardedNative<Fn, Gate>::check_devices() = !takes_cpu_tensors(GuardedNative<Fn, Gate>::name());
  m.impl(schema, TORCH_FN((GuardedNative<Fn, Gate>::call)));
}

}  // namespace torch_ocl

// A plain at::native function `fn` (cast to its signature where overloaded).
#define OCL_NATIVE_FN(schema, ...) \
  TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { ::torch_ocl::register_guarded<__VA_ARGS__>(m, schema); }

// The same for a function whose kernels also take complex64/128: ops that
// only move elements (gather, index, flip, ...) and ops whose pointwise rows
// have a complex_expr (KernelGate::kComplex).
#define OCL_NATIVE_FN_C(schema, ...) \
  TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { \
    ::torch_ocl::register_guarded<__VA_ARGS__, ::torch_ocl::KernelGate::kComplex>(m, schema); \
  }

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
                                                     ::torch_ocl::KernelGate::kReal __VA_OPT__(, ) __VA_ARGS__); \
  }

// The same for an op whose kernels also take complex64/128 (KernelGate::kComplex).
#define OCL_NATIVE_OP_C(Native, functional, inplace, out, ...)                                           \
  TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {                                                             \
    ::torch_ocl::register_native<at::native::Native>(m, functional, inplace, out,                        \
                                                     ::torch_ocl::KernelGate::kComplex __VA_OPT__(, ) __VA_ARGS__); \
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
