// torch_ocl's public C++ API. Link against libtorch_ocl.so (which registers
// the `ocl` device with PyTorch when it is loaded) and use torch as usual:
//
//   #include <torch/torch.h>
//   #include <torch_ocl/torch_ocl.h>
//   auto a = torch::randn({64, 64}).to(torch_ocl::device());
//   auto c = torch::mm(a, a).cpu();
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace torch_ocl {

// torch::Device("ocl:<index>"); index -1 is the current device.
c10::Device device(int index = -1);
bool is_available();
int device_count();
int current_device();
void set_device(int index);
std::string device_name(int index);
// Waits for all queued work on `index` (-1: the current device).
void synchronize(int index = -1);
// Seeds the default generator of every ocl device.
void manual_seed(uint64_t seed);

// The CPU fallback: "warn", "silent" or "error" (TORCH_OCL_FALLBACK).
void set_fallback_mode(const std::string& mode);
std::string get_fallback_mode();
// op name -> number of calls that ran on the CPU.
std::map<std::string, uint64_t> fallback_stats();
void reset_fallback_stats();

// A user OpenCL kernel, built through torch_ocl's program cache (memory +
// disk; TORCH_OCL_LOG=compile logs the build) and launched on the current
// stream. Tensor arguments become plain `__global T*` parameters (contiguous
// ocl tensors on one device); scalars must have the parameter's exact C type
// (int32_t for `int`, int64_t for `long`, float for `float`, ...).
//
//   torch_ocl::Kernel scale(R"(__kernel void scale(__global const float* x,
//       __global float* y, float a) { size_t i = get_global_id(0); y[i] = a * x[i]; })", "scale");
//   auto y = torch::empty_like(x);
//   scale.launch({(size_t)x.numel()}, {x, y, 2.0f});
using KernelArg = std::variant<at::Tensor, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t,
                               uint64_t, float, double>;
class Kernel {
 public:
  Kernel(std::string source, std::string name);
  // `global`: 1-3 work sizes; `local`: empty (driver's choice) or one per dim.
  void launch(const std::vector<size_t>& global, const std::vector<KernelArg>& args,
              const std::vector<size_t>& local = {}) const;
  const std::string& name() const;

 private:
  std::shared_ptr<const void> impl_;
};

}  // namespace torch_ocl
