// backend/scratch_buffer: per-stream scratch cl_mem that grows on demand,
// stays alive while referenced, and reports out-of-memory as PyTorch does.
#include <gtest/gtest.h>

#include <string>

#include "backend/runtime.h"
#include "backend/scratch_buffer.h"

using namespace torch_ocl;

namespace {
size_t mem_size(cl_mem m) {
  size_t size = 0;
  OCL_CHECK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(size), &size, nullptr));
  return size;
}
}  // namespace

TEST(ScratchBuffer, ReusedPerStreamAndGrowsOnDemand) {
  const c10::Stream stream = stream_from_pool(0);
  const ScratchBuffer a = stream_scratch(stream, 4096);
  ASSERT_TRUE(a);
  EXPECT_GE(mem_size(a.get()), 4096u);
  // Smaller or equal requests reuse the same buffer.
  EXPECT_EQ(stream_scratch(stream, 1024).get(), a.get());
  // A larger request replaces it; the old reference stays valid.
  const ScratchBuffer b = stream_scratch(stream, 1 << 20);
  EXPECT_GE(b.size(), size_t(1) << 20);
  EXPECT_GE(mem_size(b.get()), size_t(1) << 20);
  EXPECT_GE(mem_size(a.get()), 4096u);
  // Another stream has a buffer of its own.
  const c10::Stream other = default_stream(0);
  if (other != stream) EXPECT_NE(stream_scratch(other, 4096).get(), b.get());
}

TEST(ScratchBuffer, CopiesShareOneReference) {
  ScratchBuffer a = ScratchBuffer::create(0, 512);
  ScratchBuffer b = a;
  EXPECT_EQ(a.get(), b.get());
  cl_uint refs = 0;
  OCL_CHECK(clGetMemObjectInfo(a.get(), CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, nullptr));
  EXPECT_EQ(refs, 2u);
  ScratchBuffer c = std::move(b);
  EXPECT_FALSE(b);
  EXPECT_EQ(c.get(), a.get());
}

TEST(ScratchBuffer, TooLargeIsOutOfMemory) {
  const size_t huge = static_cast<size_t>(device_info(0).max_mem_alloc_size) + 1;
  try {
    ScratchBuffer::create(0, huge);
    FAIL() << "expected c10::OutOfMemoryError";
  } catch (const c10::OutOfMemoryError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("clCreateBuffer"), std::string::npos) << msg;
    EXPECT_NE(msg.find("out of memory"), std::string::npos) << msg;
  }
}
