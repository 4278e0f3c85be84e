// Upsampling (interpolate): nearest, nearest-exact, linear (1-d/2-d/3-d),
// bicubic and the antialiased bilinear / bicubic, forward and backward, with ATen's source-index formulas
// (aten/src/ATen/native/UpSample.h). Every tensor is seen as 5-d
// (N, C, D, H, W) through its strides; the dims before the op's spatial dims
// have size 1 and map identically. Launchers: kernels/upsample_ops.cpp.
//
// Each output position of a dim reads a few "taps" (input index + weight);
// the forward sums the product of the three dims' taps. The backward gathers:
// one work item per grad_input element finds, per dim, the contiguous range
// of outputs whose taps touch it (tap indices are monotone in the output
// index: two binary searches) and sums their weighted grads, in ACC (float for
// half types, double for float64). No atomics; deterministic.
//
// The launcher defines ST, CT, ACC, LOAD, STORE (dtype_preamble) and, for
// float64, RATIO_DOUBLE (the ratios are then doubles, as the CPU's opmath).

typedef struct {
  long N, C;
  long in_size[3], out_size[3];  // D, H, W
  long in_stride[5], out_stride[5];
  long mode;  // 0 nearest, 1 nearest-exact, 2 linear, 3 cubic, 4 / 5 antialiased linear / cubic
  long align_corners, channels_last, dims;
  ulong ratio[3];   // area_pixel_compute_scale<opmath> bits (a float in the low half unless RATIO_DOUBLE)
  float nscale[4];  // compute_scales_value<float> (nearest modes)
} UpParams;

#ifdef RATIO_DOUBLE
typedef double WT;
#define RATIO(p, k) as_double((p)->ratio[k])
#else
typedef float WT;
#define RATIO(p, k) as_float((uint)(p)->ratio[k])
#endif

// The taps of output position o in dim k: input indices (ascending) and
// weights; returns their count.
static inline int taps(const UpParams* p, int k, long o, long* idx, WT* w) {
  const long I = p->in_size[k], O = p->out_size[k];
  if (k < 3 - p->dims || p->mode == 0 && I == O) {
    idx[0] = o; w[0] = 1;
    return 1;
  }
  if (p->mode == 0) {  // nearest_idx
    idx[0] = O == 2 * I ? o >> 1 : min((long)floor((float)o * p->nscale[k]), I - 1);
    w[0] = 1;
    return 1;
  }
  if (p->mode == 1) {  // nearest_exact_idx
    idx[0] = min((long)floor(((float)o + 0.5f) * p->nscale[k]), I - 1);
    w[0] = 1;
    return 1;
  }
  const WT r = RATIO(p, k);
  WT real = p->align_corners ? r * (WT)o : r * ((WT)o + (WT)0.5) - (WT)0.5;
  if (p->mode == 2) {  // compute_source_index_and_lambda
    if (I == O) {
      idx[0] = o; w[0] = 1;
      return 1;
    }
    if (real < (WT)0) real = 0;
    const long i0 = min((long)floor((float)real), I - 1);
    const WT l1 = min(max(real - (WT)i0, (WT)0), (WT)1);
    idx[0] = i0; w[0] = (WT)1 - l1;
    idx[1] = i0 + (i0 < I - 1 ? 1 : 0); w[1] = l1;
    return 2;
  }
  // cubic: 4 taps around floor(real), clamped to the input; A = -0.75
  const long f = (long)floor((float)real);
  const WT t = real - (WT)f, A = (WT)-0.75, x1 = t + (WT)1, x2 = (WT)1 - t, x3 = x2 + (WT)1;
  w[0] = ((A * x1 - (WT)5 * A) * x1 + (WT)8 * A) * x1 - (WT)4 * A;
  w[1] = ((A + (WT)2) * t - (A + (WT)3)) * t * t + (WT)1;
  w[2] = ((A + (WT)2) * x2 - (A + (WT)3)) * x2 * x2 + (WT)1;
  w[3] = ((A * x3 - (WT)5 * A) * x3 + (WT)8 * A) * x3 - (WT)4 * A;
  for (int j = 0; j < 4; ++j) idx[j] = min(max(f - 1 + j, 0L), I - 1);
  return 4;
}

// The taps of every output position of the three dims, computed once per
// call by upsample_taps (rows of dim 0, then dim 1, then dim 2); the forward
// and backward kernels read them instead of recomputing (the antialiased
// modes use only the rows of the identity dim D).
typedef struct {
  long idx[4];
  WT w[4];
  long n;
} TapRow;

__kernel void upsample_taps(__global char* tb, ulong to, UpParams p) {
  __global TapRow* rows = PTR(TapRow, tb, to);
  const long total = p.out_size[0] + p.out_size[1] + p.out_size[2];
  GRID_LOOP(j, total) {
    int k = 0;
    long o = j;
    while (o >= p.out_size[k]) {
      o -= p.out_size[k];
      ++k;
    }
    long idx[4] = {0, 0, 0, 0};
    WT w[4] = {0, 0, 0, 0};
    const int n = taps(&p, k, o, idx, w);
    for (int q = 0; q < 4; ++q) {
      rows[j].idx[q] = idx[q];
      rows[j].w[q] = w[q];
    }
    rows[j].n = n;
  }
}

static inline __global const TapRow* row_of(__global const TapRow* rows, const UpParams* p, int k, long o) {
  return rows + (k > 0 ? p->out_size[0] : 0) + (k > 1 ? p->out_size[1] : 0) + o;
}

// ---- antialiased modes (_upsample_bilinear2d_aa, _upsample_bicubic2d_aa):
// the window of output o is [xmin, xmin + xsize) with filter weights
// normalized by their sum (ATen's _compute_indices_min_size_weights_aa;
// Pillow's filters: triangle, or cubic with a = -0.5).
typedef struct {
  long xmin, xsize;
  WT center, invscale, total;
} AaWin;

static inline WT aa_filter(const UpParams* p, WT x) {
  if (x < (WT)0) x = -x;
  if (p->mode == 4) return x < (WT)1 ? (WT)1 - x : (WT)0;
  const WT a = (WT)-0.5;
  if (x < (WT)1) return ((a + (WT)2) * x - (a + (WT)3)) * x * x + (WT)1;
  if (x < (WT)2) return (((x - (WT)5) * x + (WT)8) * x - (WT)4) * a;
  return 0;
}

static inline bool is_aa(const UpParams* p, int k) { return p->mode >= 4 && k >= 3 - p->dims; }

static inline AaWin aa_window(const UpParams* p, int k, long o) {
  const WT scale = RATIO(p, k), radius = p->mode == 4 ? (WT)1 : (WT)2;
  const WT support = scale >= (WT)1 ? radius * scale : radius;
  const long max_size = (long)ceil(support) * 2 + 1;
  AaWin w;
  w.center = scale * ((WT)o + (WT)0.5);
  w.invscale = scale >= (WT)1 ? (WT)1 / scale : (WT)1;
  w.xmin = max((long)(w.center - support + (WT)0.5), 0L);
  w.xsize = min(max(min((long)(w.center + support + (WT)0.5), p->in_size[k]) - w.xmin, 0L), max_size);
  w.total = 0;
  for (long j = 0; j < w.xsize; ++j) w.total += aa_filter(p, ((WT)(j + w.xmin) - w.center + (WT)0.5) * w.invscale);
  return w;
}

static inline WT aa_weight(const UpParams* p, const AaWin* w, long x) {
  const WT f = aa_filter(p, ((WT)x - w->center + (WT)0.5) * w->invscale);
  return w->total != (WT)0 ? f / w->total : f;
}

// The first output position of dim k in [0, O) whose taps reach past input
// position x (above = 0: its last tap >= x; above = 1: its first tap > x).
static inline long first_output(const UpParams* p, __global const TapRow* rows, int k, long x, int above) {
  long a = 0, b = p->out_size[k];
  while (a < b) {
    const long m = (a + b) / 2;
    long lo, hi;
    if (is_aa(p, k)) {
      const AaWin w = aa_window(p, k, m);
      lo = w.xmin;
      hi = w.xmin + w.xsize - 1;
    } else {
      __global const TapRow* r = row_of(rows, p, k, m);
      lo = r->idx[0];
      hi = r->idx[r->n - 1];
    }
    if (above ? lo > x : hi >= x) b = m;
    else a = m + 1;
  }
  return a;
}

// The weight with which output o of dim k reads input x.
static inline WT weight_of(const UpParams* p, __global const TapRow* rows, int k, long o, long x) {
  if (is_aa(p, k)) {
    const AaWin w = aa_window(p, k, o);
    return x >= w.xmin && x < w.xmin + w.xsize ? aa_weight(p, &w, x) : (WT)0;
  }
  __global const TapRow* r = row_of(rows, p, k, o);
  WT s = 0;
  for (int j = 0; j < r->n; ++j)
    if (r->idx[j] == x) s += r->w[j];
  return s;
}

// Position `i` of an (N, C, D, H, W) space of sizes `s` (kernels/common.cl).
static inline void decompose(const UpParams* p, const long* s, long i, long* pos) {
  ncdhw_position(p->channels_last, p->N, p->C, s, i, pos);
}

__kernel void upsample_forward(__global char* ob, ulong oo, __global char* xb, ulong xo, __global char* tb,
                               ulong to, UpParams p) {
  __global ST* out = PTR(ST, ob, oo);
  __global ST* in = PTR(ST, xb, xo);
  __global const TapRow* rows = PTR(const TapRow, tb, to);
  const long total = p.N * p.C * p.out_size[0] * p.out_size[1] * p.out_size[2];
  GRID_LOOP(i, total) {
    long o[5];
    decompose(&p, p.out_size, i, o);
    if (p.mode >= 4) {  // antialiased (2-d): windows over H and W
      const AaWin ah = aa_window(&p, 1, o[3]), aw = aa_window(&p, 2, o[4]);
      const long base = o[0] * p.in_stride[0] + o[1] * p.in_stride[1];
      ACC sum = 0;
      for (long h = ah.xmin; h < ah.xmin + ah.xsize; ++h) {
        ACC row = 0;
        for (long w = aw.xmin; w < aw.xmin + aw.xsize; ++w)
          row += (ACC)aa_weight(&p, &aw, w) * (ACC)LOAD(in, base + h * p.in_stride[3] + w * p.in_stride[4]);
        sum += (ACC)aa_weight(&p, &ah, h) * row;
      }
      STORE(out, o[0] * p.out_stride[0] + o[1] * p.out_stride[1] + o[3] * p.out_stride[3] + o[4] * p.out_stride[4],
            sum);
      continue;
    }
    __global const TapRow *rd = row_of(rows, &p, 0, o[2]), *rh = row_of(rows, &p, 1, o[3]),
                          *rw = row_of(rows, &p, 2, o[4]);
    const long base = o[0] * p.in_stride[0] + o[1] * p.in_stride[1];
    const long dst = o[0] * p.out_stride[0] + o[1] * p.out_stride[1] + o[2] * p.out_stride[2] +
                     o[3] * p.out_stride[3] + o[4] * p.out_stride[4];
    if (p.mode <= 1) {  // a copy: exact for every dtype
      STORE(out, dst, LOAD(in, base + rd->idx[0] * p.in_stride[2] + rh->idx[0] * p.in_stride[3] +
                                   rw->idx[0] * p.in_stride[4]));
      continue;
    }
    ACC sum = 0;
    for (int a = 0; a < rd->n; ++a)
      for (int b = 0; b < rh->n; ++b) {
        const long off = base + rd->idx[a] * p.in_stride[2] + rh->idx[b] * p.in_stride[3];
        ACC row = 0;
        for (int c = 0; c < rw->n; ++c) row += (ACC)rw->w[c] * (ACC)LOAD(in, off + rw->idx[c] * p.in_stride[4]);
        sum += (ACC)rd->w[a] * (ACC)rh->w[b] * row;
      }
    STORE(out, dst, sum);
  }
}

// The nearest modes: a copy per output element (a kernel of its own: no
// weight loops, which PoCL vectorizes far better).
__kernel void upsample_nearest_forward(__global char* ob, ulong oo, __global char* xb, ulong xo, __global char* tb,
                                       ulong to, UpParams p) {
  __global ST* out = PTR(ST, ob, oo);
  __global ST* in = PTR(ST, xb, xo);
  __global const TapRow* rows = PTR(const TapRow, tb, to);
  const long total = p.N * p.C * p.out_size[0] * p.out_size[1] * p.out_size[2];
  GRID_LOOP(i, total) {
    long o[5];
    decompose(&p, p.out_size, i, o);
    const long src = o[0] * p.in_stride[0] + o[1] * p.in_stride[1] + row_of(rows, &p, 0, o[2])->idx[0] * p.in_stride[2] +
                     row_of(rows, &p, 1, o[3])->idx[0] * p.in_stride[3] + row_of(rows, &p, 2, o[4])->idx[0] * p.in_stride[4];
    STORE(out, o[0] * p.out_stride[0] + o[1] * p.out_stride[1] + o[2] * p.out_stride[2] + o[3] * p.out_stride[3] +
                   o[4] * p.out_stride[4], LOAD(in, src));
  }
}

// grad_input (in_size) from grad_output (out_size).
__kernel void upsample_backward(__global char* gib, ulong gio, __global char* gob, ulong goo, __global char* tb,
                                ulong to, UpParams p) {
  __global ST* gin = PTR(ST, gib, gio);
  __global ST* gout = PTR(ST, gob, goo);
  __global const TapRow* rows = PTR(const TapRow, tb, to);
  const long total = p.N * p.C * p.in_size[0] * p.in_size[1] * p.in_size[2];
  GRID_LOOP(i, total) {
    long x[5], lo[3], hi[3];
    decompose(&p, p.in_size, i, x);
    for (int k = 0; k < 3; ++k) {
      lo[k] = first_output(&p, rows, k, x[2 + k], 0);
      hi[k] = first_output(&p, rows, k, x[2 + k], 1);
    }
    const long base = x[0] * p.out_stride[0] + x[1] * p.out_stride[1];
    ACC sum = 0;
    for (long d = lo[0]; d < hi[0]; ++d) {
      const ACC wd = weight_of(&p, rows, 0, d, x[2]);
      for (long h = lo[1]; h < hi[1]; ++h) {
        const ACC wh = wd * (ACC)weight_of(&p, rows, 1, h, x[3]);
        ACC row = 0;
        for (long w = lo[2]; w < hi[2]; ++w)
          row += (ACC)weight_of(&p, rows, 2, w, x[4]) *
                 (ACC)LOAD(gout, base + d * p.out_stride[2] + h * p.out_stride[3] + w * p.out_stride[4]);
        sum += wh * row;
      }
    }
    STORE(gin, x[0] * p.in_stride[0] + x[1] * p.in_stride[1] + x[2] * p.in_stride[2] + x[3] * p.in_stride[3] +
                   x[4] * p.in_stride[4], sum);
  }
}
