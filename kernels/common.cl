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
