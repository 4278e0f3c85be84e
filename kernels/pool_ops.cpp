// Pooling on PrivateUse1: max / avg / adaptive pooling (2-d and 3-d; the 1-d
// ops are ATen composites over the 2-d ones), forward and backward, and
// max_unpool2d/3d, fractional_max_pool2d/3d (the caller's _random_samples
// decide the windows, as ATen's generate_intervals). Kernels: kernels/pool.cl
// (one program per dtype).
//
// The structured ops (max_pool2d_with_indices, avg_pool2d/3d,
// adaptive_max_pool2d/3d and their backward ops) reuse ATen's meta functions
// for argument checks and output shapes. The others (max_pool3d_with_indices,
// _adaptive_avg_pool2d/3d, max_unpool2d/3d) have CPU-only entry points; their
// argument checks below repeat the CPU's, with its messages, using ATen's
// shared helpers (Pool.h, AdaptivePooling.h) where it has them.
#include <ATen/native/AdaptivePooling.h>
#include <ATen/native/FractionalMaxPooling.h>
#include <ATen/native/Pool.h>
#include <ATen/ops/adaptive_max_pool2d_backward_meta.h>
#include <ATen/ops/adaptive_max_pool2d_meta.h>
#include <ATen/ops/adaptive_max_pool3d_backward_meta.h>
#include <ATen/ops/adaptive_max_pool3d_meta.h>
#include <ATen/ops/avg_pool2d_backward_meta.h>
#include <ATen/ops/avg_pool2d_meta.h>
#include <ATen/ops/avg_pool3d_backward_meta.h>
#include <ATen/ops/avg_pool3d_meta.h>
#include <ATen/ops/fractional_max_pool2d_backward_meta.h>
#include <ATen/ops/fractional_max_pool2d_meta.h>
#include <ATen/ops/fractional_max_pool3d_meta.h>
#include <ATen/ops/max_pool2d_with_indices_backward_meta.h>
#include <ATen/ops/max_pool2d_with_indices_meta.h>

#include <map>
#include <mutex>

#include "kernels/register_op.h"
#include "backend/device_checks.h"
#include "backend/kernel_launch.h"
#include "kernels/ncdhw.h"
#include "backend/program_cache.h"
#include "kernels/structured.h"

namespace torch_ocl {
namespace {

using at::IntArrayRef;
using at::Tensor;

// Mirrors PoolParams in kernels/pool.cl (all fields 64-bit: no padding).
struct PoolParams {
  int64_t N = 1, C = 1;
  int64_t in_size[3] = {1, 1, 1}, out_size[3] = {1, 1, 1};
  int64_t ksize[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
  int64_t in_stride[5] = {}, out_stride[5] = {}, idx_stride[5] = {};
  int64_t adaptive = 0, channels_last = 0, count_include_pad = 0, divisor = 0;
};

// A fixed pooling window over the last `dims` (2 or 3) dims, as D, H, W.
struct Window {
  int64_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
};

// `v` (one value or `dims`; empty: `fallback`) into the last `dims` of dst.
void expand(IntArrayRef v, int dims, int64_t* dst, const int64_t* fallback) {
  for (int i = 0; i < dims; ++i) dst[3 - dims + i] = v.empty() ? fallback[3 - dims + i] : v.size() == 1 ? v[0] : v[i];
}

// The window of the schema arguments, after the meta / CPU checks passed.
Window make_window(int dims, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                   IntArrayRef dilation = {}) {
  Window w;
  // (The metas reject an empty kernel_size or padding; the fallbacks are the
  // defaults, so no path reads a null pointer.)
  expand(kernel, dims, w.kernel, w.kernel);
  expand(stride, dims, w.stride, w.kernel);
  expand(padding, dims, w.pad, w.pad);
  expand(dilation, dims, w.dilation, w.dilation);
  return w;
}

// Params of a kernel between `input` (the pooled side: input or grad_input)
// and `output` (output or grad_output); `w` null: adaptive windows. Work items
// follow `dst`'s layout.
PoolParams make_params(const Tensor& input, const Tensor& output, const Tensor& indices, const Tensor& dst,
                       int dims, const Window* w) {
  PoolParams p;
  fill_ncdhw(p, input, output, dst, dims);
  if (w) {
    std::copy(w->kernel, w->kernel + 3, p.ksize);
    std::copy(w->stride, w->stride + 3, p.stride);
    std::copy(w->pad, w->pad + 3, p.pad);
    std::copy(w->dilation, w->dilation + 3, p.dilation);
  } else {
    p.adaptive = 1;
  }
  if (indices.defined()) copy_strides(as_ncdhw(indices, dims), p.idx_stride);
  return p;
}

// Raises as the CPU's AT_DISPATCH does for a dtype the op does not take.
void check_pool_dtype(const char* name, c10::ScalarType t, bool integers, bool long_only = false) {
  const bool ok = c10::isFloatingType(t) && has_kernels(t)
                      ? true
                      : integers && c10::isIntegralType(t, /*includeBool=*/false) && (!long_only || t == c10::kLong);
  TORCH_CHECK_NOT_IMPLEMENTED(ok, "\"", name, "\" not implemented for '", c10::toString(t), "'");
}

std::string pool_preamble(c10::ScalarType dtype) {
  return dtype_preamble(dtype) + kernel_source("device_checks") + "#define LOWEST " + cl_lowest(dtype) + "\n";
}

// `tensors`: the outputs (indices too in max_pool_forward), then the inputs.
void run_pool(const char* kernel, const PoolParams& p, std::initializer_list<at::TensorBase> tensors,
              int64_t items, int check = 0, size_t noutputs = 1) {
  if (items == 0) return;
  const at::TensorBase& first = *tensors.begin();
  const auto device = first.device().index();
  const auto dtype = first.scalar_type();
  check_dtype_supported(dtype, device);
  Launch l(device, source_kernel(device, "pool", kernel, kernel_variant({static_cast<int>(dtype)}),
                                 [&] { return pool_preamble(dtype); }));
  for (const auto& t : tensors) {
    if (static_cast<size_t>(&t - tensors.begin()) < noutputs) l.tensor(t);
    else l.input(t);
  }
  l.value(p);
  if (check) check_arg(l, device, check);
  l.run_items(static_cast<size_t>(items));
}

// ---- computations shared by the 2-d / 3-d and fixed / adaptive ops ----

void max_pool_forward(const Tensor& out, const Tensor& indices, const Tensor& self, int dims, const Window* w,
                      const char* name) {
  check_pool_dtype(name, self.scalar_type(), /*integers=*/w != nullptr);
  if (out.numel() == 0) return;
  const PoolParams p = make_params(self, out, indices, out, dims, w);
  run_pool("max_pool_forward", p, {out, indices, self}, out.numel(), 0, 2);
}

void max_pool_backward(const Tensor& grad_input, const Tensor& grad_output, const Tensor& indices, int dims,
                       const Window* w, const char* name) {
  check_pool_dtype(name, grad_input.scalar_type(), false);
  if (grad_input.numel() == 0) return;
  const PoolParams p = make_params(grad_input, grad_output, indices, grad_input, dims, w);
  run_pool("max_pool_backward", p, {grad_input, grad_output.to(grad_input.scalar_type()), indices},
           grad_input.numel());
}

void avg_pool_forward(const Tensor& out, const Tensor& self, int dims, const Window* w, bool count_include_pad,
                      std::optional<int64_t> divisor, const char* name) {
  check_pool_dtype(name, self.scalar_type(), /*integers=*/w != nullptr, /*long_only=*/true);
  if (out.numel() == 0) return;
  PoolParams p = make_params(self, out, Tensor(), out, dims, w);
  p.count_include_pad = count_include_pad;
  p.divisor = divisor.value_or(0);
  run_pool("avg_pool_forward", p, {out, self}, out.numel());
}

void avg_pool_backward(const Tensor& grad_input, const Tensor& grad_output, int dims, const Window* w,
                       bool count_include_pad, std::optional<int64_t> divisor, const char* name) {
  check_pool_dtype(name, grad_input.scalar_type(), /*integers=*/w != nullptr, /*long_only=*/true);
  if (grad_input.numel() == 0) return;
  PoolParams p = make_params(grad_input, grad_output, Tensor(), grad_input, dims, w);
  p.count_include_pad = count_include_pad;
  p.divisor = divisor.value_or(0);
  run_pool("avg_pool_backward", p, {grad_input, grad_output.to(grad_input.scalar_type())}, grad_input.numel());
}

// ---- structured ops (ATen's metas) ----

void max_pool2d_impl(at::impl::MetaBase&, const Tensor& out, const Tensor& indices, const Tensor& self,
                     IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool) {
  const Window w = make_window(2, kernel, stride, padding, dilation);
  max_pool_forward(out, indices, self, 2, &w, "max_pool2d");
}

void max_pool2d_backward_impl(at::impl::MetaBase&, const Tensor& grad_input, const Tensor& grad_output,
                              const Tensor&, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                              IntArrayRef dilation, bool, const Tensor& indices) {
  const Window w = make_window(2, kernel, stride, padding, dilation);
  max_pool_backward(grad_input, grad_output, indices, 2, &w, "max_pool2d_backward");
}

template <int Dims>
void avg_pool_impl(at::impl::MetaBase&, const Tensor& out, const Tensor& self, IntArrayRef kernel,
                   IntArrayRef stride, IntArrayRef padding, bool, bool count_include_pad,
                   std::optional<int64_t> divisor) {
  const Window w = make_window(Dims, kernel, stride, padding);
  avg_pool_forward(out, self, Dims, &w, count_include_pad, divisor, Dims == 2 ? "avg_pool2d" : "avg_pool3d");
}

template <int Dims>
void avg_pool_backward_impl(at::impl::MetaBase&, const Tensor& grad_input, const Tensor& grad_output,
                            const Tensor&, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, bool,
                            bool count_include_pad, std::optional<int64_t> divisor) {
  const Window w = make_window(Dims, kernel, stride, padding);
  avg_pool_backward(grad_input, grad_output, Dims, &w, count_include_pad, divisor,
                    Dims == 2 ? "avg_pool2d_backward" : "avg_pool3d_backward");
}

template <int Dims>
void adaptive_max_impl(at::impl::MetaBase&, const Tensor& out, const Tensor& indices, const Tensor& self,
                       IntArrayRef) {
  max_pool_forward(out, indices, self, Dims, nullptr, Dims == 2 ? "adaptive_max_pool2d" : "adaptive_max_pool3d");
}

template <int Dims>
void adaptive_max_backward_impl(at::impl::MetaBase&, const Tensor& grad_input, const Tensor& grad_output,
                                const Tensor&, const Tensor& indices) {
  max_pool_backward(grad_input, grad_output, indices, Dims, nullptr,
                    Dims == 2 ? "adaptive_max_pool2d_backward" : "adaptive_max_pool3d_backward");
}

// ---- max_pool3d_with_indices (CPU-only entry points: DilatedMaxPool3d.cpp) ----

struct Pool3dArgs {
  Window w;
  int64_t nslices, in[3], out[3];
  at::MemoryFormat format;
};

Pool3dArgs max_pool3d_args(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                           IntArrayRef dilation, bool ceil_mode, bool backward) {
  using at::native::safe_downcast;
  TORCH_CHECK(kernel_size.size() == 1 || kernel_size.size() == 3,
              "max_pool3d: kernel_size must either be a single int, or a tuple of three ints")
  TORCH_CHECK(stride.empty() || stride.size() == 1 || stride.size() == 3,
              "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints")
  TORCH_CHECK(padding.size() == 1 || padding.size() == 3,
              "max_pool3d: padding must either be a single int, or a tuple of three ints");
  TORCH_CHECK(dilation.size() == 1 || dilation.size() == 3,
              "max_pool3d: dilation must be either a single int, or a tuple of three ints");
  Pool3dArgs a;
  a.w = make_window(3, kernel_size, stride, padding, dilation);
  int k[3], s[3], p[3], d[3];
  for (int i = 0; i < 3; ++i) {
    k[i] = safe_downcast<int, int64_t>(a.w.kernel[i]);
    s[i] = safe_downcast<int, int64_t>(a.w.stride[i]);
    p[i] = safe_downcast<int, int64_t>(a.w.pad[i]);
    d[i] = safe_downcast<int, int64_t>(a.w.dilation[i]);
  }
  a.format = input.suggest_memory_format();
  if (a.format == at::MemoryFormat::ChannelsLast3d) {
    TORCH_CHECK(input.ndimension() == 5,
                "non-empty 5D (batch mode) tensor expected for input with channels_last_3d layout");
  } else if (a.format == at::MemoryFormat::Contiguous) {
    TORCH_CHECK((input.ndimension() == 4 || input.ndimension() == 5),
                "non-empty 4D or 5D (batch mode) tensor expected for input");
  } else {
    TORCH_CHECK(false, "Unsupport memory format. Supports only ChannelsLast3d, Contiguous");
  }
  a.nslices = input.size(-4);
  for (int i = 0; i < 3; ++i) {
    a.in[i] = input.size(i - 3);
    a.out[i] = at::native::pooling_output_shape<int64_t>(a.in[i], k[i], p[i], s[i], d[i], ceil_mode);
  }
  if (!backward)
    at::native::pool3d_shape_check(input, a.nslices, k[0], k[1], k[2], s[0], s[1], s[2], p[0], p[1], p[2], d[0],
                                   d[1], d[2], a.in[0], a.in[1], a.in[2], a.out[0], a.out[1], a.out[2],
                                   "max_pool3d_with_indices_out_cpu_template()");
  return a;
}

// The layout of a 4-d (unbatched C, D, H, W) input seen with a batch dim of
// one in front (its stride past every element, which unsqueeze does not give).
at::MemoryFormat unbatched_format(const Tensor& self) {
  const auto st = self.strides();
  return self.as_strided({1, self.size(0), self.size(1), self.size(2), self.size(3)},
                         {std::max<int64_t>(self.numel(), 1), st[0], st[1], st[2], st[3]})
      .suggest_memory_format();
}

std::tuple<Tensor&, Tensor&> max_pool3d_out(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                            IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, Tensor& out,
                                            Tensor& indices) {
  const Pool3dArgs a = max_pool3d_args(self, kernel_size, stride, padding, dilation, ceil_mode, false);
  if (self.dim() == 4) {
    // Unbatched: laid out as the input seen with a batch of one (a
    // channels_last_3d input gives channels_last_3d results, as the CPU and CUDA).
    const auto format = unbatched_format(self);
    for (Tensor* t : {&out, &indices}) {
      t->resize_({1, a.nslices, a.out[0], a.out[1], a.out[2]}, format);
      t->squeeze_(0);
    }
  } else {
    out.resize_({self.size(0), a.nslices, a.out[0], a.out[1], a.out[2]}, a.format);
    indices.resize_({self.size(0), a.nslices, a.out[0], a.out[1], a.out[2]}, a.format);
  }
  max_pool_forward(out, indices, self, 3, &a.w, "max_pool3d_with_indices_cpu");
  return {out, indices};
}

std::tuple<Tensor, Tensor> max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                      IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  Tensor out = at::empty({0}, self.options());
  Tensor indices = at::empty({0}, self.options().dtype(at::kLong));
  max_pool3d_out(self, kernel_size, stride, padding, dilation, ceil_mode, out, indices);
  return {out, indices};
}

Tensor& max_pool3d_backward_out(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                const Tensor& indices, Tensor& grad_input) {
  const Pool3dArgs a = max_pool3d_args(self, kernel_size, stride, padding, dilation, ceil_mode, true);
  TORCH_CHECK(self.dtype() == grad_output.dtype(), "expected dtype ", self.dtype(),
              " for `gradOutput` but got dtype ", grad_output.dtype());
  if (self.dim() == 4) {
    grad_input.resize_({1, self.size(0), self.size(1), self.size(2), self.size(3)}, unbatched_format(self));
    grad_input.squeeze_(0);
  } else {
    grad_input.resize_(self.sizes(), a.format);
  }
  int k[3], s[3], p[3], d[3];
  for (int i = 0; i < 3; ++i) {
    k[i] = static_cast<int>(a.w.kernel[i]);
    s[i] = static_cast<int>(a.w.stride[i]);
    p[i] = static_cast<int>(a.w.pad[i]);
    d[i] = static_cast<int>(a.w.dilation[i]);
  }
  at::native::max_pool3d_backward_shape_check(
      self, grad_output, indices, a.nslices, k[0], k[1], k[2], s[0], s[1], s[2], p[0], p[1], p[2], d[0], d[1],
      d[2], a.in[0], a.in[1], a.in[2], grad_output.size(-3), grad_output.size(-2), grad_output.size(-1),
      "max_pool3d_with_indices_backward_out_cpu_template()");
  max_pool_backward(grad_input, grad_output, indices, 3, &a.w, "max_pool3d_with_indices_backward");
  return grad_input;
}

Tensor max_pool3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                           const Tensor& indices) {
  Tensor grad_input = at::empty({0}, self.options());
  return max_pool3d_backward_out(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices,
                                 grad_input);
}

// ---- _adaptive_avg_pool2d/3d (CPU-only entry points: AdaptiveAveragePooling*.cpp) ----

template <int Dims>
Tensor& adaptive_avg_out(const Tensor& input, IntArrayRef output_size, Tensor& output) {
  const char* name = Dims == 2 ? "adaptive_avg_pool2d" : "adaptive_avg_pool3d";
  TORCH_CHECK(output_size.size() == Dims, name, ": output_size must be ", Dims);
  const int64_t ndim = input.dim();
  TORCH_CHECK(ndim == Dims + 1 || ndim == Dims + 2, name, "(): Expected ", Dims + 1, "D or ", Dims + 2,
              "D tensor, but got ", input.sizes());
  for (int64_t i = Dims == 2 ? ndim - 2 : 1; i < ndim; ++i)
    TORCH_CHECK(input.size(i) > 0, name,
                "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
                input.sizes(), " with dimension ", i, " being empty");
  TORCH_CHECK(input.dtype() == output.dtype(), "expected dtype ", input.dtype(), " for `output` but got dtype ",
              output.dtype());
  std::vector<int64_t> sizes(input.sizes().begin(), input.sizes().end() - Dims);
  sizes.insert(sizes.end(), output_size.begin(), output_size.end());
  if (Dims == 2 && ndim == 4) {
    output.resize_(sizes, input.suggest_memory_format());
  } else {
    output.resize_(sizes);
  }
  avg_pool_forward(output, input, Dims, nullptr, false, std::nullopt, Dims == 2 ? "adaptive_avg_pool2d" : "adaptive_avg_pool3d_cpu");
  return output;
}

template <int Dims>
Tensor adaptive_avg(const Tensor& input, IntArrayRef output_size) {
  Tensor output = at::empty({0}, input.options());
  return adaptive_avg_out<Dims>(input, output_size, output);
}

template <int Dims>
Tensor& adaptive_avg_backward_out(const Tensor& grad_output, const Tensor& input, Tensor& grad_input) {
  if (Dims == 2) {
    at::native::adaptive_pool_empty_output_check(grad_output, "adaptive_avg_pool2d_backward");
    const char* fn = "adaptive_avg_pool2d_backward_out_cpu_template";
    const int64_t ndim = grad_output.dim();
    TORCH_CHECK(input.dim() == ndim, fn, ": Expected dimensions ", input.dim(),
                " for `grad_output` but got dimensions ", ndim);
    TORCH_CHECK((ndim == 3 || ndim == 4), fn, ": Expected 3D or 4D tensor, but got ", input.sizes());
    TORCH_CHECK(input.dtype() == grad_output.dtype(), fn, ": Expected dtype ", input.dtype(),
                " for `grad_output` but got dtype ", grad_output.dtype());
    TORCH_CHECK(input.dtype() == grad_input.dtype(), fn, ": Expected dtype ", input.dtype(),
                " for `grad_input` but got dtype ", grad_input.dtype());
    grad_input.resize_(input.sizes(), input.suggest_memory_format());
  } else {
    at::native::adaptive_pool_empty_output_check(grad_output, "adaptive_avg_pool3d_backward");
    grad_input.resize_(input.sizes());
  }
  avg_pool_backward(grad_input, grad_output, Dims, nullptr, false, std::nullopt,
                    Dims == 2 ? "adaptive_avg_pool2d_backward" : "adaptive_avg_pool3d_backward_cpu");
  return grad_input;
}

template <int Dims>
Tensor adaptive_avg_backward(const Tensor& grad_output, const Tensor& input) {
  Tensor grad_input = at::empty({0}, input.options());
  return adaptive_avg_backward_out<Dims>(grad_output, input, grad_input);
}

// ---- max_unpool2d/3d (CPU-only entry points: MaxUnpooling.cpp) ----

// The device check of an unpool output of `sizes` (the message names them).
int unpool_check(IntArrayRef sizes) {
  static std::mutex mutex;
  static std::map<std::vector<int64_t>, int> checks;
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<int64_t> key(sizes.begin(), sizes.end());
  auto it = checks.find(key);
  if (it != checks.end()) return it->second;
  std::string msg = "Found an invalid max index: {index} (output volumes are of size ";
  for (size_t i = 0; i < key.size(); ++i) msg += (i ? "x" : "") + std::to_string(key[i]);
  msg += ")";
  const int id = register_device_check(key.size() == 2 ? "max_unpool2d" : "max_unpool3d",
                                       DeviceCheckKind::kRuntimeError, msg.c_str());
  checks.emplace(std::move(key), id);
  return id;
}

void check_unpool_non_empty(const Tensor& self, const char* fn) {
  for (int64_t i = 1; i < self.dim(); ++i)
    TORCH_CHECK(self.size(i) > 0, fn, ": Expected input to have non-zero size for non-batch dimensions, but got ",
                self.sizes(), " with dimension ", i, " being empty.");
}

template <int Dims>
Tensor& max_unpool_compute(const Tensor& self, const Tensor& indices, IntArrayRef output_size, Tensor& output) {
  check_pool_dtype(Dims == 2 ? "max_unpool2d" : "max_unpool3d", self.scalar_type(), false);
  const auto format = self.suggest_memory_format();
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - Dims);
  sizes.insert(sizes.end(), output_size.begin(), output_size.end());
  if (self.dim() == Dims + 2) {
    output.resize_(sizes, format);
  } else {
    output.resize_(sizes);
  }
  output.zero_();
  if (output.numel() == 0 || self.numel() == 0) return output;
  const PoolParams p = make_params(self, output, indices, self, Dims, nullptr);
  run_pool("max_unpool_forward", p, {output, self, indices}, self.numel(), unpool_check(output_size));
  return output;
}

Tensor& max_unpool2d_out(const Tensor& self, const Tensor& indices, IntArrayRef output_size, Tensor& output) {
  at::globalContext().alertNotDeterministic("max_unpooling2d_forward_out");
  TORCH_CHECK(indices.scalar_type() == at::ScalarType::Long, "elements in indices should be type int64 but got: ",
              indices.scalar_type());
  TORCH_CHECK(output_size.size() == 2,
              "There should be exactly two elements (height, width) in output_size, but got ",
              output_size.size(), " elements.");
  TORCH_CHECK((self.ndimension() == 3 || self.ndimension() == 4),
              "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with ", self.ndimension(),
              " dimensions.");
  TORCH_CHECK(self.sizes() == indices.sizes(), "Expected shape of indices to be same as that of the input tensor (",
              self.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  check_unpool_non_empty(self, "max_unpooling2d_forward_out_cpu()");
  TORCH_CHECK(output_size[0] >= 0 && output_size[1] >= 0,
              "max_unpooling2d(): output_size must contain non-negative spatial dimensions, but got output_size=(",
              output_size[0], ", ", output_size[1], ")");
  return max_unpool_compute<2>(self, indices, output_size, output);
}

Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  Tensor output = at::empty({0}, self.options());
  return max_unpool2d_out(self, indices, output_size, output);
}

Tensor& max_unpool3d_out(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                         IntArrayRef padding, Tensor& output) {
  at::globalContext().alertNotDeterministic("max_unpooling3d_forward_out");
  TORCH_CHECK(indices.scalar_type() == at::ScalarType::Long, "elements in indices should be type int64 but got: ",
              indices.scalar_type());
  TORCH_CHECK((self.ndimension() == 4 || self.ndimension() == 5),
              "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with ", self.ndimension(),
              " dimensions.");
  TORCH_CHECK(output_size.size() == 3,
              "There should be exactly three elements (depth, height, width) in output_size, but got ",
              output_size.size(), " elements.");
  TORCH_CHECK(stride.size() == 3,
              "There should be exactly three elements (depth, height, width) in stride, but got: ", stride.size(),
              " elements.");
  TORCH_CHECK(padding.size() == 3,
              "There should be exactly three elements (depth, height, width) in padding, but got: ",
              padding.size(), " elements.");
  TORCH_CHECK(self.sizes() == indices.sizes(), "Expected shape of indices to be same as that of the input tensor (",
              self.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  check_unpool_non_empty(self, "max_unpooling3d_forward_out_cpu()");
  TORCH_CHECK(stride[0] > 0 && stride[1] > 0 && stride[2] > 0,
              "strides should be greater than zero, but got stride: ", stride);
  TORCH_CHECK(output_size[0] >= 0 && output_size[1] >= 0 && output_size[2] >= 0,
              "max_unpooling3d(): output_size must contain non-negative spatial dimensions, but got output_size=(",
              output_size[0], ", ", output_size[1], ", ", output_size[2], ")");
  return max_unpool_compute<3>(self, indices, output_size, output);
}

Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                    IntArrayRef padding) {
  Tensor output = at::empty({0}, self.options());
  return max_unpool3d_out(self, indices, output_size, stride, padding, output);
}

// ---- fractional_max_pool2d/3d (structured forward ops and 2-d backward: ATen's metas) ----

const int kFractionalCheck = register_device_check("fractional_max_pool_backward", DeviceCheckKind::kRuntimeError,
                                                   "index {index} is out of range for an input plane of {size} elements");

template <int Dims>
void fractional_max_impl(at::impl::MetaBase&, const Tensor& out, const Tensor& indices, const Tensor& self,
                         IntArrayRef kernel, IntArrayRef, const Tensor& samples) {
  at::native::fractional_max_pool_check_shape<Dims>(self, samples);  // (the CPU impl's check, not in the meta)
  check_pool_dtype(Dims == 2 ? "fractional_max_pool2d_out_frame" : "fractional_max_pool3d_out_frame",
                   self.scalar_type(), false);
  if (out.numel() == 0) return;
  const Window w = make_window(Dims, kernel, {}, {});
  const PoolParams p = make_params(self, out, indices, out, Dims, &w);
  const Tensor smp = samples.contiguous();
  const auto device = self.device().index();
  check_dtype_supported(self.scalar_type(), device);
  const auto dtype = self.scalar_type();
  Launch l(device, source_kernel(device, "pool", "fractional_max_forward", kernel_variant({static_cast<int>(dtype)}),
                                 [&] { return pool_preamble(dtype); }));
  l.tensor(out).tensor(indices).input(self).input(smp).value<int64_t>(Dims).value(p);
  l.run_items(static_cast<size_t>(out.numel()));
}

template <int Dims>
void fractional_max_backward_compute(const Tensor& grad_input, const Tensor& grad_output, const Tensor& indices,
                                     IntArrayRef kernel) {
  check_pool_dtype(Dims == 2 ? "fractional_max_pool2d_backward_out_frame" : "fractional_max_pool3d_backward_out_frame",
                   grad_input.scalar_type(), false);
  grad_input.zero_();
  if (grad_input.numel() == 0 || grad_output.numel() == 0) return;
  const Window w = make_window(Dims, kernel, {}, {});
  const PoolParams p = make_params(grad_input, grad_output, indices, grad_input, Dims, &w);
  run_pool("fractional_max_backward", p, {grad_input, grad_output.to(grad_input.scalar_type()), indices},
           p.N * p.C, kFractionalCheck);
}

void fractional_max2d_backward_impl(at::impl::MetaBase&, const Tensor& grad_input, const Tensor& grad_output,
                                    const Tensor&, IntArrayRef kernel, IntArrayRef, const Tensor& indices) {
  fractional_max_backward_compute<2>(grad_input, grad_output, indices, kernel);
}

// fractional_max_pool3d_backward: a CPU-only entry point (its checks, FractionalMaxPool3d.cpp).
Tensor& fractional_max3d_backward_out(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel,
                                      IntArrayRef output_size, const Tensor& indices, Tensor& grad_input) {
  const int64_t off = self.dim() == 5 ? 1 : 0;
  TORCH_CHECK(output_size[0] == grad_output.size(1 + off),
              "fractional_max_pool3d_backward_out(): gradOutput time unexpected");
  TORCH_CHECK(output_size[1] == grad_output.size(2 + off),
              "fractional_max_pool3d_backward_out(): ", "gradOutput height unexpected");
  TORCH_CHECK(output_size[2] == grad_output.size(3 + off),
              "fractional_max_pool3d_backward_out(): gradOutput width unexpected");
  grad_input.resize_as_(self);
  fractional_max_backward_compute<3>(grad_input, grad_output, indices, kernel);
  return grad_input;
}

Tensor fractional_max3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel,
                                 IntArrayRef output_size, const Tensor& indices) {
  Tensor grad_input = at::empty({0}, self.options());
  return fractional_max3d_backward_out(grad_output, self, kernel, output_size, indices, grad_input);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace at::meta;
  using IA = IntArrayRef;
  using OptInt = std::optional<int64_t>;
  register_structured2<structured_max_pool2d_with_indices, &max_pool2d_impl, IA, IA, IA, IA, bool>(
      m, "max_pool2d_with_indices", "max_pool2d_with_indices.out");
  register_structured<structured_max_pool2d_with_indices_backward, &max_pool2d_backward_impl, const Tensor&, IA,
                      IA, IA, IA, bool, const Tensor&>(m, "max_pool2d_with_indices_backward", nullptr,
                                                       "max_pool2d_with_indices_backward.grad_input");
  ::torch_ocl::register_op<&max_pool3d>(m, "max_pool3d_with_indices");
  ::torch_ocl::register_op<&max_pool3d_out>(m, "max_pool3d_with_indices.out");
  ::torch_ocl::register_op<&max_pool3d_backward>(m, "max_pool3d_with_indices_backward");
  ::torch_ocl::register_op<&max_pool3d_backward_out>(m, "max_pool3d_with_indices_backward.grad_input");

  register_structured<structured_avg_pool2d, &avg_pool_impl<2>, IA, IA, IA, bool, bool, OptInt>(
      m, "avg_pool2d", nullptr, "avg_pool2d.out");
  register_structured<structured_avg_pool3d, &avg_pool_impl<3>, IA, IA, IA, bool, bool, OptInt>(
      m, "avg_pool3d", nullptr, "avg_pool3d.out");
  register_structured<structured_avg_pool2d_backward, &avg_pool_backward_impl<2>, const Tensor&, IA, IA, IA, bool,
                      bool, OptInt>(m, "avg_pool2d_backward", nullptr, "avg_pool2d_backward.grad_input");
  register_structured<structured_avg_pool3d_backward, &avg_pool_backward_impl<3>, const Tensor&, IA, IA, IA, bool,
                      bool, OptInt>(m, "avg_pool3d_backward", nullptr, "avg_pool3d_backward.grad_input");

  register_structured2<structured_adaptive_max_pool2d, &adaptive_max_impl<2>, IA>(m, "adaptive_max_pool2d",
                                                                                  "adaptive_max_pool2d.out");
  register_structured2<structured_adaptive_max_pool3d, &adaptive_max_impl<3>, IA>(m, "adaptive_max_pool3d",
                                                                                  "adaptive_max_pool3d.out");
  register_structured<structured_adaptive_max_pool2d_backward, &adaptive_max_backward_impl<2>, const Tensor&,
                      const Tensor&>(m, "adaptive_max_pool2d_backward", nullptr,
                                     "adaptive_max_pool2d_backward.grad_input");
  register_structured<structured_adaptive_max_pool3d_backward, &adaptive_max_backward_impl<3>, const Tensor&,
                      const Tensor&>(m, "adaptive_max_pool3d_backward", nullptr,
                                     "adaptive_max_pool3d_backward.grad_input");

  ::torch_ocl::register_op<&adaptive_avg<2>>(m, "_adaptive_avg_pool2d");
  ::torch_ocl::register_op<&adaptive_avg_out<2>>(m, "adaptive_avg_pool2d.out");
  ::torch_ocl::register_op<&adaptive_avg_backward<2>>(m, "_adaptive_avg_pool2d_backward");
  ::torch_ocl::register_op<&adaptive_avg<3>>(m, "_adaptive_avg_pool3d");
  ::torch_ocl::register_op<&adaptive_avg_out<3>>(m, "adaptive_avg_pool3d.out");
  ::torch_ocl::register_op<&adaptive_avg_backward<3>>(m, "_adaptive_avg_pool3d_backward");
  ::torch_ocl::register_op<&adaptive_avg_backward_out<3>>(m, "adaptive_avg_pool3d_backward.grad_input");

  ::torch_ocl::register_op<&max_unpool2d>(m, "max_unpool2d");
  ::torch_ocl::register_op<&max_unpool2d_out>(m, "max_unpool2d.out");
  ::torch_ocl::register_op<&max_unpool3d>(m, "max_unpool3d");
  ::torch_ocl::register_op<&max_unpool3d_out>(m, "max_unpool3d.out");

  register_structured2<structured_fractional_max_pool2d, &fractional_max_impl<2>, IA, IA, const Tensor&>(
      m, "fractional_max_pool2d", "fractional_max_pool2d.output");
  register_structured2<structured_fractional_max_pool3d, &fractional_max_impl<3>, IA, IA, const Tensor&>(
      m, "fractional_max_pool3d", "fractional_max_pool3d.output");
  register_structured<structured_fractional_max_pool2d_backward, &fractional_max2d_backward_impl, const Tensor&,
                      IA, IA, const Tensor&>(m, "fractional_max_pool2d_backward", nullptr,
                                             "fractional_max_pool2d_backward.grad_input");
  ::torch_ocl::register_op<&fractional_max3d_backward>(m, "fractional_max_pool3d_backward");
  ::torch_ocl::register_op<&fractional_max3d_backward_out>(m, "fractional_max_pool3d_backward.grad_input");
}

}  // namespace torch_ocl
