// Weight-only quantized matrix products (launcher: kernels/quantized_mm_ops.cpp),
// the ops LLM inference code calls for int8 / int4 weights (gpt-fast, torchao):
// out[i, j] = sum over k of a[i, k] * w[j, k], one work item per output element
// (grid-stride), summed in ACC, a's dtype ST in and out.
//   int8: w[j, k] = b[j, k] * scales[j]  (b int8 [N, K]; the scale applied to the sum)
//   int4: w[j, k] = (q(j, k) - 8) * scale[g, j] + zero[g, j], g = k / group, with
//         (scale, zero) = sz[g, j, 0..1] and q the 4-bit value packed by int4_pack.
// int4_pack's layout (ocl's own, inside CUDA's output shape [N/8, K/(tiles*16), 32,
// tiles/2] int32): q(j, k) is nibble (j*K + k) % 8 of word (j*K + k) / 8 (nibble t
// at bits 4t..4t+3). Its input is ATen's packed uint8 [N, K/2]: even k in the high
// nibble, odd k in the low one. Strides are in elements.

static inline uint int4_at(__global const uint* packed, long j, long k, long K) {
  const long p = j * K + k;
  return (packed[p / 8] >> (4 * (p % 8))) & 15u;
}

__kernel void int4_pack(__global char* ib, ulong io, long in_rs, long in_cs, __global char* ob, ulong oo,
                        long K, long words) {
  __global const uchar* in = PTR(const uchar, ib, io);
  __global uint* out = PTR(uint, ob, oo);
  for (long w = get_global_id(0); w < words; w += get_global_size(0)) {
    const long j = w * 8 / K, k0 = w * 8 % K;  // K is a multiple of 32: a word stays in one row
    uint v = 0;
    for (int t = 0; t < 8; ++t) {
      const long k = k0 + t;
      const uchar byte = in[j * in_rs + (k / 2) * in_cs];
      v |= (uint)((k % 2 == 0) ? byte >> 4 : byte & 15) << (4 * t);
    }
    out[w] = v;
  }
}

__kernel void int4_mm(__global char* ab, ulong ao, long a_rs, long a_cs, __global char* bb, ulong bo,
                      __global char* zb, ulong zo, long z_gs, long z_js, long z_cs, __global char* cb, ulong co,
                      long M, long N, long K, long group) {
  __global const ST* a = PTR(const ST, ab, ao);
  __global const uint* packed = PTR(const uint, bb, bo);
  __global const ST* sz = PTR(const ST, zb, zo);
  __global ST* c = PTR(ST, cb, co);
  for (long i = get_global_id(0); i < M * N; i += get_global_size(0)) {
    const long row = i / N, j = i % N;
    ACC acc = 0;
    for (long g = 0; g < K / group; ++g) {
      const ACC scale = (ACC)LOAD(sz, g * z_gs + j * z_js), zero = (ACC)LOAD(sz, g * z_gs + j * z_js + z_cs);
      for (long k = g * group; k < (g + 1) * group; ++k)
        acc += (ACC)LOAD(a, row * a_rs + k * a_cs) * (((ACC)int4_at(packed, j, k, K) - 8) * scale + zero);
    }
    STORE(c, i, (CT)acc);
  }
}

__kernel void int8_mm(__global char* ab, ulong ao, long a_rs, long a_cs, __global char* bb, ulong bo, long b_rs,
                      long b_cs, __global char* sb, ulong so, long s_s, __global char* cb, ulong co, long M, long N,
                      long K) {
  __global const ST* a = PTR(const ST, ab, ao);
  __global const char* b = PTR(const char, bb, bo);
  __global const ST* scales = PTR(const ST, sb, so);
  __global ST* c = PTR(ST, cb, co);
  for (long i = get_global_id(0); i < M * N; i += get_global_size(0)) {
    const long row = i / N, j = i % N;
    ACC acc = 0;
    for (long k = 0; k < K; ++k) acc += (ACC)LOAD(a, row * a_rs + k * a_cs) * (ACC)b[j * b_rs + k * b_cs];
    STORE(c, i, (CT)(acc * (ACC)LOAD(scales, j * s_s)));
  }
}
