// The ocl generator: a counter-based Philox4x32-10 state (seed + offset), as
// CUDA's. A random op reserves a range of the counter with philox_state() and
// generates on the device from (seed, offset), so no random op needs the host
// and sequences are reproducible. The kernels' side is kernels/random.cl.
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/GeneratorImpl.h>

#include <optional>

namespace torch_ocl {

// What a kernel needs: the Philox key and the first counter block it may use.
struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

struct OclGeneratorImpl : public c10::GeneratorImpl {
  explicit OclGeneratorImpl(c10::DeviceIndex device, uint64_t seed = c10::default_rng_seed_val);

  void set_current_seed(uint64_t seed) override;  // also resets the offset to 0
  void set_offset(uint64_t offset) override;
  uint64_t get_offset() const override;
  uint64_t current_seed() const override;
  uint64_t seed() override;
  // A CPU uint8 tensor of 16 bytes: the seed (uint64) then the offset (int64),
  // the layout of CUDA's generator state.
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override;
  void set_state(const c10::TensorImpl& new_state) override;
  void graphsafe_set_state(const c10::intrusive_ptr<c10::GeneratorImpl>& state) override;
  c10::intrusive_ptr<c10::GeneratorImpl> graphsafe_get_state() const override;

  // Reserves `increment` counter values per element-thread: returns the state
  // before and advances the offset (as CUDA's philox_cuda_state). The caller
  // holds mutex_.
  PhiloxState philox_state(uint64_t increment);

  static c10::DeviceType device_type() { return c10::DeviceType::PrivateUse1; }

 private:
  OclGeneratorImpl* clone_impl() const override;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The default generator of `device` (-1: the current device).
const at::Generator& default_generator(c10::DeviceIndex device);

// The generator a random op on `device` uses: `gen` when given (it must be an
// ocl generator), else the device's default one.
OclGeneratorImpl* ocl_generator(const std::optional<at::Generator>& gen, c10::DeviceIndex device);

// Locks the generator and reserves `increment` counter values (see above).
PhiloxState reserve_philox(const std::optional<at::Generator>& gen, c10::DeviceIndex device,
                           uint64_t increment = 1);

}  // namespace torch_ocl
