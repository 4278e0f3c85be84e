// Pinned host memory: buffers created with CL_MEM_ALLOC_HOST_PTR on device 0's
// context and mapped once; the mapped pointer is the host pointer.
#include <c10/core/Allocator.h>

#include <map>
#include <mutex>

#include "backend/cl_objects.h"
#include "backend/fault_injection.h"
#include "backend/device_ptr.h"
#include "backend/runtime.h"
#include "backend/kernel_launch.h"

namespace torch_ocl {
namespace {

struct PinnedBuffer {
  cl_mem mem;
  size_t size;
};

std::mutex pinned_mutex;
std::map<uintptr_t, PinnedBuffer>& pinned() {
  static auto* m = new std::map<uintptr_t, PinnedBuffer>();
  return *m;
}

void free_pinned(void* ptr) {
  if (ptr == nullptr) return;
  PinnedBuffer b;
  {
    std::lock_guard<std::mutex> lock(pinned_mutex);
    auto it = pinned().find(reinterpret_cast<uintptr_t>(ptr));
    TORCH_INTERNAL_ASSERT(it != pinned().end(), "torch_ocl: unknown pinned pointer");
    b = it->second;
    pinned().erase(it);
  }
  cl_command_queue q = stream_queue(default_stream(0));
  // Copies from/into this memory may still be queued on any device: finish them.
  for (c10::DeviceIndex d = 0; d < num_devices(); ++d)
    if (device_initialized(d)) synchronize_device(d);
  // A deleter cannot raise: a failed unmap is reported and the buffer still released.
  const cl_int err = fault_or(FaultPoint::EnqueueUnmapMemObject,
                              [&] { return clEnqueueUnmapMemObject(q, b.mem, ptr, 0, nullptr, nullptr); });
  if (err != CL_SUCCESS)
    TORCH_WARN("torch_ocl: OpenCL call clEnqueueUnmapMemObject failed while freeing pinned memory: ",
               cl_error_name(err), " (", err, ")");
  try {
    finish_stream(default_stream(0));  // (the unmap; as synchronize: launches of other threads are not held meanwhile)
  } catch (const std::exception& e) {
    TORCH_WARN("torch_ocl: ", e.what(), " while freeing pinned memory");
  }
  forget_kernel_args();
  clReleaseMemObject(b.mem);
}

class PinnedAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) override {
    if (n == 0) return c10::DataPtr(nullptr, nullptr, &free_pinned, c10::Device(c10::kCPU));
    const auto& d = device_info(0);
    cl_int err = injected_fault(FaultPoint::CreateBuffer);
    cl_mem mem = err == CL_SUCCESS
                     ? track_buffer(clCreateBuffer(d.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, nullptr, &err))
                     : nullptr;
    TORCH_CHECK_WITH(OutOfMemoryError, err == CL_SUCCESS || !cl_is_out_of_memory(err), "torch_ocl: cannot allocate ",
                     n, " bytes of pinned host memory: OpenCL call clCreateBuffer failed: ", cl_error_name(err), " (",
                     err, ")");
    TORCH_CHECK(err == CL_SUCCESS, "torch_ocl: OpenCL call clCreateBuffer(", n,
                " bytes of pinned host memory) failed: ", cl_error_name(err), " (", err, ")");
    err = injected_fault(FaultPoint::EnqueueMapBuffer);
    void* ptr = err == CL_SUCCESS ? clEnqueueMapBuffer(stream_queue(default_stream(0)), mem, CL_TRUE,
                                                       CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, nullptr, nullptr, &err)
                                  : nullptr;
    if (err != CL_SUCCESS) clReleaseMemObject(mem);
    TORCH_CHECK(err == CL_SUCCESS, "OpenCL call clEnqueueMapBuffer failed: ", cl_error_name(err),
                " (", err, ")");
    {
      std::lock_guard<std::mutex> lock(pinned_mutex);
      pinned()[reinterpret_cast<uintptr_t>(ptr)] = {mem, n};
    }
    return c10::DataPtr(ptr, ptr, &free_pinned, c10::Device(c10::kCPU));
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_pinned; }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
};

PinnedAllocator g_pinned;

}  // namespace

c10::Allocator* pinned_host_allocator() { return &g_pinned; }

bool is_pinned_host_ptr(const void* ptr) {
  const auto addr = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(pinned_mutex);
  auto it = pinned().upper_bound(addr);
  if (it == pinned().begin()) return false;
  --it;
  return addr < it->first + it->second.size;
}

}  // namespace torch_ocl
