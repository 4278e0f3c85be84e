#include "backend/program_cache.h"

#include <c10/util/hash.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>
#include <unistd.h>
#include <vector>

#include "backend/runtime.h"

namespace torch_ocl {
namespace {

struct Cache {
  std::mutex mutex;
  std::map<std::string, std::string> sources;
  std::map<std::tuple<int, std::string, std::string>, cl_program> programs;
  ProgramCacheStats stats;
};

Cache& cache() {
  static Cache* c = new Cache();  // leaked: programs outlive static tensors
  return *c;
}

std::string hex_hash(const std::string& text) {
  // Two independent 64-bit hashes: FNV-1a and std::hash.
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text) { h ^= ch; h *= 1099511628211ull; }
  std::ostringstream os;
  os << std::hex << h << std::hash<std::string>{}(text);
  return os.str();
}

std::string build_log(cl_program p, cl_device_id d) {
  size_t n = 0;
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  return log;
}

cl_program try_load_binary(const DeviceInfo& d, const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return nullptr;
  std::vector<unsigned char> bin((std::istreambuf_iterator<char>(in)), {});
  if (bin.empty()) return nullptr;
  const unsigned char* ptr = bin.data();
  size_t size = bin.size();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program p = clCreateProgramWithBinary(d.context, 1, &d.id, &size, &ptr, &status, &err);
  if (err != CL_SUCCESS || status != CL_SUCCESS) return nullptr;
  if (clBuildProgram(p, 1, &d.id, "", nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(p);
    return nullptr;
  }
  return p;
}

void save_binary(cl_program p, const std::filesystem::path& file) {
  size_t size = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) != CL_SUCCESS ||
      size == 0)
    return;
  std::vector<unsigned char> bin(size);
  unsigned char* ptr = bin.data();
  if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr) != CL_SUCCESS) return;
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) return;  // a read-only cache folder only costs compile time
  auto tmp = file;
  tmp += ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return;
    out.write(reinterpret_cast<const char*>(bin.data()), static_cast<std::streamsize>(size));
  }
  std::filesystem::rename(tmp, file, ec);
}

}  // namespace

void register_kernel_source(const std::string& name, std::string source) {
  auto& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.sources[name] = std::move(source);
}

std::string program_cache_dir() {
  if (const char* dir = std::getenv("TORCH_OCL_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/torch_ocl";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "/tmp") + "/.cache/torch_ocl";
}

bool compile_log_enabled() {
  // TORCH_OCL_LOG: comma-separated topics; "compile" logs every program build.
  static const bool on = [] {
    const char* v = std::getenv("TORCH_OCL_LOG");
    return v != nullptr && (std::strstr(v, "compile") != nullptr || std::strcmp(v, "all") == 0);
  }();
  return on;
}

namespace {
void log_compile(const std::string& label, const DeviceInfo& d, std::chrono::steady_clock::time_point t0,
                 const char* how) {
  if (!compile_log_enabled()) return;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "[torch_ocl] compile %-28s %9.1f ms  %s  (%s)\n", label.c_str(), ms, how, d.name.c_str());
}

// Builds `text` (or loads its binary from the disk cache). Caller holds c.mutex.
cl_program build_locked(Cache& c, c10::DeviceIndex device, const std::string& label,
                        const std::string& text) {
  const DeviceInfo& d = device_info(device);
  const auto t0 = std::chrono::steady_clock::now();
  const auto file = std::filesystem::path(program_cache_dir()) /
                    (label + "-" + hex_hash(text + d.name + d.driver_version + d.platform_version) + ".bin");
  cl_program p = try_load_binary(d, file);
  if (p != nullptr) {
    ++c.stats.disk_hits;
    log_compile(label, d, t0, "disk cache");
    return p;
  }
  const char* ptr = text.c_str();
  size_t len = text.size();
  cl_int err = CL_SUCCESS;
  p = clCreateProgramWithSource(d.context, 1, &ptr, &len, &err);
  OCL_CHECK(err);
  err = clBuildProgram(p, 1, &d.id, "-cl-std=CL1.2", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::string log = build_log(p, d.id);
    clReleaseProgram(p);
    TORCH_CHECK(false, "OpenCL call clBuildProgram failed for kernel source '", label, "' on ",
                d.name, ": ", cl_error_name(err), " (", err, ")\nbuild log:\n", log);
  }
  ++c.stats.compiles;
  save_binary(p, file);
  log_compile(label, d, t0, "built");
  return p;
}
}  // namespace

cl_program get_program(c10::DeviceIndex device, const std::string& name,
                       const std::string& preamble) {
  auto& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto key = std::make_tuple(static_cast<int>(device), name, preamble);
  if (auto it = c.programs.find(key); it != c.programs.end()) {
    ++c.stats.memory_hits;
    return it->second;
  }
  auto src_it = c.sources.find(name);
  TORCH_CHECK(src_it != c.sources.end(), "torch_ocl: no kernel source named '", name, "'");
  cl_program p = build_locked(c, device, name,
                              preamble + "\n" + c.sources.at("common") + "\n" + src_it->second);
  c.programs.emplace(key, p);
  return p;
}

cl_program build_program(c10::DeviceIndex device, const std::string& label, const std::string& source) {
  auto& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return build_locked(c, device, label, source);
}

const std::string& kernel_source(const std::string& name) {
  auto& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.sources.find(name);
  TORCH_CHECK(it != c.sources.end(), "torch_ocl: no kernel source named '", name, "'");
  return it->second;  // std::map nodes are stable
}

ProgramCacheStats program_cache_stats() {
  auto& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.stats;
}

void clear_program_memory_cache() {
  auto& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  // Programs are not released: kernels cached by launchers may still use them.
  c.programs.clear();
}

}  // namespace torch_ocl
