#include "backend/runtime.h"

#include <CL/cl_ext.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "backend/device_profile.h"

namespace torch_ocl {
namespace {

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS) return "";
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS) return "";
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <class T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  clGetDeviceInfo(d, what, sizeof(T), &v, nullptr);
  return v;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(c));
  return s;
}

// TORCH_OCL_DEVICES: comma-separated entries, each an index into the full
// GPU-first list, a device type (gpu, cpu, accelerator), or a
// case-insensitive substring of the device or platform name.
bool selected(const DeviceInfo& d, size_t index, const char* filter) {
  if (filter == nullptr || *filter == '\0') return true;
  std::stringstream ss(filter);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = lower(item);
    if (item.empty()) continue;
    if (std::all_of(item.begin(), item.end(), ::isdigit)) {
      if (std::stoul(item) == index) return true;
    } else if (item == lower(d.type_name())) {
      return true;
    } else if (lower(d.name).find(item) != std::string::npos ||
               lower(d.platform_name).find(item) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// TORCH_OCL_SUBMIT_BATCH, or the device profile's.
int default_launch_batch(const DeviceInfo& d) {
  if (const char* env = std::getenv("TORCH_OCL_SUBMIT_BATCH"); env && *env) return std::max(1, std::atoi(env));
  return profile_for(d).submit_batch;
}

}  // namespace

// Unsubmitted launches of one queue: they all wait, directly or through their
// predecessor, on `event` (a user event) until open_gate() completes it.
struct Gate {
  std::mutex mutex;
  std::atomic<cl_event> event{nullptr};
  int held = 0;  // launches enqueued behind `event`
  // Threads in clFinish of the queue. clFinish waits until the queue is empty,
  // launches enqueued after it began included: while it runs, no launch is held
  // (another thread's held launch could keep it waiting forever).
  std::atomic<int> finishing{0};
};

namespace {

struct Runtime {
  std::vector<DeviceInfo> devices;
  std::string error;
  // queues[device][stream id]; created lazily.
  // Read without the lock (atomics); created under it.
  std::vector<std::unique_ptr<std::array<std::atomic<cl_command_queue>, kNumStreams>>> queues;
  // Per queue: how often stream_queue() handed it out for work, and that
  // count as of the last clFinish (so query() after a sync answers at once).
  struct Use {
    std::atomic<uint64_t> handed{0}, finished{0};
  };
  std::vector<std::unique_ptr<std::array<Use, kNumStreams>>> uses;
  std::vector<std::unique_ptr<std::array<Gate, kNumStreams>>> gates;
  std::vector<std::unique_ptr<std::atomic<int>>> launch_batch;  // per device, see BatchedLaunch
  std::vector<std::unique_ptr<std::atomic<int>>> next_pool, next_high_pool;
  std::mutex mutex;

  Runtime() {
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, nullptr, &np);
    if (err != CL_SUCCESS || np == 0) {
      error = std::string("no OpenCL platform found (clGetPlatformIDs: ") +
              cl_error_name(err) + ")";
      return;
    }
    std::vector<cl_platform_id> platforms(np);
    clGetPlatformIDs(np, platforms.data(), nullptr);
    std::vector<DeviceInfo> all;
    for (auto p : platforms) {
      cl_uint nd = 0;
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS)
        continue;
      std::vector<cl_device_id> ids(nd);
      clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr);
      for (auto id : ids) {
        DeviceInfo d;
        d.platform = p;
        d.id = id;
        d.type = device_value<cl_device_type>(id, CL_DEVICE_TYPE);
        d.name = device_string(id, CL_DEVICE_NAME);
        d.vendor = device_string(id, CL_DEVICE_VENDOR);
        d.version = device_string(id, CL_DEVICE_VERSION);
        d.driver_version = device_string(id, CL_DRIVER_VERSION);
        d.opencl_c_version = device_string(id, CL_DEVICE_OPENCL_C_VERSION);
        d.extensions = device_string(id, CL_DEVICE_EXTENSIONS);
        d.platform_name = platform_string(p, CL_PLATFORM_NAME);
        d.platform_version = platform_string(p, CL_PLATFORM_VERSION);
        d.global_mem_size = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
        d.max_mem_alloc_size = device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
        d.local_mem_size = device_value<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE);
        d.max_work_group_size = device_value<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE);
        d.compute_units = device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS);
        d.mem_base_addr_align_bits = device_value<cl_uint>(id, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
        d.fp64 = device_value<cl_device_fp_config>(id, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
        d.fp16 = d.extensions.find("cl_khr_fp16") != std::string::npos;
        d.fp32_correct_div_sqrt = (device_value<cl_device_fp_config>(id, CL_DEVICE_SINGLE_FP_CONFIG) &
                                   CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
        // -w: PoCL prints "N warnings generated." on stderr for warnings inside
        // its own built-ins (AVX vector ABI notes for ulong8 in random.cl);
        // errors and their build log are unaffected.
        d.build_options = std::string("-cl-std=CL1.2 -w") +
                          (d.fp32_correct_div_sqrt ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");
        all.push_back(std::move(d));
      }
    }
    std::stable_sort(all.begin(), all.end(), [](const DeviceInfo& a, const DeviceInfo& b) {
      return a.is_gpu() && !b.is_gpu();
    });
    const char* filter = std::getenv("TORCH_OCL_DEVICES");
    for (size_t i = 0; i < all.size(); ++i) {
      if (!selected(all[i], i, filter)) continue;
      cl_int e = CL_SUCCESS;
      cl_context_properties props[] = {
          CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(all[i].platform), 0};
      all[i].context = clCreateContext(props, 1, &all[i].id, nullptr, nullptr, &e);
      if (e != CL_SUCCESS) continue;  // an unusable device is not listed
      devices.push_back(all[i]);
    }
    if (devices.empty())
      error = all.empty() ? "no OpenCL device found"
                          : "no OpenCL device matches TORCH_OCL_DEVICES";
    for (size_t i = 0; i < devices.size(); ++i) {
      queues.push_back(std::make_unique<std::array<std::atomic<cl_command_queue>, kNumStreams>>());
      for (auto& q : *queues.back()) q.store(nullptr);
      uses.push_back(std::make_unique<std::array<Use, kNumStreams>>());
      gates.push_back(std::make_unique<std::array<Gate, kNumStreams>>());
      launch_batch.push_back(std::make_unique<std::atomic<int>>(default_launch_batch(devices[i])));
    }
    for (size_t i = 0; i < devices.size(); ++i) {
      next_pool.push_back(std::make_unique<std::atomic<int>>(0));
      next_high_pool.push_back(std::make_unique<std::atomic<int>>(0));
    }
    detail::known_devices.store(static_cast<int>(devices.size()), std::memory_order_release);
  }
};

Runtime& runtime() {
  // Leaked on purpose: queues must outlive static tensors at exit.
  static Runtime* rt = new Runtime();
  return *rt;
}

thread_local c10::DeviceIndex tls_device = 0;
thread_local std::array<int, 64> tls_stream = {};  // current stream id per device

}  // namespace

std::string DeviceInfo::type_name() const {
  if (type & CL_DEVICE_TYPE_GPU) return "gpu";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  if (type & CL_DEVICE_TYPE_CPU) return "cpu";
  return "other";
}

c10::DeviceIndex num_devices() noexcept {
  try {
    return static_cast<c10::DeviceIndex>(runtime().devices.size());
  } catch (...) {
    return 0;
  }
}

const std::string& discovery_error() { return runtime().error; }

namespace detail {
std::atomic<int> known_devices{-1};

void check_device_index_slow(c10::DeviceIndex index) {
  auto n = num_devices();  // runs discovery, which sets known_devices
  TORCH_CHECK(index >= 0 && index < n, "ocl:", static_cast<int>(index),
              " is not available: ",
              n == 0 ? discovery_error()
                     : std::to_string(n) + " ocl device(s) found (ocl:0.." +
                           std::to_string(n - 1) + ")");
}
}  // namespace detail

const DeviceInfo& device_info(c10::DeviceIndex index) {
  check_device_index(index);
  return runtime().devices[index];
}

c10::DeviceIndex current_device_index() { return tls_device; }

void set_current_device(c10::DeviceIndex index) {
  check_device_index(index);
  tls_device = index;
}

c10::Stream default_stream(c10::DeviceIndex index) {
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, index), 0);
}

c10::Stream current_stream(c10::DeviceIndex index) {
  if (index < 0) index = current_device_index();
  check_device_index(index);
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, index),
                     tls_stream.at(index));
}

c10::Stream stream_from_pool(c10::DeviceIndex index, int priority) {
  if (index < 0) index = current_device_index();
  check_device_index(index);
  auto& rt = runtime();
  int id = priority < 0 ? 1 + kStreamPoolSize + (rt.next_high_pool[index]->fetch_add(1) % kStreamPoolSize)
                        : 1 + (rt.next_pool[index]->fetch_add(1) % kStreamPoolSize);
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, index), id);
}

int stream_priority(c10::Stream stream) { return stream.id() > kStreamPoolSize ? -1 : 0; }

bool has_priority_hints(c10::DeviceIndex index) {
  const auto& d = device_info(index);
  return d.extensions.find("cl_khr_priority_hints") != std::string::npos &&
         d.extensions.find("cl_khr_create_command_queue") != std::string::npos;
}

namespace {
void check_stream_id(c10::Stream stream) {
  TORCH_CHECK(stream.device_type() == c10::DeviceType::PrivateUse1, "expected an ocl stream, got a ",
              c10::DeviceTypeName(stream.device_type(), true), " stream");
  TORCH_CHECK(stream.id() >= 0 && stream.id() < kNumStreams, "invalid ocl stream id ", stream.id());
}

cl_command_queue create_queue(c10::DeviceIndex index, bool high_priority) {
  const auto& d = device_info(index);
  cl_int err = CL_SUCCESS;
  if (high_priority && has_priority_hints(index)) {
    auto create = reinterpret_cast<clCreateCommandQueueWithPropertiesKHR_fn>(
        clGetExtensionFunctionAddressForPlatform(d.platform, "clCreateCommandQueueWithPropertiesKHR"));
    if (create != nullptr) {
      const cl_queue_properties_khr props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE,
                                               CL_QUEUE_PRIORITY_KHR, CL_QUEUE_PRIORITY_HIGH_KHR, 0};
      cl_command_queue q = create(d.context, d.id, props, &err);
      if (err == CL_SUCCESS) return q;
    }
  }
  cl_command_queue q = clCreateCommandQueue(d.context, d.id, CL_QUEUE_PROFILING_ENABLE, &err);
  OCL_CHECK(err);
  return q;
}
}  // namespace

void set_current_stream(c10::Stream stream) {
  check_device_index(stream.device_index());
  check_stream_id(stream);
  tls_stream.at(stream.device_index()) = static_cast<int>(stream.id());
}

namespace {
cl_command_queue queue_of(c10::Stream stream) {
  auto index = stream.device_index();
  auto& rt = runtime();
  if (index >= 0 && index < static_cast<c10::DeviceIndex>(rt.queues.size()) && stream.id() >= 0 &&
      stream.id() < kNumStreams) {
    auto& slot = (*rt.queues[index])[stream.id()];
    if (cl_command_queue q = slot.load(std::memory_order_acquire)) return q;  // the hot path: no lock
  }
  check_device_index(index);
  check_stream_id(stream);
  auto& slot = (*rt.queues[index])[stream.id()];
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (slot.load() == nullptr)
    slot.store(create_queue(index, stream_priority(stream) < 0), std::memory_order_release);
  return slot.load();
}

// Completes and drops the gate's event, if any (its lock held by the caller):
// the held launches are submitted. Returns clSetUserEventStatus's result.
cl_int complete_gate(Gate& gate) noexcept {
  cl_event ev = gate.event.exchange(nullptr, std::memory_order_acq_rel);
  gate.held = 0;
  if (ev == nullptr) return CL_SUCCESS;
  const cl_int err = clSetUserEventStatus(ev, CL_COMPLETE);
  clReleaseEvent(ev);
  return err;
}

void open_gate_locked(Gate& gate) {
  const cl_int err = complete_gate(gate);
  TORCH_CHECK(err == CL_SUCCESS, "OpenCL call clSetUserEventStatus(gate, CL_COMPLETE) failed: ", cl_error_name(err),
              " (", err, ")");
}

void open_gate(c10::DeviceIndex index, int id) {
  Gate& gate = (*runtime().gates[index])[id];
  if (gate.event.load(std::memory_order_acquire) == nullptr) return;  // the hot path: nothing held
  std::lock_guard<std::mutex> lock(gate.mutex);
  open_gate_locked(gate);
}

}  // namespace

void finish_held_launches() {
  auto& rt = runtime();
  for (size_t d = 0; d < rt.gates.size(); ++d)
    for (int id = 0; id < kNumStreams; ++id) {
      Gate& gate = (*rt.gates[d])[id];
      std::lock_guard<std::mutex> lock(gate.mutex);
      if (gate.event.load() == nullptr) continue;
      complete_gate(gate);  // (no exception at exit)
      if (cl_command_queue q = (*rt.queues[d])[id].load()) clFinish(q);
    }
}

namespace {

// clFinish of queue `id` of `index`, remembering what it covered.
void finish_queue(c10::DeviceIndex index, int id, cl_command_queue q) {
  auto& use = (*runtime().uses[index])[id];
  const uint64_t handed = use.handed.load(std::memory_order_acquire);
  Gate& gate = (*runtime().gates[index])[id];
  gate.finishing.fetch_add(1);
  struct Done {
    Gate& gate;
    ~Done() { gate.finishing.fetch_sub(1); }
  } done{gate};
  {  // under the lock, not open_gate()'s unlocked look: a gate created just before `finishing` rose is seen
    std::lock_guard<std::mutex> lock(gate.mutex);
    open_gate_locked(gate);
  }
  OCL_CHECK(clFinish(q));
  use.finished.store(handed, std::memory_order_release);
}
}  // namespace

cl_command_queue stream_queue(c10::Stream stream) {
  cl_command_queue q = queue_of(stream);
  (*runtime().uses[stream.device_index()])[stream.id()].handed.fetch_add(1, std::memory_order_acq_rel);
  open_gate(stream.device_index(), static_cast<int>(stream.id()));
  return q;
}

BatchedLaunch::BatchedLaunch(c10::DeviceIndex index) {
  const c10::Stream stream = current_stream(index);
  queue = queue_of(stream);
  index = stream.device_index();
  auto& rt = runtime();
  (*rt.uses[index])[stream.id()].handed.fetch_add(1, std::memory_order_acq_rel);
  batch_ = rt.launch_batch[index]->load(std::memory_order_relaxed);
  if (batch_ <= 1) return;
  Gate& gate = (*rt.gates[index])[stream.id()];
  std::unique_lock<std::mutex> lock(gate.mutex);
  if (gate.finishing.load() > 0) {  // another thread waits for the queue to drain: submit at once
    open_gate_locked(gate);
    return;
  }
  cl_event ev = gate.event.load(std::memory_order_relaxed);
  if (ev == nullptr) {
    static std::once_flag at_exit;
    std::call_once(at_exit, [] { std::atexit(finish_held_launches); });
    cl_int err = CL_SUCCESS;
    ev = clCreateUserEvent(rt.devices[index].context, &err);
    if (err != CL_SUCCESS) return;  // no gate: this launch is submitted at once
    gate.event.store(ev, std::memory_order_release);
  }
  if (gate.held == 0) {  // the first launch behind the gate waits on it; the rest on their predecessor
    first_wait_ = ev;
    num_wait = 1;
    wait = &first_wait_;
  }
  gate_ = &gate;
  lock.release();  // unlocked by the destructor
}

void BatchedLaunch::enqueued() {
  if (gate_ != nullptr && ++gate_->held >= batch_) open_gate_locked(*gate_);
}

BatchedLaunch::~BatchedLaunch() {
  if (gate_ != nullptr) gate_->mutex.unlock();
}

int launch_batch(c10::DeviceIndex index) {
  if (index < 0) index = current_device_index();
  check_device_index(index);
  return runtime().launch_batch[index]->load();
}

void set_launch_batch(c10::DeviceIndex index, int launches) {
  if (index < 0) index = current_device_index();
  check_device_index(index);
  TORCH_CHECK(launches >= 1, "set_launch_batch: expected a batch of at least 1 launch, got ", launches);
  runtime().launch_batch[index]->store(launches);
  for (int id = 0; id < kNumStreams; ++id) open_gate(index, id);
}

int held_launches(c10::DeviceIndex index) {
  const c10::Stream stream = current_stream(index);
  Gate& gate = (*runtime().gates[stream.device_index()])[stream.id()];
  std::lock_guard<std::mutex> lock(gate.mutex);
  return gate.event.load() == nullptr ? 0 : gate.held;
}

cl_command_queue current_queue(c10::DeviceIndex index) {
  return stream_queue(current_stream(index));
}

void finish_stream(c10::Stream stream) { finish_queue(stream.device_index(), stream.id(), queue_of(stream)); }

bool stream_known_idle(c10::Stream stream) {
  (void)queue_of(stream);  // checks the stream
  const auto& use = (*runtime().uses[stream.device_index()])[stream.id()];
  return use.finished.load(std::memory_order_acquire) == use.handed.load(std::memory_order_acquire);
}

void synchronize_device(c10::DeviceIndex index) {
  if (index < 0) index = current_device_index();
  check_device_index(index);
  auto& rt = runtime();
  for (int id = 0; id < kNumStreams; ++id)
    if (cl_command_queue q = (*rt.queues[index])[id].load()) finish_queue(index, id, q);
}

bool device_initialized(c10::DeviceIndex index) {
  if (index < 0 || index >= num_devices()) return false;
  auto& rt = runtime();
  return (*rt.queues[index])[0].load() != nullptr;
}

}  // namespace torch_ocl
