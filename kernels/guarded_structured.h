// A structured op registered for only the dtypes its kernels take: other
// dtypes run on the CPU through the counted fallback (the CPU's result, or
// its error for a dtype the CPU rejects). Used by kernels/upsample_ops.cpp and
// kernels/pad_ops.cpp.
#pragma once

#include "kernels/structured.h"

namespace torch_ocl {

// `Accepts(self)`: the kernels take self's dtype.
template <class Meta, auto Impl, bool (*Accepts)(const at::Tensor&), class... Rest>
struct Guarded {
  using Op = StructuredOp<Meta, Impl, Rest...>;
  static at::Tensor functional(const at::Tensor& self, Rest... rest) {
    check_same_device<const at::Tensor&, Rest...>(Op::names()[0], true, self, rest...);
    if (!Accepts(self))
      return run_fallback(Op::names()[0], c10::impl::boxArgs<const at::Tensor&, Rest...>(self, rest...))[0].toTensor();
    return Op::functional(self, rest...);
  }
  static at::Tensor& out(const at::Tensor& self, Rest... rest, at::Tensor& result) {
    check_same_device<const at::Tensor&, Rest..., at::Tensor&>(Op::names()[2], true, self, rest..., result);
    if (!Accepts(self)) {
      run_fallback(Op::names()[2], c10::impl::boxArgs<const at::Tensor&, Rest..., at::Tensor&>(self, rest..., result));
      return result;
    }
    return Op::out(self, rest..., result);
  }
  static void reg(torch::Library& m, const char* functional_name, const char* out_name) {
    Op::names() = {std::string("aten::") + functional_name, std::string(), std::string("aten::") + out_name};
    m.impl(functional_name, TORCH_FN(functional));
    m.impl(out_name, TORCH_FN(out));
  }
};

}  // namespace torch_ocl
