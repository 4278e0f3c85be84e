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

inline float half_bits_to_float(ushort b) { return vload_half(0, (const __private half*)&b); }
inline ushort float_to_half_bits(float f) {
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
inline void atomic_combine(__global ST* p, CT v) {
#if ELEM_BYTES == 8
  volatile __global ulong* w = (volatile __global ulong*)p;
  ulong old = *w, assumed;
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
  uint old = *w, assumed;
  do {
    assumed = old;
    const CT cur = FROM_BITS((BITS)(assumed >> shift));
    const uint nb = ((uint)TO_BITS(COMBINE(cur, v))) << shift;
    old = atomic_cmpxchg(w, assumed, (assumed & ~mask) | (nb & mask));
  } while (old != assumed);
#endif
}
#endif

inline long load_index(__global const char* p, long elem_bytes) {
  return elem_bytes == 4 ? (long)*(__global const int*)p : *(__global const long*)p;
}

#define IDX_ARG(j) __global const char* i##j##b, ulong i##j##o
__kernel void index_kernel(__global const long* meta, long n, __global char* db, ulong doff,
                           __global char* sb, ulong soff, IDX_ARG(0), IDX_ARG(1), IDX_ARG(2),
                           IDX_ARG(3), IDX_ARG(4), IDX_ARG(5), IDX_ARG(6), IDX_ARG(7),
                           VALUE_T value, VALUE_T alpha, __global int* flag, int check) {
  __global const char* ib[MAX_IDX] = {i0b + i0o, i1b + i1o, i2b + i2o, i3b + i3o,
                                      i4b + i4o, i5b + i5o, i6b + i6o, i7b + i7o};
  const long ndim = meta[0], nidx = meta[1], nops = 2 + meta[1];
  __global const long* sizes = meta + 2;
  __global const long* strides = sizes + ndim;
  __global const long* im = strides + nops * ndim;
#if LINEAR
  __global const long* lin = im + 4 * nidx;
#endif
  GRID_LOOP(i, n) {
    long off[2 + MAX_IDX];
    for (int k = 0; k < nops; ++k) off[k] = 0;
    long rest = i;
    for (int d = 0; d < ndim; ++d) {
      const long c = rest % sizes[d];
      rest /= sizes[d];
      for (int k = 0; k < nops; ++k) off[k] += c * strides[k * ndim + d];
    }
    long disp = 0;
    int ok = 1;
    for (int j = 0; j < nidx; ++j) {
      long idx = load_index(ib[j] + off[2 + j], im[4 * j + 2]);
      const long size = im[4 * j];
#if ALLOW_NEGATIVE
      if (idx < -size || idx >= size) {
#else
      if (idx < 0 || idx >= size) {
#endif
        report_bad_index(flag, check, idx, im[4 * j + 3], size);
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
      disp += idx * im[4 * j + 1];
#endif
    }
    if (!ok) continue;
#if DISPLACE_DST
    __global ST* dp = (__global ST*)(db + doff + off[0] + disp);
    const long src_off = off[1];
#else
    __global ST* dp = (__global ST*)(db + doff + off[0]);
    const long src_off = off[1] + disp;
#endif
#if REDUCE == 0
#if HAS_SRC
    *dp = *(__global const ST*)(sb + soff + src_off);
#else
    *dp = value;
#endif
#elif REDUCE == 2 && COMPONENTS == 2
    {  // a complex product (never atomic: the launcher runs it serially), as c10::complex's *=
      __global const ST* sp = (__global const ST*)(sb + soff + src_off);
      const CT vr = LOAD(sp, 0), vi = LOAD(sp, 1), cr = LOAD(dp, 0), ci = LOAD(dp, 1);
      STORE(dp, 0, cr * vr - ci * vi);
      STORE(dp, 1, cr * vi + ci * vr);
    }
#else
    for (int c = 0; c < COMPONENTS; ++c) {
#if HAS_SRC
      CT v = LOAD((__global const ST*)(sb + soff + src_off), c);
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
}
