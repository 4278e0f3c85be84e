// Element arithmetic of the linear-algebra sources (kernels/linalg.cl,
// kernels/eig.cl), prepended by linalg_source_launch (kernels/linalg_launch.h):
// T is the element type and R its real type; with LA_COMPLEX (complex64 /
// complex128) T = float2 / double2 over kernels/complex_lib.cl, else T = R =
// ST (float / double).
#ifdef LA_COMPLEX
#define MUL(a, b) c_mul(a, b)
#define DIV(a, b) c_div(a, b)
#define CONJ(a) c_conj(a)
#define RE(a) ((a).x)
#define IM(a) ((a).y)
#define IS_ZERO(a) ((a).x == 0 && (a).y == 0)
#define ABS1(a) (fabs((a).x) + fabs((a).y))  // LAPACK's pivot measure (izamax's dcabs1)
#define FROM_R(r) ((T)((r), 0))
#define ABSC(a) hypot((a).x, (a).y)
#define ABS2(a) ((a).x * (a).x + (a).y * (a).y)
#define MAKE_T(re, im) ((T)((re), (im)))
#else
#define T ST
#define R ST
#define MUL(a, b) ((a) * (b))
#define DIV(a, b) ((a) / (b))
#define CONJ(a) (a)
#define RE(a) (a)
#define IM(a) ((R)0)
#define IS_ZERO(a) ((a) == 0)
#define ABS1(a) fabs(a)
#define FROM_R(r) (r)
#define ABSC(a) fabs(a)
#define ABS2(a) ((a) * (a))
#define MAKE_T(re, im) (re)
#endif
