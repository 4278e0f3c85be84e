// Device-side checks (DESIGN.md decision 11). A kernel that finds a bad index
// skips the access and records the error in its device's small flag buffer;
// the next synchronising call on the host (a device-to-host copy, .item(),
// torch.ocl.synchronize(), a stream or event synchronize) reads the flag and
// raises the error PyTorch would have raised, naming the op, as CUDA reports
// a device-side assert. No kernel waits for the host to check its indices.
//
// Kernel side (kernels/device_checks.cl, spliced in by the launchers):
//   __global int* flag, int check   -- the two parameters check_arg() adds
//   report_bad_index(flag, check, index, dim, size)
#pragma once

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include "backend/kernel_launch.h"

namespace torch_ocl {

// How the host words an error a kernel found.
enum class DeviceCheckKind : int {
  kIndexError,    // c10::IndexError (Python IndexError)
  kRuntimeError,  // c10::Error (Python RuntimeError)
};

// Registers one check: its op name, exception type and message. `message`
// may use {index}, {dim} and {size}, replaced by what the kernel recorded.
// Returns the check's id (> 0), passed to kernels by check_arg().
int register_device_check(const char* op, DeviceCheckKind kind, const char* message);

// The flag buffer of `device` for work enqueued on its current stream, that
// stream armed (its next synchronisation reads the flag): for launchers that
// set the (__global int* flag, int check) parameters themselves.
cl_mem arm_device_check(c10::DeviceIndex device);

// Adds the kernel parameters (__global int* flag, int check) to `launch`,
// for work enqueued on the current stream of `device`, and arms that stream:
// its next synchronisation reads the flag.
Launch& check_arg(Launch& launch, c10::DeviceIndex device, int check);

// Raises the error recorded on `device`, if any (and clears it). With a
// stream, only when a checked kernel was enqueued on it since its last check;
// call after the stream finished. Without one (after a device synchronize),
// when any stream of the device was armed.
void raise_device_errors(c10::DeviceIndex device);
void raise_device_errors(const c10::Stream& stream);

}  // namespace torch_ocl
