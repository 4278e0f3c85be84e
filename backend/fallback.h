// The boxed CPU fallback for every op without a native ocl kernel (DESIGN §7).
#pragma once

#include <ATen/core/ivalue.h>

#include <cstdint>
#include <vector>
#include <map>
#include <string>

namespace c10 {
class OperatorHandle;
}
namespace torch::jit {
using Stack = std::vector<c10::IValue>;
}

namespace torch_ocl {

// The boxed fallback kernel (counts, warns or raises per the mode, then runs
// the op on the CPU). Native kernels call it, through
// at::native::call_fallback_fn, for dtypes they do not handle.
void cpu_fallback_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// Counts one call of `op` on the CPU; warns on its first call (mode warn),
// raises under TORCH_OCL_FALLBACK=error. Every fallback path calls it.
void count_fallback_call(const c10::OperatorHandle& op);

// Runs the overload `name` ("aten::add.Tensor") on its boxed arguments
// through cpu_fallback_kernel; returns the stack holding the op's results.
// For native kernels that meet a dtype they do not handle.
torch::jit::Stack run_fallback(const std::string& name, torch::jit::Stack stack);

enum class FallbackMode { Warn, Silent, Error };

// Initially from TORCH_OCL_FALLBACK=warn|silent|error (default warn).
FallbackMode fallback_mode();
void set_fallback_mode(FallbackMode mode);
FallbackMode parse_fallback_mode(const std::string& name);
const char* fallback_mode_name(FallbackMode mode);

// op name ("aten::foo.overload") -> number of calls that ran on the CPU.
std::map<std::string, uint64_t> fallback_stats();
void reset_fallback_stats();

}  // namespace torch_ocl
