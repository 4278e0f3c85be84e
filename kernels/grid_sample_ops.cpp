// grid_sampler_2d / grid_sampler_3d and their backward ops on PrivateUse1
// (F.grid_sample; affine_grid is an ATen composite of native ops). Kernels:
// kernels/grid_sample.cl. Argument checks: ATen's check_grid_sampler_common /
// _2d / _3d (GridSamplerUtils.h), as the CPU's entry points. Floating dtypes
// with a grid of the input's dtype natively; other calls go to the counted
// CPU fallback (its result, or its error).
#include <ATen/Context.h>
#include <ATen/native/GridSamplerUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include "kernels/register_op.h"
#include "backend/fallback.h"
#include "backend/kernel_launch.h"

namespace torch_ocl {
namespace {

using at::Tensor;

// Mirrors GSParams in kernels/grid_sample.cl.
struct GSParams {
  int64_t N = 1, C = 1;
  int64_t in_size[3] = {1, 1, 1}, out_size[3] = {1, 1, 1};
  int64_t in_stride[5] = {}, out_stride[5] = {};
  int64_t grid_stride[5] = {}, ggrid_stride[5] = {};
  int64_t dims = 2, interp = 0, padding = 0, align_corners = 0;
};

// (N, C, D, H, W) views of an input / output; (N, D, H, W, k) of a grid.
Tensor image5d(const Tensor& t) { return t.dim() == 4 ? t.unsqueeze(2) : t; }
Tensor grid5d(const Tensor& t) { return t.dim() == 4 ? t.unsqueeze(1) : t; }

GSParams make_params(const Tensor& input, const Tensor& grid, const Tensor& output, const Tensor& grad_grid,
                     int64_t interp, int64_t padding, bool align_corners) {
  GSParams p;
  const Tensor in5 = image5d(input), out5 = image5d(output), g5 = grid5d(grid);
  p.N = in5.size(0);
  p.C = in5.size(1);
  p.dims = input.dim() - 2;
  p.interp = interp;
  p.padding = padding;
  p.align_corners = align_corners;
  for (int k = 0; k < 3; ++k) {
    p.in_size[k] = in5.size(2 + k);
    p.out_size[k] = g5.size(1 + k);
  }
  for (int i = 0; i < 5; ++i) {
    p.in_stride[i] = in5.stride(i);
    p.out_stride[i] = out5.stride(i);
    p.grid_stride[i] = g5.stride(i);
  }
  if (grad_grid.defined()) {
    const Tensor gg5 = grid5d(grad_grid);
    for (int i = 0; i < 5; ++i) p.ggrid_stride[i] = gg5.stride(i);
  }
  return p;
}

std::string preamble(c10::ScalarType dtype) {
  return dtype_preamble(dtype) + (dtype == at::kDouble ? "#define GS_DOUBLE 1\n" : "");
}


void check(const Tensor& input, const Tensor& grid, int64_t interp, int dims) {
  at::native::check_grid_sampler_common(input, grid);
  if (dims == 2) at::native::check_grid_sampler_2d(input, grid);
  else at::native::check_grid_sampler_3d(input, grid, interp);
}

template <int Dims>
Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interp, int64_t padding, bool align_corners) {
  check(input, grid, interp, Dims);
  std::vector<int64_t> sizes{input.size(0), input.size(1)};
  for (int i = 1; i <= Dims; ++i) sizes.push_back(grid.size(i));
  Tensor output = at::empty(sizes, input.options());
  if (output.numel() == 0) return output;
  const GSParams p = make_params(input, grid, output, Tensor(), interp, padding, align_corners);
  const auto device = input.device().index();
  check_dtype_supported(input.scalar_type(), device);
  Launch(device, source_kernel(device, "grid_sample", "grid_sample_forward", kernel_variant({static_cast<int>(input.scalar_type())}),
                               [&] { return preamble(input.scalar_type()); }))
      .tensor(output)
      .input(input)
      .input(grid)
      .value(p)
      .run_items(static_cast<size_t>(output.numel() / output.size(1)));
  return output;
}

template <int Dims>
std::tuple<Tensor, Tensor> grid_sampler_backward(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                 int64_t interp, int64_t padding, bool align_corners,
                                                 std::array<bool, 2> output_mask) {
  if (grad_output.scalar_type() != input.scalar_type())  // (the kernels read both as one dtype)
    return fallback_call<std::tuple<Tensor, Tensor>, const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t,
                         bool, std::array<bool, 2>>(
        Dims == 2 ? "aten::grid_sampler_2d_backward" : "aten::grid_sampler_3d_backward", grad_output, input, grid,
        interp, padding, align_corners, output_mask);
  check(input, grid, interp, Dims);
  if (output_mask[0]) at::globalContext().alertNotDeterministic(Dims == 2 ? "grid_sampler_2d_backward_ocl"
                                                                          : "grid_sampler_3d_backward_ocl");
  const auto dtype = input.scalar_type();
  const auto acc = dtype == at::kDouble ? at::kDouble : at::kFloat;
  Tensor grad_acc = output_mask[0] ? at::zeros(input.sizes(), input.options().dtype(acc)) : Tensor();
  Tensor grad_grid = at::empty_like(grid);
  if (grad_output.numel() > 0) {
    const GSParams p = make_params(input, grid, grad_output, grad_grid, interp, padding, align_corners);
    const auto device = input.device().index();
    check_dtype_supported(dtype, device);
    Launch l(device, source_kernel(device, "grid_sample", "grid_sample_backward", kernel_variant({static_cast<int>(dtype)}),
                                   [&] { return preamble(dtype); }));
    if (grad_acc.defined()) l.tensor(grad_acc);
    else l.null_tensor();
    l.tensor(grad_grid).input(grad_output).input(input).input(grid).value(p).value<int64_t>(
        grad_acc.defined() ? 1 : 0);
    l.run_items(static_cast<size_t>(grad_output.numel() / grad_output.size(1)));
  } else {
    grad_grid.zero_();
  }
  Tensor grad_input = grad_acc.defined() && acc != dtype ? grad_acc.to(dtype) : grad_acc;
  return {grad_input, grad_grid};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_op<&grid_sampler<2>, takes_floating>(m, "grid_sampler_2d");
  register_op<&grid_sampler<3>, takes_floating>(m, "grid_sampler_3d");
  register_op<&grid_sampler_backward<2>, takes_floating>(m, "grid_sampler_2d_backward");
  register_op<&grid_sampler_backward<3>, takes_floating>(m, "grid_sampler_3d_backward");
}

}  // namespace torch_ocl
