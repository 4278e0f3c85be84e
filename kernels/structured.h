// Structured ops on PrivateUse1. PyTorch's meta functions (at::meta::structured_*)
// do the shape, dtype, promotion and out= checks; OclStructured supplies the
// outputs the way the in-tree codegen does for CPU/CUDA, and
// register_structured() registers the functional, in-place and out= overloads
// of an op from one impl function. See DESIGN.md decision 3.
#pragma once

#include <ATen/TensorIterator.h>
#include <ATen/core/boxing/impl/boxing.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include <array>
#include <initializer_list>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "backend/fallback.h"
#include "backend/kernel_launch.h"
#include "kernels/pointwise_engine.h"
#include "kernels/register_op.h"
#include "kernels/tensor_ops.h"

namespace torch_ocl {

enum class Variant { Functional, Inplace, Out };

// Structured metas take some optional arguments as references
// (OptionalScalarRef, OptionalTensorRef) where the schema has std::optional:
// SchemaArg names the schema's type, to_meta_arg converts.
template <class T>
struct SchemaArg { using type = T; };
template <>
struct SchemaArg<at::OptionalScalarRef> { using type = const std::optional<at::Scalar>&; };
template <>
struct SchemaArg<at::OptionalTensorRef> { using type = const std::optional<at::Tensor>&; };
inline at::OptionalScalarRef to_meta_arg(const std::optional<at::Scalar>& s) {
  return s ? at::OptionalScalarRef(*s) : at::OptionalScalarRef();  // (the pointer constructor does not compile: c10 include order)
}
inline at::OptionalTensorRef to_meta_arg(const std::optional<at::Tensor>& t) {
  return t && t->defined() ? at::OptionalTensorRef(*t) : at::OptionalTensorRef();
}
template <class T>
const T& to_meta_arg(const T& v) { return v; }
template <class Op, class... A>
void call_meta(Op& op, const at::Tensor& self, const A&... a) {
  if constexpr (requires { op.meta(self, a...); }) op.meta(self, a...);
  else op.meta(self, to_meta_arg(a)...);
}

template <class Meta>
struct OclStructured final : public Meta {
  OclStructured(Variant v, const at::Tensor& out = {}, const at::Tensor& out1 = {}) : variant(v) {
    outputs[0] = out;
    outputs[1] = out1;
  }
  OclStructured(Variant v, std::initializer_list<at::Tensor> outs) : variant(v) {
    size_t i = 0;
    for (const at::Tensor& t : outs) outputs[i++] = t;
  }

  const at::Tensor& maybe_get_output(int64_t i) override { return outputs[i]; }

  void set_output_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides,
                          at::TensorOptions options) override {
    set_output_raw_strided(i, sizes, strides, options);
  }

  void set_output_raw_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides,
                              at::TensorOptions options) override {
    at::Tensor& out = outputs[i];
    switch (variant) {
      case Variant::Functional:
        out = empty_ocl(sizes, strides, options);
        break;
      case Variant::Inplace:
        TORCH_CHECK(options.dtype() == out.dtype(), "Bad in-place call: input tensor dtype ",
                    out.dtype(), " and output tensor dtype ", options.dtype(), " should match");
        TORCH_CHECK(options.device() == out.device(), "Bad in-place call: input tensor device ",
                    out.device(), " and output tensor device ", options.device(), " should match");
        TORCH_CHECK(sizes == out.sizes(), "Bad in-place call: input tensor size ", out.sizes(),
                    " and output tensor size ", sizes, " should match");
        break;
      case Variant::Out: {
        TORCH_CHECK(options.dtype() == out.dtype(), "Expected out tensor to have dtype ",
                    options.dtype(), ", but got ", out.dtype(), " instead");
        TORCH_CHECK(options.device() == out.device(), "Expected out tensor to have device ",
                    options.device(), ", but got ", out.device(), " instead");
        if (at::native::resize_output(out, sizes)) {
          if (!strides.empty()) {
            out.as_strided_(sizes, strides);
          } else if (options.memory_format_opt().has_value()) {
            out.unsafeGetTensorImpl()->empty_tensor_restride(*options.memory_format_opt());
          }
        }
        break;
      }
    }
    if constexpr (std::is_base_of_v<at::TensorIteratorBase, Meta>)
      Meta::set_output_raw_strided(i, sizes, strides, options);
  }

  std::array<at::Tensor, 4> outputs;
  Variant variant;
};

// Whether a structured op's arguments after `self` are all tensors and Scalars
// (the shape of a call DirectPointwise can take).
template <class... Rest>
constexpr bool direct_args = ((std::is_same_v<Rest, const at::Tensor&> || std::is_same_v<Rest, const c10::Scalar&>) && ...);
// run_pointwise_direct over a call's arguments: its tensors as inputs, its Scalars as parameters.
template <class... Rest>
bool try_direct(const DirectPointwise& d, bool inplace, const at::Tensor& self, Rest... rest, at::Tensor& result) {
  constexpr size_t ntensors = 1 + (std::is_same_v<Rest, const at::Tensor&> + ... + 0);
  std::array<const at::Tensor*, ntensors> tensors{&self};
  std::array<c10::Scalar, sizeof...(Rest) + 1 - ntensors> scalars;
  size_t t = 1, s = 0;
  [[maybe_unused]] auto take = [&](const auto& arg) {
    if constexpr (std::is_same_v<std::decay_t<decltype(arg)>, at::Tensor>) tensors[t++] = &arg;
    else scalars[s++] = arg;
  };
  (take(rest), ...);
  return run_pointwise_direct(d, inplace, tensors, c10::ArrayRef<c10::Scalar>(scalars.data(), s), result);
}

// Before a fallback: a complex tensor argument of an op whose direct-path row
// declares complex_refused raises the row's NotImplementedError, as ATen's
// dtype dispatch does on every device.
template <class... A>
void refuse_complex(const std::optional<DirectPointwise>& d, const A&... a) {
  if (!d || !d->op->complex_refused) return;
  [[maybe_unused]] auto check = [&](const auto& arg) {
    if constexpr (std::is_same_v<std::decay_t<decltype(arg)>, at::Tensor>)
      if (arg.defined() && arg.is_complex()) check_op_dtype(*d->op, arg.scalar_type());
  };
  (check(a), ...);
}

// The three overloads of a structured op whose first argument is `self`.
// Impl(meta, out, self, rest...) computes into `out`.
template <class Meta, auto Impl, class... Rest>
struct StructuredOp {
  // Functional, in-place and out= (set by register_structured during static
  // initialisation, hence function-local statics).
  static std::array<OpEntry, 3>& entries() {
    static std::array<OpEntry, 3> e;
    return e;
  }
  // The op's TensorIterator-free path for its functional and in-place calls, if any.
  static std::optional<DirectPointwise>& direct() {
    static std::optional<DirectPointwise> d;
    return d;
  }

  static at::Tensor functional(const at::Tensor& self, Rest... rest) {
    if constexpr (direct_args<Rest...>) {
      at::Tensor result;
      if (direct() && try_direct<Rest...>(*direct(), false, self, rest..., result)) return result;
    }
    return CheckedCall<at::Tensor, const at::Tensor&, Rest...>::call_prechecked(
        entries()[0],
        [](const at::Tensor& self, Rest... rest) {
          OclStructured<Meta> op(Variant::Functional);
          call_meta(op, self, rest...);
          refuse_complex(direct(), self, rest...);
        },
        [](const at::Tensor& self, Rest... rest) {
          OclStructured<Meta> op(Variant::Functional);
          call_meta(op, self, rest...);
          Impl(op, op.outputs[0], self, rest...);
          return std::move(op.outputs[0]);
        },
        self, rest...);
  }
  static at::Tensor& inplace(at::Tensor& self, Rest... rest) {
    if constexpr (direct_args<Rest...>) {
      at::Tensor result;
      if (direct() && try_direct<Rest...>(*direct(), true, self, rest..., result)) return self;
    }
    return CheckedCall<at::Tensor&, at::Tensor&, Rest...>::call_prechecked(
        entries()[1],
        [](at::Tensor& self, Rest... rest) {
          OclStructured<Meta> op(Variant::Inplace, self);
          call_meta(op, self, rest...);
          refuse_complex(direct(), self, rest...);
        },
        [](at::Tensor& self, Rest... rest) -> at::Tensor& {
          OclStructured<Meta> op(Variant::Inplace, self);
          call_meta(op, self, rest...);
          Impl(op, op.outputs[0], self, rest...);
          return self;
        },
        self, rest...);
  }
  static at::Tensor& out(const at::Tensor& self, Rest... rest, at::Tensor& result) {
    return CheckedCall<at::Tensor&, const at::Tensor&, Rest..., at::Tensor&>::call_prechecked(
        entries()[2],
        [](const at::Tensor& self, Rest... rest, at::Tensor& result) {
          OclStructured<Meta> op(Variant::Out, result);
          call_meta(op, self, rest...);
          refuse_complex(direct(), self, rest..., result);
        },
        [](const at::Tensor& self, Rest... rest, at::Tensor& result) -> at::Tensor& {
          OclStructured<Meta> op(Variant::Out, result);
          call_meta(op, self, rest...);
          Impl(op, op.outputs[0], self, rest...);
          return result;
        },
        self, rest..., result);
  }
};

// Registers whichever of the three names is not nullptr.
template <class Meta, auto Impl, class... Rest>
void register_structured(torch::Library& m, const char* functional, const char* inplace,
                         const char* out, DtypeGate gate = takes_real,
                         std::optional<DirectPointwise> direct = std::nullopt) {
  using Op = StructuredOp<Meta, Impl, Rest...>;
  TORCH_INTERNAL_ASSERT(!direct || direct_args<Rest...>, "a direct path takes ops with tensor and Scalar arguments only");
  Op::direct() = direct;
  const char* names[3] = {functional, inplace, out};
  for (size_t i = 0; i < 3; ++i)
    if (names[i]) Op::entries()[i].set(names[i], gate);
  if (functional) m.impl(functional, TORCH_FN(Op::functional));
  if (inplace) m.impl(inplace, TORCH_FN(Op::inplace));
  if (out) m.impl(out, TORCH_FN(Op::out));
}

// The functional and out= overloads of a structured op with two outputs
// (values, indices: max_pool2d_with_indices, adaptive_max_pool2d, ...).
// Impl(meta, out0, out1, self, rest...) computes into both.
template <class Meta, auto Impl, class... Rest>
struct StructuredOp2 {
  using Pair = std::tuple<at::Tensor, at::Tensor>;
  using RefPair = std::tuple<at::Tensor&, at::Tensor&>;
  static std::array<OpEntry, 2>& entries() {
    static std::array<OpEntry, 2> e;
    return e;
  }
  static Pair functional(const at::Tensor& self, Rest... rest) {
    return CheckedCall<Pair, const at::Tensor&, Rest...>::call_prechecked(
        entries()[0],
        [](const at::Tensor& self, Rest... rest) {
          OclStructured<Meta> op(Variant::Functional);
          call_meta(op, self, rest...);
        },
        [](const at::Tensor& self, Rest... rest) {
          OclStructured<Meta> op(Variant::Functional);
          call_meta(op, self, rest...);
          Impl(op, op.outputs[0], op.outputs[1], self, rest...);
          return Pair{std::move(op.outputs[0]), std::move(op.outputs[1])};
        },
        self, rest...);
  }
  static RefPair out(const at::Tensor& self, Rest... rest, at::Tensor& out0, at::Tensor& out1) {
    return CheckedCall<RefPair, const at::Tensor&, Rest..., at::Tensor&, at::Tensor&>::call_prechecked(
        entries()[1],
        [](const at::Tensor& self, Rest... rest, at::Tensor& out0, at::Tensor& out1) {
          OclStructured<Meta> op(Variant::Out, out0, out1);
          call_meta(op, self, rest...);
        },
        [](const at::Tensor& self, Rest... rest, at::Tensor& out0, at::Tensor& out1) {
          OclStructured<Meta> op(Variant::Out, out0, out1);
          call_meta(op, self, rest...);
          Impl(op, op.outputs[0], op.outputs[1], self, rest...);
          return RefPair{out0, out1};
        },
        self, rest..., out0, out1);
  }
};
template <class Meta, auto Impl, class... Rest>
void register_structured2(torch::Library& m, const char* functional, const char* out, DtypeGate gate = takes_real) {
  using Op = StructuredOp2<Meta, Impl, Rest...>;
  Op::entries()[0].set(functional, gate);
  Op::entries()[1].set(out, gate);
  m.impl(functional, TORCH_FN(Op::functional));
  m.impl(out, TORCH_FN(Op::out));
}

// ATen's own structured impl (at::native::structured_X_out), whose impl()
// calls a DispatchStub: its functional / in-place / out= overloads on
// PrivateUse1, with the schema arguments read off its meta().
template <class Native, class... Rest>
void call_native_impl(Native& op, const at::Tensor& out, const at::Tensor& self, Rest... rest) {
  if constexpr (requires { op.impl(self, rest..., out); }) op.impl(self, rest..., out);
  else op.impl(self, to_meta_arg(rest)..., out);
}
template <class F>
struct NativeMeta;
template <class C, class R, class... Rest>
struct NativeMeta<R (C::*)(const at::Tensor&, Rest...)> {
  template <class Native>
  static void reg(torch::Library& m, const char* functional, const char* inplace, const char* out,
                  DtypeGate gate, std::optional<DirectPointwise> direct) {
    register_structured<Native, &call_native_impl<Native, typename SchemaArg<Rest>::type...>,
                        typename SchemaArg<Rest>::type...>(m, functional, inplace, out, gate, direct);
  }
};
template <class Native>
void register_native(torch::Library& m, const char* functional, const char* inplace, const char* out,
                     DtypeGate gate = takes_real, std::optional<DirectPointwise> direct = std::nullopt) {
  NativeMeta<decltype(&Native::meta)>::template reg<Native>(m, functional, inplace, out, gate, direct);
}

// ATen's own structured impl of an op whose first argument need not be
// `self` and that has any number of outputs (the linear-algebra ops: L and
// info, LU / pivots / info, ...): its functional and out= overloads on
// PrivateUse1. The schema arguments are read off meta(), the outputs are
// impl()'s remaining parameters.
template <class F>
struct MetaSignature;
template <class C, class... A>
struct MetaSignature<void (C::*)(A...)> {
  using args = std::tuple<typename SchemaArg<A>::type...>;
};
template <class F>
struct ImplArity;
template <class C, class... A>
struct ImplArity<void (C::*)(A...)> : std::integral_constant<size_t, sizeof...(A)> {};

template <class Native, class Args, class Outs>
struct NativeMultiOp;
template <class Native, class... Args, size_t... I>
struct NativeMultiOp<Native, std::tuple<Args...>, std::index_sequence<I...>> {
  template <size_t>
  using Out = at::Tensor;
  template <size_t>
  using OutRef = at::Tensor&;
  static constexpr bool single = sizeof...(I) == 1;
  using R = std::conditional_t<single, at::Tensor, std::tuple<Out<I>...>>;
  using RRef = std::conditional_t<single, at::Tensor&, std::tuple<OutRef<I>...>>;
  static std::array<OpEntry, 2>& entries() {
    static std::array<OpEntry, 2> e;
    return e;
  }
  static R functional(Args... args) {
    return CheckedCall<R, Args...>::call_prechecked(
        entries()[0],
        [](Args... args) {
          OclStructured<Native> op(Variant::Functional);
          op.meta(to_meta_arg(args)...);
        },
        [](Args... args) -> R {
          OclStructured<Native> op(Variant::Functional);
          op.meta(to_meta_arg(args)...);
          op.impl(to_meta_arg(args)..., op.outputs[I]...);
          return R{std::move(op.outputs[I])...};
        },
        args...);
  }
  static RRef out(Args... args, OutRef<I>... outs) {
    return CheckedCall<RRef, Args..., OutRef<I>...>::call_prechecked(
        entries()[1],
        [](Args... args, OutRef<I>... outs) {
          OclStructured<Native> op(Variant::Out, {outs...});
          op.meta(to_meta_arg(args)...);
        },
        [](Args... args, OutRef<I>... outs) -> RRef {
          OclStructured<Native> op(Variant::Out, {outs...});
          op.meta(to_meta_arg(args)...);
          op.impl(to_meta_arg(args)..., op.outputs[I]...);
          return RRef(outs...);
        },
        args..., outs...);
  }
};
template <class Native>
void register_native_multi(torch::Library& m, const char* functional, const char* out, DtypeGate gate) {
  using Args = typename MetaSignature<decltype(&Native::meta)>::args;
  constexpr size_t nouts = ImplArity<decltype(&Native::impl)>::value - std::tuple_size_v<Args>;
  using Op = NativeMultiOp<Native, Args, std::make_index_sequence<nouts>>;
  Op::entries()[0].set(functional, gate);
  Op::entries()[1].set(out, gate);
  m.impl(functional, TORCH_FN(Op::functional));
  m.impl(out, TORCH_FN(Op::out));
}

}  // namespace torch_ocl
