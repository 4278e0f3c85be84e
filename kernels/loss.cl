// Loss kernels (launcher: kernels/loss_ops.cpp). The input's dtype macros
// (ST, CT, ACC, LOAD, STORE) come from the launcher's preamble, and
// kernels/device_checks.cl for report_bad_index.
//
// nll_loss over an input viewed as [N, C, S] (S: the flattened spatial dims
// of nll_loss2d, 1 otherwise) and a contiguous target [N * S] of type TGT.
// mode: 0 none (one output per target), 1 mean, 2 sum. The reducing modes
// run as one work group that folds in a fixed order (deterministic) and
// writes the output and total_weight itself.

__kernel void nll_forward(__global char* xb, ulong xo, long sN, long sC, long sS,
                          __global char* tb, ulong to, __global char* wb, ulong wo, int has_weight,
                          long N, long C, long S, long ignore_index, int mode,
                          __global char* ob, ulong oo, __global char* twb, ulong two,
                          __global int* flag, int check, __local ACC* scratch) {
  __global const ST* x = PTR(const ST, xb, xo);
  __global const TGT* target = PTR(const TGT, tb, to);
  __global const ST* w = PTR(const ST, wb, wo);
  __global ST* out = PTR(ST, ob, oo);
  __global ST* total_weight = PTR(ST, twb, two);
  const long M = N * S;
  if (mode == 0) {
    if (get_global_id(0) == 0) STORE(total_weight, 0, (CT)0);
    GRID_LOOP(i, M) {
      const long t = (long)target[i];
      CT v = (CT)0;
      if (t != ignore_index) {
        if (t < 0 || t >= C) {
          report_bad_index(flag, check, t, 1, C);
        } else {
          const long n = i / S, s = i - (i / S) * S;
          const CT wt = has_weight ? (CT)LOAD(w, t) : (CT)1;
          v = -(CT)LOAD(x, n * sN + t * sC + s * sS) * wt;
        }
      }
      STORE(out, i, v);
    }
    return;
  }
  const long lid = get_local_id(0), L = get_local_size(0);
  ACC loss = 0, wsum = 0;
  for (long i = lid; i < M; i += L) {
    const long t = (long)target[i];
    if (t == ignore_index) continue;
    if (t < 0 || t >= C) {
      report_bad_index(flag, check, t, 1, C);
      continue;
    }
    const long n = i / S, s = i - (i / S) * S;
    const ACC wt = has_weight ? (ACC)LOAD(w, t) : (ACC)1;
    loss -= (ACC)LOAD(x, n * sN + t * sC + s * sS) * wt;
    wsum += wt;
  }
  __local ACC* sl = scratch;
  __local ACC* sw = scratch + L;
  sl[lid] = loss;
  sw[lid] = wsum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (long h = L / 2; h > 0; h >>= 1) {
    if (lid < h) {
      sl[lid] += sl[lid + h];
      sw[lid] += sw[lid + h];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    STORE(out, 0, mode == 1 ? sl[0] / sw[0] : sl[0]);
    STORE(total_weight, 0, sw[0]);
  }
}

// grad_input (zeroed by the launcher) viewed as [N, C, S] with strides gs*;
// grad_output has one element per target (go_stride 1) or one in all (0).
__kernel void nll_backward(__global char* gib, ulong gio, long gsN, long gsC, long gsS,
                           __global char* tb, ulong to, __global char* wb, ulong wo, int has_weight,
                           __global char* gob, ulong goo, long go_stride, __global char* twb, ulong two,
                           long N, long C, long S, long ignore_index, int mode,
                           __global int* flag, int check) {
  __global ST* gi = PTR(ST, gib, gio);
  __global const TGT* target = PTR(const TGT, tb, to);
  __global const ST* w = PTR(const ST, wb, wo);
  __global const ST* go = PTR(const ST, gob, goo);
  __global const ST* total_weight = PTR(const ST, twb, two);
  GRID_LOOP(i, N * S) {
    const long t = (long)target[i];
    if (t == ignore_index) continue;
    if (t < 0 || t >= C) {
      report_bad_index(flag, check, t, 1, C);
      continue;
    }
    CT g = LOAD(go, i * go_stride);
    if (mode == 1) g = g / (CT)LOAD(total_weight, 0);
    const CT wt = has_weight ? (CT)LOAD(w, t) : (CT)1;
    const long n = i / S, s = i - (i / S) * S;
    STORE(gi, n * gsN + t * gsC + s * gsS, -wt * g);
  }
}

// binary_cross_entropy's elements over an Indexer (out, input, target);
// an input outside [0, 1] is reported (RuntimeError, as the CPU).
__kernel void bce_forward(Indexer ix, long n, __global char* ob, ulong oo, __global char* xb, ulong xo,
                          __global char* yb, ulong yo, __global int* flag, int check) {
  __global ST* out = PTR(ST, ob, oo);
  __global const ST* x = PTR(const ST, xb, xo);
  __global const ST* y = PTR(const ST, yb, yo);
  GRID_LOOP(i, n) {
    long off[MAX_OPERANDS];
    indexer_offsets(&ix, i, off);
    const CT xv = LOAD(x, off[1]), yv = LOAD(y, off[2]);
    if (!(xv >= (CT)0 && xv <= (CT)1)) report_bad_index(flag, check, 0, 0, 0);
    STORE(out, off[0], (yv - (CT)1) * fmax(log((CT)1 - xv), (CT)-100) - yv * fmax(log(xv), (CT)-100));
  }
}

// multi_margin_loss over a contiguous input [N, D] and target [N] (long):
// one work item per row. out[n] = sum_{d != t} w[t] * max(0, margin - x[t] + x[d])^p / D.
// A target outside [0, D) is reported (RuntimeError "target out of range").
__kernel void multi_margin_forward(__global char* xb, ulong xo, __global char* tb, ulong to,
                                   __global char* wb, ulong wo, int has_weight, long N, long D, int p,
                                   CT margin, __global char* ob, ulong oo, __global int* flag, int check) {
  __global const ST* x = PTR(const ST, xb, xo);
  __global const long* target = PTR(const long, tb, to);
  __global const ST* w = PTR(const ST, wb, wo);
  __global ST* out = PTR(ST, ob, oo);
  GRID_LOOP(n, N) {
    const long t = target[n];
    CT sum = (CT)0;
    if (t < 0 || t >= D) {
      report_bad_index(flag, check, t, 0, D);
    } else {
      __global const ST* row = x + n * D;
      const CT xt = LOAD(row, t);
      const CT wt = has_weight ? (CT)LOAD(w, t) : (CT)1;
      for (long d = 0; d < D; ++d) {
        if (d == t) continue;
        const CT z = (CT)margin - xt + (CT)LOAD(row, d);
        if (z > (CT)0) sum += (p == 1 ? z : z * z) * wt;
      }
      sum /= (CT)D;
    }
    STORE(out, n, sum);
  }
}

// Its backward: grad_input [N, D] contiguous; g = 1/D or 1/(N*D) (mean);
// grad_output has one element per row (go_stride 1) or one in all (0).
__kernel void multi_margin_backward(__global char* gib, ulong gio, __global char* xb, ulong xo,
                                    __global char* tb, ulong to, __global char* wb, ulong wo, int has_weight,
                                    __global char* gob, ulong goo, long go_stride, long N, long D, int p,
                                    CT margin, CT g, __global int* flag, int check) {
  __global ST* gi = PTR(ST, gib, gio);
  __global const ST* x = PTR(const ST, xb, xo);
  __global const long* target = PTR(const long, tb, to);
  __global const ST* w = PTR(const ST, wb, wo);
  __global const ST* go = PTR(const ST, gob, goo);
  GRID_LOOP(n, N) {
    const long t = target[n];
    __global ST* grow = gi + n * D;
    if (t < 0 || t >= D) {
      report_bad_index(flag, check, t, 0, D);
      for (long d = 0; d < D; ++d) STORE(grow, d, (CT)0);
      continue;
    }
    __global const ST* row = x + n * D;
    const CT gg = (CT)g, xt = LOAD(row, t), gout = LOAD(go, n * go_stride);
    const CT wt = has_weight ? (CT)LOAD(w, t) : (CT)1;
    CT gt = (CT)0;
    for (long d = 0; d < D; ++d) {
      if (d == t) continue;
      const CT z = (CT)margin - xt + (CT)LOAD(row, d);
      CT h = (CT)0;
      if (z > (CT)0) {
        h = (p == 1 ? gg : (CT)2 * gg * z) * wt;
        gt -= h;
      }
      STORE(grow, d, h * gout);
    }
    STORE(grow, t, gt * gout);
  }
}

// multilabel_margin_loss over contiguous input [N, D], target [N, D] (long,
// each row's labels end at the first negative entry) and is_target [N, D]
// (written here). One work item per row; out[n] = sum over labels t and
// non-labels d of max(0, 1 - x[t] + x[d]) / D. Any target entry outside
// [-1, D) is reported (the CPU checks the whole tensor).
__kernel void multilabel_margin_forward(__global char* xb, ulong xo, __global char* tb, ulong to,
                                        __global char* isb, ulong iso, long N, long D,
                                        __global char* ob, ulong oo, __global int* flag, int check) {
  __global const ST* x = PTR(const ST, xb, xo);
  __global const long* target = PTR(const long, tb, to);
  __global ST* is_target = PTR(ST, isb, iso);
  __global ST* out = PTR(ST, ob, oo);
  GRID_LOOP(n, N) {
    __global const long* trow = target + n * D;
    __global ST* isrow = is_target + n * D;
    __global const ST* row = x + n * D;
    int bad = 0;
    for (long k = 0; k < D; ++k) {
      STORE(isrow, k, (CT)0);
      if (trow[k] < -1 || trow[k] >= D) {
        report_bad_index(flag, check, trow[k], 0, D);
        bad = 1;
      }
    }
    ACC sum = 0;
    if (!bad) {
      for (long k = 0; k < D && trow[k] >= 0; ++k) STORE(isrow, trow[k], (CT)1);
      for (long k = 0; k < D && trow[k] >= 0; ++k) {
        const CT xt = LOAD(row, trow[k]);
        for (long d = 0; d < D; ++d) {
          if ((CT)LOAD(isrow, d) != (CT)0) continue;
          const CT z = (CT)1 - xt + (CT)LOAD(row, d);
          if (z > (CT)0) sum += (ACC)z;
        }
      }
    }
    STORE(out, n, (CT)sum / (CT)D);
  }
}

// Its backward: grad_input [N, D] contiguous, g = 1/D or 1/(N*D) (mean).
__kernel void multilabel_margin_backward(__global char* gib, ulong gio, __global char* xb, ulong xo,
                                         __global char* tb, ulong to, __global char* isb, ulong iso,
                                         __global char* gob, ulong goo, long go_stride, long N, long D,
                                         CT g, __global int* flag, int check) {
  __global ST* gi = PTR(ST, gib, gio);
  __global const ST* x = PTR(const ST, xb, xo);
  __global const long* target = PTR(const long, tb, to);
  __global const ST* is_target = PTR(const ST, isb, iso);
  __global const ST* go = PTR(const ST, gob, goo);
  GRID_LOOP(n, N) {
    __global const long* trow = target + n * D;
    __global const ST* isrow = is_target + n * D;
    __global const ST* row = x + n * D;
    __global ST* grow = gi + n * D;
    int bad = 0;
    for (long k = 0; k < D; ++k) {
      STORE(grow, k, (CT)0);
      if (trow[k] < -1 || trow[k] >= D) {
        report_bad_index(flag, check, trow[k], 0, D);
        bad = 1;
      }
    }
    if (bad) continue;
    const CT gg = (CT)g, gout = LOAD(go, n * go_stride);
    for (long k = 0; k < D && trow[k] >= 0; ++k) {
      const long t = trow[k];
      const CT xt = LOAD(row, t);
      for (long d = 0; d < D; ++d) {
        if ((CT)LOAD(isrow, d) != (CT)0) continue;
        const CT z = (CT)1 - xt + (CT)LOAD(row, d);
        if (z > (CT)0) {
          STORE(grow, t, (CT)LOAD(grow, t) - gg);
          STORE(grow, d, (CT)LOAD(grow, d) + gg);
        }
      }
    }
    for (long d = 0; d < D; ++d) STORE(grow, d, (CT)LOAD(grow, d) * gout);
  }
}
