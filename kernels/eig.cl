// The general eigenproblem for kernels/eig_ops.cpp (torch.linalg.eig /
// eigvals), as LAPACK's geev: balancing (gebal: permutations isolating
// eigenvalues, then power-of-2 scaling), Hessenberg reduction (gehd2, the
// reflectors accumulated into Z as orghr forms them), the Hessenberg QR
// algorithm (real: lahqr's Francis double shift with lanv2's standardised 2x2
// blocks; complex: zlahqr's single shift), then eigenvectors by back
// substitution in the (quasi-)triangular Schur form (trevc), Z times them,
// balancing undone (gebak) and geev's normalisation. Eigenvalues come out in
// LAPACK's order (where they deflate on the Schur form's diagonal), complex
// pairs of a real matrix as (re + i im, re - i im) with im > 0 first.
//
// One work item per matrix (the QR sweeps are sequential); matrices are
// column-major work copies, entry (i, j) at i + j * n. T is the element type,
// R its real type (kernels/linalg_scalar.cl, prepended); geev_vectors is
// always compiled complex.


#define A_(i, j) a[(i) + (j) * n]
#define Z_(i, j) z[(i) + (j) * n]

// LAPACK's machine constants: lamch('P') (eps * base), lamch('S') (safe minimum).
#define ULP (sizeof(R) == 8 ? (R)DBL_EPSILON : (R)FLT_EPSILON)
#define SAFMIN (sizeof(R) == 8 ? (R)DBL_MIN : (R)FLT_MIN)

static inline void swap_t(__global T* x, __global T* y) {
  const T t = *x;
  *x = *y;
  *y = t;
}

// larfg / zlarfg: H = I - tau v v^H, v = (1, x), with H^H (alpha, x) = (beta, 0)
// and beta real; returns tau, sets *alpha = beta and x = v's tail. m: the
// reflector's order (x has m - 1 entries).
static T larfg(long m, T* alpha, __global T* x) {
  if (m <= 1) return MAKE_T(0, 0);
  R xnorm = 0;
  for (long i = 0; i < m - 1; ++i) xnorm = hypot(xnorm, ABSC(x[i]));
  R alphr = RE(*alpha), alphi = IM(*alpha);
  if (xnorm == 0 && alphi == 0) return MAKE_T(0, 0);
  R beta = -copysign(hypot(hypot(alphr, alphi), xnorm), alphr);
  const R safmin = SAFMIN / (ULP / 2), rsafmn = 1 / safmin;
  int knt = 0;
  if (fabs(beta) < safmin) {  // xnorm, beta may be inaccurate: scale x and recompute
    do {
      ++knt;
      for (long i = 0; i < m - 1; ++i) x[i] *= rsafmn;
      beta *= rsafmn;
      alphr *= rsafmn;
      alphi *= rsafmn;
    } while (fabs(beta) < safmin && knt < 20);
    xnorm = 0;
    for (long i = 0; i < m - 1; ++i) xnorm = hypot(xnorm, ABSC(x[i]));
    beta = -copysign(hypot(hypot(alphr, alphi), xnorm), alphr);
  }
  const T tau = MAKE_T((beta - alphr) / beta, -alphi / beta);
  const T scal = DIV(MAKE_T(1, 0), MAKE_T(alphr - beta, alphi));
  for (long i = 0; i < m - 1; ++i) x[i] = MUL(scal, x[i]);
  for (int j = 0; j < knt; ++j) beta *= safmin;
  *alpha = MAKE_T(beta, 0);
  return tau;
}

// gebal('B'): rows / columns isolating an eigenvalue pushed to the bottom /
// left (scale[] holds the swapped index there), then rows / columns ilo..ihi
// scaled by powers of 2 until their norms are balanced. Returns 0, or -3 for
// a NaN (the caller rejects non-finite input before).
static int gebal(__global T* a, long n, __global R* scale, long* ilo, long* ihi) {
  long k = 0, l = n - 1;
  bool noconv = true;
  while (noconv) {  // rows isolating an eigenvalue, pushed down
    noconv = false;
    for (long i = l; i >= 0; --i) {
      bool canswap = true;
      for (long j = 0; j <= l; ++j)
        if (i != j && !IS_ZERO(A_(i, j))) { canswap = false; break; }
      if (!canswap) continue;
      scale[l] = (R)i;
      if (i != l) {
        for (long r = 0; r <= l; ++r) swap_t(&A_(r, i), &A_(r, l));
        for (long c = k; c < n; ++c) swap_t(&A_(i, c), &A_(l, c));
      }
      noconv = true;
      if (l == 0) {
        *ilo = *ihi = 0;
        return 0;
      }
      --l;
    }
  }
  noconv = true;
  while (noconv) {  // columns isolating an eigenvalue, pushed left
    noconv = false;
    const long l0 = l;
    for (long j = k; j <= l0; ++j) {
      bool canswap = true;
      for (long i = k; i <= l; ++i)
        if (i != j && !IS_ZERO(A_(i, j))) { canswap = false; break; }
      if (!canswap) continue;
      scale[k] = (R)j;
      if (j != k) {
        for (long r = 0; r <= l; ++r) swap_t(&A_(r, j), &A_(r, k));
        for (long c = k; c < n; ++c) swap_t(&A_(j, c), &A_(k, c));
      }
      noconv = true;
      ++k;
    }
  }
  for (long i = k; i <= l; ++i) scale[i] = 1;
  const R sclfac = 2, factor = (R)0.95;
  const R sfmin1 = SAFMIN / ULP, sfmax1 = 1 / sfmin1, sfmin2 = sfmin1 * sclfac, sfmax2 = 1 / sfmin2;
  noconv = true;
  while (noconv) {
    noconv = false;
    for (long i = k; i <= l; ++i) {
      R c = 0, r = 0, ca = 0, ra = 0, ca1 = -1, ra1 = -1;
      for (long j = k; j <= l; ++j) {
        c = hypot(c, ABSC(A_(j, i)));
        r = hypot(r, ABSC(A_(i, j)));
      }
      for (long j = 0; j <= l; ++j)  // i?amax: the first largest |re| + |im| (complex) / |x|
        if (ABS1(A_(j, i)) > ca1) { ca1 = ABS1(A_(j, i)); ca = ABSC(A_(j, i)); }
      for (long j = k; j < n; ++j)
        if (ABS1(A_(i, j)) > ra1) { ra1 = ABS1(A_(i, j)); ra = ABSC(A_(i, j)); }
      if (c == 0 || r == 0) continue;
      if (isnan(c + ca + r + ra)) return -3;
      R g = r / sclfac, f = 1;
      const R s = c + r;
      while (c < g && fmax(f, fmax(c, ca)) < sfmax2 && fmin(r, fmin(g, ra)) > sfmin2) {
        f *= sclfac;
        c *= sclfac;
        ca *= sclfac;
        r /= sclfac;
        g /= sclfac;
        ra /= sclfac;
      }
      g = c / sclfac;
      while (g >= r && fmax(r, ra) < sfmax2 && fmin(fmin(f, c), fmin(g, ca)) > sfmin2) {
        f /= sclfac;
        c /= sclfac;
        g /= sclfac;
        ca /= sclfac;
        r *= sclfac;
        ra *= sclfac;
      }
      if (c + r >= factor * s) continue;
      if (f < 1 && scale[i] < 1 && f * scale[i] <= sfmin1) continue;
      if (f > 1 && scale[i] > 1 && scale[i] >= sfmax1 / f) continue;
      scale[i] *= f;
      noconv = true;
      for (long j = k; j < n; ++j) A_(i, j) *= 1 / f;
      for (long j = 0; j <= l; ++j) A_(j, i) *= f;
    }
  }
  *ilo = k;
  *ihi = l;
  return 0;
}

// gehd2: A = Q H Q^H on rows / columns ilo..ihi; with want_z, z = Q (orghr).
// Below H's first subdiagonal a is zeroed afterwards.
static void gehd2(__global T* a, __global T* z, long n, long ilo, long ihi, bool want_z) {
  for (long i = ilo; i < ihi; ++i) {
    const long m = ihi - i;  // the reflector acts on rows i+1..ihi
    __global T* v = &A_(i + 1, i);
    T beta = v[0];
    const T tau = larfg(m, &beta, v + 1);
    v[0] = MAKE_T(1, 0);
    for (long r = 0; r <= ihi; ++r) {  // A(0:ihi, i+1:ihi) (I - tau v v^H)
      T s = MAKE_T(0, 0);
      for (long q = 0; q < m; ++q) s += MUL(A_(r, i + 1 + q), v[q]);
      s = MUL(tau, s);
      for (long q = 0; q < m; ++q) A_(r, i + 1 + q) -= MUL(s, CONJ(v[q]));
    }
    for (long c = i + 1; c < n; ++c) {  // (I - tau v v^H)^H A(i+1:ihi, i+1:n)
      T s = MAKE_T(0, 0);
      for (long q = 0; q < m; ++q) s += MUL(CONJ(v[q]), A_(i + 1 + q, c));
      s = MUL(CONJ(tau), s);
      for (long q = 0; q < m; ++q) A_(i + 1 + q, c) -= MUL(v[q], s);
    }
    if (want_z) {
      for (long r = ilo; r <= ihi; ++r) {  // Z (I - tau v v^H)
        T s = MAKE_T(0, 0);
        for (long q = 0; q < m; ++q) s += MUL(Z_(r, i + 1 + q), v[q]);
        s = MUL(tau, s);
        for (long q = 0; q < m; ++q) Z_(r, i + 1 + q) -= MUL(s, CONJ(v[q]));
      }
    }
    v[0] = beta;
  }
  for (long j = 0; j < n; ++j)
    for (long i = j + 2; i < n; ++i) A_(i, j) = MAKE_T(0, 0);
}

// The small-subdiagonal test of lahqr / zlahqr (Ahues & Kressner): the
// largest k in l+1..i whose H(k, k-1) is negligible, else l.
static long deflation_point(__global T* a, long n, long l, long i, long ilo, long ihi, R smlnum) {
  long k = i;
  for (; k > l; --k) {
    if (ABS1(A_(k, k - 1)) <= smlnum) break;
    R tst = ABS1(A_(k - 1, k - 1)) + ABS1(A_(k, k));
    if (tst == 0) {
      if (k - 2 >= ilo) tst += fabs(RE(A_(k - 1, k - 2)));
      if (k + 1 <= ihi) tst += fabs(RE(A_(k + 1, k)));
    }
    if (fabs(RE(A_(k, k - 1))) <= ULP * tst) {
      const R hkk1 = ABS1(A_(k, k - 1)), hk1k = ABS1(A_(k - 1, k));
      const R ab = fmax(hkk1, hk1k), ba = fmin(hkk1, hk1k);
      const R hkk = ABS1(A_(k, k)), diff = ABS1(A_(k - 1, k - 1) - A_(k, k));
      const R aa = fmax(hkk, diff), bb = fmin(hkk, diff);
      const R s = aa + ab;
      if (ba * (ab / s) <= fmax(smlnum, ULP * (bb * (aa / s)))) break;
    }
  }
  return k;
}

#ifndef LA_COMPLEX
// lanv2: the standardised Schur factorisation of a real 2x2 block
// [a b; c d] = [cs -sn; sn cs] [aa bb; cc dd] [cs sn; -sn cs]: either
// triangular (real eigenvalues) or aa = dd, bb * cc < 0 (a complex pair).
static void lanv2(R* a, R* b, R* c, R* d, R* rt1r, R* rt1i, R* rt2r, R* rt2i, R* cs, R* sn) {
  const R eps = ULP;
  if (*c == 0) {
    *cs = 1;
    *sn = 0;
  } else if (*b == 0) {  // swap rows and columns
    *cs = 0;
    *sn = 1;
    const R temp = *d;
    *d = *a;
    *a = temp;
    *b = -*c;
    *c = 0;
  } else if (*a - *d == 0 && copysign((R)1, *b) != copysign((R)1, *c)) {
    *cs = 1;
    *sn = 0;
  } else {
    R temp = *a - *d;
    R p = temp / 2;
    const R bcmax = fmax(fabs(*b), fabs(*c));
    const R bcmis = fmin(fabs(*b), fabs(*c)) * copysign((R)1, *b) * copysign((R)1, *c);
    R scale = fmax(fabs(p), bcmax);
    R z = (p / scale) * p + (bcmax / scale) * bcmis;
    if (z >= 4 * eps) {  // real eigenvalues
      z = p + copysign(sqrt(scale) * sqrt(z), p);
      *a = *d + z;
      *d = *d - (bcmax / z) * bcmis;
      const R tau = hypot(*c, z);
      *cs = z / tau;
      *sn = *c / tau;
      *b = *b - *c;
      *c = 0;
    } else {  // complex or (almost) equal real eigenvalues: equal diagonal
      R sigma = *b + *c;
      const R tau = hypot(sigma, temp);
      *cs = sqrt((1 + fabs(sigma) / tau) / 2);
      *sn = -(p / (tau * *cs)) * copysign((R)1, sigma);
      const R aa = *a * *cs + *b * *sn, bb = -*a * *sn + *b * *cs;
      const R cc = *c * *cs + *d * *sn, dd = -*c * *sn + *d * *cs;
      *a = aa * *cs + cc * *sn;
      *b = bb * *cs + dd * *sn;
      *c = -aa * *sn + cc * *cs;
      *d = -bb * *sn + dd * *cs;
      temp = (*a + *d) / 2;
      *a = temp;
      *d = temp;
      if (*c != 0) {
        if (*b != 0) {
          if (copysign((R)1, *b) == copysign((R)1, *c)) {  // real eigenvalues: triangular
            const R sab = sqrt(fabs(*b)), sac = sqrt(fabs(*c));
            p = copysign(sab * sac, *c);
            const R t2 = 1 / sqrt(fabs(*b + *c));
            *a = temp + p;
            *d = temp - p;
            *b = *b - *c;
            *c = 0;
            const R cs1 = sab * t2, sn1 = sac * t2;
            const R t3 = *cs * cs1 - *sn * sn1;
            *sn = *cs * sn1 + *sn * cs1;
            *cs = t3;
          }
        } else {
          *b = -*c;
          *c = 0;
          const R t3 = *cs;
          *cs = -*sn;
          *sn = t3;
        }
      }
    }
  }
  *rt1r = *a;
  *rt2r = *d;
  if (*c == 0) {
    *rt1i = 0;
    *rt2i = 0;
  } else {
    *rt1i = sqrt(fabs(*b)) * sqrt(fabs(*c));
    *rt2i = -*rt1i;
  }
}

// Plane rotation of two rows / columns: x <- cs x + sn y, y <- cs y - sn x.
static inline void rot(__global T* x, __global T* y, long count, long stride, R cs, R sn) {
  for (long q = 0; q < count; ++q) {
    const R xv = x[q * stride], yv = y[q * stride];
    x[q * stride] = cs * xv + sn * yv;
    y[q * stride] = cs * yv - sn * xv;
  }
}

// lahqr's QR sweep on the active block l..i (the Francis double shift from
// the bottom 2x2, or an exceptional shift every kexsh iterations without a
// deflation), H and Z updated over i1..i2 / ilo..ihi.
static void qr_sweep(__global T* a, __global T* z, long n, long l, long i, long ilo, long ihi, long i1, long i2,
                     long kdefl, bool want_z) {
  const R dat1 = (R)0.75, dat2 = (R)-0.4375;
  const int kexsh = 10;
  R h11, h12, h21, h22;
  if (kdefl % (2 * kexsh) == 0) {  // exceptional shifts
    const R s = fabs(A_(i, i - 1)) + fabs(A_(i - 1, i - 2));
    h11 = dat1 * s + A_(i, i);
    h12 = dat2 * s;
    h21 = s;
    h22 = h11;
  } else if (kdefl % kexsh == 0) {
    const R s = fabs(A_(l + 1, l)) + fabs(A_(l + 2, l + 1));
    h11 = dat1 * s + A_(l, l);
    h12 = dat2 * s;
    h21 = s;
    h22 = h11;
  } else {  // Francis' double shift
    h11 = A_(i - 1, i - 1);
    h21 = A_(i, i - 1);
    h12 = A_(i - 1, i);
    h22 = A_(i, i);
  }
  R rt1r, rt1i, rt2r, rt2i;
  R s = fabs(h11) + fabs(h12) + fabs(h21) + fabs(h22);
  if (s == 0) {
    rt1r = rt1i = rt2r = rt2i = 0;
  } else {
    h11 /= s;
    h21 /= s;
    h12 /= s;
    h22 /= s;
    const R tr = (h11 + h22) / 2;
    const R det = (h11 - tr) * (h22 - tr) - h12 * h21;
    const R rtdisc = sqrt(fabs(det));
    if (det >= 0) {  // a complex conjugate pair of shifts
      rt1r = tr * s;
      rt2r = rt1r;
      rt1i = rtdisc * s;
      rt2i = -rt1i;
    } else {  // real shifts: the one closer to h22, twice
      rt1r = tr + rtdisc;
      rt2r = tr - rtdisc;
      if (fabs(rt1r - h22) <= fabs(rt2r - h22)) {
        rt1r *= s;
        rt2r = rt1r;
      } else {
        rt2r *= s;
        rt1r = rt2r;
      }
      rt1i = rt2i = 0;
    }
  }
  // two consecutive small subdiagonal entries: where the sweep starts
  long m = i - 2;
  R v[3];
  for (;; --m) {
    R h21s = A_(m + 1, m);
    s = fabs(A_(m, m) - rt2r) + fabs(rt2i) + fabs(h21s);
    h21s = A_(m + 1, m) / s;
    v[0] = h21s * A_(m, m + 1) + (A_(m, m) - rt1r) * ((A_(m, m) - rt2r) / s) - rt1i * (rt2i / s);
    v[1] = h21s * (A_(m, m) + A_(m + 1, m + 1) - rt1r - rt2r);
    v[2] = h21s * A_(m + 2, m + 1);
    s = fabs(v[0]) + fabs(v[1]) + fabs(v[2]);
    v[0] /= s;
    v[1] /= s;
    v[2] /= s;
    if (m == l) break;
    const R h00 = fabs(A_(m, m - 1)) * (fabs(v[1]) + fabs(v[2]));
    const R h01 = ULP * fabs(v[0]) * (fabs(A_(m - 1, m - 1)) + fabs(A_(m, m)) + fabs(A_(m + 1, m + 1)));
    if (h00 <= h01) break;
  }
  // the double-shift QR sweep: a bulge from row m chased down to row i
  for (long kk = m; kk <= i - 1; ++kk) {
    const long nr = min(3L, i - kk + 1);
    if (kk > m)
      for (long q = 0; q < nr; ++q) v[q] = A_(kk + q, kk - 1);
    R alpha = v[0];
    R t1;
    {  // larfg on the private v
      R xnorm = 0;
      for (long q = 1; q < nr; ++q) xnorm = hypot(xnorm, v[q]);
      if (xnorm == 0) {
        t1 = 0;
      } else {
        R beta = -copysign(hypot(alpha, xnorm), alpha);
        const R safmin = SAFMIN / (ULP / 2), rsafmn = 1 / safmin;
        int knt = 0;
        if (fabs(beta) < safmin) {
          do {
            ++knt;
            for (long q = 1; q < nr; ++q) v[q] *= rsafmn;
            beta *= rsafmn;
            alpha *= rsafmn;
          } while (fabs(beta) < safmin && knt < 20);
          xnorm = 0;
          for (long q = 1; q < nr; ++q) xnorm = hypot(xnorm, v[q]);
          beta = -copysign(hypot(alpha, xnorm), alpha);
        }
        t1 = (beta - alpha) / beta;
        const R scal = 1 / (alpha - beta);
        for (long q = 1; q < nr; ++q) v[q] *= scal;
        for (int j = 0; j < knt; ++j) beta *= safmin;
        alpha = beta;
      }
      v[0] = alpha;
    }
    if (kk > m) {
      A_(kk, kk - 1) = v[0];
      A_(kk + 1, kk - 1) = 0;
      if (kk < i - 1) A_(kk + 2, kk - 1) = 0;
    } else if (m > l) {
      A_(kk, kk - 1) *= (1 - t1);  // not -H(k, k-1): v(2), v(3) may underflow
    }
    const R v2 = v[1], t2 = t1 * v2;
    if (nr == 3) {
      const R v3 = v[2], t3 = t1 * v3;
      for (long j = kk; j <= i2; ++j) {
        const R sum = A_(kk, j) + v2 * A_(kk + 1, j) + v3 * A_(kk + 2, j);
        A_(kk, j) -= sum * t1;
        A_(kk + 1, j) -= sum * t2;
        A_(kk + 2, j) -= sum * t3;
      }
      for (long j = i1; j <= min(kk + 3, i); ++j) {
        const R sum = A_(j, kk) + v2 * A_(j, kk + 1) + v3 * A_(j, kk + 2);
        A_(j, kk) -= sum * t1;
        A_(j, kk + 1) -= sum * t2;
        A_(j, kk + 2) -= sum * t3;
      }
      if (want_z)
        for (long j = ilo; j <= ihi; ++j) {
          const R sum = Z_(j, kk) + v2 * Z_(j, kk + 1) + v3 * Z_(j, kk + 2);
          Z_(j, kk) -= sum * t1;
          Z_(j, kk + 1) -= sum * t2;
          Z_(j, kk + 2) -= sum * t3;
        }
    } else if (nr == 2) {
      for (long j = kk; j <= i2; ++j) {
        const R sum = A_(kk, j) + v2 * A_(kk + 1, j);
        A_(kk, j) -= sum * t1;
        A_(kk + 1, j) -= sum * t2;
      }
      for (long j = i1; j <= i; ++j) {
        const R sum = A_(j, kk) + v2 * A_(j, kk + 1);
        A_(j, kk) -= sum * t1;
        A_(j, kk + 1) -= sum * t2;
      }
      if (want_z)
        for (long j = ilo; j <= ihi; ++j) {
          const R sum = Z_(j, kk) + v2 * Z_(j, kk + 1);
          Z_(j, kk) -= sum * t1;
          Z_(j, kk + 1) -= sum * t2;
        }
    }
  }
}

// A deflated 1x1 block (l == i) or 2x2 block (l == i - 1) at the bottom: its
// eigenvalues; a 2x2 block standardised by lanv2, the rotation applied to
// the rest of H (wantt) and to Z.
static void split_off(__global T* a, __global T* z, __global R* w, long n, long l, long i, long ilo, long ihi,
                      long i1, long i2, bool wantt, bool want_z) {
  if (l == i) {  // one eigenvalue
    w[2 * i] = A_(i, i);
    w[2 * i + 1] = 0;
  } else {  // a 2x2 block: standardised, the rotation applied to the rest of H and Z
    R aa = A_(i - 1, i - 1), bb = A_(i - 1, i), cc = A_(i, i - 1), dd = A_(i, i);
    R cs, sn, rt1r, rt1i, rt2r, rt2i;
    lanv2(&aa, &bb, &cc, &dd, &rt1r, &rt1i, &rt2r, &rt2i, &cs, &sn);
    w[2 * (i - 1)] = rt1r;
    w[2 * (i - 1) + 1] = rt1i;
    w[2 * i] = rt2r;
    w[2 * i + 1] = rt2i;
    A_(i - 1, i - 1) = aa;
    A_(i - 1, i) = bb;
    A_(i, i - 1) = cc;
    A_(i, i) = dd;
    if (wantt) {
      if (i2 > i) rot(&A_(i - 1, i + 1), &A_(i, i + 1), i2 - i, n, cs, sn);
      rot(&A_(i1, i - 1), &A_(i1, i), i - i1 - 1, 1, cs, sn);
    }
    if (want_z) rot(&Z_(ilo, i - 1), &Z_(ilo, i), ihi - ilo + 1, 1, cs, sn);
  }
}

// Rows in a block that splits off: a real 2x2 block holds a complex pair.
#define SPLIT_ROWS 2
#else
// zlahqr's QR sweep on the active block l..i (Wilkinson's shift, or an
// exceptional one every kexsh iterations without a deflation), keeping the
// subdiagonal real.
static void qr_sweep(__global T* a, __global T* z, long n, long l, long i, long ilo, long ihi, long i1, long i2,
                     long kdefl, bool want_z) {
  const R dat1 = (R)0.75;
  const int kexsh = 10;
  T t;
  if (kdefl % (2 * kexsh) == 0) {  // exceptional shifts
    t = MAKE_T(dat1 * fabs(A_(i, i - 1).x), 0) + A_(i, i);
  } else if (kdefl % kexsh == 0) {
    t = MAKE_T(dat1 * fabs(A_(l + 1, l).x), 0) + A_(l, l);
  } else {  // Wilkinson's shift
    t = A_(i, i);
    const T u = c_mul(c_sqrt(A_(i - 1, i)), c_sqrt(A_(i, i - 1)));
    R s = ABS1(u);
    if (s != 0) {
      const T x = (A_(i - 1, i - 1) - t) / 2;
      const R sx = ABS1(x);
      s = fmax(s, sx);
      const T xs = x / s, us = u / s;
      T y = s * c_sqrt(c_mul(xs, xs) + c_mul(us, us));
      if (sx > 0 && (x.x / sx) * y.x + (x.y / sx) * y.y < 0) y = -y;
      t -= c_mul(u, c_div(u, x + y));
    }
  }
  long m = i - 1;
  T v0;
  R v1;
  for (;; --m) {
    const T h11 = A_(m, m), h22 = A_(m + 1, m + 1);
    T h11s = h11 - t;
    R h21 = A_(m + 1, m).x;
    const R s = ABS1(h11s) + fabs(h21);
    h11s /= s;
    h21 /= s;
    v0 = h11s;
    v1 = h21;
    if (m == l) break;
    const R h10 = A_(m, m - 1).x;
    if (fabs(h10) * fabs(h21) <= ULP * (ABS1(h11s) * (ABS1(h11) + ABS1(h22)))) break;
  }
  // the single-shift QR sweep from row m to row i
  for (long kk = m; kk <= i - 1; ++kk) {
    T vv0 = v0, vv1 = MAKE_T(v1, 0);
    if (kk > m) {
      vv0 = A_(kk, kk - 1);
      vv1 = A_(kk + 1, kk - 1);
    }
    // zlarfg of order 2 on (vv0, vv1)
    T t1 = MAKE_T(0, 0);
    {
      R xnorm = c_abs(vv1);
      R alphr = vv0.x, alphi = vv0.y;
      if (!(xnorm == 0 && alphi == 0)) {
        R beta = -copysign(hypot(hypot(alphr, alphi), xnorm), alphr);
        const R safmin = SAFMIN / (ULP / 2), rsafmn = 1 / safmin;
        int knt = 0;
        if (fabs(beta) < safmin) {
          do {
            ++knt;
            vv1 *= rsafmn;
            beta *= rsafmn;
            alphr *= rsafmn;
            alphi *= rsafmn;
          } while (fabs(beta) < safmin && knt < 20);
          xnorm = c_abs(vv1);
          beta = -copysign(hypot(hypot(alphr, alphi), xnorm), alphr);
        }
        t1 = MAKE_T((beta - alphr) / beta, -alphi / beta);
        vv1 = c_mul(c_div(MAKE_T(1, 0), MAKE_T(alphr - beta, alphi)), vv1);
        for (int j = 0; j < knt; ++j) beta *= safmin;
        vv0 = MAKE_T(beta, 0);
      }
    }
    if (kk > m) {
      A_(kk, kk - 1) = vv0;
      A_(kk + 1, kk - 1) = MAKE_T(0, 0);
    }
    const T v2 = vv1;
    const R t2 = c_mul(t1, v2).x;
    for (long j = kk; j <= i2; ++j) {
      const T sum = c_mul(c_conj(t1), A_(kk, j)) + t2 * A_(kk + 1, j);
      A_(kk, j) -= sum;
      A_(kk + 1, j) -= c_mul(sum, v2);
    }
    for (long j = i1; j <= min(kk + 2, i); ++j) {
      const T sum = c_mul(t1, A_(j, kk)) + t2 * A_(j, kk + 1);
      A_(j, kk) -= sum;
      A_(j, kk + 1) -= c_mul(sum, c_conj(v2));
    }
    if (want_z)
      for (long j = ilo; j <= ihi; ++j) {
        const T sum = c_mul(t1, Z_(j, kk)) + t2 * Z_(j, kk + 1);
        Z_(j, kk) -= sum;
        Z_(j, kk + 1) -= c_mul(sum, c_conj(v2));
      }
    if (kk == m && m > l) {  // keep H(m, m-1) real
      T temp = MAKE_T(1, 0) - t1;
      temp /= c_abs(temp);
      A_(m + 1, m) = c_mul(A_(m + 1, m), c_conj(temp));
      if (m + 2 <= i) A_(m + 2, m + 1) = c_mul(A_(m + 2, m + 1), temp);
      for (long j = m; j <= i; ++j) {
        if (j == m + 1) continue;
        if (i2 > j)
          for (long q = j + 1; q <= i2; ++q) A_(j, q) = c_mul(temp, A_(j, q));
        for (long q = i1; q < j; ++q) A_(q, j) = c_mul(c_conj(temp), A_(q, j));
        if (want_z)
          for (long q = ilo; q <= ihi; ++q) Z_(q, j) = c_mul(c_conj(temp), Z_(q, j));
      }
    }
  }
  T temp = A_(i, i - 1);  // keep H(i, i-1) real
  if (temp.y != 0) {
    const R rtemp = c_abs(temp);
    A_(i, i - 1) = MAKE_T(rtemp, 0);
    temp /= rtemp;
    if (i2 > i)
      for (long q = i + 1; q <= i2; ++q) A_(i, q) = c_mul(c_conj(temp), A_(i, q));
    for (long q = i1; q < i; ++q) A_(q, i) = c_mul(temp, A_(q, i));
    if (want_z)
      for (long q = ilo; q <= ihi; ++q) Z_(q, i) = c_mul(temp, Z_(q, i));
  }
}

static void split_off(__global T* a, __global T* z, __global R* w, long n, long l, long i, long ilo, long ihi,
                      long i1, long i2, bool wantt, bool want_z) {
  w[2 * i] = A_(i, i).x;
  w[2 * i + 1] = A_(i, i).y;
}

// zlahqr first makes the subdiagonal real (scaling rows / columns of H and Z).
static void real_subdiagonal(__global T* a, __global T* z, long n, long ilo, long ihi, bool wantt, bool want_z) {
  const long jlo = wantt ? 0 : ilo, jhi = wantt ? n - 1 : ihi;
  for (long i = ilo + 1; i <= ihi; ++i) {  // real subdiagonal
    if (A_(i, i - 1).y != 0) {
      T sc = A_(i, i - 1) / ABS1(A_(i, i - 1));
      sc = c_conj(sc) / c_abs(sc);
      A_(i, i - 1) = MAKE_T(c_abs(A_(i, i - 1)), 0);
      for (long j = i; j <= jhi; ++j) A_(i, j) = c_mul(sc, A_(i, j));
      for (long j = jlo; j <= min(jhi, i + 1); ++j) A_(j, i) = c_mul(c_conj(sc), A_(j, i));
      if (want_z)
        for (long j = ilo; j <= ihi; ++j) Z_(j, i) = c_mul(c_conj(sc), Z_(j, i));
    }
  }
}

#define SPLIT_ROWS 1
#endif

// lahqr / zlahqr: the (real quasi-triangular / complex triangular) Schur form
// of the Hessenberg rows / columns ilo..ihi (wantt: the whole T; else only the
// eigenvalues), Z updated with want_z. w: (re, im) per eigenvalue. Returns
// LAPACK's info (0, or the row that did not converge + 1).
static int lahqr(__global T* a, __global T* z, __global R* w, long n, long ilo, long ihi, bool wantt, bool want_z) {
  if (ilo == ihi) {
    w[2 * ilo] = RE(A_(ilo, ilo));
    w[2 * ilo + 1] = IM(A_(ilo, ilo));
    return 0;
  }
#ifdef LA_COMPLEX
  real_subdiagonal(a, z, n, ilo, ihi, wantt, want_z);
#endif
  const long nh = ihi - ilo + 1;
  const R smlnum = SAFMIN * ((R)nh / ULP);
  long i1 = 0, i2 = n - 1;
  const long itmax = 30 * max(10L, nh);
  long kdefl = 0;
  long i = ihi;
  while (i >= ilo) {
    long l = ilo;
    bool converged = false;
    for (long its = 0; its <= itmax; ++its) {
      l = deflation_point(a, n, l, i, ilo, ihi, smlnum);
      if (l > ilo) A_(l, l - 1) = MAKE_T(0, 0);
      if (l > i - SPLIT_ROWS) {  // a block of SPLIT_ROWS rows or fewer split off at the bottom
        converged = true;
        break;
      }
      ++kdefl;
      if (!wantt) {
        i1 = l;
        i2 = i;
      }
      qr_sweep(a, z, n, l, i, ilo, ihi, i1, i2, kdefl, want_z);
    }
    if (!converged) return (int)(i + 1);
    split_off(a, z, w, n, l, i, ilo, ihi, i1, i2, wantt, want_z);
    kdefl = 0;
    i = l - 1;
  }
  return 0;
}

// geev up to the Schur form: a (column-major, overwritten by T), z (= Z
// with want_v), w (re, im per eigenvalue), scale and range (ilo, ihi) for
// the eigenvectors' back transformation, info (lahqr's).
__kernel void geev_schur(__global char* ab, ulong ao, __global char* zb, ulong zo, __global char* wb, ulong wo,
                         __global char* sb, ulong so, __global char* rb, ulong ro, __global char* ib, ulong io,
                         long n, long count, int want_v) {
  for (long b = get_global_id(0); b < count; b += get_global_size(0)) {
    __global T* a = PTR(T, ab, ao) + b * n * n;
    __global T* z = PTR(T, zb, zo) + (want_v ? b * n * n : 0);
    __global R* w = PTR(R, wb, wo) + b * 2 * n;
    __global R* scale = PTR(R, sb, so) + b * n;
    __global int* range = PTR(int, rb, ro) + b * 2;
    __global int* info = PTR(int, ib, io) + b;
    // geev's scaling of a matrix whose largest entry is out of [smlnum, bignum]
    R anrm = 0;
    for (long q = 0; q < n * n; ++q) anrm = fmax(anrm, ABSC(a[q]));
    const R smlnum = sqrt(SAFMIN) / ULP, bignum = 1 / smlnum;
    R cscale = 0;
    if (anrm > 0 && anrm < smlnum) cscale = smlnum;
    else if (anrm > bignum) cscale = bignum;
    if (cscale != 0)
      for (long q = 0; q < n * n; ++q) a[q] *= cscale / anrm;
    long ilo, ihi;
    int status = gebal(a, n, scale, &ilo, &ihi);
    if (status == 0) {
      if (want_v)
        for (long j = 0; j < n; ++j)
          for (long q = 0; q < n; ++q) Z_(q, j) = MAKE_T(q == j ? 1 : 0, 0);
      gehd2(a, z, n, ilo, ihi, want_v);
      for (long q = 0; q < ilo; ++q) {  // eigenvalues isolated by gebal
        w[2 * q] = RE(A_(q, q));
        w[2 * q + 1] = IM(A_(q, q));
      }
      for (long q = ihi + 1; q < n; ++q) {
        w[2 * q] = RE(A_(q, q));
        w[2 * q + 1] = IM(A_(q, q));
      }
      status = lahqr(a, z, w, n, ilo, ihi, want_v, want_v);
    }
    if (cscale != 0)
      for (long q = 0; q < 2 * n; ++q) w[q] *= anrm / cscale;
    range[0] = (int)ilo;
    range[1] = (int)ihi;
    *info = status;
  }
}

#ifdef LA_COMPLEX
// Solves the 1x1 or 2x2 (rows j-1, j) diagonal block of (T - lambda I) x = rhs,
// perturbing a pivot smaller than smin to smin (as laln2 / ztrevc).
static inline T solve1(T d, T rhs, R smin) {
  if (ABS1(d) < smin) d = MAKE_T(smin, 0);
  return c_div(rhs, d);
}

// Eigenvectors (geev's trevc, back transformation, gebak and normalisation)
// from geev_schur's Schur form t and z (here complex copies), one matrix per
// work item: v column k = the eigenvector of w[k], unit 2-norm, its largest
// component real (real input: LAPACK's sign conventions; a complex pair's
// second vector the conjugate of the first). x: n complex per matrix.
__kernel void geev_vectors(__global char* tb, ulong to, __global char* zb, ulong zo, __global char* wb, ulong wo,
                           __global char* sb, ulong so, __global char* rb, ulong ro, __global char* xb, ulong xo,
                           __global char* vb, ulong vo, long n, long count, int real_input) {
  for (long b = get_global_id(0); b < count; b += get_global_size(0)) {
    __global T* a = PTR(T, tb, to) + b * n * n;  // T, the Schur form
    __global T* z = PTR(T, zb, zo) + b * n * n;
    __global R* w = PTR(R, wb, wo) + b * 2 * n;
    __global R* scale = PTR(R, sb, so) + b * n;
    __global int* range = PTR(int, rb, ro) + b * 2;
    __global T* x = PTR(T, xb, xo) + b * n;
    __global T* v = PTR(T, vb, vo) + b * n * n;
    const long ilo = range[0], ihi = range[1];
    const R smlnum = SAFMIN * ((R)n / ULP);
    for (long k = n - 1; k >= 0; --k) {
      const bool pair_second = real_input && k > 0 && A_(k, k - 1).x != 0;  // (k-1, k) a 2x2 block
      if (pair_second) continue;  // the conjugate of k-1's vector, below
      const bool pair_first = real_input && k + 1 < n && A_(k + 1, k).x != 0;
      // the eigenvalue as trevc reads it off T (w is unscaled when geev scaled the matrix)
      const R wi = pair_first ? sqrt(fabs(A_(k, k + 1).x)) * sqrt(fabs(A_(k + 1, k).x)) : 0;
      const T lambda = A_(k, k) + MAKE_T(0, wi);
      const R smin = fmax(ULP * ABS1(lambda), smlnum);
      long top = k;  // x[0..top] nonzero
      for (long q = 0; q < n; ++q) x[q] = MAKE_T(0, 0);
      if (pair_first) {  // trevc's start on the block (k, k+1): eigenvalue re + i wi, wi > 0
        if (fabs(A_(k, k + 1).x) >= fabs(A_(k + 1, k).x)) {
          x[k] = MAKE_T(1, 0);
          x[k + 1] = MAKE_T(0, wi / A_(k, k + 1).x);
        } else {
          x[k] = MAKE_T(-wi / A_(k + 1, k).x, 0);
          x[k + 1] = MAKE_T(0, 1);
        }
        top = k + 1;
      } else {
        x[k] = MAKE_T(1, 0);
      }
      for (long j = k - 1; j >= 0;) {
        const bool block = real_input && j > 0 && A_(j, j - 1).x != 0;
        T r1 = MAKE_T(0, 0);
        for (long q = j + 1; q <= top; ++q) r1 -= c_mul(A_(j, q), x[q]);
        if (!block) {
          x[j] = solve1(A_(j, j) - lambda, r1, smin);
          --j;
          continue;
        }
        T r0 = MAKE_T(0, 0);
        for (long q = j + 1; q <= top; ++q) r0 -= c_mul(A_(j - 1, q), x[q]);
        // [a00 a01; a10 a11] (x[j-1], x[j]) = (r0, r1), partial pivoting
        T a00 = A_(j - 1, j - 1) - lambda, a01 = A_(j - 1, j), a10 = A_(j, j - 1), a11 = A_(j, j) - lambda;
        if (ABS1(a10) > ABS1(a00)) {
          T t = a00; a00 = a10; a10 = t;
          t = a01; a01 = a11; a11 = t;
          t = r0; r0 = r1; r1 = t;
        }
        if (ABS1(a00) < smin) a00 = MAKE_T(smin, 0);
        const T l10 = c_div(a10, a00);
        const T u11 = a11 - c_mul(l10, a01);
        const T y1 = solve1(u11, r1 - c_mul(l10, r0), smin);
        x[j] = y1;
        x[j - 1] = c_div(r0 - c_mul(a01, y1), a00);
        j -= 2;
      }
      // back transformation: v_k = Z x
      for (long r = 0; r < n; ++r) {
        T s = MAKE_T(0, 0);
        for (long q = 0; q <= top; ++q) s += c_mul(Z_(r, q), x[q]);
        v[r + k * n] = s;
      }
      if (pair_first)
        for (long r = 0; r < n; ++r) v[r + (k + 1) * n] = c_conj(v[r + k * n]);
    }
    // gebak: undo the scaling (none when the permutations isolated every
    // eigenvalue: scale[ilo] is then a permutation index), then the permutations
    if (ilo != ihi)
      for (long r = ilo; r <= ihi; ++r)
        for (long k = 0; k < n; ++k) v[r + k * n] *= scale[r];
    for (long ii = 0; ii < n; ++ii) {
      long r = ii;
      if (r >= ilo && r <= ihi) continue;
      if (r < ilo) r = ilo - 1 - ii;
      const long s = (long)scale[r];
      if (s != r)
        for (long k = 0; k < n; ++k) {
          const T t = v[r + k * n];
          v[r + k * n] = v[s + k * n];
          v[s + k * n] = t;
        }
    }
    // geev's normalisation: unit 2-norm; a complex vector's largest component real
    for (long k = 0; k < n; ++k) {
      __global T* col = v + k * n;
      if (real_input && w[2 * k + 1] < 0) continue;  // the conjugate of the previous column, set with it
      R nrm = 0;
      for (long r = 0; r < n; ++r) nrm = hypot(nrm, c_abs(col[r]));
      if (nrm > 0)
        for (long r = 0; r < n; ++r) col[r] /= nrm;
      if (real_input && w[2 * k + 1] == 0) {
        for (long r = 0; r < n; ++r) col[r].y = 0;  // a real eigenvector of a real matrix
        continue;
      }
      long big = 0;
      R bigv = -1;
      for (long r = 0; r < n; ++r)
        if (col[r].x * col[r].x + col[r].y * col[r].y > bigv) { bigv = col[r].x * col[r].x + col[r].y * col[r].y; big = r; }
      if (bigv > 0) {
        // real input: lartg's rotation, its sign as MKL's (measured on 2000 random 5x5 matrices:
        // dlartg as the reference LAPACK before 3.10, negative when the real part is negative and
        // the larger; slartg as from 3.10, the sign of the real part); complex: positive
        const R f = col[big].x, g = col[big].y;
        const bool negative = sizeof(R) == 8 ? (fabs(f) > fabs(g) && f < 0) || (f == 0 && g < 0) : f < 0;
        const R sgn = real_input && negative ? (R)-1 : (R)1;
        const T phase = sgn * c_conj(col[big]) / sqrt(bigv);
        for (long r = 0; r < n; ++r) col[r] = c_mul(phase, col[r]);
        col[big].y = 0;
      }
      if (real_input && w[2 * k + 1] > 0 && k + 1 < n)
        for (long r = 0; r < n; ++r) v[r + (k + 1) * n] = c_conj(col[r]);
    }
  }
}
#endif
