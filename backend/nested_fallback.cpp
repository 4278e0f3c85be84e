// Nested tensors (torch.nested, layout strided "jagged-free" NestedTensorImpl)
// on ocl: ATen has nested kernels for NestedTensorCPU and NestedTensorCUDA
// only, so every op on an ocl nested tensor runs here, on the CPU: the nested
// arguments' buffers come to the host, the CPU's nested kernel runs, nested
// results go back as ocl nested tensors over an ocl buffer (same nested
// sizes, strides and offsets). Counted and governed as the plain fallback
// (TORCH_OCL_FALLBACK). nn.TransformerEncoder's inference fast path
// (enable_nested_tensor=True, the default) takes this path on ocl as on CUDA.
#include <ATen/NestedTensorImpl.h>
#include <torch/library.h>

#include <optional>
#include <vector>

#include "backend/fallback.h"

namespace torch_ocl {
namespace {

bool on_ocl(const at::Tensor& t) { return t.defined() && t.device().type() == c10::DeviceType::PrivateUse1; }

// `t` on `device`: a nested tensor moves its whole buffer and keeps its
// nested metadata; a plain tensor is copied.
at::Tensor moved(const at::Tensor& t, c10::Device device) {
  if (!t.defined() || t.device() == device) return t;
  if (!t.is_nested()) return t.to(device);
  const at::native::NestedTensorImpl* nt = at::native::get_nested_tensor_impl(t);
  at::Tensor buffer = nt->get_unsafe_storage_as_tensor().to(device);
  return at::detail::make_tensor<at::native::NestedTensorImpl>(buffer, nt->get_nested_sizes().clone(),
                                                       nt->get_nested_strides().clone(),
                                                       nt->get_storage_offsets().clone());
}

// Writes the CPU result of an in-place op back into the ocl argument.
void write_back(const at::Tensor& dst, const at::Tensor& src) {
  if (dst.is_nested())
    at::native::get_nested_tensor_impl(dst)->get_unsafe_storage_as_tensor().copy_(
        at::native::get_nested_tensor_impl(src)->get_unsafe_storage_as_tensor());
  else
    const_cast<at::Tensor&>(dst).copy_(src);
}

void nested_cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  count_fallback_call(op);
  const auto& args = op.schema().arguments();
  const size_t first = stack->size() - args.size();
  const c10::Device cpu(c10::kCPU);
  std::optional<c10::Device> target, explicit_target;
  std::vector<std::pair<at::Tensor, at::Tensor>> written;  // (ocl argument, its CPU copy)
  for (size_t i = 0; i < args.size(); ++i) {
    c10::IValue& v = (*stack)[first + i];
    const bool is_written = args[i].alias_info() && args[i].alias_info()->isWrite();
    if (v.isTensor()) {
      const at::Tensor t = v.toTensor();
      if (!on_ocl(t)) continue;
      target = t.device();
      at::Tensor host = moved(t, cpu);
      if (is_written) written.emplace_back(t, host);
      v = c10::IValue(host);
    } else if (v.isTensorList()) {
      std::vector<at::Tensor> host;
      for (const at::Tensor& t : v.toTensorVector()) {
        if (on_ocl(t)) target = t.device();
        host.push_back(moved(t, cpu));
      }
      v = c10::IValue(host);
    } else if (v.isDevice()) {
      explicit_target = v.toDevice();  // _to_copy(device=...), empty_like(device=...)
      if (explicit_target->type() == c10::DeviceType::PrivateUse1) v = c10::IValue(cpu);
    }
  }
  if (explicit_target) target = explicit_target;
  op.callBoxed(stack);
  for (const auto& [dst, host] : written) write_back(dst, host);

  const auto& returns = op.schema().returns();
  const size_t out = stack->size() - returns.size();
  for (size_t i = 0; i < returns.size(); ++i) {
    c10::IValue& v = (*stack)[out + i];
    if (returns[i].alias_info()) {  // returns an argument written in place: the ocl one
      for (const auto& [dst, host] : written)
        if (v.isTensor() && v.toTensor().is_same(host)) v = c10::IValue(dst);
      continue;
    }
    if (!target || target->is_cpu()) continue;
    if (v.isTensor()) {
      v = c10::IValue(moved(v.toTensor(), *target));
    } else if (v.isTensorList()) {
      std::vector<at::Tensor> list;
      for (const at::Tensor& t : v.toTensorVector()) list.push_back(moved(t, *target));
      v = c10::IValue(list);
    }
  }
}

}  // namespace

TORCH_LIBRARY_IMPL(_, NestedTensorPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&nested_cpu_fallback>());
}

}  // namespace torch_ocl
