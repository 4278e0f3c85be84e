// fill_: every element of a strided tensor set to one value.

// `value` holds the element's bits (ST is an unsigned integer type here).
__kernel void fill(Indexer ix, long n, __global char* ob, ulong oo, ST value) {
  __global ST* o = PTR(ST, ob, oo);
  GRID_LOOP(i, n) {
    long off[MAX_OPERANDS];
    indexer_offsets(&ix, i, off);
    o[off[0]] = value;
  }
}
