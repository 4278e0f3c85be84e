// Dense factorizations and solves for kernels/linalg_ops.cpp: one work group
// per matrix of a batch (grid-stride over the batch), the group's items
// sharing each step's row/column work between barriers. A matrix is
// addressed by element strides: entry (i, j) of matrix b is
// a[b * ms + i * rs + j * cs], so a transposed operand is the same kernel
// with rs and cs swapped. Pivots and infos are int32, as LAPACK's (1-based
// pivots; info = the first failing step + 1, 0 = success).
//
// The kernels take real and complex matrices (T, R and the element
// arithmetic: kernels/linalg_scalar.cl, prepended).

#define AT(p, i, j) (p)[(i) * rs + (j) * cs]
#define SYNC barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)


// Cholesky, lower: a = L L^H in the lower triangle (right-looking). A
// non-positive (or NaN) real diagonal stops the factorization with info =
// its step.
__kernel void potrf_lower(__global char* ab, ulong ao, __global char* ib, ulong io, long n, long rs, long cs, long ms,
                          long nb) {
  __local int failed;
  const long lid = get_local_id(0), lsz = get_local_size(0);
  for (long b = get_group_id(0); b < nb; b += get_num_groups(0)) {
    __global T* a = PTR(T, ab, ao) + b * ms;
    if (lid == 0) failed = 0;
    SYNC;
    for (long j = 0; j < n; ++j) {
      if (lid == 0) {
        const R d = RE(AT(a, j, j));
        if (d > 0) AT(a, j, j) = FROM_R(sqrt(d));
        else failed = (int)(j + 1);
      }
      SYNC;
      if (failed) break;
      const R djj = RE(AT(a, j, j));
      for (long i = j + 1 + lid; i < n; i += lsz) AT(a, i, j) /= djj;
      SYNC;
      const long m = n - j - 1;
      for (long t = lid; t < m * m; t += lsz) {
        const long i = j + 1 + t % m, k = j + 1 + t / m;
        if (k <= i) AT(a, i, k) -= MUL(AT(a, i, j), CONJ(AT(a, k, j)));
      }
      SYNC;
    }
    if (lid == 0) PTR(int, ib, io)[b] = failed;
    SYNC;
  }
}

// LU with partial pivoting of an m x n matrix (LAPACK getf2): the pivot is
// the first largest |a(i, j)| (|re| + |im| for complex, as LAPACK), i >= j;
// a zero pivot sets info (the first one) and leaves its column unscaled; the
// trailing update runs regardless. pivot == 0: no row exchanges (pivots
// 1..k), as CUDA's pivot=False.
__kernel void getrf(__global char* ab, ulong ao, __global char* pb, ulong po, __global char* ib, ulong io, long m,
                    long n, long rs, long cs, long ms, long nb, int pivot, __local R* best, __local long* where) {
  __local int first_zero;
  const long lid = get_local_id(0), lsz = get_local_size(0), k = min(m, n);
  for (long b = get_group_id(0); b < nb; b += get_num_groups(0)) {
    __global T* a = PTR(T, ab, ao) + b * ms;
    __global int* piv = PTR(int, pb, po) + b * k;
    if (lid == 0) first_zero = 0;
    for (long j = 0; j < k; ++j) {
      long p = j;
      if (pivot) {
        R bv = -1;
        long bi = m;
        for (long i = j + lid; i < m; i += lsz) {
          const R v = ABS1(AT(a, i, j));
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
          const T t = AT(a, j, c);
          AT(a, j, c) = AT(a, p, c);
          AT(a, p, c) = t;
        }
      SYNC;
      const T pv = AT(a, j, j);
      if (!IS_ZERO(pv)) {
        const T r = DIV(FROM_R(1), pv);
        for (long i = j + 1 + lid; i < m; i += lsz) AT(a, i, j) = MUL(AT(a, i, j), r);
      } else if (lid == 0 && first_zero == 0) {
        first_zero = (int)(j + 1);
      }
      SYNC;
      const long rows = m - j - 1, cols = n - j - 1;
      for (long t = lid; t < rows * cols; t += lsz) {
        const long i = j + 1 + t % rows, c = j + 1 + t / rows;
        AT(a, i, c) -= MUL(AT(a, i, j), AT(a, j, c));
      }
      SYNC;
    }
    if (lid == 0) PTR(int, ib, io)[b] = first_zero;
    SYNC;
  }
}

// Solves op(A) X = B in place of B (n x k) for triangular A (n x n): lower
// forward, upper backward substitution, column-oriented so the items share
// each step's rank-1 update. unit: A's diagonal is taken as ones; conj: A's
// entries are conjugated (op = A^H with A's strides swapped).
__kernel void trsm_left(__global const char* ab_, ulong ao, __global char* bb, ulong bo, long n, long k, long ars,
                        long acs, long ams, long rs, long cs, long ms, long nb, int upper, int unit, int conj) {
  const long lid = get_local_id(0), lsz = get_local_size(0);
  for (long bt = get_group_id(0); bt < nb; bt += get_num_groups(0)) {
    __global const T* A = PTR(const T, ab_, ao) + bt * ams;
    __global T* x = PTR(T, bb, bo) + bt * ms;
    for (long s = 0; s < n; ++s) {
      const long i = upper ? n - 1 - s : s;
      if (!unit) {
        const T d = conj ? CONJ(A[i * ars + i * acs]) : A[i * ars + i * acs];
        for (long c = lid; c < k; c += lsz) AT(x, i, c) = DIV(AT(x, i, c), d);
        SYNC;
      }
      const long rows = n - 1 - s, r0 = upper ? 0 : i + 1;
      for (long t = lid; t < rows * k; t += lsz) {
        const long r = r0 + t % rows, c = t / rows;
        const T e = A[r * ars + i * acs];
        AT(x, r, c) -= MUL(conj ? CONJ(e) : e, AT(x, i, c));
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
    __global T* x = PTR(T, bb, bo) + bt * ms;
    __global const int* piv = PTR(const int, pb, po) + bt * pms;
    for (long s = 0; s < npiv; ++s) {
      const long j = reverse ? npiv - 1 - s : s, p = piv[j] - 1;
      if (p != j) {
        const T t = AT(x, j, c);
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

// Householder QR of an m x n matrix (LAPACK geqr2 / zgeqr2): column j's
// reflector H = I - tau v v^H (v(j) = 1, v below the diagonal stored in place
// of the zeroed entries), beta (real) on the diagonal, as larfg: tau = 0
// where the column below the diagonal is zero (and, complex, the diagonal
// real); H^H is applied to the trailing columns. `part`: one partial sum per item.
__kernel void geqrf(__global char* ab, ulong ao, __global char* tb, ulong to, long m, long n, long rs, long cs,
                    long ms, long nb, __local R* part) {
  const long lid = get_local_id(0), lsz = get_local_size(0), k = min(m, n);
  for (long b = get_group_id(0); b < nb; b += get_num_groups(0)) {
    __global T* a = PTR(T, ab, ao) + b * ms;
    __global T* tau = PTR(T, tb, to) + b * k;
    for (long j = 0; j < k; ++j) {
      R s = 0;
      for (long i = j + 1 + lid; i < m; i += lsz) s += ABS2(AT(a, i, j));
      part[lid] = s;
      SYNC;
      for (long h = lsz / 2; h > 0; h >>= 1) {
        if (lid < h) part[lid] += part[lid + h];
        SYNC;
      }
      const R xnorm = sqrt(part[0]);
      const T alpha = AT(a, j, j);
      T t = FROM_R(0);
      if (xnorm != 0 || IM(alpha) != 0) {
        const R beta = -copysign(hypot(ABSC(alpha), xnorm), RE(alpha));
        t = MAKE_T((beta - RE(alpha)) / beta, -IM(alpha) / beta);
        const T scale = DIV(FROM_R(1), alpha - FROM_R(beta));
        for (long i = j + 1 + lid; i < m; i += lsz) AT(a, i, j) = MUL(AT(a, i, j), scale);
        SYNC;
        if (lid == 0) AT(a, j, j) = FROM_R(beta);
      }
      if (lid == 0) tau[j] = t;
      SYNC;
      // H^H applied to the trailing columns, an item per column.
      const T tc = CONJ(t);
      if (!IS_ZERO(t))
        for (long c = j + 1 + lid; c < n; c += lsz) {
          T w = AT(a, j, c);
          for (long i = j + 1; i < m; ++i) w += MUL(CONJ(AT(a, i, j)), AT(a, i, c));
          w = MUL(w, tc);
          AT(a, j, c) -= w;
          for (long i = j + 1; i < m; ++i) AT(a, i, c) -= MUL(AT(a, i, j), w);
        }
      SYNC;
    }
  }
}

// C (rows x cols) = H_i C for the k reflectors of v (rows x k, geqrf's
// layout: v(i, i) = 1 implied, v below it), i = k-1..0 (Q C), or H_i^H C for
// i = 0..k-1 (forward: Q^H C); an item per column of C.
__kernel void apply_reflectors(__global const char* vb, ulong vo, __global const char* tb, ulong to,
                               __global char* cb, ulong co, long rows, long cols, long k, long vrs, long vcs,
                               long vms, long rs, long cs, long ms, long nb, int forward) {
  const long lid = get_local_id(0), lsz = get_local_size(0);
  for (long b = get_group_id(0); b < nb; b += get_num_groups(0)) {
    __global const T* v = PTR(const T, vb, vo) + b * vms;
    __global const T* tau = PTR(const T, tb, to) + b * k;
    __global T* x = PTR(T, cb, co) + b * ms;
    for (long s = 0; s < k; ++s) {
      const long i = forward ? s : k - 1 - s;
      const T t = forward ? CONJ(tau[i]) : tau[i];
      if (!IS_ZERO(t))
        for (long c = lid; c < cols; c += lsz) {
          T w = AT(x, i, c);
          for (long r = i + 1; r < rows; ++r) w += MUL(CONJ(v[r * vrs + i * vcs]), AT(x, r, c));
          w = MUL(w, t);
          AT(x, i, c) -= w;
          for (long r = i + 1; r < rows; ++r) AT(x, r, c) -= MUL(v[r * vrs + i * vcs], w);
        }
      SYNC;
    }
  }
}

// The triangular factor of a block reflector (LAPACK larft, forward,
// columnwise): H_0 H_1 ... H_{k-1} = I - Y Tf Y^H for the k reflectors of Y
// with tau, from G = Y^H Y (k x k, row-major): Tf(i, i) = tau_i, Tf(r, i) =
// -tau_i sum_{r <= j < i} Tf(r, j) G(j, i) above, 0 below. Tf row-major; a
// work group per matrix, a barrier per column.
__kernel void larft(__global const char* gb, ulong go, __global const char* taub, ulong tauo, __global char* fb,
                    ulong fo, long k, long nb) {
  const long lid = get_local_id(0), lsz = get_local_size(0);
  for (long b = get_group_id(0); b < nb; b += get_num_groups(0)) {
    __global const T* g = PTR(const T, gb, go) + b * k * k;
    __global const T* tau = PTR(const T, taub, tauo) + b * k;
    __global T* f = PTR(T, fb, fo) + b * k * k;
    for (long i = 0; i < k; ++i) {
      const T ti = tau[i];
      for (long r = lid; r < k; r += lsz) {
        if (r < i) {
          T acc = FROM_R(0);
          for (long j = r; j < i; ++j) acc += MUL(f[r * k + j], g[j * k + i]);
          f[r * k + i] = -MUL(ti, acc);
        } else {
          f[r * k + i] = r == i ? ti : FROM_R(0);
        }
      }
      SYNC;
    }
  }
}

// The round-robin pairing of a Jacobi sweep over N (even) indices: round r's
// pair i. Every index appears once per round; N - 1 rounds pair all.
static inline void jacobi_pair(long N, long r, long i, long* p, long* q) {
  long x = i == 0 ? 0 : (i - 1 + r) % (N - 1) + 1;
  long y = (N - 1 - i - 1 + r) % (N - 1) + 1;
  *p = min(x, y);
  *q = max(x, y);
}

// The Jacobi rotation (c, s) that zeroes g in the symmetric 2 x 2 matrix
// [[a, g], [g, b]] (columns p, q: p' = c p - s q, q' = s p + c q).
static inline void jacobi_rotation(R a, R b, R g, R* c, R* s) {
  const R theta = (b - a) / (2 * g);
  const R t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(1 + theta * theta));
  *c = 1 / sqrt(1 + t * t);
  *s = t * *c;
}
// A pair's rotation, stored as three T per pair (c, s, e): a complex off-
// diagonal g = |g| e is first made real by the phase diag(1, conj(e)), then
// rotated as a real one; real matrices have e = 1. On entries x (at p) and
// y (at q): columns x' = c x - s conj(e) y, y' = s x + c conj(e) y; rows
// x' = c x - s e y, y' = s x + c e y.
static inline void rotate(__global T* x, __global T* y, R c, R s, T e) {
  const T u = *x, v = MUL(e, *y);
  *x = c * u - s * v;  // (a real scalar times a (re, im) pair scales both)
  *y = s * u + c * v;
}

// Hermitian (real: symmetric) eigenproblem by cyclic Jacobi rotations
// (parallel ordering): a (n x n, both triangles) is driven to diagonal, its
// (real) diagonal written to w, the rotations accumulated in v (n x n,
// identity on entry); rot: room for a round's rotations (3 (n + 1) T per
// matrix). A pair is rotated while |a_pq| > eps sqrt(|a_pp a_qq|) (LAPACK's
// Jacobi criterion); sweeps end when one rotates nothing (at most 64).
__kernel void syevj(__global char* ab, ulong ao, __global char* vb, ulong vo, __global char* wb, ulong wo, long n,
                    long ms, long nb, R eps, __global char* qb, ulong qo) {
  __local int rotated;
  const long lid = get_local_id(0), lsz = get_local_size(0), N = n + (n & 1), npairs = N / 2;
  const long rs = 1, cs = n;  // a and v are the kernel's own column-major work matrices
  for (long b = get_group_id(0); b < nb; b += get_num_groups(0)) {
    __global T* a = PTR(T, ab, ao) + b * ms;
    __global T* v = PTR(T, vb, vo) + b * ms;
    __global T* rot = PTR(T, qb, qo) + b * 3 * (n + 1);  // a round's (c, s, e) per pair
    for (int sweep = 0; sweep < 64; ++sweep) {
      if (lid == 0) rotated = 0;
      SYNC;
      for (long r = 0; r < N - 1; ++r) {
        for (long i = lid; i < npairs; i += lsz) {
          long p, q;
          jacobi_pair(N, r, i, &p, &q);
          R c = 1, s = 0;
          T e = FROM_R(1);
          if (q < n) {
            const T apq = AT(a, p, q);
            const R g = ABSC(apq), app = RE(AT(a, p, p)), aqq = RE(AT(a, q, q));
            if (g > eps * sqrt(fabs(app * aqq)) && g != 0) {
              jacobi_rotation(app, aqq, g, &c, &s);
              e = DIV(apq, FROM_R(g));
              rotated = 1;
            }
          }
          rot[3 * i] = FROM_R(c);
          rot[3 * i + 1] = FROM_R(s);
          rot[3 * i + 2] = e;
        }
        SYNC;
        for (long t = lid; t < npairs * n; t += lsz) {  // rows p, q of a
          const long i = t / n, j = t % n;
          long p, q;
          jacobi_pair(N, r, i, &p, &q);
          const R c = RE(rot[3 * i]), s = RE(rot[3 * i + 1]);
          if (q >= n || s == 0) continue;
          rotate(&AT(a, p, j), &AT(a, q, j), c, s, rot[3 * i + 2]);
        }
        SYNC;
        for (long t = lid; t < npairs * n; t += lsz) {  // columns p, q of a and v
          const long i = t / n, j = t % n;
          long p, q;
          jacobi_pair(N, r, i, &p, &q);
          const R c = RE(rot[3 * i]), s = RE(rot[3 * i + 1]);
          if (q >= n || s == 0) continue;
          const T ec = CONJ(rot[3 * i + 2]);
          rotate(&AT(a, j, p), &AT(a, j, q), c, s, ec);
          rotate(&AT(v, j, p), &AT(v, j, q), c, s, ec);
        }
        SYNC;
      }
      const int again = rotated;
      SYNC;
      if (!again) break;
    }
    for (long j = lid; j < n; j += lsz) PTR(R, wb, wo)[b * n + j] = RE(AT(a, j, j));
    SYNC;
  }
}

// One-sided Jacobi SVD of w (m x n, m >= n, column-major, overwritten):
// column pairs are rotated until orthogonal (|w_p^H w_q| <= eps |w_p| |w_q|
// for every pair in a sweep, at most 64 sweeps), the rotations accumulated
// in v (n x n, identity on entry). Then s_j = |w_j| and w_j /= s_j (U's
// columns), unsorted. rot: a round's (c, s, e) per pair (3 (n + 1) T per matrix).
__kernel void gesvj(__global char* ab, ulong ao, __global char* vb, ulong vo, __global char* sb, ulong so, long m,
                    long n, long nb, R eps, __global char* qb, ulong qo) {
  __local int rotated;
  const long lid = get_local_id(0), lsz = get_local_size(0), N = n + (n & 1), npairs = N / 2;
  for (long b = get_group_id(0); b < nb; b += get_num_groups(0)) {
    __global T* w = PTR(T, ab, ao) + b * m * n;
    __global T* v = PTR(T, vb, vo) + b * n * n;
    __global T* rot = PTR(T, qb, qo) + b * 3 * (n + 1);
    for (int sweep = 0; sweep < 64; ++sweep) {
      if (lid == 0) rotated = 0;
      SYNC;
      for (long r = 0; r < N - 1; ++r) {
        for (long i = lid; i < npairs; i += lsz) {
          long p, q;
          jacobi_pair(N, r, i, &p, &q);
          R c = 1, s = 0;
          T e = FROM_R(1);
          if (q < n) {
            R alpha = 0, beta = 0;
            T gamma = FROM_R(0);
            for (long k = 0; k < m; ++k) {
              const T x = w[p * m + k], y = w[q * m + k];
              alpha += ABS2(x);
              beta += ABS2(y);
              gamma += MUL(CONJ(x), y);
            }
            const R g = ABSC(gamma);
            if (g > eps * sqrt(alpha * beta) && g != 0) {
              jacobi_rotation(alpha, beta, g, &c, &s);
              e = DIV(gamma, FROM_R(g));
              rotated = 1;
            }
          }
          rot[3 * i] = FROM_R(c);
          rot[3 * i + 1] = FROM_R(s);
          rot[3 * i + 2] = e;
        }
        SYNC;
        for (long t = lid; t < npairs * (m + n); t += lsz) {
          const long i = t / (m + n), k = t % (m + n);
          long p, q;
          jacobi_pair(N, r, i, &p, &q);
          const R c = RE(rot[3 * i]), s = RE(rot[3 * i + 1]);
          if (q >= n || s == 0) continue;
          __global T* x = k < m ? w + k : v + (k - m);
          const long ld = k < m ? m : n;
          rotate(&x[p * ld], &x[q * ld], c, s, CONJ(rot[3 * i + 2]));
        }
        SYNC;
      }
      const int again = rotated;
      SYNC;
      if (!again) break;
    }
    for (long j = lid; j < n; j += lsz) {
      R norm = 0;
      for (long k = 0; k < m; ++k) norm += ABS2(w[j * m + k]);
      norm = sqrt(norm);
      PTR(R, sb, so)[b * n + j] = norm;
      if (norm != 0)
        for (long k = 0; k < m; ++k) w[j * m + k] = DIV(w[j * m + k], FROM_R(norm));
    }
    SYNC;
  }
}

// Symmetric indefinite factorization A = L D L^T (herm: A = L D L^H) of the
// lower triangle (LAPACK sytf2 / zsytf2 / zhetf2, Bunch-Kaufman diagonal
// pivoting): D has 1x1 and 2x2 blocks (Hermitian: real 1x1 blocks), L's unit
// diagonal is implied; pivots as LAPACK's (1-based; a 2x2 block's two entries
// both -(p + 1)). A zero column (or NaN diagonal) sets info (the first) and
// is skipped. Item 0 takes each step's pivot decision (the column and row
// scans by |re| + |im|, izamax's first largest; a Hermitian diagonal by its
// real part); the items share the interchange and the rank-1 / rank-2 update.
#define HC(x) (herm ? CONJ(x) : (x))  // conjugated in the Hermitian factorization
#define DIAG_ABS(x) (herm ? fabs(RE(x)) : ABS1(x))
__kernel void sytrf_lower(__global char* ab, ulong ao, __global char* pb, ulong po, __global char* ib, ulong io, long n,
                          long rs, long cs, long ms, long nb, int herm) {
  __local long s_kp, s_kstep;
  __local int s_skip, s_info;
  const long lid = get_local_id(0), lsz = get_local_size(0);
  const R alpha = (1 + sqrt((R)17)) / 8;
  for (long b = get_group_id(0); b < nb; b += get_num_groups(0)) {
    __global T* a = PTR(T, ab, ao) + b * ms;
    __global int* piv = PTR(int, pb, po) + b * n;
    if (lid == 0) s_info = 0;
    for (long k = 0; k < n;) {
      if (lid == 0) {
        long kp = k, kstep = 1, imax = k;
        const R absakk = DIAG_ABS(AT(a, k, k));
        R colmax = 0;
        if (k < n - 1) {
          imax = k + 1;
          colmax = ABS1(AT(a, k + 1, k));
          for (long i = k + 2; i < n; ++i)
            if (ABS1(AT(a, i, k)) > colmax) { colmax = ABS1(AT(a, i, k)); imax = i; }
        }
        s_skip = (absakk == 0 && colmax == 0) || isnan(absakk);
        if (s_skip) {
          if (s_info == 0) s_info = (int)(k + 1);
        } else if (absakk < alpha * colmax) {
          // the largest off-diagonal entry of row / column imax
          R rowmax = ABS1(AT(a, imax, k));
          for (long j = k + 1; j < imax; ++j) rowmax = fmax(rowmax, ABS1(AT(a, imax, j)));
          if (imax < n - 1) {
            R below = ABS1(AT(a, imax + 1, imax));
            for (long i = imax + 2; i < n; ++i) below = fmax(below, ABS1(AT(a, i, imax)));
            rowmax = fmax(rowmax, below);
          }
          if (absakk >= alpha * colmax * (colmax / rowmax)) kp = k;
          else if (DIAG_ABS(AT(a, imax, imax)) >= alpha * rowmax) kp = imax;
          else { kp = imax; kstep = 2; }
        }
        s_kp = kp;
        s_kstep = kstep;
        piv[k] = kstep == 1 ? (int)(kp + 1) : (int)-(kp + 1);
        if (kstep == 2) piv[k + 1] = (int)-(kp + 1);
      }
      SYNC;
      const long kp = s_kp, kstep = s_kstep, kk = k + kstep - 1;
      if (!s_skip) {
        if (kp != kk) {  // rows and columns kk and kp of the trailing lower triangle exchanged
          for (long i = kp + 1 + lid; i < n; i += lsz) {
            const T t = AT(a, i, kk); AT(a, i, kk) = AT(a, i, kp); AT(a, i, kp) = t;
          }
          for (long j = kk + 1 + lid; j < kp; j += lsz) {
            const T t = HC(AT(a, j, kk)); AT(a, j, kk) = HC(AT(a, kp, j)); AT(a, kp, j) = t;
          }
          if (lid == 0) {
            if (herm) AT(a, kp, kk) = CONJ(AT(a, kp, kk));
            const T t = AT(a, kk, kk); AT(a, kk, kk) = AT(a, kp, kp); AT(a, kp, kp) = t;
            if (kstep == 2) { const T u = AT(a, k + 1, k); AT(a, k + 1, k) = AT(a, kp, k); AT(a, kp, k) = u; }
          }
          SYNC;
        }
        if (herm && lid == 0) {  // a Hermitian D's diagonal is real
          AT(a, k, k) = FROM_R(RE(AT(a, k, k)));
          if (kstep == 2) AT(a, k + 1, k + 1) = FROM_R(RE(AT(a, k + 1, k + 1)));
        }
        SYNC;
        const long rest = n - k - kstep;  // the trailing matrix's order
        if (kstep == 1 && rest > 0) {
          // A(k+1:, k+1:) -= x HC(x)^T / d (lower part), then x /= d
          const T d11 = herm ? FROM_R(1 / RE(AT(a, k, k))) : DIV(FROM_R(1), AT(a, k, k));
          for (long t = lid; t < rest * rest; t += lsz) {
            const long i = k + 1 + t % rest, j = k + 1 + t / rest;
            if (i >= j) AT(a, i, j) -= MUL(AT(a, i, k), MUL(d11, HC(AT(a, j, k))));
          }
          SYNC;
          for (long i = k + 1 + lid; i < n; i += lsz) {
            AT(a, i, k) = MUL(AT(a, i, k), d11);
            if (herm) AT(a, i, i) = FROM_R(RE(AT(a, i, i)));  // as zher: a real diagonal
          }
        } else if (kstep == 2 && rest > 0) {
          // the 2x2 pivot's rank-2 update with the multipliers (wk, wkp1) of
          // each row j, from the columns k, k+1 before they are replaced
          T c11, c22, c21, c12, d;  // wk = d (c11 a_jk - c12 a_jk1), wkp1 = d (c22 a_jk1 - c21 a_jk)
          if (herm) {  // zhetf2
            const R dd = ABSC(AT(a, k + 1, k));
            const R d11 = RE(AT(a, k + 1, k + 1)) / dd, d22 = RE(AT(a, k, k)) / dd;
            c11 = FROM_R(d11);
            c22 = FROM_R(d22);
            c12 = AT(a, k + 1, k) / dd;
            c21 = CONJ(c12);
            d = FROM_R((1 / (d11 * d22 - 1)) / dd);
          } else {  // sytf2 / zsytf2
            const T d21 = AT(a, k + 1, k);
            c11 = DIV(AT(a, k + 1, k + 1), d21);
            c22 = DIV(AT(a, k, k), d21);
            c12 = c21 = FROM_R(1);
            d = DIV(DIV(FROM_R(1), MUL(c11, c22) - FROM_R(1)), d21);
          }
          for (long t = lid; t < rest * rest; t += lsz) {
            const long i = k + 2 + t % rest, j = k + 2 + t / rest;
            if (i < j) continue;
            const T wk = MUL(d, MUL(c11, AT(a, j, k)) - MUL(c12, AT(a, j, k + 1)));
            const T wkp1 = MUL(d, MUL(c22, AT(a, j, k + 1)) - MUL(c21, AT(a, j, k)));
            AT(a, i, j) = AT(a, i, j) - MUL(AT(a, i, k), HC(wk)) - MUL(AT(a, i, k + 1), HC(wkp1));
          }
          SYNC;
          for (long j = k + 2 + lid; j < n; j += lsz) {
            const T ajk = AT(a, j, k), ajk1 = AT(a, j, k + 1);
            AT(a, j, k) = MUL(d, MUL(c11, ajk) - MUL(c12, ajk1));
            AT(a, j, k + 1) = MUL(d, MUL(c22, ajk1) - MUL(c21, ajk));
            if (herm) AT(a, j, j) = FROM_R(RE(AT(a, j, j)));
          }
        }
      }
      SYNC;
      k += kstep;
    }
    if (lid == 0) PTR(int, ib, io)[b] = s_info;
    SYNC;
  }
}

// Solves A X = B in place of B (n x k) with sytrf_lower's L D L^T (herm:
// L D L^H) of A (LAPACK sytrs / zsytrs / zhetrs, lower): L D Y = P^T B
// forward, then L^T X = Y (L^H) backward, the interchanges applied as sytrf
// recorded them; an item per column of B.
__kernel void sytrs_lower(__global const char* ab, ulong ao, __global const char* pb, ulong po, __global char* bb,
                          ulong bo, long n, long k, long ars, long acs, long ams, long brs, long bcs, long bms,
                          long nb, int herm) {
  GRID_LOOP(idx, nb * k) {
    const long bt = idx / k, c = idx % k;
    __global const T* a = PTR(const T, ab, ao) + bt * ams;
    __global const int* piv = PTR(const int, pb, po) + bt * n;
    __global T* x = PTR(T, bb, bo) + bt * bms + c * bcs;
#define A_(i, j) a[(i) * ars + (j) * acs]
#define X_(i) x[(i) * brs]
#define SWAP_X(i, j) { const T t_ = X_(i); X_(i) = X_(j); X_(j) = t_; }
    for (long s = 0; s < n;) {
      if (piv[s] > 0) {
        const long p = piv[s] - 1;
        if (p != s) SWAP_X(s, p);
        for (long i = s + 1; i < n; ++i) X_(i) -= MUL(A_(i, s), X_(s));
        X_(s) = herm ? X_(s) / RE(A_(s, s)) : DIV(X_(s), A_(s, s));
        s += 1;
      } else {
        const long p = -piv[s] - 1;
        if (p != s + 1) SWAP_X(s + 1, p);
        for (long i = s + 2; i < n; ++i) X_(i) -= MUL(A_(i, s), X_(s));
        for (long i = s + 2; i < n; ++i) X_(i) -= MUL(A_(i, s + 1), X_(s + 1));
        const T akm1k = A_(s + 1, s);
        const T akm1 = DIV(A_(s, s), HC(akm1k)), ak = DIV(A_(s + 1, s + 1), akm1k);
        const T denom = MUL(akm1, ak) - FROM_R(1);
        const T bkm1 = DIV(X_(s), HC(akm1k)), bk = DIV(X_(s + 1), akm1k);
        X_(s) = DIV(MUL(ak, bkm1) - bk, denom);
        X_(s + 1) = DIV(MUL(akm1, bk) - bkm1, denom);
        s += 2;
      }
    }
    for (long s = n - 1; s >= 0;) {
      if (piv[s] > 0) {
        T dot = FROM_R(0);
        for (long i = s + 1; i < n; ++i) dot += MUL(HC(A_(i, s)), X_(i));
        X_(s) -= dot;
        const long p = piv[s] - 1;
        if (p != s) SWAP_X(s, p);
        s -= 1;
      } else {
        T dot = FROM_R(0), dot1 = FROM_R(0);
        for (long i = s + 1; i < n; ++i) dot += MUL(HC(A_(i, s)), X_(i));
        for (long i = s + 1; i < n; ++i) dot1 += MUL(HC(A_(i, s - 1)), X_(i));
        X_(s) -= dot;
        X_(s - 1) -= dot1;
        const long p = -piv[s] - 1;
        if (p != s) SWAP_X(s, p);
        s -= 2;
      }
    }
#undef A_
#undef X_
#undef SWAP_X
  }
}
#undef HC
#undef DIAG_ABS
