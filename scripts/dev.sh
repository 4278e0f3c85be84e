#!/usr/bin/env bash
# One entry point for setting up, building, testing and demoing torch_ocl.
#   bash scripts/dev.sh demo    install what is missing, build, run the demo
#   bash scripts/dev.sh test    install what is missing, build, run all tests
#   bash scripts/dev.sh build   install what is missing, build
# Idempotent: installed packages are skipped and the build is incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
DEBS="pocl-opencl-icd ocl-icd-opencl-dev opencl-headers libclblast-dev libvkfft-dev libgtest-dev cmake ninja-build g++ clinfo oclgrind"
TORCH_VERSION=2.13.0
TRANSFORMERS_VERSION=5.24.0

step() { printf '\n== %s\n' "$*"; }

deps() {
  local missing=""
  for p in $DEBS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  if [ -n "$missing" ]; then
    step "installing Debian packages:$missing"
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
  fi
  # TORCH_DEVICE_BACKEND_AUTOLOAD=0 wherever torch is imported before the
  # package is (re)registered: a stale torch.backends entry point (an editable
  # install of another checkout) would make `import torch` itself fail.
  if ! TORCH_DEVICE_BACKEND_AUTOLOAD=0 $PY -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$TORCH_VERSION')" 2>/dev/null; then
    step "installing torch==$TORCH_VERSION (CPU build)"
    $PY -m pip install -q "torch==$TORCH_VERSION"
  fi
  $PY -c "import pytest, yaml, expecttest, hypothesis, xdist" 2>/dev/null || $PY -m pip install -q pytest pyyaml expecttest hypothesis pytest-xdist
  # The model zoo's tests build tiny transformers models from configs (no download);
  # transformers does not depend on torch, so the pinned torch stays.
  $PY -c "import transformers, sys; sys.exit(transformers.__version__ != '$TRANSFORMERS_VERSION')" 2>/dev/null ||
    $PY -m pip install -q "transformers==$TRANSFORMERS_VERSION"
}

build() {
  step "building (build/, incremental)"
  local t0=$SECONDS
  if [ ! -f build/CMakeCache.txt ]; then
    TORCH_DEVICE_BACKEND_AUTOLOAD=0 cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$(command -v $PY)" >/dev/null
  fi
  cmake --build build -j "$(nproc)"
  # An editable install registers the package and its torch.backends entry
  # point once; later builds update the libraries in place.
  if ! $PY - <<'PYEOF' 2>/dev/null; then
import importlib.metadata as md, pathlib, sys
d = md.distribution("torch_ocl")
eps = [e for e in d.entry_points if e.group == "torch.backends"]
import torch_ocl
sys.exit(not eps or pathlib.Path(torch_ocl.__file__).resolve().parent != pathlib.Path("plugin_api/python/torch_ocl").resolve())
PYEOF
    step "registering the package (pip install -e, once)"
    $PY -m pip install -q --no-build-isolation --no-deps -e .
  fi
  echo "build took $((SECONDS - t0)) s"
}

demo() { step "demo"; $PY examples/demo.py "$@"; }

# pytest runs in one worker process per core (pytest-xdist): most of a test's
# time is single-threaded host work (dispatch, CPU reference, PoCL kernel
# compiles), so workers overlap well. TORCH_OCL_TEST_WORKERS=0 runs in-process.
run_tests() {
  local t0=$SECONDS
  step "C++ tests (ctest)"
  ctest --test-dir build --output-on-failure
  echo "ctest took $((SECONDS - t0)) s"
  t0=$SECONDS
  local workers=${TORCH_OCL_TEST_WORKERS:-auto}
  step "Python tests (pytest, workers: $workers, cores: $(nproc))"
  if [ "$workers" = 0 ]; then
    $PY -m pytest tests/python -q -p no:cacheprovider "$@"
  else
    $PY -m pytest tests/python -q -p no:cacheprovider -n "$workers" "$@"
  fi
  echo "pytest took $((SECONDS - t0)) s"
  # The GPU device profile (work per item, index/scan strategies, one entry
  # point per kernel) on this device, whatever its kind: the kernel families
  # whose launchers branch on the profile, against the CPU again.
  t0=$SECONDS
  local gpu_files="tests/python/test_pointwise_engine.py tests/python/test_reductions.py tests/python/test_indexing.py tests/python/test_scans.py"
  step "Python tests under TORCH_OCL_DEVICE_PROFILE=gpu ($gpu_files)"
  TORCH_OCL_DEVICE_PROFILE=gpu $PY -c "import torch, torch_ocl; p = torch.ocl.get_device_properties().profile; assert p == 'gpu', p"
  if [ "$workers" = 0 ]; then
    TORCH_OCL_DEVICE_PROFILE=gpu $PY -m pytest $gpu_files -q -p no:cacheprovider "$@"
  else
    TORCH_OCL_DEVICE_PROFILE=gpu $PY -m pytest $gpu_files -q -p no:cacheprovider -n "$workers" "$@"
  fi
  echo "gpu-profile pytest took $((SECONDS - t0)) s"
}

cmd=${1:-test}; shift || true
case "$cmd" in
  deps) deps ;;
  build) deps; build ;;
  demo) deps; build; demo "$@" ;;
  test) deps; build; run_tests "$@" ;;
  *) echo "usage: $0 demo|test|build|deps" >&2; exit 2 ;;
esac
