// torch_ocl._bench: the raw baselines bench/ compares the backend against,
// timed on the same device: a direct CLBlast SGEMM on plain cl_mem buffers
// and clEnqueueCopyBuffer. Nothing here goes through PyTorch.
#include <torch/extension.h>

#include <clblast.h>

#include <chrono>
#include <vector>

#include "backend/runtime.h"

using namespace torch_ocl;

namespace {

struct Buffers {
  std::vector<cl_mem> mems;
  cl_command_queue queue = nullptr;
  explicit Buffers(const DeviceInfo& d) {
    cl_int err = CL_SUCCESS;
    queue = clCreateCommandQueue(d.context, d.id, 0, &err);
    OCL_CHECK(err);
  }
  cl_mem add(const DeviceInfo& d, size_t bytes) {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(d.context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    OCL_CHECK(err);
    const float zero = 0.f;
    OCL_CHECK(clEnqueueFillBuffer(queue, m, &zero, sizeof(zero), 0, bytes, 0, nullptr, nullptr));
    mems.push_back(m);
    return m;
  }
  ~Buffers() {
    for (auto m : mems) clReleaseMemObject(m);
    if (queue) clReleaseCommandQueue(queue);
  }
};

template <class F>
double seconds_per_call(cl_command_queue q, int iters, F&& f) {
  f();  // warm-up (kernel compilation)
  OCL_CHECK(clFinish(q));
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) f();
  OCL_CHECK(clFinish(q));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
}

double clblast_sgemm_seconds(int device, size_t m, size_t n, size_t k, int iters) {
  const DeviceInfo& d = device_info(static_cast<c10::DeviceIndex>(device));
  Buffers b(d);
  cl_mem A = b.add(d, m * k * 4), B = b.add(d, k * n * 4), C = b.add(d, m * n * 4);
  return seconds_per_call(b.queue, iters, [&] {
    auto s = clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo,
                                  clblast::Transpose::kNo, m, n, k, 1.f, A, 0, k, B, 0, n, 0.f, C, 0,
                                  n, &b.queue, nullptr);
    TORCH_CHECK(s == clblast::StatusCode::kSuccess, "CLBlast Gemm failed: ", static_cast<int>(s));
  });
}

double copy_buffer_seconds(int device, size_t bytes, int iters) {
  const DeviceInfo& d = device_info(static_cast<c10::DeviceIndex>(device));
  Buffers b(d);
  cl_mem src = b.add(d, bytes), dst = b.add(d, bytes);
  return seconds_per_call(b.queue, iters, [&] {
    OCL_CHECK(clEnqueueCopyBuffer(b.queue, src, dst, 0, 0, bytes, 0, nullptr, nullptr));
  });
}

}  // namespace

PYBIND11_MODULE(_bench, m) {
  m.def("clblast_sgemm_seconds", &clblast_sgemm_seconds, "seconds per direct CLBlast SGEMM call");
  m.def("copy_buffer_seconds", &copy_buffer_seconds, "seconds per clEnqueueCopyBuffer call");
}
