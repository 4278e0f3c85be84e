// Scans along one dim: cumsum, cumprod (complex too; ATen's structured impls behind
// cumsum_stub / cumprod_stub), logcumsumexp (complex too; ATen's generic
// _logcumsumexp impls behind logcumsumexp_stub), cummax / cummin (their _helper ops; the
// composite cummax/cummin do the checks and resizing). The kernels are
// kernels/scan.cl; their backward formulas are ATen's composites (flip +
// cumsum, ...), which run on the ops here.
#include <ATen/Dispatch.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/ReduceOps.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_logcumsumexp_native.h>
#include <ATen/ops/cumprod_native.h>
#include <ATen/ops/cumsum_native.h>
#include <ATen/ops/view_as_real.h>
#include <torch/library.h>

#include <string>

#include "backend/device_profile.h"
#include "backend/program_cache.h"
#include "kernels/register_op.h"
#include "backend/runtime.h"
#include "kernels/dim_slices.h"
#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

enum ScanOp { kCumsum = 0, kCumprod = 1, kLogcumsumexp = 2, kCummax = 3, kCummin = 4 };

// The CPU kernels' accumulation type (at::acc_type<T, /*is_cuda=*/false>);
// float where the device has no double. Max/min keep the compute type.
std::string scan_acc_type(ScanOp op, c10::ScalarType dtype, c10::DeviceIndex device) {
  if (op == kCummax || op == kCummin) return cl_type(dtype).compute;
  if (c10::isFloatingType(dtype)) {
    if (dtype == c10::kHalf || dtype == c10::kBFloat16) return "float";
    return device_info(device).fp64 ? "double" : "float";
  }
  return dtype == c10::kUInt64 ? "ulong" : "long";
}

// Scans `in` along `dim` into `out` (same sizes and dtype; any strides) and,
// for cummax/cummin, the indices into `indices`.
void scan(ScanOp op, const at::Tensor& out, const at::Tensor& in, int64_t dim,
          const at::Tensor& indices = {}) {
  if (out.numel() == 0) return;
  const auto device = out.device().index();
  const c10::ScalarType dtype = out.scalar_type();
  check_storable(dtype, device);
  const int64_t len = in.size(dim);
  const Slices s = indices.defined() ? slices_along({out, in, indices}, {dim}) : slices_along({out, in}, {dim});
  const bool complex = c10::isComplexType(dtype);  // cumprod, logcumsumexp (cumsum scans the real view)
  const c10::ScalarType elem = complex ? c10::toRealValueType(dtype) : dtype;
  // Built only when the kernel is new: (op, elem, complex) determine it.
  auto preamble = [&] {
    const std::string acc = scan_acc_type(op, elem, device);
    std::string p = dtype_preamble(elem) + "#define SCAN_OP " + std::to_string(op) + "\n#define SCAN_T " + acc +
                    (complex ? "2\n#define SCAN_COMPLEX 1\n#define CONVERT_SCAN_T convert_" + acc +
                                   "2\n#define CONVERT_ST2 convert_" + cl_type(elem).storage + "2\n"
                             : "\n");
    if (complex && op == kLogcumsumexp)  // c_logaddexp
      p += "#define T " + acc + "2\n#define R " + acc + "\n" + kernel_source("complex_lib");
    if (acc == "double" || elem == c10::kDouble) p = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + p;
    return p;
  };
  // Many rows keep the device busy one row per work item; a few long rows
  // take a work group each.
  const int64_t few_rows = device_profile(device).scan_few_rows;
  // Complex logcumsumexp stays serial: the CPU's running value keeps its
  // imaginary part unreduced (each step adds an angle in (-pi, pi] to the
  // larger operand's), so another association order ends 2 pi k apart.
  const bool group = len >= 256 && s.count < few_rows && !(complex && op == kLogcumsumexp);
  Launch l(device, source_kernel(device, "scan", group ? "scan_group" : "scan_serial",
                                 kernel_variant({static_cast<int>(op), static_cast<int>(elem), complex}), preamble));
  l.value(s.ix).value<int64_t>(s.count).value<int64_t>(len).value<int64_t>(out.stride(dim))
      .value<int64_t>(in.stride(dim)).value<int64_t>(indices.defined() ? indices.stride(dim) : 0)
      .device_pointer(s.base[0]).device_pointer(s.base[1]);
  if (indices.defined()) l.device_pointer(s.base[2]);
  else l.null_tensor();
  if (group) {
    const size_t local = l.pow2_work_group(256);
    l.local_memory(local * (complex ? 32 : 16)).run(static_cast<size_t>(s.count) * local, local);  // sizeof(Acc)
  } else {
    l.run(static_cast<size_t>(s.count));
  }
}

// The stubs' part of the CPU's cpu_cum_base_kernel: resize, empty, 0-dim.
bool trivial_scan(const at::Tensor& result, const at::Tensor& self) {
  if (result.sizes() != self.sizes()) at::native::resize_output(result, self.sizes());
  if (self.numel() == 0) return true;
  if (self.dim() == 0) {
    result.fill_(self);
    return true;
  }
  return false;
}

void cumsum_kernel(const at::Tensor& result, const at::Tensor& self, int64_t dim) {
  if (self.is_complex()) {  // re and im sum independently: a scan of the (re, im) pairs as reals
    if (!trivial_scan(result, self))
      scan(kCumsum, at::view_as_real(result), at::view_as_real(self.resolve_conj()),
           at::maybe_wrap_dim(dim, self.dim()));
    return;
  }
  AT_DISPATCH_ALL_TYPES_AND2(c10::kBFloat16, c10::kHalf, self.scalar_type(), "cumsum_out_cpu", [] {});
  if (!trivial_scan(result, self)) scan(kCumsum, result, self, at::maybe_wrap_dim(dim, self.dim()));
}

void cumprod_kernel(const at::Tensor& result, const at::Tensor& self, int64_t dim) {
  AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(c10::kBFloat16, c10::kHalf, self.scalar_type(), "cumprod_out_cpu", [] {});
  if (!trivial_scan(result, self))
    scan(kCumprod, result, self.is_complex() ? self.resolve_conj() : self, at::maybe_wrap_dim(dim, self.dim()));
}

void logcumsumexp_kernel(at::Tensor& result, const at::Tensor& self, int64_t dim) {
  AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(c10::kBFloat16, c10::kHalf, self.scalar_type(), "logcumsumexp_out_cpu",
                                              [] {});
  dim = at::maybe_wrap_dim(dim, self.dim());  // an empty input's bad dim raises too (no structured meta here)
  if (trivial_scan(result, self)) return;
  scan(kLogcumsumexp, result, self.to(result.scalar_type()).resolve_conj(), dim);
}

// _cummax_helper / _cummin_helper: values and indices are already sized, the
// dim wrapped, self non-empty and at least 1-d (the composite cummax_out).
void cummax_helper(const at::Tensor& self, at::Tensor& values, at::Tensor& indices, int64_t dim) {
  AT_DISPATCH_ALL_TYPES_AND3(c10::kBool, c10::kBFloat16, c10::kHalf, self.scalar_type(), "cummax_cpu", [] {});
  scan(kCummax, values, self, at::maybe_wrap_dim(dim, self.dim()), indices);
}

void cummin_helper(const at::Tensor& self, at::Tensor& values, at::Tensor& indices, int64_t dim) {
  AT_DISPATCH_ALL_TYPES_AND3(c10::kBool, c10::kBFloat16, c10::kHalf, self.scalar_type(), "cummin_cpu", [] {});
  scan(kCummin, values, self, at::maybe_wrap_dim(dim, self.dim()), indices);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  ::torch_ocl::register_op<&cummax_helper>(m, "_cummax_helper");
  ::torch_ocl::register_op<&cummin_helper>(m, "_cummin_helper");
}

}  // namespace torch_ocl

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(cumsum_stub, &::torch_ocl::cumsum_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(cumprod_stub, &::torch_ocl::cumprod_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(logcumsumexp_stub, &::torch_ocl::logcumsumexp_kernel)
}  // namespace at::native

OCL_NATIVE_OP_C(structured_cumsum_out, "cumsum", "cumsum_", "cumsum.out")  // complex too
OCL_NATIVE_OP_C(structured_cumprod_out, "cumprod", "cumprod_", "cumprod.out")  // complex too
OCL_NATIVE_FN_C("_logcumsumexp", &at::native::_logcumsumexp_cpu)  // complex too
OCL_NATIVE_FN_C("_logcumsumexp.out", &at::native::_logcumsumexp_out_cpu)
