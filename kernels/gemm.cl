// Register-tiled matrix product for CPU OpenCL devices (launcher: kernels/blas.cpp, gemm_tile):
// C[z] = alpha * A[z] @ B[z] + beta * C[z], float32 / float64. CLBlast's Xgemm relies on local
// memory and work-group-wide vectorisation; PoCL runs a work group's items as a loop and
// vectorises only simple code, so here each work item computes one TM x TN tile of C with
// explicit vector accumulators (ACCV = TN-wide, one per row): for each k, one vector load of a
// row of B's panel and TM scalar broadcasts of A. Tiles (launcher): 6 x 16 float32, 4 x 8 float64
// (of 2x16, 4x16, 5x16, 6x8, 8x8, 8x16 measured on PoCL/AVX2: 12 vector accumulators fit). Tiles are numbered with the row block fastest, so
// consecutive items share one column panel of B (kept in cache). (Ordering by slices of A that
// fit in the L2 cache was measured slower.)
// From the launcher: TM, TN, ACCV (ACC vector of TN), VLOADN (vload of TN), after dtype_preamble.
// A and C: any strides (transposed views work in place). B is first packed by gemm_pack_b into
// column panels [batch][N/TN][K][TN] (zero-padded past N): each item then reads one contiguous
// panel (strided rows of a large B cost a TLB miss per k). Rows past M are clamped (computed
// twice, never stored). beta == 0 never reads C (NaN there must not leak).

// P[z][p][k][q] = B[z][k][p * TN + q], 0 past N; one work item per (z, p, k) row of a panel.
__kernel void gemm_pack_b(__global char* bb, ulong bo, __global char* pb, ulong po, long K, long N, long rows,
                          long b_rs, long b_cs, long b_bs) {
  __global const ST* B = PTR(ST, bb, bo);
  __global ST* P = PTR(ST, pb, po);
  const long nbn = (N + TN - 1) / TN;
  for (long r = get_global_id(0); r < rows; r += get_global_size(0)) {
    const long k = r % K, p = (r / K) % nbn, z = r / (K * nbn);
    __global const ST* b = B + z * b_bs + k * b_rs + p * TN * b_cs;
    __global ST* d = P + r * TN;
    const int nv = (int)min((long)TN, N - p * TN);
#pragma unroll
    for (int q = 0; q < TN; ++q) d[q] = q < nv ? b[q * b_cs] : (ST)0;
  }
}



__kernel void gemm_tile(__global char* ab, ulong ao, __global char* pb, ulong po, __global char* cb, ulong co,
                        long M, long N, long K, long batch, long a_rs, long a_cs, long a_bs, long p_bs, long c_rs,
                        long c_cs, long c_bs, ACC alpha, ACC beta) {
  __global const ST* A = PTR(ST, ab, ao);
  __global const ST* P = PTR(ST, pb, po);
  __global ST* C = PTR(ST, cb, co);
  const long nbm = (M + TM - 1) / TM, nbn = (N + TN - 1) / TN;
  const long tiles = nbm * nbn * batch;
  for (long t = get_global_id(0); t < tiles; t += get_global_size(0)) {
    const long bm = t % nbm, rest = t / nbm, bn = rest % nbn, z = rest / nbn;
    const long r0 = bm * TM, j0 = bn * TN;
    __global const ST* a[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) a[i] = A + z * a_bs + min(r0 + i, M - 1) * a_rs;
    __global const ST* b = P + z * p_bs + bn * K * TN;
    ACCV acc[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) acc[i] = (ACCV)0;
    for (long k = 0; k < K; ++k) {
      const ACCV bv = VLOADN(k, b);
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i] = fma((ACCV)(a[i][k * a_cs]), bv, acc[i]);
    }
    const int nr = (int)min((long)TM, M - r0), nc = (int)min((long)TN, N - j0);
    __global ST* c = C + z * c_bs + r0 * c_rs + j0 * c_cs;
    if (nr == TM && nc == TN && c_cs == 1) {  // a full tile of row-major C: vector stores
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        __global ST* p = c + i * c_rs;
        VSTOREN(beta == 0 ? alpha * acc[i] : alpha * acc[i] + beta * VLOADN(0, p), 0, p);
      }
      continue;
    }
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
