"""Matrix products side by side in one run: torch.mm / torch.bmm on ocl with torch_ocl's own
tiled GEMM (kernels/gemm.cl, CPU devices), through CLBlast with its default parameters and with
torch_ocl's tuning file (TORCH_OCL_OWN_GEMM=0), vs raw CLBlast and PyTorch on the CPU; and a
ResNet-18-like conv2d forward + backward (im2col + GEMM) in the same three modes.

Shapes are M x K x N (A is M x K, B is K x N): the MLP 64-256-256-8 at batch 4096 gives
4096x64x256, 4096x256x256 and 4096x256x8. Each column set runs in its own subprocess, because
CLBlast's parameters are per process: `default` sets TORCH_OCL_TUNING=0, `tuned` uses the tuning
file (the cache folder's, else the one shipped in torch_ocl/tuning/; the report prints which),
both with TORCH_OCL_OWN_GEMM=0; `own` is the plain configuration (own kernel where selected).

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

from timing import best_time

MLP = [(1024, 1024, 1024), (512, 512, 512), (4096, 256, 256), (4096, 64, 256), (4096, 256, 8)]
SQUARES = [64, 128, 256, 512, 1024, 2048]
BMM = [(32, 128, 128, 128), (64, 64, 64, 64), (8, 512, 64, 512)]  # batch, M, K, N
# ResNet-18 layer shapes: (name, channels in, out, spatial, kernel, stride)
CONV = [("3x3 64@56", 64, 64, 56, 3, 1), ("3x3 128@28", 128, 128, 28, 3, 1), ("3x3 256@14", 256, 256, 14, 3, 1),
        ("1x1 s2 64>128@56", 64, 128, 56, 1, 2)]
MODES = ("default", "tuned", "own")


def conv_flops(batch, cin, cout, hw, k, stride):
    ho = (hw + 2 * (k // 2) - k) // stride + 1
    return 3 * 2 * batch * cout * ho * ho * cin * k * k  # forward, grad input, grad weight


def bench_conv(dev, batch, loop_s, sync):
    import torch
    res = {}
    for name, cin, cout, hw, k, stride in CONV:
        x = torch.randn(batch, cin, hw, hw, device=dev, requires_grad=True)
        w = torch.randn(cout, cin, k, k, device=dev, requires_grad=True)
        b = torch.randn(cout, device=dev, requires_grad=True)
        y = torch.nn.functional.conv2d(x, w, b, stride=stride, padding=k // 2)
        g = torch.randn_like(y)

        def step():
            torch.nn.functional.conv2d(x, w, b, stride=stride, padding=k // 2).backward(g)
        res[name] = best_time(step, sync, loop_s)[0]
        print(f"  conv {name}: {res[name] * 1e3:.1f} ms", file=sys.stderr, flush=True)
    return res


def shapes(quick):
    sq = [n for n in SQUARES if not quick or n <= 1024]
    mm = MLP + [(n, n, n) for n in sq if (n, n, n) not in MLP]
    return mm, BMM


def worker(mode, quick, loop_s, conv_batch):
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
            t, _, iters = best_time(lambda: torch.mm(a, b), torch.ocl.synchronize, loop_s)
            out["mm"][f"{m}x{k}x{n}"] = t
            if mode != "own":  # the raw call, in the same loop length
                out["raw"][f"{m}x{k}x{n}"] = min(_bench.clblast_sgemm_seconds(0, m, n, k, iters) for _ in range(3))
            print(f"  [{mode}] mm {m}x{k}x{n}: {t * 1e3:.2f} ms", file=sys.stderr, flush=True)
        for bs, m, k, n in bmm:
            a, b = torch.randn(bs, m, k, device=dev), torch.randn(bs, k, n, device=dev)
            t = best_time(lambda: torch.bmm(a, b), torch.ocl.synchronize, loop_s).wall
            out["bmm"][f"{bs}x{m}x{k}x{n}"] = t
        out["conv"] = bench_conv(dev, conv_batch, loop_s, torch.ocl.synchronize) if conv_batch else {}
    assert not torch.ocl.fallback_stats(), torch.ocl.fallback_stats()
    print(json.dumps(out))


def run_worker(mode, args):
    env = dict(os.environ)
    if mode == "default":
        env["TORCH_OCL_TUNING"] = "0"
    if mode != "own":
        env["TORCH_OCL_OWN_GEMM"] = "0"
    cmd = [sys.executable, __file__, "--worker", mode, "--loop-s", str(args.loop_s),
           "--conv-batch", str(args.conv_batch)] + (["--quick"] if args.quick else [])
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="skip n = 2048")
    ap.add_argument("--loop-s", type=float, default=0.3, help="seconds per timing loop (default 0.3)")
    ap.add_argument("--json", help="also write the numbers to this file")
    ap.add_argument("--conv-batch", type=int, default=None, help="conv2d batch (default 8, 2 with --quick; 0 skips)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.conv_batch is None:
        args.conv_batch = 2 if args.quick else 8
    if args.worker:
        return worker(args.worker, args.quick, args.loop_s, args.conv_batch)

    import torch
    import torch_ocl

    print(f"torch_ocl : {torch_ocl.__file__}")
    print(f"device    : {torch.ocl.get_device_name(0)}; load average {os.getloadavg()[0]:.2f}")
    res = {m: run_worker(m, args) for m in MODES}
    print(f"tuning    : {res['tuned']['tuning'] or 'none found (tuned = default)'}")
    mm, bmm = shapes(args.quick)
    cpu = {}
    for m, k, n in mm:
        a, b = torch.randn(m, k), torch.randn(k, n)
        cpu[f"{m}x{k}x{n}"] = best_time(lambda: torch.mm(a, b), lambda: None, args.loop_s)[0]
    for bs, m, k, n in bmm:
        a, b = torch.randn(bs, m, k), torch.randn(bs, k, n)
        cpu[f"{bs}x{m}x{k}x{n}"] = best_time(lambda: torch.bmm(a, b), lambda: None, args.loop_s)[0]
    cpu_conv = bench_conv("cpu", args.conv_batch, args.loop_s, lambda: None) if args.conv_batch else {}

    def gf(flops, t):
        return flops / t / 1e9

    print("\nGFLOP/s (higher is better); ratios are GFLOP/s over GFLOP/s (> 1: ocl faster)")
    hdr = (f"{'op  M x K x N':24} {'own':>7} {'ocl def':>8} {'raw def':>8} {'ocl tuned':>9} {'raw tuned':>9}"
           f" {'cpu':>7} {'own/tuned':>9} {'own/cpu':>8} {'tuned/cpu':>9}")
    print(hdr)
    print("-" * len(hdr))
    rows = []

    def f(v, w=8):
        return f"{v:{w}.1f}" if v is not None else f"{'-':>{w}}"

    for key, flops, kind in ([(f"{m}x{k}x{n}", 2 * m * n * k, "mm") for m, k, n in mm] +
                             [(f"{bs}x{m}x{k}x{n}", 2 * bs * m * n * k, "bmm") for bs, m, k, n in bmm]):
        o, d, t = res["own"][kind][key], res["default"][kind][key], res["tuned"][kind][key]
        rd = res["default"]["raw"].get(key) if kind == "mm" else None
        rt = res["tuned"]["raw"].get(key) if kind == "mm" else None
        row = {"op": kind, "shape": key, "own": gf(flops, o), "ocl_default": gf(flops, d), "ocl_tuned": gf(flops, t),
               "raw_default": gf(flops, rd) if rd else None, "raw_tuned": gf(flops, rt) if rt else None,
               "cpu": gf(flops, cpu[key])}
        rows.append(row)
        print(f"{kind + ' ' + key:24} {f(row['own'], 7)} {f(row['ocl_default'])} {f(row['raw_default'])} "
              f"{f(row['ocl_tuned'], 9)} {f(row['raw_tuned'], 9)} {f(row['cpu'], 7)} "
              f"{row['own'] / row['ocl_tuned']:9.2f} {row['own'] / row['cpu']:8.2f} {row['ocl_tuned'] / row['cpu']:9.2f}")
    for name, cin, cout, hw, k, stride in (CONV if args.conv_batch else []):
        flops = conv_flops(args.conv_batch, cin, cout, hw, k, stride)
        o, d, t, c = (res["own"]["conv"][name], res["default"]["conv"][name], res["tuned"]["conv"][name],
                      cpu_conv[name])
        row = {"op": "conv", "shape": name, "batch": args.conv_batch, "own": gf(flops, o),
               "ocl_default": gf(flops, d), "ocl_tuned": gf(flops, t), "raw_default": None, "raw_tuned": None,
               "cpu": gf(flops, c)}
        rows.append(row)
        print(f"{'conv ' + name:24} {f(row['own'], 7)} {f(row['ocl_default'])} {f(None)} {f(row['ocl_tuned'], 9)} "
              f"{f(None, 9)} {f(row['cpu'], 7)} {row['own'] / row['ocl_tuned']:9.2f} {row['own'] / row['cpu']:8.2f} "
              f"{row['ocl_tuned'] / row['cpu']:9.2f}")
    print("\nown: torch op with the own tiled kernel (plain configuration); ocl def / ocl tuned: the torch op "
          "through CLBlast (TORCH_OCL_OWN_GEMM=0) with default / tuned parameters; raw: a direct CLBlast Gemm. "
          f"conv rows: conv2d forward + backward at batch {args.conv_batch}, GFLOP/s of the three convolutions.")
    if args.conv_batch:
        rows += convgemm_rows(args, best_time)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "tuning": res["tuned"]["tuning"]}, fh, indent=1)


def convgemm_rows(args, best_time):
    """conv2d forward alone: torch_ocl (im2col + GEMM, this process: the own
    kernel on CPU devices) against CLBlast's Convgemm (its im2col inside,
    default parameters) on plain buffers."""
    import torch
    import torch.nn.functional as F
    from torch_ocl import _bench

    print(f"\nconv2d forward at batch {args.conv_batch}, GFLOP/s: torch_ocl F.conv2d vs CLBlast Convgemm (raw)")
    print(f"{'shape':24} {'ocl':>8} {'convgemm':>9} {'ocl/convgemm':>13}")
    rows = []
    for name, cin, cout, hw, k, stride in CONV:
        flops = conv_flops(args.conv_batch, cin, cout, hw, k, stride) / 3  # forward only
        x = torch.randn(args.conv_batch, cin, hw, hw, device="ocl")
        w = torch.randn(cout, cin, k, k, device="ocl")
        t_ocl = best_time(lambda: F.conv2d(x, w, stride=stride, padding=k // 2), torch.ocl.synchronize,
                          args.loop_s).wall
        t_raw = _bench.clblast_convgemm_seconds(0, cin, hw, k, stride, cout, args.conv_batch, 5)
        row = {"op": "conv_fwd", "shape": name, "batch": args.conv_batch, "ocl": flops / t_ocl / 1e9,
               "convgemm": flops / t_raw / 1e9}
        rows.append(row)
        print(f"{name:24} {row['ocl']:8.1f} {row['convgemm']:9.1f} {row['ocl'] / row['convgemm']:13.2f}")
    return rows


if __name__ == "__main__":
    main()
