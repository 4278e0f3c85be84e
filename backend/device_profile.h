// Device policy as data: every choice a launcher makes by device class
// (work per item, copy strategy, GEMM, scan and index strategies) is a field
// here, filled once per device. No launcher asks the device type itself.
//
// The class comes from the OpenCL device type (GPU-class devices: "gpu";
// CPU devices such as PoCL: "cpu"); TORCH_OCL_DEVICE_PROFILE=cpu|gpu forces
// one for every device, so that each side's paths run on any device (the
// GPU paths on PoCL, the CPU paths on oclgrind). torch.ocl.
// get_device_properties(i).profile names the profile in force.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <string>

namespace torch_ocl {

struct DeviceProfile {
  bool gpu = false;  // the class; "gpu" or "cpu" (name())
  // Elements per work item of the contiguous pointwise kernel (CPU: a block
  // the compiler unrolls and vectorises, bench/HISTORY.md).
  int pointwise_block = 1;
  // Elements per work item of the other contiguous kernels.
  int contiguous_block = 1;
  // Kernel variants specialised for operands that share one buffer.
  bool one_buffer_variants = false;
  // Dense same-layout device copies by a kernel (CPU devices: faster than
  // clEnqueueCopyBuffer there) instead of clEnqueueCopyBuffer.
  bool kernel_copy = false;
  // Elements per work item of the optimizer kernels (PER_ITEM in optim.cl).
  int optim_per_item = 1;
  // Index kernels take blocks of elements per work item, sized by the
  // compute units (CPU devices), instead of one element per item.
  bool index_blocks = false;
  // Scans with fewer rows than this give each long row a work group.
  int64_t scan_few_rows = 4096;
  // Matrix products through kernels/gemm.cl and the skinny kernel (CPU
  // devices: 2-8x CLBlast's there) instead of CLBlast everywhere.
  bool own_gemm = false;
  // Kernel launches a stream holds back and submits together (batched
  // submission; TORCH_OCL_SUBMIT_BATCH overrides it).
  int submit_batch = 1;

  const char* name() const { return gpu ? "gpu" : "cpu"; }
};

struct DeviceInfo;

// The profile of `device` (filled on first use; cheap afterwards).
const DeviceProfile& device_profile(c10::DeviceIndex device);

// The profile of a discovered device, TORCH_OCL_DEVICE_PROFILE applied (what
// device_profile returns; for device discovery, which runs before it can).
DeviceProfile profile_for(const DeviceInfo& device);

}  // namespace torch_ocl
