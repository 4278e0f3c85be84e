// CTC loss (launcher: kernels/ctc_ops.cpp), the CPU's algorithm
// (ATen's LossCTC.cpp, Graves et al. 2006 eqs. 6-16 in log space): one work
// item per batch element walks time and the extended target l' (blanks
// between and around the labels), so every sum happens in the CPU's order.
// log_probs is [T, N, C] with strides (lpT, lpN, lpC); targets of element b
// start at tg[tg_off[b]] with stride tgS; log_alpha / log_beta are
// [N, T, S'] contiguous with S' = 2 * max_target_length + 1.

static inline long target_prime(__global const long* tg, long off, long stride, long s, long blank) {
  return (s & 1) ? tg[off + (s / 2) * stride] : blank;
}

static inline CT log_add3(CT a, CT b, CT c) {
  CT m = fmax(a, fmax(b, c));
  if (m == -INFINITY) m = (CT)0;
  return log(exp(a - m) + exp(b - m) + exp(c - m)) + m;
}

// The targets and the per-element arrays (int64) as (buffer, byte offset) pairs.
#define CTC_TARGET_PARAMS                                                                              \
  __global char *tgb, ulong tgo, long tgS, __global char *tob, ulong too, __global char *ilb, ulong ilo, \
      __global char *tlb, ulong tlo
#define CTC_TARGET_POINTERS                                   \
  __global const long* tg = PTR(const long, tgb, tgo);        \
  __global const long* tg_off = PTR(const long, tob, too);    \
  __global const long* in_len = PTR(const long, ilb, ilo);    \
  __global const long* tg_len = PTR(const long, tlb, tlo)

__kernel void ctc_alpha(__global char* lpb, ulong lpo, long lpT, long lpN, long lpC, CTC_TARGET_PARAMS,
                        long N, long T_max, long Sp, long blank, __global char* lab, ulong lao,
                        __global char* nllb, ulong nllo) {
  const long b = get_global_id(0);
  if (b >= N) return;
  CTC_TARGET_POINTERS;
  __global const ST* lp = PTR(const ST, lpb, lpo) + b * lpN;
  __global ST* la = PTR(ST, lab, lao) + b * T_max * Sp;
  __global ST* nll = PTR(ST, nllb, nllo);
  const long T = in_len[b], L = tg_len[b], S = 2 * L + 1, off = tg_off[b];
  for (long i = 0; i < T_max * Sp; ++i) STORE(la, i, -INFINITY);
  if (T == 0) {  // no input: the loss is 0 only for an empty target
    STORE(nll, b, L == 0 ? (CT)0 : INFINITY);
    return;
  }
  STORE(la, 0, (CT)LOAD(lp, blank * lpC));
  if (L > 0) STORE(la, 1, (CT)LOAD(lp, tg[off] * lpC));
  for (long t = 1; t < T; ++t) {
    for (long s = 0; s < S; ++s) {
      const long c = target_prime(tg, off, tgS, s, blank);
      const CT a1 = (CT)LOAD(la, (t - 1) * Sp + s);
      const CT a2 = s > 0 ? (CT)LOAD(la, (t - 1) * Sp + s - 1) : -INFINITY;
      const CT a3 = (s > 1 && target_prime(tg, off, tgS, s - 2, blank) != c) ? (CT)LOAD(la, (t - 1) * Sp + s - 2)
                                                                             : -INFINITY;
      STORE(la, t * Sp + s, log_add3(a1, a2, a3) + (CT)LOAD(lp, t * lpT + c * lpC));
    }
  }
  const CT l1 = (CT)LOAD(la, (T - 1) * Sp + 2 * L);
  const CT l2 = L > 0 ? (CT)LOAD(la, (T - 1) * Sp + 2 * L - 1) : -INFINITY;
  CT m = fmax(l1, l2);
  if (m == -INFINITY) m = (CT)0;
  STORE(nll, b, -(log(exp(l1 - m) + exp(l2 - m)) + m));
}

// grad [T_max, N, C] contiguous, written whole; lb: log_beta scratch like la.
__kernel void ctc_backward(__global char* gob, ulong goo, long goS,
                           __global char* lpb, ulong lpo, long lpT, long lpN, long lpC, CTC_TARGET_PARAMS,
                           long N, long T_max, long Sp, long C, long blank, int zero_infinity,
                           __global char* nllb, ulong nllo, __global char* lab, ulong lao, long laN, long laT, long laS,
                           __global char* lbb, ulong lbo, __global char* gb, ulong go) {
  const long b = get_global_id(0);
  if (b >= N) return;
  CTC_TARGET_POINTERS;
  __global const ST* lp = PTR(const ST, lpb, lpo) + b * lpN;
  __global const ST* la = PTR(const ST, lab, lao) + b * laN;
  __global ST* lb = PTR(ST, lbb, lbo) + b * T_max * Sp;
  __global ST* grad = PTR(ST, gb, go) + b * C;  // [t * N * C + c]
  const long gT = N * C;
  const long T = in_len[b], L = tg_len[b], S = 2 * L + 1, off = tg_off[b];
  const CT nll = (CT)LOAD(PTR(const ST, nllb, nllo), b);
  const CT gout = (CT)LOAD(PTR(const ST, gob, goo), b * goS);
  if (zero_infinity && nll == INFINITY) {
    for (long t = 0; t < T_max; ++t)
      for (long c = 0; c < C; ++c) STORE(grad, t * gT + c, (CT)0);
    return;
  }
  for (long t = 0; t < T_max; ++t)
    for (long c = 0; c < C; ++c) STORE(grad, t * gT + c, -INFINITY);
  for (long i = 0; i < T_max * Sp; ++i) STORE(lb, i, -INFINITY);
  if (T > 0) {
    // t = T - 1
    STORE(lb, (T - 1) * Sp + 2 * L, (CT)LOAD(lp, (T - 1) * lpT + blank * lpC));
    STORE(grad, (T - 1) * gT + blank,
          (CT)LOAD(la, (T - 1) * laT + 2 * L * laS) + (CT)LOAD(lb, (T - 1) * Sp + 2 * L));
    if (L > 0) {
      const long c = tg[off + (L - 1) * tgS];
      STORE(lb, (T - 1) * Sp + 2 * L - 1, (CT)LOAD(lp, (T - 1) * lpT + c * lpC));
      STORE(grad, (T - 1) * gT + c,
            (CT)LOAD(la, (T - 1) * laT + (2 * L - 1) * laS) + (CT)LOAD(lb, (T - 1) * Sp + 2 * L - 1));
    }
    for (long t = T - 2; t >= 0; --t) {
      for (long s = 2 * L; s >= 0; --s) {
        const long c = target_prime(tg, off, tgS, s, blank);
        const CT b1 = (CT)LOAD(lb, (t + 1) * Sp + s);
        const CT b2 = s < 2 * L ? (CT)LOAD(lb, (t + 1) * Sp + s + 1) : -INFINITY;
        const CT b3 = (s < 2 * L - 1 && target_prime(tg, off, tgS, s + 2, blank) != c)
                          ? (CT)LOAD(lb, (t + 1) * Sp + s + 2) : -INFINITY;
        const CT beta = log_add3(b1, b2, b3) + (CT)LOAD(lp, t * lpT + c * lpC);
        STORE(lb, t * Sp + s, beta);
        // collect alpha * beta per character of l' (eq. 16), in log space
        const CT ab = (CT)LOAD(la, t * laT + s * laS) + beta;
        const CT lcab = (CT)LOAD(grad, t * gT + c);
        if (lcab == -INFINITY) {
          STORE(grad, t * gT + c, ab);
        } else {
          const CT m = fmax(lcab, ab);
          STORE(grad, t * gT + c, log(exp(lcab - m) + exp(ab - m)) + m);
        }
      }
    }
  }
  for (long t = 0; t < T_max; ++t) {
    for (long c = 0; c < C; ++c) {
      CT r = (CT)0;
      if (t < T) {
        const CT l = (CT)LOAD(lp, t * lpT + c * lpC);
        r = (exp(l) - exp((CT)LOAD(grad, t * gT + c) + nll - l)) * gout;
      }
      STORE(grad, t * gT + c, r);
    }
  }
}
