// Checked OpenCL calls: every failure raises a c10::Error naming the call and
// the error code's name.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <c10/util/Exception.h>

namespace torch_ocl {

// Name of an OpenCL error code, e.g. "CL_OUT_OF_RESOURCES" (-5).
const char* cl_error_name(cl_int code);

// True when `code` means the device ran out of memory.
bool cl_is_out_of_memory(cl_int code);

}  // namespace torch_ocl

// OCL_CHECK(clFinish(q)) raises "OpenCL call clFinish(q) failed: CL_... (-N)".
#define OCL_CHECK(call)                                                      \
  do {                                                                       \
    cl_int ocl_check_err_ = (call);                                          \
    TORCH_CHECK(ocl_check_err_ == CL_SUCCESS, "OpenCL call ", #call,         \
                " failed: ", ::torch_ocl::cl_error_name(ocl_check_err_),     \
                " (", ocl_check_err_, ")");                                  \
  } while (0)
