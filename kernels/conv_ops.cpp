// Convolutions: convolution_overrideable and convolution_backward_overrideable,
// the two entries ATen's convolution / convolution_backward call for an
// out-of-tree device (ConvBackend::Overrideable); ATen does the shape checks,
// 1-d as 2-d, empty inputs and autograd before them.
//
// Built on GEMM (DESIGN decision 4): im2col / col2im (kernels/conv.cl) into a
// column tensor, CLBlast GEMM through gemm_batched (kernels/blas.cpp), over
// the batch in chunks whose columns stay under a size limit. Groups are a
// batch dim of the GEMM. float32 / float64 natively; float16 / bfloat16 are
// computed in float32 on converted copies; integer dtypes run on the CPU
// through the counted fallback (CLBlast has no integer GEMM).
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/native/ConvUtils.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/irange.h>
#include <torch/library.h>

#include <array>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "kernels/register_op.h"
#include "backend/fallback.h"
#include "backend/kernel_launch.h"
#include "kernels/blas.h"
#include "kernels/conv_columns.h"

namespace torch_ocl {
namespace {

using at::IntArrayRef;
using at::Tensor;

// Mirrors ConvGeom in kernels/conv.cl.
struct ConvGeom {
  int64_t channels;
  int64_t in[3], out[3], ksize[3], stride[3], pad[3], dil[3];
  int64_t img_stride[5];
};

// A plain (non-transposed) convolution from the "image" x [N, C, *in] to y
// [N, O, *out] with a weight [O, C / groups, *kernel]. A transposed
// convolution is this one run backwards (its input is y, its output x).
// Spatial arrays are padded at the front to 3 dims (size 1, no padding).
struct Conv {
  int64_t groups = 1, C = 0, O = 0;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, pad{0, 0, 0},
      dil{1, 1, 1};
  int64_t K() const { return kernel[0] * kernel[1] * kernel[2]; }
  int64_t L() const { return out[0] * out[1] * out[2]; }
  int64_t Cg() const { return C / groups; }
  int64_t Og() const { return O / groups; }
  // A 1x1 convolution with stride 1 and no padding: the columns are x itself.
  bool pointwise() const {
    for (int d = 0; d < 3; ++d)
      if (kernel[d] != 1 || stride[d] != 1 || pad[d] != 0) return false;
    return true;
  }
};

// `param` for `dims` spatial dims (one value repeated, or one per dim).
std::vector<int64_t> expand_param(IntArrayRef param, const char* name, int64_t dims) {
  if (param.size() == 1) return std::vector<int64_t>(dims, param[0]);
  TORCH_CHECK(static_cast<int64_t>(param.size()) == dims, "expected ", name, " to be a single integer value or a ",
              "list of ", dims, " values to match the convolution dimensions, but got ", name, "=", param);
  return param.vec();
}

Conv make_conv(const Tensor& x, const Tensor& y, const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
               IntArrayRef dilation, int64_t groups) {
  const int64_t dims = weight.dim() - 2;
  TORCH_CHECK(dims >= 1 && dims <= 3, "convolution on ocl: expected 1, 2 or 3 spatial dims, but the weight has ",
              weight.dim(), " dims");
  const auto s = expand_param(stride, "stride", dims), p = expand_param(padding, "padding", dims),
             d = expand_param(dilation, "dilation", dims);
  Conv c;
  c.groups = groups;
  c.C = x.size(1);
  c.O = y.size(1);
  for (int64_t i = 0; i < dims; ++i) {
    const int64_t j = 3 - dims + i;
    c.in[j] = x.size(2 + i);
    c.out[j] = y.size(2 + i);
    c.kernel[j] = weight.size(2 + i);
    c.stride[j] = s[i];
    c.pad[j] = p[i];
    c.dil[j] = d[i];
  }
  return c;
}

// Column chunks stay under this many bytes (at least one image per chunk).
size_t column_limit_bytes() {
  static const size_t limit = [] {
    const char* env = std::getenv("TORCH_OCL_CONV_COL_BYTES");
    const long long v = env ? std::atoll(env) : 0;
    return v > 0 ? static_cast<size_t>(v) : size_t(256) << 20;
  }();
  return limit;
}

// How many images of the batch go into one chunk of columns.
int64_t chunk_images(const Conv& c, int64_t N, size_t element_size) {
  const size_t per_image = static_cast<size_t>(c.C * c.K() * c.L()) * element_size;
  const int64_t n = per_image == 0 ? N : static_cast<int64_t>(column_limit_bytes() / per_image);
  return std::max<int64_t>(1, std::min(n, N));
}

ConvGeom geometry(const Conv& c, const Tensor& img) {
  ConvGeom g{};
  g.channels = c.C;
  for (int d = 0; d < 3; ++d) {
    g.in[d] = c.in[d];
    g.out[d] = c.out[d];
    g.ksize[d] = c.kernel[d];
    g.stride[d] = c.stride[d];
    g.pad[d] = c.pad[d];
    g.dil[d] = c.dil[d];
  }
  const int64_t dims = img.dim() - 2;
  g.img_stride[0] = img.stride(0);
  g.img_stride[1] = img.stride(1);
  for (int64_t i = 0; i < dims; ++i) g.img_stride[2 + 3 - dims + i] = img.stride(2 + i);
  return g;
}

// The columns [n, C * K, L] of the images x [n, C, *in].
Tensor unfold(const Conv& c, const Tensor& x) {
  const int64_t n = x.size(0);
  if (c.pointwise()) return x.reshape({n, c.C, c.L()});
  Tensor col = at::empty({n, c.C * c.K(), c.L()}, x.options());
  Launch(x.device().index(), dtype_kernel(x.device().index(), "conv", "im2col", x.scalar_type()))
      .input(x)
      .tensor(col)
      .value(geometry(c, x))
      .value(n)
      .run(static_cast<size_t>(n * c.C * c.L()));
  return col;
}

// x [n, C, *in] (written, any strides) = the adjoint of unfold applied to
// col [n, C * K, L], plus bias[c] when defined.
void fold(const Conv& c, const Tensor& col, const Tensor& x, const Tensor& bias) {
  const int64_t n = x.size(0);
  Launch l(x.device().index(), dtype_kernel(x.device().index(), "conv", "col2im", x.scalar_type()));
  l.input(col).tensor(x);
  if (bias.defined()) l.input(bias.contiguous());
  else l.null_tensor();
  l.value(geometry(c, x)).value(n).value<int64_t>(bias.defined() ? 1 : 0).run(static_cast<size_t>(x.numel()));
}

// Fills `t` [N, ch, ...] with bias[ch] broadcast; returns the GEMM's beta.
double prefill_bias(const Tensor& t, const Tensor& bias) {
  if (!bias.defined()) return 0.0;
  std::vector<int64_t> shape(t.dim(), 1);
  shape[1] = bias.numel();
  t.copy_(bias.reshape(shape).expand_as(t));
  return 1.0;
}

// The weight [O, C / g, *k] as [g, O / g, C / g * K].
Tensor weight_groups(const Conv& c, const Tensor& w) { return w.reshape({c.groups, c.Og(), c.Cg() * c.K()}); }

// y = conv(x, w) + bias.
void conv_forward(const Conv& c, const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y) {
  const int64_t N = x.size(0), g = c.groups, L = c.L();
  const Tensor wg = weight_groups(c, w);
  const double beta = prefill_bias(y, bias);
  const int64_t step = chunk_images(c, N, x.element_size());
  for (int64_t b0 = 0; b0 < N; b0 += step) {
    const int64_t n = std::min(step, N - b0);
    const Tensor col = unfold(c, x.narrow(0, b0, n)).view({n, g, c.Cg() * c.K(), L});
    gemm_batched(y.narrow(0, b0, n).view({n, g, c.Og(), L}), wg.expand({n, g, c.Og(), c.Cg() * c.K()}), col, 1.0,
                 beta);
  }
}

// x = the adjoint of conv(., w) applied to y, plus bias: the input gradient
// of a convolution, the forward of a transposed one.
void conv_adjoint(const Conv& c, const Tensor& y, const Tensor& w, const Tensor& bias, const Tensor& x) {
  const int64_t N = x.size(0), g = c.groups, L = c.L(), rows = c.Cg() * c.K();
  const Tensor wt = weight_groups(c, w).transpose(1, 2);  // [g, Cg * K, Og]
  const bool direct = c.pointwise();
  const double beta = direct ? prefill_bias(x, bias) : 0.0;
  const int64_t step = chunk_images(c, N, x.element_size());
  for (int64_t b0 = 0; b0 < N; b0 += step) {
    const int64_t n = std::min(step, N - b0);
    const Tensor yg = y.narrow(0, b0, n).reshape({n, g, c.Og(), L});
    const Tensor xs = x.narrow(0, b0, n);
    if (direct) {
      gemm_batched(xs.view({n, g, rows, L}), wt.expand({n, g, rows, c.Og()}), yg, 1.0, beta);
    } else {
      const Tensor col = at::empty({n, g, rows, L}, x.options());
      gemm_batched(col, wt.expand({n, g, rows, c.Og()}), yg, 1.0, 0.0);
      fold(c, col.view({n, c.C * c.K(), L}), xs, bias);
    }
  }
}

// gw [O, C / g, *k] = the weight gradient of y = conv(x, w) given gy.
void conv_weight_grad(const Conv& c, const Tensor& gy, const Tensor& x, const Tensor& gw) {
  const int64_t N = x.size(0), g = c.groups, L = c.L(), rows = c.Cg() * c.K();
  const Tensor gw3 = gw.view({g, c.Og(), rows});
  if (N == 0) {
    gw.zero_();
    return;
  }
  const int64_t step = chunk_images(c, N, x.element_size());
  for (int64_t b0 = 0; b0 < N; b0 += step) {
    const int64_t n = std::min(step, N - b0);
    const Tensor col = unfold(c, x.narrow(0, b0, n)).view({n, g, rows, L});
    for (int64_t j = 0; j < n; ++j)
      gemm_batched(gw3, gy[b0 + j].reshape({g, c.Og(), L}), col[j].transpose(1, 2), 1.0, b0 + j == 0 ? 0.0 : 1.0);
  }
}

bool gemm_dtype(c10::ScalarType t) { return t == c10::kFloat || t == c10::kDouble; }
bool float_dtype(c10::ScalarType t) { return gemm_dtype(t) || t == c10::kHalf || t == c10::kBFloat16; }
// The dtype the GEMMs run in: float32 for the half types.
c10::ScalarType compute_dtype(c10::ScalarType t) { return gemm_dtype(t) ? t : c10::kFloat; }

void check_operands(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  for (const Tensor* t : {&weight, &bias})
    TORCH_CHECK(!t->defined() || t->device() == input.device(),
                "Expected all tensors to be on the same device, but found at least two devices, ", input.device(),
                " and ", t->device(), "!");
  TORCH_CHECK(input.scalar_type() == weight.scalar_type(), "expected scalar type ", input.scalar_type(),
              " but found ", weight.scalar_type());
  TORCH_CHECK(!bias.defined() || bias.scalar_type() == input.scalar_type(), "Input type (",
              c10::toString(input.scalar_type()), ") and bias type (", c10::toString(bias.scalar_type()),
              ") should be the same");
}

// The CPU's (slow_conv_transpose2d/3d) check: each output padding is smaller
// than the stride or the dilation of its dim.
void check_output_padding(IntArrayRef output_padding, IntArrayRef stride, IntArrayRef dilation) {
  bool ok = true;
  for (const auto i : c10::irange(output_padding.size()))
    ok = ok && (output_padding[i] < stride[i] || output_padding[i] < dilation[i]);
  if (ok) return;
  // A 1-d convolution is reported as a 2-d one of height 1, as on the CPU.
  const bool is3d = output_padding.size() == 3;
  const int64_t first = output_padding.size() == 1 ? 1 : 0;
  std::vector<int64_t> op(first, 0), st(first, 1), di(first, 1);
  op.insert(op.end(), output_padding.begin(), output_padding.end());
  st.insert(st.end(), stride.begin(), stride.end());
  di.insert(di.end(), dilation.begin(), dilation.end());
  const std::vector<const char*> names =
      is3d ? std::vector<const char*>{"depth", "height", "width"} : std::vector<const char*>{"height", "width"};
  std::ostringstream msg;
  msg << "output padding must be smaller than either stride or dilation, but got";
  for (const auto& [label, values] : {std::pair{"output_padding", &op}, {"stride", &st}, {"dilation", &di}})
    for (const auto i : c10::irange(names.size())) msg << " " << label << "_" << names[i] << ": " << (*values)[i];
  TORCH_CHECK(false, msg.str());
}

// The layout the kernels write outputs and input gradients in: the input's
// (channels-last or contiguous).
at::MemoryFormat layout_of(const Tensor& t) { return t.suggest_memory_format(); }
// The layout results are returned in: channels-last when the input or the
// weight is (as CUDA's cudnn_conv_suggest_memory_format and the CPU's choice).
at::MemoryFormat result_layout(const Tensor& input, const Tensor& weight) {
  for (const Tensor* t : {&input, &weight}) {
    const auto f = t->suggest_memory_format();
    if (f == at::MemoryFormat::ChannelsLast || f == at::MemoryFormat::ChannelsLast3d) return f;
  }
  return at::MemoryFormat::Contiguous;
}

// Operands in the compute dtype, dense in their own layout (channels-last or
// contiguous), as CUDA's cuDNN path takes them: a strided view (a slice, a
// gapped sample) then runs the same kernels and summation order as its dense
// copy, so its result and gradients are bit for bit those of the copy.
Tensor dense(const Tensor& t, c10::ScalarType dtype) { return t.to(dtype).contiguous(layout_of(t)); }

Tensor convolution_overrideable(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias_opt,
                                IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                IntArrayRef output_padding, int64_t groups) {
  const Tensor bias = bias_opt.value_or(Tensor());
  check_operands(input, weight, bias);
  if (!float_dtype(input.scalar_type())) {
    auto stack = run_fallback("aten::convolution", c10::impl::boxArgs(input, weight, bias_opt, stride, padding,
                                                                        dilation, transposed, output_padding, groups));
    return stack[0].toTensor();
  }
  c10::DeviceGuard guard(input.device());
  const int64_t dims = weight.dim() - 2;
  const auto s = expand_param(stride, "stride", dims), p = expand_param(padding, "padding", dims),
             d = expand_param(dilation, "dilation", dims);
  if (transposed) check_output_padding(expand_param(output_padding, "output_padding", dims), s, d);
  const auto out_sizes =
      transposed ? at::native::conv_input_size(input.sizes(), weight.sizes(), p,
                                               expand_param(output_padding, "output_padding", dims), s, d, groups)
                 : at::native::conv_output_size(input.sizes(), weight.sizes(), p, s, d);
  const auto dtype = input.scalar_type(), cdtype = compute_dtype(dtype);
  const Tensor x = dense(input, cdtype), w = dense(weight, cdtype), b = bias.defined() ? bias.to(cdtype) : bias;
  Tensor out = at::empty(out_sizes, x.options().memory_format(layout_of(input)));
  if (out.numel() != 0) {
    if (!transposed) conv_forward(make_conv(x, out, w, s, p, d, groups), x, w, b, out);
    else conv_adjoint(make_conv(out, x, w, s, p, d, groups), x, w, b, out);
  }
  return out.to(dtype).contiguous(result_layout(input, weight));
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_overrideable(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
    IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups,
    std::array<bool, 3> output_mask) {
  check_operands(input, weight, Tensor());
  check_operands(input, grad_output, Tensor());
  const auto dtype = input.scalar_type();
  TORCH_CHECK(float_dtype(dtype), "convolution_backward_overrideable: \"", dtype, "\" is not a floating point dtype");
  c10::DeviceGuard guard(input.device());
  const auto cdtype = compute_dtype(dtype);
  const Tensor gy = dense(grad_output, cdtype), x = dense(input, cdtype), w = dense(weight, cdtype);
  // The plain convolution behind the op runs from `image` to `result`.
  const Tensor& image = transposed ? gy : x;
  const Tensor& result = transposed ? x : gy;
  const Conv c = make_conv(image, result, w, stride, padding, dilation, groups);
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    grad_input = at::empty(x.sizes(), x.options().memory_format(layout_of(input)));
    if (grad_input.numel() != 0) {
      if (!transposed) conv_adjoint(c, gy, w, Tensor(), grad_input);
      else conv_forward(c, gy, w, Tensor(), grad_input);
    }
    grad_input = grad_input.to(dtype).contiguous(result_layout(input, weight));
  }
  if (output_mask[1]) {
    grad_weight = at::empty(w.sizes(), w.options());
    if (grad_weight.numel() != 0) conv_weight_grad(c, result, image, grad_weight);
    grad_weight = grad_weight.to(dtype).contiguous(result_layout(input, weight));
  }
  if (output_mask[2]) {
    std::vector<int64_t> dims{0};
    for (int64_t i = 2; i < grad_output.dim(); ++i) dims.push_back(i);
    grad_bias = gy.sum(dims).to(dtype);
  }
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace

// The convolution of a 2-d window (no weight: only its geometry counts).
static Conv window_conv(const Tensor& img, const Window2d& w) {
  Conv c;
  c.C = img.size(1);
  for (int i = 0; i < 2; ++i) {
    c.in[1 + i] = img.size(2 + i);
    c.out[1 + i] = w.blocks[i];
    c.kernel[1 + i] = w.kernel[i];
    c.stride[1 + i] = w.stride[i];
    c.pad[1 + i] = w.padding[i];
    c.dil[1 + i] = w.dilation[i];
  }
  return c;
}

void im2col_2d(const Tensor& img, const Tensor& col, const Window2d& w) {
  const int64_t n = img.size(0);
  const Conv c = window_conv(img, w);
  if (col.numel() == 0) return;
  Launch(img.device().index(), dtype_kernel(img.device().index(), "conv", "im2col", img.scalar_type()))
      .input(img)
      .tensor(col)
      .value(geometry(c, img))
      .value(n)
      .run(static_cast<size_t>(n * c.C * c.L()));
}

void col2im_2d(const Tensor& col, const Tensor& img, const Window2d& w) {
  if (img.numel() == 0) return;
  fold(window_conv(img, w), col, img, Tensor());
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  ::torch_ocl::register_op<&convolution_overrideable>(m, "convolution_overrideable");
  ::torch_ocl::register_op<&convolution_backward_overrideable>(m, "convolution_backward_overrideable");
}

}  // namespace torch_ocl
