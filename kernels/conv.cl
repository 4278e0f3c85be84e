// im2col / col2im for convolutions built on GEMM (kernels/conv_ops.cpp).
//
// An "image" is [n, C, D, H, W] at any element strides (1-d and 2-d
// convolutions have leading spatial sizes of 1); its columns are a contiguous
// [n, C * KD * KH * KW, OD * OH * OW] tensor: row (c, kd, kh, kw), column
// (od, oh, ow) holds image[c, od * stride - pad + kd * dil, ...], or 0 where
// that position lies in the padding.

// Mirrors ConvGeom in kernels/conv_ops.cpp (all fields 64-bit: no padding).
typedef struct {
  long channels;
  long in[3];       // image spatial sizes
  long out[3];      // column positions (the convolution's output sizes)
  long ksize[3];     // kernel sizes
  long stride[3];
  long pad[3];
  long dil[3];
  long img_stride[5];  // image element strides: n, c, d, h, w
} ConvGeom;

// One work item per (image, channel, column position): it writes that
// position's K rows (consecutive items write consecutive columns).
__kernel void im2col(__global char* ib, ulong io, __global char* cb, ulong co, ConvGeom g, long n) {
  __global const ST* img = PTR(ST, ib, io);
  __global ST* col = PTR(ST, cb, co);
  const long L = g.out[0] * g.out[1] * g.out[2];
  const long K = g.ksize[0] * g.ksize[1] * g.ksize[2];
  const long total = n * g.channels * L;
  GRID_LOOP(i, total) {
    long t = i;
    const long ow = t % g.out[2]; t /= g.out[2];
    const long oh = t % g.out[1]; t /= g.out[1];
    const long od = t % g.out[0]; t /= g.out[0];
    const long c = t % g.channels;
    const long b = t / g.channels;
    __global const ST* src = img + b * g.img_stride[0] + c * g.img_stride[1];
    __global ST* dst = col + (b * g.channels + c) * K * L + (i % L);
    const long d0 = od * g.stride[0] - g.pad[0], h0 = oh * g.stride[1] - g.pad[1], w0 = ow * g.stride[2] - g.pad[2];
    for (long kd = 0; kd < g.ksize[0]; ++kd) {
      const long id = d0 + kd * g.dil[0];
      const bool din = id >= 0 && id < g.in[0];
      for (long kh = 0; kh < g.ksize[1]; ++kh) {
        const long ih = h0 + kh * g.dil[1];
        const bool hin = din && ih >= 0 && ih < g.in[1];
        for (long kw = 0; kw < g.ksize[2]; ++kw, dst += L) {
          const long iw = w0 + kw * g.dil[2];
          CT v = (CT)0;
          if (hin && iw >= 0 && iw < g.in[2])
            v = LOAD(src, id * g.img_stride[2] + ih * g.img_stride[3] + iw * g.img_stride[4]);
          STORE(dst, 0, v);
        }
      }
    }
  }
}

// The column position o (< n) that reads image position t = i + pad - k * dil
// at stride s, if any.
static inline bool column_of(long t, long s, long n, long* o) {
  if (t < 0) return false;
  if (s == 1) {
    *o = t;
    return t < n;
  }
  *o = t / s;
  return *o * s == t && *o < n;
}

// The adjoint of im2col: one work item per image element, summing every
// column entry that im2col would have read from it (a gather: no atomics,
// deterministic), plus bias[c] when has_bias. Writes (not accumulates) the image.
__kernel void col2im(__global char* cb, ulong co, __global char* ib, ulong io, __global char* bb,
                     ulong bo, ConvGeom g, long n, long has_bias) {
  __global const ST* col = PTR(ST, cb, co);
  __global ST* img = PTR(ST, ib, io);
  __global const ST* bias = PTR(ST, bb, bo);
  const long L = g.out[0] * g.out[1] * g.out[2];
  const long K = g.ksize[0] * g.ksize[1] * g.ksize[2];
  const long total = n * g.channels * g.in[0] * g.in[1] * g.in[2];
  GRID_LOOP(i, total) {
    long t = i;
    const long iw = t % g.in[2]; t /= g.in[2];
    const long ih = t % g.in[1]; t /= g.in[1];
    const long id = t % g.in[0]; t /= g.in[0];
    const long c = t % g.channels;
    const long b = t / g.channels;
    __global const ST* rows = col + (b * g.channels + c) * K * L;
    CT acc = has_bias ? (CT)LOAD(bias, c) : (CT)0;
    for (long kd = 0; kd < g.ksize[0]; ++kd) {
      long od, oh, ow;
      if (!column_of(id + g.pad[0] - kd * g.dil[0], g.stride[0], g.out[0], &od)) continue;
      for (long kh = 0; kh < g.ksize[1]; ++kh) {
        if (!column_of(ih + g.pad[1] - kh * g.dil[1], g.stride[1], g.out[1], &oh)) continue;
        for (long kw = 0; kw < g.ksize[2]; ++kw) {
          if (!column_of(iw + g.pad[2] - kw * g.dil[2], g.stride[2], g.out[2], &ow)) continue;
          const long r = (kd * g.ksize[1] + kh) * g.ksize[2] + kw;
          acc += (CT)LOAD(rows, r * L + (od * g.out[1] + oh) * g.out[2] + ow);
        }
      }
    }
    STORE(img, b * g.img_stride[0] + c * g.img_stride[1] + id * g.img_stride[2] +
                   ih * g.img_stride[3] + iw * g.img_stride[4], acc);
  }
}
