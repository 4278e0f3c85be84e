// Complex helpers of the generated pointwise kernels (kernels/pointwise_engine.cpp
// includes this file instead of pointwise_lib.cl when T is complex):
// T is float2 / double2 (x = real part, y = imaginary part), R its real type.
// Each follows what the CPU computes (c10::complex and its std:: functions).

#define C_PI ((R)3.14159265358979323846)
#define C_INF ((R)INFINITY)
#define C_NAN ((R)NAN)

inline T c_make(R re, R im) { return (T)(re, im); }
inline T c_conj(T a) { return (T)(a.x, -a.y); }
inline R c_abs(T a) { return hypot(a.x, a.y); }
inline R c_arg(T a) { return atan2(a.y, a.x); }
// The naive product, as c10::complex's operator*.
inline T c_mul(T a, T b) { return (T)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
// Smith's scaled division, as c10::complex's operator/ (0 / 0 gives NaN, x / 0 inf).
inline T c_div(T a, T b) {
  const R ac = fabs(b.x), ad = fabs(b.y);
  if (ac >= ad) {
    if (ac == (R)0 && ad == (R)0) return (T)(a.x / ac, a.y / ad);
    const R rat = b.y / b.x, scl = (R)1 / (b.x + b.y * rat);
    return (T)((a.x + a.y * rat) * scl, (a.y - a.x * rat) * scl);
  }
  const R rat = b.x / b.y, scl = (R)1 / (b.y + b.x * rat);
  return (T)((a.x * rat + a.y) * scl, (a.y * rat - a.x) * scl);
}
inline T c_recip(T a) { return c_div((T)((R)1, (R)0), a); }
inline T c_exp(T a) {
  if (a.y == (R)0) return (T)(exp(a.x), a.y);  // real input: exact, keeps the sign of 0
  const R e = exp(a.x);
  return (T)(e * cos(a.y), e * sin(a.y));
}
inline T c_log(T a) { return (T)(log(c_abs(a)), c_arg(a)); }
// The principal root, without cancellation: t = sqrt((|x| + |z|) / 2).
inline T c_sqrt(T a) {
  if (a.x == (R)0 && a.y == (R)0) return (T)((R)0, a.y);
  if (isinf(a.y)) return (T)(C_INF, a.y);
  const R t = sqrt((fabs(a.x) + c_abs(a)) * (R)0.5);
  if (a.x >= (R)0) return (T)(t, a.y / (t + t));
  return (T)(fabs(a.y) / (t + t), copysign(t, a.y));
}
inline T c_rsqrt(T a) { return c_recip(c_sqrt(a)); }
// z / |z|, 0 for 0 (torch.sgn).
inline T c_sgn(T a) {
  const R r = c_abs(a);
  return r == (R)0 ? (T)((R)0, (R)0) : (T)(a.x / r, a.y / r);
}
inline T c_sin(T a) { return (T)(sin(a.x) * cosh(a.y), cos(a.x) * sinh(a.y)); }
inline T c_cos(T a) { return (T)(cos(a.x) * cosh(a.y), -sin(a.x) * sinh(a.y)); }
inline T c_sinh(T a) { return (T)(sinh(a.x) * cos(a.y), cosh(a.x) * sin(a.y)); }
inline T c_cosh(T a) { return (T)(cosh(a.x) * cos(a.y), sinh(a.x) * sin(a.y)); }
// tanh(x + iy) = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y); for large |x| the
// limit sign(x) + i 4 sin y cos y e^(-2|x|) (no inf / inf).
inline T c_tanh(T a) {
  if (fabs(a.x) > (R)20) return (T)(copysign((R)1, a.x), (R)4 * sin(a.y) * cos(a.y) * exp((R)-2 * fabs(a.x)));
  const R d = cosh((R)2 * a.x) + cos((R)2 * a.y);
  return (T)(sinh((R)2 * a.x) / d, sin((R)2 * a.y) / d);
}
// tan(z) = -i tanh(iz)
inline T c_tan(T a) {
  const T t = c_tanh((T)(-a.y, a.x));
  return (T)(t.y, -t.x);
}
inline T c_sigmoid(T a) { return c_recip((T)((R)1, (R)0) + c_exp(-a)); }
// a ** b = exp(b log a), as the CPU's tensor ** tensor kernel (0 ** b is NaN there too).
inline T c_pow(T a, T b) { return c_exp(c_mul(b, c_log(a))); }
// pow(tensor, scalar) as the CPU's kernel: 2, 3 and -2 by products, 0.5 /
// -0.5 / -1 by sqrt / rsqrt / reciprocal, others by exp(b log a).
inline T c_pow_scalar(T a, T b) {
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
