// Device-mismatch checks with CUDA's error (DESIGN.md decision 9). CUDA's
// generated wrappers call c10::impl::check_and_update_common_device on every
// tensor argument before the kernel runs; TensorIterator does the same and
// lets a 0-dim CPU tensor through as a scalar operand. An ocl kernel that
// does not go through either (the boxed CPU fallback, hand-written launchers)
// calls these, so a CPU tensor mixed with ocl tensors raises
//   RuntimeError: Expected all tensors to be on the same device, but got
//   <arg> is on cpu, different from other tensors on ocl:0 (when checking
//   argument in method <op>)
// before anything runs or is written.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace c10 {
class OperatorHandle;
}

namespace torch_ocl {

// True for the operands TensorIterator (and so CUDA) accepts on the CPU
// next to device tensors: 0-dim CPU tensors read as scalars.
inline bool is_cpu_scalar(const at::Tensor& t) {
  return t.defined() && t.dim() == 0 && t.device().is_cpu();
}

// The boxed arguments of `op` on top of `stack` must share one device.
// Arguments the op writes (out=, self of an in-place op) count whatever their
// shape; 0-dim CPU inputs are skipped (scalars). They are checked first, then
// the others in schema order, as CUDA's wrappers check out= first. Returns
// the common device (nullopt: no tensor argument). Ops that take CPU index or
// source tensors by design (index, index_put_, copy_) are not checked.
std::optional<c10::Device> check_same_device(const c10::OperatorHandle& op,
                                             const std::vector<c10::IValue>& stack);

// True for the ops the checks leave alone: their CUDA kernels take CPU
// tensors next to device tensors on purpose (index tensors of advanced
// indexing, the source of a cross-device copy, set_/is_set_to metadata).
bool takes_cpu_tensors(const std::string& op);

// Raises CUDA's error for argument `position` of the overload `op`
// ("aten::name.overload"), found on a device other than `common`.
[[noreturn]] void device_mismatch(const std::string& op, size_t position, c10::Device common,
                                  const at::Tensor& tensor);

// The typed form of check_same_device, for native kernels' unboxed arguments
// (C++ argument i is schema argument i). A `Tensor&` argument is one the op
// writes (in-place self, out=).
class DeviceMatch {
 public:
  template <class... A>
  void check(const std::string& op, const A&... args) {
    size_t i = 0;
    (visit<A>(args, i++, true), ...);
    i = 0;
    (visit<A>(args, i++, false), ...);
    if (bad_) device_mismatch(op, position_, *device_, *bad_);
  }

 private:
  template <class A, class T>
  void visit(const T& arg, size_t position, bool written_pass) {
    constexpr bool written = std::is_same_v<A, at::Tensor&>;
    if (written != written_pass || bad_) return;
    using D = std::decay_t<T>;
    if constexpr (std::is_same_v<D, at::Tensor>) {
      add(arg, position, written);
    } else if constexpr (std::is_same_v<D, std::optional<at::Tensor>>) {
      if (arg) add(*arg, position, written);
    } else if constexpr (std::is_same_v<D, at::TensorList> || std::is_same_v<D, at::ITensorListRef>) {
      for (const at::Tensor& t : arg) add(t, position, written);
    } else if constexpr (std::is_same_v<D, c10::List<std::optional<at::Tensor>>>) {
      for (const std::optional<at::Tensor>& t : arg)
        if (t) add(*t, position, written);
    }
  }
  void add(const at::Tensor& t, size_t position, bool written) {
    if (bad_ || !t.defined() || (!written && is_cpu_scalar(t))) return;
    if (!device_) {
      device_ = t.device();
    } else if (*device_ != t.device()) {
      bad_ = &t;
      position_ = position;
    }
  }
  std::optional<c10::Device> device_;
  const at::Tensor* bad_ = nullptr;
  size_t position_ = 0;
};

// Checks a native kernel's arguments unless `op` takes CPU tensors.
template <class... A>
void check_same_device(const std::string& op, bool enabled, const A&... args) {
  if (enabled) DeviceMatch().template check<A...>(op, args...);
}

}  // namespace torch_ocl
