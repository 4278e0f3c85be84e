"""pytest plugin (``-p torch_ocl.testing.pytest_plugin``) that imports torch_ocl
before any test file, so that torch.testing._internal sees the ``ocl``
device when it is first imported (run_upstream uses it).

With ``TORCH_OCL_RESULTS_JSONL=PATH`` it also appends one JSON line per test
phase to PATH as the test runs: ``{"event": "start", "id": ...}`` when a test
begins, ``{"event": "report", "id", "when", "outcome", "message"}`` after
each of its setup / call / teardown phases, with ``"fallbacks"``: the CPU
fallback calls the test made (torch_ocl's counters are per process, so the
plugin takes the difference around each test). run_upstream reads that file,
so a run killed by its timeout (or by a crash) still reports every test that
finished and names the one that was running.

With ``TORCH_OCL_SHARD=i/n`` only the collected tests whose position in the
sorted list of test ids is i modulo n run (the others are deselected), so a
file too long for one run is split into n runs that add up to the whole."""

import json
import os

import pytest
import torch
import torch_ocl  # noqa: F401

_results = None
_fallbacks_at_start = 0
# Under pytest-xdist the controller receives every worker's logstart and
# logreport too; only the process that ran the test may record it (the
# controller's fallback counters are not the test's: its records said 0, and
# whichever of the two lines came last won).
_xdist_controller = False
_crash_file = None


@pytest.hookimpl(trylast=True)  # after pytest's faulthandler plugin, to which the crash report chains
def pytest_configure(config):
    global _xdist_controller
    _xdist_controller = not hasattr(config, "workerinput") and bool(getattr(config.option, "numprocesses", None))
    path = os.environ.get("TORCH_OCL_RESULTS_JSONL")
    if path and not _xdist_controller:
        # A process that runs tests: on a fatal signal, Python's stacks and the
        # crashing thread's native backtrace go to a file of its own (an xdist
        # worker's stderr is lost); run_upstream adds it to the run's output.
        import faulthandler
        global _crash_file
        _crash_file = open(f"{path}.crash.{os.getpid()}", "w", buffering=1)
        faulthandler.enable(file=_crash_file, all_threads=True)
        torch_ocl._C._install_crash_reporter(_crash_file.fileno())


def _fallback_calls() -> int:
    try:
        return sum(torch.ocl.fallback_stats().values())
    except Exception:  # no device: nothing can fall back
        return 0


def _write(record: dict) -> None:
    global _results
    path = os.environ.get("TORCH_OCL_RESULTS_JSONL")
    if not path:
        return
    if _results is None:
        _results = open(path, "a", buffering=1, encoding="utf-8")
    _results.write(json.dumps(record) + "\n")


def _message(report) -> str:
    """The first lines of a failure (the exception), or a skip's reason."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        text = crash.message
    elif isinstance(report.longrepr, tuple):  # skip: (file, line, reason)
        text = str(report.longrepr[2])
    else:
        text = str(report.longrepr or "")
    return " | ".join(line.strip() for line in text.strip().splitlines()[:4])[:500]


def pytest_runtest_logstart(nodeid, location):
    global _fallbacks_at_start
    if _xdist_controller:
        return
    _fallbacks_at_start = _fallback_calls()
    _write({"event": "start", "id": nodeid})


def pytest_runtest_logreport(report):
    if _xdist_controller:
        return
    outcome = report.outcome
    if hasattr(report, "wasxfail"):  # expected failure: skipped; unexpected pass: passed
        outcome = "skipped" if outcome == "skipped" else "passed"
    _write({"event": "report", "id": report.nodeid, "when": report.when, "outcome": outcome,
            "message": _message(report) if outcome != "passed" else "",
            "fallbacks": _fallback_calls() - _fallbacks_at_start})


def _disable_by_pattern(items):
    """TORCH_OCL_DISABLED_PATTERNS (run_upstream): [[test glob, class name,
    reason], ...]; a matching test is skipped with the message PyTorch gives a
    test named in DISABLED_TESTS_FILE (so it is counted as disabled)."""
    patterns = json.loads(os.environ.get("TORCH_OCL_DISABLED_PATTERNS", "[]"))
    if not patterns:
        return
    import fnmatch

    import pytest
    for item in items:
        cls = getattr(item, "cls", None)
        cls_name = cls.__name__ if cls is not None else ""
        for pattern, class_prefix, reason in patterns:
            if cls_name.startswith(class_prefix) and fnmatch.fnmatchcase(item.name, pattern):
                item.add_marker(pytest.mark.skip(
                    reason=f"Test is disabled because an issue exists disabling it: {reason}"))
                break


def _keep_only_listed(config, items):
    """TORCH_OCL_ONLY_IDS=FILE (run_upstream --rerun-failed / --only-ids):
    run only the test ids listed in FILE, one per line, with or without the
    file part ("test_ops.py::Class::test" or "Class::test")."""
    path = os.environ.get("TORCH_OCL_ONLY_IDS")
    if not path:
        return
    with open(path, encoding="utf-8") as f:
        wanted = {line.strip() for line in f if line.strip()}
    def listed(item):
        return item.nodeid in wanted or item.nodeid.split("::", 1)[-1] in wanted

    dropped = [item for item in items if not listed(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = [item for item in items if listed(item)]


def _keep_shard(config, items):
    """TORCH_OCL_SHARD=i/n: the tests whose position in the sorted collection
    is i modulo n."""
    shard = os.environ.get("TORCH_OCL_SHARD")
    if not shard:
        return
    index, count = (int(v) for v in shard.split("/"))
    if not 0 <= index < count:
        raise ValueError(f"TORCH_OCL_SHARD={shard}: want i/n with 0 <= i < n")
    order = {nodeid: i for i, nodeid in enumerate(sorted(item.nodeid for item in items))}
    keep = [item for item in items if order[item.nodeid] % count == index]
    dropped = [item for item in items if order[item.nodeid] % count != index]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep


def pytest_collection_modifyitems(session, config, items):
    _disable_by_pattern(items)
    # The shard first (positions in the whole collection), then a rerun's list:
    # a shard's rerun (--rerun-failed --shard i/n) runs all of its failures.
    _keep_shard(config, items)
    _keep_only_listed(config, items)


def pytest_collectreport(report):
    if report.failed:  # a file that does not import: counted as an error
        _write({"event": "report", "id": report.nodeid or "<collection>", "when": "collect",
                "outcome": "failed", "message": _message(report)})
