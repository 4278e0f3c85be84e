// The caching device allocator (DESIGN.md §2, §8). Each OpenCL buffer it
// creates (a segment) gets a base address in a private per-device virtual
// range, so a block's data pointer is base + offset: unique, with meaningful
// arithmetic, never dereferenced on the host. resolve_device_ptr() turns a
// data pointer back into (cl_mem, byte offset) for a kernel launch.
// Include direction: allocator/ -> backend/ (runtime, cl_check, device_ptr);
// backend/ never includes allocator/ headers.
#pragma once

#include <c10/core/CachingDeviceAllocator.h>

#include "backend/cl_check.h"
#include "backend/device_ptr.h"  // DeviceBuffer, resolve_device_ptr, device_of_ptr, pinned host

namespace torch_ocl {

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

}  // namespace torch_ocl
