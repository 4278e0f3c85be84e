// Device time for torch's profiler: the PrivateUse1 ProfilerStubs. Under
// torch.autograd.profiler.profile(use_device="ocl", use_kineto=False) (the
// KINETO_PRIVATEUSE1_FALLBACK state; torch_ocl.profiler wraps it) PyTorch
// records a start and an end event around every op and asks elapsed() for
// the time between them: here an OpenCL marker on the current stream and the
// difference of the markers' profiling timestamps (queues are created with
// CL_QUEUE_PROFILING_ENABLE, backend/runtime.cpp).
#include <c10/util/ApproximateClock.h>
#include <torch/csrc/profiler/stubs/base.h>

#include "backend/cl_objects.h"
#include "backend/runtime.h"

namespace torch_ocl {
namespace {

using torch::profiler::impl::ProfilerVoidEventStub;

struct OclProfilerStubs final : torch::profiler::impl::ProfilerStubs {
  void record(c10::DeviceIndex* device, ProfilerVoidEventStub* event, int64_t* cpu_ns) const override {
    if (device) *device = current_device_index();
    if (event) {
      cl_event ev = nullptr;
      OCL_CHECK(clEnqueueMarkerWithWaitList(current_queue(), 0, nullptr, &ev));
      *event = std::shared_ptr<void>(track_event(ev), [](void* e) { release_event(static_cast<cl_event>(e)); });
    }
    if (cpu_ns) *cpu_ns = c10::getTime();
  }
  // Microseconds between the two markers (as the CUDA stubs answer).
  float elapsed(const ProfilerVoidEventStub* start, const ProfilerVoidEventStub* end) const override {
    if (!start || !end || !*start || !*end) return 0.f;
    cl_event evs[2] = {static_cast<cl_event>(start->get()), static_cast<cl_event>(end->get())};
    OCL_CHECK(clWaitForEvents(2, evs));
    cl_ulong t0 = 0, t1 = 0;
    OCL_CHECK(clGetEventProfilingInfo(evs[0], CL_PROFILING_COMMAND_END, sizeof(t0), &t0, nullptr));
    OCL_CHECK(clGetEventProfilingInfo(evs[1], CL_PROFILING_COMMAND_END, sizeof(t1), &t1, nullptr));
    return static_cast<float>((static_cast<double>(t1) - static_cast<double>(t0)) / 1e3);
  }
  void mark(const char*) const override {}
  void rangePush(const char*) const override {}
  void rangePop() const override {}
  bool enabled() const override { return num_devices() > 0; }
  void onEachDevice(std::function<void(int)> op) const override {
    const auto previous = current_device_index();
    for (c10::DeviceIndex i = 0; i < num_devices(); ++i) {
      set_current_device(i);
      op(i);
    }
    if (num_devices() > 0) set_current_device(previous);
  }
  void synchronize() const override {
    if (num_devices() > 0) synchronize_device(current_device_index());
  }
};

struct Register {
  Register() {
    static OclProfilerStubs stubs;
    torch::profiler::impl::registerPrivateUse1Methods(&stubs);
  }
} register_stubs;

}  // namespace
}  // namespace torch_ocl
