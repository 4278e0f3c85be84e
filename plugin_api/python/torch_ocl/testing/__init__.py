"""Testing tools of torch_ocl.

- ``opinfo_sweep``: runs PyTorch's OpInfo samples on ocl against the CPU and
  classifies each (op, dtype) as native / fallback / wrong / error / crash.
- ``sweep_driver``: the same in worker processes (crashes and hangs recorded).
- ``expectations`` + ``known_failures.yaml``: what may fail, and why.
- ``run_upstream``: runs PyTorch's own test files on the ocl device.

The report ``docs/ops.md`` comes from ``python -m torch_ocl.coverage``.
"""
