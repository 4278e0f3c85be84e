// Ops registered on PrivateUse1 as the counted CPU fallback, explicitly.
//
// The boxed fallback (backend/fallback.cpp) only catches ops that have no
// kernel for PrivateUse1 at all. The ops below do have one, a
// CompositeExplicitAutograd kernel that PrivateUse1 would use instead, and
// it is wrong for us until a native OpenCL kernel replaces the entry:
//
// - convolution, _convolution, convolution_backward: the composite calls
//   convolution_overrideable, which PyTorch leaves unimplemented for
//   PrivateUse1, so every conv would raise. (DESIGN §4: native convs will be
//   im2col + CLBlast GEMM.)
#include <torch/library.h>

#include "backend/fallback.h"

namespace torch_ocl {

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  for (const char* op : {"convolution", "_convolution", "convolution_backward"})
    m.impl(op, torch::CppFunction::makeFromBoxedFunction<&cpu_fallback_kernel>());
}

}  // namespace torch_ocl
