// The public C++ API (plugin_api/include/torch_ocl/torch_ocl.h).
#include "torch_ocl/torch_ocl.h"

#include "backend/fallback.h"
#include "backend/generator.h"
#include "backend/device_checks.h"
#include "backend/runtime.h"
#include "backend/user_kernel.h"

namespace torch_ocl {

c10::Device device(int index) {
  const auto i = index < 0 ? current_device_index() : static_cast<c10::DeviceIndex>(index);
  return c10::Device(c10::DeviceType::PrivateUse1, i);
}
bool is_available() { return num_devices() > 0; }
int device_count() { return static_cast<int>(num_devices()); }
int current_device() { return static_cast<int>(current_device_index()); }
void set_device(int index) { set_current_device(static_cast<c10::DeviceIndex>(index)); }
std::string device_name(int index) { return device_info(static_cast<c10::DeviceIndex>(index)).name; }
void synchronize(int index) {
  synchronize_device(static_cast<c10::DeviceIndex>(index));
  raise_device_errors(static_cast<c10::DeviceIndex>(index));
}
void manual_seed(uint64_t seed) {
  for (c10::DeviceIndex i = 0; i < num_devices(); ++i) {
    auto gen = default_generator(i);
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_current_seed(seed);
  }
}
void set_fallback_mode(const std::string& mode) { torch_ocl::set_fallback_mode(parse_fallback_mode(mode)); }
std::string get_fallback_mode() { return fallback_mode_name(fallback_mode()); }
// fallback_stats() and reset_fallback_stats() are defined in backend/fallback.cpp.

static_assert(std::is_same_v<KernelArg, UserKernelArg>, "the public and the backend argument types agree");
Kernel::Kernel(std::string source, std::string name)
    : impl_(std::make_shared<const UserKernelHandle>(std::move(source), std::move(name))) {}
void Kernel::launch(const std::vector<size_t>& global, const std::vector<KernelArg>& args,
                    const std::vector<size_t>& local) const {
  static_cast<const UserKernelHandle*>(impl_.get())->launch(global, args, local);
}
const std::string& Kernel::name() const { return static_cast<const UserKernelHandle*>(impl_.get())->name(); }

}  // namespace torch_ocl
