// The (N, C, D, H, W) view that the pad, pool and upsample kernels take of
// their tensors: one kernel serves 1-d/2-d/3-d, batched or not, contiguous or
// channels_last, through the strides. Their params (PadParams, PoolParams,
// UpParams, matching typedefs in kernels/pad.cl, pool.cl, upsample.cl) share
// the block N, C, in_size[3], out_size[3], in_stride[5], out_stride[5] and a
// channels_last flag, filled here.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace torch_ocl {

// `t` as (N, C, D, H, W) for an op over its last `dims` (1-3) dims: a
// batch-less input gets N = 1, missing spatial dims size 1.
inline at::Tensor as_ncdhw(const at::Tensor& t, int dims) {
  at::Tensor v = t.dim() == dims + 1 ? t.unsqueeze(0) : t;
  while (v.dim() < 5) v = v.unsqueeze(2);
  return v;
}

// t5's five strides (elements) into dst[0..4].
inline void copy_strides(const at::Tensor& t5, int64_t* dst) {
  for (int i = 0; i < 5; ++i) dst[i] = t5.stride(i);
}

// Whether work items over `dst` enumerate C fastest: more than one channel,
// stored with channel stride 1 (channels_last). With one spatial position
// both orders are the same.
inline bool channels_last_items(const at::Tensor& dst, int dims) {
  const at::Tensor d5 = as_ncdhw(dst, dims);
  return d5.size(1) > 1 && d5.stride(1) == 1;
}

// Fills the shared block of `p` between `input` (input or grad_input: the
// side of in_size) and `output` (output or grad_output), work items following
// `dst`'s layout.
template <class Params>
void fill_ncdhw(Params& p, const at::Tensor& input, const at::Tensor& output, const at::Tensor& dst, int dims) {
  const at::Tensor in5 = as_ncdhw(input, dims), out5 = as_ncdhw(output, dims);
  p.N = in5.size(0);
  p.C = in5.size(1);
  for (int k = 0; k < 3; ++k) {
    p.in_size[k] = in5.size(2 + k);
    p.out_size[k] = out5.size(2 + k);
  }
  copy_strides(in5, p.in_stride);
  copy_strides(out5, p.out_stride);
  p.channels_last = channels_last_items(dst, dims);
}

}  // namespace torch_ocl
