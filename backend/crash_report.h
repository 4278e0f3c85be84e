// Crash reports: on a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT)
// write the signal, the crashing thread's name and id and its native
// backtrace to a file descriptor, then hand the signal to the handler that
// was installed before (Python's faulthandler prints the Python stacks next).
// A crash in a thread with no Python frames (the kernel cache's binary
// writer "ocl-cache-write", a driver's worker thread) is otherwise reported
// by faulthandler as "<no Python frame>" and nothing more.
//
//   TORCH_OCL_CRASH_REPORT=1          at load, reports go to stderr
//   torch_ocl._C._install_crash_reporter(fd)   (the test suite: one file per worker)
#pragma once

namespace torch_ocl {

// Installs the handlers (once; a second call only changes the descriptor).
void install_crash_reporter(int fd);

}  // namespace torch_ocl
