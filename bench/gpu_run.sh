#!/usr/bin/env bash
# UNTESTED: written without a GPU (none was lent to the session that wrote
# it). It is the procedure of bench/README.md, "GPU (NVIDIA H200 via the
# device tool)", as one command; expect to fix details on its first real run.
#
# Builds torch_ocl against the GPU machine's own torch (2.11, CUDA) and
# NVIDIA's OpenCL driver, then runs bench/bench_all.py (with CUDA columns).
# Nothing can be downloaded there, so the OpenCL loader, headers and CLBlast
# come as Debian .debs carried in the ignored folder .debs/ (fetched here with
# `apt-get download`, see the README) and are unpacked into a private prefix.
#
# From the device tool, in the repository root:
#   run(command="bash bench/gpu_run.sh", carry=[".debs"], timeout_s=600)
# Results: $OUT/bench_gpu.txt, $OUT/bench_gpu.json, $OUT/build.log.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}                       # the python that holds torch there
DEBS_DIR=${DEBS_DIR:-.debs}
PREFIX=${OCL_PREFIX:-/tmp/ocl_prefix}       # where the .debs are unpacked
BUILD=${BUILD_DIR:-/tmp/torch_ocl_build}    # CMake build tree (not the repo's build/)
RESULTS=${OUT:-/tmp/torch_ocl_bench_out}
mkdir -p "$RESULTS"
step() { printf '\n== %s\n' "$*"; }
die() { echo "gpu_run.sh: $*" >&2; exit 1; }

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
$PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"

# 1. OpenCL loader, headers and CLBlast into $PREFIX ---------------------------------
step "unpacking $DEBS_DIR/*.deb into $PREFIX"
ls "$DEBS_DIR"/*.deb >/dev/null 2>&1 || die "no .debs in $DEBS_DIR (carry it: carry=[\".debs\"])"
rm -rf "$PREFIX"          # always fresh: the sed below is not idempotent
mkdir -p "$PREFIX"
for f in "$DEBS_DIR"/*.deb; do dpkg -x "$f" "$PREFIX"; done
LIBDIR=$PREFIX/usr/lib/x86_64-linux-gnu
CLBLAST_CMAKE=$LIBDIR/cmake/CLBlast
[ -f "$LIBDIR/libOpenCL.so.1" ] || die "ocl-icd-libopencl1 missing from $DEBS_DIR"
[ -f "$CLBLAST_CMAKE/CLBlastConfig.cmake" ] || die "libclblast-dev missing from $DEBS_DIR"
[ -f "$PREFIX/usr/include/vkFFT.h" ] || die "libvkfft-dev missing from $DEBS_DIR"
# Debian's CLBlast config names /usr/lib/.../libOpenCL.so and /usr/include
# absolutely; point them into the prefix.
sed -i "s|\"/usr/lib/x86_64-linux-gnu/libOpenCL.so\"|\"$LIBDIR/libOpenCL.so\"|" \
  "$CLBLAST_CMAKE/CLBlastConfig-none.cmake"
sed -i 's|${_IMPORT_PREFIX}/include;/usr/include|${_IMPORT_PREFIX}/include|' \
  "$CLBLAST_CMAKE/CLBlastConfig.cmake"

# 2. NVIDIA's OpenCL driver as the only ICD ------------------------------------------
step "ICD"
NV_OCL=$(find /usr/local/nvidia -name 'libnvidia-opencl.so.1' 2>/dev/null | head -1)
[ -n "$NV_OCL" ] || NV_OCL=$(find /usr/local/nvidia -name 'libnvidia-opencl.so*' 2>/dev/null | sort | head -1)
[ -n "$NV_OCL" ] || die "libnvidia-opencl.so.1 not found under /usr/local/nvidia"
mkdir -p "$PREFIX/icd"
echo "$NV_OCL" >"$PREFIX/icd/nvidia.icd"
export OCL_ICD_VENDORS=$PREFIX/icd
export LD_LIBRARY_PATH=$LIBDIR:$(dirname "$NV_OCL")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "nvidia.icd -> $NV_OCL"
# Ask the loader for platforms before building anything.
$PY - "$LIBDIR/libOpenCL.so.1" <<'PYEOF'
import ctypes, sys
cl = ctypes.CDLL(sys.argv[1])
n = ctypes.c_uint(0)
err = cl.clGetPlatformIDs(0, None, ctypes.byref(n))
print(f"clGetPlatformIDs: err={err} platforms={n.value}")
sys.exit(0 if err == 0 and n.value > 0 else 1)
PYEOF

# 3. Build against this machine's torch -----------------------------------------------
step "building torch_ocl (log: $RESULTS/build.log)"
TORCH_DIR=$($PY -c "import torch.utils; print(torch.utils.cmake_prefix_path)")/Torch
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
[ -d /usr/local/cuda ] && export CUDAToolkit_ROOT=${CUDAToolkit_ROOT:-/usr/local/cuda}
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}   # H200; silences arch detection
rm -rf "$BUILD"
{
  cmake -S . -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DTORCH_OCL_BUILD_TESTS=OFF \
    -DPython3_EXECUTABLE="$(command -v "$PY")" \
    -DTorch_DIR="$TORCH_DIR" \
    -DCMAKE_PREFIX_PATH="$PREFIX/usr" \
    -DOpenCL_INCLUDE_DIR="$PREFIX/usr/include" \
    -DOpenCL_LIBRARY="$LIBDIR/libOpenCL.so" \
    -DCLBlast_DIR="$CLBLAST_CMAKE" &&
  cmake --build "$BUILD" -j "$(nproc)"
} >"$RESULTS/build.log" 2>&1 || { tail -60 "$RESULTS/build.log"; die "build failed"; }
tail -3 "$RESULTS/build.log"

# 4. Benchmark -----------------------------------------------------------------------------
step "bench_all.py"
export TORCH_OCL_CACHE_DIR=${TORCH_OCL_CACHE_DIR:-/tmp/torch_ocl_cache}
export PYTHONUNBUFFERED=1
PYTHONPATH=plugin_api/python $PY bench/bench_all.py --json "$RESULTS/bench_gpu.json" "$@" \
  2>&1 | tee "$RESULTS/bench_gpu.txt"
