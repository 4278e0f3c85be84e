// Shape kernels over raw element bits (ST is an unsigned integer type of the
// element's size, ulong2 for complex128): the triangle of tril/triu.

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

// Elements of the first r rows of tril(ones(rows, c), k): row i holds
// clamp(i + k + 1, 0, c). Rows before r1 = clamp(c - k, 0, r) are not yet
// full; from the first non-empty one, a = max(0, -k), their counts run
// a + k + 1, a + k + 2, ... (an arithmetic series); the later ones hold c.
static inline long tril_count(long r, long c, long k) {
  const long r1 = clamp(c - k, 0L, r), a = max(0L, -k), m = max(0L, r1 - a);
  return m * (a + k + 1 + r1 + k) / 2 + (r - r1) * c;
}

// tril_indices / triu_indices into out (2, total): one row of the matrix
// per work item, its (row, col) pairs at their row-major position.
__kernel void tri_indices(long rows, long c, long k, int upper, long total,
                          __global char* ob, ulong oo) {
  __global ST* o = PTR(ST, ob, oo);
  GRID_LOOP(r, rows) {
    long start, first, n;
    if (upper) {
      first = clamp(r + k, 0L, c);
      n = c - first;
      start = r * c - tril_count(r, c, k - 1);
    } else {
      first = 0;
      n = clamp(r + k + 1, 0L, c);
      start = tril_count(r, c, k);
    }
    for (long j = 0; j < n; ++j) {
      o[start + j] = (ST)r;
      o[total + start + j] = (ST)(first + j);
    }
  }
}
