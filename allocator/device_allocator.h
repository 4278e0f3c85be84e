// The caching device allocator (DESIGN.md §2, §8). Each OpenCL buffer it
// creates (a segment) gets a base address in a private per-device virtual
// range, so a block's data pointer is base + offset: unique, with meaningful
// arithmetic, never dereferenced on the host. resolve_device_ptr() turns a
// data pointer back into (cl_mem, byte offset) for a kernel launch.
// Include direction: allocator/ -> backend/ (runtime, cl_check, device_ptr);
// backend/ never includes allocator/ headers.
#pragma once

#include <c10/core/CachingDeviceAllocator.h>

#include <string>
#include <vector>

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

// Walks every segment and block of `device` under the allocator's lock and
// returns each broken invariant as a sentence (empty: all hold). Checked:
// the blocks of a segment tile it exactly (no overlap, no gap; prev/next
// links agree) and share one stream and pool; a block is allocated iff it is
// in the active map; no two adjacent cached blocks (coalescing); sizes are
// multiples of 512; the stats equal what the walk counts (allocated,
// active, requested, inactive-split, segment and reserved bytes);
// reserved >= allocated <= cap. With `after_empty_cache` also: no free
// blocks wait on events and every segment holds a live block (empty_cache
// returned the rest).
std::vector<std::string> allocator_check(c10::DeviceIndex device, bool after_empty_cache = false);

}  // namespace torch_ocl
