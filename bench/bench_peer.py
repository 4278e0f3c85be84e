"""torch_ocl against the peer OpenCL backend pytorch_dlprim, side by side on the same device.

Both backends own PyTorch's PrivateUse1 key and both call their device "ocl", so the same
measurement code (this file's `worker`) runs in separate processes: one with torch_ocl
imported, one with the peer's `pytorch_ocl` imported (torch_ocl kept off the path and
TORCH_DEVICE_BACKEND_AUTOLOAD=0), and one on PyTorch's CPU for reference. Each worker writes
JSON; the parent prints the table with the ratio torch_ocl / peer (throughput over throughput:
> 1 = torch_ocl faster; for step times that is peer ms / torch_ocl ms).

Build the peer first (never in CI; see bench/README.md, "Peer"):

    bash bench/peer/build_peer.sh /path/to/pytorch_dlprim          # -> ~/.cache/torch_ocl_peer
    PYTHONPATH=plugin_api/python python bench/bench_peer.py [--peer-dir DIR] [--rounds 2] \
        [--loop-s 0.3] [--json out.json]

Measured: elementwise GB/s (add 16M / 1M float32, relu 16M, clone 16M, transposed add
a.t() + b.t() of 4096x4096, sum 16M / 1M; bytes = inputs read + output written), torch.mm
GFLOP/s (1024^3, 512^3 and the MLP's 4096x256x256, 4096x64x256, 4096x256x8; M x K x N), and
the time of one training step (forward, cross-entropy, backward, SGD) of the MLP 64-256-256-8
at batch 4096, of examples/demo.py's CNN at batch 64 and of torch_ocl.testing.models'
ResNet-18-topology CNN at batch 8. Times: best of 3 loops of about --loop-s seconds after a
warm-up, torch.ocl.synchronize() before the clock stops; wall time and process CPU time (all
threads: on a shared host the CPU-time ratio is the steadier one); with --rounds R the workers run R
times alternately and the best of the rounds is kept (the host is shared and noisy). Each
training row also records the first step's loss against the CPU's (same weights and batch), so a
wrong kernel shows, and the ops that fell back to the CPU.
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import warnings

from timing import best_time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

ELEMENTWISE = ["add 16M", "add 1M", "relu 16M", "clone 16M", "add transposed 16M", "sum 16M", "sum 1M"]
MM = [(1024, 1024, 1024), (512, 512, 512), (4096, 256, 256), (4096, 64, 256), (4096, 256, 8)]
TRAIN = ["mlp 64-256-256-8 b4096", "demo cnn b64", "resnet18 w4 b8"]


# ----------------------------------------------------------------------------------------- worker

def demo_cnn(classes=8):
    """The layers of examples/demo.py's make_model (that file imports torch_ocl, so it is not
    imported here)."""
    import torch.nn as nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Dropout(0.1),
        nn.Linear(32 * 16, classes),
    )


def load_models_module():
    """torch_ocl/testing/models.py by path: importing the package would load torch_ocl."""
    path = os.path.join(ROOT, "plugin_api", "python", "torch_ocl", "testing", "models.py")
    spec = importlib.util.spec_from_file_location("_bench_peer_models", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def train_case(name):
    """(model maker, optimizer maker, CPU batch) for a training row; same seed everywhere."""
    import torch
    import torch.nn as nn
    g = torch.Generator().manual_seed(1)
    if name.startswith("mlp"):
        make = lambda: nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),  # noqa: E731
                                     nn.Linear(256, 8))
        batch = (torch.randn(4096, 64, generator=g), torch.randint(0, 8, (4096,), generator=g))
        opt = lambda p: torch.optim.SGD(p, lr=0.01)  # noqa: E731
    elif name.startswith("demo"):
        make = demo_cnn
        batch = (torch.randn(64, 1, 16, 16, generator=g), torch.randint(0, 8, (64,), generator=g))
        opt = lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)  # noqa: E731
    else:
        models = load_models_module()
        make = models.ResNet18
        batch = (torch.randn(8, 3, 16, 16, generator=g), torch.randint(0, 10, (8,), generator=g))
        opt = lambda p: torch.optim.SGD(p, lr=0.02, momentum=0.9, weight_decay=1e-4)  # noqa: E731
    return make, opt, batch


def worker(backend, loop_s, out_path):
    import torch
    import torch.nn.functional as F
    res = {"backend": backend, "elementwise": {}, "mm": {}, "train": {}, "errors": {}, "fallbacks": {}, "cpu": {}}
    if backend == "torch_ocl":
        import torch_ocl  # noqa: F401
        dev = "ocl"
    elif backend == "peer":
        import pytorch_ocl  # noqa: F401
        dev = "ocl:0"  # the peer fails on an index-less device ("ocl" is index -1 there)
    else:
        dev = "cpu"
    if dev.startswith("ocl"):
        def sync():
            torch.ocl.synchronize()
        try:
            res["device"] = torch.ocl.get_device_name(0)
        except Exception:  # the peer has no get_device_name
            res["device"] = "?"
    else:
        def sync():
            pass
        res["device"] = f"cpu, {torch.get_num_threads()} threads"
    res["torch"] = torch.__version__

    def record(section, key, fn):
        """Run fn(), keep its value, or its error and the CPU fallbacks it caused."""
        if backend == "torch_ocl":
            torch.ocl.reset_fallback_stats()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                res[section][key], res["cpu"][key] = fn()
            except Exception as e:  # an op the backend lacks: say which
                res["errors"][key] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
        fb = set()
        if backend == "torch_ocl":
            fb |= set(torch.ocl.fallback_stats())
        for w in caught:
            msg = str(w.message)
            if "fall back" in msg or "fallback" in msg.lower() or "not currently supported" in msg:
                fb.add(msg.splitlines()[0][:160])
        if fb:
            res["fallbacks"][key] = sorted(fb)
        print(f"  [{backend}] {key}: {res[section].get(key, res['errors'].get(key))}", file=sys.stderr,
              flush=True)

    # elementwise (GB/s)
    big, small = 1 << 24, 1 << 20
    a16, b16 = torch.randn(big, device=dev), torch.randn(big, device=dev)
    a1, b1 = torch.randn(small, device=dev), torch.randn(small, device=dev)
    m1, m2 = torch.randn(4096, 4096, device=dev), torch.randn(4096, 4096, device=dev)
    cases = {
        "add 16M": (lambda: a16 + b16, 3 * 4 * big),
        "add 1M": (lambda: a1 + b1, 3 * 4 * small),
        "relu 16M": (lambda: torch.relu(a16), 2 * 4 * big),
        "clone 16M": (lambda: a16.clone(), 2 * 4 * big),
        "add transposed 16M": (lambda: m1.t() + m2.t(), 3 * 4 * big),
        "sum 16M": (lambda: a16.sum(), 4 * big),
        "sum 1M": (lambda: a1.sum(), 4 * small),
    }
    for key, (fn, nbytes) in cases.items():
        record("elementwise", key, lambda: tuple(nbytes / t / 1e9 for t in best_time(fn, sync, loop_s)[:2]))
    # correctness of the values (cheap): the same inputs on the CPU
    checks = {}
    checks["add"] = float(((a1 + b1).cpu() - (a1.cpu() + b1.cpu())).abs().max())
    checks["sum 16M rel"] = abs(float(a16.sum().cpu()) - float(a16.cpu().double().sum())) / float(
        a16.cpu().double().abs().sum())
    del a16, b16, m1, m2

    # torch.mm (GFLOP/s), M x K x N
    for m, k, n in MM:
        A, B = torch.randn(m, k, device=dev), torch.randn(k, n, device=dev)
        key = f"mm {m}x{k}x{n}"
        record("mm", key, lambda: tuple(2 * m * n * k / t / 1e9 for t in best_time(lambda: torch.mm(A, B), sync,
                                                                                     loop_s)[:2]))
        try:
            ref = A.cpu() @ B.cpu()
            checks[key + " rel"] = float((torch.mm(A, B).cpu() - ref).abs().max() / ref.abs().max())
        except Exception:
            pass

    # training steps (ms)
    for name in TRAIN:
        def run(name=name):
            make, make_opt, (x, y) = train_case(name)
            torch.manual_seed(0)
            model = make().to(dev)
            opt = make_opt(list(model.parameters()))
            xd, yd = x.to(dev), y.to(dev)

            def step():
                opt.zero_grad(set_to_none=True)
                loss = F.cross_entropy(model(xd), yd)
                loss.backward()
                opt.step()
                return loss
            drops = [mod for mod in model.modules() if isinstance(mod, torch.nn.Dropout)]
            for mod in drops:  # dropout's RNG differs between backends: off for the check
                mod.eval()
            with torch.no_grad():
                checks[name + " loss0"] = float(F.cross_entropy(model(xd), yd).cpu())
            for mod in drops:
                mod.train()
            return tuple(1e3 * t for t in best_time(step, sync, loop_s)[:2])
        record("train", name, run)
    res["checks"] = checks
    with open(out_path, "w") as f:
        json.dump(res, f, indent=1)


# ----------------------------------------------------------------------------------------- parent

def run_worker(backend, args, out_path):
    env = dict(os.environ)
    ours = os.path.join(ROOT, "plugin_api", "python")
    keep = [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
            if p and os.path.abspath(p) != os.path.abspath(ours)]
    if backend == "torch_ocl":
        env["PYTHONPATH"] = os.pathsep.join([ours] + keep)
    elif backend == "peer":
        env["PYTHONPATH"] = os.pathsep.join([os.path.join(args.peer_dir, "build")] + keep)
        env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"  # never load torch_ocl beside the peer
    else:
        env["PYTHONPATH"] = os.pathsep.join(keep)
        env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", backend, "--loop-s", str(args.loop_s),
           "--out", out_path]
    print(f"running {backend} ...", file=sys.stderr, flush=True)
    subprocess.run(cmd, env=env, check=True)
    with open(out_path) as f:
        return json.load(f)


def merge_best(runs):
    """Best value per measurement over rounds (max for GB/s and GFLOP/s, min for ms)."""
    best = json.loads(json.dumps(runs[0]))
    for r in runs[1:]:
        for section, better in (("elementwise", max), ("mm", max), ("train", min)):
            for k, v in r[section].items():
                best[section][k] = better(best[section].get(k, v), v)
                best["cpu"][k] = better(best["cpu"].get(k, r["cpu"][k]), r["cpu"][k])
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", choices=["torch_ocl", "peer", "cpu"])
    ap.add_argument("--out")
    ap.add_argument("--peer-dir", default=os.environ.get("TORCH_OCL_PEER_DIR",
                                                         os.path.expanduser("~/.cache/torch_ocl_peer")))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--loop-s", type=float, default=0.3)
    ap.add_argument("--json", help="write all results here")
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.loop_s, args.out)
        return
    if not os.path.isdir(os.path.join(args.peer_dir, "build", "pytorch_ocl")):
        sys.exit(f"no peer build in {args.peer_dir}/build/pytorch_ocl: run bench/peer/build_peer.sh first")

    import tempfile
    tmp = tempfile.mkdtemp(prefix="bench_peer_")
    runs = {"torch_ocl": [], "peer": [], "cpu": []}
    for r in range(args.rounds):
        for backend in ("torch_ocl", "peer"):
            runs[backend].append(run_worker(backend, args, os.path.join(tmp, f"{backend}{r}.json")))
    runs["cpu"].append(run_worker("cpu", args, os.path.join(tmp, "cpu.json")))
    best = {b: merge_best(v) for b, v in runs.items()}
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"best": best, "rounds": runs}, f, indent=1)

    o, p, c = best["torch_ocl"], best["peer"], best["cpu"]
    print(f"\ntorch_ocl device: {o['device']}; peer: pytorch_dlprim ({args.peer_dir}); "
          f"CPU: {c['device']}; torch {o['torch']}; best of {args.rounds} rounds")

    def f(v):
        return "-" if v is None else f"{v:.1f}" if v >= 10 else f"{v:.2f}"

    def row(label, unit, key, section, higher_better=True):
        vo, vp, vc = (x[section].get(key) for x in (o, p, c))
        co, cp = (x["cpu"].get(key) for x in (o, p))
        ratio = cratio = None
        if vo and vp:
            ratio = vo / vp if higher_better else vp / vo
        if co and cp:
            cratio = co / cp if higher_better else cp / co
        note = "; ".join(f"{b}: {x['errors'][key]}" for b, x in (("torch_ocl", o), ("peer", p)) if key in x["errors"])
        fbs = "; ".join(f"{b} falls back: {', '.join(x['fallbacks'][key])}"
                        for b, x in (("torch_ocl", o), ("peer", p)) if key in x["fallbacks"])
        print(f"| {label} | {unit} | {f(vo)} | {f(vp)} | {f(ratio)} | {f(cratio)} | {f(vc)} | {'; '.join(s for s in (note, fbs) if s)} |")

    print("\n| measurement | unit | torch_ocl | peer | torch_ocl/peer | same, per CPU-second | PyTorch CPU | notes |")
    print("|---|---|---|---|---|---|---|---|")
    for k in ELEMENTWISE:
        row(k, "GB/s", k, "elementwise")
    for m, k, n in MM:
        key = f"mm {m}x{k}x{n}"
        row(key, "GFLOP/s", key, "mm")
    for k in TRAIN:
        row(k + " train step", "ms", k, "train", higher_better=False)
    print("\ntorch_ocl/peer: throughput ratio (step times: peer ms / torch_ocl ms); > 1 = torch_ocl faster. "
          "'per CPU-second': the same ratio from process CPU time (all threads) instead of wall time: "
          "steadier when other jobs share the cores.")
    print("\nchecks (same inputs as the CPU; mm and sum as max relative error; loss0 = first training loss):")
    for key in o["checks"]:
        print(f"  {key}: torch_ocl {o['checks'].get(key):.4g}  peer {p['checks'].get(key, float('nan')):.4g}  "
              f"cpu {c['checks'].get(key, float('nan')):.4g}")


if __name__ == "__main__":
    main()
