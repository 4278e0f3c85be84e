#include "backend/crash_report.h"

#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace torch_ocl {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
constexpr int kCount = sizeof(kSignals) / sizeof(kSignals[0]);
struct sigaction previous[kCount];
std::atomic<int> report_fd{-1};
std::atomic<bool> installed{false};

// Async-signal-safe output: write(2) only, numbers formatted by hand.
void put(int fd, const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = ::write(fd, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

void put_number(int fd, long v) {
  char buf[24];
  char* p = buf + sizeof(buf) - 1;
  *p = '\0';
  const bool negative = v < 0;
  unsigned long u = negative ? 0UL - static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
  do {
    *--p = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (negative) *--p = '-';
  put(fd, p);
}

void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  const int fd = report_fd.load();
  if (fd >= 0) {
    char name[32] = "?";
    pthread_getname_np(pthread_self(), name, sizeof(name));
    put(fd, "\ntorch_ocl crash report: signal ");
    put_number(fd, sig);
    put(fd, " (");
    put(fd, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
    put(fd, ") in thread '");
    put(fd, name);
    put(fd, "' (tid ");
    put_number(fd, static_cast<long>(::syscall(SYS_gettid)));
    put(fd, "), native backtrace:\n");
    void* frames[64];
    const int n = backtrace(frames, 64);
    backtrace_symbols_fd(frames, n, fd);
    put(fd, "(end of torch_ocl crash report)\n");
  }
  // Hand over to the handler from before (faulthandler, or the default
  // action): restore it and re-raise; a synchronous fault re-executes the
  // instruction and faults again into that handler.
  for (int i = 0; i < kCount; ++i) {
    if (kSignals[i] != sig) continue;
    const struct sigaction& prev = previous[i];
    if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction != nullptr) {
      sigaction(sig, &prev, nullptr);
      prev.sa_sigaction(sig, info, context);
      return;
    }
    sigaction(sig, &prev, nullptr);
    if (prev.sa_handler == SIG_IGN || prev.sa_handler == SIG_DFL) {
      signal(sig, SIG_DFL);
      raise(sig);
      return;
    }
    prev.sa_handler(sig);
    return;
  }
}

}  // namespace

void install_crash_reporter(int fd) {
  report_fd.store(fd);
  if (installed.exchange(true)) return;
  void* warm[1];
  backtrace(warm, 1);  // loads the unwinder now, not inside a signal handler
  struct sigaction action {};
  action.sa_sigaction = on_fatal_signal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < kCount; ++i) sigaction(kSignals[i], &action, &previous[i]);
}

namespace {
// TORCH_OCL_CRASH_REPORT=1: report to stderr from load on.
const bool from_environment = [] {
  const char* v = std::getenv("TORCH_OCL_CRASH_REPORT");
  if (v != nullptr && std::strcmp(v, "1") == 0) install_crash_reporter(2);
  return true;
}();
}  // namespace

}  // namespace torch_ocl
