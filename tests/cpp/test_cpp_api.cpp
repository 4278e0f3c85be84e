// The public C++ API as a libtorch program uses it.
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <torch_ocl/torch_ocl.h>

TEST(CppApi, DeviceAndMmMatchCpu) {
  ASSERT_TRUE(torch_ocl::is_available());
  EXPECT_GE(torch_ocl::device_count(), 1);
  EXPECT_EQ(torch_ocl::device(0).str(), "ocl:0");
  EXPECT_FALSE(torch_ocl::device_name(0).empty());
  torch::manual_seed(0);
  auto a = torch::randn({33, 17});
  auto b = torch::randn({17, 9});
  torch_ocl::set_fallback_mode("error");  // mm, copies and views must be native
  auto c = torch::mm(a.to(torch_ocl::device()), b.to(torch_ocl::device()).t().contiguous().t());
  EXPECT_EQ(c.device(), torch_ocl::device(0));
  auto host = c.cpu();
  torch_ocl::synchronize();
  torch_ocl::set_fallback_mode("warn");
  EXPECT_TRUE(torch::allclose(host, torch::mm(a, b), 1e-4, 1e-5));
}

TEST(CppApi, FallbackModeAndStats) {
  torch_ocl::reset_fallback_stats();
  torch_ocl::set_fallback_mode("silent");
  auto m = torch::tensor({2, 1, 1, 3}, torch::kLong).view({2, 2}).to(torch_ocl::device());
  // Integer convolutions have no ocl kernel (CUDA has none either): they run on the CPU.
  auto conv = [](const torch::Tensor& x) { return torch::conv1d(x.view({1, 2, 2}), x.view({2, 2, 1})); };
  auto p = conv(m).cpu();
  EXPECT_EQ(p.sum().item<int64_t>(), 25);  // [[[5, 5], [5, 10]]]
  auto stats = torch_ocl::fallback_stats();
  EXPECT_EQ(stats["aten::convolution"], 1u);
  torch_ocl::set_fallback_mode("error");
  EXPECT_THROW(conv(m), c10::Error);
  torch_ocl::set_fallback_mode("warn");
  EXPECT_THROW(torch_ocl::set_fallback_mode("bogus"), c10::Error);
}
