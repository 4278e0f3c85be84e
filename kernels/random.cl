// Random numbers on the device: Philox4x32-10 (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC'11), the counter-based generator curand
// uses. Launchers: kernels/random_ops.cpp; state: backend/generator.h.
//
// A launch gets the generator's (seed, offset). With n elements in the
// TensorIterator's linear order and G = ceil(n / VPB) element-threads,
// element-thread g owns the elements g, g + G, g + 2G, ... (VPB of them, as
// CUDA's distribution kernels: neighbouring threads write neighbouring
// elements) and uses the single block philox(counter = (offset, g),
// key = seed): 4 x 32 random bits. So every op advances the offset by 1 and
// the result does not depend on the launch configuration.
//
// Preamble (from the launcher): the output dtype's ST/LOAD/STORE, FT (the
// type the distribution is computed in: double for float64, else float),
// FT_DOUBLE, RND_HALF / RND_BF16; with BERNOULLI_TENSOR the p dtype's SRC_*.

// philox4x32_10: kernels/common.cl (Inductor's generated random numbers use it too).

static inline uint4 rng_block(ulong seed, ulong offset, long g) {
  return philox4x32_10((uint4)((uint)offset, (uint)(offset >> 32), (uint)g, (uint)((ulong)g >> 32)),
                       (uint2)((uint)seed, (uint)(seed >> 32)));
}

// Eight consecutive element-threads g0 .. g0 + 7 at once, in vector
// registers (the same bits as rng_block(seed, offset, g0 + j) in lane j): a
// CPU device runs work items one after another, so SIMD has to come from
// the vector types.
typedef struct { uint8 x, y, z, w; } Philox8;
static inline Philox8 rng_block8(ulong seed, ulong offset, long g0) {
  const long8 g = (long8)(g0) + (long8)(0, 1, 2, 3, 4, 5, 6, 7);
  uint8 cx = (uint8)((uint)offset), cy = (uint8)((uint)(offset >> 32));
  uint8 cz = convert_uint8(g), cw = convert_uint8(as_ulong8(g) >> 32);
  uint kx = (uint)seed, ky = (uint)(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    const ulong8 p0 = convert_ulong8(cx) * (ulong)PHILOX_M0, p1 = convert_ulong8(cz) * (ulong)PHILOX_M1;
    const uint8 nx = convert_uint8(p1 >> 32) ^ cy ^ kx, nz = convert_uint8(p0 >> 32) ^ cw ^ ky;
    cy = convert_uint8(p1);
    cw = convert_uint8(p0);
    cx = nx;
    cz = nz;
    kx += PHILOX_W0;
    ky += PHILOX_W1;
  }
  Philox8 out = {cx, cy, cz, cw};
  return out;
}
static inline uint4 lane4(const Philox8* p, int j) {
  const uint* x = (const uint*)&p->x; const uint* y = (const uint*)&p->y;
  const uint* z = (const uint*)&p->z; const uint* w = (const uint*)&p->w;
  return (uint4)(x[j], y[j], z[j], w[j]);
}

// Element-thread loop (grid-stride over blocks of eight element-threads,
// computed together by rng_block8) over G = ceil(n / vpb) element-threads:
// in the body, g is the element-thread and r its Philox block (uint4).
// Launchers run ceil(n / (vpb * 8)) work items. ELEM(g, k) is the k-th
// element of thread g.
#define FOR_BLOCKS(g, r, n, vpb)                                                        \
  const long G = ((n) + (vpb) - 1) / (vpb);                                             \
  for (long g0_ = get_global_id(0) * 8; g0_ < G; g0_ += get_global_size(0) * 8) {        \
    const Philox8 r8_ = rng_block8(seed, offset, g0_);                                  \
    for (int j_ = 0; j_ < 8 && g0_ + j_ < G; ++j_) {                                    \
      const long g = g0_ + j_;                                                          \
      const uint4 r = lane4(&r8_, j_);
#define END_BLOCKS \
  }                \
  }
#define ELEM(g, k) ((g) + (long)(k) * G)

// Uniforms in [0, 1) as the CPU's uniform_real_distribution: 24 random bits
// for float, 53 for double.
static inline float u24(uint x) { return (float)(x >> 8) * 0x1p-24f; }
#ifdef FT_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define VPB 2
static inline double u53(uint lo, uint hi) { return (double)((((ulong)hi << 32) | lo) >> 11) * 0x1p-53; }
static inline void uniforms(uint4 r, FT* u) { u[0] = u53(r.x, r.y); u[1] = u53(r.z, r.w); }
#define FT_PI M_PI
#define FT_EPS DBL_EPSILON
#else
#define VPB 4
static inline void uniforms(uint4 r, FT* u) { u[0] = u24(r.x); u[1] = u24(r.y); u[2] = u24(r.z); u[3] = u24(r.w); }
#define FT_PI M_PI_F
#define FT_EPS FLT_EPSILON
#endif

// `v` rounded to the output's storage precision (for uniform_'s upper bound).
static inline FT round_to_storage(FT v) {
#if defined(RND_HALF)
  ushort h;  // (no half variables without cl_khr_fp16; half pointers are fine)
  vstore_half(v, 0, (__private half*)&h);
  return vload_half(0, (__private half*)&h);
#elif defined(RND_BF16)
  return bf16_to_float(float_to_bf16(v));
#else
  return v;
#endif
}

static inline void put(const Indexer* ix, __global ST* o, long n, long i, FT v) {
  if (i < n) {
    if (ix->ndim < 0) {
      STORE(o, i, v);
    } else {
      long off[MAX_OPERANDS];
      indexer_offsets(ix, i, off);
      STORE(o, off[0], v);
    }
  }
}

#ifndef BERNOULLI_TENSOR

// One kernel per continuous distribution: VPB uniforms per block, mapped by
// EXPR(u) (u: the uniform; a, b: the parameters).
#define CONTINUOUS_KERNEL(name, EXPR)                                                      \
  __kernel void name(Indexer ix, long n, __global char* ob, ulong oo, ulong seed,        \
                     ulong offset, FT a, FT b) {                                         \
    __global ST* o = PTR(ST, ob, oo);                                                    \
    FOR_BLOCKS(g, r, n, VPB)                                                             \
      FT us[VPB];                                                                        \
      uniforms(r, us);                                                                   \
      for (int k = 0; k < VPB; ++k) {                                                    \
        const FT u = us[k];                                                              \
        put(&ix, o, n, ELEM(g, k), EXPR);                                               \
      }                                                                                  \
    END_BLOCKS                                                                           \
  }

// uniform_(from = a, to = b): a value that rounds to `to` becomes `from`, as the CPU.
static inline FT uniform_value(FT u, FT a, FT b) {
  const FT v = round_to_storage(u * (b - a) + a);
  return v == round_to_storage(b) ? round_to_storage(a) : v;
}
CONTINUOUS_KERNEL(rng_uniform, uniform_value(u, a, b))
// exponential_(lambda = a)
CONTINUOUS_KERNEL(rng_exponential, (FT)(-1) / a * log1p(-u))
// geometric_(log1p(-p) = a): ceil(log(v) / log1p(-p)) with v = 1 - u in (0, 1], at least 1
CONTINUOUS_KERNEL(rng_geometric, fmax((FT)1, ceil(log((FT)1 - u) / a)))
// cauchy_(median = a, sigma = b); float clips u away from 0 and 1 as ATen
static inline FT cauchy_value(FT u, FT a, FT b) {
#ifndef FT_DOUBLE
  u = clamp(u, FT_EPS, (FT)1 - FT_EPS);
#endif
  return a + b * tan(FT_PI * (u - (FT)0.5));
}
CONTINUOUS_KERNEL(rng_cauchy, cauchy_value(u, a, b))

// normal_(mean = a, std = b) and log_normal_ (exp of it): Box-Muller on
// pairs of uniforms.
// The VPB uniforms of eight element-threads as vectors (lane j = thread g0 + j).
#ifdef FT_DOUBLE
typedef double8 FT8;
static inline FT8 u53_8(uint8 lo, uint8 hi) {
  return convert_double8(((convert_ulong8(hi) << 32) | convert_ulong8(lo)) >> 11) * 0x1p-53;
}
static inline void uniforms8(const Philox8* r, FT8* u) { u[0] = u53_8(r->x, r->y); u[1] = u53_8(r->z, r->w); }
#else
typedef float8 FT8;
static inline FT8 u24_8(uint8 x) { return convert_float8(x >> 8) * 0x1p-24f; }
static inline void uniforms8(const Philox8* r, FT8* u) {
  u[0] = u24_8(r->x); u[1] = u24_8(r->y); u[2] = u24_8(r->z); u[3] = u24_8(r->w);
}
#endif
// Box-Muller on the vectors (vector log / sqrt / sincos).
#define NORMAL_KERNEL(name, EXPR)                                                          \
  __kernel void name(Indexer ix, long n, __global char* ob, ulong oo, ulong seed,        \
                     ulong offset, FT a, FT b) {                                         \
    __global ST* o = PTR(ST, ob, oo);                                                    \
    const long G = (n + VPB - 1) / VPB;                                                  \
    for (long g0 = get_global_id(0) * 8; g0 < G; g0 += get_global_size(0) * 8) {          \
      const Philox8 r8 = rng_block8(seed, offset, g0);                                   \
      FT8 us[VPB], zs[VPB];                                                              \
      uniforms8(&r8, us);                                                                \
      for (int k = 0; k < VPB; k += 2) {                                                 \
        const FT8 radius = sqrt((FT8)(-2) * log((FT8)(1) - us[k]));                      \
        FT8 c;                                                                           \
        const FT8 s = sincos((FT8)(2 * FT_PI) * us[k + 1], &c);                          \
        zs[k] = radius * c;                                                              \
        zs[k + 1] = radius * s;                                                          \
      }                                                                                  \
      for (int j = 0; j < 8; ++j) {                                                      \
        const long g = g0 + j;                                                           \
        if (g >= G) break;                                                               \
        for (int k = 0; k < VPB; ++k) {                                                  \
          const FT z = ((const FT*)&zs[k])[j] * b + a;                                   \
          put(&ix, o, n, ELEM(g, k), EXPR);                                             \
        }                                                                                \
      }                                                                                  \
    }                                                                                    \
  }
NORMAL_KERNEL(rng_normal, z)
NORMAL_KERNEL(rng_log_normal, exp(z))

// random_: (bits % range) + base, from 32 random bits when range < 2^28
// (4 values per block) else from 64 (2 per block); range 0 = all 64 bits.
__kernel void rng_random(Indexer ix, long n, __global char* ob, ulong oo, ulong seed,
                         ulong offset, ulong range, long base, int wide) {
  __global ST* o = PTR(ST, ob, oo);
  const int vpb = wide ? 2 : 4;
  FOR_BLOCKS(g, r, n, vpb)
    ulong bits[4];
    if (wide) {
      bits[0] = ((ulong)r.y << 32) | r.x;
      bits[1] = ((ulong)r.w << 32) | r.z;
    } else {
      bits[0] = r.x; bits[1] = r.y; bits[2] = r.z; bits[3] = r.w;
    }
    for (int k = 0; k < vpb; ++k) {
      const long i = ELEM(g, k);
      if (i < n) {
        const long v = (long)((range == 0 ? bits[k] : bits[k] % range) + (ulong)base);
        long off[MAX_OPERANDS];
        indexer_offsets(&ix, i, off);
        STORE(o, off[0], v);
      }
    }
  END_BLOCKS
}

// bernoulli_(p): 1 where 32 random bits < threshold = p * 2^32.
__kernel void rng_bernoulli_scalar(Indexer ix, long n, __global char* ob, ulong oo, ulong seed,
                                   ulong offset, ulong threshold) {
  __global ST* o = PTR(ST, ob, oo);
  FOR_BLOCKS(g, r, n, 4)
    const uint bits[4] = {r.x, r.y, r.z, r.w};
    for (int k = 0; k < 4; ++k) {
      const long i = ELEM(g, k);
      if (i < n) {
        long off[MAX_OPERANDS];
        indexer_offsets(&ix, i, off);
        STORE(o, off[0], (int)((ulong)bits[k] < threshold));
      }
    }
  END_BLOCKS
}

// native_dropout: mask = bits < threshold (keep probability 1 - p);
// out = in * mask * scale. Operands: 0 out, 1 mask (bool), 2 in.
__kernel void rng_dropout(Indexer ix, long n, __global char* ob, ulong oo, __global char* mb,
                          ulong mo, __global char* ib, ulong io, ulong seed, ulong offset,
                          ulong threshold, FT scale) {
  __global ST* out = PTR(ST, ob, oo);
  __global uchar* mask = PTR(uchar, mb, mo);
  __global ST* in = PTR(ST, ib, io);
  FOR_BLOCKS(g, r, n, 4)
    const uint bits[4] = {r.x, r.y, r.z, r.w};
    for (int k = 0; k < 4; ++k) {
      const long i = ELEM(g, k);
      if (i < n) {
        long off[MAX_OPERANDS];
        indexer_offsets(&ix, i, off);
        const uchar keep = (ulong)bits[k] < threshold;
        mask[off[1]] = keep;
        STORE(out, off[0], (FT)LOAD(in, off[2]) * (FT)keep * scale);
      }
    }
  END_BLOCKS
}

// rrelu_with_noise (training): for x <= 0, noise = lower + u * (upper - lower)
// (u uniform in [0, 1)) and out = x * noise; else noise = 1 and out = x.
// Operands: 0 out, 1 noise, 2 in.
__kernel void rng_rrelu(Indexer ix, long n, __global char* ob, ulong oo, __global char* nb, ulong no,
                        __global char* ib, ulong io, ulong seed, ulong offset, FT lower, FT range) {
  __global ST* out = PTR(ST, ob, oo);
  __global ST* noise = PTR(ST, nb, no);
  __global ST* in = PTR(ST, ib, io);
  FOR_BLOCKS(g, r, n, VPB)
    FT us[VPB];
    uniforms(r, us);
    for (int k = 0; k < VPB; ++k) {
      const long i = ELEM(g, k);
      if (i < n) {
        long off[MAX_OPERANDS];
        indexer_offsets(&ix, i, off);
        const FT x = LOAD(in, off[2]);
        const FT slope = x <= (FT)0 ? lower + us[k] * range : (FT)1;
        STORE(noise, off[1], slope);
        STORE(out, off[0], x <= (FT)0 ? x * slope : x);
      }
    }
  END_BLOCKS
}

// randperm(n): out[i] = a keyed pseudo-random permutation of [0, 2^(2h))
// (a balanced Feistel network, Philox as round function) applied to i,
// cycle-walked until it lands in [0, n): a bijection on [0, n), no sort.
__kernel void rng_randperm(long n, __global char* ob, ulong oo, ulong seed, ulong offset, int h) {
  __global ST* o = PTR(ST, ob, oo);
  const ulong half_mask = (h >= 64 ? ~0ul : ((1ul << h) - 1));
  GRID_LOOP(i, n) {
    ulong x = (ulong)i;
    do {
      ulong left = x >> h, right = x & half_mask;
      for (int round = 0; round < 8; ++round) {
        const uint4 f = philox4x32_10((uint4)((uint)right, (uint)(right >> 32), (uint)round, (uint)offset),
                                      (uint2)((uint)seed, (uint)(seed >> 32) ^ (uint)(offset >> 32)));
        const ulong next = (left ^ (((ulong)f.y << 32) | f.x)) & half_mask;
        left = right;
        right = next;
      }
      x = (left << h) | right;
    } while (x >= (ulong)n);
    STORE(o, i, (long)x);
  }
}

// multinomial with replacement: out[r * ns + s] = the first category k of
// row r with cum[k] >= v * cum[last], v uniform in (0, 1] (so categories of
// probability 0 are never drawn). cum: the rows' inclusive prefix sums
// (type FT, contiguous, ncat per row); out: contiguous int64.
__kernel void rng_multinomial(long n, __global char* cb, ulong co, long ncat, long ns, __global char* ob,
                              ulong oo, ulong seed, ulong offset) {
  __global const FT* cum = PTR(FT, cb, co);
  __global long* out = PTR(long, ob, oo);
  FOR_BLOCKS(g, r, n, VPB)
    FT us[VPB];
    uniforms(r, us);
    for (int k = 0; k < VPB; ++k) {
      const long i = ELEM(g, k);
      if (i >= n) break;
      __global const FT* row = cum + (i / ns) * ncat;
      const FT target = ((FT)1 - us[k]) * row[ncat - 1];
      long lo = 0, hi = ncat;
      while (lo < hi) {
        const long mid = lo + ((hi - lo) >> 1);
        if (row[mid] < target) lo = mid + 1;
        else hi = mid;
      }
      if (lo >= ncat) lo = ncat - 1;                     // rounding: the last category...
      while (lo > 0 && row[lo] == row[lo - 1]) --lo;      // ...with a nonzero probability
      out[i] = lo;
    }
  END_BLOCKS
}

// poisson(rate): one element per element-thread, drawing as many uniforms as
// it needs from its own Philox stream: counter (draw block j, offset,
// element i, offset_hi ^ a domain bit), key seed. Rate >= 10: transformed
// rejection (Hormann 1993, "The transformed rejection method for generating
// Poisson random variables"); 0: 0; else multiplication of uniforms.
// Computed in double where the device has it. Operands: 0 out, 1 rates.
#ifdef RNG_POISSON
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double PT;
static inline PT pu(uint a, uint b) { return (double)((((ulong)b << 32) | a) >> 11) * 0x1p-53; }
#else
typedef float PT;
static inline PT pu(uint a, uint b) { return (float)(a >> 8) * 0x1p-24f; }
#endif
typedef struct { ulong seed; uint c1, c2, c3; uint j; uint4 r; int left; } PStream;
static inline PT next_u(PStream* st) {
  if (st->left == 0) {
    st->r = philox4x32_10((uint4)(st->j++, st->c1, st->c2, st->c3),
                          (uint2)((uint)st->seed, (uint)(st->seed >> 32)));
    st->left = 2;
  }
  st->left -= 1;
  return st->left == 1 ? pu(st->r.x, st->r.y) : pu(st->r.z, st->r.w);
}
static inline PT poisson_sample(PT lambda, PStream* st) {
  if (lambda >= (PT)10) {
    const PT slam = sqrt(lambda), loglam = log(lambda);
    const PT b = (PT)0.931 + (PT)2.53 * slam;
    const PT a = (PT)(-0.059) + (PT)0.02483 * b;
    const PT invalpha = (PT)1.1239 + (PT)1.1328 / (b - (PT)3.4);
    const PT vr = (PT)0.9277 - (PT)3.6224 / (b - (PT)2);
    for (;;) {
      const PT U = next_u(st) - (PT)0.5;
      const PT V = next_u(st);
      const PT us = (PT)0.5 - fabs(U);
      const PT kf = floor(((PT)2 * a / us + b) * U + lambda + (PT)0.43);
      if (us >= (PT)0.07 && V <= vr) return kf;
      if (kf < 0 || (us < (PT)0.013 && V > us)) continue;
      if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lambda + kf * loglam - lgamma(kf + (PT)1)) return kf;
    }
  }
  if (lambda == (PT)0) return 0;
  const PT enlam = exp(-lambda);
  PT prod = 1, x = 0;
  for (;;) {
    prod *= next_u(st);
    if (prod > enlam) x += 1;
    else return x;
  }
}
__kernel void rng_poisson(Indexer ix, long n, __global char* ob, ulong oo, __global char* ib, ulong io,
                          ulong seed, ulong offset) {
  __global ST* o = PTR(ST, ob, oo);
  __global const ST* in = PTR(ST, ib, io);
  GRID_LOOP(i, n) {
    long off[MAX_OPERANDS];
    indexer_offsets(&ix, i, off);
    PStream st = {seed, (uint)offset, (uint)i, ((uint)((ulong)i >> 32)) ^ (uint)(offset >> 32) ^ 0x80000000u, 0,
                  (uint4)(0), 0};
    STORE(o, off[0], (CT)poisson_sample((PT)LOAD(in, off[1]), &st));
  }
}
#endif  // RNG_POISSON

#else  // BERNOULLI_TENSOR

// bernoulli_(p tensor): operands 0 self, 1 p (dtype SRC_ST), p in [0, 1]
// (checked by the launcher).
__kernel void rng_bernoulli_tensor(Indexer ix, long n, __global char* ob, ulong oo,
                                   __global char* pb, ulong po, ulong seed, ulong offset) {
  __global ST* o = PTR(ST, ob, oo);
  __global SRC_ST* p = PTR(SRC_ST, pb, po);
  FOR_BLOCKS(g, r, n, 4)
    const uint bits[4] = {r.x, r.y, r.z, r.w};
    for (int k = 0; k < 4; ++k) {
      const long i = ELEM(g, k);
      if (i < n) {
        long off[MAX_OPERANDS];
        indexer_offsets(&ix, i, off);
        const ulong threshold = convert_ulong_sat((SRC_CT)SRC_LOAD(p, off[1]) * 0x1p32f);
        STORE(o, off[0], (int)((ulong)bits[k] < threshold));
      }
    }
  END_BLOCKS
}

#endif  // BERNOULLI_TENSOR
