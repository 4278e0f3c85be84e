// embedding_bag's forward (launcher: kernels/embedding_ops.cpp). ST/CT/ACC/
// LOAD/STORE describe the weight's dtype, IDX the index type (int or long);
// report_bad_index comes from kernels/device_checks.cl.
//
// One work item per (bag, feature): it folds the bag's rows in order
// (deterministic). mode 0 sum, 1 mean, 2 max. Bag b spans
// indices[offsets[b] .. offsets[b + 1]) (the last bag ends at n unless
// include_last_offset gave it an end offset). Indices equal to padding_idx
// are skipped and not counted; an index outside [0, V) is reported.
__kernel void embedding_bag_forward(__global char* wb, ulong wo, long ws0, long ws1,
                                    __global char* ib, ulong io, __global char* ofb, ulong ofo,
                                    __global char* pb, ulong po, int has_psw,
                                    long B, long D, long n, long V, long noffsets, long padding_idx, int mode,
                                    __global char* outb, ulong outo, __global char* bsb, ulong bso,
                                    __global char* mib, ulong mio, __global int* flag, int check) {
  __global const ST* w = PTR(const ST, wb, wo);
  __global const IDX* indices = PTR(const IDX, ib, io);
  __global const IDX* offsets = PTR(const IDX, ofb, ofo);
  __global const ST* psw = PTR(const ST, pb, po);
  __global ST* out = PTR(ST, outb, outo);
  __global IDX* bag_size = PTR(IDX, bsb, bso);
  __global IDX* max_indices = PTR(IDX, mib, mio);
  GRID_LOOP(i, B * D) {
    const long b = i / D, j = i - (i / D) * D;
    long start = (long)offsets[b];
    long end = b + 1 < noffsets ? (long)offsets[b + 1] : n;
    start = clamp(start, 0L, n);
    end = clamp(end, start, n);
    ACC acc = 0;
    long count = 0, arg = 0;
    for (long p = start; p < end; ++p) {
      const long k = (long)indices[p];
      if (k < 0 || k >= V) {
        report_bad_index(flag, check, k, 0, V);
        continue;
      }
      if (k == padding_idx) continue;
      const ACC v = (ACC)LOAD(w, k * ws0 + j * ws1);
      ++count;
      if (mode == 2) {
        if (count == 1 || v > acc) {
          acc = v;
          arg = k;
        }
      } else {
        acc += has_psw ? v * (ACC)LOAD(psw, p) : v;
      }
    }
    if (mode == 1 && count > 0) acc /= (ACC)count;
    STORE(out, i, acc);
    if (mode == 2) max_indices[i] = (IDX)arg;
    if (j == 0) bag_size[b] = mode == 0 ? (IDX)0 : (IDX)count;
  }
}

// offset2bag[p] = the bag of index p: the last b with offsets[b] <= p.
__kernel void embedding_bag_offset2bag(__global char* ofb, ulong ofo, long nbags, long n,
                                       __global char* ob, ulong oo) {
  __global const IDX* offsets = PTR(const IDX, ofb, ofo);
  __global IDX* o2b = PTR(IDX, ob, oo);
  GRID_LOOP(p, n) {
    long lo = 0, hi = nbags;  // first b in [0, nbags) with offsets[b] > p
    while (lo < hi) {
      const long mid = (lo + hi) / 2;
      if ((long)offsets[mid] <= p) lo = mid + 1; else hi = mid;
    }
    o2b[p] = (IDX)(lo > 0 ? lo - 1 : 0);
  }
}
