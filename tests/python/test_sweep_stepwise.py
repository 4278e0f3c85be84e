"""The OpInfo sweep's stepwise reference for float16/bfloat16 composites
(torch_ocl/testing/opinfo_sweep.py: RoundEachOp, matches_stepwise).

nn.functional.cross_entropy, bfloat16, probability targets and class
weights (OpInfo sample 15) was reported "wrong": the device gave -9.9375,
the CPU -10.1875. The op is a composite (log_softmax, mul, mul, sum, div),
every step rounded to bfloat16. The device's log_softmax is correctly
rounded; the CPU's bfloat16 log_softmax is not (-9.25 for -9.2816...,
whose correct rounding is -9.3125), and the later steps (a product of
magnitude 58, bfloat16 ulp 0.25, cancelling to 20) amplify that one-ulp
difference. The same composite with each op computed in float64 and
rounded to bfloat16 gives the device's result exactly.
"""

import torch
import torch.nn.functional as F

import torch_ocl  # noqa: F401
from torch_ocl.testing import opinfo_sweep as sweep

BF = torch.bfloat16
X = torch.tensor([[-6.7188, 5.6875, 6.3750], [-3.1719, -4.2188, 5.0625]]).to(BF)
T = torch.tensor([[0.6211, 0.0276, 0.1123], [0.3945, 0.9766, 0.1152]]).to(BF)
W = torch.tensor([-6.7188, 6.3750, -4.2188]).to(BF)


def test_cause_cpu_bf16_log_softmax_is_not_correctly_rounded(strict):
    exact = torch.log_softmax(X.double(), 1)
    device = torch.log_softmax(X.to("ocl"), 1).cpu()
    assert torch.equal(device, exact.to(BF))  # ours: correctly rounded
    cpu = torch.log_softmax(X, 1)
    assert not torch.equal(cpu, exact.to(BF))
    assert cpu[1, 1].item() == -9.25 and device[1, 1].item() == -9.3125


def test_device_equals_the_stepwise_rounded_composite(strict):
    device = F.cross_entropy(X.to("ocl"), T.to("ocl"), weight=W.to("ocl")).cpu()
    with sweep.RoundEachOp():
        stepwise = F.cross_entropy(X, T, weight=W)
    cpu = F.cross_entropy(X, T, weight=W)
    assert device.item() == stepwise.item() == -9.9375
    assert cpu.item() == -10.1875
    # Neither earlier rule accepts it: beyond the tolerance, and the CPU's
    # result happens to be closer to the float64 one.
    exact = F.cross_entropy(X.double(), T.double(), weight=W.double())
    rtol, atol = sweep.TOLERANCES[BF]
    assert not sweep.no_worse_than_cpu(device, cpu, exact, rtol, atol)
    sweep.compare(device, cpu, BF, "output", exact=lambda: [exact], stepwise=lambda: [stepwise])


def test_stepwise_rule_still_rejects_wrong_results():
    cpu = F.cross_entropy(X, T, weight=W)
    with sweep.RoundEachOp():
        stepwise = F.cross_entropy(X, T, weight=W)
    exact = F.cross_entropy(X.double(), T.double(), weight=W.double())
    for wrong in (-9.5, -10.5, float("nan")):
        try:
            sweep.compare(torch.tensor(wrong, dtype=BF), cpu, BF, "output",
                          exact=lambda: [exact], stepwise=lambda: [stepwise])
        except sweep.SampleFailure as failure:
            assert failure.status == "wrong"
        else:
            raise AssertionError(f"{wrong} accepted")
    # Only half types: a float32 result is never judged by it.
    assert not sweep.matches_stepwise(cpu.float(), cpu.float(), 0, lambda: [cpu.float()], 1e-5, 1e-5)


def test_cross_entropy_bfloat16_sweep_pair_passes():
    from torch.testing._internal.common_methods_invocations import op_db
    op = next(o for o in op_db if o.name == "nn.functional.cross_entropy" and o.variant_test_name == "")
    result = sweep.check_op(op, BF)
    assert result.status == "native", result.detail
    assert result.samples > 15  # sample 15 was compared, not skipped
