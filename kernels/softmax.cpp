// softmax / log_softmax and their backward along any dim; kernels in
// kernels/softmax.cl (float dtypes). The dim is moved last when needed.
#include <ATen/ops/_log_softmax_backward_data_meta.h>
#include <ATen/ops/_log_softmax_meta.h>
#include <ATen/ops/_softmax_backward_data_meta.h>
#include <ATen/ops/_softmax_meta.h>
#include <ATen/WrapDimUtils.h>

#include "backend/kernel_launch.h"
#include "kernels/structured.h"

namespace torch_ocl {
namespace {

// `t` with `dim` last, contiguous (a view when it already is).
at::Tensor dim_last(const at::Tensor& t, int64_t dim) {
  return t.dim() == 0 ? t.reshape({1}) : t.movedim(dim, -1).contiguous();
}

// Runs `kernel` over rows; `tensors` are passed in order, the last one is
// written. All are contiguous with the reduced dim last, dtype `dtype`.
void launch_rows(const char* kernel, bool log, c10::ScalarType dtype,
                 std::initializer_list<at::Tensor> tensors) {
  const at::Tensor& first = *tensors.begin();
  const int64_t N = first.dim() == 0 ? 1 : first.size(-1);
  const int64_t M = N == 0 ? 0 : first.numel() / N;
  if (M == 0) return;
  const auto device = first.device().index();
  check_dtype_supported(dtype, device);
  TORCH_CHECK(c10::isFloatingType(dtype), "\"", kernel, "\" not implemented for '", dtype, "'");
  Launch l(device, source_kernel(device, "softmax", kernel, kernel_variant({static_cast<int>(dtype), log}),
                                 [&] { return dtype_preamble(dtype) + (log ? "#define LOG 1\n" : ""); }));
  const size_t local = l.pow2_work_group();
  for (const auto& t : tensors) {
    if (&t == tensors.end() - 1) l.tensor(t);
    else l.input(t);
  }
  l.value(M).value(N).local_memory(local * 8).run(static_cast<size_t>(M) * local, local);
}

// Computes into `out` (any layout) from a dim-last contiguous result.
void write_back(const at::Tensor& out, const at::Tensor& result_dim_last, int64_t dim) {
  if (out.dim() == 0) {
    out.copy_(result_dim_last.reshape({}));
  } else {
    out.copy_(result_dim_last.movedim(-1, dim));
  }
}

template <bool Log>
void softmax_impl(at::impl::MetaBase&, const at::Tensor& out, const at::Tensor& self, int64_t dim,
                  bool half_to_float) {
  if (out.numel() == 0) return;
  dim = at::maybe_wrap_dim(dim, self.dim());
  const auto dtype = out.scalar_type();
  const at::Tensor x = dim_last(self.to(dtype), dim);
  const bool direct = out.is_contiguous() && (out.dim() == 0 || dim == out.dim() - 1);
  at::Tensor y = direct ? out : at::empty_like(x);
  launch_rows("softmax_forward", Log, dtype, {x, y});
  if (!direct) write_back(out, y, dim);
}

template <bool Log>
void softmax_backward_impl(at::impl::MetaBase&, const at::Tensor& grad_input, const at::Tensor& grad,
                           const at::Tensor& output, int64_t dim, c10::ScalarType) {
  if (grad_input.numel() == 0) return;
  dim = at::maybe_wrap_dim(dim, grad.dim());
  const auto dtype = grad_input.scalar_type();
  const at::Tensor g = dim_last(grad.to(dtype), dim), o = dim_last(output.to(dtype), dim);
  const bool direct = grad_input.is_contiguous() && (grad_input.dim() == 0 || dim == grad_input.dim() - 1);
  at::Tensor r = direct ? grad_input : at::empty_like(g);
  launch_rows("softmax_backward", Log, dtype, {g, o, r});
  if (!direct) write_back(grad_input, r, dim);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace at::meta;
  register_structured<structured__softmax, &softmax_impl<false>, int64_t, bool>(m, "_softmax", nullptr,
                                                                               "_softmax.out");
  register_structured<structured__log_softmax, &softmax_impl<true>, int64_t, bool>(
      m, "_log_softmax", nullptr, "_log_softmax.out");
  register_structured<structured__softmax_backward_data, &softmax_backward_impl<false>, const at::Tensor&,
                      int64_t, c10::ScalarType>(m, "_softmax_backward_data", nullptr,
                                                "_softmax_backward_data.out");
  register_structured<structured__log_softmax_backward_data, &softmax_backward_impl<true>,
                      const at::Tensor&, int64_t, c10::ScalarType>(
      m, "_log_softmax_backward_data", nullptr, "_log_softmax_backward_data.out");
}

}  // namespace torch_ocl
