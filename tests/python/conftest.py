"""Shared fixtures of the torch_ocl Python test suite.

torch_ocl is imported first: it renames PrivateUse1 to "ocl" and registers
torch.ocl, which must happen before torch.testing._internal is imported
anywhere (that module snapshots the device types it knows).
"""

import torch_ocl  # noqa: F401  (must stay the first import)
import torch_ocl.testing

import gc
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


def _settled_device_bytes():
    """memory_allocated() once nothing unreachable holds device memory: Python
    garbage collected (reference cycles, e.g. of autograd graphs or of
    tracebacks that keep frames alive) and all queued work done (blocks freed
    with record_stream come back when the streams they wait on finish)."""
    gc.collect()
    torch.ocl.synchronize()
    return torch.ocl.memory_allocated()


@pytest.fixture(autouse=True, scope="module")
def _no_device_memory_leak(request):
    """Each test module must end with torch.ocl.memory_allocated() back at its
    value from the module's start (module-level tensors are already counted:
    they are made at import, before this fixture). A module that keeps device
    tensors on purpose past its end (a cache the module owns) lists the
    attribute names in ``KEEPS_DEVICE_MEMORY``; those tensors' bytes are
    allowed, nothing else. Exceptions that a test stored (sys.last_value) are
    dropped first: their tracebacks pin the frames' tensors. Not checked
    after a failed test (its traceback may pin tensors; the failure is the
    report)."""
    if not torch_ocl.is_available():
        yield
        return
    before = _settled_device_bytes()
    failed_before = request.session.testsfailed
    yield
    if request.session.testsfailed != failed_before:
        return  # a failed test's traceback may pin tensors: that failure is the report
    sys.last_value = sys.last_traceback = sys.last_exc = None
    after = _settled_device_bytes()
    kept = 0
    for name in getattr(request.module, "KEEPS_DEVICE_MEMORY", ()):
        for t in _device_tensors(getattr(request.module, name, None)):
            kept += -(-t.untyped_storage().nbytes() // 512) * 512  # the allocator's 512-byte blocks
    assert after - kept <= before, (
        f"{request.module.__name__} leaked device memory: memory_allocated() was {before} bytes at the "
        f"module's start and is {after} at its end ({after - before - kept} bytes not released; "
        f"{kept} bytes kept on purpose by KEEPS_DEVICE_MEMORY)")


def _device_tensors(obj):
    if isinstance(obj, torch.Tensor):
        return [obj] if obj.device.type == "ocl" else []
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _device_tensors(o)]
    return []


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



# Crash reports of pytest-xdist workers. A worker that dies (a fatal signal)
# is reported by xdist as "worker 'gwN' crashed while running <test>", and
# what faulthandler printed lands in the middle of the output. Each worker
# writes faulthandler's Python stacks and torch_ocl's native backtrace of the
# crashing thread (backend/crash_report.h) to a file of its own; the
# controller prints the non-empty ones at the end of the run.
CRASH_DIR_ENV = "TORCH_OCL_TEST_CRASH_DIR"


@pytest.hookimpl(trylast=True)  # after pytest's own faulthandler plugin: its stderr file is replaced
def pytest_configure(config):
    import faulthandler
    import tempfile
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        if CRASH_DIR_ENV not in os.environ:
            os.environ[CRASH_DIR_ENV] = tempfile.mkdtemp(prefix="torch_ocl_crashes_")
            config._torch_ocl_crash_dir_owned = True
        return
    path = os.path.join(os.environ[CRASH_DIR_ENV], config.workerinput["workerid"] + ".log")
    config._torch_ocl_crash_file = open(path, "w", buffering=1)  # kept open for the worker's life
    faulthandler.enable(file=config._torch_ocl_crash_file, all_threads=True)
    torch_ocl._C._install_crash_reporter(config._torch_ocl_crash_file.fileno())


def pytest_terminal_summary(terminalreporter, config):
    folder = os.environ.get(CRASH_DIR_ENV)
    if hasattr(config, "workerinput") or not folder or not os.path.isdir(folder):
        return
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), errors="replace") as f:
            text = f.read().strip()
        if text:
            terminalreporter.section(f"crash report of worker {name[:-4]}", sep="=")
            terminalreporter.write_line("\n".join(text.splitlines()[-400:]))


def pytest_unconfigure(config):
    # the folder this run made goes when every report in it is empty (a crash's stays)
    folder = os.environ.get(CRASH_DIR_ENV)
    if not getattr(config, "_torch_ocl_crash_dir_owned", False) or not folder or not os.path.isdir(folder):
        return
    names = os.listdir(folder)
    if all(os.path.getsize(os.path.join(folder, n)) == 0 for n in names):
        for n in names:
            os.remove(os.path.join(folder, n))
        os.rmdir(folder)
