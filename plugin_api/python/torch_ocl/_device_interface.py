"""torch._dynamo's DeviceInterface for ocl (what Inductor asks of a device:
properties, streams, synchronisation), registered with the Inductor backend
(torch_ocl/_compile.py)."""

import torch
from torch._dynamo.device_interface import DeviceInterface


class OclInterface(DeviceInterface):
    device = torch.ocl.device  # type: ignore[assignment]
    Event = torch.ocl.Event  # type: ignore[assignment]
    Stream = torch.ocl.Stream  # type: ignore[assignment]

    class Worker:
        @staticmethod
        def set_device(device: int) -> None:
            torch.ocl.set_device(device)

        @staticmethod
        def current_device() -> int:
            return torch.ocl.current_device()

        @staticmethod
        def get_device_properties(device=None):
            return torch.ocl.get_device_properties(device)

    current_device = staticmethod(torch.ocl.current_device)
    set_device = staticmethod(torch.ocl.set_device)
    device_count = staticmethod(torch.ocl.device_count)
    is_available = staticmethod(torch.ocl.is_available)
    synchronize = staticmethod(torch.ocl.synchronize)
    current_stream = staticmethod(torch.ocl.current_stream)
    set_stream = staticmethod(torch.ocl.set_stream)
    stream = staticmethod(torch.ocl.stream)

    @staticmethod
    def get_raw_stream(device_idx: int) -> int:
        return 0

    @classmethod
    def get_device_properties(cls, device=None):
        return torch.ocl.get_device_properties(device)

    @staticmethod
    def get_compute_capability(device=None) -> str:
        return ""

    @staticmethod
    def is_bf16_supported(including_emulation: bool = False) -> bool:
        return True

    @classmethod
    def is_dtype_supported(cls, dtype, including_emulation: bool = False) -> bool:
        if dtype in (torch.float64, torch.complex128):
            return torch.ocl.get_device_properties().fp64
        return True

    @staticmethod
    def memory_allocated(device=None) -> int:
        return torch.ocl.memory_allocated(device)

    @staticmethod
    def is_triton_capable(device=None) -> bool:
        return False

    @staticmethod
    def raise_if_triton_unavailable(device=None) -> None:
        raise RuntimeError("Triton has no OpenCL target: torch.compile on ocl uses torch_ocl's OpenCL code generator")
