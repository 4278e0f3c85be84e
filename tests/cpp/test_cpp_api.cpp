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
  auto x = torch::arange(8, torch::TensorOptions().dtype(torch::kFloat).device(torch_ocl::device()));
  auto y = torch::fft::rfft(x).cpu();  // FFTs have no ocl kernel: run on the CPU
  EXPECT_FLOAT_EQ(torch::real(y)[0].item<float>(), 28.0f);
  auto stats = torch_ocl::fallback_stats();
  EXPECT_EQ(stats["aten::_fft_r2c"], 1u);
  torch_ocl::set_fallback_mode("error");
  EXPECT_THROW(torch::fft::rfft(x), c10::Error);
  torch_ocl::set_fallback_mode("warn");
  EXPECT_THROW(torch_ocl::set_fallback_mode("bogus"), c10::Error);
}
