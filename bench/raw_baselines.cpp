// torch_ocl._bench: the raw baselines bench/ compares the backend against,
// timed on the same device: a direct CLBlast SGEMM on plain cl_mem buffers
// clEnqueueCopyBuffer, and hand-written OpenCL copy kernels (built here with
// clBuildProgram, not through torch_ocl's program cache). Nothing here goes
// through PyTorch.
#include <torch/extension.h>

#include <clblast.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <mutex>
#include <string>
#include <utility>
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

// CLBlast's batched convolution as GEMM (its own im2col inside), NCHW,
// square images and kernels, padding k/2: the alternative to torch_ocl's
// im2col + GEMM for a conv2d forward.
double clblast_convgemm_seconds(int device, size_t channels, size_t hw, size_t k, size_t stride,
                                size_t num_kernels, size_t batch, int iters) {
  const DeviceInfo& d = device_info(static_cast<c10::DeviceIndex>(device));
  Buffers b(d);
  const size_t pad = k / 2, out_hw = (hw + 2 * pad - k) / stride + 1;
  cl_mem im = b.add(d, batch * channels * hw * hw * 4), w = b.add(d, num_kernels * channels * k * k * 4),
         out = b.add(d, batch * num_kernels * out_hw * out_hw * 4);
  return seconds_per_call(b.queue, iters, [&] {
    auto s = clblast::Convgemm<float>(clblast::KernelMode::kCrossCorrelation, channels, hw, hw, k, k, pad, pad,
                                      stride, stride, 1, 1, num_kernels, batch, im, 0, w, 0, out, 0, &b.queue,
                                      nullptr);
    TORCH_CHECK(s == clblast::StatusCode::kSuccess, "CLBlast Convgemm failed: ", static_cast<int>(s));
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

// Raw copy kernels: what the best plain copy kernel reaches on the device, the
// ceiling for an elementwise kernel (the driver's clEnqueueCopyBuffer may use
// a DMA engine or memcpy that no kernel can match, or may be slower than one).
const char* kCopySource = R"CLC(
__kernel void copy_f1(__global const float* restrict src, __global float* restrict dst) {
  const size_t i = get_global_id(0);
  dst[i] = src[i];
}
__kernel void copy_f4(__global const float* restrict src, __global float* restrict dst) {
  const size_t i = get_global_id(0);
  vstore4(vload4(i, src), i, dst);
}
__kernel void copy_f4_grid(__global const float* restrict src, __global float* restrict dst,
                           const ulong n4) {
  const size_t stride = get_global_size(0);
  for (size_t i = get_global_id(0); i < n4; i += stride) vstore4(vload4(i, src), i, dst);
}
__kernel void copy_f4_chunk(__global const float* restrict src, __global float* restrict dst,
                            const ulong n4) {
  const size_t per = (n4 + get_global_size(0) - 1) / get_global_size(0);
  const size_t begin = get_global_id(0) * per;
  const size_t end = min((size_t)n4, begin + per);
  for (size_t i = begin; i < end; ++i) vstore4(vload4(i, src), i, dst);
}
)CLC";

// A variant: its kernel, and either one work item per float / float4
// (groups_per_cu == 0, driver-chosen work-group size), or a fixed grid of
// groups_per_cu x compute_units work groups of 256 items looping over the data:
// grid-stride (work item i copies float4s i, i + grid, ...: coalesced on a
// GPU) or chunked (each work item copies one contiguous range: what suits a
// CPU device such as PoCL, which runs a work group's items one after another).
struct CopyVariant {
  const char* kernel;
  size_t floats_per_item;
  size_t groups_per_cu;
};
const std::map<std::string, CopyVariant>& copy_variants() {
  static const std::map<std::string, CopyVariant> v = {
      {"float", {"copy_f1", 1, 0}},
      {"float4", {"copy_f4", 4, 0}},
      {"float4_grid", {"copy_f4_grid", 4, 16}},
      {"float4_chunk", {"copy_f4_chunk", 4, 4}},
  };
  return v;
}

cl_program copy_program(const DeviceInfo& d) {
  static std::mutex mu;
  static std::map<cl_device_id, cl_program> programs;  // kept for the process
  std::lock_guard<std::mutex> lock(mu);
  auto it = programs.find(d.id);
  if (it != programs.end()) return it->second;
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(d.context, 1, &kCopySource, nullptr, &err);
  OCL_CHECK(err);
  err = clBuildProgram(p, 1, &d.id, "-cl-std=CL1.2", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t len = 0;
    clGetProgramBuildInfo(p, d.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &len);
    std::string log(len, '\0');
    clGetProgramBuildInfo(p, d.id, CL_PROGRAM_BUILD_LOG, len, log.data(), nullptr);
    clReleaseProgram(p);
    TORCH_CHECK(false, "raw copy kernels failed to build: ", log);
  }
  programs[d.id] = p;
  return p;
}

// A copy kernel of copy_program with its source and destination set.
struct CopyKernel {
  cl_kernel k = nullptr;
  CopyKernel(const DeviceInfo& d, const char* name, cl_mem src, cl_mem dst) {
    cl_int err = CL_SUCCESS;
    k = clCreateKernel(copy_program(d), name, &err);
    OCL_CHECK(err);
    const cl_int e0 = clSetKernelArg(k, 0, sizeof(cl_mem), &src), e1 = clSetKernelArg(k, 1, sizeof(cl_mem), &dst);
    if (e0 != CL_SUCCESS || e1 != CL_SUCCESS) clReleaseKernel(k);  // no destructor after a throwing constructor
    OCL_CHECK(e0);
    OCL_CHECK(e1);
  }
  ~CopyKernel() { clReleaseKernel(k); }
  CopyKernel(const CopyKernel&) = delete;
  CopyKernel& operator=(const CopyKernel&) = delete;
};

// Seconds per launch of copy kernel `variant` copying `bytes` (a multiple of
// 16) from one buffer to another, after one warm-up launch.
double copy_kernel_seconds(int device, const std::string& variant, size_t bytes, int iters) {
  const DeviceInfo& d = device_info(static_cast<c10::DeviceIndex>(device));
  auto vit = copy_variants().find(variant);
  TORCH_CHECK(vit != copy_variants().end(), "unknown copy kernel variant ", variant);
  const CopyVariant& v = vit->second;
  TORCH_CHECK(bytes % 16 == 0 && bytes > 0, "copy_kernel_seconds: bytes must be a multiple of 16");
  Buffers b(d);
  cl_mem src = b.add(d, bytes), dst = b.add(d, bytes);
  CopyKernel ck(d, v.kernel, src, dst);
  cl_kernel k = ck.k;
  const size_t items = bytes / 4 / v.floats_per_item;
  size_t global = items;
  size_t local = 0;  // 0: let the driver choose
  if (v.groups_per_cu) {
    const cl_ulong n4 = items;
    OCL_CHECK(clSetKernelArg(k, 2, sizeof(cl_ulong), &n4));
    local = std::min<size_t>(256, d.max_work_group_size);
    global = std::max<size_t>(1, d.compute_units) * v.groups_per_cu * local;
    global = std::min(global, (items + local - 1) / local * local);
  }
  return seconds_per_call(b.queue, iters, [&] {
    OCL_CHECK(clEnqueueNDRangeKernel(b.queue, k, 1, nullptr, &global, local ? &local : nullptr,
                                     0, nullptr, nullptr));
  });
}

// The floor of one small launch on this driver: the "float4" copy kernel over
// `bytes`, its arguments set once, launched `iters` times from a C loop and
// submitted as torch_ocl submits (batches of `batch` launches held behind a
// user event; 1: each at once). Returns {wall seconds per launch (clFinish
// included), the calling thread's CPU seconds per launch (enqueue only)}.
std::pair<double, double> raw_launch_seconds(int device, size_t bytes, int iters, int batch) {
  const DeviceInfo& d = device_info(static_cast<c10::DeviceIndex>(device));
  TORCH_CHECK(bytes % 16 == 0 && bytes > 0 && iters > 0 && batch >= 1, "raw_launch_seconds: bad arguments");
  Buffers b(d);
  cl_mem src = b.add(d, bytes), dst = b.add(d, bytes);
  CopyKernel ck(d, "copy_f4", src, dst);
  cl_kernel k = ck.k;
  cl_int err = CL_SUCCESS;
  const size_t global = bytes / 16;
  cl_event gate = nullptr;
  int held = 0;
  long launched = 0;
  auto launch = [&] {
    ++launched;
    if (batch > 1 && gate == nullptr) {
      gate = clCreateUserEvent(d.context, &err);
      OCL_CHECK(err);
    }
    const bool first = gate != nullptr && held == 0;
    OCL_CHECK(clEnqueueNDRangeKernel(b.queue, k, 1, nullptr, &global, nullptr, first ? 1 : 0, first ? &gate : nullptr,
                                     nullptr));
    if (gate != nullptr && ++held >= batch) {
      OCL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
      clReleaseEvent(gate);
      gate = nullptr;
      held = 0;
    }
  };
  auto thread_seconds = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  for (int i = 0; i < std::max(batch, 64) || gate != nullptr; ++i) launch();  // warm-up (compile, PoCL's pools)
  OCL_CHECK(clFinish(b.queue));
  launched = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = thread_seconds();
  for (int i = 0; i < iters || gate != nullptr; ++i) launch();  // the last batch completed: submitted
  const double cpu = thread_seconds() - c0;
  OCL_CHECK(clFinish(b.queue));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {wall / static_cast<double>(launched), cpu / static_cast<double>(launched)};
}

std::vector<std::string> copy_kernel_variants() {
  std::vector<std::string> names;
  for (const auto& [name, v] : copy_variants()) names.push_back(name);
  return names;
}

}  // namespace

PYBIND11_MODULE(_bench, m) {
  m.def("clblast_sgemm_seconds", &clblast_sgemm_seconds, "seconds per direct CLBlast SGEMM call");
  m.def("clblast_convgemm_seconds", &clblast_convgemm_seconds,
        "seconds per direct CLBlast Convgemm call (conv2d forward, NCHW, padding k/2)");
  m.def("copy_buffer_seconds", &copy_buffer_seconds, "seconds per clEnqueueCopyBuffer call");
  m.def("copy_kernel_seconds", &copy_kernel_seconds,
        "seconds per launch of a raw OpenCL copy kernel variant (bytes: multiple of 16)");
  m.def("raw_launch_seconds", &raw_launch_seconds,
        "(wall, calling thread CPU) seconds per raw launch of a small copy kernel, submitted in batches");
  m.def("copy_kernel_variants", &copy_kernel_variants, "names of the raw copy kernel variants");
}
