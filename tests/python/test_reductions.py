"""The generic reduction engine (kernels/reduce_engine.{cpp,cl}) against
PyTorch CPU, op by op over layouts chosen to reach each of its kernels:

- short reductions (<= 16 elements per result): one item per result;
- strided reductions whose first kept dim is contiguous (sum over dim 0 of a
  row-major matrix): on CPU devices 64 neighbouring results per item, with
  kept sizes that are not a multiple of it, or, for kept rows of 64 or more
  over 16 or more reduced rows, chunks of rows folded row by row into partial
  rows and combined in a second pass (one and several blocks of results);
- many contiguous rows: one item per row (CPU devices, blocks of LANES with
  a tail) or one work group per row (GPUs);
- few long rows: work groups per row chunk and a second pass over partials;
- several reduced dims, transposed and sliced inputs.

Argmax/argmin and max/min.dim inputs hold ties (the first index wins, as on
CPU) and NaNs (a NaN wins). Everything runs under fallback_mode('error').
"""

import pytest
import torch
from torch.testing import assert_close

from dtype_lists import dname

LAYOUTS = {
    # name: (shape, dim, view)   view: None, "t" (transpose of the last two), "step" (every 2nd column)
    "short_rows": ((300, 7), 1, None),
    "dim0_lanes": ((37, 13), 0, None),
    "dim0_lanes_wide": ((65, 1029), 0, None),   # CPU devices: row by row into partial rows, 4 chunks
    "dim0_rows_chunks": ((300, 100), 0, None),  # row by row, 8 chunks of rows
    "rows_blocks": ((5, 40, 70), 1, None),      # row by row, 5 blocks of 70 results
    "middle_dim": ((6, 41, 19), 1, None),
    "many_rows": ((100, 37), 1, None),
    "many_long_rows": ((70, 1003), 1, None),
    "few_long_rows": ((3, 5003), 1, None),
    "one_result": ((300_007,), 0, None),
    "two_dims": ((9, 17, 23), (0, 2), None),
    "all_dims": ((9, 17, 23), None, None),
    "transposed": ((50, 33), 1, "t"),
    "transposed_dim0": ((50, 33), 0, "t"),
    "stepped": ((40, 70), 1, "step"),
}

# One op per accumulator kind (each (op, dtype, kernel) is a program to
# compile, so the list stays short): ACC (sum), T (amax), Welford with two
# outputs (std_mean), MinMax (aminmax), ACC with a parameter (vector_norm).
FLOAT_OPS = {
    "sum": lambda x, d: x.sum(d) if d is not None else x.sum(),
    "amax": lambda x, d: x.amax(d) if d is not None else x.amax(),
    "std_mean": lambda x, d: torch.std_mean(x, d) if d is not None else torch.std_mean(x),
    "aminmax": lambda x, d: torch.aminmax(x, dim=d) if isinstance(d, int) else torch.aminmax(x),
    "norm3": lambda x, d: torch.linalg.vector_norm(x, 3, d),
}
# ValueIndex accumulators, one and two outputs.
INDEX_OPS = {
    "argmax": lambda x, d: x.argmax(d) if isinstance(d, int) else x.argmax(),
    "min_dim": lambda x, d: x.min(d) if isinstance(d, int) else x.min(),
}
INT_OPS = {
    "sum": FLOAT_OPS["sum"],
    "prod": lambda x, d: x.prod(d) if isinstance(d, int) else x.prod(),
    "all": lambda x, d: x.all(d) if d is not None else x.all(),
}


def _input(name, dtype, ties=False):
    shape, dim, view = LAYOUTS[name]
    if ties:  # few distinct values: many ties for arg reductions
        x = torch.randint(-3, 4, shape).to(dtype)
    elif dtype.is_floating_point:
        x = torch.randn(shape, dtype=torch.float64).to(dtype)
    elif dtype == torch.bool:
        x = torch.rand(shape) < 0.8
    else:
        x = torch.randint(0 if dtype == torch.uint8 else -2, 3, shape, dtype=dtype)
    if view == "t":
        x = x.transpose(-1, -2)
    elif view == "step":
        x = x[:, ::2]
    return x, dim


def _compare(fn, x, dim, **tol):
    expected = fn(x, dim)
    with torch.ocl.fallback_mode("error"):
        got = fn(x.to("ocl"), dim)
    if not isinstance(expected, tuple):
        expected, got = (expected,), (got,)
    for e, g in zip(expected, got):
        assert g.device.type == "ocl"
        assert_close(g.cpu(), e, equal_nan=True, **tol)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("op", list(FLOAT_OPS))
def test_float_reductions(op, layout):
    x, dim = _input(layout, torch.float32)
    _compare(FLOAT_OPS[op], x, dim, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("op", ["sum", "std_mean"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dname)
def test_half_reductions_accumulate_in_float(op, layout, dtype):
    # The CPU also accumulates half types in float; results differ by rounding only.
    x, dim = _input(layout, dtype)
    _compare(FLOAT_OPS[op], x, dim, **({"rtol": 1e-2, "atol": 1e-2}))


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("op", list(INDEX_OPS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64], ids=dname)
def test_index_reductions_first_index_wins(op, layout, dtype):
    x, dim = _input(layout, dtype, ties=True)
    _compare(INDEX_OPS[op], x, dim)


@pytest.mark.parametrize("layout", ["dim0_lanes", "many_rows", "few_long_rows", "one_result", "transposed"])
@pytest.mark.parametrize("op", ["argmax", "min_dim", "amax", "sum"])
def test_nan_wins(op, layout):
    x, dim = _input(layout, torch.float32)
    flat = x.view(-1) if x.is_contiguous() else None
    if flat is None:
        x = x.contiguous()
        flat = x.view(-1)
    flat[:: max(1, flat.numel() // 7)] = float("nan")  # some results see a NaN, others none
    fn = {**FLOAT_OPS, **INDEX_OPS}[op]
    _compare(fn, x, dim)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("op", list(INT_OPS))
@pytest.mark.parametrize("dtype", [torch.int32, torch.bool], ids=dname)
def test_integer_reductions(op, layout, dtype):
    x, dim = _input(layout, dtype)
    _compare(INT_OPS[op], x, dim)


@pytest.mark.parametrize("layout", ["dim0_lanes", "many_rows", "few_long_rows", "two_dims"])
def test_gradients(layout):
    x, dim = _input(layout, torch.float64)
    logsumexp = lambda x, d: torch.logsumexp(x, d)  # noqa: E731
    for fn in (FLOAT_OPS["sum"], FLOAT_OPS["norm3"], logsumexp):
        c = x.clone().requires_grad_()
        o = x.to("ocl").requires_grad_()
        fn(c, dim).sum().backward()
        with torch.ocl.fallback_mode("error"):
            fn(o, dim).sum().backward()
        assert_close(o.grad.cpu(), c.grad)


# Every kernel path in float32; every dtype's bit conversion on two layouts
# (each (dtype, path) is a program to compile: CI time).
HASH_CASES = [(layout, torch.float32) for layout in ["short_rows", "dim0_lanes", "few_long_rows", "one_result",
                                                      "two_dims", "all_dims", "transposed", "stepped"]] + [
    (layout, dtype) for dtype in [torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8,
                                  torch.int16, torch.int32, torch.int64, torch.bool]
    for layout in ["one_result", "transposed"]]


@pytest.mark.parametrize("layout,dtype", HASH_CASES, ids=lambda v: dname(v) if isinstance(v, torch.dtype) else v)
def test_hash_tensor(layout, dtype):
    # xor of each element's 64 bits (floats widened to double, integers
    # sign-extended) into uint64: exact, and sensitive to every bit.
    x, dim = _input(layout, dtype)
    if dtype.is_floating_point:
        x = x * 1000
        x[..., :5] = torch.tensor([float("nan"), float("inf"), -0.0, 0.0, -float("inf")])  # every last dim has >= 7
    elif dtype not in (torch.bool, torch.uint8):
        x = x * 37
    hash_fn = lambda x, d: torch.hash_tensor(x, d) if d is not None else torch.hash_tensor(x)  # noqa: E731
    _compare(hash_fn, x, dim, rtol=0, atol=0)
    _compare(lambda x, d: torch.hash_tensor(x, 0, keepdim=True), x, dim, rtol=0, atol=0)


def test_hash_tensor_out_and_errors():
    x = torch.randn(6, 7)
    out = torch.empty(7, dtype=torch.uint64, device="ocl")
    with torch.ocl.fallback_mode("error"):
        torch.hash_tensor(x.to("ocl"), 0, out=out)
    assert torch.equal(out.cpu(), torch.hash_tensor(x, 0))
    for bad in (lambda t: torch.hash_tensor(t, mode=1), lambda t: torch.hash_tensor(t.to(torch.complex64))):
        with pytest.raises(Exception) as cpu:
            bad(x)
        with pytest.raises(Exception) as ocl, torch.ocl.fallback_mode("silent"):  # complex: the CPU's error
            bad(x.to("ocl"))
        assert type(ocl.value) is type(cpu.value)
        assert str(ocl.value).replace("ocl", "cpu") == str(cpu.value).replace("ocl", "cpu")


@pytest.mark.parametrize("case", ["lanes_many_items", "rows_many_blocks"])
def test_many_items_of_cpu_layouts(case):
    # Kept dims that cannot coalesce (the last dim sliced on the device; a
    # copy to the device would make it contiguous): 66 000 items of 2 results
    # each (more than the 64K one-item work groups a launch may have), or 5000
    # blocks of 64 results folded row by row.
    full = torch.randn(17, 66_000, 3) if case == "lanes_many_items" else torch.randn(17, 5000, 65)
    keep = 2 if case == "lanes_many_items" else 64
    with torch.ocl.fallback_mode("error"):
        got = full.to("ocl")[:, :, :keep].sum(0)
    assert_close(got.cpu(), full[:, :, :keep].sum(0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=dname)
def test_real_only_reductions_raise_on_complex_like_cpu(dtype):
    # aminmax's meta (unlike max's) lets complex through to the kernel: the
    # CPU raises NotImplementedError there, and so must ocl (it failed to
    # build a program instead).
    for shape, kwargs in (((), {}), ((3, 4), {"dim": 1}), ((0, 4), {"dim": 1})):
        x = torch.ones(shape, dtype=dtype)
        with pytest.raises(NotImplementedError, match="not implemented for"):
            torch.aminmax(x, **kwargs)
        c10_name = {torch.complex64: "ComplexFloat", torch.complex128: "ComplexDouble"}[dtype]
        with pytest.raises(NotImplementedError, match=f"\"aminmax\" not implemented for '{c10_name}'"), \
                torch.ocl.fallback_mode("error"):
            torch.aminmax(x.to("ocl"), **kwargs)


def test_mean_refuses_an_integral_out():
    # mean's meta takes the out= tensor's dtype; CUDA's kernel has no integral
    # mean, so an unsafe float -> long out= raises instead of truncating
    x = torch.randn(3, 4, device="ocl")
    with pytest.raises(NotImplementedError, match="\"mean\" not implemented for 'Long'"):
        torch.mean(x, 1, out=torch.empty(3, dtype=torch.long, device="ocl"))
    out = torch.empty(3, dtype=torch.float64, device="ocl")
    torch.testing.assert_close(torch.mean(x, 1, out=out).cpu(), x.cpu().double().mean(1))


def test_nansum_refuses_an_integral_out_of_a_float_input():
    x = torch.randn(3, 4, device="ocl")
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        torch.nansum(x, 1, out=torch.empty(3, dtype=torch.long, device="ocl"))
    ints = torch.arange(6, device="ocl").view(2, 3)
    assert torch.nansum(ints, 1).tolist() == [3, 12]  # integer inputs: sum


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_segment_reduce_forward_and_backward(strict, reduce, dtype):
    # ATen's segment_reduce over the device's stubs: lengths and offsets, an
    # inner dim, empty segments, initial, NaN, ties (max / min share the
    # gradient as the CPU does), a zero in a product
    g = torch.Generator().manual_seed(0)
    data = torch.randn(2, 9, 3, generator=g, dtype=dtype).round()  # rounded: ties
    data[0, 4, 1] = float("nan")
    data[1, 2, 0] = 0
    lengths = torch.tensor([[3, 0, 4, 2], [1, 5, 0, 3]])
    offsets = torch.cat([torch.zeros(2, 1, dtype=torch.long), lengths.cumsum(1)], 1)
    for kw in (dict(lengths=lengths), dict(offsets=offsets.int()), dict(lengths=lengths, initial=0.5)):
        def f(x, kw=kw):
            dev = {k: (v.to(x.device) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}
            return torch.segment_reduce(x, reduce, axis=1, unsafe=True, **dev)
        x_cpu = data.clone().requires_grad_()
        x_dev = data.to("ocl").requires_grad_()
        out_cpu, out_dev = f(x_cpu), f(x_dev)
        torch.testing.assert_close(out_dev.cpu(), out_cpu, equal_nan=True)
        w = torch.randn(out_cpu.shape, generator=g, dtype=dtype)
        (out_cpu.nan_to_num() * w).sum().backward()
        (out_dev.nan_to_num() * w.to("ocl")).sum().backward()
        torch.testing.assert_close(x_dev.grad.cpu(), x_cpu.grad, equal_nan=True)


def test_segment_reduce_checks_like_the_cpu():
    data = torch.randn(5, device="ocl")
    with pytest.raises(RuntimeError, match="sum"):  # lengths must sum to the data's size (unsafe=False)
        torch.segment_reduce(data, "sum", lengths=torch.tensor([2, 2], device="ocl"))
    with pytest.raises(NotImplementedError, match="Long"):
        torch.segment_reduce(data.long(), "sum", lengths=torch.tensor([2, 3], device="ocl"))
