// The caching allocator: virtual addresses, splitting, coalescing, caching,
// retry after OOM, stats.
#include <c10/core/DeviceGuard.h>
#include <gtest/gtest.h>

#include "allocator/device_allocator.h"
#include "backend/runtime.h"

using namespace torch_ocl;

namespace {
struct AllocatorTest : ::testing::Test {
  void SetUp() override {
    device_allocator()->emptyCache({0, 0});
    set_memory_limit(0, 0);
  }
  void TearDown() override {
    set_memory_limit(0, 0);
    device_allocator()->emptyCache({0, 0});
  }
  c10::DataPtr alloc(size_t n) { return device_allocator()->allocate(n); }
};
}  // namespace

TEST_F(AllocatorTest, PointersResolveToBufferAndOffset) {
  auto a = alloc(1000);
  auto b = alloc(1000);
  ASSERT_NE(a.get(), nullptr);
  EXPECT_EQ(device_of_ptr(a.get()), 0);
  EXPECT_EQ(a.device(), c10::Device(c10::DeviceType::PrivateUse1, 0));
  const auto ra = resolve_device_ptr(a.get());
  const auto rb = resolve_device_ptr(b.get());
  // Two small blocks are split from one segment: same buffer, other offset.
  EXPECT_EQ(ra.buffer, rb.buffer);
  EXPECT_NE(ra.offset, rb.offset);
  const auto inner = resolve_device_ptr(static_cast<char*>(a.get()) + 100);
  EXPECT_EQ(inner.buffer, ra.buffer);
  EXPECT_EQ(inner.offset, ra.offset + 100);
  EXPECT_EQ(device_of_ptr(reinterpret_cast<void*>(0x1000)), -1);
  EXPECT_THROW(resolve_device_ptr(reinterpret_cast<void*>(0x1000)), c10::Error);
}

TEST_F(AllocatorTest, ZeroBytesIsNull) {
  auto p = alloc(0);
  EXPECT_EQ(p.get(), nullptr);
}

TEST_F(AllocatorTest, FreedBlocksAreReusedAndCoalesced) {
  void* first = nullptr;
  {
    auto a = alloc(4096);
    auto b = alloc(4096);
    first = a.get();
    EXPECT_EQ(static_cast<char*>(b.get()) - static_cast<char*>(a.get()), 4096);  // split
    EXPECT_EQ(allocator_snapshot(0).segments, 1u);
  }
  // Both freed: coalesced with the rest of the segment into one free block.
  auto snap = allocator_snapshot(0);
  EXPECT_EQ(snap.active_blocks, 0u);
  EXPECT_EQ(snap.free_blocks, 1u);
  EXPECT_EQ(snap.segments, 1u);
  auto c = alloc(8192);  // fits the coalesced block: same address, no new segment
  EXPECT_EQ(c.get(), first);
  EXPECT_EQ(allocator_snapshot(0).segments, 1u);
}

TEST_F(AllocatorTest, FreedLargeSegmentIsReusedForMidSizedRequests) {
  // A 4 MiB request gets a 20 MiB segment; once it is free again (one whole free block), the
  // next 1..10 MiB request must reuse it, not make another segment (as a 4 MiB mm output did
  // on every call: a segment per call, and its pages faulted in again each time).
  void* first = nullptr;
  {
    auto a = alloc(4 << 20);
    first = a.get();
  }
  EXPECT_EQ(allocator_snapshot(0).segments, 1u);
  for (int i = 0; i < 3; ++i) {
    auto b = alloc(4 << 20);
    EXPECT_EQ(b.get(), first);
    EXPECT_EQ(allocator_snapshot(0).segments, 1u);
  }
}

TEST_F(AllocatorTest, StatsTrackAllocatedAndReserved) {
  auto* A = device_allocator();
  A->resetPeakStats(0);
  const auto before = A->getDeviceStats(0);
  {
    auto p = alloc(3 << 20);
    const auto during = A->getDeviceStats(0);
    EXPECT_EQ(during.allocated_bytes[0].current - before.allocated_bytes[0].current, 3 << 20);
    EXPECT_GE(during.reserved_bytes[0].current, during.allocated_bytes[0].current);
    EXPECT_EQ(during.allocation[0].current - before.allocation[0].current, 1);
  }
  const auto after = A->getDeviceStats(0);
  EXPECT_EQ(after.allocated_bytes[0].current, before.allocated_bytes[0].current);
  EXPECT_GE(after.allocated_bytes[0].peak, before.allocated_bytes[0].current + (3 << 20));
  A->emptyCache({0, 0});
  EXPECT_EQ(A->getDeviceStats(0).reserved_bytes[0].current, 0);
}

TEST_F(AllocatorTest, FreesCacheAndRetriesBeforeOutOfMemory) {
  set_memory_limit(0, 64 << 20);
  {
    auto a = alloc(40 << 20);  // 40 MiB segment, then cached
  }
  EXPECT_EQ(allocator_snapshot(0).reserved_bytes, size_t(40) << 20);
  const auto retries = device_allocator()->getDeviceStats(0).num_alloc_retries;
  auto b = alloc(50 << 20);  // only fits once the cached 40 MiB are released
  EXPECT_NE(b.get(), nullptr);
  EXPECT_EQ(device_allocator()->getDeviceStats(0).num_alloc_retries, retries + 1);
  EXPECT_THROW(alloc(100 << 20), c10::OutOfMemoryError);
  auto c = alloc(1 << 20);  // still usable after the OOM
  EXPECT_NE(c.get(), nullptr);
}

namespace {
c10::Stream pool_stream(int id) {
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, 0), id);
}
}  // namespace

TEST_F(AllocatorTest, RecentlyFreedSmallBlockIsTakenBackOnItsStream) {
  auto* A = device_allocator();
  const auto before = A->getDeviceStats(0);
  void* first = nullptr;
  {
    auto a = alloc(4000);  // rounds to 4096
    first = a.get();
  }
  // Freed: no longer allocated (at once, though the block waits in a recent slot)...
  EXPECT_EQ(A->getDeviceStats(0).allocated_bytes[0].current, before.allocated_bytes[0].current);
  // ...and a request of its size on its stream takes the same block back: the loop `c = a + b`.
  // The last one freed comes back first: x and y freed in that order would
  // coalesce into one block at x's address in the pool, but y returns.
  void* last = nullptr;  // the block freed last
  {
    {
      auto x = alloc(4096);
      auto y = alloc(4096);
      last = y.get();
      x.clear();
    }
    auto again = alloc(4096);
    EXPECT_EQ(again.get(), last);
  }
  for (int i = 0; i < 4; ++i) {
    auto b = alloc(4096);
    EXPECT_EQ(b.get(), last);
    auto c = alloc(4096);  // another block while b lives
    EXPECT_NE(c.get(), b.get());
    EXPECT_EQ(allocator_check(0), std::vector<std::string>{});  // the slots are put back, invariants hold
    c.clear();
    last = b.get();
  }
  // Another stream does not get it: blocks stay with the stream they were made for.
  set_current_stream(pool_stream(1));
  {
    auto other = alloc(4096);
    EXPECT_NE(other.get(), last);
  }
  set_current_stream(pool_stream(0));
  // Another size puts the recent blocks back into their pool first: coalesced, one free block per segment.
  {
    auto big = alloc(8192);
    EXPECT_EQ(big.get(), first);
  }
  const auto snap = allocator_snapshot(0);
  EXPECT_EQ(snap.active_blocks, 0u);
  EXPECT_EQ(snap.free_blocks, snap.segments);
  EXPECT_EQ(A->getDeviceStats(0).inactive_split[0].current, 0);
  EXPECT_EQ(allocator_check(0), std::vector<std::string>{});
}
