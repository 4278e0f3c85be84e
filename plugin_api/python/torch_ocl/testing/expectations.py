"""What the OpInfo sweep is allowed to find, and the check that keeps it true.

Two sources, both data:

- ``known_failures.yaml`` (next to this file): the (op, dtype) pairs that do
  not pass, each with its status and the reason. Only ``error`` may be
  listed, and only for a feature the device genuinely lacks; a wrong result
  or a crash is never expected.
- ``docs/ops.json``: the last full sweep, written with ``docs/ops.md`` by
  ``python -m torch_ocl.coverage``. It is the baseline: an (op, dtype) that
  was native there must stay native.

``problems(results)`` lists every disagreement: an unlisted pair that does
not pass, a listed pair whose status changed (including one that now passes:
delete its entry), a native pair that regressed to the fallback, and, for a
full sweep, any status that differs from the committed report.
"""

from __future__ import annotations

import json
import os

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
KNOWN_FAILURES_FILE = os.path.join(HERE, "known_failures.yaml")
ALLOWED_EXPECTED = ("error",)


def repo_root() -> str | None:
    """The source checkout holding this package (editable installs), if any."""
    root = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
    return root if os.path.isdir(os.path.join(root, "plugin_api")) else None


def default_baseline_file() -> str | None:
    root = repo_root()
    return os.path.join(root, "docs", "ops.json") if root else None


def load_known_failures(path: str = KNOWN_FAILURES_FILE) -> dict:
    """{(op, dtype or '*'): {'status', 'reason'}}; validates every entry."""
    with open(path) as f:
        raw = yaml.safe_load(f) or {}
    known = {}
    for op, entry in raw.items():
        status, reason = entry.get("status"), (entry.get("reason") or "").strip()
        if status not in ALLOWED_EXPECTED:
            raise ValueError(f"{path}: {op}: status must be one of {ALLOWED_EXPECTED}, not {status!r} "
                             "(wrong results and crashes are bugs, never expectations)")
        if not reason:
            raise ValueError(f"{path}: {op}: every expected failure needs a reason")
        dtypes = entry.get("dtypes", "all")
        for dtype in (["*"] if dtypes == "all" else dtypes):
            known[(op, dtype)] = {"status": status, "reason": reason}
    return known


def expected_for(known: dict, op: str, dtype: str):
    return known.get((op, dtype)) or known.get((op, "*"))


def load_baseline(path: str | None) -> dict:
    """{(op, dtype): status} of the last full sweep, or {} when there is none."""
    if not path or not os.path.exists(path):
        return {}
    with open(path) as f:
        data = json.load(f)
    return {(r["op"], r["dtype"]): r["status"] for r in data["results"]}


def problems(results, known: dict, baseline: dict, full: bool) -> list:
    """Human-readable disagreements between sweep results and the data."""
    out = []
    for r in results:
        key = (r["op"], r["dtype"])
        name = f"{r['op']} [{r['dtype']}]"
        listed = expected_for(known, *key)
        status = r["status"]
        if listed:
            if status != listed["status"]:
                out.append(f"{name}: known_failures.yaml expects {listed['status']} "
                           f"({listed['reason']}), got {status} {r['detail']}".rstrip()
                           + (" -- it passes now: delete the entry" if status in ("native", "fallback") else ""))
            continue
        if status not in ("native", "fallback"):
            out.append(f"{name}: {status}: {r['detail']}")
            continue
        before = baseline.get(key)
        if before == "native" and status == "fallback":
            out.append(f"{name}: regressed from native to the CPU fallback ({', '.join(r['fallback_ops'])})")
        elif full and before is not None and before != status:
            out.append(f"{name}: {before} in docs/ops.json, {status} now: regenerate the report "
                       "(python -m torch_ocl.coverage)")
    return out
