"""Testing tools of torch_ocl.

- ``opinfo_sweep``: runs PyTorch's OpInfo samples on ocl against the CPU and
  classifies each (op, dtype) as native / fallback / wrong / error / crash.
- ``sweep_driver``: the same in worker processes (crashes and hangs recorded).
- ``expectations`` + ``known_failures.yaml``: what may fail, and why.
- ``run_upstream``: runs PyTorch's own test files on the ocl device.

The report ``docs/ops.md`` comes from ``python -m torch_ocl.coverage``.
"""

import torch


def seed(value: int) -> None:
    """Seed the host and ocl generators. Cheaper than ``torch.manual_seed``,
    which also queues a seed for every uninitialised accelerator module (cuda,
    xpu, mtia) and formats a Python traceback for each: about 2 ms a call,
    a third of the OpInfo sweep's time when it seeded per sample."""
    torch.default_generator.manual_seed(value)
    torch.ocl.manual_seed_all(value)
