// Matrix products through CLBlast or, on CPU devices, kernels/gemm.cl (kernels/blas.cpp), for other launchers
// (convolutions) that build their operands as views.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

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

// CLBlast tuning (kernels/blas_tuning.cpp): the first call for a device
// applies its tuning file (cache folder, else the one shipped with the
// package) with clblast::OverrideParameters; every CLBlast caller calls it.
void ensure_blas_tuning(c10::DeviceIndex index);
// The tuning file applied on the device ("" = CLBlast's defaults).
std::string blas_tuning_source(c10::DeviceIndex index);
// "<device>__<driver>.json", the name `python -m torch_ocl.tune` writes.
std::string blas_tuning_file_name(const std::string& device_name, const std::string& driver_version);
// Releases CLBlast's compiled programs (clblast::ClearCache). Called at
// Python exit (atexit), while the OpenCL implementation is still whole: left
// to CLBlast's static destructor, the release may run after the
// implementation's own teardown (oclgrind: a heap corruption at exit).
void clear_blas_programs();

}  // namespace torch_ocl
