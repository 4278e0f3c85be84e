// The program cache: builds, memory hits, on-disk binaries, build errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "backend/program_cache.h"
#include "backend/runtime.h"

using namespace torch_ocl;

TEST(ProgramCache, MemoryAndDiskHits) {
  const auto dir = std::filesystem::temp_directory_path() / ("torch_ocl_cache_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  setenv("TORCH_OCL_CACHE_DIR", dir.c_str(), 1);
  setenv("TORCH_OCL_CACHE_SAVE", "first", 1);  // the binary at the first build, on every driver
  EXPECT_EQ(program_cache_dir(), dir.string());
  register_kernel_source("test_cache_kernel", "__kernel void k(__global int* p) { p[0] = 42; }\n");
  const auto s0 = program_cache_stats();
  cl_program p1 = get_program(0, "test_cache_kernel", "// variant A\n");
  const auto s1 = program_cache_stats();
  EXPECT_EQ(s1.compiles, s0.compiles + 1);
  EXPECT_EQ(get_program(0, "test_cache_kernel", "// variant A\n"), p1);  // memory hit
  EXPECT_EQ(program_cache_stats().memory_hits, s1.memory_hits + 1);
  EXPECT_FALSE(std::filesystem::is_empty(dir));  // binary written
  clear_program_memory_cache();
  cl_program p2 = get_program(0, "test_cache_kernel", "// variant A\n");
  EXPECT_NE(p2, nullptr);
  EXPECT_EQ(program_cache_stats().disk_hits, s1.disk_hits + 1);  // loaded from disk
  EXPECT_EQ(program_cache_stats().compiles, s1.compiles);
  unsetenv("TORCH_OCL_CACHE_DIR");
  unsetenv("TORCH_OCL_CACHE_SAVE");
  std::filesystem::remove_all(dir);
}

TEST(ProgramCache, BuildErrorsCarryTheLog) {
  register_kernel_source("test_broken_kernel", "__kernel void k(__global int* p) { p[0] = undefined_name; }\n");
  try {
    get_program(0, "test_broken_kernel", "");
    FAIL() << "expected a build error";
  } catch (const c10::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("clBuildProgram"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undefined_name"), std::string::npos) << msg;
  }
}

TEST(ProgramCache, UnknownSourceIsAnError) {
  EXPECT_THROW(get_program(0, "no_such_source", ""), c10::Error);
}
