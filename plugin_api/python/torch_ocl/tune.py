"""python -m torch_ocl.tune: tune CLBlast's kernels for an ocl device.

Runs CLBlast's tuner programs (Debian package ``clblast-utils``) for the
device, keeps the best parameters of each kernel, and writes them to
``<TORCH_OCL_CACHE_DIR>/tuning/<device>__<driver>.json``. torch_ocl applies that
file with ``clblast::OverrideParameters`` the first time it runs a CLBlast
routine on the device (and logs it once); with no cached file it uses the one
shipped in ``torch_ocl/tuning/`` for the device, if any. ``TORCH_OCL_TUNING=0``
turns both off (CLBlast's own defaults).

Tuning time is bounded: each tuner samples a random subset of its search space
(CLBlast's ``-fraction F`` = explore 1/F of it) and is stopped after its time
budget; the best configuration seen so far is kept. Progress is printed per
configuration. ``--budget`` scales every budget (``--budget 10`` for a
full-quality run).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

# (tuner program, CLBlast database kernel name, sampling divisor, seconds, size args)
# Sizes are smaller than the tuners' defaults so one configuration runs quickly;
# the kernels' parameters do not depend on the size much.
TUNERS = [
    ("clblast_tuner_xgemm", "Xgemm", 8, 150, ["-m", "512", "-n", "512", "-k", "512"]),
    ("clblast_tuner_xgemm_direct", "XgemmDirect", 64, 60, ["-m", "256", "-n", "256", "-k", "256"]),
    ("clblast_tuner_copy_fast", "Copy", 4, 15, ["-m", "512", "-n", "512"]),
    ("clblast_tuner_copy_pad", "Pad", 4, 15, ["-m", "512", "-n", "512"]),
    ("clblast_tuner_transpose_fast", "Transpose", 4, 15, ["-m", "512", "-n", "512"]),
    ("clblast_tuner_transpose_pad", "Padtranspose", 4, 15, ["-m", "512", "-n", "512"]),
]
KERNELS = [t[1] for t in TUNERS]
PRECISIONS = {"32": "float32", "64": "float64", "16": "float16"}


ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*(\d+)\s*\|(.*)$")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def run_tuner(prog, args, budget_s, label, log):
    """Runs one tuner; returns {param: value} of the fastest correct configuration, or None."""
    # line-buffered, so progress shows as it happens
    cmd = ([shutil.which("stdbuf"), "-oL"] if shutil.which("stdbuf") else []) + [prog] + args
    print(f"[tune] {label}: {' '.join(cmd)} (at most {budget_s:.0f} s)", flush=True)
    params, best, best_time, seen = None, None, float("inf"), 0
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            bufsize=1, errors="replace")
    lines: queue.Queue = queue.Queue()

    def reader():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()
    timed_out = False
    try:
        while True:
            left = budget_s - (time.monotonic() - start)
            if left <= 0:
                timed_out = True
                break
            try:
                line = lines.get(timeout=min(left, 1.0))
            except queue.Empty:
                continue
            if line is None:
                break
            line = ANSI.sub("", line.rstrip("\n"))
            log.write(line + "\n")
            if line.startswith("* Parameters explored:"):
                params = line.split(":", 1)[1].split()
            m = ROW.match(line)
            if m and params and "results match" in line:
                cells = [c.strip() for c in m.group(3).split("|")]
                values = cells[0].split()
                t = re.findall(r"([0-9.]+) ms", m.group(3))  # [compile time,] run time
                if len(values) == len(params) and t:
                    seen += 1
                    if float(t[-1]) < best_time:
                        best_time = float(t[-1])
                        best = dict(zip(params, map(int, values)))
                    print(f"\r[tune] {label}: {seen} configurations, best {best_time:.3f} ms "
                          f"({time.monotonic() - start:.0f} s)", end="", flush=True)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    end = "stopped at the time budget" if timed_out else "done"
    print(f"\n[tune] {label}: {end}, {seen} configurations, best {best}", flush=True)
    return best, best_time


def device_identity(index: int):
    import torch  # noqa: F401  (loads the plugin)
    from torch_ocl import _C
    p = _C.device_properties(index)
    return p


def main(argv=None) -> int:
    # a SIGTERM unwinds like Ctrl-C, so the running tuner is stopped too
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    ap = argparse.ArgumentParser(prog="python -m torch_ocl.tune", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", type=int, default=0, help="ocl device index (default 0)")
    ap.add_argument("--precision", nargs="+", default=["32"], choices=sorted(PRECISIONS),
                    help="CLBlast precisions to tune: 32 (float32), 64, 16 (default: 32)")
    ap.add_argument("--kernels", nargs="+", default=KERNELS, choices=KERNELS,
                    help="kernels to tune (default: all)")
    ap.add_argument("--budget", type=float, default=1.0,
                    help="scale of every tuner's time budget and sample size (default 1: about 5 "
                         "minutes per precision; 10 for a full-quality run)")
    ap.add_argument("--out", default=None, help="output file (default: the cache folder's tuning/)")
    args = ap.parse_args(argv)

    missing = [t[0] for t in TUNERS if t[1] in args.kernels and shutil.which(t[0]) is None]
    if missing:
        print(f"[tune] missing CLBlast tuners {missing}: install the Debian package clblast-utils "
              "(apt-get install clblast-utils)", file=sys.stderr)
        return 1
    p = device_identity(args.device)
    from torch_ocl import _C
    name, driver = p["name"], p["driver_version"]
    out = args.out or os.path.join(_C.program_cache_dir(), "tuning", _C.blas_tuning_file_name(name, driver))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    where = ["-platform", str(p["platform_index"]), "-device", str(p["platform_device_index"])]
    print(f"[tune] device ocl:{args.device} {name!r} driver {driver!r} "
          f"(OpenCL platform {p['platform_index']}, device {p['platform_device_index']})")

    result = {"device": name, "driver_version": driver, "platform": p["platform"],
              "tuned_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "settings": {"budget": args.budget}, "parameters": {}, "best_ms": {}}
    if os.path.exists(out):  # keep what an earlier run tuned for other kernels/precisions
        try:
            with open(out) as f:
                old = json.load(f)
            result["parameters"] = old.get("parameters", {})
            result["best_ms"] = old.get("best_ms", {})
        except (OSError, ValueError):
            pass
    t0 = time.monotonic()
    with open(out + ".log", "w") as log:
        for prec in args.precision:
            for prog, kernel, fraction, seconds, size in TUNERS:
                if kernel not in args.kernels:
                    continue
                frac = max(1.0, fraction / args.budget)
                tuner_args = where + ["-precision", prec, "-runs", "1", "-fraction", f"{frac:g}"] + size
                best, ms = run_tuner(prog, tuner_args, seconds * args.budget, f"{kernel}/{prec}", log)
                if best:
                    result["parameters"].setdefault(kernel, {})[prec] = best
                    result["best_ms"].setdefault(kernel, {})[prec] = ms
    with open(out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"[tune] wrote {out} after {time.monotonic() - t0:.0f} s; "
          "torch_ocl applies it the next time a process opens the device")
    return 0


if __name__ == "__main__":
    sys.exit(main())
