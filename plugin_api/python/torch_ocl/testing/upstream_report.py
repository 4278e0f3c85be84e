"""The table of PyTorch's own test files run on ocl, from run_upstream's summaries.

    python -m torch_ocl.testing.upstream_report RESULTS_DIR [--sources SOURCES.txt] [--notes NOTES.md]
        [--out docs/upstream.md]

RESULTS_DIR holds ``<file>.summary.json`` (and ``<file>.shardIofN.summary.json``)
written by ``python -m torch_ocl.testing.run_upstream --results-dir RESULTS_DIR``;
shards of one file are added up. ``--sources`` is a text file of lines
``<path under pytorch> [<owner>/<repo>@]<commit> [chars]`` naming the version of each
test file (listed in full under "Versions of the test files"); ``--notes`` is
markdown appended as it is (the adaptations that make a stored file import).
Writes the per-file table, each file's failures, disabled tests and skip
reasons to ``--out`` and prints the table (the one README carries).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from collections import defaultdict


def load(results_dir: str) -> dict:
    """file -> merged summary (shards added up)."""
    merged = {}
    for path in sorted(glob.glob(os.path.join(results_dir, "*.summary.json"))):
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
        m = merged.setdefault(s["file"], dict(file=s["file"], shards=0, wall_s=0.0, torch=s["torch"],
                                              counts=defaultdict(int), disabled=[], skip_reasons=defaultdict(int),
                                              passed_with_fallback=[], failures={}, incomplete=[],
                                              cpu_too=[]))
        m["shards"] += 1
        m["wall_s"] += s["wall_s"]
        for k, v in s["counts"].items():
            m["counts"][k] += v
        m["disabled"] += s["disabled"]
        for k, v in s["skip_reasons"].items():
            m["skip_reasons"][k] += v
        m["passed_with_fallback"] += s["passed_with_fallback"]
        m["failures"].update(s["failures"])
        m["cpu_too"] += s.get("failed_on_cpu_too", [])
        if s["exit_code"] == 124 or s["running_at_end"]:
            m["incomplete"].append(f"shard {s['shard'] or 'all'}: stopped in {s['running_at_end']} "
                                   f"(exit code {s['exit_code']})")
    return merged


def table(merged: dict, sources: dict) -> str:
    rows = ["| file | upstream commit | ocl tests | passed | failed+errors | of them failing on the CPU too | "
            "pass rate | pass rate without those | skipped | disabled | passed with fallback | wall |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, m in sorted(merged.items()):
        c = m["counts"]
        skipped = c["skipped"] - len(m["disabled"])
        ran = c["passed"] + c["failed"] + c["error"]
        rate = f"{100.0 * c['passed'] / ran:.1f}%" if ran else "-"
        cpu_too = len(set(m["cpu_too"]))
        rate2 = f"{100.0 * c['passed'] / (ran - cpu_too):.1f}%" if ran > cpu_too else "-"
        native = len(m["passed_with_fallback"])
        shards = f" ({m['shards']} shards)" if m["shards"] > 1 else ""
        commit = sources.get(name, "?").rsplit("@", 1)[-1]
        rows.append(f"| {name}{' (incomplete)' if m['incomplete'] else ''} | {commit[:10]} | "
                    f"{sum(c.values())} | {c['passed']} | {c['failed'] + c['error']} | {cpu_too} | {rate} | {rate2} | {skipped} | "
                    f"{len(m['disabled'])} | {native} ({100.0 * native / max(c['passed'], 1):.1f}%) | "
                    f"{m['wall_s'] / 60:.1f} min{shards} |")
    return "\n".join(rows)


def details(merged: dict) -> str:
    out = []
    for name, m in sorted(merged.items()):
        out.append(f"\n## {name}\n")
        if m["incomplete"]:
            out.append("Incomplete: " + "; ".join(m["incomplete"]) + "\n")
        if m["failures"]:
            out.append(f"Failures ({len(m['failures'])}):\n")
            too = set(m["cpu_too"])
            out += [f"- `{t.split('::', 1)[-1]}`{' (fails on the CPU too)' if t in too else ''}: {msg[:300]}"
                    for t, msg in sorted(m["failures"].items())]
        if m["disabled"]:
            out.append(f"\nDisabled ({len(m['disabled'])}, reasons in upstream_disabled.yaml):\n")
            out += [f"- `{t.split('::', 1)[-1]}`" for t in sorted(m["disabled"])]
        if m["skip_reasons"]:
            out.append("\nSkipped, by reason:\n")
            out += [f"- {n}: {r}" for r, n in sorted(m["skip_reasons"].items(), key=lambda kv: -kv[1])]
        if m["passed_with_fallback"]:
            out.append(f"\nPassed, but used the CPU fallback ({len(m['passed_with_fallback'])}):\n")
            out += [f"- `{t.split('::', 1)[-1]}`" for t in sorted(m["passed_with_fallback"])[:200]]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results_dir")
    ap.add_argument("--sources", default=None)
    ap.add_argument("--notes", default=None)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    merged = load(args.results_dir)
    if not merged:
        print(f"no *.summary.json in {args.results_dir}")
        return 1
    sources = {}
    if args.sources:
        with open(args.sources, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2:
                    sources[parts[0].split("test/", 1)[-1]] = parts[1]
    t = table(merged, sources)
    torch_versions = sorted({m["torch"] for m in merged.values()})
    print(t)
    if args.out:
        versions = "".join(f"- `{path}`: {sources[path]}\n" for path in sorted(sources) if path in merged)
        versions = versions or "(not given)\n"
        notes = ""
        if args.notes:
            with open(args.notes, encoding="utf-8") as f:
                notes = "\n" + f.read()
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("# PyTorch's own test files on ocl\n\nGenerated by `python -m torch_ocl.testing.upstream_report`"
                    f" from `run_upstream` results; torch {', '.join(torch_versions)}.\n\n{t}\n{details(merged)}\n"
                    f"\n## Versions of the test files\n\n{versions}{notes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
