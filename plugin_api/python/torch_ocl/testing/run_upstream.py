"""Run PyTorch's own test files on the ocl device.

    python -m torch_ocl.testing.run_upstream PATH [PATH ...] [-- PYTEST ARGS]

Each file (for example ``test/test_view_ops.py`` of a PyTorch source checkout
matching the installed torch) runs under pytest in its own process with:

- torch_ocl imported first (a ``-p`` pytest plugin), so PrivateUse1 is
  renamed to ``ocl`` and ``torch.ocl`` exists before the file imports
  ``torch.testing._internal``;
- ``PYTORCH_TESTING_DEVICE_ONLY_FOR=privateuse1``: device-generic tests are
  instantiated for ocl only (classes ``...OCL``, tests ``..._ocl...``), and
  ``PYTORCH_TESTING_DEVICE_FOR_CUSTOM=privateuse1`` for files that name their
  devices (``only_for=("cpu", "cuda")``);
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
line of its error; ``--results-dir DIR`` keeps the per-test JSON lines and a
summary per file (``<file>.summary.json``: counts, disabled tests, passing
tests that used the CPU fallback, wall time, torch version), which
``python -m torch_ocl.testing.upstream_report`` turns into the README table.

Known failures are disabled the way PyTorch's CI disables tests: the entries
of ``upstream_disabled.yaml`` (next to this file; each names a test and why)
for the file being run go to PyTorch's ``DISABLED_TESTS_FILE``, so those
tests report as skipped with that reason and are counted as disabled.
``--shard i/n`` runs every n-th test (``TORCH_OCL_SHARD``, pytest_plugin);
the shards' summaries add up in the report.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

import yaml

# Instantiated classes end with the device type in capitals: "OCL", or
# "PRIVATEUSE1" where the class was made before the rename took effect.
OCL_CLASS_SUFFIXES = ("OCL", "PRIVATEUSE1")
OUTCOMES = ("passed", "failed", "skipped", "error")
DISABLED_LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "upstream_disabled.yaml")
# The skip message of a test named in DISABLED_TESTS_FILE (common_utils.check_if_enable).
DISABLED_MESSAGE = "Test is disabled because an issue exists disabling it"


def _listed(path: str, listing: str | None = None) -> list:
    """(test name, class name, reason) of the committed list's entries for the
    test file at `path`: a mapping of file name (as test_torch.py,
    nn/test_pooling.py) to {"test_name (ClassName)": reason}.
    TORCH_OCL_UPSTREAM_DISABLED names another list (tests of the runner)."""
    listing = listing or os.environ.get("TORCH_OCL_UPSTREAM_DISABLED", DISABLED_LIST)
    if not os.path.exists(listing):
        return []
    with open(listing, encoding="utf-8") as f:
        table = yaml.safe_load(f) or {}
    norm = path.replace(os.sep, "/")
    out = []
    for name, tests in table.items():
        if norm == name or norm.endswith("/" + name):
            for test, reason in (tests or {}).items():
                method, cls = test.split()
                out.append((method, cls.strip("()"), f"torch_ocl: {reason}"))
    return out


def disabled_tests(path: str, listing: str | None = None) -> dict:
    """PyTorch's DISABLED_TESTS_FILE entries ({"test (__main__.Class)": [reason, []]})
    for the listed tests of `path` named exactly. A class name matches its
    instantiations (TestFoo matches TestFooOCL); a test name without device /
    dtype suffix matches every dtype."""
    entries = {}
    for method, cls, reason in _listed(path, listing):
        if "*" in method:  # a pattern: see disabled_patterns
            continue
        # PyTorch strips a device suffix only together with a dtype suffix:
        # a test without dtypes is matched by its _ocl name.
        for name in (method, method + "_ocl"):
            entries[f"{name} (__main__.{cls})"] = [reason, []]
    return entries


def disabled_patterns(path: str, listing: str | None = None) -> list:
    """The listed tests of `path` whose name is a glob pattern
    ("test_conv_backend_slow* (TestConvolutionNNDeviceType)"), as [pattern,
    class name, reason]: PyTorch's DISABLED_TESTS_FILE matches names exactly,
    so pytest_plugin (TORCH_OCL_DISABLED_PATTERNS) skips these with the same
    message."""
    return [list(entry) for entry in _listed(path, listing) if "*" in entry[0]]


def _is_ocl_test(nodeid: str) -> bool:
    parts = nodeid.split("::")
    classname = parts[-2] if len(parts) >= 3 else ""
    return classname.endswith(OCL_CLASS_SUFFIXES) or "_ocl" in parts[-1]


DIED_MESSAGE = "the test process died while running this test (a crash: see the run's output)"


def read_results(jsonl: str, timed_out: bool = False) -> tuple:
    """(outcomes, running) from the plugin's JSON lines: outcomes maps each
    test id to (outcome, message, fallback calls) with outcome one of OUTCOMES; running is the
    id of a test the timeout interrupted (`timed_out`: the last one started, under
    -n several workers run at once), else None. Without a timeout a test that
    started and never finished is an error: its process died (a crash, an
    xdist worker lost)."""
    outcomes, unfinished = {}, {}
    if not os.path.exists(jsonl):
        return outcomes, None
    with open(jsonl, encoding="utf-8") as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:  # a line cut short by the kill
                continue
            test = rec["id"]
            if rec["event"] == "start":
                unfinished[test] = True
                continue
            when, outcome, message = rec["when"], rec["outcome"], rec["message"]
            fallbacks = rec.get("fallbacks", 0)
            if when == "call" or when == "collect":
                outcomes[test] = ("error" if when == "collect" else outcome, message, fallbacks)
            elif when == "setup" and outcome != "passed":
                outcomes[test] = ("error" if outcome == "failed" else outcome, message, fallbacks)
            elif when == "teardown":
                if outcome == "failed" and outcomes.get(test, ("passed",))[0] == "passed":
                    outcomes[test] = ("error", message, fallbacks)
                unfinished.pop(test, None)
    if timed_out:
        return outcomes, next(reversed(unfinished), None)
    for test in unfinished:
        if test not in outcomes:
            outcomes[test] = ("error", DIED_MESSAGE, 0)
    return outcomes, None


def count(outcomes: dict) -> dict:
    """{'ocl': {passed, failed, skipped, error}, 'other': {...}}."""
    counts = {k: dict.fromkeys(OUTCOMES, 0) for k in ("ocl", "other")}
    for test, (outcome, *_) in outcomes.items():
        counts["ocl" if _is_ocl_test(test) else "other"][outcome] += 1
    return counts


def summarize(path: str, outcomes: dict, running, code: int, wall: float, shard) -> dict:
    """What the report needs of one run of one file."""
    ocl = {t: o for t, o in outcomes.items() if _is_ocl_test(t)}
    disabled = sorted(t for t, (o, m, _) in ocl.items() if o == "skipped" and DISABLED_MESSAGE in m)
    skip_reasons = {}
    for t, (o, m, _) in ocl.items():
        if o == "skipped" and t not in disabled:
            reason = (m.split(" | ")[0] or "no reason given")[:120]
            skip_reasons[reason] = skip_reasons.get(reason, 0) + 1
    return dict(
        file=_file_name(path), shard=shard, wall_s=round(wall, 1),
        exit_code=code, running_at_end=running, torch=_torch_version(),
        counts=count(outcomes)["ocl"], other_tests=sum(count(outcomes)["other"].values()),
        disabled=disabled, skip_reasons=skip_reasons,
        passed_with_fallback=sorted(t for t, (o, _, f) in ocl.items() if o == "passed" and f),
        failures={t: m for t, (o, m, _) in ocl.items() if o in ("failed", "error")})


def _file_name(path: str) -> str:
    """A test file's name as under pytorch/test (nn/test_pooling.py), else its base name."""
    norm = path.replace(os.sep, "/")
    return norm.split("/test/", 1)[1] if "/test/" in norm else os.path.basename(norm)


def _torch_version() -> str:
    out = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__, torch.version.git_version)"],
                         capture_output=True, text=True, env=dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0"))
    return out.stdout.strip()


def run_file(path: str, pytest_args: list, timeout: int | None, results: str | None = None,
             shard: str | None = None, only_ids: list | None = None) -> tuple:
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
        # files that list their devices (only_for=("cpu", "cuda")) get ocl too
        env["PYTORCH_TESTING_DEVICE_FOR_CUSTOM"] = "privateuse1"
        env["TORCH_OCL_RESULTS_JSONL"] = os.path.abspath(jsonl)
        env.setdefault("TORCH_OCL_FALLBACK", "silent")
        env.pop("PYTORCH_TESTING_DEVICE_EXCEPT_FOR", None)
        disabled = disabled_tests(path)
        if disabled:
            env["DISABLED_TESTS_FILE"] = os.path.join(tmp, "disabled.json")
            with open(env["DISABLED_TESTS_FILE"], "w", encoding="utf-8") as f:
                json.dump(disabled, f)
        patterns = disabled_patterns(path)
        if patterns:
            env["TORCH_OCL_DISABLED_PATTERNS"] = json.dumps(patterns)
        if shard:
            env["TORCH_OCL_SHARD"] = shard
        if only_ids is not None:
            env["TORCH_OCL_ONLY_IDS"] = os.path.join(tmp, "only_ids.txt")
            with open(env["TORCH_OCL_ONLY_IDS"], "w", encoding="utf-8") as f:
                f.write("\n".join(only_ids) + "\n")
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
        outcomes, running = read_results(jsonl, timed_out=code == 124)
        for crash in sorted(glob.glob(glob.escape(jsonl) + ".crash.*")):  # the plugin's per-process crash files
            with open(crash, encoding="utf-8", errors="replace") as f:
                text = f.read().strip()
            if text:
                output += f"\n==== crash report of process {crash.rsplit('.', 1)[-1]} ====\n{text}\n"
            os.remove(crash)
        if results:  # the whole output beside the results (a crash's stacks are in it)
            with open(os.path.splitext(results)[0] + ".output.txt", "w", encoding="utf-8") as f:
                f.write(output)
        return outcomes, running, code, "\n".join(output.strip().splitlines()[-15:])


def cpu_twin(test: str) -> str:
    """The CPU instantiation's id of an ocl test id."""
    parts = test.split("::")
    for suffix in OCL_CLASS_SUFFIXES:
        if parts[-2].endswith(suffix):
            parts[-2] = parts[-2][: -len(suffix)] + "CPU"
    parts[-1] = parts[-1].replace("_ocl", "_cpu", 1)
    return "::".join(parts)


def failed_on_cpu_too(path: str, failed: list) -> list:
    """The ocl tests of `failed` whose CPU twins fail too (run in one pytest process)."""
    if not failed:
        return []
    twins = {cpu_twin(t): t for t in failed}
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = os.path.join(tmp, "cpu.jsonl")
        env = dict(os.environ, PYTORCH_TESTING_DEVICE_ONLY_FOR="cpu", TORCH_OCL_RESULTS_JSONL=jsonl)
        directory = os.path.dirname(os.path.abspath(path))
        ids = [os.path.join(directory, t) for t in twins]
        subprocess.run([sys.executable, "-m", "pytest", "-p", "torch_ocl.testing.pytest_plugin", "-p", "no:cacheprovider",
                        "-q", "--rootdir", directory] + ids, env=env, capture_output=True, text=True, cwd=directory)
        outcomes, _ = read_results(jsonl)
    return sorted(twins[t] for t, (o, *_) in outcomes.items() if t in twins and o in ("failed", "error"))


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
                        help="keep each file's per-test JSON lines as DIR/<file>.jsonl and its summary as "
                             "DIR/<file>.summary.json")
    parser.add_argument("--cpu-check", action="store_true",
                        help="rerun each failed ocl test's CPU twin and say which fail on the CPU too "
                             "(a test file of another PyTorch version than the installed one)")
    parser.add_argument("--rerun-fallback", action="store_true",
                        help="with --results-dir: as --rerun-failed, and also rerun the tests that passed "
                             "through the CPU fallback (their counts follow ops that became native)")
    parser.add_argument("--rerun-failed", action="store_true",
                        help="with --results-dir: run only the ocl tests that failed in the file's last results "
                             "and update those results (the file's other outcomes stay as recorded)")
    parser.add_argument("--shard", default=None, help="i/n (0 <= i < n): run every n-th test of each file, starting at the i-th")
    parser.add_argument("--only-ids", default=None,
                        help="a file of test ids (Class::test, one a line): run only those (for example the "
                             "tests docs/upstream.md lists as fallback users, when no earlier results are kept)")
    args = parser.parse_args(argv)
    listed_ids = None
    if args.only_ids:
        with open(args.only_ids, encoding="utf-8") as f:
            listed_ids = [line.strip() for line in f if line.strip()]

    status = 0
    for path in args.paths:
        if not os.path.isfile(path):
            print(f"{path}: no such file")
            status = max(status, 1)
            continue
        results = None
        stem = os.path.basename(path) + (f".shard{args.shard.replace('/', 'of')}" if args.shard else "")
        if args.results_dir:
            os.makedirs(args.results_dir, exist_ok=True)
            results = os.path.join(args.results_dir, stem + ".jsonl")
        previous, only_ids, previous_wall = {}, listed_ids, 0.0
        rerun = args.rerun_failed or args.rerun_fallback
        if rerun:
            if not results or not os.path.exists(results):
                print(f"{path}: --rerun-failed/--rerun-fallback needs the results of an earlier run in --results-dir")
                status = max(status, 1)
                continue
            previous, _ = read_results(results)
            only_ids = [t for t, (o, _, f) in previous.items() if _is_ocl_test(t) and (
                o in ("failed", "error") or (args.rerun_fallback and o == "passed" and f))]
            with open(os.path.join(args.results_dir, stem + ".summary.json"), encoding="utf-8") as f:
                previous_wall = json.load(f)["wall_s"]
            os.replace(results, results + ".before_rerun")
        t0 = time.perf_counter()
        outcomes, running, code, tail = run_file(path, pytest_args, args.timeout, results, args.shard, only_ids)
        wall = time.perf_counter() - t0 + previous_wall
        if rerun:  # the earlier outcomes, with the rerun's replacing those it ran
            with open(results + ".before_rerun", encoding="utf-8") as before, \
                    open(results + ".merged", "w", encoding="utf-8") as merged:
                merged.write(before.read())
                with open(results, encoding="utf-8") as rerun:
                    merged.write(rerun.read())
            os.replace(results + ".merged", results)
            os.remove(results + ".before_rerun")
            outcomes, running = read_results(results, timed_out=code == 124)
        cpu_too = []
        if args.cpu_check:
            failed = [t for t, (o, *_) in outcomes.items() if o in ("failed", "error") and _is_ocl_test(t)]
            cpu_too = failed_on_cpu_too(path, failed)
        if args.results_dir:
            summary = summarize(os.path.abspath(path), outcomes, running, code, wall, args.shard)
            summary["failed_on_cpu_too"] = cpu_too
            with open(os.path.join(args.results_dir, stem + ".summary.json"), "w", encoding="utf-8") as f:
                json.dump(summary, f, indent=1)
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
            for test, (outcome, message, _) in outcomes.items():
                if outcome in ("failed", "error") and _is_ocl_test(test):
                    print(f"    {outcome.upper()} {test}: {message}")
        for test in cpu_too:
            print(f"    FAILS ON CPU TOO: {test}")
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
