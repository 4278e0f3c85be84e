// DeviceGuardImplInterface for PrivateUse1: current device and stream,
// events (cl_event markers) and stream synchronization.
#include <c10/core/CachingDeviceAllocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>

#include <chrono>
#include <thread>

#include "backend/cl_objects.h"
#include "backend/device_checks.h"
#include "backend/runtime.h"

namespace torch_ocl {
namespace {

struct OclGuardImpl final : public c10::impl::DeviceGuardImplInterface {
  static constexpr c10::DeviceType kType = c10::DeviceType::PrivateUse1;

  c10::DeviceType type() const override { return kType; }
  c10::Device exchangeDevice(c10::Device d) const override {
    auto old = getDevice();
    if (d.index() != old.index()) set_current_device(d.index());
    return old;
  }
  c10::Device getDevice() const override { return c10::Device(kType, current_device_index()); }
  void setDevice(c10::Device d) const override { set_current_device(d.index()); }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    try {
      set_current_device(d.index());
    } catch (...) {
    }
  }
  c10::Stream getStream(c10::Device d) const override { return current_stream(d.index()); }
  c10::Stream getDefaultStream(c10::Device d) const override { return default_stream(d.index()); }
  c10::Stream getStreamFromGlobalPool(c10::Device d, bool high_priority) const override {
    return stream_from_pool(d.index(), high_priority ? -1 : 0);
  }
  c10::Stream getNewStream(c10::Device d, int priority) const override {
    return stream_from_pool(d.index(), priority);
  }
  c10::Stream exchangeStream(c10::Stream s) const override {
    auto old = current_stream(s.device_index());
    set_current_stream(s);
    return old;
  }
  c10::DeviceIndex deviceCount() const noexcept override { return num_devices(); }

  void destroyEvent(void* event, const c10::DeviceIndex) const noexcept override {
    release_event(static_cast<cl_event>(event));
  }
  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
              const c10::EventFlag) const override {
    TORCH_CHECK(device_index == -1 || device_index == stream.device_index(),
                "Event device index ", device_index, " does not match recording stream's device index ",
                stream.device_index(), ".");
    cl_event ev = nullptr;
    OCL_CHECK(clEnqueueMarkerWithWaitList(stream_queue(stream), 0, nullptr, &ev));
    track_event(ev);
    release_event(static_cast<cl_event>(*event));
    *event = ev;
  }
  void block(void* event, const c10::Stream& stream) const override {
    if (!event) return;
    cl_event ev = static_cast<cl_event>(event);
    OCL_CHECK(clEnqueueBarrierWithWaitList(stream_queue(stream), 1, &ev, nullptr));
  }
  bool queryEvent(void* event) const override {
    if (!event) return true;
    cl_int status = CL_COMPLETE;
    OCL_CHECK(clGetEventInfo(static_cast<cl_event>(event), CL_EVENT_COMMAND_EXECUTION_STATUS,
                             sizeof(status), &status, nullptr));
    return status == CL_COMPLETE;
  }
  void synchronizeEvent(void* event) const override {
    if (!event) return;
    cl_event ev = static_cast<cl_event>(event);
    OCL_CHECK(clWaitForEvents(1, &ev));
  }
  // Milliseconds between two recorded markers, from their OpenCL profiling
  // timestamps (every queue is created with CL_QUEUE_PROFILING_ENABLE).
  double elapsedTime(void* start, void* end, const c10::DeviceIndex) const override {
    TORCH_CHECK(start && end, "Both events must be recorded before calculating elapsed time.");
    cl_event evs[2] = {static_cast<cl_event>(start), static_cast<cl_event>(end)};
    OCL_CHECK(clWaitForEvents(2, evs));
    cl_ulong t0 = 0, t1 = 0;
    OCL_CHECK(clGetEventProfilingInfo(evs[0], CL_PROFILING_COMMAND_END, sizeof(t0), &t0, nullptr));
    OCL_CHECK(clGetEventProfilingInfo(evs[1], CL_PROFILING_COMMAND_END, sizeof(t1), &t1, nullptr));
    return (static_cast<double>(t1) - static_cast<double>(t0)) / 1e6;
  }
  bool queryStream(const c10::Stream& stream) const override {
    if (stream_known_idle(stream)) return true;  // nothing handed out since a sync
    cl_event ev = nullptr;
    OCL_CHECK(clEnqueueMarkerWithWaitList(stream_queue(stream), 0, nullptr, &ev));
    track_event(ev);
    OCL_CHECK(clFlush(stream_queue(stream)));
    // The marker completes as soon as earlier work has: on an idle queue
    // within microseconds, so give it a moment before answering "busy".
    bool done = queryEvent(ev);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
    while (!done && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
      done = queryEvent(ev);
    }
    release_event(ev);
    return done;
  }
  void synchronizeStream(const c10::Stream& stream) const override {
    finish_stream(stream);
    raise_device_errors(stream);
  }
  void synchronizeDevice(const c10::DeviceIndex device_index) const override {
    synchronize_device(device_index);
    raise_device_errors(device_index);
  }
  void recordDataPtrOnStream(const c10::DataPtr& data_ptr, const c10::Stream& stream) const override {
    // The allocator registered for PrivateUse1 (allocator/), through c10's registry.
    c10::getDeviceAllocator(kType)->recordStream(data_ptr, stream);
  }
};

}  // namespace

C10_REGISTER_GUARD_IMPL(PrivateUse1, OclGuardImpl);

// Tensor.record_stream(s): the allocator keeps the tensor's block from being
// reused until the work queued on `s` so far is done (CUDA's record_stream_cuda).
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("record_stream", [](at::Tensor& self, c10::Stream s) {
    TORCH_CHECK(s.device_type() == c10::DeviceType::PrivateUse1 && s.device() == self.device(),
                "record_stream: the stream (", s, ") must be on the tensor's device (", self.device(), ")");
    c10::getDeviceAllocator(c10::DeviceType::PrivateUse1)->recordStream(self.storage().data_ptr(), s);
  });
}

}  // namespace torch_ocl
