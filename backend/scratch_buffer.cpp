#include "backend/cl_objects.h"
#include "backend/fault_injection.h"
#include "backend/scratch_buffer.h"

#include <c10/core/CachingDeviceAllocator.h>
#include <c10/util/Exception.h>

#include <map>
#include <mutex>
#include <utility>

#include "backend/runtime.h"
#include "backend/kernel_launch.h"

namespace torch_ocl {
namespace {

// clCreateBuffer, or nullptr on out-of-memory; raises on any other error.
cl_mem try_create(const DeviceInfo& d, size_t bytes, cl_int& err) {
  err = CL_SUCCESS;
  if (bytes > d.max_mem_alloc_size) {
    err = CL_INVALID_BUFFER_SIZE;
    return nullptr;
  }
  err = injected_fault(FaultPoint::CreateBuffer);
  cl_mem mem =
      err == CL_SUCCESS ? track_buffer(clCreateBuffer(d.context, CL_MEM_READ_WRITE, bytes, nullptr, &err)) : nullptr;
  TORCH_CHECK(err == CL_SUCCESS || cl_is_out_of_memory(err), "OpenCL call clCreateBuffer(", bytes,
              " bytes) for a scratch buffer failed: ", cl_error_name(err), " (", err, ")");
  return err == CL_SUCCESS ? mem : nullptr;
}

}  // namespace

ScratchBuffer::ScratchBuffer(const ScratchBuffer& other) : mem_(other.mem_), size_(other.size_) {
  if (mem_) clRetainMemObject(mem_);
}

ScratchBuffer::ScratchBuffer(ScratchBuffer&& other) noexcept
    : mem_(std::exchange(other.mem_, nullptr)), size_(std::exchange(other.size_, 0)) {}

ScratchBuffer& ScratchBuffer::operator=(ScratchBuffer other) noexcept {
  std::swap(mem_, other.mem_);
  std::swap(size_, other.size_);
  return *this;
}

ScratchBuffer::~ScratchBuffer() {
  if (!mem_) return;
  forget_kernel_args();
  clReleaseMemObject(mem_);
}

ScratchBuffer ScratchBuffer::create(c10::DeviceIndex device, size_t bytes) {
  const DeviceInfo& d = device_info(device);
  cl_int err = CL_SUCCESS;
  cl_mem mem = try_create(d, bytes, err);
  if (mem == nullptr) {
    // As the caching allocator does: give its cached blocks back, retry once.
    c10::getDeviceAllocator(c10::DeviceType::PrivateUse1)->emptyCache();
    mem = try_create(d, bytes, err);
  }
  TORCH_CHECK_WITH(OutOfMemoryError, mem != nullptr, "ocl:", static_cast<int>(device),
                   " out of memory: OpenCL call clCreateBuffer(", bytes,
                   " bytes) for a scratch buffer failed: ", cl_error_name(err), " (", err, ") on ",
                   d.name, "; largest single buffer ", d.max_mem_alloc_size, " bytes");
  ScratchBuffer b;
  b.mem_ = mem;
  b.size_ = bytes;
  return b;
}

ScratchBuffer ScratchBuffer::from_host(c10::DeviceIndex device, const void* data, size_t bytes) {
  const DeviceInfo& d = device_info(device);
  cl_int err = injected_fault(FaultPoint::CreateBuffer);
  cl_mem mem = err == CL_SUCCESS ? track_buffer(clCreateBuffer(d.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                                               bytes, const_cast<void*>(data), &err))
                                 : nullptr;
  TORCH_CHECK(err == CL_SUCCESS, "OpenCL call clCreateBuffer(", bytes,
              " bytes, CL_MEM_COPY_HOST_PTR) failed: ", cl_error_name(err), " (", err, ")");
  ScratchBuffer b;
  b.mem_ = mem;
  b.size_ = bytes;
  return b;
}

ScratchBuffer stream_scratch(c10::Stream stream, size_t bytes) {
  static std::mutex mutex;
  // Leaked: buffers are not released during static destruction, after which
  // the OpenCL runtime may already be gone.
  static auto* buffers = new std::map<std::pair<c10::DeviceIndex, c10::StreamId>, ScratchBuffer>();
  std::lock_guard<std::mutex> lock(mutex);
  ScratchBuffer& b = (*buffers)[{stream.device_index(), stream.id()}];
  if (b.size() < bytes) {
    b = ScratchBuffer();  // drop the small one first: its memory may be needed
    b = ScratchBuffer::create(stream.device_index(), bytes);
  }
  return b;
}

}  // namespace torch_ocl
