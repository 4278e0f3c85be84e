// Inclusive scans along one dim: cumsum, cumprod, logcumsumexp, cummax,
// cummin. Row r of every operand starts at the offsets ix gives for r
// (operand 0 out, 1 in, 2 indices); element j of a row is j * stride further.
// The launcher defines SCAN_OP (0 sum, 1 prod, 2 logcumsumexp, 3 max, 4 min)
// and SCAN_T, the accumulation type (the CPU's: double for float sums, float
// for half/bfloat16, long for integers). With SCAN_COMPLEX (cumprod and
// logcumsumexp of complex64/128) ST is the real type, elements are
// (re, im) pairs and SCAN_T is double2 (the CPU's acc type of complex64 too;
// float2 without fp64), multiplied as c10::complex does;
// complex logcumsumexp has kernels/complex_lib.cl (T = SCAN_T) in its preamble.

typedef struct {
  SCAN_T v;
  long i;  // cummax/cummin: the index of v
} Acc;

#if SCAN_OP == 2 && defined(SCAN_COMPLEX)
// The CPU's complex _log_add_exp_helper (c_logaddexp). The CPU starts each row
// from (-inf, 0) and adds every element to the running value; an element is
// first added to that start (lse_start: NaN parts become (NaN, NaN), a -inf
// real part (-inf, 0), others stay), so the first output is the CPU's and
// later ones combine as its sequence does. Rows scan serially (the launcher):
// the imaginary part is not reduced mod 2 pi, so the order matters.
static inline SCAN_T lse_start(SCAN_T x) { return c_logaddexp(x, (SCAN_T)(-INFINITY, 0)); }
#elif SCAN_OP == 2
// The CPU's _log_add_exp_helper(x, y): y is the running value.
static inline SCAN_T log_add_exp(SCAN_T x, SCAN_T y) {
  const SCAN_T mn = isnan(y) ? y : (y < x ? y : x);
  const SCAN_T mx = isnan(y) ? y : (x < y ? y : x);
  if (mn != mx || isfinite(mn)) return log1p(exp(mn - mx)) + mx;
  return x;
}
#endif

#ifdef IS_FLOAT
#define SCAN_ISNAN(x) isnan(x)
#else
#define SCAN_ISNAN(x) 0
#endif

// `a` covers earlier elements than `b`.
static inline Acc combine(Acc a, Acc b) {
#if SCAN_OP == 0
  a.v = a.v + b.v;
#elif SCAN_OP == 1 && defined(SCAN_COMPLEX)
  a.v = (SCAN_T)(a.v.x * b.v.x - a.v.y * b.v.y, a.v.x * b.v.y + a.v.y * b.v.x);
#elif SCAN_OP == 1
  a.v = a.v * b.v;
#elif SCAN_OP == 2 && defined(SCAN_COMPLEX)
  a.v = c_logaddexp(b.v, a.v);
#elif SCAN_OP == 2
  a.v = log_add_exp(b.v, a.v);
#else
  // As the CPU: a NaN wins (the last one), ties go to the later element.
#if SCAN_OP == 3
  if (SCAN_ISNAN(b.v) || (!SCAN_ISNAN(a.v) && b.v >= a.v)) return b;
#else
  if (SCAN_ISNAN(b.v) || (!SCAN_ISNAN(a.v) && b.v <= a.v)) return b;
#endif
#endif
  return a;
}

#ifdef SCAN_COMPLEX
#define SCAN_LOAD(in, off) CONVERT_SCAN_T(vload2((off), (in)))
#define SCAN_STORE(out, off, v) vstore2(CONVERT_ST2(v), (off), (out))
#define ACC_ZERO(a) { (a).v = (SCAN_T)(0); (a).i = 0; }
#else
#define SCAN_LOAD(in, off) ((SCAN_T)LOAD(in, off))
#define SCAN_STORE(out, off, v) STORE(out, off, v)
#define ACC_ZERO(a) { (a).v = 0; (a).i = 0; }
#endif

static inline Acc element(__global const ST* in, long off, long j) {
  Acc a;
  a.v = SCAN_LOAD(in, off);
#if SCAN_OP == 2 && defined(SCAN_COMPLEX)
  a.v = lse_start(a.v);
#endif
  a.i = j;
  return a;
}

static inline void store(__global ST* out, __global long* idx, long oo, long io, Acc a) {
  SCAN_STORE(out, oo, a.v);
#if SCAN_OP >= 3
  idx[io] = a.i;
#endif
}

// One work item per row: for many short rows.
__kernel void scan_serial(Indexer ix, long rows, long len, long os, long is, long xs,
                          __global char* ob, ulong oo, __global char* ib, ulong io,
                          __global char* xb, ulong xo) {
  __global ST* out = PTR(ST, ob, oo);
  __global const ST* in = PTR(ST, ib, io);
  __global long* idx = PTR(long, xb, xo);
  GRID_LOOP(r, rows) {
    long off[MAX_OPERANDS];
    indexer_offsets(&ix, r, off);
    Acc acc = element(in, off[1], 0);
    store(out, idx, off[0], off[2], acc);
    for (long j = 1; j < len; ++j) {
      acc = combine(acc, element(in, off[1] + j * is, j));
      store(out, idx, off[0] + j * os, off[2] + j * xs, acc);
    }
  }
}

// One work group per row: chunks of the group's size, each scanned in local
// memory (Hillis-Steele), carried into the next.
__kernel void scan_group(Indexer ix, long rows, long len, long os, long is, long xs,
                         __global char* ob, ulong oo, __global char* ib, ulong io,
                         __global char* xb, ulong xo, __local Acc* tmp) {
  __global ST* out = PTR(ST, ob, oo);
  __global const ST* in = PTR(ST, ib, io);
  __global long* idx = PTR(long, xb, xo);
  const long lid = get_local_id(0), L = get_local_size(0);
  for (long r = get_group_id(0); r < rows; r += get_num_groups(0)) {
    long off[MAX_OPERANDS];
    indexer_offsets(&ix, r, off);
    Acc carry;
    ACC_ZERO(carry);
    for (long base = 0; base < len; base += L) {
      const long j = base + lid;
      Acc a;
      ACC_ZERO(a);
      if (j < len) a = element(in, off[1] + j * is, j);
      tmp[lid] = a;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (long s = 1; s < L; s <<= 1) {
        Acc earlier = a;
        if (lid >= s) earlier = tmp[lid - s];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid >= s) {
          a = combine(earlier, a);
          tmp[lid] = a;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      if (base > 0) a = combine(carry, a);
      if (j < len) store(out, idx, off[0] + j * os, off[2] + j * xs, a);
      const long last = min(L, len - base) - 1;
      const Acc chunk = tmp[last];
      carry = base > 0 ? combine(carry, chunk) : chunk;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
}
