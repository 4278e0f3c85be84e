"""examples/demo.py (the README's first command) trains its CNN on ocl with
no op on the CPU fallback: run under TORCH_OCL_FALLBACK=error, any fallback
would raise."""

import os

DEMO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "demo.py")


def test_demo_trains_without_fallback(run_python):
    proc = run_python(None, args=[DEMO, "--steps", "4"], env={"TORCH_OCL_FALLBACK": "error"}, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "ops that fell back to the CPU: 0 calls of 0 ops" in proc.stdout, proc.stdout
    losses = [float(line.split()[-1]) for line in proc.stdout.splitlines() if line.strip().startswith("step")]
    assert len(losses) == 4 and all(l == l and l > 0 for l in losses), proc.stdout
