"""Streams and events on ocl, as torch.cuda has them.

A stream is an in-order OpenCL command queue; an event is an OpenCL marker
with profiling timestamps. torch.ocl.Stream / torch.ocl.Event are the generic
torch.Stream / torch.Event bound to the ocl device, so torch.accelerator and
every API taking a torch.Stream/torch.Event accept them.
"""

import contextlib

import torch

from . import _C

__all__ = ["Stream", "Event", "current_stream", "default_stream", "set_stream", "stream", "StreamContext"]


def _device_index(device):
    from .device import _index

    return _index(device)


def _wrap(packed):
    stream_id, device_index, device_type = packed
    return Stream(stream_id=stream_id, device_index=device_index, device_type=device_type)


class Stream(torch.Stream):
    """An ocl stream (in-order command queue) from the device's stream pool.

    priority: 0 (normal) or negative (high); high-priority queues use
    cl_khr_priority_hints where the device has it."""

    def __new__(cls, device=None, priority=0, **kwargs):
        if kwargs:  # Stream(stream_id=, device_index=, device_type=): an existing stream
            return super().__new__(cls, **kwargs)
        if not isinstance(priority, int):
            raise TypeError(f"priority must be an int, got {type(priority).__name__}")
        dev = torch.device("ocl", _device_index(device))
        return super().__new__(cls, device=dev, priority=-1 if priority < 0 else 0)

    def __init__(self, device=None, priority=0, **kwargs):
        pass

    @property
    def priority(self) -> int:
        return _C.stream_priority(self.stream_id)

    @staticmethod
    def priority_range():
        """(lowest, highest) priority, as torch.cuda.Stream.priority_range()."""
        return (0, -1)

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def __repr__(self):
        return f"<torch.ocl.Stream device=ocl:{self.device_index} stream_id={self.stream_id} priority={self.priority}>"


class Event:
    """``torch.ocl.Event(enable_timing=False, blocking=False)`` makes a
    torch.Event on the current ocl device (torch's own type: every API taking
    a torch.Event accepts it). record(stream) enqueues an OpenCL marker;
    elapsed_time(end) is the milliseconds between two markers from OpenCL
    profiling counters (needs enable_timing=True, as on CUDA)."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False, device=None):
        if interprocess:
            raise RuntimeError("ocl events cannot be shared between processes (interprocess=True)")
        dev = torch.device("ocl", _device_index(device))
        return torch.Event(dev, enable_timing=enable_timing, blocking=blocking)


def current_stream(device=None) -> Stream:
    """The current stream of `device` (default: the current ocl device)."""
    return _wrap(_C.current_stream(_device_index(device)))


def default_stream(device=None) -> Stream:
    return _wrap(_C.default_stream(_device_index(device)))


def set_stream(stream_) -> None:
    """Make `stream_` the current stream of its device (None: no-op)."""
    if stream_ is None:
        return
    if stream_.device.type != "ocl":
        raise ValueError(f"expected an ocl stream, got {stream_}")
    _C.set_stream(stream_.stream_id, stream_.device_index)


class StreamContext:
    """Context manager selecting a stream (and its device) for the ops inside."""

    def __init__(self, stream_):
        self.stream = stream_
        self._prev_device = None
        self._prev_stream = None

    def __enter__(self):
        if self.stream is None:
            return self.stream
        self._prev_device = _C.current_device()
        if self.stream.device_index != self._prev_device:
            _C.set_device(self.stream.device_index)
        self._prev_stream = _C.current_stream(self.stream.device_index)
        set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is None:
            return
        _C.set_stream(self._prev_stream[0], self._prev_stream[1])
        _C.set_device(self._prev_device)


def stream(stream_) -> StreamContext:
    """``with torch.ocl.stream(s):`` runs the enclosed ops on stream `s`."""
    return StreamContext(stream_)


del contextlib
