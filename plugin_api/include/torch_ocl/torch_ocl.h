// torch_ocl's public C++ API. Link against libtorch_ocl.so (which registers
// the `ocl` device with PyTorch when it is loaded) and use torch as usual:
//
//   #include <torch/torch.h>
//   #include <torch_ocl/torch_ocl.h>
//   auto a = torch::randn({64, 64}).to(torch_ocl::device());
//   auto c = torch::mm(a, a).cpu();
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <map>
#include <string>

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

}  // namespace torch_ocl
