// Live OpenCL object counters (for leak tests): buffers, events, kernels and
// programs that torch_ocl created and has not released. Every create site in
// backend/ and allocator/ goes through track_*; every release of an event,
// kernel or program through release_*. A buffer is counted until OpenCL
// destroys it (a destructor callback), so a leaked clRetainMemObject shows.
// CLBlast's own internal objects are not counted.
#pragma once

#include <array>
#include <cstdint>

#include "backend/cl_check.h"

namespace torch_ocl {

enum class ClObject : int { Buffer, Event, Kernel, Program };
constexpr int kClObjectKinds = 4;
const char* cl_object_name(ClObject kind);  // "buffers", "events", "kernels", "programs"

cl_mem track_buffer(cl_mem mem);  // nullptr passes through uncounted
cl_event track_event(cl_event event);
cl_kernel track_kernel(cl_kernel kernel);
cl_program track_program(cl_program program);

void release_event(cl_event event);  // nullptr is a no-op
void release_kernel(cl_kernel kernel);
void release_program(cl_program program);

std::array<int64_t, kClObjectKinds> live_cl_objects();

}  // namespace torch_ocl
