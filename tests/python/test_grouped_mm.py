"""torch._grouped_mm natively (kernels/grouped_mm.cl, kernels/grouped_mm_ops.cpp):
every layout (2d x 3d, 3d x 2d, 2d x 2d with offs; 3d x 3d batched), uneven
and empty groups, offs that do not cover every row / column / K index,
transposed operands, float32 / bfloat16 / float16, forward and backward
(PyTorch's formula calls _grouped_mm on transposed views) against the CPU's
torch._grouped_mm under strict mode, and bad inputs raising the CPU's errors.

Rows (2d x 3d) and columns (3d x 2d) that offs do not cover are uninitialised
on the CPU (ATen's fallback never writes them); ocl writes zeros there, which
the tests check apart from the covered part."""

import pytest
import torch
from torch.testing import assert_close

G = 4
from tolerances import GROUPED_MM as TOL  # noqa: E402 (one table per family, tests/python/tolerances.py)
DTYPES = [torch.float32, torch.bfloat16, torch.float16]


def operand(shape, dtype, transposed, gen):
    """A random CPU tensor of `shape`; with `transposed`, a view whose last two
    dims are swapped in memory (column-major, as the backward's views)."""
    if not transposed:
        return torch.randn(shape, generator=gen).to(dtype)
    swapped = list(shape[:-2]) + [shape[-1], shape[-2]]
    return torch.randn(swapped, generator=gen).to(dtype).transpose(-2, -1)


# layout -> (shape of a, shape of b, offs or None, what offs partition)
CASES = {
    "2d_3d": ((40, 16), (G, 16, 24), [5, 5, 20, 32], "rows"),  # group 1 empty, rows 32.. uncovered
    "3d_2d": ((G, 16, 24), (24, 40), [8, 8, 24, 32], "cols"),  # group 1 empty, columns 32.. uncovered
    "2d_2d": ((16, 40), (40, 24), [8, 8, 24, 32], "k"),  # group 1 empty (zeros), K 32.. unused
    "3d_3d": ((G, 16, 24), (G, 24, 8), None, None),
    "2d_3d_full": ((32, 16), (G, 16, 8), [0, 16, 16, 32], "rows"),  # first group empty, all rows covered
}


def covered(t, offs, part):
    """The part of a result that the groups cover: rows (2d x 3d) or columns (3d x 2d) < offs[-1]."""
    if part == "rows":
        return t[: offs[-1]]
    if part == "cols":
        return t[:, : offs[-1]]
    return t


def uncovered(t, offs, part):
    if part == "rows":
        return t[offs[-1]:]
    if part == "cols":
        return t[:, offs[-1]:]
    return t[:0]


def grouped(device, a, b, offs, grad_out=None):
    x = a.detach().to(device).requires_grad_()
    y = b.detach().to(device).requires_grad_()
    o = None if offs is None else torch.tensor(offs, dtype=torch.int32, device=device)
    out = torch._grouped_mm(x, y, o)
    if grad_out is None:
        return out.detach().cpu(), None, None
    out.backward(grad_out.to(device))
    return out.detach().cpu(), x.grad.cpu(), y.grad.cpu()


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)],
                         ids=["nn", "tn", "nt", "tt"])
@pytest.mark.parametrize("layout", list(CASES))
def test_grouped_mm_matches_cpu(strict, layout, ta, tb, dtype):
    sa, sb, offs, part = CASES[layout]
    gen = torch.Generator().manual_seed(1)
    a, b = operand(sa, dtype, ta, gen), operand(sb, dtype, tb, gen)
    ref = torch._grouped_mm(a, b, None if offs is None else torch.tensor(offs, dtype=torch.int32))
    grad_out = torch.randn(ref.shape, generator=gen).to(dtype)
    out, ga, gb = grouped("ocl", a, b, offs, grad_out)
    _, ref_ga, ref_gb = grouped("cpu", a, b, offs, grad_out)
    assert out.shape == ref.shape and out.dtype == dtype
    assert_close(covered(out, offs, part), covered(ref, offs, part), **TOL[dtype])
    assert (uncovered(out, offs, part) == 0).all()
    # The backward: the parts of the inputs that no group covers do not reach
    # the output, their gradient is 0 (the CPU leaves it uninitialised);
    # everything else as the CPU.
    end = None if offs is None else offs[-1]
    a_cut = {"rows": (slice(None, end),), "k": (slice(None), slice(None, end))}.get(part, ())
    b_cut = {"cols": (slice(None), slice(None, end)), "k": (slice(None, end),)}.get(part, ())
    for got, want, cut in ((ga, ref_ga, a_cut), (gb, ref_gb, b_cut)):
        assert_close(got[cut], want[cut], **TOL[dtype])
        rest = got.clone()
        rest[cut] = 0
        assert (rest == 0).all()


def test_grouped_mm_has_a_native_kernel():
    """strict mode alone cannot tell: without a PrivateUse1 kernel ATen's
    CompositeExplicitAutograd _grouped_mm runs (offs to the host, one mm per
    group), every op of it native."""
    assert torch._C._dispatch_has_kernel_for_dispatch_key("aten::_grouped_mm", "PrivateUse1")


def test_grouped_mm_output_strides_as_aten(strict):
    """The output has ATen's padded strides (create_grouped_gemm_output_tensor):
    rows padded to 16 bytes. b is a narrowed view (6 of 8 columns)."""
    a, b = torch.randn(8, 16), torch.randn(G, 16, 8)
    offs = torch.tensor([2, 4, 6, 8], dtype=torch.int32)
    ref = torch._grouped_mm(a, b[:, :, :6], offs)
    out = torch._grouped_mm(a.to("ocl"), b.to("ocl")[:, :, :6], offs.to("ocl"))
    assert out.stride() == ref.stride() == (8, 1)
    assert_close(out.cpu(), ref, rtol=1e-5, atol=1e-5)


def test_grouped_mm_offsets_past_the_end(strict):
    """offs beyond M (2d x 3d) or K (2d x 2d) are clamped, as the fallback's slices."""
    gen = torch.Generator().manual_seed(2)
    a, b = torch.randn(16, 8, generator=gen), torch.randn(G, 8, 8, generator=gen)
    offs = torch.tensor([4, 12, 20, 30], dtype=torch.int32)
    assert_close(torch._grouped_mm(a.to("ocl"), b.to("ocl"), offs.to("ocl")).cpu(),
                 torch._grouped_mm(a, b, offs), rtol=1e-5, atol=1e-5)
    a, b = torch.randn(8, 16, generator=gen), torch.randn(16, 8, generator=gen)
    assert_close(torch._grouped_mm(a.to("ocl"), b.to("ocl"), offs.to("ocl")).cpu(),
                 torch._grouped_mm(a, b, offs), rtol=1e-5, atol=1e-5)


def test_grouped_mm_reads_offsets_on_the_device(strict):
    """Offsets computed on the device (as a MoE router's histogram + cumsum)
    are used without reading them back: the same result as the CPU."""
    gen = torch.Generator().manual_seed(3)
    a, b = torch.randn(64, 32, generator=gen), torch.randn(G, 32, 64, generator=gen)
    experts = torch.randint(0, G, (64,), generator=gen)
    counts = torch.bincount(experts, minlength=G)
    offs = torch.cumsum(counts, 0).to(torch.int32)
    ref = torch._grouped_mm(a, b, offs)
    offs_dev = torch.cumsum(torch.bincount(experts.to("ocl"), minlength=G), 0).to(torch.int32)
    assert_close(torch._grouped_mm(a.to("ocl"), b.to("ocl"), offs_dev).cpu(), ref, rtol=1e-5, atol=1e-5)


def bad_inputs():
    f, i32 = torch.float32, torch.int32
    offs = torch.tensor([2, 4, 6, 8], dtype=i32)
    return {
        "offs_int64": (torch.randn(8, 16), torch.randn(G, 16, 8), offs.long(), {}),
        "mismatched_k": (torch.randn(8, 16), torch.randn(G, 8, 8), offs, {}),
        "float64": (torch.randn(8, 16, dtype=torch.float64), torch.randn(G, 16, 8, dtype=torch.float64), offs, {}),
        "no_offs_2d": (torch.randn(8, 16), torch.randn(G, 16, 8), None, {}),
        "offs_3d_3d": (torch.randn(G, 8, 16), torch.randn(G, 16, 8), offs, {}),
        "offs_2d": (torch.randn(8, 16), torch.randn(G, 16, 8), offs.reshape(2, 2), {}),
        "bias": (torch.randn(8, 16), torch.randn(G, 16, 8), offs, {"bias": torch.randn(G, 8)}),
        "out_dtype": (torch.randn(8, 16, dtype=torch.bfloat16), torch.randn(G, 16, 8, dtype=torch.bfloat16), offs,
                      {"out_dtype": f}),
        "batch_mismatch": (torch.randn(8, 16), torch.randn(G + 1, 16, 8), offs, {}),
        "mixed_dtypes": (torch.randn(8, 16), torch.randn(G, 16, 8, dtype=torch.bfloat16), offs, {}),
        "unaligned_stride": (torch.randn(8, 15), torch.randn(G, 15, 8), offs, {}),
    }


@pytest.mark.parametrize("case", list(bad_inputs()))
def test_grouped_mm_bad_input_raises_as_cpu(strict, case):
    a, b, offs, kw = bad_inputs()[case]
    with pytest.raises(RuntimeError) as cpu_err:
        torch._grouped_mm(a, b, offs, **kw)
    dev = {k: (v.to("ocl") if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}
    with pytest.raises(RuntimeError) as ocl_err:
        torch._grouped_mm(a.to("ocl"), b.to("ocl"), None if offs is None else offs.to("ocl"), **dev)
    assert str(ocl_err.value).split("\n")[0] == str(cpu_err.value).split("\n")[0]
