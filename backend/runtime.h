// The OpenCL device runtime: discovery, contexts, streams (in-order command
// queues), the current device and stream. Nothing here knows about ops.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include <atomic>
#include <string>
#include <vector>

#include "backend/cl_check.h"

namespace torch_ocl {

struct DeviceInfo {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  cl_context context = nullptr;
  cl_device_type type = 0;
  std::string name, vendor, version, driver_version, platform_name,
      platform_version, opencl_c_version, extensions;
  uint64_t global_mem_size = 0, max_mem_alloc_size = 0, local_mem_size = 0;
  size_t max_work_group_size = 0;
  uint32_t compute_units = 0, mem_base_addr_align_bits = 0;
  bool fp64 = false, fp16 = false;
  // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: float32 division and sqrt can be
  // built correctly rounded (-cl-fp32-correctly-rounded-divide-sqrt), as
  // the CPU's and CUDA's are; without it OpenCL allows 2.5 / 3 ulp.
  bool fp32_correct_div_sqrt = false;
  // The clBuildProgram options of every program for this device.
  std::string build_options;
  bool is_gpu() const { return type & CL_DEVICE_TYPE_GPU; }
  std::string type_name() const;
};

// Number of usable devices; 0 (never an error) when there is no platform.
c10::DeviceIndex num_devices() noexcept;
// Why num_devices() is 0, or "" when it is not.
const std::string& discovery_error();
// The device, with a PyTorch-style error for a bad index.
const DeviceInfo& device_info(c10::DeviceIndex index);
namespace detail {
// The usable device count once discovery has run, -1 before: the inline
// check below reads it without a call (it runs several times per launch).
extern std::atomic<int> known_devices;
void check_device_index_slow(c10::DeviceIndex index);
}  // namespace detail
// Raises "ocl:N is not available ..." unless 0 <= index < num_devices().
inline void check_device_index(c10::DeviceIndex index) {
  if (C10_LIKELY(index >= 0 && index < detail::known_devices.load(std::memory_order_relaxed))) return;
  detail::check_device_index_slow(index);
}

c10::DeviceIndex current_device_index();
void set_current_device(c10::DeviceIndex index);

// Streams: id 0 is the device's default queue, ids 1..kStreamPoolSize come
// from a pool of normal-priority queues and ids kStreamPoolSize+1..
// 2*kStreamPoolSize from a pool of high-priority queues, each handed out
// round-robin (as CUDA's stream pools). All queues are in-order and have
// profiling enabled (events carry timestamps: Event.elapsed_time).
// High priority uses cl_khr_priority_hints where the device has it; elsewhere
// the high pool is ordinary queues.
constexpr int kStreamPoolSize = 4;
constexpr int kNumStreams = 1 + 2 * kStreamPoolSize;
c10::Stream default_stream(c10::DeviceIndex index);
c10::Stream current_stream(c10::DeviceIndex index = -1);
// priority 0 (normal) or < 0 (high), as torch.cuda.Stream(priority=).
c10::Stream stream_from_pool(c10::DeviceIndex index = -1, int priority = 0);
int stream_priority(c10::Stream stream);
// Whether high-priority streams really get a higher device priority.
bool has_priority_hints(c10::DeviceIndex index);
void set_current_stream(c10::Stream stream);
// The stream's queue for any command other than a Launch (copies, markers,
// barriers, blocking reads, CLBlast): submits the launches the stream holds
// back first (BatchedLaunch), so whatever waits on this queue afterwards
// cannot wait on a held launch. Fetch the queue right before using it: a
// handle kept across later Launches must be fetched again before blocking.
cl_command_queue stream_queue(c10::Stream stream);
// The queue of the current stream of `index` (or of the current device).
cl_command_queue current_queue(c10::DeviceIndex index = -1);

// Kernel launches are submitted in batches where waking the device for each
// command costs more than a small kernel (CPU devices by default: PoCL wakes a
// worker thread for every command that is ready when enqueued). The first
// launch of a batch waits on a user event, the gate; the launches after it
// wait on their predecessor in the in-order queue; the gate opens after
// `launch_batch(index)` launches, at stream_queue() / current_queue() (every
// other command, so every wait, event and host read) and at synchronize.
// Used by Launch only: hold one across exactly one clEnqueueNDRangeKernel
// with `queue`, `num_wait`, `wait`, then call enqueued() if it succeeded.
class BatchedLaunch {
 public:
  explicit BatchedLaunch(c10::DeviceIndex index);
  ~BatchedLaunch();
  BatchedLaunch(const BatchedLaunch&) = delete;
  BatchedLaunch& operator=(const BatchedLaunch&) = delete;
  void enqueued();
  cl_command_queue queue = nullptr;
  cl_uint num_wait = 0;
  const cl_event* wait = nullptr;

 private:
  struct Gate* gate_ = nullptr;
  int batch_ = 1;
  cl_event first_wait_ = nullptr;
};
// Launches per batch on device `index` (1: every launch is submitted at once).
// TORCH_OCL_SUBMIT_BATCH=N sets it for every device; unset, CPU devices use
// 32 and other devices 1.
int launch_batch(c10::DeviceIndex index);
// Sets it (>= 1) and submits what the device's streams hold.
void set_launch_batch(c10::DeviceIndex index, int launches);
// Submits what every stream holds and waits for those queues. Runs at exit:
// from Python's atexit (torch_ocl registers it on import: before any C exit
// handler, so before LLVM's static destructors, which PoCL's worker threads
// need to compile a kernel on its first run) and from a C atexit handler
// registered with the first held launch (C++ programs).
void finish_held_launches();
// Launches held back on the current stream of `index` (0 after any submit).
int held_launches(c10::DeviceIndex index = -1);
void synchronize_device(c10::DeviceIndex index = -1);
// clFinish of a stream's queue; afterwards stream_known_idle() is true until
// stream_queue() hands the queue out for more work.
void finish_stream(c10::Stream stream);
bool stream_known_idle(c10::Stream stream);
// Devices whose queues were created (were used).
bool device_initialized(c10::DeviceIndex index);

}  // namespace torch_ocl
