// Helpers for the generated pointwise kernels (kernels/pointwise_engine.cpp):
// T is the compute type, T_IS_FLOAT / T_IS_INTEGRAL / T_IS_BOOL / T_IS_SIGNED
// say what it is. Each follows the CPU kernel of the op it serves.

// v rounded to half precision and back (ROUND_OUT of a half output).
static inline float pw_round_half(float v) {
  ushort h;
  vstore_half(v, 0, (__private half*)&h);
  return vload_half(0, (__private const half*)&h);
}

#if T_IS_FLOAT
#define PW_NAN ((T)NAN)
#define PW_INF ((T)INFINITY)
#define PW_PI ((T)3.14159265358979323846)
// pow with a scalar exponent as ATen's pow_tensor_scalar_optimized_kernel:
// the exponents 2, 3, -2 as products, 0.5 / -0.5 / -1 as sqrt / rsqrt /
// reciprocal (OpenCL's pow may be ulps off an exact square: sqrt(b * b - k^2)
// went NaN at k = b); with a tensor exponent, 2 as the product too.
static inline T pw_pow_scalar(T a, T e) {
  if (e == (T)2) return a * a;
  if (e == (T)3) return a * a * a;
  if (e == (T)0.5) return sqrt(a);
  if (e == (T)-0.5) return rsqrt(a);
  if (e == (T)-1) return (T)1 / a;
  if (e == (T)-2) return (T)1 / (a * a);
  return pow(a, e);
}
static inline T pw_pow(T a, T e) { return e == (T)2 ? a * a : pow(a, e); }
static inline T pw_maximum(T a, T b) { return (isnan(a) || isnan(b)) ? PW_NAN : fmax(a, b); }
static inline T pw_minimum(T a, T b) { return (isnan(a) || isnan(b)) ? PW_NAN : fmin(a, b); }
static inline T pw_sign(T a) { return (T)((a > (T)0) - (a < (T)0)); }  // NaN -> 0, as the CPU
static inline T pw_clamp(T a, T lo, T hi) { return isnan(a) ? a : fmin(fmax(a, lo), hi); }
static inline T pw_clamp3(T a, T lo, T hi) {
  if (isnan(a)) return a;
  if (isnan(lo)) return lo;
  if (isnan(hi)) return hi;
  return fmin(fmax(a, lo), hi);
}
static inline T pw_remainder(T a, T b) {
  T m = fmod(a, b);
  if (m != (T)0 && ((b < (T)0) != (m < (T)0))) m += b;
  return m;
}
static inline T pw_div_floor(T a, T b) {
  if (b == (T)0) return a / b;
  T m = fmod(a, b);
  T d = (a - m) / b;
  if (m != (T)0 && ((b < (T)0) != (m < (T)0))) d -= (T)1;
  if (d == (T)0) return copysign((T)0, a / b);
  T f = floor(d);
  if (d - f > (T)0.5) f += (T)1;
  return f;
}
static inline T pw_logaddexp(T a, T b) {
  if (isinf(a) && a == b) return a;
  return fmax(a, b) + log1p(exp(-fabs(a - b)));
}
static inline T pw_logaddexp2(T a, T b) {
  if (isinf(a) && a == b) return a;
  return fmax(a, b) + log1p(exp2(-fabs(a - b))) * (T)1.44269504088896340736;
}
static inline T pw_xlogy(T a, T b) { return isnan(b) ? PW_NAN : (a == (T)0 ? (T)0 : a * log(b)); }
static inline T pw_xlog1py(T a, T b) { return isnan(b) ? PW_NAN : (a == (T)0 ? (T)0 : a * log1p(b)); }
static inline T pw_sinc(T a) {
  if (a == (T)0) return (T)1;
  const T p = PW_PI * a;
  return sin(p) / p;
}
static inline T pw_round_decimals(T a, long decimals) {
  const T ten_pow = pown((T)10, (int)(decimals < 0 ? -decimals : decimals));
  return decimals < 0 ? rint(a / ten_pow) * ten_pow : rint(a * ten_pow) / ten_pow;
}
static inline T pw_logit(T a, T eps) {
  const T x = eps < (T)0 ? a : pw_clamp(a, eps, (T)1 - eps);  // NaN stays NaN
  return log(x / ((T)1 - x));
}
static inline T pw_logit_backward(T dy, T x, T eps) {
  if (eps < (T)0) return (x < (T)0 || x > (T)1) ? PW_NAN : dy / (x * ((T)1 - x));
  return (x < eps || x > (T)1 - eps) ? (T)0 : dy / (x * ((T)1 - x));
}
static inline T pw_frexp_mantissa(T a) { int e; return frexp(a, &e); }
static inline int pw_frexp_exponent(T a) { int e; frexp(a, &e); return e; }
// Cephes' digamma, as ATen's calc_digamma (reflection, recurrence, series).
static inline T pw_digamma(T x) {
  if (x == (T)0) return copysign(PW_INF, -x);
  T result = (T)0;
  if (x < (T)0) {
    if (x == trunc(x)) return PW_NAN;
    // tan has period pi: reducing x to [-1/2, 1/2] keeps pi * r accurate.
    const T r = x - rint(x);
    result = -PW_PI / tan(PW_PI * r);
    x = (T)1 - x;
  }
  while (x < (T)10) {
    result -= (T)1 / x;
    x += (T)1;
  }
  if (x == (T)10) return result + (T)2.25175258906672110764;
  T y = (T)0;
  if (x < (T)1.0e17) {
    const T z = (T)1 / (x * x);
    T p = (T)8.33333333333333333333E-2;
    p = p * z + (T)-2.10927960927960927961E-2;
    p = p * z + (T)7.57575757575757575758E-3;
    p = p * z + (T)-4.16666666666666666667E-3;
    p = p * z + (T)3.96825396825396825397E-3;
    p = p * z + (T)-8.33333333333333333333E-3;
    p = p * z + (T)8.33333333333333333333E-2;
    y = z * p;
  }
  return result + log(x) - (T)0.5 / x - y;
}
// erf / erfc: float (and half / bfloat16, computed in float) through
// kernels/common.cl's ocl_erf_f32 / ocl_erfc_f32; double keeps the builtins.
static inline __attribute__((always_inline)) T pw_erf(T x) { return sizeof(T) == 4 ? (T)ocl_erf_f32((float)x) : erf(x); }
static inline __attribute__((always_inline)) T pw_erfc(T x) { return sizeof(T) == 4 ? (T)ocl_erfc_f32((float)x) : erfc(x); }
// ATen's calc_erfinv: a rational first guess, then two Newton steps.
static inline T pw_erfinv(T y) {
  const T ay = fabs(y);
  if (ay > (T)1) return PW_NAN;
  if (ay == (T)1) return copysign(PW_INF, y);
  T x;
  if (ay <= (T)0.7) {
    const T z = y * y;
    const T num = (((T)-0.140543331 * z + (T)0.914624893) * z + (T)-1.645349621) * z + (T)0.886226899;
    const T dem = ((((T)0.012229801 * z + (T)-0.329097515) * z + (T)1.442710462) * z + (T)-2.118377725) * z + (T)1;
    x = y * num / dem;
  } else {
    const T z = sqrt(-log(((T)1 - ay) / (T)2));
    const T num = (((T)1.641345311 * z + (T)3.429567803) * z + (T)-1.624906493) * z + (T)-1.970840454;
    const T dem = ((T)1.637067800 * z + (T)3.543889200) * z + (T)1;
    x = copysign(num / dem, y);
  }
  const T two_over_sqrt_pi = (T)1.12837916709551257390;
  x = x - (erf(x) - y) / (two_over_sqrt_pi * exp(-x * x));
  x = x - (erf(x) - y) / (two_over_sqrt_pi * exp(-x * x));
  return x;
}
static inline __attribute__((always_inline)) T pw_gelu(T x, long approximate) {
  if (approximate) {
    const T inner = (T)0.79788456080286535588 * (x + (T)0.044715 * x * x * x);
    return (T)0.5 * x * ((T)1 + tanh(inner));
  }
  return x * (T)0.5 * ((T)1 + pw_erf(x * (T)0.70710678118654752440));
}
static inline __attribute__((always_inline)) T pw_gelu_backward(T dy, T x, long approximate) {
  if (approximate) {
    const T beta = (T)0.79788456080286535588, kappa = (T)0.044715;
    const T x_sq = x * x;
    const T t = tanh(beta * (x + kappa * x_sq * x));
    const T left_derivative = (T)0.5 * ((T)1 + t);
    const T right_derivative = (T)0.5 * x * ((T)1 - t * t) * beta * ((T)1 + (T)3 * kappa * x_sq);
    return dy * (left_derivative + right_derivative);
  }
  const T cdf = (T)0.5 * ((T)1 + pw_erf(x * (T)0.70710678118654752440));
  const T pdf = exp((T)-0.5 * x * x) * (T)0.39894228040143267794;
  return dy * (cdf + x * pdf);
}
// x rounded to float16 (kind 1) or bfloat16 (kind 2), else x: for ops whose
// CPU kernel computes step by step in those types (linspace).
static inline T pw_round_to(T x, long kind) {
  if (kind == 1) {
    ushort h;
    vstore_half((float)x, 0, (__private half*)&h);
    return (T)vload_half(0, (__private half*)&h);
  }
  if (kind == 2) return (T)bf16_to_float(float_to_bf16((float)x));
  return x;
}
#else
static inline T pw_maximum(T a, T b) { return max(a, b); }
static inline T pw_minimum(T a, T b) { return min(a, b); }
static inline T pw_sign(T a) { return (T)((a > (T)0) - (a < (T)0)); }
static inline T pw_clamp(T a, T lo, T hi) { return min(max(a, lo), hi); }
static inline T pw_clamp3(T a, T lo, T hi) { return min(max(a, lo), hi); }
// Integer division never traps: x / 0 gives 0 (the CPU raises
// ZeroDivisionError; a device cannot raise without a sync), and MIN / -1
// wraps, as on CUDA.
static inline T pw_idiv(T a, T b) {
  if (b == (T)0) return (T)0;
#if T_IS_SIGNED
  if (b == (T)-1) return (T)(0 - a);
#endif
  return a / b;
}
static inline T pw_imod(T a, T b) {
  if (b == (T)0) return (T)0;
#if T_IS_SIGNED
  if (b == (T)-1) return (T)0;
#endif
  return a % b;
}
static inline T pw_remainder(T a, T b) {
  T r = pw_imod(a, b);
#if T_IS_SIGNED
  if (r != (T)0 && ((r < (T)0) != (b < (T)0))) r += b;
#endif
  return r;
}
static inline T pw_div_floor(T a, T b) {
  T q = pw_idiv(a, b);
#if T_IS_SIGNED
  if (b != (T)0 && pw_imod(a, b) != (T)0 && ((a < (T)0) != (b < (T)0))) q -= (T)1;
#endif
  return q;
}
static inline T pw_gcd(T a, T b) {
#if T_IS_SIGNED
  a = a < (T)0 ? (T)(0 - a) : a;
  b = b < (T)0 ? (T)(0 - b) : b;
#endif
  while (b != (T)0) {
    const T t = a % b;
    a = b;
    b = t;
  }
  return a;
}
static inline T pw_lcm(T a, T b) {
  const T g = pw_gcd(a, b);
  if (g == (T)0) return (T)0;
  // As the CPU's abs(a / g * b): a type narrower than int multiplies and takes
  // the absolute value in int (C's promotions) before the result is narrowed.
  if (sizeof(T) < sizeof(int)) {
    const int p = (int)(a / g) * (int)b;
    return (T)(p < 0 ? -p : p);
  }
  T r = a / g * b;
#if T_IS_SIGNED
  r = r < (T)0 ? (T)(0 - r) : r;
#endif
  return r;
}
#define PW_BITS ((T)(sizeof(T) * 8))
static inline T pw_lshift(T a, T b) {
#if T_IS_SIGNED
  if (b < (T)0) return (T)0;
#endif
  return b >= PW_BITS ? (T)0 : (T)(a << b);
}
static inline T pw_rshift(T a, T b) {
#if T_IS_SIGNED
  if (b < (T)0 || b >= PW_BITS) return (T)(a >> (PW_BITS - (T)1));
#else
  if (b >= PW_BITS) return (T)0;
#endif
  return (T)(a >> b);
}
// Integer powers as the CPU: negative exponents give 0 except for bases +-1.
static inline T pw_powi(T a, T b) {
#if T_IS_SIGNED
  if (b < (T)0) {
    if (a == (T)1) return (T)1;
    if (a == (T)-1) return (b & (T)1) ? (T)-1 : (T)1;
    return (T)0;
  }
#endif
  T result = (T)1;
  while (b) {
    if (b & (T)1) result *= a;
    b >>= 1;
    a *= a;
  }
  return result;
}
#endif
