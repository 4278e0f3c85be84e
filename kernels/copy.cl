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
