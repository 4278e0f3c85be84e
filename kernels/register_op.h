// The one way a native kernel is registered (DESIGN.md decision 3). Every
// registered overload runs behind the same front, in this order:
//   1. CUDA's device check (backend/same_device.h): a CPU tensor among ocl
//      tensors raises "Expected all tensors to be on the same device" before
//      anything runs (skipped for the ops that take CPU tensors by design);
//   2. the dtype gate: when a tensor argument has a dtype the op's kernels do
//      not take, the call runs on the CPU through the counted fallback (the
//      CPU's result, or the CPU's error for a dtype the CPU rejects);
//   3. the kernel.
// The table-row macros (kernels/op_table.h) and register_structured
// (kernels/structured.h) use it; a hand-written function is registered with
//   register_op<&fn>(m, "overload")                  // real dtypes and bool
//   register_op<&fn, takes_complex>(m, "overload")   // complex64/128 too
//   register_op<&fn, takes_floating>(m, "overload")  // any DtypeGate
// and m.impl directly only for what launches no kernel (views, factories,
// metadata, fallthroughs: kernels/tensor_ops.cpp, kernels/copy_ops.cpp).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/boxing/impl/boxing.h>
#include <c10/core/ScalarType.h>
#include <torch/library.h>

#include <array>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "backend/fallback.h"
#include "backend/kernel_launch.h"
#include "backend/same_device.h"

namespace torch_ocl {

// Which dtypes an op's kernels take; tested on every tensor argument
// (tensors, optional tensors, tensor lists).
using DtypeGate = bool (*)(c10::ScalarType);
// The real dtypes and bool (has_kernels): compute kernels.
inline bool takes_real(c10::ScalarType t) { return has_kernels(t); }
// Those and complex64/128 (has_data_kernels): ops that only move elements
// (gather, index, flip, cat, ...) and pointwise rows with a complex_expr.
inline bool takes_complex(c10::ScalarType t) { return has_data_kernels(t); }
// Every dtype: storage-level kernels that move any storable element's bits
// and reject the others themselves (fill_, zero_).
inline bool takes_any(c10::ScalarType) { return true; }
// The floating dtypes with kernels (float, double, half, bfloat16).
inline bool takes_floating(c10::ScalarType t) { return c10::isFloatingType(t) && has_kernels(t); }

template <class T>
bool lacks_kernels(DtypeGate gate, const T& arg) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, at::Tensor>) {
    return arg.defined() && !gate(arg.scalar_type());
  } else if constexpr (std::is_same_v<D, std::optional<at::Tensor>>) {
    return arg && lacks_kernels(gate, *arg);
  } else if constexpr (std::is_same_v<D, at::TensorList> || std::is_same_v<D, at::ITensorListRef>) {
    for (const at::Tensor& t : arg)
      if (lacks_kernels(gate, t)) return true;
    return false;
  } else {
    return false;
  }
}
template <class... A>
bool any_lacks_kernels(DtypeGate gate, const A&... args) {
  return (lacks_kernels(gate, args) || ...);
}

// One registered overload: its name, whether its tensors are device-checked,
// its dtype gate.
struct OpEntry {
  std::string name;           // "aten::<overload>"
  bool check_devices = true;  // false for ops that take CPU tensors by design
  DtypeGate gate = takes_real;

  void set(const char* overload, DtypeGate g) {
    name = std::string("aten::") + overload;
    check_devices = !takes_cpu_tensors(name);
    gate = g;
  }
};

template <class R>
struct is_tensor_tuple : std::false_type {};
template <class... T>
struct is_tensor_tuple<std::tuple<T...>> : std::bool_constant<(std::is_same_v<T, at::Tensor> && ...)> {};
template <class R>
struct is_tensor_ref_tuple : std::false_type {};
template <class... T>
struct is_tensor_ref_tuple<std::tuple<T...>> : std::bool_constant<(std::is_same_v<T, at::Tensor&> && ...)> {};

// The call on the CPU through the counted fallback, with the overload's
// results: a returned reference is the written argument (self of an in-place
// op, the out= arguments of an out= op, which are the last ones).
template <class R, class... A>
R fallback_call(const std::string& name, A... a) {
  auto stack = run_fallback(name, c10::impl::boxArgs<A...>(a...));
  if constexpr (std::is_void_v<R>) {
    return;
  } else if constexpr (std::is_same_v<R, at::Tensor>) {
    return stack[0].toTensor();
  } else if constexpr (std::is_same_v<R, std::vector<at::Tensor>>) {
    return stack[0].toTensorVector();
  } else if constexpr (std::is_same_v<R, bool>) {
    return stack[0].toBool();
  } else if constexpr (is_tensor_tuple<R>::value) {
    // (Undefined results, e.g. of a backward's output mask, come back as None.)
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return R{(stack[I].isNone() ? at::Tensor() : stack[I].toTensor())...};
    }(std::make_index_sequence<std::tuple_size_v<R>>{});
  } else if constexpr (std::is_same_v<std::decay_t<R>, at::Tensor> || is_tensor_ref_tuple<R>::value) {
    std::array<at::Tensor*, sizeof...(A)> written{};
    size_t n = 0;
    [[maybe_unused]] auto note = [&](auto& arg) {
      if constexpr (std::is_same_v<std::remove_reference_t<decltype(arg)>, at::Tensor>) written[n++] = &arg;
    };
    (note(a), ...);
    if constexpr (std::is_reference_v<R>) {
      using First = std::tuple_element_t<0, std::tuple<A...>>;
      return std::is_same_v<First, at::Tensor&> ? *written[0] : *written[n - 1];
    } else {
      constexpr size_t k = std::tuple_size_v<R>;
      return [&]<size_t... I>(std::index_sequence<I...>) {
        return R{*written[n - k + I]...};
      }(std::make_index_sequence<k>{});
    }
  } else {
    static_assert(sizeof(R) == 0, "fallback_call: a return type the fallback cannot give back");
  }
}

// The front every registered overload runs behind (see the top of this file).
template <class R, class... A>
struct CheckedCall {
  template <class Kernel>
  static R call(const OpEntry& e, Kernel&& kernel, A... a) {
    return call_prechecked(e, [](A...) {}, kernel, a...);
  }
  // `precheck(a...)` runs before a fallback: a structured op's meta raises
  // the op's own errors on the device (ceil, clamp, sign, maximum, linalg
  // ops of complex or integer inputs), as CUDA does, instead of copying the
  // inputs to the CPU to hear the same error there.
  template <class Precheck, class Kernel>
  static R call_prechecked(const OpEntry& e, Precheck&& precheck, Kernel&& kernel, A... a) {
    check_same_device<A...>(e.name, e.check_devices, a...);
    if (any_lacks_kernels(e.gate, a...)) {
      precheck(a...);
      return fallback_call<R, A...>(e.name, a...);
    }
    return kernel(a...);
  }
};

// A hand-written (or plain at::native) function `Fn` behind the front.
template <auto Fn, DtypeGate Gate, class Sig = decltype(Fn)>
struct NativeOp;
template <auto Fn, DtypeGate Gate, class R, class... A>
struct NativeOp<Fn, Gate, R (*)(A...)> {
  static OpEntry& entry() {
    static OpEntry e;
    return e;
  }
  static R call(A... a) { return CheckedCall<R, A...>::call(entry(), Fn, a...); }
};
template <auto Fn, DtypeGate Gate = takes_real>
void register_op(torch::Library& m, const char* overload) {
  NativeOp<Fn, Gate>::entry().set(overload, Gate);
  m.impl(overload, TORCH_FN((NativeOp<Fn, Gate>::call)));
}

}  // namespace torch_ocl

// A plain function `fn` (cast to its signature where overloaded) as overload
// `schema`, for the real dtypes; OCL_NATIVE_FN_C: complex64/128 too.
#define OCL_NATIVE_FN(schema, ...) \
  TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { ::torch_ocl::register_op<__VA_ARGS__>(m, schema); }
#define OCL_NATIVE_FN_C(schema, ...) \
  TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { ::torch_ocl::register_op<__VA_ARGS__, ::torch_ocl::takes_complex>(m, schema); }
