// User OpenCL kernels (torch_ocl::Kernel in the public header, torch_ocl.Kernel
// / torch_ocl.kernel in Python): a user's OpenCL C source built through the
// program cache (memory + disk, TORCH_OCL_LOG=compile) and launched on the
// current stream with ocl tensors as plain __global pointers.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace torch_ocl {

// One kernel argument: a tensor (a __global pointer to its first element) or
// a scalar of the kernel parameter's exact C type.
using UserKernelArg = std::variant<at::Tensor, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t,
                                   int64_t, uint64_t, float, double>;

class UserKernelImpl;

class UserKernelHandle {
 public:
  UserKernelHandle(std::string source, std::string name);
  // Enqueues `name` over `global` work items (1-3 dims; `local` empty = the
  // driver's choice) on the current stream of the tensors' device (or the
  // current device). Tensors must be contiguous ocl tensors on one device;
  // their data must start at a buffer-aligned address (fresh tensors do).
  void launch(const std::vector<size_t>& global, const std::vector<UserKernelArg>& args,
              const std::vector<size_t>& local = {}) const;
  // The same for generated kernels (torch.compile's OpenCL code, see
  // torch_ocl/_inductor): each tensor is two parameters, `__global char*`
  // (its buffer) and `ulong` (the byte offset of its element 0), so any view
  // of any layout is passed as it is; the kernel indexes with its strides.
  // With `checked`, two more parameters follow, (__global int* flag, int
  // check): the device-side index check (backend/device_checks.h) whose
  // error, "index {index} is out of bounds for dimension with size {size}",
  // the next synchronisation raises as an IndexError.
  void launch_buffer_offsets(const std::vector<size_t>& global, const std::vector<UserKernelArg>& args,
                             bool checked = false) const;
  const std::string& name() const;

 private:
  std::shared_ptr<UserKernelImpl> impl_;
};

}  // namespace torch_ocl
