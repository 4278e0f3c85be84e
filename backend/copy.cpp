#include "backend/fault_injection.h"
#include "backend/copy.h"

#include <ATen/TensorIterator.h>
#include <ATen/ops/_conj.h>
#include <ATen/ops/_neg_view.h>
#include <ATen/ops/conj_physical.h>
#include <ATen/ops/empty.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/ne.h>
#include <ATen/ops/select.h>
#include <ATen/ops/view_as_real.h>
#include <ATen/ops/zero.h>
#include <c10/core/DeviceGuard.h>

#include "backend/device_checks.h"
#include "backend/device_profile.h"
#include "backend/device_ptr.h"
#include "backend/kernel_launch.h"
#include "backend/runtime.h"

namespace torch_ocl {
namespace {

bool is_ocl(const at::Tensor& t) { return t.device().type() == c10::DeviceType::PrivateUse1; }

// A dense tensor occupies the bytes [data_ptr, data_ptr + nbytes) exactly.
bool dense(const at::Tensor& t) { return t.is_non_overlapping_and_dense(); }

void write_bytes(const at::Tensor& dst, const void* host, size_t nbytes, bool blocking) {
  const DeviceBuffer b = resolve_device_ptr(dst.mutable_data_ptr());
  OCL_CHECK_AT(EnqueueWriteBuffer, clEnqueueWriteBuffer(current_queue(dst.device().index()), b.buffer,
                                                        blocking ? CL_TRUE : CL_FALSE, b.offset, nbytes,
                                                        host, 0, nullptr, nullptr));
}

void read_bytes(const at::Tensor& src, void* host, size_t nbytes, bool blocking) {
  const DeviceBuffer b = resolve_device_ptr(src.const_data_ptr());
  OCL_CHECK_AT(EnqueueReadBuffer, clEnqueueReadBuffer(current_queue(src.device().index()), b.buffer,
                                                      blocking ? CL_TRUE : CL_FALSE, b.offset, nbytes,
                                                      host, 0, nullptr, nullptr));
}

void copy_host_to_device(const at::Tensor& dst, const at::Tensor& src, bool non_blocking) {
  c10::DeviceGuard guard(dst.device());
  if (dense(dst)) {
    // Stage on the host in dst's dtype and layout unless src already is.
    at::Tensor host = src;
    if (!(src.scalar_type() == dst.scalar_type() && src.sizes() == dst.sizes() &&
          src.strides() == dst.strides() && !src.is_conj() && !src.is_neg())) {
      host = at::empty_strided(dst.sizes(), dst.strides(), src.options().dtype(dst.scalar_type()));
      host.copy_(src);
    }
    const bool blocking = !(non_blocking && host.is_same(src) && src.is_pinned());
    write_bytes(dst, host.const_data_ptr(), dst.nbytes(), blocking);
    return;
  }
  at::Tensor staged = at::empty(dst.sizes(), dst.options());
  copy_host_to_device(staged, src, non_blocking);
  copy_device_to_device(dst, staged);
}

// A view of `t` with its conjugate and negative bits cleared (same memory).
at::Tensor without_bits(const at::Tensor& t) {
  at::Tensor plain = t.is_conj() ? at::_conj(t) : t;
  return plain.is_neg() ? at::_neg_view(plain) : plain;
}

// `host`, a copy of without_bits(src), with src's bits set again.
at::Tensor with_bits_of(const at::Tensor& src, at::Tensor host) {
  if (src.is_conj()) host = at::_conj(host);
  return src.is_neg() ? at::_neg_view(host) : host;
}

// Copies where either side has a lazy conj/neg bit, or that cast to or from
// a complex dtype between the host and the device: the stored values come to
// the host, the CPU applies the bits and the cast, and the result is stored
// into dst's memory. (Casts between ocl tensors run on the device:
// copy_device_to_device.) Tensors with bits are never passed to dispatched
// ops here: the Conjugate/Negative fallbacks would copy them through
// _copy_from again.
void copy_via_host(const at::Tensor& dst, const at::Tensor& src) {
  at::Tensor host = src;
  if (is_ocl(src)) {
    at::Tensor plain = without_bits(src);
    host = at::empty(plain.sizes(), plain.options().device(c10::kCPU));
    copy_device_to_host(host, plain, false);
    host = with_bits_of(src, host);
  }
  // The values dst must store so that it reads as src.
  at::Tensor stored = with_bits_of(dst, host).resolve_conj().resolve_neg();
  at::Tensor plain_dst = without_bits(dst);
  if (is_ocl(plain_dst))
    copy_host_to_device(plain_dst, stored, false);
  else
    plain_dst.copy_(stored);
}

bool needs_host(const at::Tensor& dst, const at::Tensor& src) {
  const bool cast = src.scalar_type() != dst.scalar_type();
  // float8 has no device kernels: its casts convert on the host.
  const bool float8_cast = cast && (c10::isFloat8Type(src.scalar_type()) || c10::isFloat8Type(dst.scalar_type()));
  return src.is_conj() || src.is_neg() || dst.is_conj() || dst.is_neg() || float8_cast ||
         (cast && (src.is_complex() || dst.is_complex()) && !(is_ocl(src) && is_ocl(dst)));
}

}  // namespace

void copy_device_to_host(const at::Tensor& dst, const at::Tensor& src, bool non_blocking) {
  c10::DeviceGuard guard(src.device());
  at::Tensor dev = dense(src) ? src : src.contiguous();
  if (dst.scalar_type() == dev.scalar_type() && dst.sizes() == dev.sizes() &&
      dst.strides() == dev.strides() && dense(dst)) {
    const bool blocking = !(non_blocking && dst.is_pinned());
    read_bytes(dev, dst.mutable_data_ptr(), dst.nbytes(), blocking);
    // A synchronising copy reports what the device-side checks found.
    if (blocking) raise_device_errors(current_stream(src.device().index()));
    return;
  }
  at::Tensor host = at::empty_strided(dev.sizes(), dev.strides(), dst.options().dtype(dev.scalar_type()));
  read_bytes(dev, host.mutable_data_ptr(), host.nbytes(), true);
  raise_device_errors(current_stream(src.device().index()));
  dst.copy_(host);
}

void copy_device_to_device(const at::Tensor& dst, const at::Tensor& src) {
  if (dst.numel() == 0) return;
  TORCH_INTERNAL_ASSERT(is_ocl(dst) && is_ocl(src));
  if (dst.device() != src.device()) {
    // Different OpenCL contexts: go through the host.
    copy_device_to_device(dst, src.cpu().to(dst.device()));
    return;
  }
  // Complex dtypes as (re, im) pairs of reals, as the CPU casts them: complex
  // to complex pairwise, complex to real takes the real part, real to
  // complex sets the imaginary part to 0.
  if (src.is_complex() && dst.is_complex()) {
    copy_device_to_device(at::view_as_real(dst), at::view_as_real(src));
    return;
  }
  if (src.is_complex() && dst.scalar_type() == c10::kBool) {
    at::ne_out(const_cast<at::Tensor&>(dst), src, 0);  // nonzero real or imaginary part
    return;
  }
  if (src.is_complex()) {
    copy_device_to_device(dst, at::view_as_real(src).select(-1, 0));
    return;
  }
  if (dst.is_complex()) {
    const at::Tensor pairs = at::view_as_real(dst);
    copy_device_to_device(pairs.select(-1, 0), src);
    pairs.select(-1, 1).zero_();
    return;
  }
  c10::DeviceGuard guard(dst.device());
  const auto device = dst.device().index();
  if (dst.scalar_type() == src.scalar_type() && dense(dst) && dense(src) &&
      dst.sizes() == src.sizes() && dst.strides() == src.strides()) {
    if (dst.const_data_ptr() == src.const_data_ptr()) return;
    if (device_profile(device).kernel_copy) {  // CPU devices: a kernel copy is faster (bench/HISTORY.md)
      const c10::ScalarType bits = bits_dtype(dst.scalar_type());
      Launch(device, source_kernel(device, "copy", "copy_dense", kernel_variant({static_cast<int>(bits)}),
                                   [&] { return dtype_preamble(bits) + dtype_preamble(bits, "SRC_"); }))
          .value<int64_t>(dst.numel())
          .tensor(dst)
          .input(src)
          .run_items(static_cast<size_t>((dst.numel() + 15) / 16));
      return;
    }
    const DeviceBuffer d = resolve_device_ptr(dst.mutable_data_ptr()), s = resolve_device_ptr(src.const_data_ptr());
    OCL_CHECK_AT(EnqueueCopyBuffer, clEnqueueCopyBuffer(current_queue(device), s.buffer, d.buffer, s.offset,
                                                        d.offset, dst.nbytes(), 0, nullptr, nullptr));
    return;
  }
  auto iter = at::TensorIteratorConfig()
                  .add_output(dst)
                  .add_const_input(src)
                  .resize_outputs(false)
                  .check_all_same_dtype(false)
                  .build();
  if (iter.numel() == 0) return;
  c10::ScalarType out_t = dst.scalar_type(), in_t = src.scalar_type();
  if (out_t == in_t) {
    check_storable(out_t, device);
    out_t = in_t = bits_dtype(out_t);  // a plain bit copy
  } else {
    check_dtype_supported(out_t, device);
    check_dtype_supported(in_t, device);
  }
  const Indexer ix = make_indexer(iter);
  Launch(device, source_kernel(device, "copy", "copy_cast",
                               kernel_variant({static_cast<int>(out_t), static_cast<int>(in_t)}),
                               [&] { return dtype_preamble(out_t) + dtype_preamble(in_t, "SRC_"); }))
      .value(ix)
      .value<int64_t>(iter.numel())
      .tensor(iter.tensor_base(0))
      .input(iter.tensor_base(1))
      .run(iter.numel());
}

at::Tensor copy_from(const at::Tensor& src, const at::Tensor& dst, bool non_blocking) {
  TORCH_CHECK(dst.defined() && src.defined(), "copy_: undefined tensor");
  if (dst.numel() == 0) return dst;
  // As the CPU's and CUDA's copy_ (TensorIterator's overlap check): a source
  // sharing part of the destination's memory is an error (full overlap copies).
  if (is_ocl(dst) && is_ocl(src) && dst.device() == src.device()) at::assert_no_partial_overlap(dst, src);
  at::Tensor s = src.sizes() == dst.sizes() ? src : src.expand_as(dst);
  if (is_ocl(dst) && is_ocl(s) && s.is_conj() && !s.is_neg() && !dst.is_conj() && !dst.is_neg() &&
      s.scalar_type() == dst.scalar_type() && dst.device() == s.device()) {
    // Resolving a lazy conjugate on the device (conj_physical_'s kernel).
    at::conj_physical_out(const_cast<at::Tensor&>(dst), at::_conj(s));
  } else if (needs_host(dst, s)) {
    TORCH_CHECK(s.device().is_cpu() || dst.device().is_cpu() || (is_ocl(s) && is_ocl(dst)),
                "torch_ocl: cannot copy from ", s.device(), " to ", dst.device());
    copy_via_host(dst, s);
  } else if (is_ocl(dst) && is_ocl(s)) {
    copy_device_to_device(dst, s);
  } else if (is_ocl(dst)) {
    TORCH_CHECK(s.device().is_cpu(), "torch_ocl: cannot copy from ", s.device(), " to ", dst.device());
    copy_host_to_device(dst, s, non_blocking);
  } else {
    TORCH_CHECK(dst.device().is_cpu(), "torch_ocl: cannot copy from ", s.device(), " to ", dst.device());
    copy_device_to_host(dst, s, non_blocking);
  }
  return dst;
}

}  // namespace torch_ocl
