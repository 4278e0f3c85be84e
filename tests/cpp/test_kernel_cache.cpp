// The kernel cache: a warm launch of a generated kernel finds its cl_kernel
// through the thread-local integer-keyed cache, without touching the program
// cache (no lookup, no compile, no disk read) or the shared kernel table.
#include <gtest/gtest.h>
#include <functional>
#include <torch/torch.h>
#include <torch_ocl/torch_ocl.h>

#include "allocator/device_allocator.h"
#include "backend/kernel_launch.h"
#include "backend/program_cache.h"
#include "backend/runtime.h"

namespace {
// Runs `warm` ten times after one cold call; expects no program-cache lookup,
// compile or disk read and no shared-table access; returns the number of
// this thread's kernel-cache hits.
size_t warm_hits_without_program_cache(const std::function<void()>& warm) {
  warm();  // cold: generates and builds (or loads)
  torch_ocl::synchronize();
  const auto programs_before = torch_ocl::program_cache_stats();
  const auto kernels_before = torch_ocl::kernel_cache_stats();
  for (int i = 0; i < 10; ++i) warm();
  torch_ocl::synchronize();
  const auto programs_after = torch_ocl::program_cache_stats();
  const auto kernels_after = torch_ocl::kernel_cache_stats();
  EXPECT_EQ(programs_after.memory_hits, programs_before.memory_hits);
  EXPECT_EQ(programs_after.disk_hits, programs_before.disk_hits);
  EXPECT_EQ(programs_after.compiles, programs_before.compiles);
  EXPECT_EQ(kernels_after.builds, kernels_before.builds);
  EXPECT_EQ(kernels_after.shared_hits, kernels_before.shared_hits);
  return kernels_after.thread_hits - kernels_before.thread_hits;
}
}  // namespace

TEST(KernelCache, WarmLaunchDoesNoProgramCacheLookup) {
  auto a = torch::randn({1000}).to(torch_ocl::device());
  torch::Tensor b;
  EXPECT_EQ(warm_hits_without_program_cache([&] { b = a * a + a; }), 20u);  // 10 x (mul, add)
  EXPECT_TRUE(torch::allclose(b.cpu(), a.cpu() * a.cpu() + a.cpu()));
}

TEST(KernelCache, NewDtypeBuildsOneKernel) {
  auto a = torch::randn({64}).to(torch::kFloat64).to(torch_ocl::device());
  const auto before = torch_ocl::kernel_cache_stats();
  auto b = torch::atan2(a, a).cpu();  // a (op, dtype) pair no other test uses
  const auto after = torch_ocl::kernel_cache_stats();
  EXPECT_EQ(after.builds - before.builds, 1u);
  EXPECT_TRUE(torch::allclose(b, torch::atan2(a.cpu(), a.cpu())));
}

TEST(KernelCache, UnchangedArgumentsAreNotSetAgain) {
  auto a = torch::randn({1000}).to(torch_ocl::device());
  auto b = torch::randn({1000}).to(torch_ocl::device());
  { auto warm = a + b; }
  torch_ocl::synchronize();
  // Each sum is freed before the next: the same block, so the same arguments.
  const auto before = torch_ocl::kernel_cache_stats();
  for (int i = 0; i < 10; ++i) {
    auto c = a + b;
  }
  EXPECT_EQ(torch_ocl::kernel_cache_stats().args_set, before.args_set);
  // A new output: only its buffer and offset change.
  auto kept = a + b;
  auto other = a + b;
  EXPECT_LE(torch_ocl::kernel_cache_stats().args_set - before.args_set, 4u);
  EXPECT_TRUE(torch::allclose(other.cpu(), a.cpu() + b.cpu()));
  // Released buffers forget every remembered value: new buffers may reuse a
  // released handle, and their arguments must be set again.
  const auto a_host = a.cpu(), b_host = b.cpu();
  a.reset(), b.reset(), kept.reset(), other.reset();
  torch_ocl::synchronize();
  torch_ocl::device_allocator()->emptyCache({0, 0});
  for (int i = 0; i < 3; ++i) {
    auto a2 = a_host.to(torch_ocl::device()), b2 = (b_host * (i + 1)).to(torch_ocl::device());
    const auto set_before = torch_ocl::kernel_cache_stats().args_set;
    auto c = a2 + b2;
    EXPECT_GT(torch_ocl::kernel_cache_stats().args_set, set_before);
    EXPECT_TRUE(torch::allclose(c.cpu(), a_host + b_host * (i + 1)));
    c.reset(), a2.reset(), b2.reset();
    torch_ocl::synchronize();
    torch_ocl::device_allocator()->emptyCache({0, 0});
  }
}

TEST(KernelCache, OneBufferLaunchesKeepTheirArguments) {
  if (torch_ocl::device_info(0).is_gpu()) GTEST_SKIP() << "one-buffer kernels exist on CPU devices only";
  // Every output is kept, so each launch writes at a new offset of the same
  // segment: one-buffer kernels take their tensors' offsets as the range's
  // global offsets, so no argument changes and none is set again.
  auto a = torch::randn({1000}).to(torch_ocl::device());
  auto b = torch::randn({1000}).to(torch_ocl::device());
  std::vector<torch::Tensor> outs{a + b};
  const auto before = torch_ocl::kernel_cache_stats();
  for (int i = 0; i < 8; ++i) outs.push_back(i % 2 ? b + a : a + b);
  EXPECT_EQ(torch_ocl::kernel_cache_stats().args_set, before.args_set);
  const auto expected = a.cpu() + b.cpu();
  for (const auto& o : outs) EXPECT_TRUE(torch::allclose(o.cpu(), expected));
}

// Kernels of kernels/*.cl sources (source_kernel): a warm device copy (dense
// and strided), cumsum, layer_norm, max_pool2d, softmax, sort, index_select
// and gather find their kernel
// by integer key too: no program-cache lookup, no preamble string, no shared
// table.
TEST(KernelCache, WarmSourceKernelLaunchesDoNoProgramCacheLookup) {
  auto a = torch::randn({64, 64}).to(torch_ocl::device());
  auto dense = torch::empty_like(a), strided = torch::empty_like(a), scanned = torch::empty_like(a);
  torch::Tensor normed, pooled, soft, sorted, selected, gathered;
  const auto rows = torch::randint(0, 64, {16}, torch::kLong).to(torch_ocl::device());
  const auto cols = torch::randint(0, 64, {64, 8}, torch::kLong).to(torch_ocl::device());
  auto run = [&] {
    dense.copy_(a);           // copy_dense (CPU devices) or clEnqueueCopyBuffer (GPUs)
    strided.copy_(a.t());     // copy_cast
    torch::cumsum_out(scanned, a, 1);
    normed = torch::layer_norm(a, {64});
    pooled = torch::max_pool2d(a.view({1, 1, 64, 64}), 2);
    soft = torch::softmax(a, 1);
    sorted = std::get<0>(torch::sort(a, 1));
    selected = torch::index_select(a, 0, rows);
    gathered = torch::gather(a, 1, cols);
  };
  // copy_cast, scan, norm, pool, softmax, sort, index_select, gather, x10
  EXPECT_GE(warm_hits_without_program_cache(run), 80u);
  EXPECT_TRUE(torch::equal(dense.cpu(), a.cpu()));
  EXPECT_TRUE(torch::equal(strided.cpu(), a.cpu().t()));
  EXPECT_TRUE(torch::allclose(scanned.cpu(), torch::cumsum(a.cpu(), 1), 1e-4, 1e-5));
  EXPECT_TRUE(torch::allclose(normed.cpu(), torch::layer_norm(a.cpu(), {64}), 1e-4, 1e-5));
  EXPECT_TRUE(torch::equal(pooled.cpu(), torch::max_pool2d(a.cpu().view({1, 1, 64, 64}), 2)));
  EXPECT_TRUE(torch::allclose(soft.cpu(), torch::softmax(a.cpu(), 1), 1e-4, 1e-6));
  EXPECT_TRUE(torch::equal(sorted.cpu(), std::get<0>(torch::sort(a.cpu(), 1))));
  EXPECT_TRUE(torch::equal(selected.cpu(), torch::index_select(a.cpu(), 0, rows.cpu())));
  EXPECT_TRUE(torch::equal(gathered.cpu(), torch::gather(a.cpu(), 1, cols.cpu())));
}
