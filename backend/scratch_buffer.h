// Scratch device memory for libraries that need a temp buffer of their own
// from offset 0 (CLBlast's GEMM temp buffer): a cl_mem outside the caching
// allocator, so its users never overwrite an allocator block's neighbours.
#pragma once

#include <c10/core/Stream.h>

#include <cstddef>

#include "backend/cl_check.h"

namespace torch_ocl {

// One reference to a cl_mem (clRetainMemObject on copy, clReleaseMemObject on
// destruction). Releasing is safe while queued commands still use the buffer:
// OpenCL frees it only after they finish.
class ScratchBuffer {
 public:
  ScratchBuffer() = default;
  ScratchBuffer(const ScratchBuffer& other);
  ScratchBuffer(ScratchBuffer&& other) noexcept;
  ScratchBuffer& operator=(ScratchBuffer other) noexcept;
  ~ScratchBuffer();

  // A new buffer of `bytes` on `device`'s context. Out of memory frees the
  // caching allocator's cache and retries once, then raises
  // c10::OutOfMemoryError; any other failure raises a c10::Error naming
  // clCreateBuffer and the error code.
  static ScratchBuffer create(c10::DeviceIndex device, size_t bytes);
  // A read-only buffer holding a copy of `bytes` of host data (kernel
  // metadata): copied at creation, so no queue and no sync is involved.
  static ScratchBuffer from_host(c10::DeviceIndex device, const void* data, size_t bytes);

  cl_mem get() const { return mem_; }
  size_t size() const { return size_; }
  explicit operator bool() const { return mem_ != nullptr; }

 private:
  cl_mem mem_ = nullptr;
  size_t size_ = 0;
};

// The scratch buffer of `stream`, at least `bytes` long: one per stream, kept
// between calls, replaced by a larger one on demand. Work on one stream is
// ordered, so its users share it; the returned reference keeps the buffer
// alive while the caller enqueues work on it, even if it is replaced.
ScratchBuffer stream_scratch(c10::Stream stream, size_t bytes);

}  // namespace torch_ocl
