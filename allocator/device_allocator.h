// The caching device allocator (DESIGN.md §2, §8). Each OpenCL buffer it
// creates (a segment) gets a base address in a private per-device virtual
// range, so a block's data pointer is base + offset: unique, with meaningful
// arithmetic, never dereferenced on the host. resolve_device_ptr() turns a
// data pointer back into (cl_mem, byte offset) for a kernel launch.
#pragma once

#include <c10/core/CachingDeviceAllocator.h>

#include "backend/cl_check.h"

namespace torch_ocl {

struct DeviceBuffer {
  cl_mem buffer = nullptr;
  size_t offset = 0;      // bytes from the start of `buffer`
  size_t capacity = 0;    // bytes of `buffer` from `offset` on
};

// (cl_mem, offset) of any pointer inside a live segment; raises otherwise.
DeviceBuffer resolve_device_ptr(const void* ptr);
// The device whose virtual range holds `ptr`, or -1.
c10::DeviceIndex device_of_ptr(const void* ptr);

// The allocator registered for PrivateUse1 (c10::GetAllocator(PrivateUse1)).
c10::DeviceAllocator* device_allocator();

// Caps the bytes the allocator may reserve on `device` (0 = the device's
// global memory size). Past the cap, allocation frees the cache, retries, and
// then raises c10::OutOfMemoryError, as on a real out-of-memory.
void set_memory_limit(c10::DeviceIndex device, size_t bytes);
size_t memory_limit(c10::DeviceIndex device);

// Blocks cached but not in use, and segments held (for tests and stats).
struct AllocatorSnapshot {
  size_t segments = 0, free_blocks = 0, active_blocks = 0;
  size_t reserved_bytes = 0, allocated_bytes = 0;
};
AllocatorSnapshot allocator_snapshot(c10::DeviceIndex device);

// The pinned host allocator: page-locked host memory from the OpenCL driver
// (CL_MEM_ALLOC_HOST_PTR, mapped), for pin_memory() and non_blocking copies.
c10::Allocator* pinned_host_allocator();
bool is_pinned_host_ptr(const void* ptr);

}  // namespace torch_ocl
