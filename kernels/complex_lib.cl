// Complex helpers of the generated pointwise kernels (kernels/pointwise_engine.cpp
// includes this file instead of pointwise_lib.cl when T is complex):
// T is float2 / double2 (x = real part, y = imaginary part), R its real type.
// Each follows what the CPU computes (c10::complex and its std:: functions).

#define C_PI ((R)3.14159265358979323846)
#define C_INF ((R)INFINITY)
#define C_NAN ((R)NAN)

static inline T c_make(R re, R im) { return (T)(re, im); }
static inline T c_conj(T a) { return (T)(a.x, -a.y); }
static inline R c_abs(T a) { return hypot(a.x, a.y); }
static inline R c_arg(T a) { return atan2(a.y, a.x); }
// The naive product, as c10::complex's operator*.
static inline T c_mul(T a, T b) { return (T)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
// Smith's scaled division, as c10::complex's operator/ (0 / 0 gives NaN, x / 0 inf).
static inline T c_div(T a, T b) {
  const R ac = fabs(b.x), ad = fabs(b.y);
  if (ac >= ad) {
    if (ac == (R)0 && ad == (R)0) return (T)(a.x / ac, a.y / ad);
    const R rat = b.y / b.x, scl = (R)1 / (b.x + b.y * rat);
    return (T)((a.x + a.y * rat) * scl, (a.y - a.x * rat) * scl);
  }
  const R rat = b.x / b.y, scl = (R)1 / (b.y + b.x * rat);
  return (T)((a.x * rat + a.y) * scl, (a.y * rat - a.x) * scl);
}
static inline T c_recip(T a) { return c_div((T)((R)1, (R)0), a); }
// As std::exp of a c10::complex (glibc's cexp, C99 Annex G): e^(-inf + i(inf
// or NaN)) is +-0, e^(inf + i(inf or NaN)) is inf + i NaN (the product form
// gives NaN + i NaN there).
static inline T c_exp(T a) {
  if (a.y == (R)0) return (T)(exp(a.x), a.y);  // real input: exact, keeps the sign of 0
  if (isinf(a.x) && !isfinite(a.y)) return a.x < (R)0 ? (T)((R)0, copysign((R)0, a.y)) : (T)(C_INF, C_NAN);
  const R e = exp(a.x);
  return (T)(e * cos(a.y), e * sin(a.y));
}
// log|a|: near |a| = 1 as 0.5 log1p(|a|^2 - 1) with |a|^2 - 1 = (h - 1)(h + 1) + l^2
// (h, l the larger and smaller of |re|, |im|; h - 1 exact), as glibc's clog
// (the CPU's std::log) keeps its precision there; else log(hypot).
static inline R c_log_abs(T a) {
  const R h = fmax(fabs(a.x), fabs(a.y)), l = fmin(fabs(a.x), fabs(a.y));
  if (h >= (R)0.5 && h <= (R)2 && !isnan(a.x) && !isnan(a.y))  // (fmax / fmin drop a NaN)
    return (R)0.5 * log1p(fma(h - (R)1, h + (R)1, l * l));
  return log(c_abs(a));
}
static inline T c_log(T a) { return (T)(c_log_abs(a), c_arg(a)); }
// The principal root, without cancellation: t = sqrt((|x| + |z|) / 2).
static inline T c_sqrt(T a) {
  if (a.x == (R)0 && a.y == (R)0) return (T)((R)0, a.y);
  if (isinf(a.y)) return (T)(C_INF, a.y);
  const R t = sqrt((fabs(a.x) + c_abs(a)) * (R)0.5);
  if (a.x >= (R)0) return (T)(t, a.y / (t + t));
  return (T)(fabs(a.y) / (t + t), copysign(t, a.y));
}
static inline T c_rsqrt(T a) { return c_recip(c_sqrt(a)); }
// z / |z|, 0 for 0 (torch.sgn).
static inline T c_sgn(T a) {
  const R r = c_abs(a);
  return r == (R)0 ? (T)((R)0, (R)0) : (T)(a.x / r, a.y / r);
}
// (sinh x cos y, cosh x sin y), or with `cosh_first` (cosh x cos y,
// sinh x sin y). Past the overflow of sinh / cosh (|x| > t, t = 88 in float,
// 709 in double) in glibc's steps, so that a representable product stays
// finite and rounds as the CPU's: e^|x| / 2 = (e^t / 2) e^t ... e^(|x| - kt).
static inline T c_hyp_cis(R x, R y, int cosh_first) {
  const R sy = sin(y), cy = cos(y);
  const R t = sizeof(R) == 4 ? (R)88 : (R)709;
  if (fabs(x) <= t)
    return cosh_first ? (T)(cosh(x) * cy, sinh(x) * sy) : (T)(sinh(x) * cy, cosh(x) * sy);
  const R sign = copysign((R)1, x), et = exp(t);
  R re = (cosh_first ? (R)1 : sign) * cy, im = (cosh_first ? sign : (R)1) * sy;
  R rx = fabs(x) - t;
  re *= et / (R)2;
  im *= et / (R)2;
  for (int k = 0; k < 2 && rx > t; ++k) {  // (glibc's second step, then its overflow)
    rx -= t;
    re *= et;
    im *= et;
  }
  const R ev = rx > t ? (R)1 : exp(rx);
  return (T)(ev * re, ev * im);
}
// sinh and cosh of x + iy as std::sinh / std::cosh of a c10::complex (glibc's
// csinh / ccosh, C99 Annex G): the product forms sinh x cos y + i cosh x sin y
// and cosh x cos y + i sinh x sin y, except where a factor is 0 and the other
// infinite or NaN (a real or imaginary input, an infinite x): there the part
// is that 0, and an infinite x with a non-finite y gives +inf + i NaN.
static inline T c_sinh(T a) {
  const R x = a.x, y = a.y;
  if (y == (R)0) return (T)(isfinite(x) ? sinh(x) : x, y);
  if (x == (R)0) return (T)(x, isfinite(y) ? sin(y) : y - y);
  if (isinf(x) && !isfinite(y)) return (T)(C_INF, y - y);
  return c_hyp_cis(x, y, 0);
}
static inline T c_cosh(T a) {
  const R x = a.x, y = a.y;
  if (y == (R)0) return (T)(isfinite(x) ? cosh(x) : fabs(x), isnan(x) ? y : copysign((R)1, x) * y);
  if (x == (R)0) return (T)(isfinite(y) ? cos(y) : y - y, isfinite(y) ? x * sin(y) : x);
  if (isinf(x) && !isfinite(y)) return (T)(C_INF, y - y);
  return c_hyp_cis(x, y, 1);
}
// sin z = -i sinh(iz), cos z = cosh(iz) (how C99 defines csin / ccos),
// except that glibc's csin gives NaN + i inf for any non-finite re with an
// infinite im (the identity would give the sign of -re there).
static inline T c_sin(T a) {
  if (!isfinite(a.x) && isinf(a.y)) return (T)(C_NAN, C_INF);
  const T s = c_sinh((T)(-a.y, a.x));
  return (T)(s.y, -s.x);
}
static inline T c_cos(T a) { return c_cosh((T)(-a.y, a.x)); }
// tanh(x + iy) = (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y), as
// glibc's ctanh (the CPU's std::tanh): no cancellation near the poles (the
// form (sinh 2x + i sin 2y) / (cosh 2x + cos 2y) loses digits there); for
// large |x| the limit sign(x) + i 4 sin y cos y e^(-2|x|). Special values as
// glibc's: x = +-inf gives +-1 + i(+-0); y = inf or NaN gives x + i NaN for
// x = +-0, else NaN + i NaN; x = NaN keeps y = 0.
static inline T c_tanh(T a) {
  if (isinf(a.x)) return (T)(copysign((R)1, a.x), copysign((R)0, isfinite(a.y) ? sin(a.y) * cos(a.y) : a.y));
  if (isnan(a.x)) return (T)(a.x, a.y == (R)0 ? a.y : C_NAN);
  if (!isfinite(a.y)) return (T)(a.x == (R)0 ? a.x : C_NAN, C_NAN);
  const R sy = sin(a.y), cy = cos(a.y);
  if (fabs(a.x) > (R)20) return (T)(copysign((R)1, a.x), (R)4 * sy * cy * exp((R)-2 * fabs(a.x)));
  const R sx = sinh(a.x), den = sx * sx + cy * cy;
  return (T)(sx * cosh(a.x) / den, sy * cy / den);
}
// tan(z) = -i tanh(iz)
static inline T c_tan(T a) {
  const T t = c_tanh((T)(-a.y, a.x));
  return (T)(t.y, -t.x);
}
static inline T c_sigmoid(T a) { return c_recip((T)((R)1, (R)0) + c_exp(-a)); }
// The product as C's complex multiplication (C99 Annex G, GCC's __muldc3):
// the naive product, except that a NaN + i NaN result from infinite operands
// or overflowing partial products is recovered as an infinity.
static inline T c_mul_c99(T p, T q) {
  R a = p.x, b = p.y, c = q.x, d = q.y;
  const R ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  T r = (T)(ac - bd, ad + bc);
  if (!isnan(r.x) || !isnan(r.y)) return r;
  int recalc = 0;
  if (isinf(a) || isinf(b)) {
    a = copysign(isinf(a) ? (R)1 : (R)0, a);
    b = copysign(isinf(b) ? (R)1 : (R)0, b);
    if (isnan(c)) c = copysign((R)0, c);
    if (isnan(d)) d = copysign((R)0, d);
    recalc = 1;
  }
  if (isinf(c) || isinf(d)) {
    c = copysign(isinf(c) ? (R)1 : (R)0, c);
    d = copysign(isinf(d) ? (R)1 : (R)0, d);
    if (isnan(a)) a = copysign((R)0, a);
    if (isnan(b)) b = copysign((R)0, b);
    recalc = 1;
  }
  if (!recalc && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
    if (isnan(a)) a = copysign((R)0, a);
    if (isnan(b)) b = copysign((R)0, b);
    if (isnan(c)) c = copysign((R)0, c);
    if (isnan(d)) d = copysign((R)0, d);
    recalc = 1;
  }
  if (recalc) r = (T)(C_INF * (a * c - b * d), C_INF * (a * d + b * c));
  return r;
}
// a ** b = exp(b log a) with C's complex product, as the CPU's tensor ** tensor
// kernel (glibc's cpow through std::pow; 0 ** b is NaN there too).
static inline T c_pow(T a, T b) { return c_exp(c_mul_c99(b, c_log(a))); }
// pow(tensor, scalar) as the CPU's kernel: 2, 3 and -2 by products, 0.5 /
// -0.5 / -1 by sqrt / rsqrt / reciprocal, others by exp(b log a).
static inline T c_pow_scalar(T a, T b) {
  if (b.y == (R)0) {
    if (b.x == (R)2) return c_mul(a, a);
    if (b.x == (R)3) return c_mul(c_mul(a, a), a);
    if (b.x == (R)-2) return c_recip(c_mul(a, a));
    if (b.x == (R)0.5) return c_sqrt(a);
    if (b.x == (R)-0.5) return c_rsqrt(a);
    if (b.x == (R)-1) return c_recip(a);
  }
  if (a.x == (R)0 && a.y == (R)0) return (T)((R)0, (R)0);  // std::pow: 0 ** b is 0 (b = 0 never gets here)
  return c_pow(a, b);
}

// ---- inverse trigonometric / hyperbolic functions, C99 Annex G branch cuts ----
// asin and acos by Hull, Fairgrieve and Tang (1997): with x = |re|, y = |im|,
// r = |z + 1|, s = |z - 1|, A = (r + s) / 2 >= 1 and B = x / A <= 1,
// asin z = asin B + i log(A + sqrt(A^2 - 1)), acos z = acos B - i (...); B near 1
// and A near 1 are rewritten without cancellation. The sign of the input's
// parts (including -0) picks the side of a branch cut.
#define C_LN2 ((R)0.69314718055994530942)
// Real part of asin (want_acos = 0) or acos (1) of x + iy (x, y >= 0, finite).
static inline R c_hull_re(R x, R y, R r, R s, R A, int want_acos) {
  const R B = x / A;
  if (B <= (R)0.6417) return want_acos ? acos(B) : asin(B);
  // B near 1: asin B = atan(x / t), acos B = atan(t / x) with t = sqrt(A^2 - x^2)
  R t;
  if (x <= (R)1) t = sqrt((R)0.5 * (A + x) * (y * y / (r + (x + (R)1)) + (s + ((R)1 - x))));
  else t = y * sqrt((R)0.5 * ((A + x) / (r + (x + (R)1)) + (A + x) / (s + (x - (R)1))));
  return want_acos ? atan2(t, x) : atan2(x, t);
}
// log(A + sqrt(A^2 - 1)) = acosh A, >= 0.
static inline R c_hull_im(R x, R y, R r, R s, R A) {
  if (A <= (R)1.5) {
    const R am1 = x < (R)1 ? (R)0.5 * (y * y / (r + (x + (R)1)) + y * y / (s + ((R)1 - x)))
                           : (R)0.5 * (y * y / (r + (x + (R)1)) + (s + (x - (R)1)));
    if (am1 == (R)0 && x < (R)1) return y / sqrt(((R)1 - x) * ((R)1 + x));  // y^2 underflowed
    return log1p(am1 + sqrt(am1 * (A + (R)1)));
  }
  return log(A + sqrt(A * A - (R)1));
}
// asin (want_acos = 0) or acos (1); acos z = pi / 2 - asin z, written out.
static inline T c_asin_acos(T z, int want_acos) {
  const R x = fabs(z.x), y = fabs(z.y);
  R re, im;
  if (isnan(z.x) || isnan(z.y)) {
    if (isinf(z.x) || isinf(z.y)) return want_acos ? (T)(C_NAN, -copysign(C_INF, z.y)) : (T)(C_NAN, copysign(C_INF, z.y));
    if (z.x == (R)0 && !want_acos) return z;  // asin(+-0 + i NaN) = +-0 + i NaN
    if (z.x == (R)0) return (T)(C_PI / (R)2, C_NAN);
    return (T)(C_NAN, C_NAN);
  }
  // |z| huge (or inf): asin z ~ -i log(2 i z): re = atan2(x, y), im = log(2 |z|)
  const R big = sizeof(R) == 4 ? (R)1e18f : (R)1e150;
  if (x > big || y > big) {
    re = want_acos ? atan2(y, x) : atan2(x, y);
    im = (isinf(x) || isinf(y)) ? C_INF : log(hypot(x * (R)0.5, y * (R)0.5)) + (R)2 * C_LN2;
  } else {
    const R r = hypot(x + (R)1, y), s = hypot(x - (R)1, y), A = (R)0.5 * (r + s);
    re = c_hull_re(x, y, r, s, A, want_acos);
    im = c_hull_im(x, y, r, s, A);
  }
  if (want_acos) return (T)(signbit(z.x) ? C_PI - re : re, signbit(z.y) ? im : -im);
  return (T)(copysign(re, z.x), copysign(im, z.y));
}
static inline T c_asin(T z) { return c_asin_acos(z, 0); }
static inline T c_acos(T z) { return c_asin_acos(z, 1); }
// asinh z = -i asin(i z)
static inline T c_asinh(T z) {
  const T w = c_asin((T)(-z.y, z.x));
  return (T)(w.y, -w.x);
}
// acosh z = +-i acos z, the sign giving a real part >= 0 (C99: i acos z for im >= 0).
static inline T c_acosh(T z) {
  const T w = c_acos(z);
  if (isnan(w.x) && isnan(w.y)) return w;
  return (T)(fabs(w.y), copysign(w.x, z.y));
}
// atanh z as Kahan: re = log1p(4x / ((1 - x)^2 + y^2)) / 4,
// im = atan2(2y, (1 - x)(1 + x) - y^2) / 2; |z| huge: re = x / |z|^2, im = +-pi/2.
static inline T c_atanh(T z) {
  const R x = z.x, y = z.y, ax = fabs(x), ay = fabs(y);
  if (isnan(x) || isnan(y)) {
    if (isinf(x) || isinf(y)) return (T)(copysign((R)0, x), isnan(y) ? C_NAN : copysign(C_PI / (R)2, y));
    if (x == (R)0) return (T)(x, C_NAN);
    return (T)(C_NAN, C_NAN);
  }
  const R big = sizeof(R) == 4 ? (R)1e18f : (R)1e150;
  if (ax > big || ay > big) {
    const R h = hypot(x, y);
    return (T)(isinf(h) ? copysign((R)0, x) : (x / h) / h, copysign(C_PI / (R)2, y));
  }
  if (ax == (R)1 && y == (R)0) return (T)(copysign(C_INF, x), y);
  const R d = ((R)1 - ax) * ((R)1 - ax) + y * y;
  // near +-1 (d small, y^2 may underflow): re = log(|1 + z| / |1 - z|) / 2, no cancellation there
  const R re = d < (R)0.25 ? (R)0.5 * log(hypot((R)1 + ax, y) / hypot((R)1 - ax, y)) : (R)0.25 * log1p((R)4 * ax / d);
  const R im = (R)0.5 * atan2((R)2 * y, ((R)1 - ax) * ((R)1 + ax) - y * y);
  return (T)(copysign(re, x), im);
}
// atan z = -i atanh(i z)
static inline T c_atan(T z) {
  const T w = c_atanh((T)(-z.y, z.x));
  return (T)(w.y, -w.x);
}

// ---- logarithms and exponentials, as c10's complex functions ----
// log1p as the CPU's c10::log1p: u = 1 + z; log(u) * z / (u - 1) corrects
// the rounding of 1 + z (exact when u - 1 == z; z itself when u rounds to 1).
static inline T c_log1p(T z) {
  const T u = (T)(z.x + (R)1, z.y);  // (the imaginary part keeps its -0)
  if (u.x == (R)1 && u.y == (R)0) return z;
  const T log_u = c_log(u), um1 = (T)(u.x - (R)1, u.y);
  if (um1.x == z.x && um1.y == z.y) return log_u;
  return c_mul(log_u, c_div(z, um1));
}
// expm1: re = expm1(x) cos y - 2 sin^2(y / 2), im = e^x sin y.
static inline T c_expm1(T z) {
  const R a = sin(z.y * (R)0.5);
  return (T)(expm1(z.x) * cos(z.y) - (R)2 * a * a, exp(z.x) * sin(z.y));
}
// (the CPU divides by the real constant)
static inline T c_log2(T z) { return c_log(z) / C_LN2; }
static inline T c_log10(T z) { return c_log(z) / (R)2.30258509299404568402; }
// exp(z ln 2), as the CPU.
static inline T c_exp2(T z) { return c_exp(z * C_LN2); }
// sin(pi z) / (pi z), 1 at 0 (as the CPU's sinc).
static inline T c_sinc(T z) {
  if (z.x == (R)0 && z.y == (R)0) return (T)((R)1, (R)0);
  const T p = z * C_PI;
  return c_div(c_sin(p), p);
}
// Nonzero: re or im (-0.0 is zero), as the CPU's truth value of a complex number.
static inline int c_truth(T z) { return z.x != (R)0 || z.y != (R)0; }
// lerp as the CPU: |w|^2 < 1/4 starts from a, else from b.
static inline T c_lerp(T a, T b, T w) {
  if (w.x * w.x + w.y * w.y < (R)0.25) return a + c_mul(w, b - a);
  return b - c_mul(b - a, (T)((R)1, (R)0) - w);
}
// logaddexp as the CPU's complex _log_add_exp_helper: ordered by real part,
// NaN infectious, equal infinite real parts special-cased; its exps are
// std::exp's (c_exp).
static inline T c_logaddexp(T a, T b) {
  T mn, mx;
  if (isnan(b.x) || isnan(b.y)) { mn = b; mx = b; }
  else if (isnan(a.x) || isnan(a.y)) { mn = a; mx = a; }
  else if (a.x < b.x) { mn = a; mx = b; }
  else { mn = b; mx = a; }
  if (isnan(mn.x) || isnan(mn.y)) return (T)(C_NAN, C_NAN);
  if (!isfinite(mn.x) && mn.x == mx.x) {
    if (mn.x < (R)0) return mn;
    return c_log(c_exp(mn) + c_exp(mx));
  }
  return c_log1p(c_exp(mn - mx)) + mx;
}
