#include "backend/fault_injection.h"
#include "backend/device_checks.h"

#include <c10/util/Exception.h>

#include <array>
#include <atomic>
#include <deque>
#include <mutex>
#include <string>

#include "backend/cl_objects.h"
#include "backend/runtime.h"

namespace torch_ocl {
namespace {

// The flag buffer: int check id (0: no error), int unused, long index,
// long dim, long size. Mirrors kernels/device_checks.cl.
struct FlagRecord {
  cl_int check;
  cl_int unused;
  cl_long index, dim, size;
};

struct Check {
  std::string op, message;
  DeviceCheckKind kind;
};

struct DeviceFlags {
  std::mutex mutex;
  cl_mem flag = nullptr;  // created on first use, zeroed
  std::array<std::atomic<bool>, kNumStreams> armed{};
};

std::mutex checks_mutex;
std::deque<Check>& checks() {
  static auto* c = new std::deque<Check>();  // ids are positions + 1
  return *c;
}

DeviceFlags& flags(c10::DeviceIndex device) {
  static auto* all = new std::deque<DeviceFlags>(static_cast<size_t>(num_devices()));
  check_device_index(device);
  return (*all)[device];
}

cl_mem flag_buffer(c10::DeviceIndex device) {
  DeviceFlags& f = flags(device);
  std::lock_guard<std::mutex> lock(f.mutex);
  if (f.flag == nullptr) {
    FlagRecord zero{};
    cl_int err = injected_fault(FaultPoint::CreateBuffer);
    cl_mem flag = err == CL_SUCCESS ? track_buffer(clCreateBuffer(device_info(device).context,
                                                                  CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                                                  sizeof(zero), &zero, &err))
                                    : nullptr;
    TORCH_CHECK(err == CL_SUCCESS, "OpenCL call clCreateBuffer (device error flag) failed: ",
                cl_error_name(err), " (", err, ")");
    f.flag = flag;
  }
  return f.flag;
}

std::string format(std::string message, const FlagRecord& r) {
  auto replace = [&](const std::string& key, int64_t v) {
    for (size_t p = message.find(key); p != std::string::npos; p = message.find(key))
      message.replace(p, key.size(), std::to_string(v));
  };
  replace("{index}", r.index);
  replace("{dim}", r.dim);
  replace("{size}", r.size);
  return message;
}

// Reads the flag through `queue` (which has finished its work) and raises.
void read_and_raise(c10::DeviceIndex device, cl_command_queue queue) {
  cl_mem flag = flag_buffer(device);
  FlagRecord r{};
  OCL_CHECK_AT(EnqueueReadBuffer, clEnqueueReadBuffer(queue, flag, CL_TRUE, 0, sizeof(r), &r, 0, nullptr, nullptr));
  if (r.check == 0) return;
  const FlagRecord zero{};
  OCL_CHECK_AT(EnqueueWriteBuffer,
               clEnqueueWriteBuffer(queue, flag, CL_TRUE, 0, sizeof(zero), &zero, 0, nullptr, nullptr));
  Check c;
  {
    std::lock_guard<std::mutex> lock(checks_mutex);
    TORCH_INTERNAL_ASSERT(r.check > 0 && static_cast<size_t>(r.check) <= checks().size(),
                          "torch_ocl: corrupt device error flag ", r.check);
    c = checks()[r.check - 1];
  }
  const std::string what = c.op + ": " + format(c.message, r) +
                           " (found by an ocl kernel, reported at the next synchronization; "
                           "the op skipped the bad element)";
  if (c.kind == DeviceCheckKind::kIndexError) TORCH_CHECK_INDEX(false, what);
  TORCH_CHECK(false, what);
}

}  // namespace

int register_device_check(const char* op, DeviceCheckKind kind, const char* message) {
  std::lock_guard<std::mutex> lock(checks_mutex);
  checks().push_back({op, message, kind});
  return static_cast<int>(checks().size());
}

cl_mem arm_device_check(c10::DeviceIndex device) {
  cl_mem flag = flag_buffer(device);
  flags(device).armed.at(current_stream(device).id()).store(true, std::memory_order_relaxed);
  return flag;
}

Launch& check_arg(Launch& launch, c10::DeviceIndex device, int check) {
  cl_mem flag = arm_device_check(device);
  launch.raw(sizeof(cl_mem), &flag);
  return launch.value<cl_int>(check);
}

void raise_device_errors(const c10::Stream& stream) {
  const auto device = stream.device_index();
  if (!flags(device).armed.at(stream.id()).exchange(false)) return;
  read_and_raise(device, stream_queue(stream));
}

void raise_device_errors(c10::DeviceIndex device) {
  if (device < 0) device = current_device_index();
  bool any = false;
  for (auto& a : flags(device).armed) any = a.exchange(false) || any;
  if (any) read_and_raise(device, stream_queue(default_stream(device)));
}

}  // namespace torch_ocl
