// Dense factorizations and solves for kernels/linalg_ops.cpp: one work group
// per matrix of a batch (grid-stride over the batch), the group's items
// sharing each step's row/column work between barriers. ST is float or
// double (dtype preamble). A matrix is addressed by element strides: entry
// (i, j) of matrix b is a[b * ms + i * rs + j * cs], so a transposed operand
// is the same kernel with rs and cs swapped. Pivots and infos are int32, as
// LAPACK's (1-based pivots; info = the first failing step + 1, 0 = success).

#define AT(p, i, j) (p)[(i) * rs + (j) * cs]
#define SYNC barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

// Cholesky, lower: a = L L^T in the lower triangle (right-looking). A
// non-positive (or NaN) pivot stops the factorization with info = its step.
__kernel void potrf_lower(__global char* ab, ulong ao, __global char* ib, ulong io, long n, long rs, long cs, long ms,
                          long nb) {
  __local int failed;
  const long lid = get_local_id(0), lsz = get_local_size(0);
  for (long b = get_group_id(0); b < nb; b += get_num_groups(0)) {
    __global ST* a = PTR(ST, ab, ao) + b * ms;
    if (lid == 0) failed = 0;
    SYNC;
    for (long j = 0; j < n; ++j) {
      if (lid == 0) {
        const ST d = AT(a, j, j);
        if (d > 0) AT(a, j, j) = sqrt(d);
        else failed = (int)(j + 1);
      }
      SYNC;
      if (failed) break;
      const ST djj = AT(a, j, j);
      for (long i = j + 1 + lid; i < n; i += lsz) AT(a, i, j) /= djj;
      SYNC;
      const long m = n - j - 1;
      for (long t = lid; t < m * m; t += lsz) {
        const long i = j + 1 + t % m, k = j + 1 + t / m;
        if (k <= i) AT(a, i, k) -= AT(a, i, j) * AT(a, k, j);
      }
      SYNC;
    }
    if (lid == 0) PTR(int, ib, io)[b] = failed;
    SYNC;
  }
}

// LU with partial pivoting of an m x n matrix (LAPACK getf2): the pivot is
// the first largest |a(i, j)|, i >= j; a zero pivot sets info (the first
// one) and leaves its column unscaled; the trailing update runs regardless.
// pivot == 0: no row exchanges (pivots 1..k), as CUDA's pivot=False.
__kernel void getrf(__global char* ab, ulong ao, __global char* pb, ulong po, __global char* ib, ulong io, long m,
                    long n, long rs, long cs, long ms, long nb, int pivot, __local ST* best, __local long* where) {
  __local int first_zero;
  const long lid = get_local_id(0), lsz = get_local_size(0), k = min(m, n);
  for (long b = get_group_id(0); b < nb; b += get_num_groups(0)) {
    __global ST* a = PTR(ST, ab, ao) + b * ms;
    __global int* piv = PTR(int, pb, po) + b * k;
    if (lid == 0) first_zero = 0;
    for (long j = 0; j < k; ++j) {
      long p = j;
      if (pivot) {
        ST bv = -1;
        long bi = m;
        for (long i = j + lid; i < m; i += lsz) {
          const ST v = fabs(AT(a, i, j));
          if (v > bv) { bv = v; bi = i; }
        }
        best[lid] = bv;
        where[lid] = bi;
        SYNC;
        for (long s = lsz / 2; s > 0; s >>= 1) {
          if (lid < s && (best[lid + s] > best[lid] || (best[lid + s] == best[lid] && where[lid + s] < where[lid]))) {
            best[lid] = best[lid + s];
            where[lid] = where[lid + s];
          }
          SYNC;
        }
        p = where[0] < m ? where[0] : j;  // all NaN: no exchange
      }
      if (lid == 0) piv[j] = (int)(p + 1);
      if (p != j)
        for (long c = lid; c < n; c += lsz) {
          const ST t = AT(a, j, c);
          AT(a, j, c) = AT(a, p, c);
          AT(a, p, c) = t;
        }
      SYNC;
      const ST pv = AT(a, j, j);
      if (pv != 0) {
        const ST r = 1 / pv;
        for (long i = j + 1 + lid; i < m; i += lsz) AT(a, i, j) *= r;
      } else if (lid == 0 && first_zero == 0) {
        first_zero = (int)(j + 1);
      }
      SYNC;
      const long rows = m - j - 1, cols = n - j - 1;
      for (long t = lid; t < rows * cols; t += lsz) {
        const long i = j + 1 + t % rows, c = j + 1 + t / rows;
        AT(a, i, c) -= AT(a, i, j) * AT(a, j, c);
      }
      SYNC;
    }
    if (lid == 0) PTR(int, ib, io)[b] = first_zero;
    SYNC;
  }
}

// Solves op(A) X = B in place of B (n x k) for triangular A (n x n): lower
// forward, upper backward substitution, column-oriented so the items share
// each step's rank-1 update. unit: A's diagonal is taken as ones.
__kernel void trsm_left(__global const char* ab_, ulong ao, __global char* bb, ulong bo, long n, long k, long ars,
                        long acs, long ams, long rs, long cs, long ms, long nb, int upper, int unit) {
  const long lid = get_local_id(0), lsz = get_local_size(0);
  for (long bt = get_group_id(0); bt < nb; bt += get_num_groups(0)) {
    __global const ST* A = PTR(const ST, ab_, ao) + bt * ams;
    __global ST* x = PTR(ST, bb, bo) + bt * ms;
    for (long s = 0; s < n; ++s) {
      const long i = upper ? n - 1 - s : s;
      if (!unit) {
        const ST d = A[i * ars + i * acs];
        for (long c = lid; c < k; c += lsz) AT(x, i, c) /= d;
        SYNC;
      }
      const long rows = n - 1 - s, r0 = upper ? 0 : i + 1;
      for (long t = lid; t < rows * k; t += lsz) {
        const long r = r0 + t % rows, c = t / rows;
        AT(x, r, c) -= A[r * ars + i * acs] * AT(x, i, c);
      }
      SYNC;
    }
  }
}

// Applies LU's row exchanges (pivots 1-based, `npiv` of them) to each column
// of B (n x k): in order (P^T B), or in reverse order (P B).
__kernel void laswp(__global char* bb, ulong bo, __global const char* pb, ulong po, long npiv, long k, long rs,
                    long cs, long ms, long pms, long nb, int reverse) {
  GRID_LOOP(idx, nb * k) {
    const long bt = idx / k, c = idx % k;
    __global ST* x = PTR(ST, bb, bo) + bt * ms;
    __global const int* piv = PTR(const int, pb, po) + bt * pms;
    for (long s = 0; s < npiv; ++s) {
      const long j = reverse ? npiv - 1 - s : s, p = piv[j] - 1;
      if (p != j) {
        const ST t = AT(x, j, c);
        AT(x, j, c) = AT(x, p, c);
        AT(x, p, c) = t;
      }
    }
  }
}

// perm [nb, m] (int64, holding 0..m-1) permuted by the row exchanges of
// pivots [nb, k] (int32, 1-based): lu_unpack's permutation.
__kernel void unpack_pivots(__global char* qb, ulong qo, __global const char* pb, ulong po, long m, long k, long nb) {
  GRID_LOOP(bt, nb) {
    __global long* perm = PTR(long, qb, qo) + bt * m;
    __global const int* piv = PTR(const int, pb, po) + bt * k;
    for (long j = 0; j < k; ++j) {
      const long p = piv[j] - 1;
      const long t = perm[j];
      perm[j] = perm[p];
      perm[p] = t;
    }
  }
}
