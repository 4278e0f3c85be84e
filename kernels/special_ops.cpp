// The torch.special op table: Bessel-type, gamma-type, normal-distribution
// and orthogonal-polynomial functions. One row per kernel, as in
// kernels/pointwise_ops.cpp; the helpers (sp_*) live in kernels/special_lib.cl,
// which only these ops' programs include. Integer inputs promote to the
// default float dtype through ATen's metas, as on the CPU.
#include <ATen/native/BinaryOps.h>
#include <ATen/native/UnaryOps.h>
#include <ATen/ops/i0_native.h>
#include <ATen/ops/nextafter_native.h>
#include <ATen/ops/igamma_native.h>
#include <ATen/ops/igammac_native.h>
#include <ATen/ops/polygamma_native.h>
#include <ATen/ops/special_chebyshev_polynomial_t_native.h>
#include <ATen/ops/special_chebyshev_polynomial_u_native.h>
#include <ATen/ops/special_chebyshev_polynomial_v_native.h>
#include <ATen/ops/special_chebyshev_polynomial_w_native.h>
#include <ATen/ops/special_entr_native.h>
#include <ATen/ops/special_erfcx_native.h>
#include <ATen/ops/special_hermite_polynomial_h_native.h>
#include <ATen/ops/special_hermite_polynomial_he_native.h>
#include <ATen/ops/special_i0e_native.h>
#include <ATen/ops/special_i1_native.h>
#include <ATen/ops/special_i1e_native.h>
#include <ATen/ops/special_laguerre_polynomial_l_native.h>
#include <ATen/ops/special_legendre_polynomial_p_native.h>
#include <ATen/ops/special_log_ndtr_native.h>
#include <ATen/ops/special_ndtri_native.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_t_native.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_u_native.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_v_native.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_w_native.h>
#include <ATen/ops/special_spherical_bessel_j0_native.h>
#include <ATen/ops/special_zeta_native.h>

#include "kernels/register_op.h"
#include "kernels/op_table.h"

using namespace torch_ocl;

// A special-function row: op `id`, stub `stub`, its expression over a (and b).
// `dtype_set`: kFloating, or kFloat32And64 where the CPU has no half kernels.
#define OCL_SPECIAL(id, stub, dtype_set, ...) \
  OCL_POINTWISE_STUB(id, stub, __VA_ARGS__, .dtypes = dtype_set, .lib = "special_lib")

// ---- unary ----
OCL_SPECIAL(i0, i0_stub, kFloating, .expr = "sp_i0(a)")
OCL_NATIVE_OP(structured_i0_out, "i0", "i0_", "i0.out")
// kaiser_window (torch.kaiser_window, torch.signal.windows.kaiser) over ATen's
// arange: p0 = window_length, p1 = beta; |.| under the root as the CPU's kernel.
OCL_POINTWISE_STUB(kaiser_window, kaiser_window_stub,
                   .expr = "sp_i0(p1 * sqrt(fabs(1 - pown((a - (T)(p0 - 1) / 2) / ((T)(p0 - 1) / 2), 2)))) / sp_i0(p1)",
                   .dtypes = kFloating, .params = "LF", .lib = "special_lib")
OCL_SPECIAL(special_i0e, special_i0e_stub, kFloating, .expr = "sp_i0e(a)")
OCL_NATIVE_OP(structured_special_i0e_out, "special_i0e", nullptr, "special_i0e.out")
OCL_SPECIAL(special_i1, special_i1_stub, kFloating, .expr = "sp_i1(a)")
OCL_NATIVE_OP(structured_special_i1_out, "special_i1", nullptr, "special_i1.out")
OCL_SPECIAL(special_i1e, special_i1e_stub, kFloating, .expr = "sp_i1e(a)")
OCL_NATIVE_OP(structured_special_i1e_out, "special_i1e", nullptr, "special_i1e.out")
OCL_SPECIAL(special_ndtri, special_ndtri_stub, kFloat32And64, .expr = "sp_ndtri(a)")
OCL_NATIVE_OP(structured_special_ndtri_out, "special_ndtri", nullptr, "special_ndtri.out")
OCL_SPECIAL(special_log_ndtr, special_log_ndtr_stub, kFloat32And64, .expr = "sp_log_ndtr(a)")
OCL_NATIVE_OP(structured_special_log_ndtr_out, "special_log_ndtr", nullptr, "special_log_ndtr.out")
OCL_SPECIAL(special_erfcx, special_erfcx_stub, kFloat32And64, .expr = "sp_erfcx(a)")
OCL_NATIVE_OP(structured_special_erfcx_out, "special_erfcx", nullptr, "special_erfcx.out")
OCL_SPECIAL(special_entr, special_entr_stub, kFloating, .expr = "sp_entr(a)")
OCL_NATIVE_OP(structured_special_entr_out, "special_entr", nullptr, "special_entr.out")
OCL_SPECIAL(special_spherical_bessel_j0, special_spherical_bessel_j0_stub, kFloat32And64, .expr = "sp_spherical_bessel_j0(a)")
OCL_NATIVE_OP(structured_special_spherical_bessel_j0_out, "special_spherical_bessel_j0", nullptr, "special_spherical_bessel_j0.out")
OCL_POINTWISE_STUB(polygamma, polygamma_stub, .expr = "sp_polygamma(a, p0)", .dtypes = kFloating,
                   .params = "L", .lib = "special_lib")
// polygamma's meta takes (n, self): registered here rather than through the
// self-first row macro. polygamma_ is composite (it calls polygamma.out).
namespace {
using PolygammaOp = OclStructured<at::native::structured_polygamma_out>;
at::Tensor polygamma(int64_t n, const at::Tensor& self) {
  PolygammaOp op(Variant::Functional);
  op.meta(n, self);
  op.impl(n, self, op.outputs[0]);
  return std::move(op.outputs[0]);
}
at::Tensor& polygamma_out(int64_t n, const at::Tensor& self, at::Tensor& out) {
  PolygammaOp op(Variant::Out, out);
  op.meta(n, self);
  op.impl(n, self, out);
  return out;
}
}  // namespace
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  ::torch_ocl::register_op<&polygamma>(m, "polygamma");
  ::torch_ocl::register_op<&polygamma_out>(m, "polygamma.out");
}

// ---- binary ----
// regularized incomplete gamma functions P(a, x) and Q(a, x); half types in float, as the CPU
OCL_SPECIAL(igamma, igamma_stub, kFloating, .expr = "sp_igamma(a, b)", .ninputs = 2)
OCL_NATIVE_OP(structured_igamma_out, "igamma", "igamma_", "igamma.out")
OCL_SPECIAL(igammac, igammac_stub, kFloating, .expr = "sp_igammac(a, b)", .ninputs = 2)
OCL_NATIVE_OP(structured_igammac_out, "igammac", "igammac_", "igammac.out")
OCL_SPECIAL(special_zeta, zeta_stub, kFloat32And64, .expr = "sp_zeta(a, b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_zeta_out, "special_zeta", nullptr, "special_zeta.out")
OCL_SPECIAL(special_chebyshev_polynomial_t, chebyshev_polynomial_t_stub, kFloat32And64, .expr = "sp_chebyshev_t(a, (long)b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_chebyshev_polynomial_t_out, "special_chebyshev_polynomial_t", nullptr, "special_chebyshev_polynomial_t.out")
OCL_SPECIAL(special_chebyshev_polynomial_u, chebyshev_polynomial_u_stub, kFloat32And64, .expr = "sp_chebyshev_u(a, (long)b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_chebyshev_polynomial_u_out, "special_chebyshev_polynomial_u", nullptr, "special_chebyshev_polynomial_u.out")
OCL_SPECIAL(special_chebyshev_polynomial_v, chebyshev_polynomial_v_stub, kFloat32And64, .expr = "sp_chebyshev_v(a, (long)b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_chebyshev_polynomial_v_out, "special_chebyshev_polynomial_v", nullptr, "special_chebyshev_polynomial_v.out")
OCL_SPECIAL(special_chebyshev_polynomial_w, chebyshev_polynomial_w_stub, kFloat32And64, .expr = "sp_chebyshev_w(a, (long)b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_chebyshev_polynomial_w_out, "special_chebyshev_polynomial_w", nullptr, "special_chebyshev_polynomial_w.out")
OCL_SPECIAL(special_shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_t_stub, kFloat32And64, .expr = "sp_shifted_chebyshev_t(a, (long)b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_shifted_chebyshev_polynomial_t_out, "special_shifted_chebyshev_polynomial_t", nullptr, "special_shifted_chebyshev_polynomial_t.out")
OCL_SPECIAL(special_shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_u_stub, kFloat32And64, .expr = "sp_shifted_chebyshev_u(a, (long)b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_shifted_chebyshev_polynomial_u_out, "special_shifted_chebyshev_polynomial_u", nullptr, "special_shifted_chebyshev_polynomial_u.out")
OCL_SPECIAL(special_shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_v_stub, kFloat32And64, .expr = "sp_shifted_chebyshev_v(a, (long)b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_shifted_chebyshev_polynomial_v_out, "special_shifted_chebyshev_polynomial_v", nullptr, "special_shifted_chebyshev_polynomial_v.out")
OCL_SPECIAL(special_shifted_chebyshev_polynomial_w, shifted_chebyshev_polynomial_w_stub, kFloat32And64, .expr = "sp_shifted_chebyshev_w(a, (long)b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_shifted_chebyshev_polynomial_w_out, "special_shifted_chebyshev_polynomial_w", nullptr, "special_shifted_chebyshev_polynomial_w.out")
OCL_SPECIAL(special_hermite_polynomial_h, hermite_polynomial_h_stub, kFloat32And64, .expr = "sp_hermite_h(a, b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_hermite_polynomial_h_out, "special_hermite_polynomial_h", nullptr, "special_hermite_polynomial_h.out")
OCL_SPECIAL(special_hermite_polynomial_he, hermite_polynomial_he_stub, kFloat32And64, .expr = "sp_hermite_he(a, (long)b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_hermite_polynomial_he_out, "special_hermite_polynomial_he", nullptr, "special_hermite_polynomial_he.out")
OCL_SPECIAL(special_laguerre_polynomial_l, laguerre_polynomial_l_stub, kFloat32And64, .expr = "sp_laguerre_l(a, (long)b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_laguerre_polynomial_l_out, "special_laguerre_polynomial_l", nullptr, "special_laguerre_polynomial_l.out")
OCL_SPECIAL(special_legendre_polynomial_p, legendre_polynomial_p_stub, kFloat32And64, .expr = "sp_legendre_p(a, (long)b)", .ninputs = 2)
OCL_NATIVE_OP(structured_special_legendre_polynomial_p_out, "special_legendre_polynomial_p", nullptr, "special_legendre_polynomial_p.out")

// nextafter steps one unit in the last place of the *storage* dtype: float
// and double use OpenCL's nextafter, half and bfloat16 (computed in float)
// pass their significand digits.
constexpr PointwiseOp k_nextafter{.name = "nextafter", .expr = "sp_nextafter(a, b, p0)", .ninputs = 2,
                                  .dtypes = kFloating, .params = "L", .lib = "special_lib"};
static void nextafter_kernel(at::TensorIteratorBase& iter) {
  const auto dtype = iter.common_dtype();
  const int64_t digits = dtype == at::kHalf ? 11 : dtype == at::kBFloat16 ? 8 : 0;
  run_pointwise(iter, k_nextafter, {digits});
}
namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(nextafter_stub, &nextafter_kernel)
}
OCL_NATIVE_OP(structured_nextafter_out, "nextafter", "nextafter_", "nextafter.out")
