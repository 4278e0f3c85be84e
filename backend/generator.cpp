#include "backend/generator.h"

#include <ATen/EmptyTensor.h>
#include <ATen/core/GeneratorForPrivateuseone.h>

#include <cstring>
#include <deque>
#include <mutex>

#include "backend/runtime.h"

namespace torch_ocl {

namespace {
constexpr size_t kSeedBytes = sizeof(uint64_t);
constexpr size_t kOffsetBytes = sizeof(int64_t);
constexpr size_t kStateBytes = kSeedBytes + kOffsetBytes;
}  // namespace

OclGeneratorImpl::OclGeneratorImpl(c10::DeviceIndex device, uint64_t seed)
    : c10::GeneratorImpl(c10::Device(c10::DeviceType::PrivateUse1, device),
                         c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)),
      seed_(seed) {}

void OclGeneratorImpl::set_current_seed(uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
}
void OclGeneratorImpl::set_offset(uint64_t offset) { offset_ = offset; }
uint64_t OclGeneratorImpl::get_offset() const { return offset_; }
uint64_t OclGeneratorImpl::current_seed() const { return seed_; }

uint64_t OclGeneratorImpl::seed() {
  const uint64_t s = c10::detail::getNonDeterministicRandom(true);
  set_current_seed(s);
  return s;
}

c10::intrusive_ptr<c10::TensorImpl> OclGeneratorImpl::get_state() const {
  auto state = at::detail::empty_cpu({static_cast<int64_t>(kStateBytes)}, c10::ScalarType::Byte,
                                     std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  auto* p = state.data_ptr<uint8_t>();
  const auto offset = static_cast<int64_t>(offset_);
  std::memcpy(p, &seed_, kSeedBytes);
  std::memcpy(p + kSeedBytes, &offset, kOffsetBytes);
  return state.getIntrusivePtr();
}

void OclGeneratorImpl::set_state(const c10::TensorImpl& new_state) {
  at::detail::check_rng_state(new_state);
  const auto n = new_state.numel();
  TORCH_CHECK(n == static_cast<int64_t>(kStateBytes) || n == static_cast<int64_t>(kSeedBytes),
              "RNG state is wrong size");
  const auto* p = new_state.data_dtype_initialized<uint8_t>();
  uint64_t seed = 0;
  int64_t offset = 0;
  std::memcpy(&seed, p, kSeedBytes);
  if (n == static_cast<int64_t>(kStateBytes)) std::memcpy(&offset, p + kSeedBytes, kOffsetBytes);
  seed_ = seed;
  offset_ = static_cast<uint64_t>(offset);
}

void OclGeneratorImpl::graphsafe_set_state(const c10::intrusive_ptr<c10::GeneratorImpl>& state) {
  auto* other = dynamic_cast<OclGeneratorImpl*>(state.get());
  TORCH_CHECK(other != nullptr, "graphsafe_set_state: expected an ocl generator state");
  seed_ = other->seed_;
  offset_ = other->offset_;
}

c10::intrusive_ptr<c10::GeneratorImpl> OclGeneratorImpl::graphsafe_get_state() const {
  return c10::intrusive_ptr<c10::GeneratorImpl>::reclaim(clone_impl());
}

PhiloxState OclGeneratorImpl::philox_state(uint64_t increment) {
  PhiloxState s{seed_, offset_};
  offset_ += increment;
  return s;
}

OclGeneratorImpl* OclGeneratorImpl::clone_impl() const {
  auto* gen = new OclGeneratorImpl(device_.index(), seed_);
  gen->offset_ = offset_;
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

OclGeneratorImpl* ocl_generator(const std::optional<at::Generator>& gen, c10::DeviceIndex device) {
  return at::get_generator_or_default<OclGeneratorImpl>(gen, default_generator(device));
}

PhiloxState reserve_philox(const std::optional<at::Generator>& gen, c10::DeviceIndex device,
                           uint64_t increment) {
  OclGeneratorImpl* g = ocl_generator(gen, device);
  std::lock_guard<std::mutex> lock(g->mutex_);
  return g->philox_state(increment);
}

}  // namespace torch_ocl
