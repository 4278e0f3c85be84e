#include "backend/device_profile.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

#include "backend/runtime.h"

namespace torch_ocl {
namespace {

// TORCH_OCL_DEVICE_PROFILE=cpu|gpu, or nothing: the device's own class.
std::optional<bool> forced_gpu() {
  const char* env = std::getenv("TORCH_OCL_DEVICE_PROFILE");
  if (!env || !*env) return std::nullopt;
  const std::string v(env);
  TORCH_CHECK(v == "cpu" || v == "gpu", "TORCH_OCL_DEVICE_PROFILE must be cpu or gpu, not '", v, "'");
  return v == "gpu";
}

}  // namespace

DeviceProfile profile_for(const DeviceInfo& device) {
  static const std::optional<bool> forced = forced_gpu();
  DeviceProfile p;
  p.gpu = forced.value_or(device.is_gpu());
  if (!p.gpu) {
    p.pointwise_block = 16;
    p.contiguous_block = 8;
    p.one_buffer_variants = true;
    p.kernel_copy = true;
    p.optim_per_item = 32;
    p.index_blocks = true;
    p.scan_few_rows = 0;  // every row serial: the work-group scan's barriers cost 4-25x on PoCL (bench/README.md)
    p.own_gemm = true;
    p.submit_batch = 32;
  }
  return p;
}

const DeviceProfile& device_profile(c10::DeviceIndex device) {
  static const std::vector<DeviceProfile> profiles = [] {
    std::vector<DeviceProfile> v;
    for (c10::DeviceIndex i = 0; i < num_devices(); ++i) v.push_back(profile_for(device_info(i)));
    return v;
  }();
  check_device_index(device);
  return profiles[static_cast<size_t>(device)];
}

}  // namespace torch_ocl
