// The pointwise kernel generator (PyTorch's jiterator is the model). An op is
// a descriptor: an OpenCL C expression over its inputs and parameters. The
// generator writes one small program per (op, operand dtypes, compute dtype,
// scalar operands, contiguous or strided), builds it once through the
// program cache, and launches it over a built TensorIterator. Loads cast from
// each operand's own dtype and stores cast to each output's, so mixed dtypes
// cost no extra launches. The op table is kernels/pointwise_ops.cpp.
#pragma once

#include <ATen/TensorIterator.h>
#include <c10/core/Scalar.h>

#include <initializer_list>

namespace torch_ocl {

// The compute dtypes an op has kernels for, as the CPU's AT_DISPATCH list;
// any other raises NotImplementedError like the CPU.
enum DtypeSet : uint8_t {
  kFloat32And64 = 1,     // float, double
  kReducedFloating = 8,  // half, bfloat16
  kFloating = kFloat32And64 | kReducedFloating,
  kIntegral = 2,  // every signed and unsigned integer type
  kBoolean = 4,
  kIntegralAndBool = kIntegral | kBoolean,
  kNumbers = kFloating | kIntegral,
  kAllTypes = kFloating | kIntegral | kBoolean,
};

// Inside `expr`:
//   a, b, c, d, e  the inputs, converted to the compute type T
//   p0, p1, ... the parameters (kinds below)
//   T            the compute type: float for half/bfloat16/float, double,
//                the integer type itself, uchar for bool; T_IS_FLOAT,
//                T_IS_INTEGRAL, T_IS_BOOL, T_IS_SIGNED are defined to 0/1
//   ROUND_OUT(v) v rounded to output 0's dtype (half / bfloat16) and back
//   idx          the element's linear index in the iterator's order (for a
//                nullary op over a contiguous output: its index in memory)
//   helpers from kernels/pointwise_lib.cl (and kernels/<lib>.cl if set)
// Inside `complex_expr` (used when T is complex64 / complex128):
//   T            float2 / double2 (x = real part, y = imaginary part); R the
//                real type (float / double); T_IS_COMPLEX is 1
//   a, b, ...    the inputs as T (real and bool operands get imaginary part 0)
//   p0, ...      'T' parameters as T
//   helpers from kernels/complex_lib.cl (c_mul, c_div, c_exp, ...; not pointwise_lib)
//   its value: a T for complex outputs, a number for bool outputs (eq, ne)
struct PointwiseOp {
  const char* name;                 // in errors and program labels
  const char* expr;                 // output 0
  int ninputs = 1;                  // 0..4, 5 with one output (0: a nullary op, e.g. arange)
  uint8_t dtypes = kAllTypes;       // see DtypeSet
  const char* int_expr = nullptr;   // for integral/bool T (nullptr: expr)
  const char* params = "";          // one char per parameter: 'T' compute type,
                                    // 'L' int64, 'F' float (double when T is)
  const char* expr2 = nullptr;      // output 1, for two-output ops
  int compute_operand = -1;         // the operand whose dtype is T (-1: the
                                    // iterator's common dtype, else input 0's)
  const char* lib = nullptr;        // an extra kernels/<lib>.cl with helpers only
                                    // this op family needs (e.g. "special_lib")
  const char* complex_expr = nullptr;  // output 0 for complex T (nullptr: no complex kernel);
                                       // register the op with OCL_NATIVE_OP_C / OCL_NATIVE_FN_C
  bool truth_value = false;  // complex_expr is a truth value (eq, ne, logical_*): a complex
                             // output (out=, in-place) stores it as (v, 0)
  bool complex_refused = false;  // ATen's CPU and CUDA kernels take no complex either: a complex
                                 // input raises "not implemented" on the device (register_structured's
                                 // precheck with the op's direct path), not through the fallback
};

// Runs `op` over `iter` (outputs first, then inputs). The compute dtype is
// `compute` if given, else op.compute_operand's dtype if set, else the
// iterator's common dtype, else the first input's.
// CPU scalar operands are passed by value.
void run_pointwise(at::TensorIteratorBase& iter, const PointwiseOp& op,
                   std::initializer_list<c10::Scalar> params = {},
                   std::optional<c10::ScalarType> compute = std::nullopt);

// Raises the CPU's NotImplementedError when `op` has no kernel for `dtype`.
void check_op_dtype(const PointwiseOp& op, c10::ScalarType dtype);

// The TensorIterator-free path of a structured op (host latency of small
// ops). An op table row gives one when ATen's impl() is exactly one call of
// `op`'s stub with the call's tensors as the inputs, in order, and its Scalars
// as the parameters (negated for sub: its impl runs add's stub with -alpha).
struct DirectPointwise {
  const PointwiseOp* op;
  bool negate_params = false;
};
// Runs d.op on `inputs` into `result` (a new tensor; with `inplace`, into
// inputs[0]) when the call needs nothing of TensorIterator: every input an
// ocl tensor of one floating dtype the op computes in, all of the same sizes,
// all contiguous, no conj/neg bits, real non-NaN parameters, and no partial
// overlap between an in-place output and an input. The launch is the same
// kernel (same cache key) TensorIterator's path would run. Otherwise returns
// false having done nothing: the caller takes ATen's structured path (which
// raises ATen's errors for bad input).
bool run_pointwise_direct(const DirectPointwise& d, bool inplace, c10::ArrayRef<const at::Tensor*> inputs,
                          c10::ArrayRef<c10::Scalar> params, at::Tensor& result);
// This thread's launches through run_pointwise_direct (tests prove the path is taken).
size_t direct_pointwise_launches();
// Turns the direct path off (every call takes ATen's structured path) or on
// (the default; TORCH_OCL_DIRECT_POINTWISE=0 starts with it off): for tests
// that compare both paths and benchmarks that measure them side by side.
void set_direct_pointwise(bool enabled);
bool direct_pointwise_enabled();

}  // namespace torch_ocl
