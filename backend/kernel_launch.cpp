#include "backend/fault_injection.h"
#include "backend/kernel_launch.h"

#include <ATen/TensorIterator.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>

#include "backend/cl_objects.h"
#include "backend/device_profile.h"
#include "backend/device_ptr.h"
#include "backend/program_cache.h"
#include "backend/runtime.h"

namespace torch_ocl {
namespace {

using TypeInfo = ClType;

TypeInfo make_type_info(c10::ScalarType t) {
  constexpr const char* plain_load = "((p)[i])";
  switch (t) {
    // Any nonzero byte reads as true (a bool viewed from uint8 may hold 2..255):
    // as ATen's CPU and CUDA loads do (gh-54789).
    case c10::kBool: return {"uchar", "uchar", "long", "((uchar)((p)[i] != 0))", "((p)[i] = (uchar)((v) != 0))", false};
    case c10::kByte: return {"uchar", "uchar", "long", plain_load, "((p)[i] = (uchar)(v))", false};
    case c10::kChar: return {"char", "char", "long", plain_load, "((p)[i] = (char)(v))", false};
    case c10::kShort: return {"short", "short", "long", plain_load, "((p)[i] = (short)(v))", false};
    case c10::kInt: return {"int", "int", "long", plain_load, "((p)[i] = (int)(v))", false};
    case c10::kLong: return {"long", "long", "long", plain_load, "((p)[i] = (long)(v))", false};
    case c10::kUInt16: return {"ushort", "ushort", "long", plain_load, "((p)[i] = (ushort)(v))", false};
    case c10::kUInt32: return {"uint", "uint", "long", plain_load, "((p)[i] = (uint)(v))", false};
    case c10::kUInt64: return {"ulong", "ulong", "ulong", plain_load, "((p)[i] = (ulong)(v))", false};
    case c10::kHalf: return {"half", "float", "float", "vload_half((i), (p))", "vstore_half((float)(v), (i), (p))", true};
    case c10::kBFloat16: return {"ushort", "float", "float", "bf16_to_float((p)[i])", "((p)[i] = float_to_bf16((float)(v)))", true};
    case c10::kFloat: return {"float", "float", "float", plain_load, "((p)[i] = (float)(v))", true};
    case c10::kDouble: return {"double", "double", "double", plain_load, "((p)[i] = (double)(v))", true};
    default:
      TORCH_CHECK(false, "torch_ocl: dtype ", t, " is not supported on the ocl device");
  }
}

const ClType& type_info(c10::ScalarType t) {
  static const auto table = [] {
    std::array<std::optional<ClType>, static_cast<size_t>(c10::ScalarType::NumOptions)> a;
    for (size_t i = 0; i < a.size(); ++i) {
      const auto st = static_cast<c10::ScalarType>(i);
      if (has_kernels(st)) a[i] = make_type_info(st);
    }
    return a;
  }();
  const auto i = static_cast<size_t>(t);
  TORCH_CHECK(i < table.size() && table[i], "torch_ocl: dtype ", t, " is not supported on the ocl device");
  return *table[i];
}

struct KernelKeyHash {
  size_t operator()(const KernelKey& k) const { return k.hi * 0x9E3779B97F4A7C15ull ^ k.lo; }
};
using DeviceKernelKey = std::pair<c10::DeviceIndex, KernelKey>;
struct DeviceKernelKeyHash {
  size_t operator()(const DeviceKernelKey& k) const {
    return KernelKeyHash{}(k.second) * 31 + static_cast<size_t>(k.first);
  }
};
struct KernelTable {
  std::mutex mutex;
  std::unordered_map<DeviceKernelKey, std::unique_ptr<CachedKernel>, DeviceKernelKeyHash> kernels;
  KernelCacheStats stats;  // shared_hits, builds
};
KernelTable& kernel_table() {
  static auto* t = new KernelTable();  // leaked: kernels outlive static tensors
  return *t;
}
thread_local std::unordered_map<DeviceKernelKey, CachedKernel*, DeviceKernelKeyHash> tls_kernels;
thread_local size_t tls_hits = 0;
thread_local size_t tls_args_set = 0;

std::unique_ptr<CachedKernel> create_kernel(c10::DeviceIndex device, cl_program program,
                                            const std::string& name, const std::string& label) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = track_kernel(clCreateKernel(program, name.c_str(), &err));
  TORCH_CHECK(err == CL_SUCCESS, "OpenCL call clCreateKernel(", name, ") for source '", label,
              "' failed: ", cl_error_name(err), " (", err, ")");
  auto ck = std::make_unique<CachedKernel>();
  ck->kernel = k;  // released by ~CachedKernel, also if the next call raises
  ck->name = name;
  OCL_CHECK(clGetKernelWorkGroupInfo(k, device_info(device).id, CL_KERNEL_WORK_GROUP_SIZE,
                                     sizeof(size_t), &ck->work_group_size, nullptr));
  return ck;
}

}  // namespace

const ClType& cl_type(c10::ScalarType dtype) { return type_info(dtype); }

bool is_complex_kernel_dtype(c10::ScalarType dtype) {
  return dtype == c10::kComplexFloat || dtype == c10::kComplexDouble || dtype == c10::kComplexHalf;
}

const ClType& engine_type(c10::ScalarType dtype) {
  static const ClType c64{"float", "float2", "float", "vload2((i), (p))", "vstore2(convert_float2(v), (i), (p))", true};
  static const ClType c128{"double", "double2", "double", "vload2((i), (p))", "vstore2(convert_double2(v), (i), (p))", true};
  static const ClType c32{"half", "float2", "float", "vload_half2((i), (p))", "vstore_half2(convert_float2(v), (i), (p))", true};
  if (dtype == c10::kComplexFloat) return c64;
  if (dtype == c10::kComplexHalf) return c32;
  if (dtype == c10::kComplexDouble) return c128;
  return cl_type(dtype);
}

namespace {

// The kernel for (device, key): this thread's table, else the shared one,
// else `build` (run outside the table's lock: a cold compile of one op does
// not stall launches of others; two threads may build the same kernel once
// each, the first one stored wins).
CachedKernel& lookup_or_build(c10::DeviceIndex device, KernelKey key,
                              c10::function_ref<std::unique_ptr<CachedKernel>()> build) {
  const DeviceKernelKey k{device, key};
  if (auto it = tls_kernels.find(k); it != tls_kernels.end()) {
    ++tls_hits;
    return *it->second;
  }
  auto& t = kernel_table();
  CachedKernel* found = nullptr;
  {
    std::lock_guard<std::mutex> g(t.mutex);
    if (auto it = t.kernels.find(k); it != t.kernels.end()) {
      ++t.stats.shared_hits;
      found = it->second.get();
    }
  }
  if (found == nullptr) {
    std::unique_ptr<CachedKernel> ck = build();
    std::lock_guard<std::mutex> lock(t.mutex);
    auto& slot = t.kernels[k];
    if (!slot) {
      slot = std::move(ck);  // the kernel holds its program: both live as long as the table
      ++t.stats.builds;
    } else {
      release_kernel(ck->kernel);  // another thread's build was stored first
    }
    found = slot.get();
  }
  tls_kernels.emplace(k, found);
  return *found;
}

// FNV-1a over a C string, continuing from `h`.
uint64_t name_hash(const char* s, uint64_t h = 1469598103934665603ull) {
  for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull;
  return h;
}

}  // namespace

CachedKernel& cached_kernel(c10::DeviceIndex device, KernelKey key,
                            c10::function_ref<GeneratedKernel()> make) {
  return lookup_or_build(device, key, [&] {
    GeneratedKernel g = make();
    cl_program program = build_program(device, g.label, g.source);
    std::unique_ptr<CachedKernel> ck;
    try {
      ck = create_kernel(device, program, g.kernel, g.label);
    } catch (...) {
      release_program(program);
      throw;
    }
    release_program(program);  // the kernel holds it
    return ck;
  });
}

CachedKernel& dtype_kernel(c10::DeviceIndex device, const char* source, const char* kernel, c10::ScalarType dtype) {
  return source_kernel(device, source, kernel, static_cast<uint64_t>(dtype), [&] { return dtype_preamble(dtype); });
}

CachedKernel& bits_kernel(c10::DeviceIndex device, const char* source, const char* kernel, c10::ScalarType dtype) {
  // 0xb1 keeps the keys apart from dtype_kernel's (a ScalarType's value)
  return source_kernel(device, source, kernel, kernel_variant({0xb1, static_cast<int>(c10::elementSize(dtype))}),
                       [&] { return bits_preamble(dtype); });
}

CachedKernel& source_kernel(c10::DeviceIndex device, const char* source, const char* kernel, uint64_t variant,
                            c10::function_ref<std::string()> preamble) {
  // The top bit keeps these keys apart from the engines' (an op descriptor's address).
  const KernelKey key{name_hash(kernel, name_hash(source)) | (1ull << 63), variant};
  return lookup_or_build(device, key, [&] {
    // The program cache owns the program (shared by the source's kernels).
    return create_kernel(device, get_program(device, source, preamble()), kernel, source);
  });
}

KernelCacheStats kernel_cache_stats() {
  auto& t = kernel_table();
  std::lock_guard<std::mutex> g(t.mutex);
  KernelCacheStats s = t.stats;
  s.thread_hits = tls_hits;
  s.args_set = tls_args_set;
  return s;
}

std::string dtype_preamble(c10::ScalarType dtype, const std::string& prefix) {
  const TypeInfo& ti = type_info(dtype);
  std::string s;
  auto def = [&](const std::string& name, const std::string& value) {
    s += "#define " + prefix + name + " " + value + "\n";
  };
  def("ST", ti.storage);
  def("CT", ti.compute);
  def("ACC", ti.acc);
  def("LOAD(p, i)", ti.load);
  def("STORE(p, i, v)", ti.store);
  if (ti.is_float) def("IS_FLOAT", "1");
  if (dtype == c10::kDouble) s = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + s;
  return s;
}

bool has_kernels(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kBool: case c10::kByte: case c10::kChar: case c10::kShort: case c10::kInt:
    case c10::kLong: case c10::kUInt16: case c10::kUInt32: case c10::kUInt64: case c10::kHalf:
    case c10::kBFloat16: case c10::kFloat: case c10::kDouble:
      return true;
    default:
      return false;
  }
}

void check_dtype_supported(c10::ScalarType dtype, c10::DeviceIndex device) {
  (void)type_info(dtype);  // raises for complex, quantized, float8, ...
  if (dtype == c10::kDouble) {
    const auto& d = device_info(device);
    TORCH_CHECK_TYPE(d.fp64, "torch_ocl: ocl:", static_cast<int>(device), " (", d.name,
                     ") does not support float64 (no cl_khr_fp64); use float32");
  }
}

void check_storable(c10::ScalarType dtype, c10::DeviceIndex device) {
  if (c10::isFloat8Type(dtype)) return;  // bytes only, as CUDA stores them (copies, views; compute falls back)
  if (c10::isComplexType(dtype))
    check_dtype_supported(c10::toRealValueType(dtype), device);
  else
    check_dtype_supported(dtype, device);
}

c10::ScalarType bits_dtype(c10::ScalarType dtype) {
  switch (c10::elementSize(dtype)) {
    case 1: return c10::kByte;
    case 2: return c10::kUInt16;
    case 4: return c10::kUInt32;
    case 8: return c10::kUInt64;
    default: TORCH_CHECK(false, "torch_ocl: no bit copy for dtype ", dtype);
  }
}

bool has_data_kernels(c10::ScalarType dtype) {
  return has_kernels(dtype) || is_complex_kernel_dtype(dtype);
}

std::string bits_preamble(c10::ScalarType dtype, const std::string& prefix) {
  TORCH_CHECK(has_data_kernels(dtype), "torch_ocl: dtype ", dtype, " is not supported on the ocl device");
  if (c10::elementSize(dtype) != 16) return dtype_preamble(bits_dtype(dtype), prefix);
  // complex128: one 16-byte word (PyTorch keeps complex128 16-byte aligned).
  std::string s;
  for (const char* def : {"ST ulong2", "CT ulong2", "ACC ulong2", "LOAD(p, i) ((p)[i])", "STORE(p, i, v) ((p)[i] = (ulong2)(v))"})
    s += "#define " + prefix + def + "\n";
  return s;
}

Indexer make_indexer(const at::TensorIteratorBase& iter) {
  TORCH_INTERNAL_ASSERT(iter.ntensors() <= kMaxOperands);
  Indexer ix;
  bool contiguous = iter.ndim() <= 1;
  for (int k = 0; k < iter.ntensors() && contiguous; ++k) {
    if (iter.ndim() == 1 && !(k >= iter.noutputs() && iter.is_cpu_scalar(k)))
      contiguous = iter.strides(k)[0] == static_cast<int64_t>(iter.element_size(k));
  }
  if (contiguous) return ix;
  TORCH_CHECK(iter.ndim() <= kMaxDims, "torch_ocl: elementwise kernels handle at most ", kMaxDims,
              " non-coalescable dims, got ", iter.ndim());
  ix.ndim = iter.ndim();
  for (int d = 0; d < iter.ndim(); ++d) {
    ix.sizes[d] = iter.shape()[d];
    for (int k = 0; k < iter.ntensors(); ++k)
      ix.strides[k][d] = iter.strides(k)[d] / static_cast<int64_t>(iter.element_size(k));
  }
  return ix;
}

Launch::Launch(c10::DeviceIndex device, CachedKernel& kernel)
    : device_(device), cached_(&kernel), kernel_(kernel.kernel), lock_(kernel.mutex),
      name_(kernel.name.c_str()) {
  check_args_epoch();
}

namespace {
std::atomic<uint64_t> mem_epoch{1};
}  // namespace

void forget_kernel_args() { mem_epoch.fetch_add(1, std::memory_order_acq_rel); }

void Launch::check_args_epoch() {
  const uint64_t epoch = mem_epoch.load(std::memory_order_acquire);
  if (cached_->args_epoch == epoch) return;
  for (auto& a : cached_->args) a.size = 0;
  cached_->args_epoch = epoch;
}

Launch& Launch::raw(size_t size, const void* ptr) {
  KernelArgValue* memo = next_ < cached_->args.size() ? &cached_->args[next_] : nullptr;
  if (memo && ptr && memo->size == size && std::memcmp(memo->bytes, ptr, size) == 0) {
    ++next_;
    return *this;
  }
  if (memo) memo->size = 0;
  ++tls_args_set;
  cl_int err = clSetKernelArg(kernel_, next_, size, ptr);
  TORCH_CHECK(err == CL_SUCCESS, "OpenCL call clSetKernelArg(", name_, ", ", next_, ") failed: ",
              cl_error_name(err), " (", err, ")");
  if (memo && ptr && size <= sizeof(memo->bytes)) {
    std::memcpy(memo->bytes, ptr, size);
    memo->size = static_cast<uint32_t>(size);
  }
  ++next_;
  return *this;
}

Launch& Launch::tensor(const at::TensorBase& t) { return tensor_argument(t, true); }
Launch& Launch::input(const at::TensorBase& t) { return tensor_argument(t, false); }

Launch& Launch::tensor_argument(const at::TensorBase& t, bool written) {
  if (!t.defined() || t.const_data_ptr() == nullptr) return null_tensor();
  // The last line of defence: ops check devices before they launch (ATen's
  // checks, TensorIterator, check_same_device), with CUDA's message; so is this.
  TORCH_CHECK(t.device().type() == c10::DeviceType::PrivateUse1 && t.device().index() == device_,
              "Expected all tensors to be on the same device, but found at least two devices, ocl:",
              static_cast<int>(device_), " and ", t.device(), "! (kernel ", name_, ")");
  if (t.has_storage()) held_.push_back(t.storage());
  return device_pointer(written ? t.mutable_data_ptr() : t.const_data_ptr());
}

Launch& Launch::device_pointer(const void* data) {
  const DeviceBuffer b = resolve_device_ptr(data);
  const cl_ulong offset = b.offset;
  raw(sizeof(cl_mem), &b.buffer);
  return raw(sizeof(cl_ulong), &offset);
}

Launch& Launch::null_tensor() {
  const cl_ulong zero = 0;
  raw(sizeof(cl_mem), nullptr);
  return raw(sizeof(cl_ulong), &zero);
}

namespace {
// Scalars convert like the CPU kernels' static_casts: out-of-range values wrap
// instead of raising (uint8 < 300 is legal).
template <class T>
T unchecked(const c10::Scalar& s) {
  if (s.isFloatingPoint()) return static_cast<T>(s.toDouble());
  if (s.isBoolean()) return static_cast<T>(s.toBool());
  return static_cast<T>(s.toLong());
}
}  // namespace

size_t kernel_scalar_bytes(const c10::Scalar& s, c10::ScalarType compute_dtype, void* out) {
  const auto put = [out](const auto& v) {
    std::memcpy(out, &v, sizeof(v));
    return sizeof(v);
  };
  switch (compute_dtype) {
    case c10::kBool: return put(cl_uchar{s.toBool() ? cl_uchar{1} : cl_uchar{0}});
    case c10::kByte: return put(cl_uchar{unchecked<uint8_t>(s)});
    case c10::kChar: return put(cl_char{unchecked<int8_t>(s)});
    case c10::kShort: return put(cl_short{unchecked<int16_t>(s)});
    case c10::kUInt16: return put(cl_ushort{unchecked<uint16_t>(s)});
    case c10::kInt: return put(cl_int{unchecked<int32_t>(s)});
    case c10::kUInt32: return put(cl_uint{unchecked<uint32_t>(s)});
    case c10::kLong: return put(cl_long{unchecked<int64_t>(s)});
    case c10::kUInt64: return put(cl_ulong{unchecked<uint64_t>(s)});
    case c10::kHalf:
    case c10::kBFloat16:
    case c10::kFloat: return put(cl_float{unchecked<float>(s)});
    case c10::kDouble: return put(cl_double{unchecked<double>(s)});
    case c10::kComplexHalf:  // computed as complex64 (engine_type)
    case c10::kComplexFloat: {  // float2 (re, im)
      const auto z = s.toComplexFloat();
      return put(cl_float2{{z.real(), z.imag()}});
    }
    case c10::kComplexDouble: {
      const auto z = s.toComplexDouble();
      return put(cl_double2{{z.real(), z.imag()}});
    }
    default: TORCH_CHECK(false, "torch_ocl: no kernel scalar type for ", compute_dtype);
  }
}

Launch& Launch::scalar(const c10::Scalar& s, c10::ScalarType compute_dtype) {
  alignas(16) unsigned char bytes[kMaxKernelScalarBytes];
  const size_t size = kernel_scalar_bytes(s, compute_dtype, bytes);
  return raw(size, bytes);
}

size_t Launch::max_work_group_size() const { return cached_->work_group_size; }

size_t Launch::pow2_work_group(size_t cap) const {
  size_t p = 1;
  while (p * 2 <= std::min(cap, max_work_group_size())) p *= 2;
  return p;
}

void Launch::run_items(size_t n, const std::array<size_t, 3>* global_offsets) {
  if (n == 0) return;
  const size_t local = std::min<size_t>(256, cached_->work_group_size);
  const size_t total = (n + local - 1) / local * local;
  enqueue(total, local, global_offsets ? global_offsets->data() : nullptr);
}

void Launch::run(size_t global, size_t local) {
  if (global == 0) return;
  if (local == 0) local = std::min<size_t>(256, max_work_group_size());
  // Grid-stride kernels: cap the grid at 64K work groups.
  const size_t groups = std::min<size_t>((global + local - 1) / local, 65536);
  const size_t total = groups * local;
  enqueue(total, local);
}

void Launch::enqueue(size_t total, size_t local, const size_t* offsets) {
  BatchedLaunch batched(device_);
  const size_t global3[3] = {total, 1, 1}, local3[3] = {local, 1, 1};
  const cl_int err = fault_or(FaultPoint::EnqueueNDRangeKernel, [&] {
    return offsets ? clEnqueueNDRangeKernel(batched.queue, kernel_, 3, offsets, global3, local3, batched.num_wait,
                                            batched.wait, nullptr)
                   : clEnqueueNDRangeKernel(batched.queue, kernel_, 1, nullptr, &total, &local, batched.num_wait,
                                            batched.wait, nullptr);
  });
  TORCH_CHECK(err == CL_SUCCESS, "OpenCL call clEnqueueNDRangeKernel(", name_, ") failed: ",
              cl_error_name(err), " (", err, ")");
  batched.enqueued();
  lock_.unlock();
}

int contiguous_block(c10::DeviceIndex device) { return device_profile(device).contiguous_block; }

bool one_buffer_variants(c10::DeviceIndex device) { return device_profile(device).one_buffer_variants; }

namespace {
thread_local size_t tls_one_buffer_launches = 0;
}  // namespace
void count_one_buffer_launch() { ++tls_one_buffer_launches; }
size_t one_buffer_launches() { return tls_one_buffer_launches; }

const char* cl_lowest(c10::ScalarType t) {
  switch (t) {
    case c10::kBool: case c10::kByte: case c10::kUInt16: case c10::kUInt32: case c10::kUInt64: return "0";
    case c10::kChar: return "CHAR_MIN";
    case c10::kShort: return "SHRT_MIN";
    case c10::kInt: return "INT_MIN";
    case c10::kLong: return "LONG_MIN";
    default: return "(-INFINITY)";
  }
}

const char* cl_highest(c10::ScalarType t) {
  switch (t) {
    case c10::kBool: return "1";
    case c10::kByte: return "UCHAR_MAX";
    case c10::kUInt16: return "USHRT_MAX";
    case c10::kUInt32: return "UINT_MAX";
    case c10::kUInt64: return "ULONG_MAX";
    case c10::kChar: return "CHAR_MAX";
    case c10::kShort: return "SHRT_MAX";
    case c10::kInt: return "INT_MAX";
    case c10::kLong: return "LONG_MAX";
    default: return "INFINITY";
  }
}

}  // namespace torch_ocl
