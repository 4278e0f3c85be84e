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

Outcomes are recorded as each test finishes (the plugin appends JSON lines
to ``TORCH_OCL_RESULTS_JSONL``), so a file cut off by ``--timeout`` (or by a
crash) still reports the tests it ran, says that it timed out and names the
test that was running. ``--failures`` lists each failed test with the first
line of its error; ``--results-dir DIR`` keeps the per-test JSON lines.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

# Instantiated classes end with the device type in capitals: "OCL", or
# "PRIVATEUSE1" where the class was made before the rename took effect.
OCL_CLASS_SUFFIXES = ("OCL", "PRIVATEUSE1")
OUTCOMES = ("passed", "failed", "skipped", "error")


def _is_ocl_test(nodeid: str) -> bool:
    parts = nodeid.split("::")
    classname = parts[-2] if len(parts) >= 3 else ""
    return classname.endswith(OCL_CLASS_SUFFIXES) or "_ocl" in parts[-1]


def read_results(jsonl: str) -> tuple:
    """(outcomes, running) from the plugin's JSON lines: outcomes maps each
    test id to (outcome, message) with outcome one of OUTCOMES; running is the
    id of a test that started and never reported its call (the one a timeout
    or crash interrupted), or None."""
    outcomes, running = {}, None
    if not os.path.exists(jsonl):
        return outcomes, running
    with open(jsonl, encoding="utf-8") as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:  # a line cut short by the kill
                continue
            test = rec["id"]
            if rec["event"] == "start":
                running = test
                continue
            when, outcome, message = rec["when"], rec["outcome"], rec["message"]
            if when == "call" or when == "collect":
                outcomes[test] = ("error" if when == "collect" else outcome, message)
            elif when == "setup" and outcome != "passed":
                outcomes[test] = ("error" if outcome == "failed" else outcome, message)
            elif when == "teardown":
                if outcome == "failed" and outcomes.get(test, ("passed",))[0] == "passed":
                    outcomes[test] = ("error", message)
                if running == test:
                    running = None
    return outcomes, running


def count(outcomes: dict) -> dict:
    """{'ocl': {passed, failed, skipped, error}, 'other': {...}}."""
    counts = {k: dict.fromkeys(OUTCOMES, 0) for k in ("ocl", "other")}
    for test, (outcome, _) in outcomes.items():
        counts["ocl" if _is_ocl_test(test) else "other"][outcome] += 1
    return counts


def run_file(path: str, pytest_args: list, timeout: int | None, results: str | None = None) -> tuple:
    """Runs one file; returns (outcomes, running test or None, pytest exit code
    or 124 on timeout, output tail). Results are recorded as each test
    finishes (pytest_plugin's JSON lines), so a run cut off by the timeout
    still counts what it ran. `results`: keep the JSON lines at that path."""
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = results or os.path.join(tmp, "results.jsonl")
        if os.path.exists(jsonl):
            os.remove(jsonl)
        env = dict(os.environ)
        env["PYTORCH_TESTING_DEVICE_ONLY_FOR"] = "privateuse1"
        env["TORCH_OCL_RESULTS_JSONL"] = os.path.abspath(jsonl)
        env.setdefault("TORCH_OCL_FALLBACK", "silent")
        env.pop("PYTORCH_TESTING_DEVICE_EXCEPT_FOR", None)
        cmd = [sys.executable, "-m", "pytest", os.path.abspath(path), "-p", "torch_ocl.testing.pytest_plugin",
               "-p", "no:cacheprovider", "-q",
               "--rootdir", os.path.dirname(os.path.abspath(path))] + pytest_args
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                                  cwd=os.path.dirname(os.path.abspath(path)))
            code, output = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            code, output = 124, f"{out}\ntimed out after {timeout} s"
        outcomes, running = read_results(jsonl)
        return outcomes, running, code, "\n".join(output.strip().splitlines()[-15:])


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    pytest_args = []
    if "--" in argv:
        pytest_args = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", help="PyTorch test files")
    parser.add_argument("--timeout", type=int, default=None,
                        help="seconds per file; the tests that finished by then are still counted")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each file's pytest output tail")
    parser.add_argument("--failures", action="store_true",
                        help="list each failed / errored ocl test with the first line of its error")
    parser.add_argument("--results-dir", default=None,
                        help="keep each file's per-test JSON lines as DIR/<file>.jsonl")
    args = parser.parse_args(argv)

    status = 0
    for path in args.paths:
        if not os.path.isfile(path):
            print(f"{path}: no such file")
            status = max(status, 1)
            continue
        results = None
        if args.results_dir:
            os.makedirs(args.results_dir, exist_ok=True)
            results = os.path.join(args.results_dir, os.path.basename(path) + ".jsonl")
        outcomes, running, code, tail = run_file(path, pytest_args, args.timeout, results)
        counts = count(outcomes)
        ocl, other = counts["ocl"], counts["other"]
        collected = sum(ocl.values())
        line = (f"{path}: ocl tests: {ocl['passed']} passed, {ocl['failed']} failed, "
                f"{ocl['skipped']} skipped, {ocl['error']} errors")
        line += f" (other tests: {sum(other.values())}; pytest exit code {code})"
        print(line)
        if code == 124:
            print(f"{path}: TIMED OUT after {args.timeout} s" +
                  (f" while running {running}" if running else "") +
                  "; the counts are of the tests that finished")
        elif running:
            print(f"{path}: the run ended (exit code {code}) while running {running}")
        if args.failures:
            for test, (outcome, message) in outcomes.items():
                if outcome in ("failed", "error") and _is_ocl_test(test):
                    print(f"    {outcome.upper()} {test}: {message}")
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
