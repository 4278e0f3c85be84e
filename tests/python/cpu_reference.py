"""Comparing ocl results with the CPU's on the same inputs: the helpers the
test files share (tolerances, moving arguments, nested comparison, running a
function on both devices).

The strict fixture (fallback_mode("error")) and fallback_stats live in
conftest.py.
"""

import pytest
import torch
from torch.testing import assert_close
from torch_ocl.testing.opinfo_sweep import TOLERANCES

# rtol, atol of one rounding in the dtype (elementwise results): the OpInfo
# sweep's table (about two units in the last place for the half types).
TOLERANCE = TOLERANCES
# assert_close's rtol/atol for results summed over many terms in the dtype
# (losses, embedding bags): the half types accumulate a few more roundings.
SUM_TOL = {
    torch.float32: dict(rtol=1e-5, atol=1e-5),
    torch.float64: dict(rtol=1e-7, atol=1e-7),
    torch.float16: dict(rtol=1e-2, atol=1e-2),
    torch.bfloat16: dict(rtol=5e-2, atol=5e-2),
}


def tol(dtype) -> dict:
    """assert_close's rtol/atol of one rounding in `dtype` (TOLERANCE); exact
    for dtypes the table does not list (integers, bool)."""
    rtol, atol = TOLERANCE.get(dtype, (0, 0))
    return dict(rtol=rtol, atol=atol)


def to_ocl(x):
    """`x` with every tensor in it (nested in lists, tuples, dicts) copied to
    ocl with Tensor.to (a copy that stays in the autograd graph)."""
    if isinstance(x, torch.Tensor):
        return x.to("ocl")
    if isinstance(x, (list, tuple)):
        return type(x)(to_ocl(v) for v in x)
    if isinstance(x, dict):
        return {k: to_ocl(v) for k, v in x.items()}
    return x


def assert_matches_cpu(actual, expected, **tolerance):
    """`actual` (ocl tensors, possibly nested in tuples/lists) equals the CPU's
    `expected`: same device type ocl, dtype and shape, values close with
    `tolerance` (default: torch.testing's for the dtype), NaNs in the same
    places."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), (type(actual), actual)
        for a, e in zip(actual, expected):
            assert_matches_cpu(a, e, **tolerance)
        return
    if not isinstance(expected, torch.Tensor):
        assert actual == expected, (actual, expected)
        return
    assert isinstance(actual, torch.Tensor), type(actual)
    assert actual.device.type == "ocl", actual.device
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert_close(actual.cpu(), expected, equal_nan=True, **tolerance)


def run_both(fn, *cpu_args, kwargs=None, same_message=False, compare=None, **tolerance):
    """fn(*cpu_args, **kwargs) and the same call with every tensor copied to
    ocl: the same result
    (compare(actual, expected), by default assert_matches_cpu with
    `tolerance`), or, where the CPU raises, the same exception type (and first
    line of its message with same_message). Returns the ocl result (None
    where the CPU raised)."""
    kwargs = kwargs or {}
    ocl_args, ocl_kwargs = to_ocl(cpu_args), to_ocl(kwargs)
    try:
        expected = fn(*cpu_args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the CPU's verdict is the reference
        with pytest.raises(type(e)) as info:
            fn(*ocl_args, **ocl_kwargs)
        if same_message:
            assert str(info.value).split("\n")[0] == str(e).split("\n")[0]
        return None
    actual = fn(*ocl_args, **ocl_kwargs)
    if compare is None:
        assert_matches_cpu(actual, expected, **tolerance)
    else:
        compare(actual, expected)
    return actual
