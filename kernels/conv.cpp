// Convolutions. There is no native OpenCL convolution yet (DESIGN §4 plans
// im2col + CLBlast GEMM). Until then `convolution` and `convolution_backward`
// are routed to the counted CPU fallback explicitly: their default kernels
// are CompositeExplicitAutograd and would call `convolution_overrideable`,
// which PyTorch leaves unimplemented for PrivateUse1, so the op would raise
// instead of reaching the boxed fallback.
#include <torch/library.h>

#include "backend/fallback.h"

namespace torch_ocl {

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  for (const char* op : {"convolution", "_convolution", "convolution_backward"})
    m.impl(op, torch::CppFunction::makeFromBoxedFunction<&cpu_fallback_kernel>());
}

}  // namespace torch_ocl
