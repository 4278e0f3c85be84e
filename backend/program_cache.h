// The program cache: OpenCL programs built per device from embedded sources
// (kernels/*.cl) plus a preamble of #defines, cached in memory and as program
// binaries on disk (TORCH_OCL_CACHE_DIR, default ~/.cache/torch_ocl).
// Disk files carry a header (magic, format version, key hash, length) and a
// checksum; a bad file is rebuilt with a warning, writes are temp file +
// atomic rename, folders are created 0700 and files 0600, and an unwritable
// folder degrades to in-memory caching with one warning.
#pragma once

#include <c10/core/Device.h>

#include <string>

#include "backend/cl_check.h"

namespace torch_ocl {

// Registers an OpenCL C source under `name` (kernels/*.cl are registered at
// load time by the generated kernel_sources.cpp).
void register_kernel_source(const std::string& name, std::string source);

// The built program for preamble + common.cl + source `name` on `device`.
// A build failure raises an error that includes the build log.
cl_program get_program(c10::DeviceIndex device, const std::string& name,
                       const std::string& preamble);

// Builds a complete generated source (no preamble, no common.cl added), or
// loads its binary from the disk cache. Not cached in memory: the caller
// (the kernel cache, backend/kernel_launch.h) keeps what it builds. `label`
// names the program in errors and in the disk cache's file names.
cl_program build_program(c10::DeviceIndex device, const std::string& label, const std::string& source);

// The embedded kernels/<name>.cl text (for generators that splice it in).
const std::string& kernel_source(const std::string& name);

std::string program_cache_dir();
// TORCH_OCL_LOG=compile: one stderr line per program built or loaded from the
// disk cache (label, milliseconds, which of the two).
bool compile_log_enabled();

struct ProgramCacheStats {
  size_t memory_hits = 0, disk_hits = 0, compiles = 0;
  size_t disk_rejects = 0;         // cache files refused (truncated, corrupted, foreign) and rebuilt
  size_t disk_write_failures = 0;  // 1 once the folder proved unwritable (then memory only)
  size_t background_writes = 0;    // binaries written by the background writer (PoCL)
};
ProgramCacheStats program_cache_stats();
// Waits until the background writer has written every binary queued so far.
void flush_program_cache_writes();
// Finishes the write in progress and drops the rest (at exit).
void stop_program_cache_writes();
// Lets PoCL's binaries be written in the background; the caller must call
// stop_program_cache_writes() before the process's C exit handlers (the
// Python package does both; C++ programs write on the building thread).
void enable_background_cache_writes();
// Drops the in-memory programs (the disk cache stays); for tests.
void clear_program_memory_cache();

}  // namespace torch_ocl
