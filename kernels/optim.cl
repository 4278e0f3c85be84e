// Fused optimizer steps (torch.optim's fused=True): _fused_sgd_,
// _fused_adam_ and _fused_adamw_, one launch per parameter tensor, every
// state tensor read and written once. Math in CT (float for half types, as
// the CPU's and CUDA's opmath), following ATen's CPU kernels
// (FusedSGDKernel.cpp, FusedAdamKernel.cpp). Launchers: kernels/optim_ops.cpp.
//
// Device-side scalars (absent: a null buffer):
//   found_inf (float): 1 skips the whole step (GradScaler found an inf);
//   grad_scale (float): the gradient is unscaled first and stored back;
//   lr_t (CT): a tensor learning rate on the device, else `lr`;
//   step (float): the Adam step count, already incremented by torch.optim.

#define DEVICE_SCALAR(type, base, off) ((base) ? *PTR(type, base, off) : (type)0)

__kernel void fused_sgd(__global char* pb, ulong po, __global char* gb, ulong go, __global char* mb, ulong mo,
                        __global char* lrb, ulong lro, __global char* gsb, ulong gso, __global char* fib, ulong fio,
                        CT weight_decay, CT momentum, CT lr, CT dampening_c, int nesterov, int maximize,
                        int first_step, long n) {
  if (fib && *PTR(float, fib, fio) == 1.0f) return;
  __global ST* param = PTR(ST, pb, po);
  __global ST* grad = PTR(ST, gb, go);
  __global ST* buf = PTR(ST, mb, mo);
  const CT rate = lrb ? *PTR(CT, lrb, lro) : lr;
  GRID_LOOP(i, n) {
    CT g = LOAD(grad, i);
    if (gsb) {
      g = g / (CT)(*PTR(float, gsb, gso));
      STORE(grad, i, g);
    }
    if (maximize) g = -g;
    const CT p = LOAD(param, i);
    if (weight_decay != (CT)0) g += p * weight_decay;
    if (momentum != (CT)0) {
      const CT m = first_step ? g : (CT)LOAD(buf, i) * momentum + g * dampening_c;
      STORE(buf, i, m);
      g = nesterov ? g + m * momentum : m;
    }
    STORE(param, i, p - g * rate);
  }
}

// adamw: decoupled weight decay (param *= 1 - lr * weight_decay).
__kernel void fused_adam(__global char* pb, ulong po, __global char* gb, ulong go, __global char* mb, ulong mo,
                         __global char* vb, ulong vo, __global char* vmb, ulong vmo, __global char* sb, ulong so,
                         __global char* lrb, ulong lro, __global char* gsb, ulong gso, __global char* fib, ulong fio,
                         CT lr, CT beta1, CT beta2, CT weight_decay, CT eps, int amsgrad, int maximize, int adamw,
                         long n) {
  if (fib && *PTR(float, fib, fio) == 1.0f) return;
  __global ST* param = PTR(ST, pb, po);
  __global ST* grad = PTR(ST, gb, go);
  __global ST* exp_avg = PTR(ST, mb, mo);
  __global ST* exp_avg_sq = PTR(ST, vb, vo);
  __global ST* max_sq = PTR(ST, vmb, vmo);
  const CT rate = lrb ? *PTR(CT, lrb, lro) : lr;
  const CT step = (CT)(*PTR(float, sb, so));
  const CT step_size = rate / ((CT)1 - pow(beta1, step));
  const CT bc2_sqrt = sqrt((CT)1 - pow(beta2, step));
  const CT w1 = (CT)1 - beta1, w2 = (CT)1 - beta2;
  GRID_LOOP(i, n) {
    CT g = LOAD(grad, i);
    if (gsb) {
      g = g / (CT)(*PTR(float, gsb, gso));
      STORE(grad, i, g);
    }
    if (maximize) g = -g;
    CT p = LOAD(param, i);
    if (weight_decay != (CT)0) {
      if (adamw) p = p * ((CT)1 - rate * weight_decay);
      else g += p * weight_decay;
    }
    const CT m = (CT)LOAD(exp_avg, i) * beta1 + g * w1;
    const CT v = (CT)LOAD(exp_avg_sq, i) * beta2 + g * g * w2;
    STORE(exp_avg, i, m);
    STORE(exp_avg_sq, i, v);
    CT denom_sq = v;
    if (amsgrad) {
      denom_sq = max((CT)LOAD(max_sq, i), v);
      STORE(max_sq, i, denom_sq);
    }
    STORE(param, i, p - step_size * m / (sqrt(denom_sq) / bc2_sqrt + eps));
  }
}
