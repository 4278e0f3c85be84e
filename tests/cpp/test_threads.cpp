// Several host threads launching kernels at once: the program cache, the
// shared and thread-local kernel-handle caches, the per-kernel argument lock,
// the allocator and the device error flag under concurrent use. Each ctest
// process starts with cold in-memory caches, so the threads race to fill them.
// Results are exact (integer data; integer-valued floats for mm).
// scripts/sanitize.sh runs this under ThreadSanitizer and AddressSanitizer.
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <torch_ocl/torch_ocl.h>

#include <ATen/CPUGeneratorImpl.h>

#include <atomic>
#include <latch>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 8;
constexpr int kIterations = 6;

const char* kScaleSource = R"(__kernel void thread_test_scale(__global const long* x, __global long* y, long a) {
  size_t i = get_global_id(0);
  y[i] = a * x[i] + 1;
})";

// One thread's work: mixed ops, each compared exactly with the CPU. Returns
// the number of mismatches (gtest assertions are not used off the main thread).
int run_worker(int id, std::latch& start) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1000 + id);
  const auto dev = torch_ocl::device(0);
  const auto i64 = torch::TensorOptions().dtype(torch::kLong);
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat);
  start.arrive_and_wait();  // first: nothing before it can throw and leave the others waiting
  torch_ocl::Kernel scale(kScaleSource, "thread_test_scale");  // all threads race on the program cache
  int bad = 0;
  for (int it = 0; it < kIterations; ++it) {
    const int64_t n = 1 + (id * 131 + it * 977) % 5000;  // sizes differ per thread: allocator churn
    auto a = torch::randint(-100, 100, {n}, gen, i64);
    auto b = torch::randint(-100, 100, {n}, gen, i64);
    auto c = torch::randint(-100, 100, {n}, gen, i64);
    auto da = a.to(dev), db = b.to(dev), dc = c.to(dev);

    // pointwise + reduction + scan
    auto r = da * db + dc;
    bad += !torch::equal(r.cpu(), a * b + c);
    bad += r.sum().item<int64_t>() != (a * b + c).sum().item<int64_t>();
    bad += !torch::equal(torch::cumsum(da, 0).cpu(), torch::cumsum(a, 0));

    // indexing with a device index tensor (device error flag path), masked_select (sync + nonzero)
    auto idx = torch::randint(0, n, {37}, gen, i64);
    bad += !torch::equal(torch::index_select(da, 0, idx.to(dev)).cpu(), torch::index_select(a, 0, idx));
    bad += !torch::equal(torch::masked_select(da, da > 0).cpu(), torch::masked_select(a, a > 0));

    // float mm on integer values: exact in float32
    auto x = torch::randint(-8, 8, {17, 13}, gen, f32);
    auto y = torch::randint(-8, 8, {13, 9}, gen, f32);
    bad += !torch::equal(torch::mm(x.to(dev), y.to(dev)).cpu(), torch::mm(x, y));

    // a user kernel object shared by name across threads (same cl_kernel, argument lock)
    auto out = torch::empty_like(da);
    scale.launch({static_cast<size_t>(n)}, {da, out, static_cast<int64_t>(id)});
    bad += !torch::equal(out.cpu(), a * id + 1);
  }
  torch_ocl::synchronize();
  return bad;
}

}  // namespace

TEST(Threads, ConcurrentLaunchesAreExact) {
  const auto mode = torch_ocl::get_fallback_mode();
  torch_ocl::set_fallback_mode("error");  // every op above must be native
  std::latch start(kThreads);
  std::atomic<int> bad{0};
  std::atomic<int> errors{0};
  std::vector<std::string> messages(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        bad += run_worker(t, start);
      } catch (const std::exception& e) {
        ++errors;
        messages[t] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  torch_ocl::set_fallback_mode(mode);
  for (const auto& m : messages) EXPECT_TRUE(m.empty()) << m;
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(bad.load(), 0);
}
