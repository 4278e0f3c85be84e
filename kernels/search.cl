// Search and counting kernels: searchsorted / bucketize, isin,
// repeat_interleave, histogram / histc / bincount. Launchers:
// kernels/search_ops.cpp. Dtype macros (ST, CT, LOAD, STORE) describe the
// searched values; all tensors here are contiguous (the launchers make them so).

// The number of elements of s[start, end) for which PRED(s[k], v) holds,
// when PRED holds on a prefix of the range (a lower / upper bound).
#define BOUND(result, start, end, ELEM_AT, PRED) \
  do {                                           \
    long lo_ = (start), hi_ = (end);             \
    while (lo_ < hi_) {                          \
      const long mid_ = lo_ + ((hi_ - lo_) >> 1); \
      if (PRED(ELEM_AT(mid_))) lo_ = mid_ + 1;   \
      else hi_ = mid_;                           \
    }                                            \
    result = lo_;                                \
  } while (0)

// searchsorted: out[i] = position of in[i] in its row of the sorted
// sequence bd (row i / in_row when bd is batched, else 0), left or right, as
// the CPU: lower bound = first k with !(bd[k] < v) written as !(bd[k] >= v)
// so NaNs sort last. sorter (has_sorter) gives the row's order.
__kernel void search_sorted(__global const char* ib, ulong io, long n, __global const char* bb, ulong bo,
                            __global const char* sb, ulong so, int has_sorter, long in_row, long bd_row,
                            int batched, int right, __global char* ob, ulong oo, int out_int32) {
  __global const ST* in = PTR(ST, ib, io);
  __global const ST* bd = PTR(ST, bb, bo);
  __global const long* sorter = PTR(long, sb, so);
  GRID_LOOP(i, n) {
    const CT v = LOAD(in, i);
    const long start = batched ? (i / in_row) * bd_row : 0;
#define AT_SORTED(k) (has_sorter ? (CT)LOAD(bd, sorter[k] + start) : (CT)LOAD(bd, k))
#define LEFT_PRED(x) (!((x) >= v))
#define RIGHT_PRED(x) (!((x) > v))
    long pos;
    if (right) BOUND(pos, start, start + bd_row, AT_SORTED, RIGHT_PRED);
    else BOUND(pos, start, start + bd_row, AT_SORTED, LEFT_PRED);
#undef AT_SORTED
    pos -= start;
    if (out_int32) PTR(int, ob, oo)[i] = (int)pos;
    else PTR(long, ob, oo)[i] = pos;
  }
}

// isin: out[i] = (in[i] occurs in test) != invert. sorted_test: test is
// sorted ascending (NaNs last) and is binary-searched, else scanned.
__kernel void isin_kernel(__global const char* ib, ulong io, long n, __global const char* tb, ulong to,
                          long ntest, int sorted_test, int invert, __global char* ob, ulong oo) {
  __global const ST* in = PTR(ST, ib, io);
  __global const ST* test = PTR(ST, tb, to);
  __global uchar* out = PTR(uchar, ob, oo);
  GRID_LOOP(i, n) {
    const CT v = LOAD(in, i);
    int found = 0;
    if (sorted_test) {
#define AT_TEST(k) ((CT)LOAD(test, k))
#define LESS_PRED(x) ((x) < v)
      long pos;
      BOUND(pos, 0, ntest, AT_TEST, LESS_PRED);
      found = pos < ntest && AT_TEST(pos) == v;
#undef AT_TEST
    } else {
      for (long j = 0; j < ntest && !found; ++j) found = (CT)LOAD(test, j) == v;
    }
    out[i] = (uchar)(found != invert);
  }
}

// repeat_interleave: out[j] = the i with cumsum[i - 1] <= j < cumsum[i]
// (the number of inclusive prefix sums <= j). ST is the repeats' dtype.
__kernel void repeat_interleave_fill(__global const char* cb, ulong co, long nrep, __global char* ob,
                                     ulong oo, long total) {
  __global const long* cum = PTR(long, cb, co);
  __global ST* out = PTR(ST, ob, oo);
  GRID_LOOP(j, total) {
#define AT_CUM(k) (cum[k])
#define LE_PRED(x) ((x) <= j)
    long pos;
    BOUND(pos, 0, nrep, AT_CUM, LE_PRED);
    STORE(out, j, (CT)pos);
  }
}

// ---- atomic accumulation (histograms; programs built with HIST) ----
#ifdef HIST
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
static inline void atomic_add_long(volatile __global long* p, long v) { atom_add(p, v); }
static inline void atomic_add_float(volatile __global float* p, float v) {
  uint old = atomic_or((volatile __global uint*)p, 0u), assumed;  // atomic read (a plain one races)
  do {
    assumed = old;
    old = atomic_cmpxchg((volatile __global uint*)p, assumed, as_uint(as_float(assumed) + v));
  } while (old != assumed);
}
#ifdef ACC_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
static inline void atomic_add_double(volatile __global double* p, double v) {
  ulong old = atom_add((volatile __global ulong*)p, 0ul), assumed;  // atomic read (a plain one races)
  do {
    assumed = old;
    old = atom_cmpxchg((volatile __global ulong*)p, assumed, as_ulong(as_double(assumed) + v));
  } while (old != assumed);
}
#endif
// AT: the accumulator type (long, float or double), W_*: the weights' dtype.
static inline void accumulate(__global char* hb, ulong ho, long k, __global const char* wb, ulong wo, long i,
                       int has_weight) {
#if defined(ACC_LONG)
  atomic_add_long(PTR(long, hb, ho) + k, 1);
#elif defined(ACC_DOUBLE)
  atomic_add_double(PTR(double, hb, ho) + k, has_weight ? (double)W_LOAD(PTR(W_ST, wb, wo), i) : 1.0);
#else
  atomic_add_float(PTR(float, hb, ho) + k, has_weight ? (float)W_LOAD(PTR(W_ST, wb, wo), i) : 1.0f);
#endif
}

// bincount: hist[in[i]] += weight[i] (or 1). Values were checked to be in
// [0, nbins) on the host (the result's size needs them anyway).
__kernel void bincount_kernel(__global const char* ib, ulong io, long n, __global const char* wb, ulong wo,
                              int has_weight, __global char* hb, ulong ho) {
  __global const ST* in = PTR(ST, ib, io);
  GRID_LOOP(i, n) accumulate(hb, ho, (long)LOAD(in, i), wb, wo, i, has_weight);
}

// Rounds a float to the input's storage precision (half / bfloat16 inputs
// compute the bin index in their own precision, as the CPU does).
static inline float round_st(float v) {
#if defined(HIST_HALF)
  ushort h;
  vstore_half(v, 0, (__private half*)&h);
  return vload_half(0, (__private half*)&h);
#elif defined(HIST_BF16)
  return bf16_to_float(float_to_bf16(v));
#else
  return v;
#endif
}

// histogramdd over in (N x D, row-major): per dimension d the bin edges
// edges[eoff[d] .. eoff[d] + nedges[d]) and the histogram stride hstride[d].
// mode 0: binary search (upper bound - 1); 1: linear interpolation;
// 2: linear interpolation corrected by a local search (see the CPU kernel).
__kernel void histogramdd_kernel(__global const char* ib, ulong io, long N, long D, __global const char* eb,
                                 ulong eo, __global const long* meta, int mode, __global const char* wb,
                                 ulong wo, int has_weight, __global char* hb, ulong ho) {
  __global const ST* in = PTR(ST, ib, io);
  __global const ST* edges = PTR(ST, eb, eo);
  GRID_LOOP(i, N) {
    long index = 0;
    int skip = 0;
    for (long d = 0; d < D && !skip; ++d) {
      const long eoff = meta[d], ne = meta[D + d], hs = meta[2 * D + d];
      const CT v = LOAD(in, i * D + d);
      const CT left = LOAD(edges, eoff), rightmost = LOAD(edges, eoff + ne - 1);
      if (!(v >= left && v <= rightmost)) {
        skip = 1;
        break;
      }
#define AT_EDGE(k) ((CT)LOAD(edges, eoff + (k)))
#define UPPER_PRED(x) (!((x) > v))
      long pos;
      if (mode == 0) {
        BOUND(pos, 0, ne, AT_EDGE, UPPER_PRED);
        pos -= 1;
      } else {
#ifdef IS_HALFISH
        pos = (long)round_st(round_st(round_st(v - left) * round_st((float)(ne - 1))) / round_st(rightmost - left));
#else
        pos = (long)((v - left) * (CT)(ne - 1) / (rightmost - left));
#endif
        if (mode == 2) {
          const long lo = max(0L, pos - 1), hi = min(pos + 2, ne);
          BOUND(pos, lo, hi, AT_EDGE, UPPER_PRED);
          pos -= 1;
        }
      }
#undef AT_EDGE
      if (pos == ne - 1) pos -= 1;
      index += hs * pos;
    }
    if (!skip) accumulate(hb, ho, index, wb, wo, i, has_weight);
  }
}
#endif  // HIST
