// Shape kernels over raw element bits (ST is an unsigned integer type of the
// element's size): the triangle of tril/triu.

// out[b, row, col] = in[b, row, col] inside the triangle, 0 outside.
// ix: the offsets of matrix b of out (operand 0) and in (operand 1);
// upper: triu (col - row >= k) else tril (col - row <= k).
__kernel void triangle(Indexer ix, long batches, long rows, long cols, long k, int upper,
                       long out_rs, long out_cs, long in_rs, long in_cs,
                       __global char* ob, ulong oo, __global char* ib, ulong io) {
  __global ST* o = PTR(ST, ob, oo);
  __global const ST* in = PTR(ST, ib, io);
  GRID_LOOP(i, batches * rows * cols) {
    const long col = i % cols, t = i / cols, row = t % rows, b = t / rows;
    long off[MAX_OPERANDS];
    indexer_offsets(&ix, b, off);
    const long d = col - row;
    const int keep = upper ? d >= k : d <= k;
    o[off[0] + row * out_rs + col * out_cs] = keep ? in[off[1] + row * in_rs + col * in_cs] : (ST)0;
  }
}
