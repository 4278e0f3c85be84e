// Pooling: max / average, fixed windows (kernel, stride, padding, dilation)
// and adaptive windows, forward and backward, and max_unpool. Every tensor is
// seen as 5-d (N, C, D, H, W) through its strides (2-d pooling has D = 1, a
// batch-less input N = 1), so one kernel serves 1-d/2-d/3-d, NCHW and
// channels_last. Launchers: kernels/pool_ops.cpp.
//
// Backward kernels gather: one work item per grad_input element loops over
// the output windows that can contain it (no atomics; as CUDA's kernels).
//
// The launcher defines ST, CT, ACC, LOAD, STORE (dtype_preamble) and LOWEST,
// the start value of a max (-INFINITY, or the type's minimum).

typedef struct {
  long N, C;
  long in_size[3];   // D, H, W of the pooled input (grad_input)
  long out_size[3];  // D, H, W of the output (grad_output)
  long ksize[3], stride[3], pad[3], dilation[3];
  long in_stride[5];   // N, C, D, H, W strides (elements) of input / grad_input
  long out_stride[5];  // of output / grad_output
  long idx_stride[5];  // of indices
  long adaptive;       // windows start_index/end_index (AdaptivePooling.h)
  long channels_last;  // enumerate work items with C fastest
  long count_include_pad;
  long divisor;  // != 0: divisor_override (the meta rejects 0)
} PoolParams;

#define IS_NAN(x) ((x) != (x))

// Position `i` of an (N, C, D, H, W) space of sizes `s` (kernels/common.cl).
static inline void decompose(const PoolParams* p, const long* s, long i, long* pos) {
  ncdhw_position(p->channels_last, p->N, p->C, s, i, pos);
}

static inline long offset(const long* st, long n, long c, long d, long h, long w) {
  return n * st[0] + c * st[1] + d * st[2] + h * st[3] + w * st[4];
}

// The input positions [*start, *end) (step dilation) that output position o
// of dim k reads. Fixed windows are clipped to the input, their start moved
// past the padding by whole dilation steps.
static inline void window(const PoolParams* p, int k, long o, long* start, long* end) {
  const long I = p->in_size[k], O = p->out_size[k];
  if (p->adaptive) {
    *start = (o / O) * I + ((o % O) * I) / O;
    *end = 1 + ((o + 1) * I - 1) / O;
    return;
  }
  const long dil = p->dilation[k];
  long s = o * p->stride[k] - p->pad[k];
  *end = min(s + (p->ksize[k] - 1) * dil + 1, I);
  if (s < 0) s += ((-s + dil - 1) / dil) * dil;
  *start = s;
}

// The output positions [*lo, *hi) whose window can contain input position x
// of dim k (for max pooling with dilation: a superset, indices decide).
static inline void windows_of(const PoolParams* p, int k, long x, long* lo, long* hi) {
  const long I = p->in_size[k], O = p->out_size[k];
  if (p->adaptive) {
    *lo = (x / I) * O + ((x % I) * O) / I;
    *hi = min(1 + ((x + 1) * O - 1) / I, O);
    return;
  }
  const long span = (p->ksize[k] - 1) * p->dilation[k] + 1, s = p->stride[k], xp = x + p->pad[k];
  *lo = xp < span ? 0 : (xp - span) / s + 1;
  *hi = min(xp / s + 1, O);
}

static inline long dst_count(const PoolParams* p, const long* s) { return p->N * p->C * s[0] * s[1] * s[2]; }

// The maximum of window [s, e) (step st per dim) of plane `base`, its flat
// index in *best; a NaN wins, as on the CPU. Shared by max and fractional pooling.
static inline CT window_max(__global const ST* in, long base, const PoolParams* p, const long* s, const long* e,
                     const long* st, long* best) {
  const long IH = p->in_size[1], IW = p->in_size[2];
  *best = (s[0] * IH + s[1]) * IW + s[2];
  CT m = LOWEST;
  for (long d = s[0]; d < e[0]; d += st[0])
    for (long h = s[1]; h < e[1]; h += st[1])
      for (long w = s[2]; w < e[2]; w += st[2]) {
        const CT v = LOAD(in, base + d * p->in_stride[2] + h * p->in_stride[3] + w * p->in_stride[4]);
        if (v > m || IS_NAN(v)) {
          m = v;
          *best = (d * IH + h) * IW + w;
        }
      }
  return m;
}

__kernel void max_pool_forward(__global char* ob, ulong oo, __global char* ib_, ulong io_,
                               __global char* xb, ulong xo, PoolParams p) {
  __global ST* out = PTR(ST, ob, oo);
  __global long* idx = PTR(long, ib_, io_);
  __global ST* in = PTR(ST, xb, xo);
  GRID_LOOP(i, dst_count(&p, p.out_size)) {
    long o[5], s[3], e[3];
    decompose(&p, p.out_size, i, o);
    for (int k = 0; k < 3; ++k) window(&p, k, o[2 + k], &s[k], &e[k]);
    const long st[3] = {p.adaptive ? 1 : p.dilation[0], p.adaptive ? 1 : p.dilation[1],
                        p.adaptive ? 1 : p.dilation[2]};
    long best;
    const CT m = window_max(in, o[0] * p.in_stride[0] + o[1] * p.in_stride[1], &p, s, e, st, &best);
    STORE(out, offset(p.out_stride, o[0], o[1], o[2], o[3], o[4]), m);
    idx[offset(p.idx_stride, o[0], o[1], o[2], o[3], o[4])] = best;
  }
}

__kernel void max_pool_backward(__global char* gib, ulong gio, __global char* gob, ulong goo,
                                __global char* ib_, ulong io_, PoolParams p) {
  __global ST* grad_in = PTR(ST, gib, gio);
  __global ST* grad_out = PTR(ST, gob, goo);
  __global long* idx = PTR(long, ib_, io_);
  const long IH = p.in_size[1], IW = p.in_size[2];
  GRID_LOOP(i, dst_count(&p, p.in_size)) {
    long x[5], lo[3], hi[3];
    decompose(&p, p.in_size, i, x);
    for (int k = 0; k < 3; ++k) windows_of(&p, k, x[2 + k], &lo[k], &hi[k]);
    const long me = (x[2] * IH + x[3]) * IW + x[4];
    ACC sum = 0;
    for (long d = lo[0]; d < hi[0]; ++d)
      for (long h = lo[1]; h < hi[1]; ++h)
        for (long w = lo[2]; w < hi[2]; ++w)
          if (idx[offset(p.idx_stride, x[0], x[1], d, h, w)] == me)
            sum += (ACC)LOAD(grad_out, offset(p.out_stride, x[0], x[1], d, h, w));
    STORE(grad_in, offset(p.in_stride, x[0], x[1], x[2], x[3], x[4]), sum);
  }
}

// The divisor of fixed window o (its clipped start/end in s/e): as the CPU's
// avg_pool kernels (count_include_pad counts padding, not ceil_mode overhang).
static inline long avg_divisor(const PoolParams* p, const long* o, long* s, long* e) {
  long pool = 1, inside = 1;
  for (int k = 0; k < 3; ++k) {
    long a = o[k] * p->stride[k] - p->pad[k];
    long b = min(a + p->ksize[k], p->in_size[k] + p->pad[k]);
    pool *= b - a;
    s[k] = max(a, 0L);
    e[k] = min(b, p->in_size[k]);
    inside *= e[k] - s[k];
  }
  if (p->divisor != 0) return p->divisor;
  return p->count_include_pad ? pool : inside;
}

__kernel void avg_pool_forward(__global char* ob, ulong oo, __global char* xb, ulong xo, PoolParams p) {
  __global ST* out = PTR(ST, ob, oo);
  __global ST* in = PTR(ST, xb, xo);
  GRID_LOOP(i, dst_count(&p, p.out_size)) {
    long o[5], s[3], e[3];
    decompose(&p, p.out_size, i, o);
    long div = 1;
    if (p.adaptive) {
      for (int k = 0; k < 3; ++k) window(&p, k, o[2 + k], &s[k], &e[k]);
    } else {
      div = avg_divisor(&p, o + 2, s, e);
    }
    const long base = o[0] * p.in_stride[0] + o[1] * p.in_stride[1];
    ACC sum = 0;
    for (long d = s[0]; d < e[0]; ++d)
      for (long h = s[1]; h < e[1]; ++h)
        for (long w = s[2]; w < e[2]; ++w)
          sum += (ACC)LOAD(in, base + d * p.in_stride[2] + h * p.in_stride[3] + w * p.in_stride[4]);
    ACC r;
    if (p.adaptive) {
      r = sum / (ACC)(e[0] - s[0]) / (ACC)(e[1] - s[1]) / (ACC)(e[2] - s[2]);
    } else {
      r = (s[0] >= e[0] || s[1] >= e[1] || s[2] >= e[2]) ? (ACC)0 : sum / (ACC)div;
    }
    STORE(out, offset(p.out_stride, o[0], o[1], o[2], o[3], o[4]), r);
  }
}

__kernel void avg_pool_backward(__global char* gib, ulong gio, __global char* gob, ulong goo, PoolParams p) {
  __global ST* grad_in = PTR(ST, gib, gio);
  __global ST* grad_out = PTR(ST, gob, goo);
  GRID_LOOP(i, dst_count(&p, p.in_size)) {
    long x[5], lo[3], hi[3];
    decompose(&p, p.in_size, i, x);
    for (int k = 0; k < 3; ++k) windows_of(&p, k, x[2 + k], &lo[k], &hi[k]);
    ACC sum = 0;
    for (long d = lo[0]; d < hi[0]; ++d)
      for (long h = lo[1]; h < hi[1]; ++h)
        for (long w = lo[2]; w < hi[2]; ++w) {
          const long o[3] = {d, h, w};
          long s[3], e[3];
          const ACC g = LOAD(grad_out, offset(p.out_stride, x[0], x[1], d, h, w));
          if (p.adaptive) {
            for (int k = 0; k < 3; ++k) window(&p, k, o[k], &s[k], &e[k]);
            sum += g / (ACC)(e[0] - s[0]) / (ACC)(e[1] - s[1]) / (ACC)(e[2] - s[2]);
          } else {
            const long div = avg_divisor(&p, o, s, e);
            if (x[2] < e[0] && x[3] < e[1] && x[4] < e[2]) sum += g / (ACC)div;
          }
        }
    STORE(grad_in, offset(p.in_stride, x[0], x[1], x[2], x[3], x[4]), sum);
  }
}

// report_bad_index: kernels/device_checks.cl, spliced in by the launcher.

// max_unpool: out (zero-filled, out_size) at indices[i] = in[i]; in_size is
// the input's. An index outside the output plane skips and is reported.
__kernel void max_unpool_forward(__global char* ob, ulong oo, __global char* xb, ulong xo,
                                 __global char* ib_, ulong io_, PoolParams p, __global int* flag,
                                 int check) {
  __global ST* out = PTR(ST, ob, oo);
  __global ST* in = PTR(ST, xb, xo);
  __global long* idx = PTR(long, ib_, io_);
  const long OD = p.out_size[0], OH = p.out_size[1], OW = p.out_size[2];
  GRID_LOOP(i, dst_count(&p, p.in_size)) {
    long x[5];
    decompose(&p, p.in_size, i, x);
    const long j = idx[offset(p.idx_stride, x[0], x[1], x[2], x[3], x[4])];
    if (j < 0 || j >= OD * OH * OW) {
      report_bad_index(flag, check, j, OD * OH * OW, 0);
      continue;
    }
    STORE(out, offset(p.out_stride, x[0], x[1], j / (OH * OW), (j / OW) % OH, j % OW),
          LOAD(in, offset(p.in_stride, x[0], x[1], x[2], x[3], x[4])));
  }
}

// ---- fractional max pooling (2-d: D = 1; 3-d) ----
// `v` rounded to the storage type, as the CPU's scalar_t arithmetic rounds
// each step of the interval computation (half / bfloat16).
static inline CT round_st(CT v) {
  ulong buf = 0;
  __private ST* t = (__private ST*)&buf;
  STORE(t, 0, v);
  return LOAD(t, 0);
}

// Start of output position o's window in dim k (ATen's generate_intervals):
// pool size P = ksize[k], input size I, output size O, sample u.
static inline long fractional_start(const PoolParams* p, int k, long o, CT u) {
  const long I = p->in_size[k], O = p->out_size[k], P = p->ksize[k];
  if (o == O - 1) return I - P;
  const CT alpha = round_st(round_st((CT)(I - P)) / round_st((CT)(O - 1)));
  return (long)(int)round_st(round_st(round_st((CT)o) + u) * alpha) - (long)(int)round_st(u * alpha);
}

// One work item per output element. samples: contiguous [N', C, dims], the
// CPU's order: 2-d (W, H), 3-d (T, H, W).
__kernel void fractional_max_forward(__global char* ob, ulong oo, __global char* ib_, ulong io_,
                                     __global char* xb, ulong xo, __global char* sb, ulong so, long dims,
                                     PoolParams p) {
  __global ST* out = PTR(ST, ob, oo);
  __global long* idx = PTR(long, ib_, io_);
  __global ST* in = PTR(ST, xb, xo);
  __global ST* samples = PTR(ST, sb, so);
  GRID_LOOP(i, dst_count(&p, p.out_size)) {
    long o[5], s[3];
    decompose(&p, p.out_size, i, o);
    __global ST* smp = samples + (o[0] * p.C + o[1]) * dims;
    s[0] = dims == 2 ? 0 : fractional_start(&p, 0, o[2], LOAD(smp, 0));
    s[1] = fractional_start(&p, 1, o[3], LOAD(smp, 1));
    s[2] = fractional_start(&p, 2, o[4], LOAD(smp, dims == 2 ? 0 : 2));
    const long e[3] = {s[0] + p.ksize[0], s[1] + p.ksize[1], s[2] + p.ksize[2]}, st[3] = {1, 1, 1};
    long best;
    const CT m = window_max(in, o[0] * p.in_stride[0] + o[1] * p.in_stride[1], &p, s, e, st, &best);
    STORE(out, offset(p.out_stride, o[0], o[1], o[2], o[3], o[4]), m);
    idx[offset(p.idx_stride, o[0], o[1], o[2], o[3], o[4])] = best;
  }
}

// Backward: one work item per (n, c) plane adds grad_output into grad_input
// (zeroed by the launcher) at the indices, in the CPU's order (so the same
// roundings). An index outside the plane is skipped and reported.
__kernel void fractional_max_backward(__global char* gib, ulong gio, __global char* gob, ulong goo,
                                      __global char* ib_, ulong io_, PoolParams p, __global int* flag,
                                      int check) {
  __global ST* grad_in = PTR(ST, gib, gio);
  __global ST* grad_out = PTR(ST, gob, goo);
  __global long* idx = PTR(long, ib_, io_);
  const long ID = p.in_size[0], IH = p.in_size[1], IW = p.in_size[2];
  const long OD = p.out_size[0], OH = p.out_size[1], OW = p.out_size[2];
  GRID_LOOP(plane, p.N * p.C) {
    const long n = plane / p.C, c = plane % p.C;
    for (long d = 0; d < OD; ++d)
      for (long h = 0; h < OH; ++h)
        for (long w = 0; w < OW; ++w) {
          const long j = idx[offset(p.idx_stride, n, c, d, h, w)];
          if (j < 0 || j >= ID * IH * IW) {
            report_bad_index(flag, check, j, 0, ID * IH * IW);
            continue;
          }
          const long g = offset(p.in_stride, n, c, j / (IH * IW), (j / IW) % IH, j % IW);
          STORE(grad_in, g, (CT)LOAD(grad_in, g) + (CT)LOAD(grad_out, offset(p.out_stride, n, c, d, h, w)));
        }
  }
}
