// The caching allocator under a randomized load: several threads, each
// switching between the default stream and pool streams, allocate blocks of
// mixed sizes, fill them with a per-block pattern, hand some to another
// stream (recordStream, an asynchronous read there, then an immediate free),
// call empty_cache, and run into a memory cap (OutOfMemoryError, then go on).
// allocator_check() must pass throughout, every block must hold its own
// pattern when it is freed (a block handed out twice, or reused before
// another stream finished with it, is overwritten), and at the end
// everything is returned. Seeded: TORCH_OCL_STRESS_SEED=S reproduces a run.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "allocator/device_allocator.h"
#include "backend/cl_objects.h"
#include "backend/runtime.h"

using namespace torch_ocl;

namespace {

c10::Stream stream_with_id(int id) {
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, 0), id);
}

struct Live {
  c10::DataPtr ptr;
  size_t bytes = 0;
  cl_uint pattern = 0;
  int stream = 0;
};

// A handed-off read: the block was freed right after the read was enqueued on
// `stream`; the data must still be the pattern when that stream is done.
struct HandOff {
  std::vector<cl_uint> host;
  cl_uint pattern = 0;
  int stream = 0;
};

struct Failures {
  std::mutex mutex;
  std::vector<std::string> list;
  void add(std::string s) {
    std::lock_guard<std::mutex> lock(mutex);
    if (list.size() < 20) list.push_back(std::move(s));
  }
  bool any() {
    std::lock_guard<std::mutex> lock(mutex);
    return !list.empty();
  }
};

constexpr size_t kWindow = 1024;  // words verified at the head, the tail and one random place

cl_int fill(const Live& b) {
  cl_command_queue q = stream_queue(stream_with_id(b.stream));
  const DeviceBuffer d = resolve_device_ptr(b.ptr.get());
  return clEnqueueFillBuffer(q, d.buffer, &b.pattern, sizeof(cl_uint), d.offset, b.bytes, 0, nullptr, nullptr);
}

// Reads words [first, first + n) of `b` on its stream (blocking) and checks them.
bool verify(const Live& b, size_t first, size_t n, std::string& why) {
  const DeviceBuffer d = resolve_device_ptr(b.ptr.get());
  std::vector<cl_uint> host(n);
  const cl_int err = clEnqueueReadBuffer(stream_queue(stream_with_id(b.stream)), d.buffer, CL_TRUE,
                                         d.offset + first * sizeof(cl_uint), n * sizeof(cl_uint), host.data(), 0,
                                         nullptr, nullptr);
  if (err != CL_SUCCESS) {
    why = "clEnqueueReadBuffer failed: " + std::string(cl_error_name(err));
    return false;
  }
  for (size_t i = 0; i < n; ++i)
    if (host[i] != b.pattern) {
      why = "word " + std::to_string(first + i) + " of a " + std::to_string(b.bytes) + "-byte block is " +
            std::to_string(host[i]) + ", expected " + std::to_string(b.pattern);
      return false;
    }
  return true;
}

struct Totals {
  std::atomic<int64_t> iterations{0}, allocs{0}, handoffs{0}, empties{0}, ooms{0}, checks{0};
};

void worker(int thread_id, uint64_t seed, int iterations, Failures& failures, Totals& totals) {
  std::mt19937_64 rng(seed * 1000003 + thread_id);
  auto uniform = [&](size_t lo, size_t hi) { return std::uniform_int_distribution<size_t>(lo, hi)(rng); };
  std::vector<Live> live;
  std::vector<HandOff> handoffs;
  std::vector<std::unique_ptr<HandOff>> pending_reads;
  cl_uint next_pattern = static_cast<cl_uint>(thread_id + 1) << 24;
  const std::string who = "thread " + std::to_string(thread_id) + " seed " + std::to_string(seed) + ": ";

  auto release = [&](size_t i, bool check) {
    Live& b = live[i];
    std::string why;
    if (check) {
      const size_t words = b.bytes / sizeof(cl_uint);
      const size_t n = std::min(words, kWindow);
      bool ok = verify(b, 0, n, why) && verify(b, words - n, n, why) && verify(b, uniform(0, words - n), n, why);
      if (!ok) failures.add(who + why);
    }
    live[i] = std::move(live.back());
    live.pop_back();
  };

  for (int it = 0; it < iterations && !failures.any(); ++it) {
    totals.iterations++;
    const int stream = static_cast<int>(uniform(0, 4));  // default stream or one of 4 pool streams
    set_current_stream(stream_with_id(stream));
    const size_t op = uniform(0, 99);
    if (op < 50 || live.empty()) {
      // allocate: mostly small, some mid-sized, a few large (own segment)
      const size_t kind = uniform(0, 99);
      size_t words = kind < 70 ? uniform(1, 16 << 10) : kind < 97 ? uniform(256 << 10, 1 << 20) : uniform(3 << 20, 5 << 20);
      Live b;
      try {
        b.ptr = device_allocator()->allocate(words * sizeof(cl_uint));
      } catch (const c10::OutOfMemoryError&) {
        totals.ooms++;
        // Free half of what this thread holds and go on, as a training loop would.
        for (size_t k = live.size() / 2; k > 0; --k) release(uniform(0, live.size() - 1), true);
        continue;
      }
      totals.allocs++;
      b.bytes = words * sizeof(cl_uint);
      b.pattern = next_pattern++;
      b.stream = stream;
      if (const cl_int err = fill(b); err != CL_SUCCESS)
        failures.add(who + "clEnqueueFillBuffer failed: " + cl_error_name(err));
      live.push_back(std::move(b));
      if (live.size() > 24) release(uniform(0, live.size() - 1), true);
    } else if (op < 80) {
      release(uniform(0, live.size() - 1), true);
    } else if (op < 93) {
      // Hand a block to another stream: that stream waits for the fill, reads
      // the block asynchronously, recordStream, and the block is freed at once.
      const size_t i = uniform(0, live.size() - 1);
      Live& b = live[i];
      const int other = static_cast<int>((b.stream + uniform(1, 4)) % 5);
      cl_event filled = nullptr;
      cl_command_queue from = stream_queue(stream_with_id(b.stream)), to = stream_queue(stream_with_id(other));
      clEnqueueMarkerWithWaitList(from, 0, nullptr, &filled);
      clEnqueueBarrierWithWaitList(to, 1, &filled, nullptr);
      clReleaseEvent(filled);
      auto h = std::make_unique<HandOff>();
      const size_t n = std::min(b.bytes / sizeof(cl_uint), kWindow);
      h->host.resize(n);
      h->pattern = b.pattern;
      h->stream = other;
      const DeviceBuffer d = resolve_device_ptr(b.ptr.get());
      const size_t first = (b.bytes / sizeof(cl_uint) - n) * sizeof(cl_uint);  // the tail
      clEnqueueReadBuffer(to, d.buffer, CL_FALSE, d.offset + first, n * sizeof(cl_uint), h->host.data(), 0, nullptr,
                          nullptr);
      device_allocator()->recordStream(b.ptr, stream_with_id(other));
      release(i, false);
      pending_reads.push_back(std::move(h));
      totals.handoffs++;
    } else if (op < 96) {
      device_allocator()->emptyCache({0, 0});
      totals.empties++;
    } else {
      // settle the handed-off reads
      for (auto& h : pending_reads) {
        clFinish(stream_queue(stream_with_id(h->stream)));
        for (cl_uint w : h->host)
          if (w != h->pattern) {
            failures.add(who + "a block was reused before the stream it was recorded on had read it: read " +
                         std::to_string(w) + ", expected " + std::to_string(h->pattern));
            break;
          }
      }
      pending_reads.clear();
    }
    if (it % 16 == 0) {
      totals.checks++;
      for (auto& s : allocator_check(0)) failures.add(who + "invariant: " + s);
    }
  }
  while (!live.empty()) release(live.size() - 1, true);
  for (auto& h : pending_reads) {
    clFinish(stream_queue(stream_with_id(h->stream)));
    for (cl_uint w : h->host)
      if (w != h->pattern) {
        failures.add(who + "a handed-off block was reused early");
        break;
      }
  }
  set_current_stream(stream_with_id(0));
}

}  // namespace

TEST(AllocatorStress, RandomizedThreadsStreamsRecordStreamEmptyCacheAndOom) {
  device_allocator()->emptyCache({0, 0});
  const auto before = allocator_snapshot(0);
  const auto objects_before = live_cl_objects();
  const char* env = std::getenv("TORCH_OCL_STRESS_SEED");
  const uint64_t seed = env ? std::strtoull(env, nullptr, 10) : 1;
  const char* iters_env = std::getenv("TORCH_OCL_STRESS_ITERS");
  const int iterations = iters_env ? std::atoi(iters_env) : 600;
  constexpr int kThreads = 4;
  // A cap that the threads' live sets (up to 24 blocks each, a few of 12-20
  // MiB) reach now and then: out-of-memory mid-run, under contention.
  set_memory_limit(0, 96 << 20);
  Failures failures;
  Totals totals;
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        try {
          worker(t, seed, iterations, failures, totals);
        } catch (const std::exception& e) {
          failures.add("thread " + std::to_string(t) + " raised: " + e.what());
        }
      });
    for (auto& t : threads) t.join();
  }
  set_memory_limit(0, 0);
  synchronize_device(0);
  for (const auto& f : failures.list) ADD_FAILURE() << f;
  EXPECT_EQ(allocator_check(0), std::vector<std::string>{});
  device_allocator()->emptyCache({0, 0});
  EXPECT_EQ(allocator_check(0, /*after_empty_cache=*/true), std::vector<std::string>{});
  const auto after = allocator_snapshot(0);
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(after.reserved_bytes, before.reserved_bytes);  // everything returned
  EXPECT_EQ(after.active_blocks, before.active_blocks);
  const auto objects_after = live_cl_objects();
  EXPECT_EQ(objects_after[static_cast<int>(ClObject::Buffer)], objects_before[static_cast<int>(ClObject::Buffer)]);
  EXPECT_EQ(objects_after[static_cast<int>(ClObject::Event)], objects_before[static_cast<int>(ClObject::Event)]);
  std::printf("[stress] seed %llu: %lld iterations, %lld allocations, %lld hand-offs (recordStream), "
              "%lld empty_cache, %lld out-of-memory, %lld invariant walks\n",
              static_cast<unsigned long long>(seed), static_cast<long long>(totals.iterations.load()),
              static_cast<long long>(totals.allocs.load()), static_cast<long long>(totals.handoffs.load()),
              static_cast<long long>(totals.empties.load()), static_cast<long long>(totals.ooms.load()),
              static_cast<long long>(totals.checks.load()));
  EXPECT_GT(totals.handoffs.load(), 0);
  EXPECT_GT(totals.empties.load(), 0);
}

// The check itself must see a broken invariant (a check that cannot fail
// proves nothing): a segment that holds only a cached block is what
// empty_cache should have returned.
TEST(AllocatorStress, CheckReportsASegmentEmptyCacheShouldHaveReturned) {
  device_allocator()->emptyCache({0, 0});
  auto a = device_allocator()->allocate(4096);
  EXPECT_EQ(allocator_check(0), std::vector<std::string>{});
  device_allocator()->emptyCache({0, 0});  // keeps the segment: it holds a live block
  EXPECT_EQ(allocator_check(0, /*after_empty_cache=*/true), std::vector<std::string>{});
  a.clear();  // freed: the segment is one cached block now
  EXPECT_EQ(allocator_check(0), std::vector<std::string>{});
  const auto problems = allocator_check(0, /*after_empty_cache=*/true);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("holds no live block after empty_cache"), std::string::npos) << problems[0];
  device_allocator()->emptyCache({0, 0});
  EXPECT_EQ(allocator_check(0, true), std::vector<std::string>{});
  EXPECT_EQ(allocator_snapshot(0).segments, 0u);
}
