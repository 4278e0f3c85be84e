// The general eigenproblem on ocl: linalg_eig (+ .out), _linalg_eigvals and
// linalg_eigvals.out, LAPACK's geev in kernels/eig.cl (balancing, Hessenberg
// reduction, Hessenberg QR, eigenvectors by back substitution). ATen's CPU and
// CUDA kernels of these ops compute on the host (MAGMA's geev has no device
// interface); here the device does. Checks and messages are ATen's
// (BatchLinearAlgebra.cpp: linalg_eig_out, linalg_eigvals_out); autograd is
// ATen's formula over the outputs (linalg_eig_backward).
#include <ATen/native/LinearAlgebraUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_linalg_check_errors.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/isfinite.h>
#include <ATen/ops/view_as_complex.h>
#include <torch/library.h>

#include "kernels/linalg_launch.h"
#include "kernels/register_op.h"

namespace torch_ocl {
namespace {

using at::Tensor;

// float32 / float64 / complex64 / complex128, and the integer dtypes, which
// raise ATen's error here instead of reaching the CPU fallback.
bool takes_eig(c10::ScalarType t) {
  return t == at::kFloat || t == at::kDouble || t == at::kComplexFloat || t == at::kComplexDouble ||
         c10::isIntegralType(t, /*includeBool=*/true);
}

// Eigenvalues ([..., n] complex) and, with want_v, eigenvectors ([..., n, n]
// complex, column k for eigenvalue k, column-major as LAPACK's).
std::tuple<Tensor, Tensor> geev(const Tensor& input, bool want_v, const char* api) {
  const c10::ScalarType complex_type = c10::toComplexType(input.scalar_type());  // ATen's first error for integers
  at::native::squareCheckInputs(input, api + 6);  // "linalg.eig", as the CPU's message
  const int64_t n = input.size(-1);
  const c10::ScalarType real_type = c10::toRealValueType(input.scalar_type());
  const auto options = input.options();
  const auto values_shape = input.sizes().slice(0, input.dim() - 1);
  if (input.numel() == 0) {
    return {at::empty(values_shape, options.dtype(complex_type)),
            want_v ? at::empty(input.sizes(), options.dtype(complex_type)) : Tensor()};
  }
  TORCH_CHECK(at::isfinite(input).all().item<bool>(), api, ": input tensor should not contain infs or NaNs.");
  const int64_t count = input.numel() / (n * n);
  // column-major work copy: matrix b's (i, j) at b * n * n + i + j * n
  const Tensor a = input.resolve_conj().resolve_neg().reshape({count, n, n}).transpose(-2, -1).contiguous();
  const Tensor z = at::empty(want_v ? std::vector<int64_t>{count, n, n} : std::vector<int64_t>{1}, options);
  const Tensor w = at::empty({count, n, 2}, options.dtype(real_type));
  const Tensor scale = at::empty({count, n}, options.dtype(real_type));
  const Tensor range = at::empty({count, 2}, options.dtype(at::kInt));
  const Tensor infos = at::empty({count}, options.dtype(at::kInt));
  Launch schur = linalg_source_launch(a, "eig", "geev_schur");
  schur.tensor(a).tensor(z).tensor(w).tensor(scale).tensor(range).tensor(infos);
  schur.value(n).value(count).value<cl_int>(want_v);
  schur.run(static_cast<size_t>(count));
  at::_linalg_check_errors(input.dim() == 2 ? infos.squeeze(0) : infos.view(input.sizes().slice(0, input.dim() - 2)),
                           api, input.dim() == 2);
  const Tensor values = at::view_as_complex(w).view(values_shape);
  if (!want_v) return {values, Tensor()};
  const Tensor t = a.to(complex_type), zc = z.to(complex_type);
  const Tensor x = at::empty({count, n}, options.dtype(complex_type));
  const Tensor v = at::empty({count, n, n}, options.dtype(complex_type));  // v[b][k] = eigenvector k
  Launch vectors = linalg_source_launch(t, "eig", "geev_vectors");
  vectors.input(t).input(zc).input(w).input(scale).input(range).tensor(x).tensor(v);
  vectors.value(n).value(count).value<cl_int>(!input.is_complex());
  vectors.run(static_cast<size_t>(count));
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  return {values, v.view(shape).transpose(-2, -1)};
}

std::tuple<Tensor, Tensor> linalg_eig(const Tensor& input) { return geev(input, true, "torch.linalg.eig"); }

std::tuple<Tensor&, Tensor&> linalg_eig_out(const Tensor& input, Tensor& values, Tensor& vectors) {
  const c10::ScalarType complex_type = c10::toComplexType(input.scalar_type());
  at::native::checkLinalgCompatibleDtype("torch.linalg.eig", values.scalar_type(), complex_type, "eigenvalues");
  at::native::checkLinalgCompatibleDtype("torch.linalg.eig", vectors.scalar_type(), complex_type, "eigenvectors");
  at::native::checkSameDevice("torch.linalg.eig", values, input, "eigenvalues");
  at::native::checkSameDevice("torch.linalg.eig", vectors, input, "eigenvectors");
  const auto [l, v] = geev(input, true, "torch.linalg.eig");
  at::native::resize_output(values, l.sizes());
  values.copy_(l);
  at::native::resize_output(vectors, v.sizes());
  vectors.copy_(v);
  return {values, vectors};
}

Tensor eigvals(const Tensor& input) { return std::get<0>(geev(input, false, "torch.linalg.eigvals")); }

Tensor& linalg_eigvals_out(const Tensor& input, Tensor& values) {
  at::native::checkLinalgCompatibleDtype("torch.linalg.eigvals", values.scalar_type(),
                                         c10::toComplexType(input.scalar_type()), "eigenvalues");
  at::native::checkSameDevice("torch.linalg.eigvals", values, input, "eigenvalues");
  const Tensor l = eigvals(input);
  at::native::resize_output(values, l.sizes());
  values.copy_(l);
  return values;
}

}  // namespace
}  // namespace torch_ocl

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace torch_ocl;
  register_op<&torch_ocl::linalg_eig, takes_eig>(m, "linalg_eig");
  register_op<&torch_ocl::linalg_eig_out, takes_eig>(m, "linalg_eig.out");
  register_op<&torch_ocl::eigvals, takes_eig>(m, "_linalg_eigvals");
  register_op<&torch_ocl::linalg_eigvals_out, takes_eig>(m, "linalg_eigvals.out");
}
