// Helper functions in kernels/*.cl are `static inline`: PoCL builds with
// -Dinline=, which makes a plain `inline` helper an external definition that is
// compiled into every program including its file (tests/python/test_kernel_sources.py).

// Shared by every kernel family. The dtype macros (ST storage type, CT compute
// type, LOAD, STORE, IS_FLOAT, ...) are prepended by the launcher, see
// backend/kernel_launch.cpp: dtype_preamble().

#define MAX_DIMS 25
#define MAX_OPERANDS 3

// A TensorIterator-shaped index space: dim 0 is the fastest-moving one.
// ndim < 0 means every operand is contiguous. Strides are in elements.
typedef struct {
  long ndim;
  long sizes[MAX_DIMS];
  long strides[MAX_OPERANDS][MAX_DIMS];
} Indexer;

static inline void indexer_offsets(const Indexer* ix, long linear, long* off) {
  if (ix->ndim < 0) {
    for (int k = 0; k < MAX_OPERANDS; ++k) off[k] = linear;
    return;
  }
  for (int k = 0; k < MAX_OPERANDS; ++k) off[k] = 0;
  for (int d = 0; d < ix->ndim; ++d) {
    long size = ix->sizes[d];
    long idx = linear % size;
    linear /= size;
    for (int k = 0; k < MAX_OPERANDS; ++k) off[k] += idx * ix->strides[k][d];
  }
}

static inline float bf16_to_float(ushort x) { return as_float(((uint)x) << 16); }
static inline ushort float_to_bf16(float f) {
  uint u = as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)0x7fc0;  // NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
  return (ushort)(u >> 16);
}

#define PTR(type, base, off) ((__global type*)((base) + (off)))
#define GRID_LOOP(i, n) for (long i = get_global_id(0); i < (n); i += get_global_size(0))

// Position `i` of an (N, C, D, H, W) space with spatial sizes s[0..2], W
// fastest (C fastest with channels_last): pos = {n, c, d, h, w}. 32-bit
// division when the space fits (measurably faster on CPU devices).
static inline void ncdhw_position(int channels_last, long N, long C, const long* s, long i, long* pos) {
  if (N * C * s[0] * s[1] * s[2] <= 0xffffffffL) {
    uint j = (uint)i;
    const uint c = (uint)C, D = (uint)s[0], H = (uint)s[1], W = (uint)s[2];
    if (channels_last) {
      pos[1] = j % c; j /= c;
      pos[4] = j % W; j /= W;
      pos[3] = j % H; j /= H;
      pos[2] = j % D; j /= D;
    } else {
      pos[4] = j % W; j /= W;
      pos[3] = j % H; j /= H;
      pos[2] = j % D; j /= D;
      pos[1] = j % c; j /= c;
    }
    pos[0] = j;
    return;
  }
  if (channels_last) {
    pos[1] = i % C; i /= C;
    pos[4] = i % s[2]; i /= s[2];
    pos[3] = i % s[1]; i /= s[1];
    pos[2] = i % s[0]; i /= s[0];
  } else {
    pos[4] = i % s[2]; i /= s[2];
    pos[3] = i % s[1]; i /= s[1];
    pos[2] = i % s[0]; i /= s[0];
    pos[1] = i % C; i /= C;
  }
  pos[0] = i;
}

// erf / erfc of float arguments (float, and half / bfloat16 computed in
// float): PoCL's builtins are scalar library calls, ~40x slower than its exp
// (erf of 4M floats 59 ms, exp 1.5 ms), which made F.gelu 50x slower than the
// CPU's. These evaluate least-squares Chebyshev fits (fit error below 5e-9
// relative) as straight-line code the compiler vectorizes: erf(x) / x as a
// polynomial in x^2 for |x| < 1; log(erfc(x)) + x^2 as a polynomial in
// x - 2.25 on [0.5, 4] and log(erfc(x)) + x^2 + log(x) as one in 1 / x^2 on
// [4, 10.1] (erfc underflows beyond), with exp(-x^2) taken in two factors
// so x^2 is exact. Measured against double erf / erfc over 2M points:
// within 3 ulp (erf) and 6 ulp (erfc, 6e-7 relative). double keeps the
// builtins. Here in common.cl so Inductor's generated kernels use them too.
static inline float ocl_erf_p_near(float v) {
  float p = 7.93349463e-05f;
  p = p * v + -0.000803484698f;
  p = p * v + 0.00519121857f;
  p = p * v + -0.0268553998f;
  p = p * v + 0.112836257f;
  p = p * v + -0.376126289f;
  p = p * v + 1.12837923f;
  return p;
}

static inline float ocl_erfc_p_mid(float v) {
  float p = 4.23706012e-08f;
  p = p * v + -1.40358793e-07f;
  p = p * v + -1.3167498e-07f;
  p = p * v + 2.33080232e-06f;
  p = p * v + -1.64955891e-05f;
  p = p * v + 0.000102181169f;
  p = p * v + -0.000554936822f;
  p = p * v + 0.00277166767f;
  p = p * v + -0.0133125121f;
  p = p * v + 0.0651323423f;
  p = p * v + -0.382913828f;
  p = p * v + -1.46495986f;
  return p;
}

static inline float ocl_erfc_p_far(float v) {
  float p = -9.58949184f;
  p = p * v + 4.47819376f;
  p = p * v + -1.50337064f;
  p = p * v + 0.624224722f;
  p = p * v + -0.499992132f;
  p = p * v + -0.572364986f;
  return p;
}
// exp(g - a^2) with a^2 = hi^2 + lo (a + hi) split so hi^2 is exact.
static inline __attribute__((always_inline)) float ocl_exp_minus_square(float a, float g) {
  const float hi = as_float(as_uint(a) & 0xfffff000u);
  return exp(-hi * hi) * exp(g - (a - hi) * (a + hi));
}
// always_inline: PoCL compiles with -Dinline=, and a static helper this size
// was called, not inlined, per element (no vectorization: 5x slower). NaN
// falls through every comparison to `a` itself.
static inline __attribute__((always_inline)) float ocl_erfc_f32(float x) {
  const float a = fabs(x);
  const float small = 1.0f - a * ocl_erf_p_near(a * a);
  const float mid = ocl_exp_minus_square(a, ocl_erfc_p_mid(a - 2.25f));
  const float far = ocl_exp_minus_square(a, ocl_erfc_p_far(1.0f / (a * a))) / a;
  const float r = a < 0.5f ? small : a < 4.0f ? mid : a < 10.1f ? far : a >= 10.1f ? 0.0f : a;
  return x < 0.0f ? 2.0f - r : r;
}
static inline __attribute__((always_inline)) float ocl_erf_f32(float x) {
  const float a = fabs(x);
  const float near = a * ocl_erf_p_near(a * a);
  const float mid = 1.0f - ocl_exp_minus_square(a, ocl_erfc_p_mid(a - 2.25f));
  const float r = a < 1.0f ? near : a < 4.0f ? mid : a >= 4.0f ? 1.0f : a;
  return copysign(r, x);
}

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC'11; the counter-based generator curand uses): 4 x 32 random bits of
// counter c under key k. kernels/random.cl's distributions and Inductor's
// generated rand / randn / randint64 (torch_ocl/_inductor.py) draw from it.
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

static inline uint4 philox4x32_10(uint4 c, uint2 k) {
  for (int r = 0; r < 10; ++r) {
    const ulong p0 = (ulong)PHILOX_M0 * c.x, p1 = (ulong)PHILOX_M1 * c.z;
    c = (uint4)((uint)(p1 >> 32) ^ c.y ^ k.x, (uint)p1, (uint)(p0 >> 32) ^ c.w ^ k.y, (uint)p0);
    k += (uint2)(PHILOX_W0, PHILOX_W1);
  }
  return c;
}
