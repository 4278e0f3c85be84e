// Elementwise ops on one dtype (ST/CT from the preamble). Every kernel has the
// same signature, see kernels/elementwise.cpp; operand 0 is the output,
// operands 1 and 2 the inputs. A CPU scalar input comes as a value (a_is_scalar).

#ifndef OUT_ST
#define OUT_ST ST
#define OUT_STORE STORE
#endif

#ifdef IS_FLOAT
#define MAXIMUM(a, b) ((isnan(a) || isnan(b)) ? (CT)NAN : fmax(a, b))
#define MINIMUM(a, b) ((isnan(a) || isnan(b)) ? (CT)NAN : fmin(a, b))
#else
#define MAXIMUM(a, b) max(a, b)
#define MINIMUM(a, b) min(a, b)
#endif

#define EW_KERNEL(name, expr)                                                  \
  __kernel void name(Indexer ix, long n, __global char* ob, ulong oo,          \
                     __global char* ab, ulong ao, __global char* bb, ulong bo, \
                     int a_is_scalar, CT a_val, int b_is_scalar, CT b_val,     \
                     CT alpha, CT beta) {                                      \
    __global OUT_ST* o = PTR(OUT_ST, ob, oo);                                  \
    __global ST* pa = PTR(ST, ab, ao);                                         \
    __global ST* pb = PTR(ST, bb, bo);                                         \
    GRID_LOOP(i, n) {                                                          \
      long off[MAX_OPERANDS];                                                  \
      indexer_offsets(&ix, i, off);                                            \
      CT a = a_is_scalar ? a_val : LOAD(pa, off[1]);                           \
      CT b = b_is_scalar ? b_val : (pb ? LOAD(pb, off[2]) : (CT)0);            \
      OUT_STORE(o, off[0], (expr));                                            \
    }                                                                          \
  }

#ifdef OUT_IS_BOOL
// Comparisons: inputs of any dtype, a bool output.
EW_KERNEL(ew_eq, a == b)
EW_KERNEL(ew_ne, a != b)
EW_KERNEL(ew_lt, a < b)
EW_KERNEL(ew_le, a <= b)
EW_KERNEL(ew_gt, a > b)
EW_KERNEL(ew_ge, a >= b)
#else
EW_KERNEL(ew_add, a + alpha * b)
EW_KERNEL(ew_sub, a - alpha * b)
EW_KERNEL(ew_mul, a * b)
EW_KERNEL(ew_neg, -a)
EW_KERNEL(ew_sgn, (CT)((a > (CT)0) - (a < (CT)0)))
EW_KERNEL(ew_maximum, MAXIMUM(a, b))
EW_KERNEL(ew_minimum, MINIMUM(a, b))
// threshold(x, threshold=alpha, value=beta); relu is threshold(x, 0, 0)
EW_KERNEL(ew_threshold, a <= alpha ? beta : a)
// threshold_backward: its meta function puts self first (a), grad second (b)
EW_KERNEL(ew_threshold_backward, a <= alpha ? (CT)0 : b)
#ifdef IS_FLOAT
EW_KERNEL(ew_div, a / b)
EW_KERNEL(ew_reciprocal, (CT)1 / a)
EW_KERNEL(ew_abs, fabs(a))
EW_KERNEL(ew_exp, exp(a))
EW_KERNEL(ew_log, log(a))
EW_KERNEL(ew_sqrt, sqrt(a))
EW_KERNEL(ew_rsqrt, rsqrt(a))
EW_KERNEL(ew_sin, sin(a))
EW_KERNEL(ew_cos, cos(a))
EW_KERNEL(ew_tanh, tanh(a))
EW_KERNEL(ew_sigmoid, (CT)1 / ((CT)1 + exp(-a)))
// sigmoid_backward(grad_output=a, output=b), tanh_backward(grad_output=a, output=b)
EW_KERNEL(ew_sigmoid_backward, a * ((CT)1 - b) * b)
EW_KERNEL(ew_tanh_backward, a * ((CT)1 - b * b))
#else
EW_KERNEL(ew_abs, a < (CT)0 ? -a : a)
#endif
#endif
