// p-norm distances between rows: cdist (x1 [B, P, M] against x2 [B, R, M])
// and pdist (the pairs i < j of x [N, M], in row-major pair order), with
// their backward kernels. Every tensor is contiguous; ST/CT/ACC and
// LOAD/STORE come from the dtype preamble (float32 / float64). The
// accumulation and the per-p formulas are the CPU's (ATen's Distance kernels):
// p = 0 counts differing elements, p = inf takes the largest difference.

static inline ACC dist_term(ACC d, ACC p) {
  return p == 0 ? (ACC)(d != 0) : p == 1 ? d : p == 2 ? d * d : pow(d, p);
}
static inline ACC dist_finish(ACC acc, ACC p) {
  return (p == 0 || p == 1 || isinf(p)) ? acc : p == 2 ? sqrt(acc) : pow(acc, (ACC)1 / p);
}
// ||u - v||_p over m elements.
static inline ACC row_distance(__global const ST* u, __global const ST* v, long m, ACC p) {
  ACC acc = 0;
  for (long k = 0; k < m; ++k) {
    const ACC d = fabs((ACC)LOAD(u, k) - (ACC)LOAD(v, k));
    acc = isinf(p) ? fmax(acc, d) : acc + dist_term(d, p);
  }
  return dist_finish(acc, p);
}
// d distance / d u_k for diff = u_k - v_k, times the incoming gradient g.
static inline ACC dist_grad(ACC diff, ACC g, ACC dist, ACC p) {
  const ACC s = (ACC)((diff > 0) - (diff < 0));
  if (p == 0) return 0;
  if (p == 1) return s * g;
  if (isinf(p)) return g * s * (ACC)(fabs(diff) == dist);
  if (dist == 0) return 0;
  if (p == 2) return g * diff / dist;
  if (p < 2) return (diff == 0 && p < 1) ? 0 : s * pow(fabs(diff), p - 1) * g / pow(dist, p - 1);
  return diff * pow(fabs(diff), p - 2) * g / pow(dist, p - 1);
}

__kernel void cdist_forward(__global const char* ab, ulong ao, __global const char* bb, ulong bo,
                            __global char* ob, ulong oo, long B, long P, long R, long M, ACC p) {
  __global const ST* x1 = PTR(ST, ab, ao);
  __global const ST* x2 = PTR(ST, bb, bo);
  __global ST* out = PTR(ST, ob, oo);
  GRID_LOOP(idx, B * P * R) {
    const long j = idx % R, i = idx / R % P, b = idx / (P * R);
    STORE(out, idx, row_distance(x1 + (b * P + i) * M, x2 + (b * R + j) * M, M, p));
  }
}

// grad_x1[b][i][k] = sum_j grad[b][i][j] * d dist[b][i][j] / d x1[b][i][k]
__kernel void cdist_backward(__global const char* gb, ulong go, __global const char* ab, ulong ao,
                             __global const char* bb, ulong bo, __global const char* db, ulong do_,
                             __global char* ob, ulong oo, long B, long P, long R, long M, ACC p) {
  __global const ST* grad = PTR(ST, gb, go);
  __global const ST* x1 = PTR(ST, ab, ao);
  __global const ST* x2 = PTR(ST, bb, bo);
  __global const ST* dist = PTR(ST, db, do_);
  __global ST* out = PTR(ST, ob, oo);
  GRID_LOOP(idx, B * P * M) {
    const long k = idx % M, i = idx / M % P, b = idx / (P * M);
    const ACC u = LOAD(x1, idx);
    ACC acc = 0;
    for (long j = 0; j < R; ++j) {
      const long e = (b * P + i) * R + j;
      acc += dist_grad(u - (ACC)LOAD(x2, (b * R + j) * M + k), LOAD(grad, e), LOAD(dist, e), p);
    }
    STORE(out, idx, acc);
  }
}

// The index of pair (i, j), i < j, among the N (N - 1) / 2 pairs in row-major order.
static inline long pair_index(long i, long j, long n) { return i * n - i * (i + 1) / 2 + (j - i - 1); }

__kernel void pdist_forward(__global const char* ab, ulong ao, __global char* ob, ulong oo, long N, long M,
                            ACC p) {
  __global const ST* x = PTR(ST, ab, ao);
  __global ST* out = PTR(ST, ob, oo);
  GRID_LOOP(i, N) {
    for (long j = i + 1; j < N; ++j) STORE(out, pair_index(i, j, N), row_distance(x + i * M, x + j * M, M, p));
  }
}

// grad_x[i][k] = sum_{j != i} grad[pair] * d dist[pair] / d x[i][k]
__kernel void pdist_backward(__global const char* gb, ulong go, __global const char* ab, ulong ao,
                             __global const char* db, ulong do_, __global char* ob, ulong oo, long N, long M,
                             ACC p) {
  __global const ST* grad = PTR(ST, gb, go);
  __global const ST* x = PTR(ST, ab, ao);
  __global const ST* dist = PTR(ST, db, do_);
  __global ST* out = PTR(ST, ob, oo);
  GRID_LOOP(idx, N * M) {
    const long k = idx % M, i = idx / M;
    const ACC u = LOAD(x, idx);
    ACC acc = 0;
    for (long j = 0; j < N; ++j) {
      if (j == i) continue;
      const long e = i < j ? pair_index(i, j, N) : pair_index(j, i, N);
      acc += dist_grad(u - (ACC)LOAD(x, j * M + k), LOAD(grad, e), LOAD(dist, e), p);
    }
    STORE(out, idx, acc);
  }
}
