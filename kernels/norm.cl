// Layer norm and RMS norm over the rows of a contiguous [M, N] tensor, and
// their input gradient: one work group per row, statistics in ACC (float for
// half/bfloat16). mean / rstd and the weight and bias are ACC arrays; x, y,
// dy, dx have the dtype of the preamble (ST). `rms` != 0: RMS norm (no mean
// is subtracted: mean reads as 0 and is not written).
// kernels/norm_ops.cpp launches these; batch and group norm use the
// reduction and pointwise engines instead.

static inline ACC row_sum(__local ACC* scratch, ACC v) {
  const long lid = get_local_id(0), lsize = get_local_size(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (long s = lsize / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const ACC r = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

// mean = sum(x) / N, var = sum((x - mean)^2) / N (two passes), rstd =
// 1 / sqrt(var + eps); y = (x - mean) * rstd * w + b (the CPU's x * rstd -
// mean * rstd cancels badly for rows of one element).
__kernel void row_norm_forward(__global char* xb, ulong xo, __global char* yb, ulong yo,
                               __global char* mb, ulong mo, __global char* rb, ulong ro,
                               __global char* wb, ulong wo, __global char* bb, ulong bo, long M, long N,
                               ACC eps, int rms, __local ACC* scratch) {
  __global ST* x = PTR(ST, xb, xo);
  __global ST* y = PTR(ST, yb, yo);
  __global ACC* mean_out = PTR(ACC, mb, mo);
  __global ACC* rstd_out = PTR(ACC, rb, ro);
  __global ACC* w = wb ? PTR(ACC, wb, wo) : 0;
  __global ACC* b = bb ? PTR(ACC, bb, bo) : 0;
  const long lid = get_local_id(0), lsize = get_local_size(0);
  for (long r = get_group_id(0); r < M; r += get_num_groups(0)) {
    __global ST* xr = x + r * N;
    ACC mean = 0;
    if (!rms) {
      ACC s = 0;
      for (long n = lid; n < N; n += lsize) s += (ACC)LOAD(xr, n);
      mean = row_sum(scratch, s) / (ACC)N;
    }
    ACC q = 0;
    for (long n = lid; n < N; n += lsize) {
      const ACC d = (ACC)LOAD(xr, n) - mean;
      q += d * d;
    }
    const ACC var = row_sum(scratch, q) / (ACC)N;
    const ACC rstd = (ACC)1 / sqrt(fmax(var, (ACC)0) + eps);
    if (lid == 0) {
      if (!rms) mean_out[r] = mean;
      rstd_out[r] = rstd;
    }
    for (long n = lid; n < N; n += lsize) {
      ACC v = ((ACC)LOAD(xr, n) - mean) * rstd;
      if (w) v *= w[n];
      if (b) v += b[n];
      STORE(y, r * N + n, v);
    }
  }
}

// With g = dy * w and xhat = (x - mean) * rstd:
// dx = rstd * (g - sum(g) / N - xhat * sum(g * xhat) / N)   (layer norm)
// dx = rstd * (g - xhat * sum(g * xhat) / N)                 (RMS norm)
__kernel void row_norm_backward(__global char* gb, ulong go, __global char* xb, ulong xo,
                                __global char* mb, ulong mo, __global char* rb, ulong ro,
                                __global char* wb, ulong wo, __global char* db, ulong dof, long M, long N,
                                int rms, __local ACC* scratch) {
  __global ST* dy = PTR(ST, gb, go);
  __global ST* x = PTR(ST, xb, xo);
  __global ACC* mean_in = PTR(ACC, mb, mo);
  __global ACC* rstd_in = PTR(ACC, rb, ro);
  __global ACC* w = wb ? PTR(ACC, wb, wo) : 0;
  __global ST* dx = PTR(ST, db, dof);
  const long lid = get_local_id(0), lsize = get_local_size(0);
  for (long r = get_group_id(0); r < M; r += get_num_groups(0)) {
    const long base = r * N;
    const ACC mean = rms ? (ACC)0 : mean_in[r], rstd = rstd_in[r];
    ACC sg = 0, sgx = 0;
    for (long n = lid; n < N; n += lsize) {
      const ACC g = (ACC)LOAD(dy, base + n) * (w ? w[n] : (ACC)1);
      sg += g;
      sgx += g * (((ACC)LOAD(x, base + n) - mean) * rstd);
    }
    sg = rms ? (ACC)0 : row_sum(scratch, sg) / (ACC)N;
    sgx = row_sum(scratch, sgx) / (ACC)N;
    for (long n = lid; n < N; n += lsize) {
      const ACC g = (ACC)LOAD(dy, base + n) * (w ? w[n] : (ACC)1);
      const ACC xhat = ((ACC)LOAD(x, base + n) - mean) * rstd;
      STORE(dx, base + n, rstd * (g - sg - xhat * sgx));
    }
  }
}
