// Test-only fault injection: makes the N-th call of a chosen OpenCL entry
// point fail with a chosen error code, so tests can prove that every failure
// surfaces as a clear error, leaks nothing and leaves the device usable.
//
//   TORCH_OCL_FAULT="clCreateBuffer:3"                    3rd clCreateBuffer fails
//   TORCH_OCL_FAULT="clEnqueueNDRangeKernel:2:CL_INVALID_KERNEL_ARGS,clBuildProgram:1"
//
// Counting starts at process start (or at set_fault_spec); each entry fires
// once. The error defaults to CL_OUT_OF_RESOURCES. With no spec, the cost at a
// call site is one relaxed atomic load.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

#include "backend/cl_check.h"

namespace torch_ocl {

enum class FaultPoint : int {
  CreateBuffer,
  EnqueueNDRangeKernel,
  BuildProgram,
  EnqueueReadBuffer,
  EnqueueWriteBuffer,
  EnqueueCopyBuffer,
  EnqueueMapBuffer,
  EnqueueUnmapMemObject,
  kCount
};
constexpr int kFaultPoints = static_cast<int>(FaultPoint::kCount);

// "clCreateBuffer", ... (the OpenCL entry point's name).
const char* fault_point_name(FaultPoint p);

namespace detail {
extern std::atomic<bool> fault_armed;   // counting is on (a spec was given)
cl_int next_fault(FaultPoint p);        // counts the call; the error to inject or CL_SUCCESS
}  // namespace detail

// The error to return instead of calling `p` now, or CL_SUCCESS to call it.
inline cl_int injected_fault(FaultPoint p) {
  return detail::fault_armed.load(std::memory_order_relaxed) ? detail::next_fault(p) : CL_SUCCESS;
}

// Calls `call()` (an OpenCL call returning cl_int) unless a fault is due.
template <class F>
cl_int fault_or(FaultPoint p, F&& call) {
  const cl_int e = injected_fault(p);
  return e != CL_SUCCESS ? e : call();
}

// Replaces the spec (same syntax as TORCH_OCL_FAULT; "" disarms, "count"
// only counts calls) and zeroes the counters. Raises on a malformed spec.
void set_fault_spec(const std::string& spec);
// Calls of each entry point counted since the spec was set.
std::array<uint64_t, kFaultPoints> fault_call_counts();
// How many faults have fired since the spec was set.
uint64_t faults_fired();

}  // namespace torch_ocl

// OCL_CHECK for a call at a fault point: OCL_CHECK_AT(EnqueueReadBuffer, clEnqueueReadBuffer(...)).
#define OCL_CHECK_AT(point, call)                                                        \
  do {                                                                                   \
    cl_int ocl_check_err_ = ::torch_ocl::injected_fault(::torch_ocl::FaultPoint::point); \
    if (ocl_check_err_ == CL_SUCCESS) ocl_check_err_ = (call);                           \
    TORCH_CHECK(ocl_check_err_ == CL_SUCCESS, "OpenCL call ", #call,                     \
                " failed: ", ::torch_ocl::cl_error_name(ocl_check_err_),                 \
                " (", ocl_check_err_, ")");                                              \
  } while (0)
