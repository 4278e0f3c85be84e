#!/usr/bin/env bash
# Builds torch_ocl with sanitizers in its own build folder (the normal build/
# and plugin_api/python/torch_ocl/*.so are not touched) and runs tests under them.
#   bash scripts/sanitize.sh            ASan + UBSan (build-asan/): ctest, then a pytest subset
#   bash scripts/sanitize.sh thread     TSan (build-tsan/): ctest (the C++ tests only)
#   bash scripts/sanitize.sh address tests/python/test_x.py -k y   another pytest subset
# Any report fails the run (halt_on_error / -fno-sanitize-recover). Third-party
# reports (PoCL, LLVM, CPython, libtorch) are suppressed in tests/sanitizers/*.supp,
# each with its reason. Needs what scripts/dev.sh deps installs; ~30 min of
# build per mode on 2 cores (ccache makes a rebuild fast).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
MODE=${1:-address}
shift || true
SUPP=$ROOT/tests/sanitizers
step() { printf '\n== %s\n' "$*"; }

case "$MODE" in
  address) SAN=address,undefined; BUILD=build-asan; PYMOD=ON ;;
  thread) SAN=thread; BUILD=build-tsan; PYMOD=OFF ;;  # CPython is not instrumented: C++ tests only
  *) echo "usage: $0 [address|thread]" >&2; exit 2 ;;
esac

step "building $BUILD (-fsanitize=$SAN)"
t0=$SECONDS
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -O0 -g1: line numbers in reports; the fastest build (host code speed hardly matters here).
TORCH_DEVICE_BACKEND_AUTOLOAD=0 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -g1" -DTORCH_OCL_SANITIZE=$SAN -DTORCH_OCL_BUILD_PYTHON=$PYMOD \
  -DPython3_EXECUTABLE="$(command -v "$PY")" "${launcher[@]}" >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
echo "build took $((SECONDS - t0)) s"

# Common: stop at the first report, symbolized stacks.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$SUPP/ubsan.supp"
# use_sigaltstack=0: PoCL's LLVM, when it first registers its signal handlers
# (in whichever thread builds the first program), finds ASan's alternate
# signal stack too small and installs a malloc'ed one of its own; at that
# thread's exit ASan then unmaps the stack it believes is its own and aborts
# ("AddressSanitizer failed to deallocate ... unable to unmap", in
# AsanThread::Destroy -> UnsetAlternateSignalStack). Without ASan's stack the
# two never meet; ASan loses only its report of stack overflows.

export ASAN_OPTIONS="halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:use_sigaltstack=0"
export LSAN_OPTIONS="suppressions=$SUPP/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$SUPP/tsan.supp"

step "C++ tests under $SAN (ctest)"
t0=$SECONDS
# The C++ tests check leaks: fast_unwind_on_malloc=0 because PoCL and LLVM
# have no frame pointers, so the fast unwinder stops inside them; the slow one
# gives whole allocation stacks, which the third-party suppressions in
# tests/sanitizers/lsan.supp match by function (it makes each test's start,
# libtorch's static registrations, take ~8 s: CMakeLists.txt gives test
# discovery time for it). Python below keeps the fast unwinder (no leak checks).
ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0" ctest --test-dir "$BUILD" --output-on-failure
echo "ctest took $((SECONDS - t0)) s"

[ "$MODE" = address ] || exit 0

# Python is not built with ASan: the runtimes are preloaded so they come first.
# LeakSanitizer stays off in Python: CPython and libtorch keep interned objects,
# registries and caches alive until exit by design (leaks by the thousand,
# none ours); the C++ tests above run with leak checking on.
step "Python tests under $SAN (pytest subset, LD_PRELOAD)"
t0=$SECONDS
PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
TESTS=("$@")
[ ${#TESTS[@]} -gt 0 ] || TESTS=(tests/python/test_device.py tests/python/test_indexing.py
  tests/python/test_kernel_cache.py tests/python/test_fault_injection.py
  tests/python/test_pointwise_engine.py)
ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" LD_PRELOAD="$PRELOAD" PYTHONPATH="$ROOT/$BUILD/python" \
  "$PY" -m pytest -q -p no:cacheprovider "${TESTS[@]}"
echo "pytest took $((SECONDS - t0)) s"
