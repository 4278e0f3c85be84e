// Search and counting ops on PrivateUse1 (kernels in kernels/search.cl):
// searchsorted / bucketize (binary search per element, ATen's
// searchsorted_pre_check and input trimming), isin (scan of the test
// elements, or for large test sets a binary search in a sorted copy),
// repeat_interleave.Tensor (native cumsum, one host read of the total, a fill
// kernel), nonzero_static (native nonzero + fill), bincount and the
// histogram family (ATen's generic histc / histogram / _histogramdd impls over
// our histogramdd stubs; atomic-add kernels).
#include <ATen/ExpandUtils.h>
#include <ATen/native/BucketizationUtils.h>
#include <ATen/native/Histogram.h>
#include <ATen/native/Resize.h>
#include <ATen/native/TypeProperties.h>
#include <ATen/ops/_histogramdd_bin_edges_native.h>
#include <ATen/ops/_histogramdd_from_bin_cts_native.h>
#include <ATen/ops/_histogramdd_from_bin_tensors_native.h>
#include <ATen/Dispatch.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/where.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/isin.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/histc_native.h>
#include <ATen/ops/histogram_native.h>
#include <ATen/ops/isin_meta.h>
#include <ATen/ops/isin_native.h>
#include <ATen/ops/nonzero.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <cmath>

#include "backend/kernel_launch.h"
#include "backend/scratch_buffer.h"
#include "kernels/op_table.h"
#include "kernels/structured.h"

namespace torch_ocl {
namespace {

using at::Tensor;
using c10::ScalarType;
using OptTensor = std::optional<Tensor>;

c10::DeviceIndex dev(const Tensor& t) { return t.device().index(); }

// ---- searchsorted / bucketize ----

// The dtypes the CPU's searchsorted handles (AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16)).
void check_search_dtype(ScalarType dtype) {
  const bool ok = at::isIntegralType(dtype, /*includeBool=*/false) || dtype == at::kFloat ||
                  dtype == at::kDouble || dtype == at::kHalf || dtype == at::kBFloat16;
  TORCH_CHECK_NOT_IMPLEMENTED(ok && dtype != at::kUInt16 && dtype != at::kUInt32 && dtype != at::kUInt64,
                              "\"searchsorted_out_cpu\" not implemented for '", c10::toString(dtype), "'");
}

Tensor& searchsorted_out(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                         std::optional<c10::string_view> side_opt, const OptTensor& sorter_opt, Tensor& result) {
  const Tensor sorter = sorter_opt.value_or(Tensor());
  at::native::searchsorted_pre_check(sorted_sequence, self, result, out_int32, right, side_opt, sorter);
  at::native::resize_output(result, self.sizes());
  const bool is_right = side_opt ? *side_opt == "right" : right;
  if (self.numel() == 0) return result;
  Tensor out = result.is_contiguous() ? result : result.contiguous();
  Tensor in, bd, so;
  at::native::searchsorted_maybe_trim_input_tensors(in, bd, so, self, sorted_sequence, sorter);
  const Tensor& fin = in.defined() ? in : self;
  const Tensor& fbd = bd.defined() ? bd : sorted_sequence;
  const Tensor& fso = so.defined() ? so : sorter;
  check_search_dtype(fin.scalar_type());
  const auto device = dev(self);
  check_dtype_supported(fin.scalar_type(), device);
  const int64_t n = fin.numel();
  const int64_t in_row = fin.dim() == 0 ? 1 : fin.size(-1);
  const int64_t bd_row = fbd.size(-1);
  const auto fdtype = fin.scalar_type();
  Launch l(device, dtype_kernel(device, "search", "search_sorted", fdtype));
  l.input(fin).value(n).input(fbd);
  if (fso.defined()) l.input(fso);
  else l.null_tensor();
  l.value<int32_t>(fso.defined()).value(in_row).value(bd_row).value<int32_t>(fbd.dim() > 1);
  l.value<int32_t>(is_right).tensor(out).value<int32_t>(out_int32).run(static_cast<size_t>(n));
  if (!out.is_same(result)) result.copy_(out);
  return result;
}

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    std::optional<c10::string_view> side, const OptTensor& sorter) {
  Tensor result = at::empty({0}, self.options().dtype(out_int32 ? at::kInt : at::kLong));
  return searchsorted_out(sorted_sequence, self, out_int32, right, side, sorter, result);
}

Tensor& searchsorted_scalar_out(const Tensor& sorted_sequence, const c10::Scalar& self, bool out_int32, bool right,
                                std::optional<c10::string_view> side, const OptTensor& sorter, Tensor& result) {
  return searchsorted_out(sorted_sequence, at::native::searchsorted_scalar_tensor(self, sorted_sequence.device()),
                          out_int32, right, side, sorter, result);
}

Tensor searchsorted_scalar(const Tensor& sorted_sequence, const c10::Scalar& self, bool out_int32, bool right,
                           std::optional<c10::string_view> side, const OptTensor& sorter) {
  return torch_ocl::searchsorted(sorted_sequence, at::native::searchsorted_scalar_tensor(self, sorted_sequence.device()),
                      out_int32, right, side, sorter);
}

void check_bucketize_boundaries(const Tensor& boundaries) {
  TORCH_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
}

Tensor& bucketize_out(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right, Tensor& result) {
  check_bucketize_boundaries(boundaries);
  return searchsorted_out(boundaries, self, out_int32, right, std::nullopt, std::nullopt, result);
}

Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  Tensor result = at::empty({0}, self.options().dtype(out_int32 ? at::kInt : at::kLong));
  return bucketize_out(self, boundaries, out_int32, right, result);
}

Tensor bucketize_scalar(const c10::Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return torch_ocl::bucketize(at::native::searchsorted_scalar_tensor(self, boundaries.device()), boundaries, out_int32, right);
}

Tensor& bucketize_scalar_out(const c10::Scalar& self, const Tensor& boundaries, bool out_int32, bool right,
                             Tensor& result) {
  return bucketize_out(at::native::searchsorted_scalar_tensor(self, boundaries.device()), boundaries, out_int32,
                       right, result);
}

// ---- isin ----

// Test sets up to this size are scanned per element; larger ones are sorted
// (a copy) and binary-searched.
constexpr int64_t kIsinScanMax = 64;

void isin_impl(at::meta::structured_isin_Tensor_Tensor&, const Tensor& out, const Tensor& elements,
               const Tensor& test_elements, bool /*assume_unique*/, bool invert) {
  if (elements.numel() == 0) return;
  const ScalarType common = at::result_type(elements, test_elements);
  const auto device = dev(elements);
  check_dtype_supported(common, device);
  const Tensor in = elements.to(common).contiguous();
  Tensor test = test_elements.to(common).reshape(-1);
  const int64_t ntest = test.numel();
  const bool sorted = ntest > kIsinScanMax;
  // (at::sort through the dispatcher: native once the sort family is.)
  test = sorted ? std::get<0>(at::sort(test)) : test.contiguous();
  Tensor o = out.is_contiguous() ? out : at::empty(out.sizes(), out.options());
  const int64_t n = in.numel();
  Launch(device, dtype_kernel(device, "search", "isin_kernel", common))
      .input(in)
      .value(n)
      .input(test)
      .value(ntest)
      .value<int32_t>(sorted)
      .value<int32_t>(invert)
      .tensor(o)
      .run(static_cast<size_t>(n));
  if (!o.is_same(out)) out.copy_(o);
}

Tensor isin_scalar_tensor(const c10::Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  return at::isin(at::native::searchsorted_scalar_tensor(element, test_elements.device()), test_elements,
                  assume_unique, invert);
}

Tensor& isin_scalar_tensor_out(const c10::Scalar& element, const Tensor& test_elements, bool assume_unique,
                               bool invert, Tensor& out) {
  return at::isin_out(out, at::native::searchsorted_scalar_tensor(element, test_elements.device()), test_elements,
                      assume_unique, invert);
}

// ---- repeat_interleave.Tensor ----

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  TORCH_CHECK_NOT_IMPLEMENTED(repeats.scalar_type() == at::kLong || repeats.scalar_type() == at::kInt,
                              "\"repeat_interleave_cpu\" not implemented for '", c10::toString(repeats.scalar_type()),
                              "'");
  TORCH_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  TORCH_CHECK(repeats.scalar_type() == at::kLong || repeats.scalar_type() == at::kInt,
              "repeats has to be Long or Int tensor");
  if (repeats.size(0) == 0) return at::empty_like(repeats, LEGACY_CONTIGUOUS_MEMORY_FORMAT);
  const Tensor cum = at::cumsum(repeats, 0, at::kLong);
  int64_t total = 0;
  if (output_size.has_value()) {
    total = *output_size;
  } else {
    // One host read: the total and whether any repeat is negative.
    auto [mn, mx] = at::aminmax(repeats);
    const Tensor host = at::stack({cum[-1], mn.to(at::kLong)}).cpu();
    total = host[0].item<int64_t>();
    TORCH_CHECK(host[1].item<int64_t>() >= 0, "repeats can not be negative");
  }
  Tensor result = at::empty({total}, repeats.options());
  if (total == 0) return result;
  const auto rdtype = repeats.scalar_type();
  Launch(dev(repeats), source_kernel(dev(repeats), "search", "repeat_interleave_fill",
                                     kernel_variant({static_cast<int>(rdtype)}), [&] { return dtype_preamble(rdtype); }))
      .input(cum)
      .value<int64_t>(repeats.size(0))
      .tensor(result)
      .value(total)
      .run(static_cast<size_t>(total));
  return result;
}

// ---- nonzero_static: the native nonzero, cut or padded to `size` rows ----

Tensor& nonzero_static_out(const Tensor& self, int64_t size, int64_t fill_value, Tensor& out) {
  TORCH_CHECK(size >= 0, "nonzero_static: 'size' must be an non-negative integer");
  TORCH_CHECK(out.scalar_type() == at::kLong,
              "nonzero_static: Expected out tensor to have scalar type Long but got scalar type",
              out.scalar_type());
  const int64_t ndim = self.dim();
  at::native::resize_output(out, {size, ndim});
  if (size == 0 || ndim == 0) return out;
  const Tensor nz = at::nonzero(self);
  const int64_t k = std::min(size, nz.size(0));
  if (k > 0) out.narrow(0, 0, k).copy_(nz.narrow(0, 0, k));
  if (k < size) out.narrow(0, k, size - k).fill_(fill_value);
  return out;
}

Tensor nonzero_static(const Tensor& self, int64_t size, int64_t fill_value) {
  Tensor out = at::empty({0}, self.options().dtype(at::kLong));
  return nonzero_static_out(self, size, fill_value, out);
}

// ---- atomic-add histograms ----

// search.cl's preamble for accumulating into `acc` (kLong, kFloat or kDouble)
// with weights of dtype `wdtype`, searching values of dtype `dtype`.
std::string hist_preamble(ScalarType dtype, ScalarType acc, ScalarType wdtype) {
  std::string s = "#define HIST 1\n" + dtype_preamble(dtype) + dtype_preamble(wdtype, "W_");
  if (acc == at::kLong) s += "#define ACC_LONG 1\n";
  if (acc == at::kDouble) s += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define ACC_DOUBLE 1\n";
  if (dtype == at::kHalf) s += "#define HIST_HALF 1\n#define IS_HALFISH 1\n";
  if (dtype == at::kBFloat16) s += "#define HIST_BF16 1\n#define IS_HALFISH 1\n";
  return s;
}

Tensor bincount(const Tensor& self, const OptTensor& weights_opt, int64_t minlength) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isIntegralType(self.scalar_type(), /*includeBool=*/false) &&
                                  self.scalar_type() != at::kUInt16 && self.scalar_type() != at::kUInt32 &&
                                  self.scalar_type() != at::kUInt64,
                              "\"bincount_cpu\" not implemented for '", c10::toString(self.scalar_type()), "'");
  const Tensor weights = weights_opt.value_or(Tensor());
  TORCH_CHECK(minlength >= 0, "minlength should be >= 0");
  if (self.dim() == 1 && self.numel() == 0) return at::zeros({minlength}, self.options().dtype(at::kLong));
  TORCH_CHECK(self.dim() == 1, "bincount only supports 1-d non-negative integral inputs.");
  auto [mn, mx] = at::aminmax(self);
  const Tensor host = at::stack({mn.to(at::kLong), mx.to(at::kLong)}).cpu();  // the size needs a sync anyway
  const int64_t vmin = host[0].item<int64_t>(), vmax = host[1].item<int64_t>();
  TORCH_CHECK(vmin >= 0, "bincount only supports 1-d non-negative integral inputs.");
  const bool has_weights = weights.defined();
  TORCH_CHECK(!has_weights || (weights.dim() == 1 && weights.size(0) == self.size(0)),
              "weights should be 1-d and have the same length as input");
  const int64_t nbins = std::max(vmax + 1, minlength);
  const auto device = dev(self);
  ScalarType acc = at::kLong;
  Tensor w;
  if (has_weights) {
    acc = weights.scalar_type() == at::kFloat ? at::kFloat : at::kDouble;
    w = weights.to(acc).contiguous();
  }
  check_dtype_supported(acc, device);
  Tensor hist = at::zeros({nbins}, self.options().dtype(acc));
  const Tensor in = self.contiguous();
  const int64_t n = in.numel();
  const ScalarType idtype = in.scalar_type(), wdtype = has_weights ? acc : idtype;
  Launch l(device, source_kernel(device, "search", "bincount_kernel", kernel_variant({static_cast<int>(idtype), static_cast<int>(acc), static_cast<int>(wdtype)}),
                                 [&] { return hist_preamble(idtype, acc, wdtype); }));
  l.input(in).value(n);
  if (has_weights) l.input(w);
  else l.null_tensor();
  l.value<int32_t>(has_weights).tensor(hist).run(static_cast<size_t>(n));
  return hist;
}

// histogramdd over self (..., D) into hist (one dim per D), edges per dim.
void histogramdd_run(const Tensor& self, const OptTensor& weight, bool density, Tensor& hist,
                     const at::TensorList& bin_edges, int mode) {
  const int64_t D = self.size(-1);
  const int64_t N = self.numel() / std::max<int64_t>(D, 1);
  hist.fill_(0);
  if (D == 0) return;
  const auto dtype = self.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(dtype), "\"histogram_cpu\" not implemented for '",
                              c10::toString(dtype), "'");
  const auto device = dev(self);
  const ScalarType acc = dtype == at::kDouble ? at::kDouble : at::kFloat;
  check_dtype_supported(dtype, device);
  const Tensor in = self.reshape({N, D}).contiguous();
  const Tensor w = weight ? weight->reshape({N}).contiguous() : Tensor();
  Tensor accum = at::zeros(hist.sizes(), hist.options().dtype(acc));
  std::vector<Tensor> flat;
  std::vector<int64_t> meta(3 * D);
  int64_t off = 0;
  for (int64_t d = 0; d < D; ++d) {
    flat.push_back(bin_edges[d].reshape(-1));
    meta[d] = off;
    meta[D + d] = bin_edges[d].numel();
    meta[2 * D + d] = accum.stride(d);
    off += bin_edges[d].numel();
  }
  const Tensor edges = at::cat(flat).contiguous();
  ScratchBuffer meta_buf = ScratchBuffer::from_host(device, meta.data(), meta.size() * sizeof(int64_t));
  cl_mem mm = meta_buf.get();
  Launch l(device, source_kernel(device, "search", "histogramdd_kernel", kernel_variant({static_cast<int>(dtype), static_cast<int>(acc)}),
                                 [&] { return hist_preamble(dtype, acc, dtype); }));
  l.input(in).value(N).value(D).input(edges).raw(sizeof(cl_mem), &mm).value<int32_t>(mode);
  if (w.defined()) l.input(w);
  else l.null_tensor();
  l.value<int32_t>(w.defined()).tensor(accum);
  if (N > 0) l.run(static_cast<size_t>(N));
  hist.copy_(accum);
  if (density) {
    hist.div_(hist.sum());
    for (int64_t d = 0; d < D; ++d) {
      std::vector<int64_t> shape(D, 1);
      shape[d] = bin_edges[d].numel() - 1;
      hist.div_(bin_edges[d].diff().reshape(shape));
    }
  }
}

void histogramdd_kernel(const Tensor& self, const OptTensor& weight, bool density, Tensor& hist,
                        const at::TensorList& bin_edges) {
  histogramdd_run(self, weight, density, hist, bin_edges, 0);
}

void histogramdd_linear_kernel(const Tensor& self, const OptTensor& weight, bool density, Tensor& hist,
                               const at::TensorList& bin_edges, bool local_search) {
  histogramdd_run(self, weight, density, hist, bin_edges, local_search ? 2 : 1);
}

// histc of an integer tensor, as CUDA's _histc_cuda_template (the CPU has no
// integer histc; MoE routers count experts with it): bounds converted to the
// input's type, min == max takes the data's extremes (one host read, as
// CUDA), bin = (x - min) * bins / (max - min) in int64 with the last bin
// closed, values outside [min, max] skipped, counts in the input's dtype.
// Composed of native ops: the bins are counted by index_add_ into a spare
// last bin for the skipped values.
Tensor& histc_integral_out(const Tensor& self, int64_t bins, const at::Scalar& min, const at::Scalar& max,
                           Tensor& out) {
  TORCH_CHECK(bins > 0, "bins must be > 0");
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "torch.histc: input tensor and hist tensor should have the same dtype, but got input ",
              self.scalar_type(), " and hist ", out.scalar_type());
  int64_t lo = 0, hi = 0;
  AT_DISPATCH_INTEGRAL_TYPES(self.scalar_type(), "histc_ocl", [&] {
    lo = static_cast<scalar_t>(min.to<int64_t>());
    hi = static_cast<scalar_t>(max.to<int64_t>());
  });
  if (lo == hi && self.numel() > 0) {
    auto [mn, mx] = at::aminmax(self);
    const Tensor host = at::stack({mn.to(at::kLong), mx.to(at::kLong)}).cpu();
    lo = host[0].item<int64_t>();
    hi = host[1].item<int64_t>();
  }
  if (lo == hi) {
    --lo;
    ++hi;
  }
  TORCH_CHECK(lo < hi, "max must be larger than min");
  at::native::resize_output(out, {bins});
  const Tensor x = self.reshape({-1}).to(at::kLong);
  const Tensor inside = x.ge(lo).logical_and_(x.le(hi));
  const Tensor bin = at::where(inside, x.sub(lo).mul_(bins).div_(hi - lo, "trunc").clamp_max_(bins - 1),
                               at::scalar_tensor(bins, x.options()));
  const Tensor counts = at::zeros({bins + 1}, x.options()).index_add_(0, bin, at::ones_like(bin));
  out.copy_(counts.narrow(0, 0, bins));
  return out;
}

Tensor histc(const Tensor& self, int64_t bins, const at::Scalar& min, const at::Scalar& max) {
  if (!at::isIntegralType(self.scalar_type(), /*includeBool=*/false))
    return at::native::histogram_histc(self, bins, min, max);
  Tensor out = at::empty({0}, self.options());
  return histc_integral_out(self, bins, min, max, out);
}

Tensor& histc_out(const Tensor& self, int64_t bins, const at::Scalar& min, const at::Scalar& max, Tensor& out) {
  if (!at::isIntegralType(self.scalar_type(), /*includeBool=*/false))
    return at::native::histogram_histc_out(self, bins, min, max, out);
  return histc_integral_out(self, bins, min, max, out);
}

// The outer edges from the data: aminmax over dim 0 (one host read).
void select_outer_bin_edges(const Tensor& input, const int64_t N, std::vector<double>& leftmost,
                            std::vector<double>& rightmost) {
  const auto dtype = input.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(dtype == at::kFloat || dtype == at::kDouble, "\"histogramdd\" not implemented for '",
                              c10::toString(dtype), "'");
  auto [mn, mx] = at::aminmax(input, 0);
  const Tensor host = at::stack({mn, mx}).to(at::kDouble).cpu();
  const double* p = host.const_data_ptr<double>();
  std::copy(p, p + N, leftmost.begin());
  std::copy(p + N, p + 2 * N, rightmost.begin());
}

}  // namespace
}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(histogramdd_stub, &::torch_ocl::histogramdd_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(histogramdd_linear_stub, &::torch_ocl::histogramdd_linear_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(histogram_select_outer_bin_edges_stub, &::torch_ocl::select_outer_bin_edges)
}  // namespace at::native

namespace torch_ocl {
namespace {
using HistBins = std::tuple<Tensor, Tensor> (*)(const Tensor&, int64_t, std::optional<at::ArrayRef<double>>,
                                                const OptTensor&, bool);
using HistBinsOut = std::tuple<Tensor&, Tensor&> (*)(const Tensor&, int64_t, std::optional<at::ArrayRef<double>>,
                                                     const OptTensor&, bool, Tensor&, Tensor&);
using HistTensor = std::tuple<Tensor, Tensor> (*)(const Tensor&, const Tensor&, const OptTensor&, bool);
using HistTensorOut = std::tuple<Tensor&, Tensor&> (*)(const Tensor&, const Tensor&, const OptTensor&, bool, Tensor&,
                                                       Tensor&);
using HistddCts = Tensor (*)(const Tensor&, at::IntArrayRef, std::optional<at::ArrayRef<double>>, const OptTensor&,
                             bool);
using HistddTensors = Tensor (*)(const Tensor&, at::TensorList, const OptTensor&, bool);
}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_structured<at::meta::structured_isin_Tensor_Tensor, &isin_impl, const Tensor&, bool, bool>(
      m, "isin.Tensor_Tensor", nullptr, "isin.Tensor_Tensor_out");
  register_native<at::native::structured_isin_Tensor_Scalar_out>(m, "isin.Tensor_Scalar", nullptr,
                                                                 "isin.Tensor_Scalar_out");
}

}  // namespace torch_ocl

OCL_NATIVE_FN("searchsorted.Tensor", &torch_ocl::searchsorted)
OCL_NATIVE_FN("searchsorted.Tensor_out", &torch_ocl::searchsorted_out)
OCL_NATIVE_FN("searchsorted.Scalar", &torch_ocl::searchsorted_scalar)
OCL_NATIVE_FN("searchsorted.Scalar_out", &torch_ocl::searchsorted_scalar_out)
OCL_NATIVE_FN("bucketize.Tensor", &torch_ocl::bucketize)
OCL_NATIVE_FN("bucketize.Tensor_out", &torch_ocl::bucketize_out)
OCL_NATIVE_FN("bucketize.Scalar", &torch_ocl::bucketize_scalar)
OCL_NATIVE_FN("bucketize.Scalar_out", &torch_ocl::bucketize_scalar_out)
OCL_NATIVE_FN("isin.Scalar_Tensor", &torch_ocl::isin_scalar_tensor)
OCL_NATIVE_FN("isin.Scalar_Tensor_out", &torch_ocl::isin_scalar_tensor_out)
OCL_NATIVE_FN("repeat_interleave.Tensor", &torch_ocl::repeat_interleave)
OCL_NATIVE_FN("nonzero_static", &torch_ocl::nonzero_static)
OCL_NATIVE_FN("nonzero_static.out", &torch_ocl::nonzero_static_out)
OCL_NATIVE_FN("bincount", &torch_ocl::bincount)
OCL_NATIVE_FN("histc", &torch_ocl::histc)
OCL_NATIVE_FN("histc.out", &torch_ocl::histc_out)
OCL_NATIVE_FN("histogram.bin_ct", static_cast<torch_ocl::HistBins>(&at::native::histogram))
OCL_NATIVE_FN("histogram.bin_ct_out", static_cast<torch_ocl::HistBinsOut>(&at::native::histogram_out))
OCL_NATIVE_FN("histogram.bins_tensor", static_cast<torch_ocl::HistTensor>(&at::native::histogram))
OCL_NATIVE_FN("histogram.bins_tensor_out", static_cast<torch_ocl::HistTensorOut>(&at::native::histogram_out))
OCL_NATIVE_FN("_histogramdd_bin_edges", &at::native::histogramdd_bin_edges)
OCL_NATIVE_FN("_histogramdd_from_bin_cts", static_cast<torch_ocl::HistddCts>(&at::native::_histogramdd))
OCL_NATIVE_FN("_histogramdd_from_bin_tensors", static_cast<torch_ocl::HistddTensors>(&at::native::_histogramdd))
