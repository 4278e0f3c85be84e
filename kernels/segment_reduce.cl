// segment_reduce and its backward (launcher: kernels/segment_reduce_ops.cpp),
// as the CPU's kernels in ATen's SegmentReduce.cpp. ST/CT/LOAD/STORE describe
// the data's dtype. The data is [outer, size, inner] (contiguous); segment s
// of outer row o spans positions off[o * (segs + 1) + s .. + 1) along the
// middle dim (int64 offsets, from lengths or given). One work item per output
// element (o, s, i): it folds its segment in order (deterministic).
// red: 0 max, 1 mean, 2 min, 3 sum, 4 prod (ATen's ReductionType).

#define RED_MAX 0
#define RED_MEAN 1
#define RED_MIN 2
#define RED_SUM 3
#define RED_PROD 4

// `initial` passed as its bits: a double for float64 data, else a float.
#ifdef CT_IS_DOUBLE
#define INIT_VALUE(bits) as_double(bits)
#else
#define INIT_VALUE(bits) as_float((uint)(bits))
#endif

#define DATA_AT(j) ((o * size + (j)) * inner + i)

__kernel void segment_reduce(__global char* ob, ulong oo, __global char* db, ulong dofs, __global char* fb, ulong fo,
                             long outer, long segs, long size, long inner, int red, int has_init, ulong init_bits) {
  __global ST* out = PTR(ST, ob, oo);
  __global const ST* d = PTR(const ST, db, dofs);
  __global const long* off = PTR(const long, fb, fo);
  GRID_LOOP(idx, outer * segs * inner) {
    const long i = idx % inner, s = (idx / inner) % segs, o = idx / (inner * segs);
    const long start = off[o * (segs + 1) + s], end = off[o * (segs + 1) + s + 1];
    const CT init = INIT_VALUE(init_bits);
    CT acc = has_init ? init : red == RED_MAX ? (CT)-INFINITY : red == RED_MIN ? (CT)INFINITY : red == RED_PROD ? 1 : 0;
    for (long j = start; j < end; ++j) {
      const CT v = LOAD(d, DATA_AT(j));
      // the CPU's std::max / std::min: a NaN accumulator stays, a NaN value wins
      if (red == RED_MAX) acc = isnan(v) ? v : (acc < v ? v : acc);
      else if (red == RED_MIN) acc = isnan(v) ? v : (v < acc ? v : acc);
      else if (red == RED_PROD) acc *= v;
      else acc += v;
    }
    const long len = end - start;
    if (red == RED_MEAN && len == 0 && !has_init) acc = NAN;
    else if (red == RED_MEAN && len > 0 && !isnan(acc)) acc = acc / (CT)len;
    STORE(out, idx, acc);
  }
}

// grad_input (zeroed, data's shape) from grad and output (the forward's):
// max / min hand the gradient to every element equal to the result (or NaN),
// shared between them as the CPU does (only positive shares are divided);
// prod divides grad * output by the element, or multiplies out the others
// where the element is 0 or NaN.
__kernel void segment_reduce_backward(__global char* gib, ulong gio, __global char* gb, ulong go, __global char* ob,
                                      ulong oo, __global char* db, ulong dofs, __global char* fb, ulong fo, long outer,
                                      long segs, long size, long inner, int red, ulong init_bits) {
  __global ST* gi = PTR(ST, gib, gio);
  __global const ST* g = PTR(const ST, gb, go);
  __global const ST* out = PTR(const ST, ob, oo);
  __global const ST* d = PTR(const ST, db, dofs);
  __global const long* off = PTR(const long, fb, fo);
  GRID_LOOP(idx, outer * segs * inner) {
    const long i = idx % inner, s = (idx / inner) % segs, o = idx / (inner * segs);
    const long start = off[o * (segs + 1) + s], end = off[o * (segs + 1) + s + 1];
    if (end <= start) continue;
    const CT gv = LOAD(g, idx), res = LOAD(out, idx);
    if (red == RED_MAX || red == RED_MIN) {
      long count = 0;
      for (long j = start; j < end; ++j) {
        const CT v = LOAD(d, DATA_AT(j));
        if (isnan(v) || v == res) ++count;
      }
      for (long j = start; j < end; ++j) {
        const CT v = LOAD(d, DATA_AT(j));
        if (isnan(v) || v == res) STORE(gi, DATA_AT(j), count >= 2 && gv > 0 ? gv / (CT)count : gv);
      }
    } else if (red == RED_MEAN || red == RED_SUM) {
      const CT share = red == RED_MEAN ? gv / (CT)(end - start) : gv;
      for (long j = start; j < end; ++j) STORE(gi, DATA_AT(j), share);
    } else {
      const CT init = INIT_VALUE(init_bits);
      const CT gres = gv * res;
      for (long j = start; j < end; ++j) {
        const CT v = LOAD(d, DATA_AT(j));
        CT value;
        if (isnan(v) || v == 0) {
          CT others = init;
          for (long k = start; k < end; ++k)
            if (k != j) others *= LOAD(d, DATA_AT(k));
          value = gv * others;
        } else {
          value = gres / v;
        }
        STORE(gi, DATA_AT(j), value);
      }
    }
  }
}
