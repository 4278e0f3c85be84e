"""Time to the first training step of a zoo model (tests/python/zoo_models.py)
on ocl in a fresh process: cold (an empty kernel cache) and again in a second
process on the same cache, against a warm step of the same process.

  python bench/first_step.py [--model bert] [--processes 2] [--cold-pocl] [--cache DIR]

On PoCL the plugin writes a program's binary at its second build (DESIGN.md),
so with --cold-pocl a third process (--processes 3) is the first to load
binaries from TORCH_OCL_CACHE_DIR.

Each process is a subprocess of this script with TORCH_OCL_CACHE_DIR set to
one fresh temporary folder (or --cache DIR), so process 1 compiles every
kernel and process 2 finds what process 1 left. --cold-pocl also gives PoCL
an empty POCL_CACHE_DIR (else PoCL's own cache, shared by every run on the
machine, may hold the builds). A process reports: `import torch` (with the
torch_ocl autoload), `import transformers`, building the model and moving it
to ocl (each timed), the first training step (forward, loss, backward, AdamW step, synced),
the second step, and the median of 5 warm steps after those.

Targets (issue 27): BERT's cold first step < 5 s; the second process's first
step within 2x of a warm step.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def child(model_name):
    t0 = time.perf_counter()
    import torch
    import torch_ocl  # noqa: F401
    t_torch = time.perf_counter() - t0
    t0 = time.perf_counter()
    import transformers  # noqa: F401
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
    from zoo_models import ZOO, make_optimizer, to_device, train_step
    t_tf = time.perf_counter() - t0

    spec = ZOO[model_name]
    t0 = time.perf_counter()
    model = spec.build()
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    model.to("ocl")
    opt = make_optimizer(model)
    batch = to_device(spec.batch(), "ocl")
    torch.ocl.synchronize()
    t_move = time.perf_counter() - t0

    def step():
        t = time.perf_counter()
        train_step(model, opt, batch)
        torch.ocl.synchronize()
        return time.perf_counter() - t

    first = step()
    second = step()
    warm = sorted(step() for _ in range(5))[2]
    print(json.dumps(dict(import_torch=t_torch, import_transformers=t_tf, build=t_build, move=t_move,
                          first=first, second=second, warm=warm,
                          fallbacks=sum(torch.ocl.fallback_stats().values()))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="bert")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--cold-pocl", action="store_true", help="an empty POCL_CACHE_DIR too")
    ap.add_argument("--cache", help="use this TORCH_OCL_CACHE_DIR (kept) instead of a fresh temporary one")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.model)
        return

    tmp = tempfile.mkdtemp(prefix="torch_ocl_first_step_")
    env = dict(os.environ, TORCH_OCL_CACHE_DIR=args.cache or os.path.join(tmp, "ocl"),
               TORCH_OCL_FALLBACK="silent")
    if args.cold_pocl:
        env["POCL_CACHE_DIR"] = os.path.join(tmp, "pocl")
    print(f"model {args.model}; TORCH_OCL_CACHE_DIR={env['TORCH_OCL_CACHE_DIR']}"
          f"{' (given)' if args.cache else ' (empty at start)'}; POCL_CACHE_DIR="
          f"{env.get('POCL_CACHE_DIR', '(default, shared)')}")
    print("| process | import torch s | import transformers s | build (CPU) s | to(ocl)+batch s | first step s | "
          "second step s | warm step ms | first/warm | fallback calls |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    try:
        for i in range(1, args.processes + 1):
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", "--model", args.model],
                                 env=env, capture_output=True, text=True)
            wall = time.perf_counter() - t0
            if out.returncode != 0:
                print(f"process {i} failed:\n{out.stderr[-3000:]}")
                sys.exit(1)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"| {i}{' (cold)' if i == 1 and not args.cache else ''} | {r['import_torch']:.2f} | "
                  f"{r['import_transformers']:.2f} | {r['build']:.2f} | {r['move']:.2f} | {r['first']:.2f} | "
                  f"{r['second']:.3f} | {r['warm'] * 1e3:.1f} | {r['first'] / r['warm']:.1f} | "
                  f"{r['fallbacks']} |  (process wall {wall:.1f} s)", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
