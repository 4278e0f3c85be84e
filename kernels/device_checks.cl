// The kernel side of the device-side checks (backend/device_checks.h): a
// launcher that passes check_arg() splices this file in front of its
// program. The flag buffer is: int check id, int unused, long index, long
// dim, long size; the first error found wins.

#ifndef DEVICE_CHECKS_CL
#define DEVICE_CHECKS_CL
static inline void report_bad_index(__global int* flag, int check, long index, long dim, long size) {
  if (atomic_cmpxchg(flag, 0, check) == 0) {
    __global long* f = (__global long*)flag;
    f[1] = index;
    f[2] = dim;
    f[3] = size;
  }
}
#endif
