"""pip install --no-build-isolation .   (needs torch installed first)

Drives CMake (build/ is reused, so a second build only recompiles what
changed) and ships plugin_api/python/torch_ocl with the built libraries.
"""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
PKG = ROOT / "plugin_api" / "python" / "torch_ocl"


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = ROOT / "build"
        cfg = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
               f"-DPython3_EXECUTABLE={sys.executable}"]
        if not (build_dir / "CMakeCache.txt").exists():
            try:
                subprocess.run(["ninja", "--version"], check=True, capture_output=True)
                cfg += ["-G", "Ninja"]
            except (OSError, subprocess.CalledProcessError):
                pass
        subprocess.run(cfg, check=True)
        jobs = str(os.cpu_count() or 2)
        subprocess.run(["cmake", "--build", str(build_dir), "-j", jobs], check=True)
        # CMake writes the libraries into the package folder; copy them where
        # setuptools expects this extension (a no-op for editable installs).
        target = Path(self.get_ext_fullpath(ext.name)).parent
        target.mkdir(parents=True, exist_ok=True)
        for lib in PKG.glob("*.so"):
            dest = target / lib.name
            if dest.resolve() != lib.resolve():
                self.copy_file(str(lib), str(dest))


setup(
    name="torch_ocl",
    version="0.1.0",
    description="PyTorch on OpenCL devices: the `ocl` device",
    packages=["torch_ocl"],
    package_dir={"": "plugin_api/python"},
    package_data={"torch_ocl": ["tuning/*.json"]},  # CLBlast tuning files (kernels/blas_tuning.cpp)
    ext_modules=[Extension("torch_ocl._C", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    entry_points={"torch.backends": ["torch_ocl = torch_ocl:_autoload"]},
    python_requires=">=3.10",
    zip_safe=False,
)
