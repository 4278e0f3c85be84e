"""Runs the OpInfo sweep in worker processes, so that a crash or a hang in one
(op, dtype) is recorded as ``crash`` instead of ending the sweep.

A worker (``python -m torch_ocl.testing.sweep_driver --worker ...``) appends
one JSON line per (op, dtype) to the results file, after writing a ``start``
line; when a worker dies or stalls past the time limit, the driver records
the started (op, dtype) as ``crash`` and starts a new worker after it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

# Samples per (op, dtype) of the quick sweep that CI runs (every op, every dtype).
QUICK_MAX_SAMPLES = 3
# A single (op, dtype) that runs longer than this counts as a hang.
HANG_SECONDS = 300


def plan(ops=None, dtypes=None) -> list:
    """[(op full name, dtype name)] in op_db order, restricted to `ops` / `dtypes`."""
    from torch_ocl.testing import opinfo_sweep as sweep

    wanted_dtypes = set(dtypes) if dtypes else None
    pairs = []
    for name, op in sweep.op_db_by_name().items():
        if ops and name not in ops:
            continue
        for dtype in sweep.op_dtypes(op):
            d = sweep.dtype_name(dtype)
            if wanted_dtypes is None or d in wanted_dtypes:
                pairs.append((name, d))
    return pairs


def _worker(pairs_file: str, results_file: str, max_samples) -> None:
    import torch
    from torch_ocl.testing import opinfo_sweep as sweep

    ops = sweep.op_db_by_name()
    with open(pairs_file) as f:
        pairs = json.load(f)
    with open(results_file, "a") as out:
        for op_name, dtype_name in pairs:
            out.write(json.dumps({"start": [op_name, dtype_name]}) + "\n")
            out.flush()
            result = sweep.check_op(ops[op_name], getattr(torch, dtype_name), max_samples=max_samples)
            out.write(json.dumps(result.to_json()) + "\n")
            out.flush()


def _read_results(results_file: str):
    done, started = {}, None
    if not os.path.exists(results_file):
        return done, started
    with open(results_file) as f:
        for line in f:
            if not line.endswith("\n"):
                break  # a line the worker did not finish writing
            entry = json.loads(line)
            if "start" in entry:
                started = tuple(entry["start"])
            else:
                done[(entry["op"], entry["dtype"])] = entry
                started = None
    return done, started


def run(pairs: list, results_file: str, max_samples=None, hang_seconds: int = HANG_SECONDS,
        progress=None) -> list:
    """Sweeps `pairs`, isolated; returns the result dicts in `pairs` order."""
    if os.path.exists(results_file):
        os.remove(results_file)
    crashed = {}
    pairs_file = results_file + ".pairs"
    while True:
        done, _ = _read_results(results_file)
        todo = [p for p in pairs if tuple(p) not in done and tuple(p) not in crashed]
        if not todo:
            break
        with open(pairs_file, "w") as f:
            json.dump(todo, f)
        cmd = [sys.executable, "-m", "torch_ocl.testing.sweep_driver", "--worker", pairs_file, results_file]
        if max_samples is not None:
            cmd += ["--max-samples", str(max_samples)]
        env = dict(os.environ, TORCH_OCL_FALLBACK="silent", PYTHONWARNINGS="ignore")
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        last_change, last_size = time.monotonic(), -1
        while proc.poll() is None:
            time.sleep(0.5)
            size = os.path.getsize(results_file) if os.path.exists(results_file) else 0
            if size != last_size:
                last_size, last_change = size, time.monotonic()
                if progress:
                    progress(len(_read_results(results_file)[0]) + len(crashed), len(pairs))
            elif time.monotonic() - last_change > hang_seconds:
                proc.kill()
                proc.wait()
                break
        stderr_tail = (proc.stderr.read() or "").strip().splitlines()[-1:] if proc.stderr else []
        done, started = _read_results(results_file)
        if proc.returncode != 0:
            if started is None:
                raise RuntimeError(f"sweep worker failed outside an op: {stderr_tail}")
            why = "hang" if proc.returncode in (-9, 137) else f"exit code {proc.returncode}"
            crashed[started] = {
                "op": started[0], "dtype": started[1], "status": "crash", "samples": 0,
                "cpu_rejected": 0, "backward": False, "fallback_ops": [], "seconds": 0.0,
                "detail": f"process died ({why}) {' '.join(stderr_tail)[:200]}".strip(),
            }
    if os.path.exists(pairs_file):  # absent when every pair was done already
        os.remove(pairs_file)
    done, _ = _read_results(results_file)
    done.update(crashed)
    with open(results_file, "w") as f:
        for p in pairs:
            f.write(json.dumps(done[tuple(p)]) + "\n")
    return [done[tuple(p)] for p in pairs]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--worker", nargs=2, metavar=("PAIRS_JSON", "RESULTS_JSONL"))
    parser.add_argument("--max-samples", type=int, default=None)
    args = parser.parse_args(argv)
    if args.worker:
        _worker(args.worker[0], args.worker[1], args.max_samples)
    else:
        parser.error("use python -m torch_ocl.coverage to run a sweep")


if __name__ == "__main__":
    main()
