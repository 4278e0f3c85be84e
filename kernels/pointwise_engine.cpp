#include "kernels/pointwise_engine.h"

#include <ATen/Dispatch.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/OpMathType.h>
#include <c10/util/SmallVector.h>
#include <c10/util/TypeCast.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backend/device_profile.h"
#include "backend/device_ptr.h"
#include "backend/kernel_launch.h"
#include "backend/program_cache.h"
#include "backend/runtime.h"
#include "kernels/tensor_ops.h"

namespace torch_ocl {
namespace {

constexpr int kMaxPwOperands = 6;  // 2 outputs + 4 inputs, or 1 output + 5 inputs
constexpr int kMaxPwParams = 5;

// PwHead, a generated kernel's first argument (its typedef is written by
// generate()): the element count, each tensor operand's byte offset, then one
// 16-byte slot per value: the CPU scalar operands in operand order, then the
// op's parameters. PoCL copies every kernel argument into a block of its own
// and tracks every buffer argument per launch (~760 and ~1 290 instructions:
// bench/HISTORY.md), so values travel in the head, not as arguments.
struct PwHeadLayout {
  size_t values;  // byte offset of the first value slot
  size_t size;
};
PwHeadLayout pw_head_layout(int ntensors, int nvalues) {
  const size_t fixed = sizeof(int64_t) * (1 + ntensors);
  if (nvalues == 0) return {fixed, fixed};
  const size_t values = (fixed + 15) / 16 * 16;  // ulong2 slots are 16-byte aligned
  return {values, values + 16 * static_cast<size_t>(nvalues)};
}
constexpr size_t kMaxPwHeadBytes = 64 + 16 * (kMaxPwOperands + kMaxPwParams);

// The strided kernels take their indexer by value; OpenCL 1.2 guarantees
// 1024 bytes of kernel arguments, so the dims an indexer holds shrink with
// its operand and value count (25, CUDA's limit, up to 3 tensors).
int max_dims(int ntensors, int nvalues) {
  const size_t others = pw_head_layout(ntensors, nvalues).size + sizeof(cl_mem) * ntensors + sizeof(int64_t);
  return std::min<int>(25, static_cast<int>((1024 - others) / sizeof(int64_t)) / (ntensors + 1));
}

struct Operand {
  c10::ScalarType dtype;
  bool cpu_scalar;  // passed by value (a wrapped number or CPU 0-dim tensor)
};

const char* param_type(char kind, c10::ScalarType compute) {
  switch (kind) {
    case 'T': return "T";
    case 'L': return "long";
    case 'F': return compute == c10::kDouble || compute == c10::kComplexDouble ? "double" : "float";
    default: TORCH_INTERNAL_ASSERT(false, "bad pointwise parameter kind ", kind);
  }
}

// Elements per work item of the contiguous kernel: on CPU devices a block of
// 16 (one 64-byte line of float32) in a constant-count loop the compiler
// unrolls and vectorises (bench/HISTORY.md: 1M add 23-25 GB/s with 8 elements
// in a loop bounded by n, 80-90 GB/s so); GPUs keep one element per item.
int pointwise_block(c10::DeviceIndex device) { return device_profile(device).pointwise_block; }

const char* input_name(int i) {
  static const char* names[] = {"a", "b", "c", "d", "e"};
  return names[i];
}

// Tensors a one-buffer kernel finds at its range's global offsets.
constexpr int kGlobalOffsetTensors = 3;

constexpr const char* kContiguousKernel = "pw";
constexpr const char* kStridedKernel = "pw_strided";

std::string generate(const PointwiseOp& op, c10::ScalarType compute, c10::ArrayRef<Operand> operands,
                     int noutputs, int contiguous_vec, bool one_buffer) {
  const ClType& ct = engine_type(compute);
  const bool is_float = c10::isFloatingType(compute), is_bool = compute == c10::kBool;
  const bool complex = is_complex_kernel_dtype(compute);
  bool fp64 = compute == c10::kDouble || compute == c10::kComplexDouble;
  for (const auto& o : operands) fp64 |= o.dtype == c10::kDouble || o.dtype == c10::kComplexDouble;
  std::string s;
  if (fp64) s += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  s += std::string("#define T ") + ct.compute + "\n";
  if (complex) s += std::string("#define R ") + ct.acc + "\n#define T_IS_COMPLEX 1\n";
  s += std::string("#define T_IS_FLOAT ") + (is_float ? "1" : "0") + "\n";
  s += std::string("#define T_IS_BOOL ") + (is_bool ? "1" : "0") + "\n";
  s += std::string("#define T_IS_INTEGRAL ") + (!is_float && !is_bool && !complex ? "1" : "0") + "\n";
  s += std::string("#define T_IS_SIGNED ") + (is_float || complex || c10::isSignedType(compute) ? "1" : "0") + "\n";
  s += kernel_source("common");
  if (complex) {
    s += kernel_source("complex_lib");
  } else {
    s += kernel_source("pointwise_lib");
    if (op.lib) s += kernel_source(op.lib);
  }
  int ntensors = 0, nvalues = static_cast<int>(std::strlen(op.params));
  for (size_t k = 0; k < operands.size(); ++k) {
    if (operands[k].cpu_scalar) {
      ++nvalues;
      continue;
    }
    const ClType& t = engine_type(operands[k].dtype);
    const std::string id = std::to_string(k);
    s += "#define ST" + id + " " + t.storage + "\n";
    if (static_cast<int>(k) < noutputs)
      s += "#define STORE" + id + "(p, i, v) " + t.store + "\n";
    else
      s += "#define LOAD" + id + "(p, i) " + t.load + "\n";
    ++ntensors;
  }
  // ROUND_OUT(v): v rounded to output 0's dtype and back (the CPU's Half /
  // BFloat16 arithmetic rounds an intermediate result there: trunc(a / b)).
  const c10::ScalarType out_dtype = operands[0].dtype;
  s += out_dtype == c10::kHalf       ? "#define ROUND_OUT(v) pw_round_half(v)\n"
       : out_dtype == c10::kBFloat16 ? "#define ROUND_OUT(v) bf16_to_float(float_to_bf16(v))\n"
                                     : "#define ROUND_OUT(v) (v)\n";
  const int dims = max_dims(ntensors, nvalues);
  s += "typedef struct { long ndim; long sizes[" + std::to_string(dims) + "]; long strides[" +
       std::to_string(ntensors) + "][" + std::to_string(dims) + "]; } PwIndexer;\n";
  s += "typedef struct { long n; ulong off[" + std::to_string(ntensors) + "];" +
       (nvalues ? " ulong2 v[" + std::to_string(nvalues) + "];" : std::string()) + " } PwHead;\n";
  // The buffer parameters of a body function, and its arguments from a
  // kernel with one buffer per tensor and from a kernel with one in all.
  // The one-buffer kernel finds its first three tensors at its range's global
  // offsets (launch_generated), the rest at their head offsets.
  std::string buffer_params, buffer_args, one_buffer_args;
  for (size_t k = 0, t = 0; k < operands.size(); ++k) {
    if (operands[k].cpu_scalar) continue;
    const std::string name = "buf" + std::to_string(k) + "_";
    buffer_params += ", __global char* " + name;
    buffer_args += ", " + name;
    one_buffer_args += t < kGlobalOffsetTensors ? ", mem_ + get_global_offset(" + std::to_string(t) + ")" : ", mem_";
    ++t;
  }
  // One program holds every kernel: a cold compile of an op's dtype
  // combination serves its contiguous and its strided launches.
  for (const bool strided : {false, true}) {
    const int vec = contiguous_vec;
    const std::string name = strided ? kStridedKernel : kContiguousKernel;
    const std::string indexer_param = strided ? ", PwIndexer ix_" : "";
    const std::string indexer_arg = strided ? ", ix_" : "";
    s += "void " + name + "_body(PwHead h_" + indexer_param + buffer_params + ") {\n  const long n_ = h_.n;\n";
    int slot = 0;
    for (size_t k = 0, t = 0; k < operands.size(); ++k) {
      const std::string id = std::to_string(k);
      if (operands[k].cpu_scalar)
        s += "  const T s" + id + "_ = *(const T*)&h_.v[" + std::to_string(slot++) + "];\n";
      else
        s += "  const ulong boff" + id + "_ = h_.off[" + std::to_string(t++) + "];\n";
    }
    for (size_t p = 0; op.params[p]; ++p) {
      const std::string type = param_type(op.params[p], compute);
      s += "  const " + type + " p" + std::to_string(p) + " = *(const " + type + "*)&h_.v[" + std::to_string(slot++) + "];\n";
    }
    // The per-element statements, over element index i_.
    std::string body = "  const long idx = i_;\n";
    // Element offsets of the tensor operands: the element index itself when
    // contiguous; when strided, the offsets of element r_ from the indexer
    // (`strided_offsets`), stepped along dim 0 inside a block (`strided_step`).
    std::string offsets_decl, strided_offsets, strided_step;
    {
      std::string zero, sum;
      int t = 0;
      for (size_t k = 0; k < operands.size(); ++k) {
        if (operands[k].cpu_scalar) continue;
        const std::string off = "off" + std::to_string(k) + "_", ts = std::to_string(t++);
        offsets_decl += "  long " + off + ";\n";
        zero += "    " + off + " = 0;\n";
        sum += "      " + off + " += q_ * ix_.strides[" + ts + "][d_];\n";
        strided_step += "      " + off + " += ix_.strides[" + ts + "][0];\n";
        if (!strided) body += "  const long " + off + " = i_;\n";
      }
      strided_offsets = "    i0_ = 0;\n" + zero + "    for (int d_ = 0; d_ < ix_.ndim; ++d_) {\n"
                        "      const long q_ = r_ % ix_.sizes[d_];\n      r_ /= ix_.sizes[d_];\n"
                        "      if (d_ == 0) i0_ = q_;\n" + sum + "    }\n";
    }
    for (size_t k = noutputs; k < operands.size(); ++k) {
      const std::string id = std::to_string(k);
      body += std::string("  const T ") + input_name(static_cast<int>(k) - noutputs) + " = ";
      const std::string load = "LOAD" + id + "(PTR(ST" + id + ", buf" + id + "_, boff" + id + "_), off" + id + "_)";
      if (operands[k].cpu_scalar) body += "s" + id + "_;\n";
      else if (!complex) body += "(T)(" + load + ");\n";
      else if (is_complex_kernel_dtype(operands[k].dtype)) body += std::string("convert_") + ct.compute + "(" + load + ");\n";
      else body += "(T)((R)(" + load + "), (R)0);\n";  // a real operand: imaginary part 0
    }
    const char* expr = complex ? op.complex_expr : (!is_float && op.int_expr) ? op.int_expr : op.expr;
    for (int k = 0; k < noutputs; ++k) {
      const std::string id = std::to_string(k);
      std::string value = std::string("(") + (k == 0 ? expr : op.expr2) + ")";
      // A result stored into an output of another dtype is first the
      // computation's dtype's value, as the CPU's scalar_t result is: float16
      // rounds (33000 + 33000 is inf), narrow integers wrap (uint8 5 - 8 is
      // 253, not -3 or 2045), even into a float64 out=.
      if (!complex && operands[k].dtype != compute && operands[k].dtype != c10::kBool) {
        if (compute == c10::kHalf) value = "pw_round_half" + value;
        else if (compute == c10::kBFloat16) value = "bf16_to_float(float_to_bf16" + value + ")";
        else if (c10::isIntegralType(compute, /*includeBool=*/false) && c10::elementSize(compute) < 8)
          value = "((T)" + value + ")";
      }
      if ((!complex || op.truth_value) && is_complex_kernel_dtype(operands[k].dtype)) {  // a real result into a complex output: imaginary part 0
        const ClType& ot = engine_type(operands[k].dtype);
        value = std::string("((") + ot.compute + ")((" + ot.acc + ")" + value + ", (" + ot.acc + ")0))";
      }
      body += "  STORE" + id + "(PTR(ST" + id + ", buf" + id + "_, boff" + id + "_), off" + id + "_, " + value + ");\n";
    }
    if (strided) {
      // A block of `vec` consecutive elements per work item: the indexer's
      // divisions once per block (and where dim 0 wraps), a stride add per
      // element along dim 0 (a channel-broadcast multiply of 2M float32 took
      // ~58 ms on PoCL with a division and modulo per element and dim).
      const std::string v = std::to_string(vec);
      s += "  const long b_ = (get_global_id(0) - get_global_offset(0)) * " + v + ";\n  if (b_ >= n_) return;\n";
      s += "  const long e_ = min(b_ + " + v + ", n_);\n  long i0_;\n" + offsets_decl;
      s += "  {\n    long r_ = b_;\n" + strided_offsets + "  }\n";
      s += "  for (long i_ = b_; i_ < e_; ++i_) {\n" + body;
      s += "    if (ix_.ndim > 0 && ++i0_ < ix_.sizes[0]) {\n" + strided_step + "    } else if (i_ + 1 < e_) {\n";
      s += "      long r_ = i_ + 1;\n" + strided_offsets + "    }\n  }\n";
    } else if (vec == 1) {
      s += "  const long i_ = get_global_id(0) - get_global_offset(0);\n  if (i_ >= n_) return;\n" + body;
    } else {
      // Whole blocks loop a constant count (unrolled and vectorised by the
      // compiler: consecutive loads and stores); the last block's tail does not.
      const std::string v = std::to_string(vec);
      s += "  const long b_ = (get_global_id(0) - get_global_offset(0)) * " + v + ";\n  if (b_ + " + v + " <= n_) {\n";
      s += "  for (int j_ = 0; j_ < " + v + "; ++j_) {\n  const long i_ = b_ + j_;\n" + body + "  }\n";
      s += "  } else {\n  for (long i_ = b_; i_ < n_; ++i_) {\n" + body + "  }\n  }\n";
    }
    s += "}\n";
    s += "__kernel void " + name + "(PwHead h_" + indexer_param + buffer_params + ") { " + name + "_body(h_" +
         indexer_arg + buffer_args + "); }\n";
    if (one_buffer)
      s += "__kernel void " + name + "_1(PwHead h_" + indexer_param + ", __global char* mem_) { " + name +
           "_body(h_" + indexer_arg + one_buffer_args + "); }\n";
  }
  return s;
}

// The kernel's value of parameter kind `kind`, written to a PwHead slot.
void write_param(char kind, const c10::Scalar& v, c10::ScalarType compute, unsigned char* slot) {
  switch (kind) {
    case 'T':
      // As the CPU kernels' value.to<scalar_t>(): a scalar parameter must
      // fit the op's dtype (uint8 threshold -2 or float16 alpha 1e5 raise).
      if (compute != c10::kUInt16 && compute != c10::kUInt32 && compute != c10::kUInt64)
        AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND4(c10::kHalf, c10::kBFloat16, c10::kBool, c10::kComplexHalf, compute,
                                               "pointwise parameter", [&] { (void)v.to<scalar_t>(); });
      kernel_scalar_bytes(v, compute, slot);
      break;
    case 'L': {
      const cl_long l = v.toLong();
      std::memcpy(slot, &l, sizeof(l));
      break;
    }
    case 'F':
      if (compute == c10::kDouble || compute == c10::kComplexDouble) {
        const cl_double d = v.toDouble();
        std::memcpy(slot, &d, sizeof(d));
      } else {
        const cl_float f = static_cast<float>(v.toDouble());
        std::memcpy(slot, &f, sizeof(f));
      }
      break;
  }
}

// The value of a CPU scalar operand, in the compute type's math type.
c10::Scalar cpu_scalar_value(at::TensorIteratorBase& iter, int arg, c10::ScalarType compute) {
  c10::Scalar v;
  AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND4(c10::kHalf, c10::kBFloat16, c10::kBool, c10::kComplexHalf, compute, "pointwise scalar", [&] {
    using opmath_t = at::opmath_type<scalar_t>;
    v = c10::Scalar(iter.original_scalar_value<opmath_t>(arg));
  });
  return v;
}
// The same for a CPU 0-dim tensor of dtype `from` at `data` (the direct path:
// what original_scalar_value reads).
c10::Scalar cpu_scalar_value(c10::ScalarType from, const void* data, c10::ScalarType compute) {
  c10::Scalar v;
  AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND4(c10::kHalf, c10::kBFloat16, c10::kBool, c10::kComplexHalf, compute, "pointwise scalar", [&] {
    using opmath_t = at::opmath_type<scalar_t>;
    v = c10::Scalar(c10::fetch_and_cast<opmath_t>(from, data));
  });
  return v;
}

}  // namespace

void check_op_dtype(const PointwiseOp& op, c10::ScalarType dtype) {
  if (c10::isComplexType(dtype)) {
    TORCH_CHECK_NOT_IMPLEMENTED(op.complex_expr != nullptr && is_complex_kernel_dtype(dtype), "\"", op.name,
                                "\" not implemented for '", c10::toString(dtype), "'");
    return;
  }
  const uint8_t cls = c10::isReducedFloatingType(dtype) ? kReducedFloating
                      : c10::isFloatingType(dtype)      ? kFloat32And64
                      : dtype == c10::kBool             ? kBoolean
                                                        : kIntegral;
  TORCH_CHECK_NOT_IMPLEMENTED((op.dtypes & cls) != 0, "\"", op.name, "\" not implemented for '",
                              c10::toString(dtype), "'");
}

namespace {

// One launch of op's generated kernel over n elements. operands: outputs
// first; data: each tensor operand's device pointer; cpu_values: each CPU
// scalar operand's value (cpu_scalar_value). `strided`: iter's shape and
// strides (nullptr when contiguous).
void launch_generated(const PointwiseOp& op, c10::DeviceIndex device, c10::ScalarType compute,
                      c10::ArrayRef<Operand> operands, int noutputs, c10::ArrayRef<const void*> data,
                      c10::ArrayRef<c10::Scalar> cpu_values, int64_t n, const at::TensorIteratorBase* strided,
                      c10::ArrayRef<c10::Scalar> params) {
  const int nops = static_cast<int>(operands.size());
  TORCH_INTERNAL_ASSERT(params.size() <= kMaxPwParams, "pointwise op ", op.name, ": too many parameters");
  int ntensors = 0, nvalues = static_cast<int>(params.size());
  uint64_t lo = static_cast<uint64_t>(compute);
  std::array<cl_mem, kMaxPwOperands> buffers{};
  std::array<uint64_t, kMaxPwOperands> offsets{};
  alignas(16) std::array<unsigned char, kMaxPwHeadBytes> head{};
  const int64_t count = n;
  std::memcpy(head.data(), &count, sizeof(count));
  bool one_buffer = one_buffer_variants(device);
  for (int k = 0; k < nops; ++k) {
    lo |= static_cast<uint64_t>(static_cast<int>(operands[k].dtype) | (operands[k].cpu_scalar << 6)) << (7 + 7 * k);
    if (operands[k].cpu_scalar) {
      ++nvalues;
      continue;
    }
    const DeviceBuffer b = resolve_device_ptr(data[k]);
    offsets[ntensors] = b.offset;
    buffers[ntensors] = b.buffer;
    one_buffer &= b.buffer == buffers[0];
    ++ntensors;
  }
  one_buffer &= ntensors > 1;
  // A one-buffer launch passes its first tensors' offsets as the range's
  // global offsets: its head then stays the same from launch to launch.
  std::array<size_t, 3> global_offsets{};
  for (int t = 0; t < ntensors; ++t) {
    uint64_t offset = offsets[t];
    if (one_buffer && t < kGlobalOffsetTensors) {
      global_offsets[t] = static_cast<size_t>(offset);
      offset = 0;
    }
    std::memcpy(head.data() + sizeof(int64_t) * (1 + t), &offset, sizeof(offset));
  }
  lo |= static_cast<uint64_t>(one_buffer) << 62;
  lo |= static_cast<uint64_t>(strided != nullptr) << 63;
  const PwHeadLayout layout = pw_head_layout(ntensors, nvalues);
  unsigned char* slot = head.data() + layout.values;
  for (int k = 0; k < nops; ++k)
    if (operands[k].cpu_scalar) {
      kernel_scalar_bytes(cpu_values[k], compute, slot);
      slot += 16;
    }
  for (size_t p = 0; p < params.size(); ++p, slot += 16) write_param(op.params[p], params[p], compute, slot);

  const int dims = max_dims(ntensors, nvalues);
  const int vec = pointwise_block(device);
  if (strided)
    TORCH_CHECK(strided->ndim() <= dims, "torch_ocl: ", op.name, " handles at most ", dims,
                " non-coalescable dims with ", ntensors, " tensors, got ", strided->ndim());
  CachedKernel& kernel = cached_kernel(
      device, {reinterpret_cast<uint64_t>(&op), lo}, [&] {
        GeneratedKernel g{std::string("pw_") + op.name,
                          generate(op, compute, operands, noutputs, pointwise_block(device),
                                   one_buffer_variants(device)),
                          std::string(strided ? kStridedKernel : kContiguousKernel) + (one_buffer ? "_1" : "")};
        if (std::getenv("TORCH_OCL_DUMP_KERNELS")) fprintf(stderr, "%s\n", g.source.c_str());
        return g;
      });
  Launch launch(device, kernel);
  launch.raw(layout.size, head.data());
  if (strided) {
    std::array<int64_t, 1 + 25 + kMaxPwOperands * 25> ix{};
    ix[0] = strided->ndim();
    for (int d = 0; d < strided->ndim(); ++d) ix[1 + d] = strided->shape()[d];
    int t = 0;
    for (int k = 0; k < nops; ++k) {
      if (operands[k].cpu_scalar) continue;
      for (int d = 0; d < strided->ndim(); ++d)
        ix[1 + dims + t * dims + d] = strided->strides(k)[d] / static_cast<int64_t>(strided->element_size(k));
      ++t;
    }
    launch.raw(sizeof(int64_t) * (1 + dims + ntensors * dims), ix.data());
  }
  for (int t = 0; t < (one_buffer ? 1 : ntensors); ++t) launch.raw(sizeof(cl_mem), &buffers[t]);
  if (one_buffer) count_one_buffer_launch();
  launch.run_items(static_cast<size_t>((n + vec - 1) / vec), one_buffer ? &global_offsets : nullptr);
}

thread_local size_t tls_direct_launches = 0;
std::atomic<bool> direct_enabled{[] {
  const char* e = std::getenv("TORCH_OCL_DIRECT_POINTWISE");
  return !(e && std::string(e) == "0");
}()};

}  // namespace

// A complex Scalar for a real kernel raises as the CPU's scalar.to<T>() does
// ("value cannot be converted to type double without overflow"), before any
// early return for empty tensors (the CPU converts first).
void check_real_params(c10::ArrayRef<c10::Scalar> params, c10::ScalarType compute) {
  if (c10::isComplexType(compute)) return;
  for (const c10::Scalar& p : params)
    if (p.isComplex()) {
      if (compute == c10::kDouble) (void)p.to<double>();
      else (void)p.to<float>();
    }
}

void run_pointwise(at::TensorIteratorBase& iter, const PointwiseOp& op,
                   std::initializer_list<c10::Scalar> params,
                   std::optional<c10::ScalarType> compute_opt) {
  const int noutputs = op.expr2 ? 2 : 1;
  TORCH_INTERNAL_ASSERT(noutputs + op.ninputs <= kMaxPwOperands, "pointwise op ", op.name, ": too many operands");
  TORCH_INTERNAL_ASSERT(iter.noutputs() == noutputs && iter.ninputs() == op.ninputs,
                        "pointwise op ", op.name, ": iterator has ", iter.noutputs(), " outputs and ",
                        iter.ninputs(), " inputs");
  TORCH_INTERNAL_ASSERT(params.size() == std::strlen(op.params), "pointwise op ", op.name,
                        ": wrong number of parameters");
  const c10::ScalarType compute =
      compute_opt ? *compute_opt
      : op.compute_operand >= 0 ? iter.dtype(op.compute_operand)
                                : iter.maybe_common_dtype().value_or(iter.dtype(noutputs));
  check_op_dtype(op, compute);
  check_real_params(c10::ArrayRef<c10::Scalar>(params.begin(), params.size()), compute);
  if (iter.numel() == 0) return;
  const auto device = iter.device().index();
  check_storable(compute, device);

  const int nops = iter.ntensors();
  c10::SmallVector<Operand, kMaxPwOperands> operands(nops);  // no heap allocation per launch
  std::array<const void*, kMaxPwOperands> data{};
  std::array<c10::Scalar, kMaxPwOperands> cpu_values;
  bool contiguous = iter.ndim() <= 1;
  for (int k = 0; k < nops; ++k) {
    operands[k] = {iter.dtype(k), k >= noutputs && iter.is_cpu_scalar(k)};
    if (operands[k].cpu_scalar) {
      cpu_values[k] = cpu_scalar_value(iter, k, compute);
    } else {
      check_storable(operands[k].dtype, device);
      // Complex inputs need a complex computation; a complex output takes a real result (as CUDA's casting stores:
      // var(complex, out=complex) adds two real variances into it).
      TORCH_CHECK_NOT_IMPLEMENTED(k < noutputs || !is_complex_kernel_dtype(operands[k].dtype) || is_complex_kernel_dtype(compute), "\"", op.name,
                                  "\" not implemented for '", c10::toString(operands[k].dtype), "' operands of a ",
                                  c10::toString(compute), " computation");
      if (iter.ndim() == 1) contiguous &= iter.strides(k)[0] == static_cast<int64_t>(iter.element_size(k));
      data[k] = iter.data_ptr(k);  // the data pointer, not the tensor: metas may build iterators over temporaries
    }
  }
  launch_generated(op, device, compute, operands, noutputs, c10::ArrayRef<const void*>(data.data(), nops),
                   c10::ArrayRef<c10::Scalar>(cpu_values.data(), nops), iter.numel(), contiguous ? nullptr : &iter,
                   params);
}

bool run_pointwise_direct(const DirectPointwise& d, bool inplace, c10::ArrayRef<const at::Tensor*> inputs,
                          c10::ArrayRef<c10::Scalar> params, at::Tensor& result) {
  if (!direct_enabled.load(std::memory_order_relaxed)) return false;
  const PointwiseOp& op = *d.op;
  TORCH_INTERNAL_ASSERT(!op.expr2 && static_cast<int>(inputs.size()) == op.ninputs &&
                            params.size() == std::strlen(op.params),
                        "pointwise op ", op.name, ": its direct path takes ", op.ninputs, " inputs and ",
                        std::strlen(op.params), " parameters");
  const at::Tensor& first = *inputs[0];
  if (!first.defined() || !first.is_privateuseone()) return false;
  const c10::ScalarType dtype = first.scalar_type();
  const uint8_t cls = dtype == c10::kFloat || dtype == c10::kDouble         ? kFloat32And64
                      : dtype == c10::kHalf || dtype == c10::kBFloat16 ? kReducedFloating
                                                                        : 0;
  if ((op.dtypes & cls) == 0) return false;
  const c10::Device device = first.device();
  const c10::IntArrayRef sizes = first.sizes();
  std::array<Operand, kMaxPwOperands> operands;
  std::array<const void*, kMaxPwOperands> data{};
  std::array<c10::Scalar, kMaxPwOperands> cpu_values;
  operands[0] = {dtype, false};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const at::Tensor& t = *inputs[i];
    if (!t.defined()) return false;
    // (Subtraction of a bool scalar takes the structured path, whose meta
    // raises "Subtraction, the `-` operator, with a bool tensor"; sub is the
    // negated add.)
    if (i > 0 && op.ninputs == 2 && t.dim() == 0 && t.is_cpu() && !c10::isComplexType(t.scalar_type()) &&
        !(d.negate_params && t.scalar_type() == c10::kBool)) {
      // A CPU scalar (a Python number, a 0-dim CPU tensor) as the second
      // operand of a binary op (their metas take CPU scalars): the kernel
      // takes it by value, and a real scalar keeps a floating tensor's dtype.
      operands[1 + i] = {t.scalar_type(), true};
      cpu_values[1 + i] = cpu_scalar_value(t.scalar_type(), t.const_data_ptr(), dtype);
      continue;
    }
    if (t.scalar_type() != dtype || t.device() != device || t.sizes() != sizes || !t.is_contiguous() ||
        t.is_neg() || t.is_conj())
      return false;
    operands[1 + i] = {dtype, false};
  }
  // Complex and bool parameters meet ATen's checks or conversions, NaN ones
  // its special cases (clamp_min(x, nan) fills): the structured path's work.
  for (const c10::Scalar& p : params)
    if (p.isComplex() || p.isBoolean() || (p.isFloatingPoint() && std::isnan(p.toDouble()))) return false;
  check_storable(dtype, device.index());
  if (inplace) {
    for (size_t i = 1; i < inputs.size(); ++i)
      if (!operands[1 + i].cpu_scalar && at::get_overlap_status(first, *inputs[i]) == at::MemOverlapStatus::Partial)
        return false;
    result = first;
  } else {
    // TensorIterator's outputs: contiguous when every operand has the same
    // shape (its fast setup), the input's strides when a CPU scalar takes
    // part (they differ only at size-1 dims, e.g. an (N, C, 1, 1) channels_last).
    bool cpu_scalar = false;
    for (size_t i = 0; i < inputs.size(); ++i) cpu_scalar |= operands[1 + i].cpu_scalar;
    result = cpu_scalar ? empty_like_contiguous_input(first) : empty_contiguous_like(first);
  }
  data[0] = result.data_ptr();
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!operands[1 + i].cpu_scalar) data[1 + i] = inputs[i]->const_data_ptr();
  std::array<c10::Scalar, 4> values;
  TORCH_INTERNAL_ASSERT(params.size() <= values.size());
  for (size_t p = 0; p < params.size(); ++p) values[p] = d.negate_params ? -params[p] : params[p];
  const size_t nops = 1 + inputs.size();
  ++tls_direct_launches;
  check_real_params(params, dtype);
  if (first.numel() == 0) return true;
  launch_generated(op, device.index(), dtype, c10::ArrayRef<Operand>(operands.data(), nops), 1,
                   c10::ArrayRef<const void*>(data.data(), nops), c10::ArrayRef<c10::Scalar>(cpu_values.data(), nops),
                   first.numel(), nullptr, c10::ArrayRef<c10::Scalar>(values.data(), params.size()));
  return true;
}

size_t direct_pointwise_launches() { return tls_direct_launches; }

void set_direct_pointwise(bool enabled) { direct_enabled.store(enabled); }
bool direct_pointwise_enabled() { return direct_enabled.load(); }

}  // namespace torch_ocl
