#include "backend/fault_injection.h"
#include "backend/program_cache.h"

#include <c10/util/hash.h>

#include <atomic>
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
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <condition_variable>
#include <deque>
#include <thread>
#include <utility>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "backend/cl_objects.h"
#include "backend/runtime.h"

namespace torch_ocl {
namespace {

struct Cache {
  std::mutex mutex;
  std::map<std::string, std::string> sources;
  std::map<std::tuple<int, std::string, std::string>, cl_program> programs;
  // Programs dropped by clear_program_memory_cache, kept (see there).
  std::vector<cl_program> retired;
  ProgramCacheStats stats;
  bool disk_writes_failed = false;  // warned once; later builds stay in memory
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

// ---- the on-disk binary format ----------------------------------------------
// A cache file is a fixed header followed by the driver's program binary:
//   magic "TOCLBIN\0" | format version | key hash | payload length | checksum
// The key hash is FNV-1a of the full key (source + device + driver + platform)
// so a file copied from another key or written by another driver is refused
// even if its name matches; the checksum (FNV-1a of the payload) catches
// corrupted bytes; the payload length catches truncation.
constexpr char kMagic[8] = {'T', 'O', 'C', 'L', 'B', 'I', 'N', '\0'};
constexpr uint32_t kFormatVersion = 1;

struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_size;
  uint64_t key_hash;
  uint64_t payload_length;
  uint64_t checksum;
};
static_assert(sizeof(FileHeader) == 40);

uint64_t fnv1a(const void* data, size_t n, uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) { h ^= p[i]; h *= 1099511628211ull; }
  return h;
}

// Why a cache file was refused; empty when it is missing (not an error).
struct LoadResult {
  cl_program program = nullptr;
  std::string rejected;  // reason, when the file exists but cannot be used
};

// A cache file read whole and checked (header, key, length, checksum):
// `found` false when there is none, `rejected` says why it is unusable.
struct CacheFile {
  bool found = false;
  std::string rejected;
  std::vector<char> bytes;  // header + payload
};

CacheFile read_cache_file(const std::filesystem::path& file, uint64_t key_hash) {
  CacheFile f;
  std::ifstream in(file, std::ios::binary);
  if (!in) return f;
  f.found = true;
  f.bytes.assign(std::istreambuf_iterator<char>(in), {});
  const auto& bytes = f.bytes;
  auto reject = [&f](std::string why) {
    f.rejected = std::move(why);
    return f;
  };
  if (!in.eof() && in.fail()) return reject("read error");
  FileHeader h{};
  if (bytes.size() < sizeof(h)) return reject("truncated header (" + std::to_string(bytes.size()) + " bytes)");
  std::memcpy(&h, bytes.data(), sizeof(h));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0) return reject("not a torch_ocl kernel cache file");
  if (h.version != kFormatVersion || h.header_size != sizeof(h))
    return reject("format version " + std::to_string(h.version) + " (expected " + std::to_string(kFormatVersion) + ")");
  if (h.key_hash != key_hash) return reject("written for another kernel source, device or driver");
  const size_t payload = bytes.size() - sizeof(h);
  if (h.payload_length != payload)
    return reject("length " + std::to_string(payload) + " bytes, header says " + std::to_string(h.payload_length) +
                  " (truncated or appended)");
  if (payload == 0) return reject("empty binary");
  if (fnv1a(bytes.data() + sizeof(h), payload) != h.checksum) return reject("checksum mismatch (corrupted)");
  return f;
}

LoadResult try_load_binary(const DeviceInfo& d, const std::filesystem::path& file, uint64_t key_hash) {
  const CacheFile f = read_cache_file(file, key_hash);
  if (!f.found) return {};
  if (!f.rejected.empty()) return {nullptr, f.rejected};
  const size_t payload = f.bytes.size() - sizeof(FileHeader);
  const auto* ptr = reinterpret_cast<const unsigned char*>(f.bytes.data() + sizeof(FileHeader));
  size_t size = payload;
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program p = track_program(clCreateProgramWithBinary(d.context, 1, &d.id, &size, &ptr, &status, &err));
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    if (p != nullptr) release_program(p);
    return {nullptr, std::string("the driver refused the binary: ") +
                         cl_error_name(err != CL_SUCCESS ? err : status)};
  }
  if (const cl_int e = fault_or(FaultPoint::BuildProgram, [&] { return clBuildProgram(p, 1, &d.id, "", nullptr, nullptr); });
      e != CL_SUCCESS) {
    release_program(p);
    return {nullptr, std::string("the driver could not build the binary: ") + cl_error_name(e)};
  }
  return {p, {}};
}

// Creates the missing folders of `dir`, each user-only (0700); an existing
// folder keeps its permissions. Returns an error text, or empty on success.
std::string make_private_dirs(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return {};
  if (dir.has_parent_path() && dir.parent_path() != dir) {
    if (auto e = make_private_dirs(dir.parent_path()); !e.empty()) return e;
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return "cannot create " + dir.string() + ": " + std::strerror(errno);
  if (!std::filesystem::is_directory(dir, ec)) return dir.string() + " is not a folder";
  return {};
}

// Writes header + binary to a private temp file in the cache folder, then
// renames it over `file`: readers see either no file or a complete one, and
// two processes writing the same key both succeed (the last rename wins with
// identical content). Returns an error text, or empty on success.
std::string save_binary(cl_program p, const std::filesystem::path& file, uint64_t key_hash) {
  size_t size = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) != CL_SUCCESS ||
      size == 0)
    return {};  // the driver offers no binary: nothing to cache, not an error
  std::vector<unsigned char> bin(size);
  unsigned char* ptr = bin.data();
  if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr) != CL_SUCCESS) return {};
  if (auto e = make_private_dirs(file.parent_path()); !e.empty()) return e;
  FileHeader h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kFormatVersion;
  h.header_size = sizeof(h);
  h.key_hash = key_hash;
  h.payload_length = size;
  h.checksum = fnv1a(bin.data(), size);
  std::string tmp = file.string() + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmp.data());  // created 0600
  if (fd < 0) return "cannot create a file in " + file.parent_path().string() + ": " + std::strerror(errno);
  auto write_all = [fd](const void* data, size_t n) {
    const char* c = static_cast<const char*>(data);
    while (n > 0) {
      const ssize_t w = ::write(fd, c, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      c += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  };
  const bool ok = write_all(&h, sizeof(h)) && write_all(bin.data(), size);
  const int write_errno = errno;
  if (::close(fd) != 0 || !ok) {
    ::unlink(tmp.c_str());
    return "cannot write " + tmp + ": " + std::strerror(ok ? errno : write_errno);
  }
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return "cannot rename " + tmp + ": " + std::strerror(e);
  }
  return {};
}

// When a program built from source has its binary written to the disk cache.
// Asking PoCL for a program's binary (clGetProgramInfo(CL_PROGRAM_BINARIES))
// makes it compile every kernel of the program for a generic work-group size,
// which costs more than the build itself (a cold GPT training step: 32 builds
// 5.8 s, their binaries 14.5 s more; PoCL 3.1, 2-core host), and PoCL compiles
// under one lock, so doing it beside the launching thread slows that thread
// (18 s instead of 9.5 s). Writing at the second build (the old policy) made
// the second process pay it instead (first steps of three processes 9.5 s,
// 11.6 s, 0.08 s). So on PoCL a background thread at the lowest CPU priority
// writes each binary once no program has been built for kQuietSeconds (a
// training loop past its first step), from a private rebuild of the same
// source (PoCL's own kernel cache makes that rebuild ~27 ms; the program the
// launchers use is never touched). What PoCL compiles for a write stays in its
// cache, so a write cut short by the process's exit costs the next process
// little; at exit (Python's atexit) the write in
// progress finishes and the rest are dropped, to be queued again next time.
// Other drivers hand back the binary they already hold: written at once.
// TORCH_OCL_CACHE_SAVE=first|background|auto overrides the choice.
constexpr double kQuietSeconds = 1.0;

// The writer must stop before the driver's exit handlers run (a compile in
// flight during LLVM's static destructors crashes), and only Python's atexit
// runs early enough: C exit handlers registered after the driver loaded can
// still run after LLVM's lazily registered ones. So background writes are
// enabled by the Python package, which registers the stop
// (enable_background_cache_writes); a C++ program writes on the building
// thread.
std::atomic<bool> background_allowed{false};

bool save_in_background(const DeviceInfo& d) {
  const char* v = std::getenv("TORCH_OCL_CACHE_SAVE");
  if (v != nullptr && std::strcmp(v, "first") == 0) return false;
  const bool asked = v != nullptr && std::strcmp(v, "background") == 0;
  TORCH_CHECK(asked || v == nullptr || *v == '\0' || std::strcmp(v, "auto") == 0,
              "TORCH_OCL_CACHE_SAVE must be 'first', 'background' or 'auto', not '", v, "'");
  return background_allowed.load() &&
         (asked || d.platform_name.find("Portable Computing Language") != std::string::npos);
}

struct PendingWrite {
  c10::DeviceIndex device;
  std::string text;
  std::filesystem::path file;
  uint64_t key_hash;
};

// The one background writer (started by the first queued write).
class BinaryWriter {
 public:
  void enqueue(PendingWrite w) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return;
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    queue_.push_back(std::move(w));
    cv_.notify_all();
  }
  // Waits until every queued write is done (tests, tools), quiet or not.
  void flush() {
    std::unique_lock<std::mutex> lock(mutex_);
    flushing_ = true;
    cv_.notify_all();
    idle_cv_.wait(lock, [this] { return (queue_.empty() && !busy_) || stopped_; });
    flushing_ = false;
  }
  // A program was built on a launching thread: writes wait kQuietSeconds.
  void note_build() {
    std::lock_guard<std::mutex> lock(mutex_);
    last_build_ = std::chrono::steady_clock::now();
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
      queue_.clear();
      cv_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }
  std::string take_error() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(error_, {});
  }
  size_t written() {
    std::lock_guard<std::mutex> lock(mutex_);
    return written_;
  }

  static BinaryWriter& writer() {
    static BinaryWriter* w = new BinaryWriter();  // leaked: used from an exit handler
    return *w;
  }

 private:
  void run() {
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 19);
    pthread_setname_np(pthread_self(), "ocl-cache-write");  // named in crash reports and by ps/gdb
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [this] { return stopped_ || !queue_.empty(); });
      const auto quiet = std::chrono::duration<double>(kQuietSeconds);
      while (!stopped_ && !flushing_ && std::chrono::steady_clock::now() - last_build_ < quiet)
        cv_.wait_until(lock, last_build_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(quiet));
      if (stopped_) break;
      PendingWrite w = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      std::string e = write_unless_written(w);
      lock.lock();
      busy_ = false;
      if (e.empty()) ++written_;
      else if (error_.empty()) error_ = e;
      idle_cv_.notify_all();
    }
    idle_cv_.notify_all();
  }

  bool stopping() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stopped_;
  }

  // Processes that share the cache folder (pytest-xdist workers, one job's
  // ranks) queue the same programs. Their writers take turns, under an
  // exclusive lock on <folder>/.binary-write.lock, and a key another process
  // wrote meanwhile is skipped: one binary generation per program, not one
  // per process, and never two driver compiles of one program writing the
  // driver's own kernel cache at the same time. Waiting for the lock polls,
  // so stop() at exit is not held up by another process's write.
  std::string write_unless_written(const PendingWrite& w) {
    const auto folder = w.file.parent_path();
    if (auto e = make_private_dirs(folder); !e.empty()) return e;
    const std::string lock_path = (folder / ".binary-write.lock").string();
    const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return "cannot open " + lock_path + ": " + std::strerror(errno);
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) break;  // no locking on this file system: write unlocked
      if (stopping()) {
        ::close(fd);
        return {};
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const CacheFile written = read_cache_file(w.file, w.key_hash);
    std::string e = written.found && written.rejected.empty() ? std::string() : write_from_private_build(w);
    ::close(fd);  // releases the lock
    return e;
  }

  static std::string write_from_private_build(const PendingWrite& w) {
    const DeviceInfo& d = device_info(w.device);
    const char* ptr = w.text.c_str();
    size_t len = w.text.size();
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(d.context, 1, &ptr, &len, &err);
    if (err != CL_SUCCESS) return {};  // nothing written: a later process builds it again
    std::string e;
    if (clBuildProgram(p, 1, &d.id, d.build_options.c_str(), nullptr, nullptr) == CL_SUCCESS) e = save_binary(p, w.file, w.key_hash);
    clReleaseProgram(p);
    return e;
  }

  std::mutex mutex_;
  std::condition_variable cv_, idle_cv_;
  std::deque<PendingWrite> queue_;
  std::thread thread_;
  bool stopped_ = false, busy_ = false, flushing_ = false;
  std::chrono::steady_clock::time_point last_build_ = std::chrono::steady_clock::now();
  std::string error_;
  size_t written_ = 0;
};

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
  const std::string key =
      text + '\0' + d.name + '\0' + d.driver_version + '\0' + d.platform_version + '\0' + d.build_options;
  const uint64_t key_hash = fnv1a(key.data(), key.size());
  const auto file = std::filesystem::path(program_cache_dir()) /
                    (label + "-" + hex_hash(text + d.name + d.driver_version + d.platform_version + d.build_options) + ".v" +
                     std::to_string(kFormatVersion) + ".bin");  // files of older formats are never read
  const bool background = save_in_background(d);
  LoadResult loaded = try_load_binary(d, file, key_hash);
  if (loaded.program != nullptr) {
    ++c.stats.disk_hits;
    log_compile(label, d, t0, "disk cache");
    return loaded.program;
  }
  if (!loaded.rejected.empty()) {
    ++c.stats.disk_rejects;
    TORCH_WARN("torch_ocl: kernel cache file ", file.string(), " is unusable (", loaded.rejected,
               "); rebuilding it from source");
  }
  const char* ptr = text.c_str();
  size_t len = text.size();
  cl_int err = CL_SUCCESS;
  cl_program p = track_program(clCreateProgramWithSource(d.context, 1, &ptr, &len, &err));
  OCL_CHECK(err);
  err = fault_or(FaultPoint::BuildProgram,
                 [&] { return clBuildProgram(p, 1, &d.id, d.build_options.c_str(), nullptr, nullptr); });
  if (err != CL_SUCCESS) {
    std::string log = build_log(p, d.id);
    release_program(p);
    TORCH_CHECK(false, "OpenCL call clBuildProgram failed for kernel source '", label, "' on ",
                d.name, ": ", cl_error_name(err), " (", err, ")\nbuild log:\n", log);
  }
  ++c.stats.compiles;
  log_compile(label, d, t0, "built");
  if (!c.disk_writes_failed) {
    if (background) BinaryWriter::writer().note_build();
    std::string e = BinaryWriter::writer().take_error();  // a failed background write
    if (e.empty() && background) BinaryWriter::writer().enqueue({device, text, file, key_hash});
    else if (e.empty()) e = save_binary(p, file, key_hash);
    if (!e.empty()) {
      // An unwritable cache folder only costs compile time: warn once and
      // keep this process's programs in memory.
      c.disk_writes_failed = true;
      ++c.stats.disk_write_failures;
      TORCH_WARN("torch_ocl: the kernel cache folder is not writable (", e,
                 "); compiled kernels are kept in memory only for this process. "
                 "Set TORCH_OCL_CACHE_DIR to a writable folder to keep them across runs.");
    }
  }
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
  ProgramCacheStats s = c.stats;
  s.background_writes = BinaryWriter::writer().written();
  return s;
}

void flush_program_cache_writes() { BinaryWriter::writer().flush(); }
void stop_program_cache_writes() { BinaryWriter::writer().stop(); }
void enable_background_cache_writes() { background_allowed = true; }

void clear_program_memory_cache() {
  auto& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  // Programs are not released: launchers' kernel caches key on cl_program
  // handles, and a released handle's address could come back for another
  // program. They stay reachable (LeakSanitizer counted them as leaks).
  for (const auto& [key, program] : c.programs) c.retired.push_back(program);
  c.programs.clear();
}

}  // namespace torch_ocl
