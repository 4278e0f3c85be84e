"""The device module registered as ``torch.ocl``."""

import contextlib
import os

import torch

from . import _C
from .streams import (Stream, Event, current_stream, default_stream, set_stream,  # noqa: F401
                      stream, StreamContext)

__all__ = [
    "is_available", "device_count", "current_device", "set_device", "device",
    "synchronize", "launch_batch", "set_launch_batch", "get_device_name", "get_device_properties", "manual_seed",
    "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state",
    "set_rng_state", "get_rng_state_all", "set_rng_state_all", "default_generators",
    "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "memory_stats", "reset_peak_memory_stats",
    "reset_accumulated_memory_stats", "empty_cache", "mem_get_info",
    "set_memory_limit", "fallback_stats", "reset_fallback_stats",
    "get_fallback_mode", "set_fallback_mode", "fallback_mode", "is_initialized",
    "cache_dir", "get_amp_supported_dtype", "is_bf16_supported",
    "Stream", "Event", "current_stream", "default_stream", "set_stream", "stream", "StreamContext",
]


def is_available() -> bool:
    return _C.device_count() > 0


def is_initialized() -> bool:
    return True


def _is_in_bad_fork() -> bool:
    # OpenCL state is not inherited across fork; torch.random asks this.
    return False


def device_count() -> int:
    return _C.device_count()


def _index(device=None) -> int:
    if device is None:
        return _C.current_device()
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = torch.device(device)
    if isinstance(device, torch.device):
        if device.type != "ocl":
            raise ValueError(f"Expected an ocl device, got {device}")
        return _C.current_device() if device.index is None else device.index
    raise TypeError(f"Invalid device {device!r}")


def current_device() -> int:
    return _C.current_device()


def set_device(device) -> None:
    _C.set_device(_index(device))


@contextlib.contextmanager
def device(device):
    """Context manager that makes ``device`` the current ocl device."""
    previous = _C.current_device()
    _C.set_device(_index(device))
    try:
        yield
    finally:
        _C.set_device(previous)


def synchronize(device=None) -> None:
    _C.synchronize(_index(device))


def launch_batch(device=None) -> int:
    """Kernel launches the device's streams hold back and submit together
    (1: each launch is submitted at once). Set by ``TORCH_OCL_SUBMIT_BATCH``;
    by default 32 on CPU devices, 1 elsewhere. Anything that waits for or
    orders against a stream (synchronize, ``.cpu()``, ``.item()``, events,
    copies) submits what it holds first."""
    return _C.launch_batch(_index(device))


def set_launch_batch(launches: int, device=None) -> None:
    """Sets :func:`launch_batch` of a device (``1``: submit every launch at
    once) and submits the launches its streams hold."""
    _C.set_launch_batch(_index(device), int(launches))


class _DeviceProperties:
    def __init__(self, props: dict):
        self.__dict__.update(props)

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"_OclDeviceProperties({fields})"


def get_device_properties(device=None):
    """Name, vendor, driver, memory, compute units, fp16/fp64 support."""
    return _DeviceProperties(_C.device_properties(_index(device)))


def get_device_name(device=None) -> str:
    return _C.device_properties(_index(device))["name"]


# Random number generators -------------------------------------------------

class _DefaultGenerators:
    def __getitem__(self, i):
        return _C.default_generator(i)

    def __len__(self):
        return _C.device_count()

    def __iter__(self):
        return (self[i] for i in range(len(self)))


default_generators = _DefaultGenerators()


def manual_seed(seed: int) -> None:
    if is_available():
        _C.default_generator(_C.current_device()).manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    for gen in default_generators:
        gen.manual_seed(int(seed))


def seed() -> None:
    if is_available():
        _C.default_generator(_C.current_device()).seed()


def seed_all() -> None:
    for gen in default_generators:
        gen.seed()


def initial_seed() -> int:
    return _C.default_generator(_C.current_device()).initial_seed()


def get_rng_state(device="ocl") -> torch.Tensor:
    return _C.default_generator(_index(device)).get_state()


def set_rng_state(new_state: torch.Tensor, device="ocl") -> None:
    _C.default_generator(_index(device)).set_state(new_state)


def get_rng_state_all():
    return [gen.get_state() for gen in default_generators]


def set_rng_state_all(new_states) -> None:
    for gen, state in zip(default_generators, new_states):
        gen.set_state(state)


# Memory ---------------------------------------------------------------------

def memory_stats(device=None) -> dict:
    return dict(sorted(_C.memory_stats(_index(device)).items()))


def memory_allocated(device=None) -> int:
    return _C.memory_stats(_index(device))["allocated_bytes.all.current"]


def max_memory_allocated(device=None) -> int:
    return _C.memory_stats(_index(device))["allocated_bytes.all.peak"]


def memory_reserved(device=None) -> int:
    return _C.memory_stats(_index(device))["reserved_bytes.all.current"]


def max_memory_reserved(device=None) -> int:
    return _C.memory_stats(_index(device))["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device=None) -> None:
    _C.reset_peak_memory_stats(_index(device))


def reset_accumulated_memory_stats(device=None) -> None:
    _C.reset_accumulated_memory_stats(_index(device))


def empty_cache() -> None:
    _C.empty_cache()


def mem_get_info(device=None):
    """(free, total) bytes as the allocator sees them."""
    return _C.mem_get_info(_index(device))


def set_memory_limit(limit_bytes: int, device=None) -> None:
    """Cap the bytes torch_ocl may reserve on a device (0 = all of it)."""
    _C.set_memory_limit(_index(device), int(limit_bytes))


# CPU fallback -----------------------------------------------------------------

def fallback_stats() -> dict:
    """op name -> number of calls that ran on the CPU through the fallback."""
    return dict(_C.fallback_stats())


def reset_fallback_stats() -> None:
    _C.reset_fallback_stats()


def get_fallback_mode() -> str:
    return _C.get_fallback_mode()


def set_fallback_mode(mode: str) -> None:
    """'warn' (default), 'silent', or 'error' (ops without a native kernel raise)."""
    _C.set_fallback_mode(mode)


@contextlib.contextmanager
def fallback_mode(mode: str):
    previous = _C.get_fallback_mode()
    _C.set_fallback_mode(mode)
    try:
        yield
    finally:
        _C.set_fallback_mode(previous)


# Autocast ----------------------------------------------------------------------

def get_amp_supported_dtype():
    """Lower-precision dtypes torch.autocast("ocl", dtype=...) accepts."""
    return [torch.float16, torch.bfloat16]


def is_bf16_supported(including_emulation: bool = True) -> bool:
    # bfloat16 is stored as 16 bits and computed in float on every device.
    return is_available()


def cache_dir() -> str:
    """Where compiled OpenCL programs are kept (TORCH_OCL_CACHE_DIR)."""
    return _C.program_cache_dir()


del os
