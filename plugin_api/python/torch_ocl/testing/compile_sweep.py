"""The OpInfo sweep through torch.compile: every OpInfo's samples run as a
compiled function on ``ocl`` (Inductor's default backend, i.e. torch_ocl's
OpenCL code generator) and are compared with the CPU's eager results, forward
and backward, exactly as the eager sweep compares them (same samples, same
tolerances and float64 references: ``opinfo_sweep.check_op``).

Each sample is compiled afresh (``torch._dynamo.reset()``), so Dynamo's
recompilation limit never turns a sample into a silent eager run; whether
anything was compiled at all is recorded per op:

- ``generated``  the ocl graph had at least one generated OpenCL kernel
- ``extern``     compiled, but every node ran as an extern / eager ocl kernel
                 (matrix products, convolutions, ops Inductor does not lower)
- ``eager``      Dynamo compiled no graph (a graph break around the op)

The statuses are the eager sweep's (native, fallback, wrong, error, crash);
random ops are compared by statistics there (Inductor draws its own stream,
as on CUDA), uninitialised outputs by metadata.
Run it isolated with ``python -m torch_ocl.testing.compile_sweep``
(``--ops a,b``, ``--max-samples N``, ``--out FILE.jsonl``); CI runs a bounded
selection (tests/python/test_compile_opinfo.py).
"""

from __future__ import annotations

import argparse
import json
import sys

import torch_ocl  # noqa: F401

import torch
from torch.utils._pytree import tree_leaves

from torch_ocl.testing import opinfo_sweep as sweep

class CompiledOp:
    """An OpInfo whose call compiles on ocl inputs (eager on CPU inputs: the
    reference runs stay eager). Counts the graphs Dynamo compiled."""

    def __init__(self, op):
        self._op = op
        self.graphs = 0

    def __getattr__(self, name):
        return getattr(self._op, name)

    def __call__(self, *args, **kwargs):
        on_device = any(isinstance(t, torch.Tensor) and t.device.type == "ocl"
                        for t in tree_leaves((args, kwargs)))
        if not on_device:
            return self._op(*args, **kwargs)
        from torch._dynamo.utils import counters

        torch._dynamo.reset()
        op = self._op

        def call(*a, **k):
            return op(*a, **k)

        before = counters["stats"]["unique_graphs"]
        out = torch.compile(call, backend="inductor", dynamic=False)(*args, **kwargs)
        self.graphs += counters["stats"]["unique_graphs"] - before
        return out


def check_compiled(op, dtype=torch.float32, max_samples: int | None = 2) -> dict:
    """One OpInfo, compiled on ocl, compared with eager CPU: the eager sweep's
    Result as a dict plus how it was compiled (``compiled``, ``launches``:
    generated kernels launched, forward and backward)."""
    from torch_ocl import _inductor

    compiled = CompiledOp(op)
    launches = _inductor.generated_launches()
    result = sweep.check_op(compiled, dtype, max_samples=max_samples).to_json()
    result["launches"] = _inductor.generated_launches() - launches
    result["compiled"] = ("generated" if result["launches"] else "extern" if compiled.graphs else "eager")
    return result


def plan(ops=None) -> list:
    names = []
    for name, op in sweep.op_db_by_name().items():
        if ops and name not in ops:
            continue
        if torch.float32 in op.supported_dtypes("cpu"):
            names.append(name)
    return names


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", default="", help="comma-separated OpInfo names (default: every op with float32)")
    parser.add_argument("--max-samples", type=int, default=2)
    parser.add_argument("--out", default="compile_sweep.jsonl")
    parser.add_argument("--skip-done", action="store_true", help="keep results already in --out")
    args = parser.parse_args(argv)
    import torch._inductor.config as inductor_config

    inductor_config.compile_threads = 1
    names = plan(set(filter(None, args.ops.split(","))))
    done = set()
    if args.skip_done:
        try:
            with open(args.out) as f:
                done = {json.loads(line)["op"] for line in f if line.strip()}
        except FileNotFoundError:
            pass
    ops = sweep.op_db_by_name()
    with open(args.out, "a" if args.skip_done else "w") as out:
        for i, name in enumerate(names):
            if name in done:
                continue
            print(f"[{i + 1}/{len(names)}] {name}", file=sys.stderr, flush=True)
            result = check_compiled(ops[name], max_samples=args.max_samples)
            out.write(json.dumps(result) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
