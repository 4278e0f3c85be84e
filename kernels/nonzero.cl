// nonzero: a count pass, a prefix sum of the per-block counts (on the host:
// the result's size needs a sync anyway, as on CUDA) and a write pass.
// Input: contiguous, `n` elements of type ST (dtype macros from the launcher;
// for complex ST is the real type and COMPONENTS 2).
// A block is one work group's PER_ITEM * local_size consecutive elements.

#define PER_ITEM 16

// COMPONENTS: reals per element (2: complex, nonzero when re or im is).
static inline int is_nonzero(__global const ST* in, long i) {
#if COMPONENTS == 2
  return LOAD(in, 2 * i) != (CT)0 || LOAD(in, 2 * i + 1) != (CT)0;
#else
  return LOAD(in, i) != (CT)0;
#endif
}

__kernel void nonzero_count(__global const char* ib, ulong io, long n, __global char* cb, ulong co,
                            __local long* scratch) {
  __global const ST* in = PTR(ST, ib, io);
  __global long* counts = PTR(long, cb, co);
  const long lid = get_local_id(0), lsize = get_local_size(0), block = lsize * PER_ITEM;
  const long nblocks = (n + block - 1) / block;
  for (long b = get_group_id(0); b < nblocks; b += get_num_groups(0)) {
    long c = 0;
    for (long i = b * block + lid; i < min(n, (b + 1) * block); i += lsize) c += is_nonzero(in, i);
    scratch[lid] = c;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long s = lsize / 2; s > 0; s >>= 1) {
      if (lid < s) scratch[lid] += scratch[lid + s];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) counts[b] = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// Writes the row-major coordinates (sizes[ndim]) of each nonzero element, in
// order, to out[k * ndim + d] starting at row starts[block].
__kernel void nonzero_write(__global const char* ib, ulong io, long n, __global const long* starts,
                            __global const long* sizes, long ndim, __global char* ob, ulong oo,
                            __local long* scratch) {
  __global const ST* in = PTR(ST, ib, io);
  __global long* out = PTR(long, ob, oo);
  const long lid = get_local_id(0), lsize = get_local_size(0), block = lsize * PER_ITEM;
  const long nblocks = (n + block - 1) / block;
  for (long b = get_group_id(0); b < nblocks; b += get_num_groups(0)) {
    // Each item takes PER_ITEM consecutive elements, so the order is kept.
    const long first = b * block + lid * PER_ITEM, last = min(n, first + PER_ITEM);
    long c = 0;
    for (long i = first; i < last; ++i) c += is_nonzero(in, i);
    scratch[lid] = c;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
      long run = starts[b];
      for (long k = 0; k < lsize; ++k) {
        const long v = scratch[k];
        scratch[k] = run;
        run += v;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    long row = scratch[lid];
    for (long i = first; i < last; ++i) {
      if (!is_nonzero(in, i)) continue;
      long rest = i;
      for (long d = ndim - 1; d >= 0; --d) {
        out[row * ndim + d] = rest % sizes[d];
        rest /= sizes[d];
      }
      ++row;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
