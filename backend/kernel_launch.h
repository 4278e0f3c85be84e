// The small launch API every kernel launcher in kernels/ uses: dtype
// preambles, the Indexer shared with kernels/common.cl, and Launch, which sets
// arguments and enqueues a kernel on the current stream.
#pragma once

#include <ATen/core/TensorBase.h>
#include <c10/core/Scalar.h>

#include <c10/core/Storage.h>
#include <c10/util/FunctionRef.h>
#include <c10/util/SmallVector.h>

#include <array>
#include <initializer_list>
#include <mutex>
#include <string>

#include "backend/cl_check.h"

namespace at {
struct TensorIteratorBase;
}

namespace torch_ocl {

// How a dtype looks in OpenCL C: its storage type, the type kernels compute
// in (float for half/bfloat16), the accumulation type of reductions, and
// LOAD(p, i) / STORE(p, i, v) snippets over a __global storage pointer p.
struct ClType {
  const char* storage;
  const char* compute;
  const char* acc;
  const char* load;
  const char* store;
  bool is_float;
};
// Raises for dtypes without kernels (complex, float8, quantized).
const ClType& cl_type(c10::ScalarType dtype);
// complex32 / complex64 / complex128: the dtypes with complex kernels.
bool is_complex_kernel_dtype(c10::ScalarType dtype);
// cl_type() as the pointwise and reduction engines see a dtype: complex64 /
// complex128 as (re, im) pairs loaded as float2 / double2 with vload2 (which
// needs only the real type's alignment); storage and acc are the real type.
// complex32 is computed as complex64, as CUDA's opmath does: (re, im) half
// pairs loaded into float2 with vload_half2 and rounded back by vstore_half2
// (neither needs cl_khr_fp16); its acc is float.
const ClType& engine_type(c10::ScalarType dtype);

// "#define ST float / CT / LOAD / STORE / IS_FLOAT / ACC ..." for `dtype`;
// with prefix "SRC_" the same names prefixed (for the source of a cast).
std::string dtype_preamble(c10::ScalarType dtype, const std::string& prefix = "");
// Whether the kernels handle `dtype` at all (not: complex, float8, quantized).
bool has_kernels(c10::ScalarType dtype);
// Raises a clear error when `dtype` has no kernels on `device`.
void check_dtype_supported(c10::ScalarType dtype, c10::DeviceIndex device);
// Raises unless ocl tensors of `dtype` can exist on `device`: every dtype with
// kernels, and complex (stored, copied and viewed; computed by the fallback).
void check_storable(c10::ScalarType dtype, c10::DeviceIndex device);
// The storage of `dtype` as an unsigned integer dtype of the same size.
c10::ScalarType bits_dtype(c10::ScalarType dtype);
// Whether the data-movement kernels (copies, gathers, scatters, selects over
// raw element bits) handle `dtype`: every dtype with kernels, and complex32 /
// complex64 / complex128 (bits_preamble gives them 4-, 8- and 16-byte storage types).
bool has_data_kernels(c10::ScalarType dtype);
// dtype_preamble of the element's raw bits: ST = CT = uchar, ushort, uint,
// ulong or ulong2 (complex128) by element size; LOAD/STORE move bits unchanged.
std::string bits_preamble(c10::ScalarType dtype, const std::string& prefix = "");

constexpr int kMaxDims = 25;  // as CUDA's OffsetCalculator
constexpr int kMaxOperands = 3;
// Mirrors Indexer in kernels/common.cl (all fields 64-bit: no padding).
struct Indexer {
  int64_t ndim = -1;  // -1: every operand contiguous
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxOperands][kMaxDims] = {};
};
// The Indexer of a built TensorIterator (strides converted to elements).
// Raises when the iterator has more than kMaxDims dims after coalescing.
Indexer make_indexer(const at::TensorIteratorBase& iter);

// The kernel cache: a built cl_kernel with what a launch needs of it, found
// by an integer key. A warm lookup is a thread-local hash probe: no lock, no
// string, no program-cache lookup, no driver query.
struct KernelKey {
  uint64_t hi = 0, lo = 0;  // chosen by the generator (op, dtypes, variant)
  bool operator==(const KernelKey& o) const { return hi == o.hi && lo == o.lo; }
};
struct GeneratedKernel {
  std::string label;   // names the program in errors and in the disk cache
  std::string source;  // the complete OpenCL C program
  std::string kernel;  // the __kernel to take from it
};
// An argument value as last set on a cl_kernel (size 0: unknown).
struct KernelArgValue {
  uint32_t size = 0;
  // Scalars, buffers, and packed heads of up to 128 bytes (the pointwise
  // kernels' PwHead of up to 6 tensors and 4 values).
  alignas(8) unsigned char bytes[128];
};
struct CachedKernel {
  cl_kernel kernel = nullptr;
  size_t work_group_size = 0;  // CL_KERNEL_WORK_GROUP_SIZE, asked once
  std::string name;
  std::mutex mutex;  // arguments live in the cl_kernel: held from set to enqueue
  // The first arguments' values as last set: Launch skips clSetKernelArg for
  // an unchanged one (the same tensors and sizes launch again and again).
  // Valid while no cl_mem was released since (args_epoch).
  std::array<KernelArgValue, 12> args{};
  uint64_t args_epoch = 0;
};
// Called before a cl_mem that a kernel argument may name is released: a
// later buffer may get the same handle, so remembered argument values are
// dropped (the device allocator's segments, scratch and pinned buffers).
void forget_kernel_args();
// The kernel for (device, key); on the first use anywhere `make` generates its
// source, which is built through the program cache (memory + disk).
CachedKernel& cached_kernel(c10::DeviceIndex device, KernelKey key,
                            c10::function_ref<GeneratedKernel()> make);
// The kernel `kernel` of kernels/<source>.cl, found by an integer key:
// `variant` must determine everything `preamble` returns (dtypes, options;
// pack them with kernel_variant). The preamble is built, and the program
// cache consulted, only when (device, source, kernel, variant) is new; a warm
// call is cached_kernel's lock-free thread-local probe (plus hashing the two
// names). Launch(device, source_kernel(...)) runs it.
CachedKernel& source_kernel(c10::DeviceIndex device, const char* source, const char* kernel, uint64_t variant,
                            c10::function_ref<std::string()> preamble);
// source_kernel for a program whose preamble is dtype_preamble(dtype) alone.
CachedKernel& dtype_kernel(c10::DeviceIndex device, const char* source, const char* kernel, c10::ScalarType dtype);
// source_kernel for a kernel that only moves elements: its program's
// preamble is bits_preamble(dtype) (an unsigned type of the element's size),
// one program per element size, complex dtypes included.
CachedKernel& bits_kernel(c10::DeviceIndex device, const char* source, const char* kernel, c10::ScalarType dtype);
// Packs small integers (dtypes as ints, flags) into a variant, 8 bits each.
constexpr uint64_t kernel_variant(std::initializer_list<int> parts) {
  uint64_t v = 0;
  for (int p : parts) v = (v << 8) | static_cast<uint8_t>(p);
  return v;
}
struct KernelCacheStats {
  size_t thread_hits = 0;  // this thread's lock-free hits
  size_t shared_hits = 0;  // found in the shared table (first use on a thread)
  size_t builds = 0;       // generated and built (or loaded from disk)
  size_t args_set = 0;     // this thread's clSetKernelArg calls (unchanged arguments are not set again)
};
KernelCacheStats kernel_cache_stats();

// Elements per work item of kernels over contiguous data: CPU devices (PoCL)
// vectorise an item's loop over a block of consecutive elements (8 measured
// 1.5-2.5x the bandwidth of 1 for pointwise ops, bench/HISTORY.md); GPUs keep
// one element per item so neighbouring items touch neighbouring memory.
int contiguous_block(c10::DeviceIndex device);
// Whether the generated kernels have a second entry point taking one buffer
// for all their tensors (the `_1` kernels), launched when the tensors share a
// cl_mem (small tensors come from the allocator's 2 MiB segments). True on
// CPU devices: PoCL copies every argument and tracks every buffer argument
// per launch, ~1 290 instructions a buffer (bench/HISTORY.md), so a binary
// op's enqueue is a third cheaper. GPU drivers pass arguments cheaply and
// compile every kernel of a program eagerly, so they do without.
bool one_buffer_variants(c10::DeviceIndex device);
// Counts this thread's launches of `_1` kernels (tests prove the variant is taken).
void count_one_buffer_launch();
size_t one_buffer_launches();
// OpenCL C literals of a dtype's lowest / highest value (-INFINITY / INFINITY
// for floating types): the start values of max / min.
const char* cl_lowest(c10::ScalarType t);
const char* cl_highest(c10::ScalarType t);

// `s` as the kernel's type for `compute_dtype` (as Launch::scalar passes it):
// its bytes written to `out` (room for kMaxKernelScalarBytes); returns their count.
constexpr size_t kMaxKernelScalarBytes = 16;  // double2 (complex128)
size_t kernel_scalar_bytes(const c10::Scalar& s, c10::ScalarType compute_dtype, void* out);

class Launch {
 public:
  // A kernel from the kernel cache: cached_kernel (the engines' generated
  // programs) or source_kernel (kernels/*.cl programs). The only way to launch.
  Launch(c10::DeviceIndex device, CachedKernel& kernel);
  // A tensor argument: two kernel parameters (__global char* base, ulong byte
  // offset). The Launch holds the tensor's storage until it is destroyed, so
  // a temporary (`l.tensor(x.contiguous())`) cannot go back to the allocator
  // and be handed to the next argument before the kernel is enqueued (after
  // the enqueue, stream order makes reuse safe, as on CUDA).
  // tensor(): one the kernel may write (its mutable data pointer: a
  // copy-on-write storage is materialised first, as for any write); input():
  // one it only reads (const_data_ptr, a lazily cloned input stays shared, as
  // ATen's kernels keep it; PyTorch's test_cow_input checks this).
  Launch& tensor(const at::TensorBase& t);
  Launch& input(const at::TensorBase& t);
  // A device pointer (as TensorIterator's data_ptr(k)): the same two parameters.
  Launch& device_pointer(const void* data);
  // A null buffer in place of an absent tensor (tensor() of an undefined one too).
  Launch& null_tensor();
  template <class T>
  Launch& value(const T& v) { return raw(sizeof(T), &v); }
  // `s` as the kernel's type for `compute_dtype` (see scalar_compute_type).
  Launch& scalar(const c10::Scalar& s, c10::ScalarType compute_dtype);
  Launch& local_memory(size_t bytes) { return raw(bytes, nullptr); }
  Launch& raw(size_t size, const void* ptr);
  // Enqueues over `global` work items (rounded up to `local`); local 0 = a
  // default work-group size. Capped: kernels use grid-stride loops.
  void run(size_t global, size_t local = 0);
  // One work item per element: `n` items in groups of the kernel's default size.
  // With `global_offsets`, a 3-dim range whose dims 1 and 2 have one item and
  // these global offsets, read by the kernel (get_global_offset) as byte
  // offsets into its buffer: one-buffer kernels take their tensors' offsets
  // so, which change from launch to launch while the kernel's arguments then
  // do not (their clSetKernelArg is skipped, see raw()).
  void run_items(size_t n, const std::array<size_t, 3>* global_offsets = nullptr);
  size_t max_work_group_size() const;
  // The largest power of two <= min(cap, max_work_group_size()): the group
  // size of kernels with a local-memory tree reduction.
  size_t pow2_work_group(size_t cap = 256) const;

 private:
  c10::DeviceIndex device_;
  CachedKernel* cached_;
  cl_kernel kernel_;
  std::unique_lock<std::mutex> lock_;
  void check_args_epoch();
  Launch& tensor_argument(const at::TensorBase& t, bool written);
  // clEnqueueNDRangeKernel on the current stream, in its batch (BatchedLaunch).
  void enqueue(size_t total, size_t local, const size_t* offsets = nullptr);
  cl_uint next_ = 0;
  const char* name_;
  c10::SmallVector<c10::Storage, 6> held_;  // see tensor()
};

}  // namespace torch_ocl
