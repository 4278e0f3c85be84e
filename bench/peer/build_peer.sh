#!/usr/bin/env bash
# Builds the peer OpenCL backend pytorch_dlprim (https://github.com/artyom-beilis/pytorch_dlprim,
# with its submodule dlprimitives) into a cache folder, for bench/bench_peer.py. Never run in CI:
# only when a person asks for a side-by-side measurement.
#
#   bash bench/peer/build_peer.sh SOURCE_DIR [CACHE_DIR]
#
# SOURCE_DIR: a checkout of pytorch_dlprim whose dlprimitives/ folder holds the submodule
#             (git clone --recurse-submodules ...). It is copied, never modified.
# CACHE_DIR:  default $TORCH_OCL_PEER_DIR or ~/.cache/torch_ocl_peer. The result is
#             CACHE_DIR/build/pytorch_ocl (import with PYTHONPATH=CACHE_DIR/build).
#
# The copy gets bench/peer/pocl_fixes.patch (our fixes for PoCL 3.1, whose platform reports
# OpenCL 3.0 but whose devices compile OpenCL C 1.2):
#   1. -cl-std=CL2.0 only when the device's OpenCL C version is >= 2.0 (not the platform's);
#   2. the work_group_reduce_* path only when __OPENCL_C_VERSION__ >= 200;
#   3. a barrier after the local-memory work-group reduction, whose buffer the next reduction of
#      the same kernel overwrites (softmax and cross-entropy were wrong without it).
set -euo pipefail

src=${1:?usage: build_peer.sh SOURCE_DIR [CACHE_DIR]}
cache=${2:-${TORCH_OCL_PEER_DIR:-$HOME/.cache/torch_ocl_peer}}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON:-$(command -v python3)}

if [[ ! -f $src/CMakeLists.txt || ! -f $src/dlprimitives/CMakeLists.txt ]]; then
    echo "build_peer.sh: $src is not a pytorch_dlprim checkout with its dlprimitives submodule" >&2
    exit 2
fi

mkdir -p "$cache"
rm -rf "$cache/src"
cp -a "$src" "$cache/src"
rm -rf "$cache/src/.git" "$cache/src/dlprimitives/.git"
patch -d "$cache/src" -p1 --forward < "$here/pocl_fixes.patch"

torch_dir=$(TORCH_DEVICE_BACKEND_AUTOLOAD=0 "$python" -c \
    'import torch.utils; print(torch.utils.cmake_prefix_path)')/Torch
# The peer's CMakeLists uses FindPythonLibs; point it at this interpreter.
py_inc=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
py_lib=$("$python" -c 'import sysconfig, os; print(os.path.join(sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("LDLIBRARY")))')

TORCH_DEVICE_BACKEND_AUTOLOAD=0 cmake -S "$cache/src" -B "$cache/build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DTorch_DIR="$torch_dir" \
    -DPYTHON_INCLUDE_DIR="$py_inc" -DPYTHON_LIBRARY="$py_lib" \
    -DCMAKE_POLICY_VERSION_MINIMUM=3.5
cmake --build "$cache/build" -j"${JOBS:-2}"

echo "peer built: PYTHONPATH=$cache/build python -c 'import pytorch_ocl'"
