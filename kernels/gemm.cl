// Register-tiled matrix product for CPU OpenCL devices (launcher: kernels/blas.cpp, gemm_tile):
// C[z] = alpha * A[z] @ B[z] + beta * C[z], float32 / float64. CLBlast's Xgemm relies on local
// memory and work-group-wide vectorisation; PoCL runs a work group's items as a loop and
// vectorises only simple code, so here each work item computes one TM x TN tile of C with
// explicit vector accumulators (ACCV = TN-wide, one per row): for each k, one vector load of a
// row of B and TM scalar broadcasts of A. Tiles are numbered with the row block fastest, so the
// items of a group share one column panel of B (kept in cache).
// From the launcher: TM, TN, ACCV (ACC vector of TN), VLOADN (vload of TN), after dtype_preamble.
// A: any strides (transposed views work in place); B: unit column stride (b_rs = row stride);
// C: any strides. Rows past M are clamped (computed twice, never stored); columns past N are
// loaded as 0. beta == 0 never reads C (NaN there must not leak).

__kernel void gemm_tile(__global char* ab, ulong ao, __global char* bb, ulong bo, __global char* cb, ulong co,
                        long M, long N, long K, long batch, long a_rs, long a_cs, long a_bs, long b_rs, long b_bs,
                        long c_rs, long c_cs, long c_bs, ACC alpha, ACC beta) {
  __global const ST* A = PTR(ST, ab, ao);
  __global const ST* B = PTR(ST, bb, bo);
  __global ST* C = PTR(ST, cb, co);
  const long nbm = (M + TM - 1) / TM, nbn = (N + TN - 1) / TN;
  const long tiles = nbm * nbn * batch;
  for (long t = get_global_id(0); t < tiles; t += get_global_size(0)) {
    const long bm = t % nbm, rest = t / nbm, bn = rest % nbn, z = rest / nbn;
    const long r0 = bm * TM, j0 = bn * TN;
    __global const ST* a[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) a[i] = A + z * a_bs + min(r0 + i, M - 1) * a_rs;
    __global const ST* b = B + z * b_bs + j0;
    ACCV acc[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) acc[i] = (ACCV)0;
    if (j0 + TN <= N) {
      for (long k = 0; k < K; ++k) {
        const ACCV bv = VLOADN(0, b + k * b_rs);
#pragma unroll
        for (int i = 0; i < TM; ++i) acc[i] = fma((ACCV)(a[i][k * a_cs]), bv, acc[i]);
      }
    } else {  // last column panel: columns past N read as 0
      const int nv = (int)(N - j0);
      for (long k = 0; k < K; ++k) {
        ST tmp[TN];
#pragma unroll
        for (int q = 0; q < TN; ++q) tmp[q] = q < nv ? b[k * b_rs + q] : (ST)0;
        const ACCV bv = VLOADN(0, tmp);
#pragma unroll
        for (int i = 0; i < TM; ++i) acc[i] = fma((ACCV)(a[i][k * a_cs]), bv, acc[i]);
      }
    }
    const int nr = (int)min((long)TM, M - r0), nc = (int)min((long)TN, N - j0);
    __global ST* c = C + z * c_bs + r0 * c_rs + j0 * c_cs;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      if (i < nr) {
        ACC v[TN];
        VSTOREN(acc[i], 0, v);
        for (int q = 0; q < nc; ++q) {
          __global ST* p = c + i * c_rs + q * c_cs;
          *p = beta == 0 ? alpha * v[q] : alpha * v[q] + beta * *p;
        }
      }
    }
  }
}
