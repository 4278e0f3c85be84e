"""Run PyTorch's own test files on the ocl device.

    python -m torch_ocl.testing.run_upstream PATH [PATH ...] [-- PYTEST ARGS]

Each file (for example ``test/test_view_ops.py`` of a PyTorch source checkout
matching the installed torch) runs under pytest in its own process with:

- torch_ocl imported first (a ``-p`` pytest plugin), so PrivateUse1 is
  renamed to ``ocl`` and ``torch.ocl`` exists before the file imports
  ``torch.testing._internal``;
- ``PYTORCH_TESTING_DEVICE_ONLY_FOR=privateuse1``: device-generic tests are
  instantiated for ocl only (classes ``...OCL``, tests ``..._ocl...``);
- ``TORCH_OCL_FALLBACK=silent`` (counted fallbacks, no warnings).

It prints the pass / fail / skip / error counts of the ocl tests of each
file (tests that are not device-generic are counted apart), and exits with
status 1 when a file has failures or errors, and with status 2 when a file
collected **no** ocl tests: PyTorch silently generates no tests for a device
it does not see, and an empty run must never read as a green one.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

# Instantiated classes end with the device type in capitals: "OCL", or
# "PRIVATEUSE1" where the class was made before the rename took effect.
OCL_CLASS_SUFFIXES = ("OCL", "PRIVATEUSE1")


def _is_ocl_case(case: ET.Element) -> bool:
    classname = case.get("classname", "").split(".")[-1]
    return classname.endswith(OCL_CLASS_SUFFIXES) or "_ocl" in case.get("name", "")


def count(junit_xml: str) -> dict:
    """{'ocl': {passed, failed, skipped, error}, 'other': {...}} from a JUnit XML file."""
    counts = {k: {"passed": 0, "failed": 0, "skipped": 0, "error": 0} for k in ("ocl", "other")}
    if not os.path.exists(junit_xml):
        return counts
    for case in ET.parse(junit_xml).getroot().iter("testcase"):
        kind = "ocl" if _is_ocl_case(case) else "other"
        if case.find("failure") is not None:
            outcome = "failed"
        elif case.find("error") is not None:
            outcome = "error"
        elif case.find("skipped") is not None:
            outcome = "skipped"
        else:
            outcome = "passed"
        counts[kind][outcome] += 1
    return counts


def run_file(path: str, pytest_args: list, timeout: int | None) -> tuple:
    """Runs one file; returns (counts, pytest exit code, output tail)."""
    with tempfile.TemporaryDirectory() as tmp:
        junit = os.path.join(tmp, "junit.xml")
        env = dict(os.environ)
        env["PYTORCH_TESTING_DEVICE_ONLY_FOR"] = "privateuse1"
        env.setdefault("TORCH_OCL_FALLBACK", "silent")
        env.pop("PYTORCH_TESTING_DEVICE_EXCEPT_FOR", None)
        cmd = [sys.executable, "-m", "pytest", os.path.abspath(path), "-p", "torch_ocl.testing.pytest_plugin",
               "-p", "no:cacheprovider", "-q", f"--junitxml={junit}",
               "--rootdir", os.path.dirname(os.path.abspath(path))] + pytest_args
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                                  cwd=os.path.dirname(os.path.abspath(path)))
            code, output = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as exc:
            code, output = 124, f"timed out after {timeout} s\n{exc.stdout or ''}"
        return count(junit), code, "\n".join(output.strip().splitlines()[-15:])


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    pytest_args = []
    if "--" in argv:
        pytest_args = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", help="PyTorch test files")
    parser.add_argument("--timeout", type=int, default=None, help="seconds per file")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each file's pytest output tail")
    args = parser.parse_args(argv)

    status = 0
    for path in args.paths:
        if not os.path.isfile(path):
            print(f"{path}: no such file")
            status = max(status, 1)
            continue
        counts, code, tail = run_file(path, pytest_args, args.timeout)
        ocl, other = counts["ocl"], counts["other"]
        collected = sum(ocl.values())
        line = (f"{path}: ocl tests: {ocl['passed']} passed, {ocl['failed']} failed, "
                f"{ocl['skipped']} skipped, {ocl['error']} errors")
        line += f" (other tests: {sum(other.values())}; pytest exit code {code})"
        print(line)
        if args.verbose or collected == 0 or code not in (0, 1, 5):
            print("    " + tail.replace("\n", "\n    "))
        if collected == 0:
            print(f"{path}: ERROR: no ocl tests were collected -- is torch.ocl available "
                  "(python -m torch_ocl) and does the file instantiate device-generic tests?")
            status = 2
        elif ocl["failed"] or ocl["error"] or code not in (0, 1, 5):
            status = max(status, 1) if status != 2 else 2
    return status


if __name__ == "__main__":
    sys.exit(main())
