#include "backend/fault_injection.h"

#include <cstdlib>
#include <mutex>
#include <sstream>
#include <vector>

namespace torch_ocl {
namespace detail {
std::atomic<bool> fault_armed{false};
}  // namespace detail

namespace {

constexpr const char* kNames[kFaultPoints] = {
    "clCreateBuffer",     "clEnqueueNDRangeKernel", "clBuildProgram",    "clEnqueueReadBuffer",
    "clEnqueueWriteBuffer", "clEnqueueCopyBuffer",  "clEnqueueMapBuffer", "clEnqueueUnmapMemObject"};

struct Fault {
  FaultPoint point;
  uint64_t nth;
  cl_int code;
};

struct State {
  std::mutex mutex;
  std::vector<Fault> faults;
  std::array<uint64_t, kFaultPoints> counts{};
  uint64_t fired = 0;
};

State& state() {
  static State* s = new State();
  return *s;
}

cl_int parse_code(const std::string& text) {
  for (cl_int c = 0; c >= -70; --c)
    if (text == cl_error_name(c)) return c;
  try {
    size_t used = 0;
    const int v = std::stoi(text, &used);
    if (used == text.size() && v < 0) return v;
  } catch (const std::exception&) {
  }
  TORCH_CHECK(false, "TORCH_OCL_FAULT: unknown OpenCL error code '", text, "'");
}

std::vector<Fault> parse(const std::string& spec) {
  std::vector<Fault> out;
  if (spec.empty() || spec == "count") return out;
  std::stringstream items(spec);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) continue;
    std::vector<std::string> parts;
    std::stringstream fields(item);
    std::string f;
    while (std::getline(fields, f, ':')) parts.push_back(f);
    TORCH_CHECK(parts.size() == 2 || parts.size() == 3, "TORCH_OCL_FAULT: expected entry:N[:CODE], got '",
                item, "'");
    int point = -1;
    for (int i = 0; i < kFaultPoints; ++i)
      if (parts[0] == kNames[i]) point = i;
    TORCH_CHECK(point >= 0, "TORCH_OCL_FAULT: unknown entry point '", parts[0], "'");
    uint64_t nth = 0;
    try {
      nth = std::stoull(parts[1]);
    } catch (const std::exception&) {
    }
    TORCH_CHECK(nth >= 1, "TORCH_OCL_FAULT: N must be a positive call number, got '", parts[1], "'");
    out.push_back({static_cast<FaultPoint>(point), nth,
                   parts.size() == 3 ? parse_code(parts[2]) : CL_OUT_OF_RESOURCES});
  }
  return out;
}

// Reads TORCH_OCL_FAULT once at load time.
const bool g_env_read = [] {
  if (const char* spec = std::getenv("TORCH_OCL_FAULT"); spec && *spec) set_fault_spec(spec);
  return true;
}();

}  // namespace

const char* fault_point_name(FaultPoint p) { return kNames[static_cast<int>(p)]; }

namespace detail {
cl_int next_fault(FaultPoint p) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const uint64_t n = ++s.counts[static_cast<int>(p)];
  for (const Fault& f : s.faults) {
    if (f.point == p && f.nth == n) {
      ++s.fired;
      return f.code;
    }
  }
  return CL_SUCCESS;
}
}  // namespace detail

void set_fault_spec(const std::string& spec) {
  auto faults = parse(spec);
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.faults = std::move(faults);
  s.counts = {};
  s.fired = 0;
  detail::fault_armed.store(!spec.empty(), std::memory_order_relaxed);
}

std::array<uint64_t, kFaultPoints> fault_call_counts() {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.counts;
}

uint64_t faults_fired() {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.fired;
}

}  // namespace torch_ocl
