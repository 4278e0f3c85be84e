"""Bessel and Airy functions of torch.special (kernels/bessel_ops.cpp,
kernels/special_lib.cl) against PyTorch CPU.

Every test runs under fallback_mode('error'), so an op that is not native on
ocl raises instead of quietly running on the CPU. The kernels follow the CPU's
Cephes algorithms (ATen native/Math.h), so results are compared at
torch.testing's default float32/float64 tolerances on inputs that span every
approximation's range and switch points (0, 2, 2.09, 5, 8, 8.32, 103.9),
negatives, huge values, +-inf and NaN. Also: integer and bool inputs (which
promote to float32), odd shapes, out=, the OpInfo samples of each op, and the
CPU's errors (half / bfloat16 are not implemented on the CPU either).
"""

import math

import pytest
import torch
from torch.testing import assert_close

OPS = [
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "airy_ai",
]
FLOATS = [torch.float32, torch.float64]
INTS = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool]


# Every test of this file runs in strict mode: a missing native kernel raises.
pytestmark = pytest.mark.usefixtures("strict")


def fn(name):
    return getattr(torch.special, name)


def check(name, x, **kw):
    """The op on ocl equals the op on CPU for the CPU tensor x."""
    expected = fn(name)(x)
    actual = fn(name)(x.to("ocl"))
    assert actual.device.type == "ocl"
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    assert_close(actual.cpu(), expected, equal_nan=True, **kw)
    return actual


# The switch points of the approximations, either side of each, and the
# special values.
def edge_values():
    pts = [0.0, 1e-30, 1e-6, 1e-5, 0.5, 1.0, 2.0, 2.09, 5.0, 8.0, 8.3203353, 10.0, 30.0, 103.892, 500.0, 1e3]
    out = []
    for p in pts:
        for q in (p, math.nextafter(p, 0.0), math.nextafter(p, math.inf), p * (1 - 1e-4), p * (1 + 1e-4)):
            out += [q, -q]
    out += [-0.0, 1e5, -1e5, math.inf, -math.inf, math.nan]
    return out


def span(dtype):
    x = torch.cat([
        torch.tensor(edge_values(), dtype=torch.float64),
        torch.linspace(-12, 12, 2401, dtype=torch.float64),  # every switch point, step 0.01
        torch.logspace(-8, 3, 300, dtype=torch.float64),
        -torch.logspace(-8, 3, 300, dtype=torch.float64),
        torch.linspace(-1000, 1000, 997, dtype=torch.float64),
    ])
    return x.to(dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", OPS)
def test_values_span_every_range(name, dtype):
    check(name, span(dtype))


@pytest.mark.parametrize("name", OPS)
def test_special_values(name):
    # 0, -0, +-inf and NaN follow the CPU (inf for K at 0, NaN below the domain
    # of Y and K, NaN for Ai(+-inf), -inf for Y at 0).
    for dtype in FLOATS:
        x = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, -1.0], dtype=dtype)
        expected = fn(name)(x)
        actual = fn(name)(x.to("ocl")).cpu()
        assert torch.equal(actual.isnan(), expected.isnan())
        assert torch.equal(actual.isinf(), expected.isinf())
        assert_close(actual, expected, equal_nan=True)


@pytest.mark.parametrize("dtype", INTS, ids=str)
@pytest.mark.parametrize("name", OPS)
def test_integer_inputs_promote_to_float(name, dtype):
    if dtype == torch.bool:
        x = torch.tensor([True, False, True])
    else:
        lo = torch.iinfo(dtype).min
        hi = torch.iinfo(dtype).max
        x = torch.arange(max(lo, -300), min(hi, 300) + 1, 7).to(dtype)
        x = torch.cat([x, torch.tensor([lo, hi, 0, 1, 2, 5, 8], dtype=dtype)])
    y = check(name, x)
    assert y.dtype == torch.float32


@pytest.mark.parametrize("name", OPS)
def test_shapes(name):
    base = torch.randn(37, 29, dtype=torch.float64) * 6
    check(name, base.t())  # transposed
    check(name, base[::3, 1::2])  # sliced with steps
    check(name, torch.tensor(1.5))  # 0-dim
    check(name, torch.empty(0, 4))  # empty
    check(name, torch.randn(3, 1, 4).expand(3, 5, 4))  # zero strides
    check(name, torch.randn(100_003) * 20)  # large, float32


@pytest.mark.parametrize("name", OPS)
def test_out(name):
    x = torch.randn(6, 5, dtype=torch.float64) * 5
    expected = fn(name)(x)
    out = torch.full((6, 5), 7.0, dtype=torch.float64, device="ocl")
    r = fn(name)(x.to("ocl"), out=out)
    assert r is out
    assert_close(out.cpu(), expected, equal_nan=True)
    # into a transposed view
    out_t = torch.full((5, 6), 7.0, dtype=torch.float64, device="ocl").t()
    fn(name)(x.to("ocl"), out=out_t)
    assert_close(out_t.cpu(), expected, equal_nan=True)
    # a wider out dtype: computed in the input's dtype, stored as double (as the CPU)
    xf = x.float()
    out_d = torch.empty(0, dtype=torch.float64, device="ocl")  # resized
    fn(name)(xf.to("ocl"), out=out_d)
    assert out_d.shape == (6, 5)
    expected_d = fn(name)(xf, out=torch.empty(0, dtype=torch.float64))
    assert_close(out_d.cpu(), expected_d, equal_nan=True, rtol=1.3e-6, atol=1e-5)  # float32 results


def raises_like_cpu(f, *cpu_args, match=None):
    with pytest.raises(Exception) as cpu_err:
        f(*cpu_args)
    with pytest.raises(type(cpu_err.value)) as ocl_err:
        f(*[a.to("ocl") for a in cpu_args])
    if match is None:
        assert str(ocl_err.value) == str(cpu_err.value)
    else:
        assert match in str(cpu_err.value)
        assert match in str(ocl_err.value)


@pytest.mark.parametrize("name", OPS)
def test_errors(name):
    f = fn(name)
    x = torch.randn(4)
    # an out= dtype the float result cannot be cast to
    raises_like_cpu(lambda a, o: f(a, out=o), x, torch.empty(4, dtype=torch.int64))
    # half and bfloat16: not implemented, as on the CPU
    for dt, label in ((torch.float16, "Half"), (torch.bfloat16, "BFloat16")):
        raises_like_cpu(f, x.to(dt), match=f"not implemented for '{label}'")
    # no derivative: the result does not require grad on either device
    xr = x.clone().requires_grad_()
    assert not f(xr).requires_grad
    assert not f(xr.detach().to("ocl").requires_grad_()).requires_grad


@pytest.mark.parametrize("name", OPS[:1] + OPS[-1:])
def test_complex_raises_like_cpu_through_fallback(name):
    x = torch.randn(4, dtype=torch.complex64)
    with torch.ocl.fallback_mode("silent"):
        raises_like_cpu(fn(name), x, match="not implemented for 'ComplexFloat'")


# ---- PyTorch's own OpInfo samples, on ocl vs cpu ----
def _opinfo(name):
    from torch.testing._internal.common_methods_invocations import op_db

    return next(o for o in op_db if o.name == "special." + name and o.variant_test_name == "")


@pytest.mark.parametrize("dtype", FLOATS + [torch.int64, torch.uint8, torch.bool], ids=str)
@pytest.mark.parametrize("name", OPS)
def test_opinfo_samples(name, dtype):
    op = _opinfo(name)
    assert dtype in op.dtypes
    samples = op.reference_inputs("cpu", dtype) if dtype in FLOATS else op.sample_inputs("cpu", dtype)
    n = 0
    for s in samples:
        expected = op(s.input, *s.args, **s.kwargs)
        actual = op(s.input.to("ocl"), *s.args, **s.kwargs)
        assert actual.device.type == "ocl"
        assert_close(actual.cpu(), expected, equal_nan=True)
        n += 1
    assert n > 0
