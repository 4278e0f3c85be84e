// The ocl generator: PyTorch's CPU Philox/MT generator state on a PrivateUse1
// device, so seeds and RNG state behave as on other devices.
#pragma once

#include <ATen/CPUGeneratorImpl.h>

namespace torch_ocl {

struct OclGeneratorImpl : public at::CPUGeneratorImpl {
  explicit OclGeneratorImpl(c10::DeviceIndex device);

 private:
  OclGeneratorImpl* clone_impl() const override;
};

// The default generator of `device` (-1: the current device).
const at::Generator& default_generator(c10::DeviceIndex device);

}  // namespace torch_ocl
