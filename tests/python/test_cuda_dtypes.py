"""Where CUDA accepts more dtypes than the CPU, ocl accepts what CUDA accepts,
natively (ocl is an accelerator: model code is written for CUDA). The pairs
come from op_db (`supported_dtypes("cuda")` minus `supported_dtypes("cpu")`);
each sample runs under TORCH_OCL_FALLBACK=error and is compared with the CPU
computing the same op in a wider dtype (float32 for half types, complex64
for complex32, int64 for bool), rounded back to the tested dtype."""

import pytest
import torch
from torch.testing import assert_close
from torch.testing._internal.common_methods_invocations import op_db

# Left out, each with its reason.
NOT_HERE = {
    "fft.": "CUDA's half FFT: ATen's composite refuses a real float16 input on every device but CUDA / XPU before any kernel (ocl's kernels take complex32, tests/python/test_fft.py)",
    "torch.ops.aten._flash_attention_forward": "a CUDA-only kernel entry point (SDPA picks the math path on ocl)",
    "torch.ops.aten._efficient_attention_forward": "a CUDA-only kernel entry point (SDPA picks the math path on ocl)",
}
RANDOM_IN_TRAINING = {"nn.functional.rrelu"}  # draws differ from the CPU's stream


def _zero_nan(x):
    return torch.where(x.isnan(), torch.zeros_like(x), x)


def _nanmean_ref(x, dim=None, keepdim=False, dtype=None):
    count = (~x.isnan()).sum(dim=dim, keepdim=keepdim) if dim is not None else (~x.isnan()).sum()
    return torch.sum(_zero_nan(x), dim=dim, keepdim=keepdim, dtype=dtype) / count


# The CPU has no kernel at all for these pairs: CUDA's definition, spelled in CPU ops.
REFERENCES = {
    "nansum": lambda x, *a, **k: torch.sum(_zero_nan(x), *a, **k),  # a NaN in either part counts as 0
    "nanmean": _nanmean_ref,
}


def cuda_only_pairs():
    pairs = []
    for op in op_db:
        if any(op.name.startswith(k) for k in NOT_HERE):
            continue
        extra = set(op.supported_dtypes("cuda")) - set(op.supported_dtypes("cpu"))
        if op.variant_test_name == "without_cudnn":
            continue  # a CUDA variant of batch_norm, same dtypes as the CPU's on every other device
        # sorted: the same order in every pytest-xdist worker
        pairs += [pytest.param(op, dt, id=f"{op.name}.{op.variant_test_name}-{str(dt)[6:]}")
                  for dt in sorted(extra, key=str)]
    return pairs


PAIRS = cuda_only_pairs()


def test_the_list_is_what_readme_says():
    names = sorted({p.id.split("-")[0] for p in PAIRS})
    assert names == sorted([
        "_upsample_bilinear2d_aa.", "abs.", "histc.", "nn.functional.avg_pool3d.",
        "nn.functional.multi_margin_loss.", "nn.functional.multilabel_margin_loss.", "nn.functional.rrelu.",
        "nn.functional.softsign.", "nanmean.", "nansum.", "polygamma.polygamma_n_1", "polygamma.polygamma_n_2", "polygamma.polygamma_n_3",
        "polygamma.polygamma_n_4", "round.decimals_3", "round.decimals_neg_3", "trace.",
        # complex32 only (CUDA computes it as complex64, as ocl does)
        "acos.", "acosh.", "angle.", "asin.", "asinh.", "atan.", "atanh.", "cos.", "cosh.", "diag.",
        "div.no_rounding_mode", "exp.", "lerp.", "log.", "logaddexp.", "nn.functional.conv1d.",
        "nn.functional.conv2d.", "nn.functional.conv3d.", "nn.functional.conv_transpose1d.",
        "nn.functional.conv_transpose2d.", "nn.functional.conv_transpose3d.", "pow.", "prod.", "rsqrt.",
        "sigmoid.", "sin.", "sinh.", "sqrt.", "sum.", "tan.", "tanh.", "true_divide."])


def wider(dtype):
    if dtype == torch.complex32:
        return torch.complex64  # as CUDA's opmath computes it
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else torch.int64


@pytest.mark.parametrize("op, dtype", PAIRS)
def test_cuda_dtype_native(strict, op, dtype):
    samples = list(op.sample_inputs("cpu", dtype))
    assert samples
    for s in samples:
        dev = s.transform(lambda t: t.to("ocl") if isinstance(t, torch.Tensor) else t)
        got = op(dev.input, *dev.args, **dev.kwargs)
        got = got[0] if isinstance(got, (tuple, list)) else got
        if op.name in RANDOM_IN_TRAINING and s.kwargs.get("training", False):
            assert got.device.type == "ocl" and got.dtype == dtype
            continue
        if op.name == "histc":  # the CPU has no integer histc: test_search.py compares with CUDA's formula
            assert got.device.type == "ocl" and got.dtype == dtype
            continue
        if op.name in REFERENCES:
            if dtype == torch.complex32:  # the CPU has no complex32 sum: the reference in complex64, rounded
                ref = REFERENCES[op.name](s.input.to(torch.complex64), *s.args, **s.kwargs).to(dtype)
                assert got.dtype == dtype
                assert_close(got.cpu().to(torch.complex64), ref.to(torch.complex64), rtol=1e-2, atol=1e-2, equal_nan=True)
                continue
            ref = REFERENCES[op.name](s.input, *s.args, **s.kwargs)
            assert got.dtype == ref.dtype
            assert_close(got.cpu(), ref, rtol=1e-5, atol=1e-5, equal_nan=True)
            continue
        up = s.transform(lambda t: t.to(wider(dtype)) if isinstance(t, torch.Tensor) and t.dtype == dtype else t)
        up_kwargs = {k: wider(dtype) if v is dtype else v for k, v in up.kwargs.items()}  # prod(dtype=...)
        ref = op(up.input, *up.args, **up_kwargs)
        ref = ref[0] if isinstance(ref, (tuple, list)) else ref
        # trace of bool is its diagonal's sum on CUDA: int64
        # (angle of complex32: float16, the real type of the tested dtype)
        expected = (torch.int64 if op.name == "trace" and dtype == torch.bool
                    else dtype if ref.dtype == wider(dtype)
                    else torch.float16 if dtype == torch.complex32 and ref.dtype == torch.float32
                    else ref.dtype)
        assert got.dtype == expected
        # the wider result rounded to the tested dtype (overflow to inf included). A complex
        # convolution in complex32 adds and subtracts three float16 real convolutions (ATen's
        # Gauss trick, on CUDA too): its error is a few float16 ulps of the largest of them.
        atol = 1e-2
        if dtype == torch.complex32 and "conv" in op.name:
            atol = max(atol, 4e-3 * ref.abs().max().item())
        assert_close(got.cpu().to(ref.dtype), ref.to(got.dtype).to(ref.dtype), rtol=1e-2, atol=atol, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.complex64, torch.bool], ids=str)
def test_trace(strict, dtype):
    x = (torch.randn(5, 7) * 4).to(dtype)
    for t in (x, x.t(), x[:0], x[1:4, ::2]):
        got = torch.trace(t.to("ocl"))
        ref = t.to(torch.int64 if dtype == torch.bool else dtype).diagonal().sum()
        assert got.dtype == ref.dtype
        assert_close(got.cpu(), ref)
    with pytest.raises(RuntimeError, match="expected a matrix"):
        torch.trace(torch.zeros(3, device="ocl"))
