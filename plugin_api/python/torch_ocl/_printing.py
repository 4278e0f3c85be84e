"""Printing an ocl tensor formats a CPU copy of its data (one transfer)
instead of running the formatter's many small ops on the device."""

import torch
import torch._tensor_str as _tensor_str

_original = _tensor_str._tensor_str


def _tensor_str_on_cpu(self, indent):
    if self.device.type == "ocl":
        self = self.cpu()
    return _original(self, indent)


def install():
    if _tensor_str._tensor_str is not _tensor_str_on_cpu:
        _tensor_str._tensor_str = _tensor_str_on_cpu
