"""Matrix products side by side in one run: torch.mm / torch.bmm on ocl vs raw CLBlast, with
CLBlast's default parameters and with torch_ocl's tuning file, vs PyTorch on the CPU.

Shapes are M x K x N (A is M x K, B is K x N): the MLP 64-256-256-8 at batch 4096 gives
4096x64x256, 4096x256x256 and 4096x256x8. Each column set runs in its own subprocess, because
CLBlast's parameters are per process: `default` sets TORCH_OCL_TUNING=0, `tuned` uses the tuning
file (the cache folder's, else the one shipped in torch_ocl/tuning/; the report prints which).

    PYTHONPATH=plugin_api/python python bench/bench_gemm.py [--quick] [--json out.json]

Times are the best of 3 loops of about --loop-s seconds each, after a warm-up call, with
torch.ocl.synchronize() before the clock stops; the ocl runs are under fallback_mode('error').
GFLOP/s = 2*M*N*K (*batch) / t.
"""

import argparse
import json
import os
import subprocess
import sys
import time

MLP = [(1024, 1024, 1024), (512, 512, 512), (4096, 256, 256), (4096, 64, 256), (4096, 256, 8)]
SQUARES = [64, 128, 256, 512, 1024, 2048]
BMM = [(32, 128, 128, 128), (64, 64, 64, 64), (8, 512, 64, 512)]  # batch, M, K, N


def shapes(quick):
    sq = [n for n in SQUARES if not quick or n <= 1024]
    mm = MLP + [(n, n, n) for n in sq if (n, n, n) not in MLP]
    return mm, BMM


def best_time(fn, sync, loop_s):
    fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    one = max(time.perf_counter() - t0, 1e-6)
    iters = max(1, int(loop_s / one))
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) / iters)
    return best, iters


def worker(mode, quick, loop_s):
    import torch
    import torch_ocl  # noqa: F401
    from torch_ocl import _bench, _C

    mm, bmm = shapes(quick)
    dev = torch.device("ocl:0")
    out = {"mm": {}, "bmm": {}, "raw": {}}
    with torch.ocl.fallback_mode("error"):
        torch.mm(torch.ones(2, 2, device=dev), torch.ones(2, 2, device=dev))  # applies the tuning file
        out["tuning"] = _C.device_properties(0)["blas_tuning"]
        for m, k, n in mm:
            a, b = torch.randn(m, k, device=dev), torch.randn(k, n, device=dev)
            t, iters = best_time(lambda: torch.mm(a, b), torch.ocl.synchronize, loop_s)
            out["mm"][f"{m}x{k}x{n}"] = t
            # the raw call, in the same loop length
            out["raw"][f"{m}x{k}x{n}"] = min(_bench.clblast_sgemm_seconds(0, m, n, k, iters) for _ in range(3))
            print(f"  [{mode}] mm {m}x{k}x{n}: {t * 1e3:.2f} ms", file=sys.stderr, flush=True)
        for bs, m, k, n in bmm:
            a, b = torch.randn(bs, m, k, device=dev), torch.randn(bs, k, n, device=dev)
            t, _ = best_time(lambda: torch.bmm(a, b), torch.ocl.synchronize, loop_s)
            out["bmm"][f"{bs}x{m}x{k}x{n}"] = t
    assert not torch.ocl.fallback_stats(), torch.ocl.fallback_stats()
    print(json.dumps(out))


def run_worker(mode, args):
    env = dict(os.environ)
    if mode == "default":
        env["TORCH_OCL_TUNING"] = "0"
    cmd = [sys.executable, __file__, "--worker", mode, "--loop-s", str(args.loop_s)] + (["--quick"] if args.quick else [])
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="skip n = 2048")
    ap.add_argument("--loop-s", type=float, default=0.3, help="seconds per timing loop (default 0.3)")
    ap.add_argument("--json", help="also write the numbers to this file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker, args.quick, args.loop_s)

    import torch
    import torch_ocl

    print(f"torch_ocl : {torch_ocl.__file__}")
    print(f"device    : {torch.ocl.get_device_name(0)}; load average {os.getloadavg()[0]:.2f}")
    res = {m: run_worker(m, args) for m in ("default", "tuned")}
    print(f"tuning    : {res['tuned']['tuning'] or 'none found (tuned = default)'}")
    mm, bmm = shapes(args.quick)
    cpu = {}
    for m, k, n in mm:
        a, b = torch.randn(m, k), torch.randn(k, n)
        cpu[f"{m}x{k}x{n}"] = best_time(lambda: torch.mm(a, b), lambda: None, args.loop_s)[0]
    for bs, m, k, n in bmm:
        a, b = torch.randn(bs, m, k), torch.randn(bs, k, n)
        cpu[f"{bs}x{m}x{k}x{n}"] = best_time(lambda: torch.bmm(a, b), lambda: None, args.loop_s)[0]

    def gf(flops, t):
        return flops / t / 1e9

    print("\nGFLOP/s (higher is better); ratios are GFLOP/s over GFLOP/s (> 1: ocl faster)")
    hdr = (f"{'op  M x K x N':24} {'ocl def':>8} {'raw def':>8} {'ocl tuned':>9} {'raw tuned':>9} {'cpu':>8}"
           f" {'ocl/raw':>8} {'tuned/def':>9} {'ocl/cpu':>8}")
    print(hdr)
    print("-" * len(hdr))
    rows = []
    for key, flops, kind in ([(f"{m}x{k}x{n}", 2 * m * n * k, "mm") for m, k, n in mm] +
                             [(f"{bs}x{m}x{k}x{n}", 2 * bs * m * n * k, "bmm") for bs, m, k, n in bmm]):
        d, t = res["default"][kind][key], res["tuned"][kind][key]
        rd = res["default"]["raw"].get(key) if kind == "mm" else None
        rt = res["tuned"]["raw"].get(key) if kind == "mm" else None
        row = {"op": kind, "shape": key, "ocl_default": gf(flops, d), "ocl_tuned": gf(flops, t),
               "raw_default": gf(flops, rd) if rd else None, "raw_tuned": gf(flops, rt) if rt else None,
               "cpu": gf(flops, cpu[key])}
        rows.append(row)

        def f(v, w=8):
            return f"{v:{w}.1f}" if v is not None else f"{'-':>{w}}"

        ocl_raw = row["ocl_tuned"] / row["raw_tuned"] if rt else None
        print(f"{kind + ' ' + key:24} {f(row['ocl_default'])} {f(row['raw_default'])} {f(row['ocl_tuned'], 9)} "
              f"{f(row['raw_tuned'], 9)} {f(row['cpu'])} "
              f"{(f'{ocl_raw:8.2f}' if ocl_raw else '-'.rjust(8))} {row['ocl_tuned'] / row['ocl_default']:9.2f} "
              f"{row['ocl_tuned'] / row['cpu']:8.3f}")
    print("\nocl/raw: tuned torch op over the tuned raw CLBlast Gemm (same parameters); tuned/def: ocl with the "
          "tuning file over ocl with CLBlast's defaults; ocl/cpu: tuned ocl over PyTorch CPU.")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "tuning": res["tuned"]["tuning"]}, fh, indent=1)


if __name__ == "__main__":
    main()
