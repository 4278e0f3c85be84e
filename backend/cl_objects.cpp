#include "backend/cl_objects.h"

#include <atomic>

namespace torch_ocl {
namespace {

std::array<std::atomic<int64_t>, kClObjectKinds> counts{};

void add(ClObject kind, int64_t delta) {
  counts[static_cast<int>(kind)].fetch_add(delta, std::memory_order_relaxed);
}

void CL_CALLBACK buffer_destroyed(cl_mem, void*) { add(ClObject::Buffer, -1); }

}  // namespace

const char* cl_object_name(ClObject kind) {
  static const char* names[kClObjectKinds] = {"buffers", "events", "kernels", "programs"};
  return names[static_cast<int>(kind)];
}

cl_mem track_buffer(cl_mem mem) {
  if (mem == nullptr) return mem;
  add(ClObject::Buffer, 1);
  if (clSetMemObjectDestructorCallback(mem, &buffer_destroyed, nullptr) != CL_SUCCESS)
    add(ClObject::Buffer, -1);  // cannot see its end: leave it uncounted
  return mem;
}

cl_event track_event(cl_event event) {
  if (event != nullptr) add(ClObject::Event, 1);
  return event;
}

cl_kernel track_kernel(cl_kernel kernel) {
  if (kernel != nullptr) add(ClObject::Kernel, 1);
  return kernel;
}

cl_program track_program(cl_program program) {
  if (program != nullptr) add(ClObject::Program, 1);
  return program;
}

void release_event(cl_event event) {
  if (event == nullptr) return;
  add(ClObject::Event, -1);
  clReleaseEvent(event);
}

void release_kernel(cl_kernel kernel) {
  if (kernel == nullptr) return;
  add(ClObject::Kernel, -1);
  clReleaseKernel(kernel);
}

void release_program(cl_program program) {
  if (program == nullptr) return;
  add(ClObject::Program, -1);
  clReleaseProgram(program);
}

std::array<int64_t, kClObjectKinds> live_cl_objects() {
  std::array<int64_t, kClObjectKinds> out{};
  for (int i = 0; i < kClObjectKinds; ++i) out[i] = counts[i].load(std::memory_order_relaxed);
  return out;
}

}  // namespace torch_ocl
