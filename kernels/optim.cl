// Fused optimizer steps (torch.optim's fused=True): _fused_sgd_,
// _fused_adam_ and _fused_adamw_, one launch per parameter tensor, every
// state tensor read and written once. Math in CT (float for half types, as
// the CPU's and CUDA's opmath), following ATen's CPU kernels
// (FusedSGDKernel.cpp, FusedAdamKernel.cpp). Launchers: kernels/optim_ops.cpp.
//
// The options are compile-time flags (0/1) set by the launcher: GRAD_SCALE,
// MAXIMIZE, WEIGHT_DECAY (!= 0), MOMENTUM (!= 0), NESTEROV, AMSGRAD, ADAMW:
// branch-free loops (a CPU device vectorises them), a few programs per run.
//
// PER_ITEM (launcher): elements per work item. 1 on GPUs (neighbouring items
// touch neighbouring memory); on CPU devices a contiguous run, which also
// pays each item's prologue (device scalars, bias corrections) only once per
// run: one item per element made Adam 4x slower with PoCL.
#if PER_ITEM == 1
#define ITEM_LOOP(i, n) GRID_LOOP(i, n)
#else
#define ITEM_LOOP(i, n) \
  for (long i = get_global_id(0) * PER_ITEM, e_ = min((long)(n), i + PER_ITEM); i < e_; ++i)
#endif
//
// Device-side scalars (absent: a null buffer):
//   found_inf (float): 1 skips the whole step (GradScaler found an inf);
//   grad_scale (float): the gradient is unscaled first and stored back;
//   lr_t (CT): a tensor learning rate on the device, else `lr`;
//   step (float): the Adam step count, already incremented by torch.optim.

// base**step for an integer-valued step (torch.optim counts steps), by
// squaring: every work item computes the bias corrections, and a libm pow()
// per item costs more than the update itself on CPU devices.
static inline CT pow_step(CT base, float step) {
  if (step != floor(step) || step > 1e9f || step < 0.0f) return pow(base, (CT)step);
  ulong e = (ulong)step;
  CT result = (CT)1;
  while (e) {
    if (e & 1) result *= base;
    base *= base;
    e >>= 1;
  }
  return result;
}

// Element i's gradient as the step uses it: unscaled by grad_scale (written
// back, as the CPU's fused kernels do) and negated when maximizing.
static inline CT step_gradient(__global ST* grad, long i, CT scale) {
  CT g = LOAD(grad, i);
#if GRAD_SCALE
  g = g / scale;
  STORE(grad, i, g);
#endif
#if MAXIMIZE
  g = -g;
#endif
  return g;
}

__kernel void fused_sgd(__global char* pb, ulong po, __global char* gb, ulong go, __global char* mb, ulong mo,
                        __global char* lrb, ulong lro, __global char* gsb, ulong gso, __global char* fib, ulong fio,
                        CT weight_decay, CT momentum, CT lr, CT dampening_c, int first_step, long n) {
  if (fib && *PTR(float, fib, fio) == 1.0f) return;
  __global ST* param = PTR(ST, pb, po);
  __global ST* grad = PTR(ST, gb, go);
  __global ST* buf = PTR(ST, mb, mo);
  const CT rate = lrb ? *PTR(CT, lrb, lro) : lr;
  const CT scale = GRAD_SCALE ? (CT)(*PTR(float, gsb, gso)) : (CT)1;
  ITEM_LOOP(i, n) {
    CT g = step_gradient(grad, i, scale);
    const CT p = LOAD(param, i);
#if WEIGHT_DECAY
    g += p * weight_decay;
#endif
#if MOMENTUM
    const CT m = first_step ? g : (CT)LOAD(buf, i) * momentum + g * dampening_c;
    STORE(buf, i, m);
#if NESTEROV
    g = g + m * momentum;
#else
    g = m;
#endif
#endif
    STORE(param, i, p - g * rate);
  }
}

// ADAMW: decoupled weight decay (param *= 1 - lr * weight_decay).
__kernel void fused_adam(__global char* pb, ulong po, __global char* gb, ulong go, __global char* mb, ulong mo,
                         __global char* vb, ulong vo, __global char* vmb, ulong vmo, __global char* sb, ulong so,
                         __global char* lrb, ulong lro, __global char* gsb, ulong gso, __global char* fib, ulong fio,
                         CT lr, CT beta1, CT beta2, CT weight_decay, CT eps, long n) {
  if (fib && *PTR(float, fib, fio) == 1.0f) return;
  __global ST* param = PTR(ST, pb, po);
  __global ST* grad = PTR(ST, gb, go);
  __global ST* exp_avg = PTR(ST, mb, mo);
  __global ST* exp_avg_sq = PTR(ST, vb, vo);
  __global ST* max_sq = PTR(ST, vmb, vmo);
  const CT rate = lrb ? *PTR(CT, lrb, lro) : lr;
  const float step = *PTR(float, sb, so);
  const CT step_size = rate / ((CT)1 - pow_step(beta1, step));
  const CT bc2_sqrt = sqrt((CT)1 - pow_step(beta2, step));
  const CT w1 = (CT)1 - beta1, w2 = (CT)1 - beta2;
  const CT scale = GRAD_SCALE ? (CT)(*PTR(float, gsb, gso)) : (CT)1;
  ITEM_LOOP(i, n) {
    CT g = step_gradient(grad, i, scale);
    CT p = LOAD(param, i);
#if WEIGHT_DECAY && ADAMW
    p = p * ((CT)1 - rate * weight_decay);
#elif WEIGHT_DECAY
    g += p * weight_decay;
#endif
    const CT m = (CT)LOAD(exp_avg, i) * beta1 + g * w1;
    const CT v = (CT)LOAD(exp_avg_sq, i) * beta2 + g * g * w2;
    STORE(exp_avg, i, m);
    STORE(exp_avg_sq, i, v);
#if AMSGRAD
    const CT denom_sq = max((CT)LOAD(max_sq, i), v);
    STORE(max_sq, i, denom_sq);
#else
    const CT denom_sq = v;
#endif
    STORE(param, i, p - step_size * m / (sqrt(denom_sq) / bc2_sqrt + eps));
  }
}
