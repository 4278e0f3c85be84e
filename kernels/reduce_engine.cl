// The generic reduction kernels (kernels/reduce_engine.cpp writes the
// #defines this file is specialised with):
//   IN_ST, IN_LOAD(p, i)       the input's storage type and load (to T)
//   T                          the input's compute type
//   ACC0_T, ACC_T              the accumulator a step folds into, and the one
//                              combines, partials and projections use (a
//                              scalar or a struct; wider than ACC0_T where a
//                              cascade's upper levels are wide, else the same)
//   RED_INIT0, RED_INIT        an ACC0_T / ACC_T holding the identity
//   RED_WIDEN(a)               an ACC0_T as an ACC_T
//   RED_STEP(acc, x, idx)      folds input value x (idx: its index along the
//                              reduced dims) into acc (an ACC0_T)
//   RED_COMBINE(acc, other)    folds another ACC_T into acc
//   RED_CASCADE                1: sums fold in cascade (see CASCADE_LOOP)
//   ACC_W                      the wide ACC (WelfordW's field type)
//   OUT0_ST, OUT0_STORE(p, i, acc) [, OUT1_ST, OUT1_STORE]  project and store
//   T_IS_FLOAT, T_LOWEST, T_HIGHEST, ACC (the accumulation type of T)
//   NOUT                       1 or 2
//   LANES                      accumulators per item on contiguous data (1: none)
// The index space: kept dims (one result each) and reduced dims, both in
// TensorIterator order (dim 0 fastest); strides in elements.

#define KDIMS 12
#define RDIMS 12
// The index space and the launch's sizes and byte offsets in one kernel
// argument (PoCL copies every argument into a block of its own per launch).
typedef struct {
  long n_kept, n_red;
  long kept_sizes[KDIMS], kept_in[KDIMS], kept_out0[KDIMS], kept_out1[KDIMS];
  long red_sizes[RDIMS], red_in[RDIMS];
  long out_numel, red_numel, G, chunk;  // results, reduced elements each, chunks per result, elements per chunk
  ulong io, o0o, o1o, po;               // byte offsets of the input, the outputs and the partials
} RedIndexer;
// The head's fields under the names the kernels use.
#define RED_HEAD                                                                       \
  const long out_numel = ix.out_numel, red_numel = ix.red_numel, G = ix.G, chunk = ix.chunk; \
  const ulong io = ix.io, o0o = ix.o0o, o1o = ix.o1o, po = ix.po;                       \
  (void)red_numel; (void)G; (void)chunk; (void)io; (void)po; (void)o0o; (void)o1o;

static inline void kept_offsets(const RedIndexer* ix, long o, long* in_off, long* out0, long* out1) {
  *in_off = 0; *out0 = 0; *out1 = 0;
  for (int d = 0; d < ix->n_kept; ++d) {
    const long i = o % ix->kept_sizes[d];
    o /= ix->kept_sizes[d];
    *in_off += i * ix->kept_in[d];
    *out0 += i * ix->kept_out0[d];
    *out1 += i * ix->kept_out1[d];
  }
}

static inline long red_offset(const RedIndexer* ix, long r) {
  long off = 0;
  for (int d = 0; d < ix->n_red; ++d) {
    off += (r % ix->red_sizes[d]) * ix->red_in[d];
    r /= ix->red_sizes[d];
  }
  return off;
}

// hash_tensor's bits of an element, as the CPU's xor_sum: a floating value
// widened to double (kernels/reduce_engine.cpp enables fp64 for it), an
// integer or bool converted to 64 bits (signed values sign-extended).
#ifndef T_IS_COMPLEX
#if T_IS_FLOAT
#ifdef RED_NEEDS_FP64
static inline ulong red_bits64(T x) { return as_ulong((double)x); }
#endif
#else
static inline ulong red_bits64(T x) { return (ulong)x; }
#endif
#endif

// A macro, not a function: projections may use the kernel's parameters.
#if NOUT == 2
#define STORE_RESULT(o0b, o0o, o1b, o1o, out0, out1, acc)  \
  OUT0_STORE(PTR(OUT0_ST, o0b, o0o), out0, acc);            \
  OUT1_STORE(PTR(OUT1_ST, o1b, o1o), out1, acc)
#else
#define STORE_RESULT(o0b, o0o, o1b, o1o, out0, out1, acc) OUT0_STORE(PTR(OUT0_ST, o0b, o0o), out0, acc)
#endif

static inline bool red_isnan(T x) {
#if T_IS_FLOAT
  return isnan(x);
#else
  return false;
#endif
}
// NaN-propagating max/min folds (as the CPU: a NaN wins).
#define FOLD_MAX(a, x) if (red_isnan(x) || (x) > (a)) (a) = (x);
#define FOLD_MIN(a, x) if (red_isnan(x) || (x) < (a)) (a) = (x);
// Accumulators of the ops that are not a plain ACC or T.
typedef struct { ACC mean, m2, n; } Welford;
typedef struct { ACC_W mean, m2, n; } WelfordW;  // a cascade's wide levels (ACC_W: double where the device has fp64)
static inline WelfordW welford_widen(Welford a) { return (WelfordW){a.mean, a.m2, a.n}; }
typedef struct { T v; long i; } ValueIndex;
typedef struct { T mn, mx; } MinMax;

// The work group's accumulators combined into scratch[0] (a macro: combines
// may use the kernel's parameters).
#define TREE_COMBINE(acc)                                  \
  scratch[lid] = acc;                                      \
  barrier(CLK_LOCAL_MEM_FENCE);                            \
  for (long s_ = lsize / 2; s_ > 0; s_ >>= 1) {            \
    if (lid < s_) {                                        \
      ACC_T a_ = scratch[lid];                             \
      RED_COMBINE(a_, scratch[lid + s_]);                  \
      scratch[lid] = a_;                                   \
    }                                                      \
    barrier(CLK_LOCAL_MEM_FENCE);                          \
  }

// ---- Cascade summation (DESIGN.md decision 15; PyTorch CPU's cascade_sum is
// the model). A run of n steps into one accumulator is folded in levels:
// level 0 (an ACC0_T) takes `step` steps, then is widened into level 1 (an
// ACC_T) and restarts; level 1 takes `step` level-0 results, and so on up to
// level 3, with step = 2^max(CASCADE_MIN_LOG2, ceil(log2(n) / 4)) (the
// minimum: 6 for sums, 4 for Welford, set by the launcher; the CPU's is 4):
// no level folds more than ~step terms, so the rounding error grows like
// 4 * step, not like n. The
// levels above 0 are wide (double where the device has fp64; they cost a few
// operations per `step` elements), as the CPU accumulates its float Welford
// and batch norm sums in double. Work items and partials combine in ACC_T,
// in trees. RED_CASCADE 0 (min / max / arg / logical / integer / product
// reductions: exact, or order-free) folds straight (step never ends; ACC0_T
// is ACC_T).
#define CASCADE_UP 3  // levels above level 0
static inline long cascade_step(long n) {
#if RED_CASCADE
  int lg = 0;
  while (lg < 62 && ((long)1 << lg) < n) ++lg;
  return (long)1 << max(CASCADE_MIN_LOG2, (lg + CASCADE_UP) / (CASCADE_UP + 1));
#else
  (void)n;
  return LONG_MAX;
#endif
}
// up: an ACC_T[CASCADE_UP], level 1 first (macros: combines may use the
// kernel's parameters).
#define CASCADE_INIT(up) for (int l_ = 0; l_ < CASCADE_UP; ++l_) up[l_] = RED_INIT;
// How far the nb-th full block of level 0 carries (nb counted from 1, step a
// power of two): 1 into level 1, 2 on into level 2, 3 on into level 3.
static inline int cascade_reach(long nb, long step) {
  return (nb & (step - 1)) != 0 ? 1 : (nb & (step * step - 1)) != 0 ? 2 : 3;
}
// Level 0 a0 into level 1, and on up to `reach` (cascade_reach).
#define CASCADE_CARRY(a0, up, reach)                                             \
  {                                                                              \
    const ACC_T w_ = RED_WIDEN(a0);                                              \
    a0 = RED_INIT0;                                                              \
    RED_COMBINE(up[0], w_);                                                      \
    for (int l_ = 1; l_ < (reach); ++l_) {                                       \
      RED_COMBINE(up[l_], up[l_ - 1]);                                           \
      up[l_ - 1] = RED_INIT;                                                     \
    }                                                                            \
  }
// acc folds in the levels, lowest first.
#define CASCADE_TOTAL(acc, a0, up)                                               \
  {                                                                              \
    const ACC_T w_ = RED_WIDEN(a0);                                              \
    RED_COMBINE(acc, w_);                                                        \
    for (int l_ = 0; l_ < CASCADE_UP; ++l_) RED_COMBINE(acc, up[l_]);            \
  }
// Folds into acc, in cascade, n_it_ iterations r_ = start_, start_ + inc_, ...
// of BODY, which steps the level-0 accumulator a0_ (no top-level commas).
#define CASCADE_LOOP(acc, r_, start_, n_it_, inc_, BODY)                         \
  {                                                                              \
    ACC0_T a0_ = RED_INIT0;                                                      \
    ACC_T up_[CASCADE_UP];                                                       \
    CASCADE_INIT(up_)                                                            \
    const long nit_ = (n_it_), step_ = cascade_step(nit_);                       \
    long r_ = (start_), nb_ = 0;                                                 \
    for (long done_ = 0; done_ < nit_;) {                                        \
      const long m_ = min(step_, nit_ - done_);                                  \
      for (long j_ = 0; j_ < m_; ++j_, r_ += (inc_)) { BODY }                    \
      done_ += m_;                                                               \
      if (done_ < nit_) { ++nb_; CASCADE_CARRY(a0_, up_, cascade_reach(nb_, step_)) }           \
    }                                                                            \
    CASCADE_TOTAL(acc, a0_, up_)                                                 \
  }
// Folds LANES lanes of levels (level 0 in a0[k], the others in up[k]) into
// acc: each lane's total, then the lanes pairwise.
#define LANES_TREE(acc, a0, up)                                                  \
  {                                                                              \
    ACC_T t_[LANES];                                                             \
    for (int k_ = 0; k_ < LANES; ++k_) {                                         \
      t_[k_] = RED_INIT;                                                         \
      CASCADE_TOTAL(t_[k_], a0[k_], up[k_])                                      \
    }                                                                            \
    for (int w_ = 1; w_ < LANES; w_ *= 2)                                        \
      for (int k_ = 0; k_ + w_ < LANES; k_ += 2 * w_) RED_COMBINE(t_[k_], t_[k_ + w_]); \
    RED_COMBINE(acc, t_[0]);                                                     \
  }
// Iterations of r = first, first + inc, ... below end.
static inline long strided_count(long first, long end, long inc) {
  return end > first ? (end - first + inc - 1) / inc : 0;
}

// Folds the reduced elements [r0_, r1_) of the result whose input starts at
// `base` into acc, in cascade. Where the innermost reduced dim is contiguous
// and at least LANES long: its rows in blocks of LANES consecutive elements
// into LANES independent accumulators (a CPU device vectorises the block;
// one red_offset per row); other layouts one element at a time. A macro:
// steps may use the kernel's parameters.
#define FOLD_RANGE(acc, r0_, r1_)                                                                   \
  if (ix.n_red >= 1 && ix.red_in[0] == 1 && ix.red_sizes[0] >= LANES) {                             \
    ACC0_T lane_[LANES];                                                                            \
    ACC_T lup_[LANES][CASCADE_UP];                                                                  \
    for (int k = 0; k < LANES; ++k) {                                                               \
      lane_[k] = RED_INIT0;                                                                         \
      CASCADE_INIT(lup_[k])                                                                         \
    }                                                                                               \
    const long size0_ = ix.red_sizes[0], step_ = cascade_step(((r1_) - (r0_)) / LANES + 1);         \
    long it_ = 0, nb_ = 0; /* lane steps in the current block, blocks done */                      \
    for (long r_ = (r0_); r_ < (r1_);) {                                                            \
      const long e_ = min((long)(r1_), (r_ / size0_ + 1) * size0_); /* this row's end */           \
      const long o_ = base + (ix.n_red == 1 ? 0 : red_offset(&ix, r_) - r_);                        \
      while (r_ + LANES <= e_) {                                                                    \
        const long m_ = min(step_ - it_, (e_ - r_) / LANES);                                        \
        for (long j_ = 0; j_ < m_; ++j_, r_ += LANES)                                               \
          for (int k = 0; k < LANES; ++k) RED_STEP(lane_[k], (T)IN_LOAD(in, o_ + r_ + k), r_ + k);  \
        if ((it_ += m_) == step_) {                                                                 \
          it_ = 0;                                                                                  \
          const int reach_ = cascade_reach(++nb_, step_);                                           \
          for (int k = 0; k < LANES; ++k) CASCADE_CARRY(lane_[k], lup_[k], reach_)                  \
        }                                                                                           \
      }                                                                                             \
      for (int k = 0; r_ < e_; ++k, ++r_) RED_STEP(lane_[k], (T)IN_LOAD(in, o_ + r_), r_);          \
    }                                                                                               \
    LANES_TREE(acc, lane_, lup_)                                                                    \
  } else if (ix.n_red == 1) {                                                                       \
    const long s_ = ix.red_in[0];                                                                   \
    CASCADE_LOOP(acc, r_, (r0_), (r1_) - (r0_), 1, RED_STEP(a0_, (T)IN_LOAD(in, base + r_ * s_), r_);) \
  } else {                                                                                          \
    CASCADE_LOOP(acc, r_, (r0_), (r1_) - (r0_), 1,                                                  \
                 RED_STEP(a0_, (T)IN_LOAD(in, base + red_offset(&ix, r_)), r_);)                    \
  }

// Each program holds the body RED_MODE names (a cold compile costs a third);
// kernels/reduce_engine.cpp appends its __kernel entry points (one taking a
// buffer per operand; on CPU devices a second taking one buffer for all).
#if RED_MODE == 0
// One work item per result: for many results over short or strided
// reductions (neighbouring items read neighbouring memory), and on CPU
// devices for many results over contiguous rows.
static inline void reduce_items_body(RedIndexer ix, __global char* ib, __global char* o0b, __global char* o1b,
                           __global char* pb PARAMS_DECL) {
  RED_HEAD
  const long o = get_global_id(0);
  if (o >= out_numel) return;
  long base, out0, out1;
  kept_offsets(&ix, o, &base, &out0, &out1);
  __global IN_ST* in = PTR(IN_ST, ib, io);
  ACC_T acc = RED_INIT;
  FOLD_RANGE(acc, 0, red_numel)
  STORE_RESULT(o0b, o0o, o1b, o1o, out0, out1, acc);
}

#elif RED_MODE == 1
// One work group per (result, chunk): the group's items stride over the
// chunk [g * chunk, ...) and combine in local memory. With groups_per_out
// G > 1 the accumulators go to `partial` for reduce_partials.
static inline void reduce_groups_body(RedIndexer ix, __global char* ib, __global char* o0b, __global char* o1b,
                            __global char* pb, __local ACC_T* scratch PARAMS_DECL) {
  RED_HEAD
  const long lid = get_local_id(0), lsize = get_local_size(0);
  __global IN_ST* in = PTR(IN_ST, ib, io);
  __global ACC_T* partial = PTR(ACC_T, pb, po);
  for (long w = get_group_id(0); w < out_numel * G; w += get_num_groups(0)) {
    const long o = w / G, g = w % G;
    long base, out0, out1;
    kept_offsets(&ix, o, &base, &out0, &out1);
    const long r0 = g * chunk, r1 = min(red_numel, r0 + chunk);
    // Each item folds its elements (stride lsize) in cascade (GPUs only:
    // CPU devices take reduce_chunks).
    ACC_T acc = RED_INIT;
    const long n_it = strided_count(r0 + lid, r1, lsize);
    if (ix.n_red == 1) {
      const long s = ix.red_in[0];
      CASCADE_LOOP(acc, r, r0 + lid, n_it, lsize, RED_STEP(a0_, (T)IN_LOAD(in, base + r * s), r);)
    } else {
      CASCADE_LOOP(acc, r, r0 + lid, n_it, lsize, RED_STEP(a0_, (T)IN_LOAD(in, base + red_offset(&ix, r)), r);)
    }
    TREE_COMBINE(acc);
    if (lid == 0) {
      if (G > 1) partial[w] = scratch[0];
      else { STORE_RESULT(o0b, o0o, o1b, o1o, out0, out1, scratch[0]); }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

#elif RED_MODE == 3
// Strided reductions whose first kept dim is contiguous in the input (e.g.
// sum over dim 0 of a row-major matrix): each item computes LANES
// neighbouring results, so every step of its loop reads LANES consecutive
// elements into independent accumulators (a CPU device vectorises them).
static inline void reduce_lanes_body(RedIndexer ix, __global char* ib, __global char* o0b, __global char* o1b,
                           __global char* pb PARAMS_DECL) {
  RED_HEAD
  const long n0 = ix.kept_sizes[0], blocks0 = (n0 + LANES - 1) / LANES;
  const long item = get_global_id(0);
  if (item >= blocks0 * (out_numel / n0)) return;
  const long first = (item % blocks0) * LANES;
  const int nl = (int)min((long)LANES, n0 - first);
  long base, out0, out1;
  kept_offsets(&ix, (item / blocks0) * n0 + first, &base, &out0, &out1);
  __global IN_ST* in = PTR(IN_ST, ib, io);
  ACC0_T lane[LANES];
  ACC_T up[LANES][CASCADE_UP];
  for (int k = 0; k < LANES; ++k) {
    lane[k] = RED_INIT0;
    CASCADE_INIT(up[k])
  }
  const long step = cascade_step(red_numel);
  long nb = 0;
  for (long r = 0; r < red_numel;) {
    const long e = red_numel - r <= step ? red_numel : r + step;
    for (; r < e; ++r) {
      const long off = base + (ix.n_red == 1 ? r * ix.red_in[0] : red_offset(&ix, r));
      if (nl == LANES) {
        for (int k = 0; k < LANES; ++k) RED_STEP(lane[k], (T)IN_LOAD(in, off + k), r);
      } else {
        for (int k = 0; k < nl; ++k) RED_STEP(lane[k], (T)IN_LOAD(in, off + k), r);
      }
    }
    if (r < red_numel) {
      const int reach = cascade_reach(++nb, step);
      for (int k = 0; k < nl; ++k) CASCADE_CARRY(lane[k], up[k], reach)
    }
  }
  for (int k = 0; k < nl; ++k) {
    ACC_T acc = RED_INIT;
    CASCADE_TOTAL(acc, lane[k], up[k])
    STORE_RESULT(o0b, o0o, o1b, o1o, out0 + k * ix.kept_out0[0], out1 + k * ix.kept_out1[0], acc);
  }
}

#elif RED_MODE == 4
// CPU devices, reductions whose first kept dim (n0 results) is contiguous and
// whose rows are long enough: item (block, g) folds the rows of chunk g of a
// block of n0 results into its own partial rows, reading every input row in
// order (a page-sized row stride no longer costs a page per few elements).
// The item's partial (ROWS_ITEM_BYTES) is CASCADE_UP rows of n0 ACC_T, level
// 1 first, then level 0's row of ACC0_T: every `step` input rows level 0 is
// carried up (the cascade of CASCADE_LOOP, one per result).
// reduce_row_partials then combines the G partials.
#define ROWS_ITEM_BYTES(n0) (CASCADE_UP * (n0) * sizeof(ACC_T) + ((n0) * sizeof(ACC0_T) + 15) / 16 * 16)
static inline void reduce_rows_body(RedIndexer ix, __global char* ib, __global char* o0b, __global char* o1b,
                          __global char* pb PARAMS_DECL) {
  RED_HEAD
  const long n0 = ix.kept_sizes[0];
  const long item = get_global_id(0);
  if (item >= (out_numel / n0) * G) return;
  const long block = item / G, g = item % G;
  long base, out0, out1;
  kept_offsets(&ix, block * n0, &base, &out0, &out1);
  __global IN_ST* in = PTR(IN_ST, ib, io);
  __global ACC_T* up = PTR(ACC_T, pb, po + item * ROWS_ITEM_BYTES(n0));
  __global ACC0_T* part = (__global ACC0_T*)(up + CASCADE_UP * n0);
  for (long c = 0; c < CASCADE_UP * n0; ++c) up[c] = RED_INIT;
  for (long c = 0; c < n0; ++c) part[c] = RED_INIT0;
  const long r1 = min(red_numel, (g + 1) * chunk);
  const long step = cascade_step(r1 - g * chunk);
  long nb = 0;
  for (long r = g * chunk; r < r1;) {
    const long e = r1 - r <= step ? r1 : r + step;
    for (; r < e; ++r) {
      const long off = base + (ix.n_red == 1 ? r * ix.red_in[0] : red_offset(&ix, r));
      for (long c = 0; c < n0; ++c) {
        ACC0_T acc = part[c];
        RED_STEP(acc, (T)IN_LOAD(in, off + c), r);
        part[c] = acc;
      }
    }
    if (r < r1) {
      // CASCADE_CARRY on the rows: level 0 into level 1, on up to `reach`.
      const int reach = cascade_reach(++nb, step);
      for (long c = 0; c < n0; ++c) {
        ACC_T u = up[c];
        const ACC_T w = RED_WIDEN(part[c]);
        RED_COMBINE(u, w);
        up[c] = u;
        part[c] = RED_INIT0;
      }
      for (int l = 1; l < reach; ++l)
        for (long c = 0; c < n0; ++c) {
          ACC_T u = up[l * n0 + c];
          RED_COMBINE(u, up[(l - 1) * n0 + c]);
          up[l * n0 + c] = u;
          up[(l - 1) * n0 + c] = RED_INIT;
        }
    }
  }
}

#elif RED_MODE == 5
// Second pass of reduce_rows: one item per result combines its G partials
// (each its levels) in order (few: G is about 4 per compute unit).
#define ROWS_ITEM_BYTES(n0) (CASCADE_UP * (n0) * sizeof(ACC_T) + ((n0) * sizeof(ACC0_T) + 15) / 16 * 16)
static inline void reduce_row_partials_body(RedIndexer ix, __global char* ib, __global char* o0b, __global char* o1b,
                                  __global char* pb PARAMS_DECL) {
  RED_HEAD
  const long o = get_global_id(0);
  if (o >= out_numel) return;
  const long n0 = ix.kept_sizes[0], block = o / n0, c = o % n0;
  ACC_T acc = RED_INIT;
  for (long g = 0; g < G; ++g) {
    __global ACC_T* up = PTR(ACC_T, pb, po + (block * G + g) * ROWS_ITEM_BYTES(n0));
    __global ACC0_T* part = (__global ACC0_T*)(up + CASCADE_UP * n0);
    const ACC_T w = RED_WIDEN(part[c]);
    RED_COMBINE(acc, w);
    for (int l = 0; l < CASCADE_UP; ++l) RED_COMBINE(acc, up[l * n0 + c]);
  }
  long base, out0, out1;
  kept_offsets(&ix, o, &base, &out0, &out1);
  STORE_RESULT(o0b, o0o, o1b, o1o, out0, out1, acc);
}

#elif RED_MODE == 6
// CPU devices, few results over long reductions: item w = (result o, chunk g)
// folds its chunk in order (contiguous: LANES accumulators) into partial[w],
// or into the result when G == 1. No local memory, no barriers.
static inline void reduce_chunks_body(RedIndexer ix, __global char* ib, __global char* o0b, __global char* o1b,
                            __global char* pb PARAMS_DECL) {
  RED_HEAD
  const long w = get_global_id(0);
  if (w >= out_numel * G) return;
  const long o = w / G, g = w % G;
  long base, out0, out1;
  kept_offsets(&ix, o, &base, &out0, &out1);
  __global IN_ST* in = PTR(IN_ST, ib, io);
  const long r0 = g * chunk, r1 = min(red_numel, r0 + chunk);
  ACC_T acc = RED_INIT;
  FOLD_RANGE(acc, r0, r1)
  if (G > 1) {
    __global ACC_T* partial = PTR(ACC_T, pb, po);
    partial[w] = acc;
  } else {
    STORE_RESULT(o0b, o0o, o1b, o1o, out0, out1, acc);
  }
}

#else
// Second pass: one work group per result combines its G partial accumulators.
static inline void reduce_partials_body(RedIndexer ix, __global char* ib, __global char* o0b, __global char* o1b,
                              __global char* pb, __local ACC_T* scratch PARAMS_DECL) {
  RED_HEAD
  const long lid = get_local_id(0), lsize = get_local_size(0);
  __global ACC_T* partial = PTR(ACC_T, pb, po);
  for (long o = get_group_id(0); o < out_numel; o += get_num_groups(0)) {
    long base, out0, out1;
    kept_offsets(&ix, o, &base, &out0, &out1);
    ACC_T acc = RED_INIT;
    for (long g = lid; g < G; g += lsize) RED_COMBINE(acc, partial[o * G + g]);
    TREE_COMBINE(acc);
    if (lid == 0) { STORE_RESULT(o0b, o0o, o1b, o1o, out0, out1, scratch[0]); }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
#endif
