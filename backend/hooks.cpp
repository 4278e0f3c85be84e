// PrivateUse1HooksInterface: every method the installed torch would otherwise
// throw from. The generators are backend/generator.cpp's.
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/StorageImpl.h>

#include "backend/device_ptr.h"
#include "backend/generator.h"
#include "backend/runtime.h"
#include "backend/storage_resize.h"

namespace torch_ocl {
namespace {

struct OclHooks final : public at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return num_devices() > 0; }
  void init() const override {}
  const at::Generator& getDefaultGenerator(c10::DeviceIndex device_index) const override {
    return default_generator(device_index);
  }
  at::Generator getNewGenerator(c10::DeviceIndex device_index) const override {
    if (device_index < 0) device_index = current_device_index();
    check_device_index(device_index);
    return at::make_generator<OclGeneratorImpl>(device_index);
  }
  at::Device getDeviceFromPtr(void* data) const override {
    return c10::Device(c10::DeviceType::PrivateUse1, device_of_ptr(data));
  }
  bool isPinnedPtr(const void* data) const override { return is_pinned_host_ptr(data); }
  c10::Allocator* getPinnedMemoryAllocator() const override { return pinned_host_allocator(); }
  bool hasPrimaryContext(c10::DeviceIndex device_index) const override {
    return device_index >= 0 && device_index < num_devices();
  }
  c10::DeviceIndex deviceCount() const override { return num_devices(); }
  void setCurrentDevice(c10::DeviceIndex device) const override { set_current_device(device); }
  c10::DeviceIndex getCurrentDevice() const override { return current_device_index(); }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex device) const override {
    auto old = current_device_index();
    set_current_device(device);
    return old;
  }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex device) const override {
    return exchangeDevice(device);
  }
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const override {
    resize_storage_bytes(storage.unsafeGetStorageImpl(), newsize);
  }
};

struct RegisterHooks {
  RegisterHooks() {
    c10::register_privateuse1_backend("ocl");
    at::RegisterPrivateUse1HooksInterface(new OclHooks());
  }
};
RegisterHooks register_hooks;

}  // namespace
}  // namespace torch_ocl
