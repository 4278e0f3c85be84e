"""pytest plugin (``-p torch_ocl.testing.pytest_plugin``) that imports torch_ocl
before any test file, so that torch.testing._internal sees the ``ocl``
device when it is first imported (run_upstream uses it).

With ``TORCH_OCL_RESULTS_JSONL=PATH`` it also appends one JSON line per test
phase to PATH as the test runs: ``{"event": "start", "id": ...}`` when a test
begins, ``{"event": "report", "id", "when", "outcome", "message"}`` after
each of its setup / call / teardown phases. run_upstream reads that file, so
a run killed by its timeout (or by a crash) still reports every test that
finished and names the one that was running."""

import json
import os

import torch_ocl  # noqa: F401

_results = None


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
    _write({"event": "start", "id": nodeid})


def pytest_runtest_logreport(report):
    outcome = report.outcome
    if hasattr(report, "wasxfail"):  # expected failure: skipped; unexpected pass: passed
        outcome = "skipped" if outcome == "skipped" else "passed"
    _write({"event": "report", "id": report.nodeid, "when": report.when, "outcome": outcome,
            "message": _message(report) if outcome != "passed" else ""})


def pytest_collectreport(report):
    if report.failed:  # a file that does not import: counted as an error
        _write({"event": "report", "id": report.nodeid or "<collection>", "when": "collect",
                "outcome": "failed", "message": _message(report)})
