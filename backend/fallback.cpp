#include "backend/fallback.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/native/CPUFallback.h>
#include <torch/library.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>

#include "backend/generator.h"
#include "backend/runtime.h"
#include "backend/same_device.h"

namespace torch_ocl {
namespace {

std::atomic<FallbackMode>& mode_ref() {
  static std::atomic<FallbackMode> mode{[] {
    const char* env = std::getenv("TORCH_OCL_FALLBACK");
    return env ? parse_fallback_mode(env) : FallbackMode::Warn;
  }()};
  return mode;
}

std::mutex stats_mutex;
std::map<std::string, uint64_t>& stats() {
  static auto* s = new std::map<std::string, uint64_t>();
  return *s;
}
std::set<std::string>& warned() {
  static auto* s = new std::set<std::string>();
  return *s;
}

std::string op_name(const c10::OperatorHandle& op) {
  const auto& n = op.schema().operator_name();
  return n.overload_name.empty() ? n.name : n.name + "." + n.overload_name;
}

// The CPU kernels of random ops need a CPU generator: each such call gets a
// fresh CPU generator seeded from the ocl generator's (seed, offset), and the
// ocl generator's offset advances, so torch.ocl.manual_seed() governs them
// and consecutive calls differ.
struct GeneratorSwap {
  GeneratorSwap(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
    const auto& args = op.schema().arguments();
    const size_t first = stack->size() - args.size();
    for (size_t i = 0; i < args.size(); ++i) {
      auto type = args[i].type();
      if (auto opt = type->cast<c10::OptionalType>()) type = opt->getElementType();
      if (type->kind() != c10::TypeKind::GeneratorType) continue;
      c10::IValue& v = (*stack)[first + i];
      std::optional<at::Generator> gen;
      if (!v.isNone()) {
        gen = v.toGenerator();
        if (gen->device().type() != c10::DeviceType::PrivateUse1) continue;
      }
      const PhiloxState s = reserve_philox(gen, gen ? gen->device().index() : -1);
      // splitmix64 of (seed, offset): distinct CPU seeds for distinct states.
      uint64_t z = s.seed ^ (s.offset + 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      v = c10::IValue(at::make_generator<at::CPUGeneratorImpl>(z ^ (z >> 31)));
    }
  }
};

// at::native::cpu_fallback moves the results to the device of the first
// tensor argument (when no argument is a Device). When that is a 0-dim CPU
// operand next to ocl tensors, the results belong on the common device.
bool first_tensor_is_cpu(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const auto& args = op.schema().arguments();
  const size_t first = stack.size() - args.size();
  for (size_t i = first; i < stack.size(); ++i)
    if (stack[i].isDevice()) return false;
  for (size_t i = first; i < stack.size(); ++i)
    if (stack[i].isTensor()) return stack[i].toTensor().device().is_cpu();
  return false;
}

void move_results(const c10::OperatorHandle& op, torch::jit::Stack* stack, c10::Device device) {
  const auto& returns = op.schema().returns();
  const size_t first = stack->size() - returns.size();
  for (size_t i = 0; i < returns.size(); ++i) {
    if (returns[i].alias_info()) continue;  // an argument written in place
    c10::IValue& v = (*stack)[first + i];
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().device().is_cpu())
      v = c10::IValue(v.toTensor().to(device));
  }
}

}  // namespace

void count_fallback_call(const c10::OperatorHandle& op) {
  const std::string name = op_name(op);
  const FallbackMode mode = fallback_mode();
  TORCH_CHECK(mode != FallbackMode::Error, "torch_ocl: ", name,
              " has no native ocl kernel, and TORCH_OCL_FALLBACK=error forbids running it on "
              "the CPU");
  bool warn = false;
  {
    std::lock_guard<std::mutex> lock(stats_mutex);
    ++stats()[name];
    warn = mode == FallbackMode::Warn && warned().insert(name).second;
  }
  if (warn)
    TORCH_WARN("torch_ocl: ", name, " has no native ocl kernel and runs on the CPU (a copy each "
               "way). Set TORCH_OCL_FALLBACK=silent to hide this, =error to forbid it.");
}

// at::native::cpu_fallback copies each argument with Tensor::cpu(), which
// keeps the strides of a dense tensor but makes a non-dense one (a slice with
// gaps) contiguous. CPU kernels whose result depends on contiguity would then
// disagree with the device-side code that reads the original strides:
// _linalg_slogdet / _linalg_det factor A^T when A is contiguous, and their
// backward formulas pick LU or LU^T from the saved A's contiguity (a sliced
// input got the transposed gradient). A non-dense, non-contiguous argument
// the op only reads is handed over as a dense column-major copy: still
// non-contiguous, so the CPU sees the contiguity the device has.
void keep_non_contiguity(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto& args = op.schema().arguments();
  const size_t first = stack->size() - args.size();
  for (size_t i = 0; i < args.size(); ++i) {
    c10::IValue& v = (*stack)[first + i];
    if (!v.isTensor() || (args[i].alias_info() && args[i].alias_info()->isWrite())) continue;
    const at::Tensor& t = v.toTensor();
    if (!t.defined() || t.device().type() != c10::DeviceType::PrivateUse1 || t.dim() < 2 || t.is_contiguous() ||
        t.is_non_overlapping_and_dense())
      continue;
    v = c10::IValue(t.mT().contiguous().mT());
  }
}

void cpu_fallback_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  // Mixed devices raise CUDA's error before anything runs: the CPU kernel
  // would accept them, and an out= tensor on the CPU cannot be copied back.
  const std::optional<c10::Device> common = check_same_device(op, *stack);
  count_fallback_call(op);
  keep_non_contiguity(op, stack);
  GeneratorSwap swap(op, stack);
  const bool fix_device = common && !common->is_cpu() && first_tensor_is_cpu(op, *stack);
  at::native::cpu_fallback(op, stack);
  if (fix_device) move_results(op, stack, *common);
}

torch::jit::Stack run_fallback(const std::string& name, torch::jit::Stack stack) {
  const auto dot = name.find('.');
  const std::string base = name.substr(0, dot);
  const std::string overload = dot == std::string::npos ? "" : name.substr(dot + 1);
  const auto op = c10::Dispatcher::singleton().findSchemaOrThrow(base.c_str(), overload.c_str());
  cpu_fallback_kernel(op, &stack);
  return stack;
}

FallbackMode parse_fallback_mode(const std::string& name) {
  if (name == "warn" || name.empty()) return FallbackMode::Warn;
  if (name == "silent") return FallbackMode::Silent;
  if (name == "error") return FallbackMode::Error;
  TORCH_CHECK(false, "TORCH_OCL_FALLBACK must be warn, silent or error, not '", name, "'");
}

const char* fallback_mode_name(FallbackMode mode) {
  switch (mode) {
    case FallbackMode::Warn: return "warn";
    case FallbackMode::Silent: return "silent";
    case FallbackMode::Error: return "error";
  }
  return "warn";
}

FallbackMode fallback_mode() { return mode_ref().load(); }
void set_fallback_mode(FallbackMode mode) { mode_ref().store(mode); }

std::map<std::string, uint64_t> fallback_stats() {
  std::lock_guard<std::mutex> lock(stats_mutex);
  return stats();
}

void reset_fallback_stats() {
  std::lock_guard<std::mutex> lock(stats_mutex);
  stats().clear();
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&cpu_fallback_kernel>());
}

}  // namespace torch_ocl
