// Softmax and log-softmax over the last dim of a contiguous [M, N] tensor,
// and their backward. One work group per row; LOG selects log-softmax.

static inline ACC group_reduce(__local ACC* scratch, ACC v, int is_max) {
  const long lid = get_local_id(0), lsize = get_local_size(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (long s = lsize / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] = is_max ? fmax(scratch[lid], scratch[lid + s]) : scratch[lid] + scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  ACC r = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

__kernel void softmax_forward(__global char* ib, ulong io, __global char* ob, ulong oo, long M,
                              long N, __local ACC* scratch) {
  __global ST* in = PTR(ST, ib, io);
  __global ST* out = PTR(ST, ob, oo);
  const long lid = get_local_id(0), lsize = get_local_size(0);
  for (long r = get_group_id(0); r < M; r += get_num_groups(0)) {
    const long base = r * N;
    ACC m = -INFINITY;
    for (long n = lid; n < N; n += lsize) m = fmax(m, (ACC)LOAD(in, base + n));
    m = group_reduce(scratch, m, 1);
    ACC s = 0;
    for (long n = lid; n < N; n += lsize) s += exp((ACC)LOAD(in, base + n) - m);
    s = group_reduce(scratch, s, 0);
#ifdef LOG
    // (x - max) - log(sum), never x - (max + log(sum)): at large max the sum
    // max + log(sum) would round away log(sum) (1e7 + 0.3 is 1e7 in float).
    const ACC log_s = log(s);
    for (long n = lid; n < N; n += lsize) STORE(out, base + n, ((ACC)LOAD(in, base + n) - m) - log_s);
#else
    for (long n = lid; n < N; n += lsize) STORE(out, base + n, exp((ACC)LOAD(in, base + n) - m) / s);
#endif
  }
}

// grad_input = out * (grad - sum(grad * out))      (softmax)
// grad_input = grad - exp(out) * sum(grad)          (log-softmax)
__kernel void softmax_backward(__global char* gb, ulong go, __global char* ob, ulong oo,
                               __global char* rb, ulong ro, long M, long N,
                               __local ACC* scratch) {
  __global ST* grad = PTR(ST, gb, go);
  __global ST* out = PTR(ST, ob, oo);
  __global ST* res = PTR(ST, rb, ro);
  const long lid = get_local_id(0), lsize = get_local_size(0);
  for (long r = get_group_id(0); r < M; r += get_num_groups(0)) {
    const long base = r * N;
    ACC s = 0;
    for (long n = lid; n < N; n += lsize) {
#ifdef LOG
      s += (ACC)LOAD(grad, base + n);
#else
      s += (ACC)LOAD(grad, base + n) * (ACC)LOAD(out, base + n);
#endif
    }
    s = group_reduce(scratch, s, 0);
    for (long n = lid; n < N; n += lsize) {
      const ACC g = LOAD(grad, base + n), o = LOAD(out, base + n);
#ifdef LOG
      STORE(res, base + n, g - exp(o) * s);
#else
      STORE(res, base + n, o * (g - s));
#endif
    }
  }
}
