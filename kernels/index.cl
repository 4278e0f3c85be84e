// One kernel for the indexing family (gather, scatter*, index_select,
// index.Tensor, index_put_, index_add/copy/fill/reduce, take, put_).
//
// It walks a TensorIterator-shaped space with a destination, an optional
// source and up to MAX_IDX index operands; the indices pick either the
// source element (gather-like) or the destination element (DISPLACE_DST,
// scatter-like). An index out of range skips the element and is reported
// through the device-side flag (backend/device_checks.h).
//
// The launcher (kernels/index_launch.cpp) defines:
//   ST, CT, LOAD, STORE   the element type (its unsigned bits type for copies)
//   VALUE_T               the type of `value` / `alpha` (ST for copies, else CT)
//   REDUCE                0 copy, 1 sum, 2 prod, 3 max, 4 min
//   ATOMIC                reductions update the destination atomically
//   DISPLACE_DST, HAS_SRC, ALLOW_NEGATIVE, LINEAR, HAS_ALPHA  (0/1)
//   NIDX                  the number of index operands (1..MAX_IDX)
//   BITS, ELEM_BYTES, FROM_BITS(b), TO_BITS(v)   for the atomic update
//   COMPONENTS            reals per element: 2 for a complex sum or product (ST,
//                         CT are then its real type; re and im add independently;
//                         a product is serial, with a source)
//
// meta (longs): ndim, nidx, sizes[ndim], strides[2 + nidx][ndim] (bytes;
// operand order dst, src, idx_j), then per index j: size, stride (bytes),
// element size (4/8), dim (for messages); with LINEAR: lin_ndim,
// sizes[lin_ndim], strides[lin_ndim] (bytes) of the linearly indexed tensor.

#define MAX_IDX 8

#if ATOMIC && ELEM_BYTES == 8
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

// report_bad_index comes from kernels/device_checks.cl (spliced in by the launcher).

static inline float half_bits_to_float(ushort b) { return vload_half(0, (const __private half*)&b); }
static inline ushort float_to_half_bits(float f) {
  ushort b;
  vstore_half(f, 0, (__private half*)&b);
  return b;
}

#define IS_NAN(x) ((x) != (x))
#if REDUCE == 1
#define COMBINE(a, b) ((a) + (b))
#elif REDUCE == 2
#define COMBINE(a, b) ((a) * (b))
#elif REDUCE == 3
#define COMBINE(a, b) (IS_NAN(a) ? (a) : IS_NAN(b) ? (b) : (a) > (b) ? (a) : (b))
#elif REDUCE == 4
#define COMBINE(a, b) (IS_NAN(a) ? (a) : IS_NAN(b) ? (b) : (a) < (b) ? (a) : (b))
#endif

#if REDUCE != 0 && ATOMIC
// A compare-exchange loop on the element's own 64-bit word, or on the
// aligned 32-bit word holding it (1, 2 and 4-byte types; little endian).
static inline void atomic_combine(__global ST* p, CT v) {
#if ELEM_BYTES == 8
  volatile __global ulong* w = (volatile __global ulong*)p;
  ulong old = atom_add(w, 0ul), assumed;  // an atomic read: a plain one races with the exchanges
  do {
    assumed = old;
    const CT cur = FROM_BITS(assumed);
    old = atom_cmpxchg(w, assumed, (ulong)TO_BITS(COMBINE(cur, v)));
  } while (old != assumed);
#else
  const ulong addr = (ulong)p;
  volatile __global uint* w = (volatile __global uint*)(addr & ~(ulong)3);
  const uint shift = (uint)(addr & 3) * 8;
  const uint mask = ELEM_BYTES == 4 ? 0xffffffffu : (((1u << ((ELEM_BYTES * 8) % 32)) - 1u) << shift);
  uint old = atomic_or(w, 0u), assumed;  // an atomic read: a plain one races with the exchanges
  do {
    assumed = old;
    const CT cur = FROM_BITS((BITS)(assumed >> shift));
    const uint nb = ((uint)TO_BITS(COMBINE(cur, v))) << shift;
    old = atomic_cmpxchg(w, assumed, (assumed & ~mask) | (nb & mask));
  } while (old != assumed);
#endif
}
#endif

static inline long load_index(__global const char* p, long elem_bytes) {
  return elem_bytes == 4 ? (long)*(__global const int*)p : *(__global const long*)p;
}

// The element at destination byte offset `d` (from db), source offset `s`.
static inline void apply(__global char* db, __global char* sb, long d, long s, VALUE_T value, VALUE_T alpha) {
  __global ST* dp = (__global ST*)(db + d);
#if REDUCE == 0
#if HAS_SRC
  *dp = *(__global const ST*)(sb + s);
#else
  *dp = value;
#endif
#elif REDUCE == 2 && COMPONENTS == 2
  // a complex product (never atomic: the launcher runs it serially), as c10::complex's *=
  __global const ST* sp = (__global const ST*)(sb + s);
  const CT vr = LOAD(sp, 0), vi = LOAD(sp, 1), cr = LOAD(dp, 0), ci = LOAD(dp, 1);
  STORE(dp, 0, cr * vr - ci * vi);
  STORE(dp, 1, cr * vi + ci * vr);
#else
  for (int c = 0; c < COMPONENTS; ++c) {
#if HAS_SRC
    CT v = LOAD((__global const ST*)(sb + s), c);
#else
    CT v = value;
#endif
#if HAS_ALPHA
    v = v * alpha;
#endif
#if ATOMIC
    atomic_combine(dp + c, v);
#else
    const CT cur = LOAD(dp, c);
    STORE(dp, c, COMBINE(cur, v));
#endif
  }
#endif
}

#define IDX_ARG(j) __global const char* i##j##b, ulong i##j##o
// NIDX (the launcher's define) index operands. Work item w takes `block`
// consecutive elements of one row of dim 0 (the iterator's fastest dim): the
// row's offsets come from the outer dims once (divisions), then each operand
// steps by its dim-0 stride. When no index moves along dim 0 (index_select
// of rows, index_put_ of slices, ...) the indices are read and checked once
// per block, and a copy between contiguous rows is a plain element loop.
__kernel void index_kernel(__global const long* meta, long n, long block, __global char* db, ulong doff,
                           __global char* sb, ulong soff, IDX_ARG(0), IDX_ARG(1), IDX_ARG(2),
                           IDX_ARG(3), IDX_ARG(4), IDX_ARG(5), IDX_ARG(6), IDX_ARG(7),
                           VALUE_T value, VALUE_T alpha, __global int* flag, int check) {
  __global const char* ibase[MAX_IDX] = {i0b + i0o, i1b + i1o, i2b + i2o, i3b + i3o,
                                         i4b + i4o, i5b + i5o, i6b + i6o, i7b + i7o};
  db += doff;
  sb += soff;
  const long ndim = meta[0];
  __global const long* sizes = meta + 2;
  __global const long* strides = sizes + ndim;
  __global const long* im = strides + (2 + NIDX) * ndim;
#if LINEAR
  __global const long* lin = im + 4 * NIDX;
#endif
  const long size0 = ndim > 0 ? sizes[0] : 1;
  const long ds0 = ndim > 0 ? strides[0] : 0, ss0 = ndim > 0 ? strides[ndim] : 0;
  long is0[NIDX], isize[NIDX], istride[NIDX], ibytes[NIDX];
  int idx_moves = 0;
  for (int q = 0; q < NIDX; ++q) {
    is0[q] = ndim > 0 ? strides[(2 + q) * ndim] : 0;
    idx_moves |= is0[q] != 0;
    isize[q] = im[4 * q];
    istride[q] = im[4 * q + 1];
    ibytes[q] = im[4 * q + 2];
  }
  const long nblk = (size0 + block - 1) / block;
  const long items = nblk * (n / size0);
  GRID_LOOP(w, items) {
    const long row = w / nblk;
    const long j0 = (w - row * nblk) * block, len = min(j0 + block, size0) - j0;
    long od = j0 * ds0, os = j0 * ss0, oi[NIDX];
    for (int q = 0; q < NIDX; ++q) oi[q] = j0 * is0[q];
    long rest = row;
    for (int d = 1; d < ndim; ++d) {
      const long c = rest % sizes[d];
      rest /= sizes[d];
      od += c * strides[d];
      os += c * strides[ndim + d];
      for (int q = 0; q < NIDX; ++q) oi[q] += c * strides[(2 + q) * ndim + d];
    }
    for (long j = 0; j < len; ++j) {
      // the displacement of element j (once for the block when no index moves)
      long disp = 0;
      int ok = 1;
      for (int q = 0; q < NIDX; ++q) {
        long idx = load_index(ibase[q] + oi[q] + j * is0[q], ibytes[q]);
        const long size = isize[q];
#if ALLOW_NEGATIVE
        if (idx < -size || idx >= size) {
#else
        if (idx < 0 || idx >= size) {
#endif
          report_bad_index(flag, check, idx, im[4 * q + 3], size);
          ok = 0;
          break;
        }
        if (idx < 0) idx += size;
#if LINEAR
        for (int d = (int)lin[0] - 1; d >= 0; --d) {  // row-major: the last dim moves fastest
          const long s = lin[1 + d];
          disp += (idx % s) * lin[1 + lin[0] + d];
          idx /= s;
        }
#else
        disp += idx * istride[q];
#endif
      }
      if (!ok) {
        if (idx_moves) continue;
        break;  // the whole block reads the bad index
      }
#if DISPLACE_DST
      const long d0 = od + disp, s0 = os;
#else
      const long d0 = od, s0 = os + disp;
#endif
      if (idx_moves) {
        apply(db, sb, d0 + j * ds0, s0 + j * ss0, value, alpha);
        continue;
      }
      // no index moves: the rest of the block at once
#if REDUCE == 0 && HAS_SRC
      if (ds0 == sizeof(ST) && ss0 == sizeof(ST)) {  // contiguous rows
        __global ST* dp = (__global ST*)(db + d0);
        __global const ST* sp = (__global const ST*)(sb + s0);
        for (long k = 0; k < len; ++k) dp[k] = sp[k];
        break;
      }
#endif
      for (long k = 0; k < len; ++k) apply(db, sb, d0 + k * ds0, s0 + k * ss0, value, alpha);
      break;
    }
  }
}
