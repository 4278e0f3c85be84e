#include "backend/same_device.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/op_registration/adaption.h>

#include <string_view>

namespace torch_ocl {
namespace {

struct Common {
  const char* method;
  std::optional<c10::Device> device;
  void add(const at::Tensor& t, const char* arg, bool written) {
    if (!t.defined() || (!written && is_cpu_scalar(t))) return;
    c10::impl::check_and_update_common_device(device, t, method, arg);
  }
  void add(const c10::IValue& v, const char* arg, bool written) {
    if (v.isTensor()) {
      add(v.toTensor(), arg, written);
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorList()) add(t, arg, written);
    } else if (v.isOptionalTensorList()) {
      for (const std::optional<at::Tensor>& t : v.toOptionalTensorList())
        if (t) add(*t, arg, written);
    }
  }
};

}  // namespace

bool takes_cpu_tensors(const std::string& op) {
  static constexpr std::string_view kOps[] = {
      "aten::index",      "aten::_unsafe_index",    "aten::index_put",     "aten::index_put_",
      "aten::_index_put_impl_", "aten::_unsafe_index_put", "aten::copy_",  "aten::copy",
      "aten::_copy_from", "aten::_copy_from_and_resize", "aten::_to_copy", "aten::to",
      "aten::set_",       "aten::is_set_to",
  };
  const std::string_view base = std::string_view(op).substr(0, op.find('.'));
  for (auto name : kOps)
    if (base == name) return true;
  return false;
}

void device_mismatch(const std::string& op, size_t position, c10::Device common, const at::Tensor& tensor) {
  const auto dot = op.find('.');
  const std::string base = op.substr(0, dot);
  const std::string overload = dot == std::string::npos ? "" : op.substr(dot + 1);
  std::string arg = "argument #" + std::to_string(position);
  if (auto handle = c10::Dispatcher::singleton().findSchema({base, overload})) {
    const auto& args = handle->schema().arguments();
    if (position < args.size()) arg = args[position].name();
  }
  c10::impl::common_device_check_failure(common, tensor, op.c_str(), arg.c_str());
  TORCH_INTERNAL_ASSERT(false, "unreachable");
}

std::optional<c10::Device> check_same_device(const c10::OperatorHandle& op,
                                             const std::vector<c10::IValue>& stack) {
  const auto& schema = op.schema();
  const std::string method = schema.operator_name().overload_name.empty()
                                 ? schema.operator_name().name
                                 : schema.operator_name().name + "." + schema.operator_name().overload_name;
  if (takes_cpu_tensors(method)) return std::nullopt;
  const auto& args = schema.arguments();
  const size_t first = stack.size() - args.size();
  Common common{method.c_str(), std::nullopt};
  auto written = [&](size_t i) { return args[i].alias_info() && args[i].alias_info()->isWrite(); };
  for (size_t i = 0; i < args.size(); ++i)
    if (written(i)) common.add(stack[first + i], args[i].name().c_str(), true);
  for (size_t i = 0; i < args.size(); ++i)
    if (!written(i)) common.add(stack[first + i], args[i].name().c_str(), false);
  return common.device;
}

}  // namespace torch_ocl
