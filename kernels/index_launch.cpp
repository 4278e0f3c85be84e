#include "kernels/index_launch.h"

#include <ATen/Context.h>
#include <ATen/ops/scalar_tensor.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "backend/device_checks.h"
#include "backend/device_profile.h"
#include "backend/kernel_launch.h"
#include "backend/program_cache.h"
#include "backend/runtime.h"
#include "backend/scratch_buffer.h"

namespace torch_ocl {
namespace {


struct BitsMacros {
  const char *bits, *from, *to;
};
// How an element's bits convert to and from its compute type (atomics).
BitsMacros bits_macros(c10::ScalarType t) {
  switch (t) {
    case c10::kFloat: return {"uint", "as_float(b)", "as_uint((float)(v))"};
    case c10::kDouble: return {"ulong", "as_double(b)", "as_ulong((double)(v))"};
    case c10::kHalf: return {"ushort", "half_bits_to_float(b)", "float_to_half_bits(v)"};
    case c10::kBFloat16: return {"ushort", "bf16_to_float(b)", "float_to_bf16(v)"};
    case c10::kBool: return {"uchar", "(b)", "(uchar)((v) != 0)"};
    case c10::kByte: return {"uchar", "(b)", "(uchar)(v)"};
    case c10::kChar: return {"uchar", "as_char(b)", "as_uchar((char)(v))"};
    case c10::kShort: return {"ushort", "as_short(b)", "as_ushort((short)(v))"};
    case c10::kUInt16: return {"ushort", "(b)", "(ushort)(v)"};
    case c10::kInt: return {"uint", "as_int(b)", "as_uint((int)(v))"};
    case c10::kUInt32: return {"uint", "(b)", "(uint)(v)"};
    case c10::kLong: return {"ulong", "as_long(b)", "as_ulong((long)(v))"};
    case c10::kUInt64: return {"ulong", "(b)", "(ulong)(v)"};
    default: TORCH_CHECK(false, "torch_ocl: no index kernels for dtype ", t);
  }
}

// Elements per work item along dim 0 for `n` elements: 1 on GPUs (neighbouring
// items touch neighbouring elements); on CPU devices up to 256 (PoCL runs an
// item's loop with the row offsets and, where no index moves, the index
// check done once: measured 4-40x the bandwidth of 1 element per item,
// bench/bench_index.py), fewer when that would leave compute units idle.
int64_t index_block(c10::DeviceIndex device, int64_t n) {
  static const int64_t dev = [] {  // TORCH_OCL_INDEX_BLOCK=n (development: block experiments)
    const char* env = std::getenv("TORCH_OCL_INDEX_BLOCK");
    return env ? std::atoll(env) : 0;
  }();
  if (dev > 0) return dev;
  if (!device_profile(device).index_blocks) return 1;
  const auto& info = device_info(device);
  const int64_t units = std::max<int64_t>(1, info.compute_units);
  return std::clamp<int64_t>(n / (units * 256 * 4), contiguous_block(device), 256);
}

bool has_int64_atomics(c10::DeviceIndex device) {
  return device_info(device).extensions.find("cl_khr_int64_base_atomics") != std::string::npos;
}

}  // namespace

bool deterministic_indexing() { return at::globalContext().deterministicAlgorithms(); }

void run_index_kernel(const IndexKernel& k, at::TensorIteratorBase& iter, const IndexOperands& ops,
                      c10::ScalarType dtype, const c10::Scalar& value, const c10::Scalar& alpha,
                      bool serial) {
  const int64_t n = iter.numel();
  if (n == 0) return;
  const auto device = iter.device().index();
  const bool copy = k.reduce == IndexReduce::kCopy;
  // Copies move raw bits (complex too); a complex sum adds its (re, im)
  // halves as two reals each; a complex product multiplies the pairs,
  // serially (no atomic complex multiply). Max / min have no complex kernel
  // (the CPU raises; the callers raise its error first).
  const bool complex = c10::isComplexType(dtype);
  TORCH_CHECK(copy || !complex || k.reduce == IndexReduce::kSum || k.reduce == IndexReduce::kProd, "torch_ocl: ",
              k.name, ": no complex kernel for this reduction");
  if (complex && k.reduce == IndexReduce::kProd) serial = true;
  const c10::ScalarType real = complex && !copy ? c10::toRealValueType(dtype) : dtype;
  if (copy) check_storable(dtype, device); else check_dtype_supported(real, device);
  const int nidx = static_cast<int>(ops.index_sizes.size());
  TORCH_CHECK(nidx >= 1 && nidx <= kMaxIndices, "torch_ocl: ", k.name, " handles 1 to ", kMaxIndices,
              " index tensors, got ", nidx);
  const int64_t elem = static_cast<int64_t>(c10::elementSize(real));
  const bool has_src = ops.src >= 0 || (ops.linear != nullptr && ops.dst >= 0);
  const bool atomic = !copy && !serial && (elem < 8 || has_int64_atomics(device));
  if (!copy && !atomic) serial = true;

  // meta: see kernels/index.cl
  const int64_t ndim = iter.ndim();
  std::vector<int64_t> meta{ndim, nidx};
  for (int64_t d = 0; d < ndim; ++d) meta.push_back(iter.shape()[d]);
  auto operand_strides = [&](int op) {
    for (int64_t d = 0; d < ndim; ++d) meta.push_back(op >= 0 ? iter.strides(op)[d] : 0);
  };
  operand_strides(ops.dst);
  operand_strides(ops.src);
  for (int j = 0; j < nidx; ++j) operand_strides(ops.first_index + j);
  for (int j = 0; j < nidx; ++j) {
    const int op = ops.first_index + j;
    const auto idx_t = iter.dtype(op);
    TORCH_CHECK(idx_t == c10::kLong || idx_t == c10::kInt, "torch_ocl: ", k.name,
                ": index tensors must be int64 or int32, got ", idx_t);
    meta.push_back(ops.index_sizes[j]);
    meta.push_back(ops.linear ? 0 : ops.index_strides[j]);
    meta.push_back(static_cast<int64_t>(c10::elementSize(idx_t)));
    meta.push_back(ops.index_dims.empty() ? j : ops.index_dims[j]);
  }
  if (ops.linear) {
    const at::TensorBase& t = *ops.linear;
    meta.push_back(t.dim());
    for (int64_t d = 0; d < t.dim(); ++d) meta.push_back(t.size(d));
    for (int64_t d = 0; d < t.dim(); ++d) meta.push_back(t.stride(d) * t.element_size());
  }
  ScratchBuffer meta_buf = ScratchBuffer::from_host(device, meta.data(), meta.size() * sizeof(int64_t));

  const bool has_alpha = !copy && !(alpha.isIntegral(true) && alpha.toLong() == 1);
  // What the preamble depends on (its key), and the preamble, built only for a new kernel.
  const int flags = atomic | k.displace_dst << 1 | has_src << 2 | k.allow_negative << 3 | (ops.linear != nullptr) << 4 |
                    has_alpha << 5;
  const uint64_t variant = kernel_variant({static_cast<int>(dtype), static_cast<int>(k.reduce), flags, nidx});
  auto preamble = [&] {
    std::string pre = (copy ? bits_preamble(dtype) : dtype_preamble(real)) + kernel_source("device_checks");
    auto def = [&](const std::string& name, const std::string& v) { pre += "#define " + name + " " + v + "\n"; };
    def("VALUE_T", copy ? "ST" : "CT");
    def("REDUCE", std::to_string(static_cast<int>(k.reduce)));
    def("ATOMIC", atomic ? "1" : "0");
    def("DISPLACE_DST", k.displace_dst ? "1" : "0");
    def("HAS_SRC", has_src ? "1" : "0");
    def("ALLOW_NEGATIVE", k.allow_negative ? "1" : "0");
    def("LINEAR", ops.linear ? "1" : "0");
    def("HAS_ALPHA", has_alpha ? "1" : "0");
    def("ELEM_BYTES", std::to_string(elem));
    def("COMPONENTS", complex && !copy ? "2" : "1");
    def("NIDX", std::to_string(nidx));
    if (atomic) {
      const BitsMacros b = bits_macros(real);
      def("BITS", b.bits);
      def("FROM_BITS(b)", b.from);
      def("TO_BITS(v)", b.to);
    }
    return pre;
  };
  // Elements per work item along dim 0 (see kernels/index.cl); one item runs
  // them all in order when serial.
  const int64_t size0 = ndim > 0 ? iter.shape()[0] : 1;
  const int64_t block = std::min<int64_t>(size0, index_block(device, n));
  const int64_t items = (size0 + block - 1) / block * (n / size0);
  Launch l(device, source_kernel(device, "index", "index_kernel", variant, preamble));
  cl_mem meta_mem = meta_buf.get();
  l.raw(sizeof(cl_mem), &meta_mem).value<int64_t>(n).value<int64_t>(block);
  auto operand = [&](int op, bool written) {
    if (op >= 0) {
      TORCH_INTERNAL_ASSERT(iter.device(op).type() == c10::DeviceType::PrivateUse1, k.name,
                            ": operand ", op, " is not on the ocl device");
      l.device_pointer(iter.data_ptr(op));
    } else {
      TORCH_INTERNAL_ASSERT(ops.linear != nullptr);
      if (written) l.tensor(*ops.linear);  // put_'s destination
      else l.input(*ops.linear);           // take's source
    }
  };
  operand(ops.dst, true);
  if (has_src) operand(ops.src, false); else l.null_tensor();
  for (int j = 0; j < kMaxIndices; ++j) {
    if (j < nidx) operand(ops.first_index + j, false); else l.null_tensor();
  }
  if (copy) {
    // The value's bits in the element type, as fill_ writes them.
    at::Tensor v = at::scalar_tensor(value, at::TensorOptions().dtype(dtype));
    alignas(16) uint64_t raw[2] = {0, 0};
    std::memcpy(raw, v.const_data_ptr(), v.element_size());
    l.raw(elem, raw).raw(elem, raw);  // value, alpha (unused)
  } else {
    TORCH_CHECK(!complex || (has_src && !alpha.isComplex()), "torch_ocl: ", k.name,
                ": a complex reduction needs a source and a real alpha");
    l.scalar(value, real).scalar(alpha, real);
  }
  check_arg(l, device, k.check);
  if (serial) l.run(1, 1); else l.run(static_cast<size_t>(items));
}

}  // namespace torch_ocl
