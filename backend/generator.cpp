#include "backend/generator.h"

#include <ATen/core/GeneratorForPrivateuseone.h>

#include <deque>
#include <mutex>

#include "backend/runtime.h"

namespace torch_ocl {

OclGeneratorImpl::OclGeneratorImpl(c10::DeviceIndex device) : at::CPUGeneratorImpl() {
  device_ = c10::Device(c10::DeviceType::PrivateUse1, device);
  key_set_ = c10::DispatchKeySet(c10::DispatchKey::PrivateUse1);
}

OclGeneratorImpl* OclGeneratorImpl::clone_impl() const {
  auto* gen = new OclGeneratorImpl(device_.index());
  gen->set_state(*get_state());
  return gen;
}

const at::Generator& default_generator(c10::DeviceIndex device) {
  static std::once_flag once;
  static std::deque<at::Generator>* gens = nullptr;
  std::call_once(once, [] {
    gens = new std::deque<at::Generator>();
    for (c10::DeviceIndex i = 0; i < num_devices(); ++i) {
      gens->push_back(at::make_generator<OclGeneratorImpl>(i));
      gens->back().set_current_seed(c10::detail::getNonDeterministicRandom());
    }
  });
  if (device < 0) device = current_device_index();
  check_device_index(device);
  return (*gens)[device];
}

}  // namespace torch_ocl
