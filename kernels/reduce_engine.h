// The generic reduction engine (PyTorch's Reduce.cuh is the model): a
// reduction is a descriptor of init / step / combine / project over an
// accumulator, specialised per (op, input dtype, output dtypes) into
// kernels/reduce_engine.cl and launched over a reduction TensorIterator
// (outputs with stride 0 on the reduced dims) as ATen's impls build it.
// Accumulation is in the accumulation type (float for half/bfloat16);
// partial results are never rounded to the output dtype. The op table is
// kernels/reduction_ops.cpp.
#pragma once

#include <ATen/TensorIterator.h>
#include <c10/core/Scalar.h>

#include <initializer_list>

namespace torch_ocl {

// Inside the strings: T is the input's compute type, ACC its accumulation
// type (double for double, long for integers, float otherwise), T_LOWEST /
// T_HIGHEST its range, red_isnan(x); p0.. the parameters.
struct ReduceOp {
  const char* name;
  const char* acc_type;       // "ACC", "T", "Welford", "ValueIndex", "MinMax" or "ulong"
  const char* init;           // an acc_type expression
  const char* step;           // statements folding x (index idx) into acc
  const char* combine;        // statements folding accumulator `other` into acc
  const char* project0;       // output 0's value from acc
  const char* project1 = nullptr;  // output 1's, for two-output reductions
  const char* params = "";    // 'F' float (double when ACC is), 'L' int64
  bool needs_fp64 = false;    // the step computes in double whatever T is
  bool complex = false;       // written for complex T (float2 / double2): other
                              // ops raise the CPU's NotImplementedError on complex input
  bool cascade = true;        // floating ACC / Welford / complex-T accumulators fold in cascade
                              // (kernels/reduce_engine.cl); false for products and logical ops
};

// Welford's online mean / variance over a "Welford" accumulator {mean, m2, n}
// (Chan's combination), for ReduceOps that project mean, variance or m2.
#define WELFORD_STEP \
  "acc.n += (ACC)1; const ACC d = (ACC)x - acc.mean; acc.mean += d / acc.n; acc.m2 += d * ((ACC)x - acc.mean);"
#define WELFORD_COMBINE                                                                          \
  "if (other.n > (ACC)0) { if (acc.n == (ACC)0) { acc = other; } else { const ACC n = acc.n + other.n; " \
  "const ACC d = other.mean - acc.mean; acc.mean += d * other.n / n; "                              \
  "acc.m2 += other.m2 + d * d * acc.n * other.n / n; acc.n = n; } }"

void run_reduction(at::TensorIteratorBase& iter, const ReduceOp& op,
                   std::initializer_list<c10::Scalar> params = {});

}  // namespace torch_ocl
