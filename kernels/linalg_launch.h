// The launcher of the linear-algebra kernel sources (kernels/linalg.cl,
// kernels/eig.cl), with kernels/linalg_scalar.cl's element arithmetic
// prepended: T is the tensor's dtype for float32 / float64; complex64 /
// complex128 compile the same source with LA_COMPLEX, T = float2 / double2
// over kernels/complex_lib.cl's arithmetic and R the real type.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

#include "backend/kernel_launch.h"
#include "backend/program_cache.h"

namespace torch_ocl {

inline Launch linalg_source_launch(const at::Tensor& like, const char* source, const char* kernel) {
  const auto device = like.device().index();
  const c10::ScalarType dtype = like.scalar_type();
  const c10::ScalarType real = c10::toRealValueType(dtype);
  check_dtype_supported(real, device);
  return Launch(device, source_kernel(device, source, kernel, kernel_variant({static_cast<int>(dtype)}), [&] {
    if (!c10::isComplexType(dtype)) return dtype_preamble(dtype) + kernel_source("linalg_scalar");
    const std::string r = real == at::kDouble ? "double" : "float";
    return dtype_preamble(real) + "#define LA_COMPLEX 1\n#define T " + r + "2\n#define R " + r + "\n" +
           kernel_source("complex_lib") + kernel_source("linalg_scalar");
  }));
}

}  // namespace torch_ocl
