// grid_sampler_2d / grid_sampler_3d (F.grid_sample), forward and backward:
// bilinear / nearest / bicubic (2-d only) interpolation, zeros / border /
// reflection padding, align_corners, with ATen's coordinate formulas
// (aten/src/ATen/native/GridSampler.h). A 2-d op is the 3-d one with D = 1.
// Launchers: kernels/grid_sample_ops.cpp.
//
// One work item per (n, output point) loops over the channels, so the grid
// gradient is summed locally. The input gradient is a scatter (a grid may
// send any number of points to one input element): it is added with
// compare-and-swap atomics into a float (double for float64) buffer, as CUDA
// does; its summation order is therefore not deterministic.
//
// The launcher defines ST, CT, ACC, LOAD, STORE (dtype_preamble) and, for
// float64, GS_DOUBLE.

typedef struct {
  long N, C;
  long in_size[3], out_size[3];  // D, H, W (2-d: D = 1)
  long in_stride[5], out_stride[5];
  long grid_stride[5], ggrid_stride[5];  // n, d, h, w, coordinate
  long dims, interp, padding, align_corners;  // interp: 0 bilinear, 1 nearest, 2 bicubic; padding: 0 zeros, 1 border, 2 reflection
} GSParams;

#ifdef GS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
typedef double GA;
static inline void atomic_add_ga(__global double* p, double v) {
  volatile __global ulong* w = (volatile __global ulong*)p;
  ulong old = atom_add(w, 0ul), assumed;  // atomic read (a plain one races)
  do {
    assumed = old;
    old = atom_cmpxchg(w, assumed, as_ulong(as_double(assumed) + v));
  } while (old != assumed);
}
#else
typedef float GA;
static inline void atomic_add_ga(__global float* p, float v) {
  volatile __global uint* w = (volatile __global uint*)p;
  uint old = atomic_or(w, 0u), assumed;  // atomic read (a plain one races)
  do {
    assumed = old;
    old = atomic_cmpxchg(w, assumed, as_uint(as_float(assumed) + v));
  } while (old != assumed);
}
#endif

static inline CT clip_coord(CT x, long size, CT* grad) {
  if (x <= (CT)0) { *grad = 0; return 0; }
  const CT hi = (CT)(size - 1);
  if (x >= hi) { *grad = 0; return hi; }
  *grad = 1;
  return x;
}

static inline CT reflect_coord(CT x, long twice_low, long twice_high, CT* grad) {
  if (twice_low == twice_high) { *grad = 0; return 0; }
  const CT lo = (CT)twice_low / (CT)2, span = (CT)(twice_high - twice_low) / (CT)2;
  x = x - lo;
  CT sign = 1;
  if (x < (CT)0) { sign = -1; x = -x; }
  const CT extra = fmod(x, span);
  const int flips = (int)floor(x / span);
  if (flips % 2 == 0) { *grad = sign; return extra + lo; }
  *grad = -sign;
  return span - extra + lo;
}

// compute_coordinates (padding) with its derivative.
static inline CT pad_coord(const GSParams* p, CT x, long size, CT* grad) {
  CT g1 = 1, g2 = 1;
  if (p->padding == 1) {
    x = clip_coord(x, size, &g1);
  } else if (p->padding == 2) {
    x = p->align_corners ? reflect_coord(x, 0, 2 * (size - 1), &g1) : reflect_coord(x, -1, 2 * size - 1, &g1);
    x = clip_coord(x, size, &g2);
  }
  *grad = g1 * g2;
  return x;
}

// The taps of grid coordinate g along dim k: input indices (-1: outside,
// contributes 0), weights, their derivatives in the unnormalized coordinate,
// and d(coordinate)/d(g) in *mult. Returns the count.
static inline int gs_taps(const GSParams* p, int k, CT g, long* idx, CT* w, CT* dw, CT* mult) {
  const long S = p->in_size[k];
  if (k < 3 - p->dims) {
    idx[0] = 0; w[0] = 1; dw[0] = 0; *mult = 0;
    return 1;
  }
  // grid_sampler_unnormalize
  CT x;
  if (p->align_corners) {
    *mult = (CT)(S - 1) / (CT)2;
    x = ((g + (CT)1) / (CT)2) * (CT)(S - 1);
  } else {
    *mult = (CT)S / (CT)2;
    x = ((g + (CT)1) * (CT)S - (CT)1) / (CT)2;
  }
  if (p->interp == 2) {  // bicubic: padding applies to each tap
    const CT f = floor(x), t = x - f, A = (CT)-0.75;
    const CT x1 = t + (CT)1, x2 = (CT)1 - t, x3 = x2 + (CT)1;
    w[0] = ((A * x1 - (CT)5 * A) * x1 + (CT)8 * A) * x1 - (CT)4 * A;
    w[1] = ((A + (CT)2) * t - (A + (CT)3)) * t * t + (CT)1;
    w[2] = ((A + (CT)2) * x2 - (A + (CT)3)) * x2 * x2 + (CT)1;
    w[3] = ((A * x3 - (CT)5 * A) * x3 + (CT)8 * A) * x3 - (CT)4 * A;
    CT y = (CT)-1 - t;
    dw[0] = ((CT)-3 * A * y - (CT)10 * A) * y - (CT)8 * A;
    y = -t;
    dw[1] = ((CT)-3 * (A + (CT)2) * y - (CT)2 * (A + (CT)3)) * y;
    y = (CT)1 - t;
    dw[2] = ((CT)3 * (A + (CT)2) * y - (CT)2 * (A + (CT)3)) * y;
    y = (CT)2 - t;
    dw[3] = ((CT)3 * A * y - (CT)10 * A) * y + (CT)8 * A;
    for (int j = 0; j < 4; ++j) dw[j] = -dw[j];  // (get_cubic_coefficients_grad gives -d/dt)
    for (int j = 0; j < 4; ++j) {
      CT unused;
      const long i = (long)pad_coord(p, f - (CT)1 + (CT)j, S, &unused);
      idx[j] = i >= 0 && i < S ? i : -1;
    }
    return 4;
  }
  CT gpad;
  x = pad_coord(p, x, S, &gpad);
  *mult *= gpad;
  if (p->interp == 1) {  // nearest: round half to even
    const long i = (long)rint(x);
    idx[0] = i >= 0 && i < S ? i : -1;
    w[0] = 1; dw[0] = 0;
    return 1;
  }
  const CT f = floor(x);
  const long i0 = (long)f;
  idx[0] = i0 >= 0 && i0 < S ? i0 : -1;
  idx[1] = i0 + 1 >= 0 && i0 + 1 < S ? i0 + 1 : -1;
  w[1] = x - f; w[0] = (CT)1 - w[1];
  dw[0] = -1; dw[1] = 1;
  return 2;
}

// The taps of output point i (n, d, h, w in o[]) in all three dims.
typedef struct {
  long idx[3][4];
  CT w[3][4], dw[3][4], mult[3];
  int n[3];
} Taps;

static inline void point_taps(const GSParams* p, __global const ST* grid, long i, long* o, Taps* t) {
  long r = i;
  o[3] = r % p->out_size[2]; r /= p->out_size[2];
  o[2] = r % p->out_size[1]; r /= p->out_size[1];
  o[1] = r % p->out_size[0]; r /= p->out_size[0];
  o[0] = r;
  const long gbase = o[0] * p->grid_stride[0] + o[1] * p->grid_stride[1] + o[2] * p->grid_stride[2] +
                     o[3] * p->grid_stride[3];
  for (int k = 0; k < 3; ++k) {
    const CT g = k < 3 - p->dims ? (CT)0 : (CT)LOAD(grid, gbase + (2 - k) * p->grid_stride[4]);
    t->n[k] = gs_taps(p, k, g, t->idx[k], t->w[k], t->dw[k], &t->mult[k]);
  }
}

__kernel void grid_sample_forward(__global char* ob, ulong oo, __global char* xb, ulong xo, __global char* gb,
                                  ulong go, GSParams p) {
  __global ST* out = PTR(ST, ob, oo);
  __global ST* in = PTR(ST, xb, xo);
  __global ST* grid = PTR(ST, gb, go);
  const long total = p.N * p.out_size[0] * p.out_size[1] * p.out_size[2];
  GRID_LOOP(i, total) {
    long o[4];
    Taps t;
    point_taps(&p, grid, i, o, &t);
    for (long c = 0; c < p.C; ++c) {
      const long base = o[0] * p.in_stride[0] + c * p.in_stride[1];
      ACC sum = 0;
      for (int a = 0; a < t.n[0]; ++a)
        for (int b = 0; b < t.n[1]; ++b)
          for (int e = 0; e < t.n[2]; ++e) {
            if (t.idx[0][a] < 0 || t.idx[1][b] < 0 || t.idx[2][e] < 0) continue;
            const ACC v = LOAD(in, base + t.idx[0][a] * p.in_stride[2] + t.idx[1][b] * p.in_stride[3] +
                                       t.idx[2][e] * p.in_stride[4]);
            sum += (ACC)(t.w[0][a] * t.w[1][b] * t.w[2][e]) * v;
          }
      STORE(out, o[0] * p.out_stride[0] + c * p.out_stride[1] + o[1] * p.out_stride[2] + o[2] * p.out_stride[3] +
                     o[3] * p.out_stride[4], sum);
    }
  }
}

// gin: a zero-filled contiguous GA buffer of the input's sizes (null when the
// input gradient is not wanted); ggrid: the grid gradient (grid's dtype).
__kernel void grid_sample_backward(__global char* gib, ulong gio, __global char* ggb, ulong ggo, __global char* gob,
                                   ulong goo, __global char* xb, ulong xo, __global char* gb, ulong go, GSParams p,
                                   long want_input) {
  __global GA* gin = PTR(GA, gib, gio);
  __global ST* ggrid = PTR(ST, ggb, ggo);
  __global ST* gout = PTR(ST, gob, goo);
  __global ST* in = PTR(ST, xb, xo);
  __global ST* grid = PTR(ST, gb, go);
  const long D = p.in_size[0], H = p.in_size[1], W = p.in_size[2];
  const long total = p.N * p.out_size[0] * p.out_size[1] * p.out_size[2];
  GRID_LOOP(i, total) {
    long o[4];
    Taps t;
    point_taps(&p, grid, i, o, &t);
    ACC gg[3] = {0, 0, 0};
    for (long c = 0; c < p.C; ++c) {
      const long base = o[0] * p.in_stride[0] + c * p.in_stride[1];
      const ACC g = LOAD(gout, o[0] * p.out_stride[0] + c * p.out_stride[1] + o[1] * p.out_stride[2] +
                                   o[2] * p.out_stride[3] + o[3] * p.out_stride[4]);
      for (int a = 0; a < t.n[0]; ++a)
        for (int b = 0; b < t.n[1]; ++b)
          for (int e = 0; e < t.n[2]; ++e) {
            if (t.idx[0][a] < 0 || t.idx[1][b] < 0 || t.idx[2][e] < 0) continue;
            if (want_input)
              atomic_add_ga(gin + (((o[0] * p.C + c) * D + t.idx[0][a]) * H + t.idx[1][b]) * W + t.idx[2][e],
                            (GA)((ACC)(t.w[0][a] * t.w[1][b] * t.w[2][e]) * g));
            if (p.interp == 1) continue;
            const ACC v = LOAD(in, base + t.idx[0][a] * p.in_stride[2] + t.idx[1][b] * p.in_stride[3] +
                                       t.idx[2][e] * p.in_stride[4]) * g;
            gg[0] += v * (ACC)(t.dw[0][a] * t.w[1][b] * t.w[2][e]);
            gg[1] += v * (ACC)(t.w[0][a] * t.dw[1][b] * t.w[2][e]);
            gg[2] += v * (ACC)(t.w[0][a] * t.w[1][b] * t.dw[2][e]);
          }
    }
    const long gbase = o[0] * p.ggrid_stride[0] + o[1] * p.ggrid_stride[1] + o[2] * p.ggrid_stride[2] +
                       o[3] * p.ggrid_stride[3];
    for (int k = 3 - p.dims; k < 3; ++k) STORE(ggrid, gbase + (2 - k) * p.ggrid_stride[4], gg[k] * (ACC)t.mult[k]);
  }
}
