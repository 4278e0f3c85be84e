// Strided copy with a dtype cast (SRC_* from the preamble is the source
// dtype, ST/CT/STORE the destination's). Same-dtype copies run as copies of
// unsigned integers of the element's size.

__kernel void copy_cast(Indexer ix, long n, __global char* ob, ulong oo,
                        __global char* ib, ulong io) {
  __global ST* o = PTR(ST, ob, oo);
  __global SRC_ST* in = PTR(SRC_ST, ib, io);
  GRID_LOOP(i, n) {
    long off[MAX_OPERANDS];
    indexer_offsets(&ix, i, off);
    STORE(o, off[0], SRC_LOAD(in, off[1]));  // STORE converts (bool: != 0)
  }
}

// A dense same-dtype copy (ST: the element's bits type) on CPU devices, where
// it beats clEnqueueCopyBuffer: 16 consecutive elements per work item in a
// constant-count loop the compiler vectorises, the last block's tail apart.
// (Written with STORE / SRC_LOAD: the program also serves casts, half included.)
__kernel void copy_dense(long n, __global char* ob, ulong oo, __global char* ib, ulong io) {
  __global ST* o = PTR(ST, ob, oo);
  __global SRC_ST* in = PTR(SRC_ST, ib, io);
  const long b = get_global_id(0) * 16;
  if (b + 16 <= n) {
    for (int j = 0; j < 16; ++j) STORE(o, b + j, SRC_LOAD(in, b + j));
  } else {
    for (long i = b; i < n; ++i) STORE(o, i, SRC_LOAD(in, i));
  }
}
