"""Dtype lists and names shared by the test files (not a test module)."""

import torch

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]
ALL = FLOATS + INTS + [torch.bool]


def dname(dtype):
    """'float32' for torch.float32: a readable test id."""
    return str(dtype).replace("torch.", "")
