"""Error paths: bad devices, device mismatches, unsupported dtypes, out of
memory, memory limits, the CPU fallback modes and a machine without OpenCL."""

import gc
import re
import textwrap

import pytest
import torch

from fallback_examples import CONV_OP, int_conv


def test_bad_device_index():
    with pytest.raises(RuntimeError, match="ocl:99"):
        torch.empty(2, device="ocl:99")
    with pytest.raises(RuntimeError, match="ocl:99"):
        torch.zeros(3).to("ocl:99")
    # still usable afterwards
    assert torch.ones(2, device="ocl").sum().item() == 2


@pytest.mark.parametrize(
    "fn",
    [
        lambda o, c: o + c,
        lambda o, c: c + o,
        lambda o, c: torch.mm(o, c),
        lambda o, c: torch.mm(c, o),
        lambda o, c: torch.addmm(o, o, c),
        lambda o, c: torch.bmm(o.unsqueeze(0), c.unsqueeze(0)),
        lambda o, c: o.add_(c),
        lambda o, c: torch.nn.functional.linear(o, c),
    ],
    ids=["add", "radd", "mm", "mm_cpu_first", "addmm", "bmm", "add_", "linear"],
)
def test_device_mismatch(strict, fn):
    o = torch.ones(3, 3, device="ocl")
    c = torch.ones(3, 3)
    with pytest.raises(RuntimeError, match="device"):
        fn(o, c)


def test_cpu_scalars_still_work(strict):
    o = torch.arange(4.0).to("ocl")
    r = o * torch.tensor(2.0) + torch.tensor(1)
    assert r.device.type == "ocl"
    assert torch.equal(r.cpu(), torch.arange(4.0) * 2 + 1)
    r2 = torch.tensor(10.0) - o
    assert torch.equal(r2.cpu(), 10.0 - torch.arange(4.0))


def test_quantized_tensors_raise_a_clear_error(run_python):
    # Quantized tensors cannot live on ocl (no Quantizedocl kernels): a
    # PyTorch-style error, no crash, and the device stays usable.
    code = textwrap.dedent(
        """
        import warnings; warnings.simplefilter("ignore")
        import torch, torch_ocl
        attempts = [
            lambda: torch.empty(2, dtype=torch.qint8, device="ocl"),
            lambda: torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.qint8).to("ocl"),
        ]
        for attempt in attempts:
            try:
                attempt()
                print("no error")
            except (TypeError, RuntimeError, NotImplementedError) as e:
                print(type(e).__name__ + ": " + str(e).splitlines()[0])
        print("after:", torch.ones(2, device="ocl").sum().item())
        """
    )
    proc = run_python(code)
    assert proc.returncode == 0, f"crashed or raised (rc={proc.returncode}): {proc.stderr[-3000:]}"
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 3, proc.stdout
    for line in lines[:2]:
        assert line.startswith("NotImplementedError") and "Quantizedocl" in line, line
    assert lines[2] == "after: 2.0"


FLOAT8 = [torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz, torch.float8_e8m0fnu]


@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_float8_tensors_store_bytes_as_on_cuda(dtype):
    # As CUDA: float8 tensors live on the device (creation, copies, casts,
    # views, indexing); arithmetic raises as the CPU's and CUDA's does.
    cpu = torch.randn(5, 6).to(dtype)
    o = cpu.to("ocl")
    bits = lambda t: t.cpu().view(torch.uint8)  # noqa: E731
    assert o.dtype == dtype and torch.equal(bits(o), cpu.view(torch.uint8))
    assert torch.equal(bits(o.t().contiguous()), cpu.t().contiguous().view(torch.uint8))  # strided device copy
    assert torch.equal(bits(o[1:4, ::2].clone()), cpu[1:4, ::2].contiguous().view(torch.uint8))
    assert torch.equal(o.float().cpu(), cpu.float())  # float8 -> float32 on the device
    x = torch.randn(7)
    assert torch.equal(bits(x.to("ocl").to(dtype)), x.to(dtype).view(torch.uint8))  # float32 -> float8
    idx = torch.tensor([4, 0, 4])
    assert torch.equal(bits(o.index_select(0, idx.to("ocl"))), cpu.index_select(0, idx).view(torch.uint8))
    assert torch.empty(3, dtype=dtype, device="ocl").shape == (3,)
    if dtype != torch.float8_e8m0fnu:
        with pytest.raises(NotImplementedError, match="not implemented for 'Float8"):
            o + o


def test_ops_without_kernels_run_on_the_counted_fallback(fallback_stats):
    # ops without a kernel for a dtype (an int64 convolution) go through the
    # fallback (refused, with the op's name, in error mode).
    c = torch.randint(-5, 5, (2, 2))
    d = c.to("ocl")
    with torch.ocl.fallback_mode("silent"):
        r = int_conv(d)
    assert r.device.type == "ocl"
    torch.testing.assert_close(r.cpu(), int_conv(c))
    assert fallback_stats().get(CONV_OP, 0) >= 1
    with torch.ocl.fallback_mode("error"), pytest.raises(RuntimeError, match=CONV_OP):
        int_conv(d)


def test_fallback_keeps_a_sliced_input_non_contiguous():
    # The fallback's copy to the CPU would make a sliced (non-dense) input
    # contiguous; _linalg_slogdet then factors A^T while its backward, seeing
    # the device's non-contiguous A, reads the LU as A's: a transposed gradient.
    # (Complex: real LU-based linear algebra is native now.)
    x = torch.randn(3, 5, 5, dtype=torch.complex64, generator=torch.Generator().manual_seed(0))
    for f in (lambda a: torch.linalg.slogdet(a)[1], lambda a: torch.linalg.det(a).abs()):
        xc = x.clone().requires_grad_()
        expected, = torch.autograd.grad(f(xc).sum(), xc)
        sliced = torch.empty(3, 5, 5, 2, dtype=torch.complex64, device="ocl")[..., 0]
        sliced.copy_(x)
        sliced.requires_grad_()
        with torch.ocl.fallback_mode("silent"):
            got, = torch.autograd.grad(f(sliced).sum(), sliced)
        torch.testing.assert_close(got.cpu(), expected)


def test_impossible_allocation_raises_oom():
    with pytest.raises(torch.OutOfMemoryError):
        torch.empty(2**50, device="ocl", dtype=torch.uint8)
    assert issubclass(torch.OutOfMemoryError, RuntimeError)
    x = torch.empty(1000, device="ocl")
    x.fill_(3.0)
    assert x.sum().item() == 3000.0
    assert torch.ocl.memory_stats()["num_ooms"] >= 1


def test_memory_limit():
    gc.collect()
    torch.ocl.empty_cache()
    limit = torch.ocl.memory_reserved() + (16 << 20)
    torch.ocl.set_memory_limit(limit)
    try:
        with pytest.raises(torch.OutOfMemoryError):
            torch.empty(64 << 20, dtype=torch.uint8, device="ocl")
        # an allocation well within the limit still works
        small = torch.ones(1 << 18, device="ocl")  # 1 MiB
        assert small[-3:].cpu().tolist() == [1.0] * 3
        assert torch.ocl.memory_reserved() <= limit
        del small
    finally:
        torch.ocl.set_memory_limit(0)
    big = torch.ones(64 << 20, dtype=torch.uint8, device="ocl")
    assert big.numel() == 64 << 20
    assert big[-5:].cpu().tolist() == [1] * 5


def test_fallback_error_mode_env(run_python):
    code = textwrap.dedent(
        """
        import torch, torch_ocl
        import torch.nn.functional as F
        print("mode:", torch.ocl.get_fallback_mode())
        x = torch.ones(4, device="ocl")
        try:
            xc = x.long()
            F.conv1d(xc.view(1, 2, 2), xc.view(2, 2, 1))  # int64 convolution: the CPU fallback
            print("no error")
        except RuntimeError as e:
            print("RuntimeError:", str(e).splitlines()[0])
        print("native still works:", (x + x).sum().item())
        """
    )
    proc = run_python(code, env={"TORCH_OCL_FALLBACK": "error"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == "mode: error"
    assert lines[1].startswith("RuntimeError:") and CONV_OP in lines[1], lines[1]
    assert lines[2] == "native still works: 8.0"


def test_fallback_error_mode_context(strict):
    assert torch.ocl.get_fallback_mode() == "error"
    with pytest.raises(RuntimeError, match=CONV_OP):
        int_conv(torch.ones(2, 2, device="ocl", dtype=torch.int64))  # int64 convolution: no kernel


def test_fallback_mode_invalid_name():
    before = torch.ocl.get_fallback_mode()
    with pytest.raises(RuntimeError):
        torch.ocl.set_fallback_mode("sometimes")
    assert torch.ocl.get_fallback_mode() == before


def test_fallback_warn_mode_warns_once_counts_all(run_python):
    code = textwrap.dedent(
        """
        import warnings
        import torch, torch_ocl
        import torch.nn.functional as F
        print("mode:", torch.ocl.get_fallback_mode())
        conv = lambda x: F.conv1d(x.view(1, 2, 2), x.view(2, 2, 1))
        x = torch.arange(4).view(2, 2).to("ocl")  # int64 convolution and mvlgamma(out=): the CPU fallback
        xc = torch.arange(4).view(2, 2)
        y = torch.full((3,), 2.5, device="ocl")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results = [conv(x) for _ in range(3)]
            torch.mvlgamma(y, 1, out=torch.empty_like(y))
            torch.mvlgamma(y, 1, out=torch.empty_like(y))
        print("conv warnings:", sum("aten::convolution" in str(w.message) for w in caught))
        print("mvlgamma warnings:", sum("aten::mvlgamma.out" in str(w.message) for w in caught))
        stats = torch.ocl.fallback_stats()
        print("conv calls:", sum(v for k, v in stats.items() if k.startswith("aten::convolution")))
        print("mvlgamma calls:", sum(v for k, v in stats.items() if k.startswith("aten::mvlgamma.out")))
        print("correct:", all(torch.equal(r.cpu(), conv(xc)) for r in results))
        torch.ocl.reset_fallback_stats()
        print("after reset:", torch.ocl.fallback_stats())
        """
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout.strip().splitlines()
    assert out == [
        "mode: warn",
        "conv warnings: 1",
        "mvlgamma warnings: 1",
        "conv calls: 3",
        "mvlgamma calls: 2",
        "correct: True",
        "after reset: {}",
    ], proc.stdout + proc.stderr[-2000:]


def test_fallback_stats_in_process(fallback_stats):
    x = torch.arange(4.0).to("ocl")
    xc = x.long().view(2, 2)  # int64 convolution: the CPU fallback
    with torch.ocl.fallback_mode("silent"):
        for _ in range(4):
            r = int_conv(xc)
    c = torch.arange(4).view(2, 2)
    assert torch.equal(r.cpu(), int_conv(c))
    stats = fallback_stats()
    assert sum(v for k, v in stats.items() if k.startswith(CONV_OP)) == 4, stats
    assert all(k.startswith("aten::") for k in stats), stats
    torch.ocl.reset_fallback_stats()
    assert torch.ocl.fallback_stats() == {}
    # native ops are never counted
    with torch.ocl.fallback_mode("silent"):
        (x + x).sum()
    assert torch.ocl.fallback_stats() == {}


def test_silent_mode_does_not_warn(fallback_stats, recwarn):
    x = torch.arange(4).view(2, 2).to("ocl")  # int64 convolution: the CPU fallback
    with torch.ocl.fallback_mode("silent"):
        int_conv(x)
    assert not [w for w in recwarn if "torch_ocl" in str(w.message)]
    assert any(k.startswith(CONV_OP) for k in fallback_stats())


def test_no_opencl_platform(run_python, tmp_path):
    empty = tmp_path / "vendors"
    empty.mkdir()
    code = "import torch; import torch_ocl; print(torch.ocl.is_available()); print(torch.ocl.device_count())"
    proc = run_python(code, env={"OCL_ICD_VENDORS": str(empty), "OPENCL_VENDOR_PATH": str(empty)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines() == ["False", "0"], proc.stdout


def test_copy_between_partially_overlapping_views_raises_as_on_cpu():
    # upstream test_torch.py test_copy_mem_overlap
    d = torch.randn(18, device="ocl")
    with pytest.raises(RuntimeError, match="unsupported operation: some elements of the input tensor and the "
                                           "written-to tensor refer to a single memory location"):
        d[1:10].copy_(d[:9])
    d[:9].copy_(d[:9])  # full overlap copies, as on the CPU


def test_masked_fill_overlap_warning_and_error_as_on_cpu():
    # upstream test_torch.py test_masked_fill_mem_overlap
    x = torch.zeros(1, device="ocl").expand(4)
    mask = torch.tensor([True, False, True, False], device="ocl")
    with pytest.warns(UserWarning, match="Use of masked_fill_ on expanded tensors is deprecated"):
        x.masked_fill_(mask, 1.0)
    y = torch.zeros(6, dtype=torch.bool, device="ocl")
    with pytest.raises(RuntimeError, match="unsupported operation"):
        y[1:5].masked_fill_(y[:4], True)


@pytest.mark.parametrize("call", [lambda x: torch.sub(x, True), lambda x: x - True,
                                  lambda x: torch._foreach_sub([x], True), lambda x: torch.rsub(x, True)])
def test_subtracting_a_bool_scalar_raises_as_on_cpu(call):
    # The direct pointwise path skipped sub's meta check (upstream
    # test_foreach.py test_*_forward_mode_AD__foreach_sub)
    for device in ("cpu", "ocl"):
        with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor is not supported"):
            call(torch.randn(3, device=device))


@pytest.mark.parametrize("numel", [0, 3])
def test_complex_scalar_for_a_real_kernel_raises_as_the_cpu(numel):
    # The CPU converts the Scalar (scalar.to<T>()) before looking at the
    # elements: an empty tensor raises too (test_foreach's lerp with a
    # complex weight list where the complex weight meets an empty tensor).
    from cpu_reference import run_both
    a = torch.randn(numel, dtype=torch.float64)
    run_both(lambda a: torch.lerp(a, a, 3 + 4.5j), a, same_message=True)
    run_both(lambda a: torch._foreach_lerp([a, a], [a, a], [0.5, 3 + 4.5j]), a, same_message=True)
    run_both(lambda a: torch.lerp(a, a, 0.5 + 0j), a)  # no imaginary part: converts


def test_bool_addcmul_is_refused_as_on_cpu_and_cuda():
    # Neither the CPU's nor CUDA's addcmul kernel takes bool (test_ops' test_dtypes_addcmul).
    from cpu_reference import run_both
    b = torch.tensor([True, False])
    with pytest.raises(NotImplementedError):
        torch.addcmul(b.to("ocl"), b.to("ocl"), b.to("ocl"))
    run_both(torch.addcmul, b, b, b)  # the CPU's error type


@pytest.mark.parametrize(
    "call",
    [
        lambda x: torch.ceil(x),
        lambda x: x.floor_(),
        lambda x: torch.trunc(x, out=torch.empty_like(x)),
        lambda x: torch.sign(x),
        lambda x: torch.maximum(x, x),
        lambda x: torch.clamp_min(x, 0),
        lambda x: torch._foreach_ceil([x, x]),
        lambda x: torch.linalg.slogdet(x.real.to(torch.int64).view(2, 2)),
    ],
    ids=["ceil", "floor_", "trunc_out", "sign", "maximum", "clamp_min", "foreach_ceil", "slogdet_int"],
)
def test_a_structured_ops_own_errors_are_raised_on_the_device(fallback_stats, call):
    """An input the kernels do not take (complex for a real-only op) meets the op's
    meta checks before the fallback: the CPU's error, raised without a fallback call."""
    cpu = torch.tensor([1 + 2j, -3j, 0.5, 2], dtype=torch.complex64)
    with pytest.raises(Exception) as cpu_err:
        call(cpu)
    with pytest.raises(cpu_err.type, match=re.escape(str(cpu_err.value).split("\n")[0])):
        call(cpu.to("ocl"))
    assert not fallback_stats(), fallback_stats()


@pytest.mark.parametrize(
    "call",
    [
        lambda x: torch.erf(x), lambda x: x.clone().lgamma_(), lambda x: torch.round(x, out=torch.empty_like(x)),
        lambda x: torch.frac(x), lambda x: torch.digamma(x), lambda x: torch.bitwise_not(x),
        lambda x: torch.clamp_min(x, x), lambda x: torch.nn.functional.leaky_relu(x),
        lambda x: torch.nn.functional.mish(x), lambda x: torch._foreach_erfc([x, x]),
    ],
    ids=["erf", "lgamma_", "round_out", "frac", "digamma", "bitwise_not", "clamp_min_tensor", "leaky_relu", "mish",
         "foreach_erfc"],
)
def test_complex_inputs_of_real_only_rows_raise_on_the_device(fallback_stats, call):
    """Rows marked complex_refused (ATen's CPU and CUDA kernels take no complex):
    NotImplementedError "... not implemented for 'ComplexFloat'" as on the CPU,
    raised without a fallback call."""
    cpu = torch.tensor([1 + 2j, -3j], dtype=torch.complex64)
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        call(cpu)
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        call(cpu.to("ocl"))
    assert not fallback_stats(), fallback_stats()
