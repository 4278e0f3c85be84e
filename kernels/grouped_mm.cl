// torch._grouped_mm (launcher: kernels/grouped_mm_ops.cpp): a work item per
// GMM_TJ consecutive columns of an output row (grid-stride), the row's group
// found by scanning offs on the device (G is small), so no offset reaches the
// host. out[go, i, j] =
// sum over k in the group's K range of a[ga, i, k] * b[gb, k, j], summed in
// CT (float for half/bfloat16). Modes, as ATen's _grouped_mm_fallback:
//   GMM_ROWS  2d x 3d: offs partition the rows i of a, gb = the row's group
//   GMM_COLS  3d x 2d: offs partition the columns j of b; the launcher runs it
//             as GMM_ROWS of the transposed product (out^T = b^T a^T)
//   GMM_K     2d x 2d: offs partition K, go = the group
//   GMM_BATCH 3d x 3d: ga = gb = go
// Group g covers [offs[g-1], offs[g]) (offs[-1] = 0); a row, column or K index
// that no group covers gives 0. Strides are in elements; a 2d operand has a
// group stride of 0.
#define GMM_ROWS 0
#define GMM_K 2
#define GMM_BATCH 3
#define GMM_TJ 8

// The last group whose range holds x (ATen's loop writes the groups in order,
// so with overlapping ranges the last one wins), or -1.
static inline long gmm_group(__global const int* offs, long offs_s, long G, long x) {
  long g = -1, start = 0;
  for (long t = 0; t < G; ++t) {
    const long end = offs[t * offs_s];
    if (x >= start && x < end) g = t;
    start = end;
  }
  return g;
}

__kernel void grouped_mm(__global char* ab, ulong ao, long a_sg, long a_si, long a_sk,
                         __global char* bb, ulong bo, long b_sg, long b_sk, long b_sj,
                         __global char* fb, ulong fo, long offs_s, long G,
                         __global char* cb, ulong co, long c_sg, long c_si, long c_sj,
                         long M, long N, long K, long total, int mode) {
  __global const ST* a = PTR(const ST, ab, ao);
  __global const ST* b = PTR(const ST, bb, bo);
  __global const int* offs = PTR(const int, fb, fo);
  __global ST* c = PTR(ST, cb, co);
  const long NB = (N + GMM_TJ - 1) / GMM_TJ;  // column blocks: a work item writes GMM_TJ columns of a row
  for (long idx = get_global_id(0); idx < total; idx += get_global_size(0)) {
    const long j0 = (idx % NB) * GMM_TJ, r = idx / NB, i = r % M, go = r / M;
    long ga = 0, gb = 0, k0 = 0, k1 = K;
    if (mode == GMM_ROWS) {
      gb = gmm_group(offs, offs_s, G, i);
      if (gb < 0) k1 = 0;
    } else if (mode == GMM_K) {
      k0 = clamp(go == 0 ? 0L : (long)offs[(go - 1) * offs_s], 0L, K);
      k1 = clamp((long)offs[go * offs_s], 0L, K);
    } else {
      ga = gb = go;
    }
    const int nj = (int)min((long)GMM_TJ, N - j0);
    __global const ST* pa = a + ga * a_sg + i * a_si;
    __global const ST* pb = b + gb * b_sg + j0 * b_sj;
    CT s[GMM_TJ];
    for (int t = 0; t < GMM_TJ; ++t) s[t] = (CT)0;
    if (nj == GMM_TJ) {
      for (long k = k0; k < k1; ++k) {
        const CT x = (CT)LOAD(pa, k * a_sk);
        for (int t = 0; t < GMM_TJ; ++t) s[t] += x * (CT)LOAD(pb, k * b_sk + t * b_sj);
      }
    } else {
      for (long k = k0; k < k1; ++k) {
        const CT x = (CT)LOAD(pa, k * a_sk);
        for (int t = 0; t < nj; ++t) s[t] += x * (CT)LOAD(pb, k * b_sk + t * b_sj);
      }
    }
    __global ST* pc = c + go * c_sg + i * c_si + j0 * c_sj;
    for (int t = 0; t < nj; ++t) STORE(pc, t * c_sj, s[t]);
  }
}
