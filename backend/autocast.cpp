// Autocast on ocl (torch.autocast("ocl", dtype=torch.float16/bfloat16)).
// PyTorch registers its op lists for the Autocast (CUDA), AutocastXPU,
// AutocastMPS and AutocastCPU keys only; a PrivateUse1 backend registers its
// own. These are PyTorch's shared lists (ATen/autocast_mode.h), so ocl
// follows the CUDA/XPU policy exactly: matmul/conv/linear-like ops in the
// lower precision, numerically sensitive ops (exp, log, norms, losses,
// softmax, sum, ...) in float32, mixed-dtype binary ops promoted.
#include <ATen/autocast_mode.h>
#include <torch/library.h>

namespace torch_ocl {
namespace {

at::Tensor binary_cross_entropy_banned(const at::Tensor&, const at::Tensor&,
                                       const std::optional<at::Tensor>&, int64_t) {
  // The same message as CUDA's autocast.
  TORCH_CHECK(false,
              "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
              "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
              "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
              "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
              "safe to autocast.");
}

}  // namespace

TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFallthrough());
}

TORCH_LIBRARY_IMPL(aten, AutocastPrivateUse1, m) {
  using namespace at;  // the list macros name Tensor, ScalarType, IntArrayRef unqualified
  using namespace at::autocast;
#define OCL_LOW_PRECISION_FP(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, lower_precision_fp)
  AT_FORALL_LOWER_PRECISION_FP(OCL_LOW_PRECISION_FP)
#define OCL_FP32(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32)
  AT_FORALL_FP32(OCL_FP32)
#define OCL_FP32_SET_OPT_DTYPE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32_set_opt_dtype)
  AT_FORALL_FP32_SET_OPT_DTYPE(OCL_FP32_SET_OPT_DTYPE)
  AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE(KERNEL_DIFFERENT_REDISPATCH_SIGNATURE_PRIVATEUSEONE)
#define OCL_PROMOTE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, promote)
  AT_FORALL_PROMOTE(OCL_PROMOTE)
#undef OCL_LOW_PRECISION_FP
#undef OCL_FP32
#undef OCL_FP32_SET_OPT_DTYPE
#undef OCL_PROMOTE
  m.impl(TORCH_SELECTIVE_NAME("aten::binary_cross_entropy"), TORCH_FN(&binary_cross_entropy_banned));
}

}  // namespace torch_ocl
