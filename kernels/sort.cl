// Sorting and selection along one dim (kernels/sort_ops.cpp): sort, topk,
// kthvalue, median / nanmedian, mode.
//
// Every slice is sorted as (key, original index) pairs in a scratch array:
// slice r occupies [r * P, (r + 1) * P), P a power of two >= its length n,
// the tail padded with (ULONG_MAX, LONG_MAX). Keys are unsigned integers
// whose order is the values' order (floats: sign-flip trick, -0.0 as 0.0, any
// NaN the largest real key; descending: the key complemented), and ties
// compare the original index, so one network of compare-exchanges sorts every
// dtype, stably. Values are gathered from the input by the sorted indices.
//
// Built twice: without ST (the dtype-free network: sort_block, sort_merge_*,
// sort_compact) and with a dtype preamble (sort_encode, sort_write,
// sort_pick, sort_mode, sort_encode_select). The launcher defines KEY_KIND (0 float, 1 double,
// 2 signed integer, 3 unsigned integer / bool) and RAW (the unsigned type of
// the dtype's size: values are moved as bits) with the dtype.

#define PAD_KEY ULONG_MAX
#define PAD_IDX LONG_MAX
#define NAN_KEY (ULONG_MAX - 1)

// (ka, ia) sorts after (kb, ib).
static inline bool pair_after(ulong ka, long ia, ulong kb, long ib) { return ka > kb || (ka == kb && ia > ib); }

#ifndef ST

// Compare-exchange of positions lo < hi of a bitonic stage of size k in a
// segment of `seg` elements (a power of two): ascending unless lo lies in an
// odd k-block of its segment (the last stage, k == seg, is all ascending).
#define CMPX(K, X, lo, hi, gpos, k, seg)                                          \
  {                                                                               \
    const bool up = (((gpos) & ((seg) - 1)) & (k)) == 0;                          \
    const ulong ka = K[lo], kb = K[hi];                                           \
    const long ia = X[lo], ib = X[hi];                                            \
    if (pair_after(ka, ia, kb, ib) == up) {                                       \
      K[lo] = kb; K[hi] = ka; X[lo] = ib; X[hi] = ia;                             \
    }                                                                             \
  }

// Loads block g (C = 2 * local size elements) into local memory; elements at
// or past `total` are padding that is never written back.
static inline void load_block(__global const ulong* keys, __global const long* idx, long total, long base,
                       __local ulong* lk, __local long* lx) {
  const long L = get_local_size(0), t = get_local_id(0);
  for (long e = t; e < 2 * L; e += L) {
    const long g = base + e;
    lk[e] = g < total ? keys[g] : PAD_KEY;
    lx[e] = g < total ? idx[g] : PAD_IDX;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

static inline void store_block(__global ulong* keys, __global long* idx, long total, long base,
                        __local const ulong* lk, __local const long* lx) {
  barrier(CLK_LOCAL_MEM_FENCE);
  const long L = get_local_size(0), t = get_local_id(0);
  for (long e = t; e < 2 * L; e += L) {
    const long g = base + e;
    if (g < total) {
      keys[g] = lk[e];
      idx[g] = lx[e];
    }
  }
}

// Runs the stages k = 2 .. min(C, seg) of the network in local memory: with
// seg <= C each segment ends sorted ascending; with seg > C the blocks end
// sorted in alternating directions, ready for the merges.
__kernel void sort_block(__global char* kb, ulong ko, __global char* xb, ulong xo, long total, long seg,
                         __local ulong* lk, __local long* lx) {
  __global ulong* keys = PTR(ulong, kb, ko);
  __global long* idx = PTR(long, xb, xo);
  const long L = get_local_size(0), t = get_local_id(0), C = 2 * L;
  const long kmax = min(C, seg);
  for (long base = get_group_id(0) * C; base < total; base += get_num_groups(0) * C) {
    load_block(keys, idx, total, base, lk, lx);
    for (long k = 2; k <= kmax; k <<= 1) {
      for (long j = k >> 1; j > 0; j >>= 1) {
        const long lo = 2 * t - (t & (j - 1));
        CMPX(lk, lx, lo, lo + j, base + lo, k, seg);
        barrier(CLK_LOCAL_MEM_FENCE);
      }
    }
    store_block(keys, idx, total, base, lk, lx);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// The steps j = C/2 .. 1 of stage k (> C) in local memory.
__kernel void sort_merge_block(__global char* kb, ulong ko, __global char* xb, ulong xo, long total, long seg,
                               long k, __local ulong* lk, __local long* lx) {
  __global ulong* keys = PTR(ulong, kb, ko);
  __global long* idx = PTR(long, xb, xo);
  const long L = get_local_size(0), t = get_local_id(0), C = 2 * L;
  for (long base = get_group_id(0) * C; base < total; base += get_num_groups(0) * C) {
    load_block(keys, idx, total, base, lk, lx);
    for (long j = L; j > 0; j >>= 1) {
      const long lo = 2 * t - (t & (j - 1));
      CMPX(lk, lx, lo, lo + j, base + lo, k, seg);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    store_block(keys, idx, total, base, lk, lx);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// One step (k, j >= C) of the network in global memory: one item per pair.
__kernel void sort_merge_global(__global char* kb, ulong ko, __global char* xb, ulong xo, long total, long seg,
                                long k, long j) {
  __global ulong* keys = PTR(ulong, kb, ko);
  __global long* idx = PTR(long, xb, xo);
  GRID_LOOP(t, total / 2) {
    const long lo = 2 * t - (t & (j - 1));
    CMPX(keys, idx, lo, lo + j, lo, k, seg);
  }
}

// topk's selection round: every block of C elements of a slice is sorted;
// keep the first kk of each (slice stride P) in a slice of stride P2.
__kernel void sort_compact(__global char* kb, ulong ko, __global char* xb, ulong xo,
                           __global char* k2b, ulong k2o, __global char* x2b, ulong x2o,
                           long rows, long P, long P2, long C, long kk) {
  __global const ulong* keys = PTR(ulong, kb, ko);
  __global const long* idx = PTR(long, xb, xo);
  __global ulong* keys2 = PTR(ulong, k2b, k2o);
  __global long* idx2 = PTR(long, x2b, x2o);
  const long nblocks = P / C;
  GRID_LOOP(g, rows * P2) {
    const long r = g / P2, q = g - r * P2;
    const long c = q / kk, t = q - c * kk;
    if (c < nblocks) {
      keys2[g] = keys[r * P + c * C + t];
      idx2[g] = idx[r * P + c * C + t];
    } else {
      keys2[g] = PAD_KEY;
      idx2[g] = PAD_IDX;
    }
  }
}

// ---- LSD radix sort of long rows (sort_launch.cpp: rows of >= kRadixMin) ----
// The (key, index) pairs of `rows` slices of stride n, 8 key bits per pass,
// from the lowest digit up; each pass is stable, so ties keep their index
// order. Slice r is cut into nb blocks of `block` pairs; one work item owns a
// block. digit(): the pass's 8 bits of the key; for keys of types of at most
// 4 bytes the low 32 bits order the pairs as the 64-bit key does (floats:
// NAN_KEY's low bits are above +inf's, and below every real key once
// complemented for descending) once `flip` (0x80000000 for signed integers)
// is applied.
static inline uint radix_digit(ulong key, uint shift, ulong flip) { return (uint)(((key ^ flip) >> shift) & 255u); }

// hist[(r * 256 + d) * nb + b] = pairs of block b of slice r with digit d.
__kernel void radix_hist(__global char* kb, ulong ko, __global char* hb, ulong ho, long rows, long n, long nb,
                         long block, uint shift, ulong flip) {
  __global const ulong* keys = PTR(ulong, kb, ko);
  __global uint* hist = PTR(uint, hb, ho);
  GRID_LOOP(w, rows * nb) {
    const long r = w / nb, b = w - r * nb;
    uint count[256];
    for (int d = 0; d < 256; ++d) count[d] = 0;
    const long j0 = r * n + b * block, j1 = r * n + min(n, (b + 1) * block);
    for (long j = j0; j < j1; ++j) ++count[radix_digit(keys[j], shift, flip)];
    for (int d = 0; d < 256; ++d) hist[(r * 256 + d) * nb + b] = count[d];
  }
}

// In-place exclusive prefix sum of hist[0, m) by one work group (of a power
// of two size): each item sums a contiguous chunk, the group scans the sums.
__kernel void radix_scan(__global char* hb, ulong ho, long m, __local uint* part) {
  __global uint* hist = PTR(uint, hb, ho);
  const long L = get_local_size(0), t = get_local_id(0), per = (m + L - 1) / L;
  const long j0 = min(m, t * per), j1 = min(m, j0 + per);
  uint sum = 0;
  for (long j = j0; j < j1; ++j) sum += hist[j];
  part[t] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t == 0) {
    uint run = 0;
    for (long i = 0; i < L; ++i) {
      const uint v = part[i];
      part[i] = run;
      run += v;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint run = part[t];
  for (long j = j0; j < j1; ++j) {
    const uint v = hist[j];
    hist[j] = run;
    run += v;
  }
}

// Moves each pair to its place: block b of slice r writes its digit-d pairs,
// in order, from the scanned hist[(r * 256 + d) * nb + b] (an offset into the
// whole rows * n array: every earlier slice holds n pairs).
__kernel void radix_scatter(__global char* kb, ulong ko, __global char* xb, ulong xo, __global char* k2b, ulong k2o,
                            __global char* x2b, ulong x2o, __global char* hb, ulong ho, long rows, long n, long nb,
                            long block, uint shift, ulong flip) {
  __global const ulong* keys = PTR(ulong, kb, ko);
  __global const long* idx = PTR(long, xb, xo);
  __global ulong* keys2 = PTR(ulong, k2b, k2o);
  __global long* idx2 = PTR(long, x2b, x2o);
  __global const uint* hist = PTR(uint, hb, ho);
  GRID_LOOP(w, rows * nb) {
    const long r = w / nb, b = w - r * nb;
    uint pos[256];
    for (int d = 0; d < 256; ++d) pos[d] = hist[(r * 256 + d) * nb + b];
    const long j0 = r * n + b * block, j1 = r * n + min(n, (b + 1) * block);
    for (long j = j0; j < j1; ++j) {
      const ulong k = keys[j];
      const uint p = pos[radix_digit(k, shift, flip)]++;
      keys2[p] = k;
      idx2[p] = idx[j];
    }
  }
}

#else  // ST: the dtype's kernels

static inline ulong sort_key(CT v) {
#if KEY_KIND == 0
  if (isnan(v)) return NAN_KEY;
  const uint u = as_uint(v == 0 ? 0.0f : (float)v);
  return (ulong)((u & 0x80000000u) ? ~u : (u | 0x80000000u));
#elif KEY_KIND == 1
  if (isnan(v)) return NAN_KEY;
  const ulong u = as_ulong(v == 0 ? 0.0 : (double)v);
  return (u & 0x8000000000000000ul) ? ~u : (u | 0x8000000000000000ul);
#elif KEY_KIND == 2
  return ((ulong)(long)v) ^ 0x8000000000000000ul;
#else
  return (ulong)v;
#endif
}

// Scratch of `rows` slices of stride P from the input's slices (operand 1;
// length n, element stride is).
__kernel void sort_encode(Indexer ix, long rows, long n, long P, long is, long descending,
                          __global char* ib, ulong io, __global char* kb, ulong ko, __global char* xb, ulong xo) {
  __global const ST* in = PTR(ST, ib, io);
  __global ulong* keys = PTR(ulong, kb, ko);
  __global long* idx = PTR(long, xb, xo);
  GRID_LOOP(g, rows * P) {
    const long r = g / P, j = g - r * P;
    if (j < n) {
      long off[MAX_OPERANDS];
      indexer_offsets(&ix, r, off);
      const ulong key = sort_key(LOAD(in, off[1] + j * is));
      keys[g] = descending ? ~key : key;
      idx[g] = j;
    } else {
      keys[g] = PAD_KEY;
      idx[g] = PAD_IDX;
    }
  }
}

// topk / kthvalue with kk <= SEL_MAX: the encode fused with a first
// selection round. Item (r, c) keeps the kk smallest pairs of chunk c of
// slice r (insertion into a sorted private list: for most elements one
// comparison) and writes them, sorted, to [r * P2 + c * kk, + kk); the
// launcher has filled the rest of the scratch with padding.
#define SEL_MAX 128
__kernel void sort_encode_select(Indexer ix, long rows, long n, long is, long descending, long chunk, long nchunks,
                                 long kk, long P2, __global char* ib, ulong io, __global char* kb, ulong ko,
                                 __global char* xb, ulong xo) {
  __global const ST* in = PTR(ST, ib, io);
  __global ulong* keys = PTR(ulong, kb, ko);
  __global long* idx = PTR(long, xb, xo);
  GRID_LOOP(w, rows * nchunks) {
    const long r = w / nchunks, c = w - r * nchunks;
    long off[MAX_OPERANDS];
    indexer_offsets(&ix, r, off);
    ulong bk[SEL_MAX];
    long bi[SEL_MAX];
    long cnt = 0;
    const long j1 = min(n, (c + 1) * chunk);
    for (long j = c * chunk; j < j1; ++j) {
      const ulong k0 = sort_key(LOAD(in, off[1] + j * is));
      const ulong key = descending ? ~k0 : k0;
      if (cnt == kk && !pair_after(bk[kk - 1], bi[kk - 1], key, j)) continue;
      long p = cnt < kk ? cnt++ : kk - 1;
      while (p > 0 && pair_after(bk[p - 1], bi[p - 1], key, j)) {
        bk[p] = bk[p - 1];
        bi[p] = bi[p - 1];
        --p;
      }
      bk[p] = key;
      bi[p] = j;
    }
    const long base = r * P2 + c * kk;
    for (long t = 0; t < cnt; ++t) {
      keys[base + t] = bk[t];
      idx[base + t] = bi[t];
    }
  }
}

// The first `count` sorted entries of every slice: values (operand 0, stride
// vs) gathered from the input (operand 1, stride is), indices (operand 2).
__kernel void sort_write(Indexer ix, long rows, long count, long P, long vs, long is, long xs,
                         __global char* vb, ulong vo, __global char* ib, ulong io, __global char* xb, ulong xo,
                         __global char* sb, ulong so) {
  __global RAW* values = PTR(RAW, vb, vo);
  __global const RAW* in = PTR(RAW, ib, io);
  __global long* indices = PTR(long, xb, xo);
  __global const long* sorted = PTR(long, sb, so);
  GRID_LOOP(g, rows * count) {
    const long r = g / count, j = g - r * count;
    long off[MAX_OPERANDS];
    indexer_offsets(&ix, r, off);
    const long id = sorted[r * P + j];
    values[off[0] + j * vs] = in[off[1] + id * is];
    indices[off[2] + j * xs] = id;
  }
}

// One entry per slice of the ascending sort: what = 0 the entry at `pos`
// (kthvalue), 1 median (the first NaN if any, else (n - 1) / 2), 2 nanmedian
// ((n - nans - 1) / 2 rounded toward zero, as the CPU).
__kernel void sort_pick(Indexer ix, long rows, long n, long P, long is, long what, long pos,
                        __global char* vb, ulong vo, __global char* ib, ulong io, __global char* xb, ulong xo,
                        __global char* kb, ulong ko, __global char* sb, ulong so) {
  __global RAW* values = PTR(RAW, vb, vo);
  __global const RAW* in = PTR(RAW, ib, io);
  __global long* indices = PTR(long, xb, xo);
  __global const ulong* keys = PTR(ulong, kb, ko);
  __global const long* sorted = PTR(long, sb, so);
  GRID_LOOP(r, rows) {
    __global const ulong* k = keys + r * P;
    long p = pos;
    if (what != 0) {
      long lo = 0, hi = n;  // the first entry with a NaN key
      while (lo < hi) {
        const long mid = (lo + hi) / 2;
        if (k[mid] >= NAN_KEY) hi = mid;
        else lo = mid + 1;
      }
      const long nans = n - lo;
      if (what == 1) p = nans > 0 ? lo : (n - 1) / 2;
      else p = (n - nans - 1) / 2;
    }
    long off[MAX_OPERANDS];
    indexer_offsets(&ix, r, off);
    const long id = sorted[r * P + p];
    values[off[0]] = in[off[1] + id * is];
    indices[off[2]] = id;
  }
}

// mode: the longest run of equal keys (the first, i.e. smallest, of equally
// long runs) and the original index of its last element, as the CPU.
__kernel void sort_mode(Indexer ix, long rows, long n, long P, long is,
                        __global char* vb, ulong vo, __global char* ib, ulong io, __global char* xb, ulong xo,
                        __global char* kb, ulong ko, __global char* sb, ulong so) {
  __global RAW* values = PTR(RAW, vb, vo);
  __global const RAW* in = PTR(RAW, ib, io);
  __global long* indices = PTR(long, xb, xo);
  __global const ulong* keys = PTR(ulong, kb, ko);
  __global const long* sorted = PTR(long, sb, so);
  GRID_LOOP(r, rows) {
    __global const ulong* k = keys + r * P;
    __global const long* s = sorted + r * P;
    long best = 0, best_len = 0, run = 0;
    for (long i = 0; i < n; ++i) {
      ++run;
      if (i == n - 1 || k[i] != k[i + 1]) {
        if (run > best_len) {
          best_len = run;
          best = i;
        }
        run = 0;
      }
    }
    long off[MAX_OPERANDS];
    indexer_offsets(&ix, r, off);
    const long id = s[best];
    values[off[0]] = in[off[1] + id * is];
    indices[off[2]] = id;
  }
}

#endif
