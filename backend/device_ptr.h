// Include direction: allocator/ -> backend/, never the reverse. This header is
// the interface backend/ needs from the allocators; allocator/ implements it
// (device pointers: allocator/device_allocator.cpp; pinned host pointers:
// allocator/pinned_allocator.cpp), so backend/ never includes allocator/.
#pragma once

#include <c10/core/Allocator.h>
#include <c10/core/Device.h>

#include "backend/cl_check.h"

namespace torch_ocl {

// A device data pointer resolved to its OpenCL buffer (DESIGN.md §2).
struct DeviceBuffer {
  cl_mem buffer = nullptr;
  size_t offset = 0;      // bytes from the start of `buffer`
  size_t capacity = 0;    // bytes of `buffer` from `offset` on
};

// (cl_mem, offset) of any pointer inside a live segment; raises otherwise.
DeviceBuffer resolve_device_ptr(const void* ptr);
// The device whose virtual range holds `ptr`, or -1.
c10::DeviceIndex device_of_ptr(const void* ptr);

// The pinned host allocator: page-locked host memory from the OpenCL driver
// (CL_MEM_ALLOC_HOST_PTR, mapped), for pin_memory() and non_blocking copies.
c10::Allocator* pinned_host_allocator();
bool is_pinned_host_ptr(const void* ptr);

}  // namespace torch_ocl
