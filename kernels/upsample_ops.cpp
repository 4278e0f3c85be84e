// Upsampling on PrivateUse1: upsample_nearest1d/2d/3d,
// _upsample_nearest_exact1d/2d/3d, upsample_linear1d, upsample_bilinear2d,
// upsample_trilinear3d, upsample_bicubic2d, _upsample_bilinear2d_aa,
// _upsample_bicubic2d_aa (antialias=True) and every *_backward. Kernels:
// kernels/upsample.cl (one program per dtype). The .vec overloads that
// F.interpolate calls are ATen composites over these.
//
// All are structured ops: ATen's metas check the arguments and shape the
// outputs (memory format included); the ratios come from ATen's own
// UpSample.h helpers (area_pixel_compute_scale, compute_scales_value) in the
// CPU's opmath type. Dtypes the CPU kernels take natively: floating types,
// and uint8 for the nearest modes; other dtypes of the nearest modes go to
// the counted CPU fallback, which gives the CPU's result or its error. The
// linear and cubic modes raise for integral dtypes as CUDA does (the CPU has
// a uint8 path CUDA lacks).
#include <ATen/native/UpSample.h>
#include <ATen/ops/_upsample_bicubic2d_aa_backward_meta.h>
#include <ATen/ops/_upsample_bicubic2d_aa_meta.h>
#include <ATen/ops/_upsample_bilinear2d_aa_backward_meta.h>
#include <ATen/ops/_upsample_bilinear2d_aa_meta.h>
#include <ATen/ops/_upsample_nearest_exact1d_backward_meta.h>
#include <ATen/ops/_upsample_nearest_exact1d_meta.h>
#include <ATen/ops/_upsample_nearest_exact2d_backward_meta.h>
#include <ATen/ops/_upsample_nearest_exact2d_meta.h>
#include <ATen/ops/_upsample_nearest_exact3d_backward_meta.h>
#include <ATen/ops/_upsample_nearest_exact3d_meta.h>
#include <ATen/ops/upsample_bicubic2d_backward_meta.h>
#include <ATen/ops/upsample_bicubic2d_meta.h>
#include <ATen/ops/upsample_bilinear2d_backward_meta.h>
#include <ATen/ops/upsample_bilinear2d_meta.h>
#include <ATen/ops/upsample_linear1d_backward_meta.h>
#include <ATen/ops/upsample_linear1d_meta.h>
#include <ATen/ops/upsample_nearest1d_backward_meta.h>
#include <ATen/ops/upsample_nearest1d_meta.h>
#include <ATen/ops/upsample_nearest2d_backward_meta.h>
#include <ATen/ops/upsample_nearest2d_meta.h>
#include <ATen/ops/upsample_nearest3d_backward_meta.h>
#include <ATen/ops/upsample_nearest3d_meta.h>
#include <ATen/ops/upsample_trilinear3d_backward_meta.h>
#include <ATen/ops/upsample_trilinear3d_meta.h>

#include <ATen/ops/empty.h>

#include <cstring>

#include "backend/kernel_launch.h"
#include "kernels/ncdhw.h"
#include "kernels/structured.h"

namespace torch_ocl {
namespace {

using at::IntArrayRef;
using at::Tensor;
using OptD = std::optional<double>;

enum Mode : int64_t { kNearest = 0, kNearestExact = 1, kLinear = 2, kCubic = 3, kLinearAA = 4, kCubicAA = 5 };
constexpr const char* mode_name(Mode m) {
  constexpr const char* names[] = {"nearest", "nearest_exact", "linear", "cubic", "linear_aa", "cubic_aa"};
  return names[m];
}

// Mirrors UpParams in kernels/upsample.cl.
struct UpParams {
  int64_t N = 1, C = 1;
  int64_t in_size[3] = {1, 1, 1}, out_size[3] = {1, 1, 1};
  int64_t in_stride[5] = {}, out_stride[5] = {};
  int64_t mode = 0, align_corners = 0, channels_last = 0, dims = 0;
  uint64_t ratio[3] = {};
  float nscale[4] = {};
};
static_assert(sizeof(UpParams) == 8 * 25 + 16);

// Params between `input` (input or grad_input) and `output` (output or
// grad_output); work items follow `dst`'s layout.
UpParams make_params(const Tensor& input, const Tensor& output, const Tensor& dst, Mode mode, bool align_corners,
                     std::initializer_list<OptD> scales) {
  const int dims = static_cast<int>(scales.size());
  UpParams p;
  fill_ncdhw(p, input, output, dst, dims);
  p.mode = mode;
  p.align_corners = align_corners;
  p.dims = dims;
  const bool dbl = input.scalar_type() == at::kDouble;
  int k = 3 - dims;
  for (const OptD& s : scales) {
    const int64_t I = p.in_size[k], O = p.out_size[k];
    p.nscale[k] = at::native::compute_scales_value<float>(s, I, O);
    if (dbl) {
      const double r = at::native::area_pixel_compute_scale<double>(I, O, align_corners, s);
      std::memcpy(&p.ratio[k], &r, sizeof r);
    } else {
      const float r = at::native::area_pixel_compute_scale<float>(I, O, align_corners, s);
      uint32_t bits;
      std::memcpy(&bits, &r, sizeof r);
      p.ratio[k] = bits;
    }
    ++k;
  }
  return p;
}

void run_upsample(const char* kernel, const UpParams& p, const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  const auto device = dst.device().index();
  const auto dtype = dst.scalar_type();
  check_dtype_supported(dtype, device);
  auto preamble = [&] { return dtype_preamble(dtype) + (dtype == at::kDouble ? "#define RATIO_DOUBLE 1\n" : ""); };
  auto upsample_kernel = [&](const char* name) -> CachedKernel& {
    return source_kernel(device, "upsample", name, kernel_variant({static_cast<int>(dtype)}), preamble);
  };
  // The per-dim tap table (TapRow in upsample.cl: 4 indices, 4 weights, a count).
  const int64_t rows = p.out_size[0] + p.out_size[1] + p.out_size[2];
  const int64_t row_bytes = 8 * 4 + 4 * (dtype == at::kDouble ? 8 : 4) + 8;
  const Tensor table = at::empty({rows * row_bytes}, dst.options().dtype(at::kByte));
  Launch(device, upsample_kernel("upsample_taps")).tensor(table).value(p).run_items(rows);
  Launch(device, upsample_kernel(kernel)).tensor(dst).input(src).input(table).value(p).run_items(dst.numel());
}

void forward(const Tensor& out, const Tensor& self, Mode mode, bool align_corners,
             std::initializer_list<OptD> scales) {
  run_upsample(mode <= kNearestExact ? "upsample_nearest_forward" : "upsample_forward",
               make_params(self, out, out, mode, align_corners, scales), out, self);
}

void backward(const Tensor& grad_input, const Tensor& grad_output, Mode mode, bool align_corners,
              std::initializer_list<OptD> scales) {
  const Tensor go = grad_output.scalar_type() == grad_input.scalar_type()
                        ? grad_output
                        : grad_output.to(grad_input.scalar_type());
  run_upsample("upsample_backward", make_params(grad_input, go, grad_input, mode, align_corners, scales),
               grad_input, go);
}

// ---- the structured impls (scales: one per spatial dim, D H W order) ----

bool floating_or_byte(at::ScalarType t) { return takes_floating(t) || t == at::kByte; }

template <Mode M, class... S>
void nearest_impl(at::impl::MetaBase&, const Tensor& out, const Tensor& self, IntArrayRef, S... scales) {
  // floating types and uint8: the dtypes of the CPU's and CUDA's kernels; the rest raise as there
  TORCH_CHECK_NOT_IMPLEMENTED(floating_or_byte(self.scalar_type()), "\"upsample_", mode_name(M),
                              "\" not implemented for '", c10::toString(self.scalar_type()), "'");
  forward(out, self, M, false, {scales...});
}
template <Mode M, class... S>
void nearest_backward_impl(at::impl::MetaBase&, const Tensor& grad_input, const Tensor& grad_output, IntArrayRef,
                           IntArrayRef, S... scales) {
  backward(grad_input, grad_output, M, false, {scales...});
}
template <Mode M, class... S>
void interp_impl(at::impl::MetaBase&, const Tensor& out, const Tensor& self, IntArrayRef, bool align_corners,
                 S... scales) {
  // As CUDA (not the CPU, which has a uint8 path): linear and cubic modes
  // take floating types only.
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(self.scalar_type()), "\"upsample_", mode_name(M),
                              "\" not implemented for '", c10::toString(self.scalar_type()), "'");
  forward(out, self, M, align_corners, {scales...});
}
template <Mode M, class... S>
void interp_backward_impl(at::impl::MetaBase&, const Tensor& grad_input, const Tensor& grad_output, IntArrayRef,
                          IntArrayRef, bool align_corners, S... scales) {
  backward(grad_input, grad_output, M, align_corners, {scales...});
}


}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace at::meta;
  using IA = IntArrayRef;
  using D = OptD;
  // nearest / nearest-exact: (output_size, scales...)
  register_structured<structured_upsample_nearest1d, &nearest_impl<kNearest, D>, IA, D>(m, "upsample_nearest1d", nullptr, "upsample_nearest1d.out", takes_real);
  register_structured<structured_upsample_nearest2d, &nearest_impl<kNearest, D, D>, IA, D, D>(m, "upsample_nearest2d", nullptr, "upsample_nearest2d.out", takes_real);
  register_structured<structured_upsample_nearest3d, &nearest_impl<kNearest, D, D, D>, IA, D, D, D>(m, "upsample_nearest3d", nullptr, "upsample_nearest3d.out", takes_real);
  register_structured<structured__upsample_nearest_exact1d, &nearest_impl<kNearestExact, D>, IA, D>(m, "_upsample_nearest_exact1d", nullptr, "_upsample_nearest_exact1d.out", takes_real);
  register_structured<structured__upsample_nearest_exact2d, &nearest_impl<kNearestExact, D, D>, IA, D, D>(m, "_upsample_nearest_exact2d", nullptr, "_upsample_nearest_exact2d.out", takes_real);
  register_structured<structured__upsample_nearest_exact3d, &nearest_impl<kNearestExact, D, D, D>, IA, D, D, D>(m, "_upsample_nearest_exact3d", nullptr, "_upsample_nearest_exact3d.out", takes_real);
  // their backward ops: (output_size, input_size, scales...)
  register_structured<structured_upsample_nearest1d_backward, &nearest_backward_impl<kNearest, D>, IA, IA, D>(m, "upsample_nearest1d_backward", nullptr, "upsample_nearest1d_backward.grad_input", takes_floating);
  register_structured<structured_upsample_nearest2d_backward, &nearest_backward_impl<kNearest, D, D>, IA, IA, D, D>(m, "upsample_nearest2d_backward", nullptr, "upsample_nearest2d_backward.grad_input", takes_floating);
  register_structured<structured_upsample_nearest3d_backward, &nearest_backward_impl<kNearest, D, D, D>, IA, IA, D, D, D>(m, "upsample_nearest3d_backward", nullptr, "upsample_nearest3d_backward.grad_input", takes_floating);
  register_structured<structured__upsample_nearest_exact1d_backward, &nearest_backward_impl<kNearestExact, D>, IA, IA, D>(m, "_upsample_nearest_exact1d_backward", nullptr, "_upsample_nearest_exact1d_backward.grad_input", takes_floating);
  register_structured<structured__upsample_nearest_exact2d_backward, &nearest_backward_impl<kNearestExact, D, D>, IA, IA, D, D>(m, "_upsample_nearest_exact2d_backward", nullptr, "_upsample_nearest_exact2d_backward.grad_input", takes_floating);
  register_structured<structured__upsample_nearest_exact3d_backward, &nearest_backward_impl<kNearestExact, D, D, D>, IA, IA, D, D, D>(m, "_upsample_nearest_exact3d_backward", nullptr, "_upsample_nearest_exact3d_backward.grad_input", takes_floating);
  // linear / bicubic: (output_size, align_corners, scales...); every real dtype
  // reaches interp_impl, which raises for the integral ones (as CUDA does)
  register_structured<structured_upsample_linear1d, &interp_impl<kLinear, D>, IA, bool, D>(m, "upsample_linear1d", nullptr, "upsample_linear1d.out", takes_real);
  register_structured<structured_upsample_bilinear2d, &interp_impl<kLinear, D, D>, IA, bool, D, D>(m, "upsample_bilinear2d", nullptr, "upsample_bilinear2d.out", takes_real);
  register_structured<structured_upsample_trilinear3d, &interp_impl<kLinear, D, D, D>, IA, bool, D, D, D>(m, "upsample_trilinear3d", nullptr, "upsample_trilinear3d.out", takes_real);
  register_structured<structured_upsample_bicubic2d, &interp_impl<kCubic, D, D>, IA, bool, D, D>(m, "upsample_bicubic2d", nullptr, "upsample_bicubic2d.out", takes_real);
  // their backward ops: (output_size, input_size, align_corners, scales...)
  register_structured<structured_upsample_linear1d_backward, &interp_backward_impl<kLinear, D>, IA, IA, bool, D>(m, "upsample_linear1d_backward", nullptr, "upsample_linear1d_backward.grad_input", takes_floating);
  register_structured<structured_upsample_bilinear2d_backward, &interp_backward_impl<kLinear, D, D>, IA, IA, bool, D, D>(m, "upsample_bilinear2d_backward", nullptr, "upsample_bilinear2d_backward.grad_input", takes_floating);
  register_structured<structured_upsample_trilinear3d_backward, &interp_backward_impl<kLinear, D, D, D>, IA, IA, bool, D, D, D>(m, "upsample_trilinear3d_backward", nullptr, "upsample_trilinear3d_backward.grad_input", takes_floating);
  register_structured<structured_upsample_bicubic2d_backward, &interp_backward_impl<kCubic, D, D>, IA, IA, bool, D, D>(m, "upsample_bicubic2d_backward", nullptr, "upsample_bicubic2d_backward.grad_input", takes_floating);
  // antialiased (F.interpolate(..., antialias=True))
  register_structured<structured__upsample_bilinear2d_aa, &interp_impl<kLinearAA, D, D>, IA, bool, D, D>(m, "_upsample_bilinear2d_aa", nullptr, "_upsample_bilinear2d_aa.out", takes_real);
  register_structured<structured__upsample_bicubic2d_aa, &interp_impl<kCubicAA, D, D>, IA, bool, D, D>(m, "_upsample_bicubic2d_aa", nullptr, "_upsample_bicubic2d_aa.out", takes_real);
  register_structured<structured__upsample_bilinear2d_aa_backward, &interp_backward_impl<kLinearAA, D, D>, IA, IA, bool, D, D>(m, "_upsample_bilinear2d_aa_backward", nullptr, "_upsample_bilinear2d_aa_backward.grad_input", takes_floating);
  register_structured<structured__upsample_bicubic2d_aa_backward, &interp_backward_impl<kCubicAA, D, D>, IA, IA, bool, D, D>(m, "_upsample_bicubic2d_aa_backward", nullptr, "_upsample_bicubic2d_aa_backward.grad_input", takes_floating);
}

}  // namespace torch_ocl
