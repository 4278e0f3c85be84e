// Sum reductions over a [M, N] view with element strides (sM, sN). ACC is the
// accumulation type (float for half/bfloat16, long for integers).

// One work group per row r = m * G + g, covering n in [g * C, min(N, g * C + C)).
// G > 1 is the first pass of a two-pass reduction of long rows.
__kernel void sum_rows(__global char* ib, ulong io, long M, long N, long sM,
                       long sN, long G, long C, __global char* ob, ulong oo,
                       __local ACC* scratch) {
  __global ST* in = PTR(ST, ib, io);
  __global ST* out = PTR(ST, ob, oo);
  const long lid = get_local_id(0), lsize = get_local_size(0);
  for (long r = get_group_id(0); r < M * G; r += get_num_groups(0)) {
    const long m = r / G, g = r % G;
    const long n0 = g * C, n1 = min(N, n0 + C);
    ACC acc = 0;
    for (long n = n0 + lid; n < n1; n += lsize) acc += (ACC)LOAD(in, m * sM + n * sN);
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long s = lsize / 2; s > 0; s >>= 1) {
      if (lid < s) scratch[lid] += scratch[lid + s];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) STORE(out, r, (CT)scratch[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// One work item per output m; neighbouring items read neighbouring columns.
__kernel void sum_cols(__global char* ib, ulong io, long M, long N, long sM,
                       long sN, __global char* ob, ulong oo) {
  __global ST* in = PTR(ST, ib, io);
  __global ST* out = PTR(ST, ob, oo);
  GRID_LOOP(m, M) {
    ACC acc = 0;
    for (long n = 0; n < N; ++n) acc += (ACC)LOAD(in, m * sM + n * sN);
    STORE(out, m, (CT)acc);
  }
}
