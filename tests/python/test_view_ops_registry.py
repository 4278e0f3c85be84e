"""Every view op with a dense CPU kernel and no composite kernel must have an
ocl (PrivateUse1) kernel: such ops are device-specific registrations, and
without one an ocl view would go through the CPU fallback, which cannot
return an alias of the device tensor."""

import os
import re

import pytest
import torch
import torchgen
import yaml

YAML_PATH = os.path.join(os.path.dirname(torchgen.__file__), "packaged/ATen/native/native_functions.yaml")

COMPOSITE_KEYS = (
    "CompositeImplicitAutograd",
    "CompositeExplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
    "CompositeImplicitAutogradNestedTensor",
)

# `Tensor(a)` or `Tensor(a)[]` in the returns: the output aliases an input.
# `(a!)` (a mutated alias: in-place and out= functions) does not count.
ALIAS_RETURN = re.compile(r"Tensor\([a-z]\)")


def parse_view_ops():
    with open(YAML_PATH) as f:
        entries = yaml.safe_load(f)
    ops = []
    for entry in entries:
        func = entry["func"]
        head, returns = func.split(" -> ", 1)
        name = head.split("(", 1)[0]
        base, _, overload = name.partition(".")
        args = head[len(name):]
        if base.endswith("_") or "out" in overload.split("_") or "(a!" in args or "!)" in returns:
            continue  # in-place or out=
        if not ALIAS_RETURN.search(returns):
            continue
        ops.append("aten::" + name)
    return ops


def has_kernel(op, key):
    return torch._C._dispatch_has_kernel_for_dispatch_key(op, key)


def device_specific_view_ops():
    selected = []
    for op in parse_view_ops():
        if not has_kernel(op, "CPU"):
            continue
        if any(has_kernel(op, key) for key in COMPOSITE_KEYS):
            continue
        selected.append(op)
    return selected


def test_yaml_present_and_parsed():
    assert os.path.exists(YAML_PATH), YAML_PATH
    views = parse_view_ops()
    # sanity: well-known view ops are recognised, in-place/out ones are not
    for op in ("aten::view", "aten::as_strided", "aten::transpose.int", "aten::select.int", "aten::unbind.int"):
        assert op in views, op
    for op in ("aten::as_strided_", "aten::add.out", "aten::clone", "aten::add.Tensor"):
        assert op not in views, op


def test_device_specific_view_ops_have_ocl_kernels():
    ops = device_specific_view_ops()
    print("view ops with a CPU kernel and no composite kernel:", ops)
    assert ops, "the list must not be empty"
    for op in ("aten::view", "aten::as_strided", "aten::_reshape_alias", "aten::unfold"):
        assert op in ops, op
    missing = [op for op in ops if not has_kernel(op, "PrivateUse1")]
    assert not missing, f"view ops without an ocl (PrivateUse1) kernel: {missing}"


@pytest.mark.parametrize("op", ["aten::view", "aten::as_strided", "aten::_reshape_alias", "aten::unfold"])
def test_core_view_ops_registered(op):
    assert has_kernel(op, "PrivateUse1")
