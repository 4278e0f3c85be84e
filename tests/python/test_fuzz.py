"""The differential fuzzer (torch_ocl.testing.fuzz) in a bounded CI run.

TORCH_OCL_FUZZ_SEED / TORCH_OCL_FUZZ_BUDGET_S change the seed (default 0)
and the time budget (default 60 s); the full run is
``python -m torch_ocl.testing.fuzz --budget-s 3600``.
"""

import os

import torch

from torch_ocl.testing import fuzz


def test_op_list_comes_from_the_registrations():
    ops = fuzz.native_ops()
    for name in ("add", "mul", "sum", "exp", "cumsum", "gather", "mm", "sort", "nn.functional.relu"):
        assert name in ops, name
    assert fuzz._has_ocl_kernel("add") and fuzz._has_ocl_kernel("exp")
    # CPU-fallback-only ops are not fuzzed
    assert not fuzz._has_ocl_kernel("linalg_svd")
    assert "linalg.svd" not in ops


def test_a_case_replays_from_its_seed():
    op = fuzz.native_ops()["floor_divide"]
    # An in-place case: the CPU run must not mutate the sample the ocl run
    # then reads (the fuzzer's own first bug).
    a, b = [], []
    fuzz.run_case(op, 3523069235, a)
    fuzz.run_case(op, 3523069235, b)
    assert a == b and "inplace" in a


def test_layouts_never_alias_the_sample():
    # A sample whose permutation is already contiguous: "transposed" used to
    # hand back the sample itself on the CPU, so an in-place CPU case changed
    # the values the ocl case then read (found with seed 2027: tanh_ of a
    # bfloat16 sample came out as tanh(tanh(x)) on ocl).
    import random
    sample = torch.arange(12.0).reshape(3, 4).t()
    for seed in range(40):
        layout = fuzz.Layout(sample, random.Random(seed))
        out = layout.apply(sample, "cpu")
        assert torch.equal(out, sample), layout
        assert out.untyped_storage().data_ptr() != sample.untyped_storage().data_ptr(), layout
    a, b = [], []
    op = fuzz.native_ops()["tanh"]
    fuzz.run_case(op, 139307847, a)  # raised "Tensor-likes are not close" before the fix
    fuzz.run_case(op, 139307847, b)
    assert a == b and "inplace" in a and "layouts=transposed" in a


def test_a_wrong_result_is_reported_with_a_repro(monkeypatch):
    # A deliberately wrong "kernel": the comparison must catch it and the
    # failure must carry a one-line repro.
    ops = fuzz.native_ops()
    real = ops["neg"].op
    monkeypatch.setattr(ops["neg"], "op", lambda x, *a, **k: real(x) + (1 if x.device.type == "ocl" else 0))
    monkeypatch.setattr(fuzz, "native_ops", lambda: ops)
    lines = []
    r = fuzz.fuzz(seed=5, budget_s=60, ops=["neg"], cases=4, log=lines.append)
    assert r["failures"], r
    assert any("repro: python -m torch_ocl.testing.fuzz --ops neg --case-seed" in l for l in lines), lines


def test_bounded_fuzz_run():
    seed = int(os.environ.get("TORCH_OCL_FUZZ_SEED", "0"))
    budget = float(os.environ.get("TORCH_OCL_FUZZ_BUDGET_S", "60"))
    lines = []
    r = fuzz.fuzz(seed=seed, budget_s=budget, log=lines.append)
    print("fuzz: %d cases run, %d skipped, %d failures (seed %d)" % (r["run"], r["skipped"], len(r["failures"]), seed))
    assert r["run"] > 0
    assert not r["failures"], "\n".join(lines)
    # the fuzzer leaves the device clean
    torch.ocl.synchronize()


# ---- regressions found by the fuzzer --------------------------------------------

def test_channel_shuffle_of_non_viewable_strides(strict):
    # ATen's composite views the input as (b, groups, oc, -1): a transposed
    # or stepped input raised "view size is not compatible" on ocl.
    x = torch.randn(2, 6, 5, 3)
    for view in (lambda t: t.transpose(2, 3), lambda t: t[:, :, ::2], lambda t: t.permute(0, 1, 3, 2)):
        cpu = torch.nn.functional.channel_shuffle(view(x), 3)
        ocl = torch.nn.functional.channel_shuffle(view(x.to("ocl")), 3)
        torch.testing.assert_close(ocl.cpu(), cpu)
    ints = torch.arange(2 * 4 * 6, dtype=torch.int8).view(2, 4, 6).transpose(1, 2)
    assert torch.equal(torch.nn.functional.channel_shuffle(ints.to("ocl"), 2).cpu(),
                       torch.nn.functional.channel_shuffle(ints, 2))


def test_hardsigmoid_propagates_nan(strict):
    import math
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor([math.nan, math.inf, -math.inf, -3.0, 0.5, 3.0], dtype=dtype)
        torch.testing.assert_close(torch.nn.functional.hardsigmoid(x.to("ocl")).cpu(),
                                   torch.nn.functional.hardsigmoid(x), equal_nan=True)
