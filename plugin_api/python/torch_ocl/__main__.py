"""python -m torch_ocl: the OpenCL devices torch_ocl sees, versions, cache folder."""

import os

import torch

import torch_ocl
from torch_ocl import _C


def main() -> int:
    print(f"torch_ocl {torch_ocl.__version__} on torch {torch.__version__}")
    n = torch.ocl.device_count()
    if n == 0:
        print(f"no ocl device: {_C.discovery_error()}")
    for i in range(n):
        p = torch.ocl.get_device_properties(i)
        print(f"ocl:{i}  {p.name}  [{p.type}]")
        print(f"    platform: {p.platform} ({p.platform_version})")
        print(f"    vendor: {p.vendor}  driver: {p.driver_version}  device: {p.version}")
        print(f"    memory: {p.total_memory / 2**30:.1f} GiB (largest buffer "
              f"{p.max_alloc_size / 2**30:.1f} GiB)  compute units: {p.multi_processor_count}")
        print(f"    fp64: {p.fp64}  fp16 arithmetic: {p.fp16}")
    print(f"program cache: {torch.ocl.cache_dir()}")
    print(f"TORCH_OCL_DEVICES={os.environ.get('TORCH_OCL_DEVICES', '')!r} "
          f"TORCH_OCL_FALLBACK={torch.ocl.get_fallback_mode()!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
