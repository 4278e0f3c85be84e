// Reflection and replication padding (1-d/2-d/3-d), forward and backward,
// negative padding included. Every tensor is seen as 5-d (N, C, D, H, W)
// through its strides (unused leading spatial dims have size 1 and pad 0).
// Launchers: kernels/pad_ops.cpp.
//
// Forward: one work item per output element copies its source element.
// Backward gathers: one work item per grad_input element sums the few output
// positions that read it (per dim at most three for reflection, a run at the
// edges for replication). No atomics; deterministic; ACC accumulation.

typedef struct {
  long N, C;
  long in_size[3], out_size[3];  // D, H, W
  long in_stride[5], out_stride[5];
  long pad[3];  // left / top / front padding of D, H, W (may be negative)
  long reflect, channels_last;
} PadParams;

// The input position output position o of dim k copies.
static inline long source(const PadParams* p, int k, long o) {
  const long I = p->in_size[k];
  long x = o - p->pad[k];
  if (p->reflect) {
    if (x < 0) x = -x;
    else if (x >= I) x = 2 * (I - 1) - x;
    return x;
  }
  return min(max(x, 0L), I - 1);
}

// The output positions of dim k that copy input position x: up to three
// runs [lo[r], hi[r]); returns their count.
static inline int targets(const PadParams* p, int k, long x, long* lo, long* hi) {
  const long I = p->in_size[k], O = p->out_size[k], pl = p->pad[k];
  int n = 0;
  if (p->reflect) {
    const long c[3] = {x + pl, pl - x, 2 * (I - 1) - x + pl};
    for (int j = 0; j < 3; ++j) {
      bool dup = false;
      for (int q = 0; q < j; ++q) dup = dup || c[q] == c[j];
      if (!dup && c[j] >= 0 && c[j] < O && source(p, k, c[j]) == x) {
        lo[n] = c[j];
        hi[n] = c[j] + 1;
        ++n;
      }
    }
    return n;
  }
  lo[0] = max(x == 0 ? 0L : x + pl, 0L);
  hi[0] = min(x == I - 1 ? O : x + pl + 1, O);
  return lo[0] < hi[0] ? 1 : 0;
}

static inline void decompose(const PadParams* p, const long* s, long i, long* pos) {
  ncdhw_position(p->channels_last, p->N, p->C, s, i, pos);
}

__kernel void pad_forward(__global char* ob, ulong oo, __global char* xb, ulong xo, PadParams p) {
  __global ST* out = PTR(ST, ob, oo);
  __global ST* in = PTR(ST, xb, xo);
  const long total = p.N * p.C * p.out_size[0] * p.out_size[1] * p.out_size[2];
  GRID_LOOP(i, total) {
    long o[5];
    decompose(&p, p.out_size, i, o);
    const long src = o[0] * p.in_stride[0] + o[1] * p.in_stride[1] + source(&p, 0, o[2]) * p.in_stride[2] +
                     source(&p, 1, o[3]) * p.in_stride[3] + source(&p, 2, o[4]) * p.in_stride[4];
    STORE(out, o[0] * p.out_stride[0] + o[1] * p.out_stride[1] + o[2] * p.out_stride[2] +
                   o[3] * p.out_stride[3] + o[4] * p.out_stride[4], LOAD(in, src));
  }
}

// grad_input (in_size) from grad_output (out_size).
__kernel void pad_backward(__global char* gib, ulong gio, __global char* gob, ulong goo, PadParams p) {
  __global ST* gin = PTR(ST, gib, gio);
  __global ST* gout = PTR(ST, gob, goo);
  const long total = p.N * p.C * p.in_size[0] * p.in_size[1] * p.in_size[2];
  GRID_LOOP(i, total) {
    long x[5], lo[3][3], hi[3][3];
    int n[3];
    decompose(&p, p.in_size, i, x);
    for (int k = 0; k < 3; ++k) n[k] = targets(&p, k, x[2 + k], lo[k], hi[k]);
    const long base = x[0] * p.out_stride[0] + x[1] * p.out_stride[1];
    ACC sum = 0;
    for (int a = 0; a < n[0]; ++a)
      for (long d = lo[0][a]; d < hi[0][a]; ++d)
        for (int b = 0; b < n[1]; ++b)
          for (long h = lo[1][b]; h < hi[1][b]; ++h)
            for (int c = 0; c < n[2]; ++c)
              for (long w = lo[2][c]; w < hi[2][c]; ++w)
                sum += (ACC)LOAD(gout, base + d * p.out_stride[2] + h * p.out_stride[3] + w * p.out_stride[4]);
    STORE(gin, x[0] * p.in_stride[0] + x[1] * p.in_stride[1] + x[2] * p.in_stride[2] + x[3] * p.in_stride[3] +
                   x[4] * p.in_stride[4], sum);
  }
}
