"""Every kernel family on a second OpenCL implementation: oclgrind, a
simulated GPU-class device (1024-item work groups, no cl_khr_fp16) that
checks each kernel for out-of-bounds accesses, API misuse
(OCLGRIND_CHECK_API=1) and data races (OCLGRIND_DATA_RACES=1). On it
torch_ocl takes its GPU-class paths, which PoCL (a CPU device) never runs.

The cases live in oclgrind_ops.py (strict mode, compared with the CPU); this
test runs them in a fresh process on oclgrind, with each device profile
forced (TORCH_OCL_DEVICE_PROFILE), and fails on a wrong result or on any
oclgrind report; and once more on the default device with the gpu profile. Debian's package `oclgrind` provides the ICD;
.ci/run installs it (TORCH_OCL_REQUIRE_OCLGRIND=1 there turns a missing
oclgrind into a failure instead of a skip)."""

import os
import re

import pytest

ICD = "/usr/lib/oclgrind/liboclgrind-rt-icd.so"
SCRIPT = os.path.join(os.path.dirname(__file__), "oclgrind_ops.py")
# What oclgrind prints when a check fires (its error reports all start so).
REPORT = re.compile(r"(Invalid (read|write)|data race|OpenCL runtime error|Uninitialized value|"
                    r"Work-group divergence|Unaligned address|Invalid access|Kernel:)", re.I)


@pytest.fixture
def oclgrind_icd_dir(tmp_path):
    if not os.path.exists(ICD):
        if os.environ.get("TORCH_OCL_REQUIRE_OCLGRIND") == "1":
            pytest.fail(f"oclgrind is required here but {ICD} is missing (apt-get install oclgrind)")
        pytest.skip("oclgrind is not installed (Debian package oclgrind); .ci/run installs it")
    (tmp_path / "oclgrind.icd").write_text(ICD + "\n")
    return str(tmp_path)


def run_cases(run_python, env):
    proc = run_python(None, env=env, args=[SCRIPT], timeout=1500)
    lines = proc.stdout.splitlines()
    assert any(line.startswith("ok ") for line in lines), proc.stdout + proc.stderr[-3000:]
    failed = [line for line in lines if line.startswith("FAIL")]
    assert not failed and proc.returncode == 0, "\n".join(failed) + proc.stderr[-3000:]
    return proc


# Both device profiles (backend/device_profile.h) on oclgrind: its own class
# is gpu; the cpu profile's block-per-item kernels run there too.
@pytest.mark.parametrize("profile", ["gpu", "cpu"])
def test_kernel_families_on_oclgrind(run_python, oclgrind_icd_dir, tmp_path, profile):
    env = {
        "OCL_ICD_VENDORS": oclgrind_icd_dir,
        "OCLGRIND_CHECK_API": "1",
        "OCLGRIND_DATA_RACES": "1",
        "TORCH_OCL_CACHE_DIR": str(tmp_path / "cache"),  # oclgrind's binaries apart from PoCL's
        "TORCH_OCL_DEVICE_PROFILE": profile,
    }
    proc = run_cases(run_python, env)
    reports = [line for line in proc.stderr.splitlines() if REPORT.search(line)]
    assert not reports, "oclgrind reported:\n" + proc.stderr[-6000:]


def test_kernel_families_with_the_gpu_profile_on_this_device(run_python):
    # The GPU-class paths (one element per item, clEnqueueCopyBuffer copies,
    # CLBlast for every product, ...) on the default device, PoCL in CI.
    run_cases(run_python, {"TORCH_OCL_DEVICE_PROFILE": "gpu"})


def test_report_pattern_matches_oclgrind_output():
    # Lines oclgrind printed for the race this job found in index.cl's
    # compare-exchange loop (the plain first read), and a bounds error.
    assert REPORT.search("Read-write data race at global memory address 0x1000000000600")
    assert REPORT.search("Invalid read of size 4 at global memory address 0x1000000000010")
    assert not REPORT.search("2 warnings generated.")
