// Matrix products through CLBlast (kernels/blas.cpp), for other launchers
// (convolutions) that build their operands as views.
#pragma once

#include <ATen/core/Tensor.h>

namespace torch_ocl {

// out = alpha * a @ b + beta * out over the last two dims, float32/float64.
// Operands are 2-d, 3-d or 4-d with the same leading (batch) sizes; a shared
// operand is passed expanded (batch stride 0). Views whose last two dims have
// a unit stride in either dim are used in place (as a transpose where
// needed); other layouts are copied. 4-d operands loop over the smaller
// leading dim and batch (GemmStridedBatched) over the other. With beta = 0,
// NaNs already in `out` are ignored.
void gemm_batched(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, double alpha,
                  double beta);

}  // namespace torch_ocl
