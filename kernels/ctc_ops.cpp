// CTC loss and its backward (F.ctc_loss / nn.CTCLoss: wav2vec2, speech
// models): kernels/ctc.cl, the CPU's algorithm and order of sums, one work
// item per batch element. ATen's ctc_loss_meta does the argument checks and
// allocates (loss, log_alpha) with log_probs' options; the Tensor-length
// overload is ATen's own (lengths read to the host, as on CUDA).
#include <ATen/ATen.h>
#include <ATen/ops/_ctc_loss_backward_native.h>
#include <ATen/ops/_ctc_loss_native.h>
#include <torch/library.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "backend/kernel_launch.h"
#include "kernels/op_table.h"

namespace torch_ocl {
namespace {

using at::IntArrayRef;
using at::Tensor;

// Per batch element: where its targets start (elements from targets' first),
// and the stride between them
// (targets are [N, S] padded or the concatenation of every target).
struct CtcTargets {
  Tensor data, offsets, input_lengths, target_lengths;  // on the device, int64
  int64_t stride = 1;
};

CtcTargets device_targets(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                          IntArrayRef target_lengths) {
  CtcTargets t;
  t.data = targets.to(at::kLong);
  const int64_t n = static_cast<int64_t>(target_lengths.size());
  std::vector<int64_t> off(n);
  if (t.data.dim() == 1) {
    t.stride = t.data.stride(0);
    int64_t pos = 0;
    for (int64_t b = 0; b < n; ++b) {
      off[b] = pos * t.stride;
      pos += target_lengths[b];
    }
  } else {
    t.stride = t.data.stride(1);
    for (int64_t b = 0; b < n; ++b) off[b] = b * t.data.stride(0);
  }
  const auto opts = log_probs.options().dtype(at::kLong);
  auto to_device = [&](IntArrayRef v) { return at::tensor(v, at::kLong).to(opts.device()); };
  t.offsets = to_device(off);
  t.input_lengths = to_device(input_lengths);
  t.target_lengths = to_device(target_lengths);
  return t;
}

void check_floating(const Tensor& log_probs, const char* name) {
  const auto dt = log_probs.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(dt == at::kFloat || dt == at::kDouble, "\"", name, "\" not implemented for '",
                              c10::toString(dt), "'");
  check_dtype_supported(dt, log_probs.device().index());
}

std::tuple<Tensor, Tensor> ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                                    IntArrayRef target_lengths, int64_t blank, bool zero_infinity) {
  check_floating(log_probs, "ctc_loss_cpu");
  TORCH_CHECK(log_probs.numel() > 0, "log_probs tensor must not be empty");  // as the CPU's and CUDA's
  TORCH_CHECK(targets.scalar_type() == at::kLong || targets.scalar_type() == at::kInt,
              "ctc_loss: expected targets of type Long or Int, got ", targets.scalar_type());
  auto [nll, log_alpha] = at::native::ctc_loss_meta(log_probs, targets.to(at::kLong), input_lengths, target_lengths,
                                                    blank, zero_infinity);
  const int64_t N = log_probs.size(1);
  const CtcTargets tg = device_targets(log_probs, targets, input_lengths, target_lengths);
  const auto device = log_probs.device().index();
  Launch l(device, dtype_kernel(device, "ctc", "ctc_alpha", log_probs.scalar_type()));
  l.input(log_probs).value(log_probs.stride(0)).value(log_probs.stride(1)).value(log_probs.stride(2));
  l.input(tg.data).value(tg.stride).input(tg.offsets);
  l.input(tg.input_lengths).input(tg.target_lengths).value(N).value(log_alpha.size(1)).value(log_alpha.size(2));
  l.value(blank).tensor(log_alpha).tensor(nll);
  l.run(static_cast<size_t>(N));
  return {nll, log_alpha};
}

Tensor ctc_loss_backward(const Tensor& grad_out, const Tensor& log_probs, const Tensor& targets,
                         IntArrayRef input_lengths, IntArrayRef target_lengths, const Tensor& nll,
                         const Tensor& log_alpha, int64_t blank, bool zero_infinity) {
  check_floating(log_probs, "ctc_loss_backward_cpu");
  const int64_t T = log_probs.size(0), N = log_probs.size(1), C = log_probs.size(2);
  Tensor grad = at::empty({T, N, C}, log_probs.options());
  if (grad.numel() == 0) return grad;
  TORCH_CHECK(static_cast<int64_t>(input_lengths.size()) == N && static_cast<int64_t>(target_lengths.size()) == N,
              "ctc_loss_backward: input_lengths and target_lengths must have batch_size entries");
  const CtcTargets tg = device_targets(log_probs, targets, input_lengths, target_lengths);
  const Tensor la = log_alpha.to(log_probs.scalar_type());
  const Tensor nl = nll.to(log_probs.scalar_type()).contiguous();
  const Tensor go = grad_out.to(log_probs.scalar_type()).expand({N});
  const int64_t Sp = log_alpha.size(2);
  Tensor log_beta = at::empty({N, T, Sp}, log_probs.options());
  const auto device = log_probs.device().index();
  Launch l(device, dtype_kernel(device, "ctc", "ctc_backward", log_probs.scalar_type()));
  l.input(go).value(go.stride(0));
  l.input(log_probs).value(log_probs.stride(0)).value(log_probs.stride(1)).value(log_probs.stride(2));
  l.input(tg.data).value(tg.stride).input(tg.offsets);
  l.input(tg.input_lengths).input(tg.target_lengths).value(N).value(T).value(Sp).value(C).value(blank);
  l.value<cl_int>(zero_infinity ? 1 : 0).input(nl);
  l.input(la).value(la.stride(0)).value(la.stride(1)).value(la.stride(2));
  l.tensor(log_beta).tensor(grad);
  l.run(static_cast<size_t>(N));
  return grad;
}

}  // namespace
}  // namespace torch_ocl

OCL_NATIVE_FN("_ctc_loss", &torch_ocl::ctc_loss)
OCL_NATIVE_FN("_ctc_loss.Tensor", &at::native::ctc_loss_tensor)
OCL_NATIVE_FN("_ctc_loss_backward", &torch_ocl::ctc_loss_backward)
