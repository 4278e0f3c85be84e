// Bessel and Airy functions of torch.special, one row per op: the kernel
// expression (helpers in kernels/special_lib.cl, Cephes' algorithms as ATen's
// native/Math.h) and ATen's structured impl, whose meta promotes integer and
// bool inputs to float. Like the CPU, float and double only (half and
// bfloat16 raise NotImplementedError). None has an in-place variant.
#include <ATen/native/UnaryOps.h>
#include <ATen/ops/special_airy_ai_native.h>
#include <ATen/ops/special_bessel_j0_native.h>
#include <ATen/ops/special_bessel_j1_native.h>
#include <ATen/ops/special_bessel_y0_native.h>
#include <ATen/ops/special_bessel_y1_native.h>
#include <ATen/ops/special_modified_bessel_i0_native.h>
#include <ATen/ops/special_modified_bessel_i1_native.h>
#include <ATen/ops/special_modified_bessel_k0_native.h>
#include <ATen/ops/special_modified_bessel_k1_native.h>
#include <ATen/ops/special_scaled_modified_bessel_k0_native.h>
#include <ATen/ops/special_scaled_modified_bessel_k1_native.h>

#include "kernels/op_table.h"

using namespace torch_ocl;

// special_<op>: stub special_<op>_stub, kernel sp_<op>(a) from special_lib.cl.
#define OCL_BESSEL(op)                                                                           \
  OCL_POINTWISE_STUB(special_##op, special_##op##_stub, .expr = "sp_" #op "(a)", .dtypes = kFloat32And64, \
                     .lib = "special_lib")                                                        \
  OCL_NATIVE_OP(structured_special_##op##_out, "special_" #op, nullptr, "special_" #op ".out")

OCL_BESSEL(bessel_j0)
OCL_BESSEL(bessel_j1)
OCL_BESSEL(bessel_y0)
OCL_BESSEL(bessel_y1)
OCL_BESSEL(modified_bessel_i0)
OCL_BESSEL(modified_bessel_i1)
OCL_BESSEL(modified_bessel_k0)
OCL_BESSEL(modified_bessel_k1)
OCL_BESSEL(scaled_modified_bessel_k0)
OCL_BESSEL(scaled_modified_bessel_k1)
OCL_BESSEL(airy_ai)
