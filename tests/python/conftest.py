"""Shared fixtures of the torch_ocl Python test suite.

torch_ocl is imported first: it renames PrivateUse1 to "ocl" and registers
torch.ocl, which must happen before torch.testing._internal is imported
anywhere (that module snapshots the device types it knows).
"""

import torch_ocl  # noqa: F401  (must stay the first import)
import torch_ocl.testing

import os
import subprocess
import sys
import zlib

import pytest
import torch

PLUGIN_PATH = os.path.dirname(os.path.dirname(os.path.abspath(torch_ocl.__file__)))


@pytest.fixture(autouse=True)
def _seeded(request):
    """Seed the host RNG from the test's id: every test draws the same random
    inputs on every run and in any order, so a failure reproduces."""
    torch_ocl.testing.seed(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def strict():
    """Run the test with fallback_mode('error'): an op without a native ocl
    kernel raises a RuntimeError naming the op instead of running on the CPU."""
    with torch.ocl.fallback_mode("error"):
        yield


@pytest.fixture
def fallback_stats():
    """Reset torch.ocl.fallback_stats() before (and after) the test; yields
    the function that reads them."""
    torch.ocl.reset_fallback_stats()
    yield torch.ocl.fallback_stats
    torch.ocl.reset_fallback_stats()


@pytest.fixture
def run_python():
    """Run `code` in a fresh interpreter that can import torch_ocl.

    Returns the CompletedProcess (text mode). `env` entries are added to (or,
    with value None, removed from) a copy of os.environ."""

    def run(code, env=None, args=None, timeout=240):
        full_env = dict(os.environ)
        full_env.pop("TORCH_OCL_FALLBACK", None)
        paths = [PLUGIN_PATH] + [p for p in full_env.get("PYTHONPATH", "").split(os.pathsep) if p]
        full_env["PYTHONPATH"] = os.pathsep.join(paths)
        for key, value in (env or {}).items():
            if value is None:
                full_env.pop(key, None)
            else:
                full_env[key] = value
        cmd = [sys.executable] + (args if args is not None else ["-c", code])
        return subprocess.run(cmd, env=full_env, capture_output=True, text=True, timeout=timeout)

    return run

