// torch_ocl::Kernel, the public C++ API for user OpenCL kernels.
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <torch_ocl/torch_ocl.h>

#include <string>

namespace {

const char* kAxpy = R"(
__kernel void cpp_axpy(__global const float* x, __global const float* y, __global float* out,
                       float a, long n) {
  long i = get_global_id(0);
  if (i < n) out[i] = a * x[i] + y[i];
})";

}  // namespace

TEST(CppUserKernel, AxpyMatchesCpu) {
  torch_ocl::Kernel axpy(kAxpy, "cpp_axpy");
  EXPECT_EQ(axpy.name(), "cpp_axpy");
  torch::manual_seed(0);
  const int64_t n = 3001;  // not a multiple of the work-group size
  auto x = torch::randn({n});
  auto y = torch::randn({n});
  auto ox = x.to(torch_ocl::device());
  auto oy = y.to(torch_ocl::device());
  auto out = torch::full({n}, -7.0f, ox.options());
  // Global size rounded up to 64 with an explicit local size: the kernel's bound check matters.
  const size_t global = (n + 63) / 64 * 64;
  axpy.launch({global}, {ox, oy, out, 2.5f, n}, {64});
  torch::Tensor expected = 2.5f * x + y;
  EXPECT_TRUE(torch::allclose(out.cpu(), expected, 1e-6, 1e-6));
  // A second launch reuses the built kernel; slices of a tensor bind at their offset
  // (4096 bytes: a multiple of any device's base-address alignment).
  const int64_t off = 1024;
  axpy.launch({static_cast<size_t>(n - off)},
              {ox.slice(0, off), oy.slice(0, off), out.slice(0, off), -1.0f, n - off});
  auto host = out.cpu();
  EXPECT_TRUE(torch::allclose(host.slice(0, off), -x.slice(0, off) + y.slice(0, off), 1e-6, 1e-6));
  EXPECT_TRUE(torch::allclose(host.slice(0, 0, off), expected.slice(0, 0, off), 1e-6, 1e-6));
}

TEST(CppUserKernel, BadSourceReportsBuildLog) {
  torch_ocl::Kernel bad("__kernel void cpp_bad(__global float* x) { x[0] = not_declared_anywhere; }", "cpp_bad");
  auto x = torch::zeros({4}, torch::TensorOptions().device(torch_ocl::device()));
  try {
    bad.launch({4}, {x});
    FAIL() << "a kernel that does not compile was launched";
  } catch (const c10::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("build log"), std::string::npos) << msg;
    EXPECT_NE(msg.find("not_declared_anywhere"), std::string::npos) << msg;  // the compiler's own words
  }
}

TEST(CppUserKernel, BadArgumentsAreRejected) {
  torch_ocl::Kernel axpy(kAxpy, "cpp_axpy");
  auto x = torch::ones({8}, torch::TensorOptions().device(torch_ocl::device()));
  EXPECT_THROW(axpy.launch({8}, {x, x, x, 1.0f}), c10::Error);                 // too few arguments
  EXPECT_THROW(axpy.launch({8}, {x, x, torch::ones({8}), 1.0f, int64_t{8}}), c10::Error);  // a CPU tensor
  EXPECT_THROW(axpy.launch({8}, {x, x, x, 1.0, int64_t{8}}), c10::Error);       // double for a float parameter
  torch_ocl::Kernel missing(kAxpy, "no_such_kernel");
  EXPECT_THROW(missing.launch({8}, {x}), c10::Error);
}
