"""Foundation tests on PyTorch's device-generic machinery.

Written as PyTorch's own test files are: generic templates taking `device`
(and `dtype`), instantiated for the ocl device by
instantiate_device_type_tests (class TestOclFoundationOCL, tests
``test_..._ocl_<dtype>``), with TestCase.assertEqual comparing device results
with CPU references. torch_ocl is imported first (conftest.py), so
PrivateUse1 is already renamed to "ocl" and torch.ocl registered when
torch.testing._internal is imported.
"""

import torch_ocl  # noqa: F401  (before torch.testing._internal)

import torch
from torch.testing._internal.common_device_type import (
    PrivateUse1TestBase,
    deviceCountAtLeast,
    dtypes,
    get_device_type_test_bases,
    instantiate_device_type_tests,
    onlyCUDA,
)
from torch.testing._internal.common_utils import DeterministicGuard, TestCase

ALL_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
              torch.int16, torch.int8, torch.uint8, torch.bool, torch.complex64, torch.complex128)
REAL_DTYPES = ALL_DTYPES[:10]


def make(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_complex:
        return torch.randn(shape, generator=g, dtype=dtype)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g).to(dtype)
    return torch.randint(0, 100, shape, generator=g).to(dtype)


class TestOclFoundation(TestCase):
    # -- copies -------------------------------------------------------------
    @dtypes(*ALL_DTYPES)
    def test_round_trip_keeps_values_and_layout(self, device, dtype):
        for cpu in (make((5, 7), dtype), make((5, 7), dtype).t(), make((4, 6, 3), dtype)[:, ::2, 1:],
                    make((), dtype), make((0, 3), dtype), make((3, 1), dtype).expand(3, 4)):
            d = cpu.to(device)
            self.assertEqual(d.device, torch.device(device))
            self.assertEqual(d.shape, cpu.shape)
            self.assertEqual(d.cpu(), cpu, atol=0, rtol=0)

    @dtypes(*REAL_DTYPES)
    def test_device_casts_match_cpu_casts(self, device, dtype):
        src = make((6, 5), torch.float32) * 50
        for target in REAL_DTYPES:
            expected = src.to(dtype).to(target)
            actual = src.to(dtype).to(device).to(target)
            self.assertEqual(actual.dtype, target)
            self.assertEqual(actual.cpu(), expected, atol=0, rtol=0)

    @dtypes(torch.complex64, torch.complex128)
    def test_complex_conj_and_neg_bits_survive_copies(self, device, dtype):
        c = make((3, 4), dtype)
        d = c.to(device)
        self.assertEqual(d.conj().cpu(), c.conj())
        self.assertEqual(d.conj().imag.cpu(), c.conj().imag)
        self.assertEqual(d.conj().clone().resolve_conj().cpu(), c.conj().resolve_conj())
        dst = torch.zeros_like(d)
        dst.conj().copy_(d)
        self.assertEqual(dst.cpu(), c.conj())
        self.assertEqual(d.real.contiguous().cpu(), c.real)

    # -- views --------------------------------------------------------------
    @dtypes(torch.float32, torch.int64)
    def test_writes_through_views_reach_the_base(self, device, dtype):
        base_cpu = torch.zeros(4, 6, dtype=dtype)
        base = base_cpu.to(device)
        for b in (base, base_cpu):
            b.t()[2].fill_(3)
            b[1:3, ::2].add_(torch.ones((), dtype=dtype, device=b.device))
            b.view(24)[5:8].zero_()
            b.unfold(1, 2, 2)[..., 0].mul_(2)
        self.assertEqual(base.cpu(), base_cpu, atol=0, rtol=0)
        self.assertTrue(base.t()._is_view())
        self.assertEqual(base.t().data_ptr(), base.data_ptr())

    def test_views_report_aliasing_like_cuda(self, device):
        x = torch.zeros(10, device=device)
        with torch.ocl.fallback_mode("error"):  # is_set_to is native: a fallback would compare CPU copies
            self.assertTrue(x[2:].is_set_to(x[2:]))
            self.assertFalse(x[2:].is_set_to(x[3:]))
        self.assertEqual(x[2:].data_ptr() - x.data_ptr(), 2 * x.element_size())
        with self.assertRaisesRegex(RuntimeError, "unsupported operation|overlap"):
            torch.add(x[:5], 1, out=x[1:6])  # partial overlap of input and output

    # -- out= and in-place ---------------------------------------------------
    @dtypes(torch.float32, torch.int32)
    def test_out_resizes_and_checks_dtype(self, device, dtype):
        a, b = make((3, 4), dtype), make((3, 4), dtype, seed=1)
        out = torch.empty(0, dtype=dtype, device=device)
        torch.add(a.to(device), b.to(device), out=out)
        self.assertEqual(out.cpu(), a + b)
        with self.assertRaisesRegex(RuntimeError, "can't be cast to the desired output type Bool"):
            torch.add(a.to(device), b.to(device), out=torch.empty(3, 4, dtype=torch.bool, device=device))

    @dtypes(torch.float32)
    def test_out_into_a_non_contiguous_view(self, device, dtype):
        a, b = make((4, 3), dtype), make((4, 3), dtype, seed=1)
        out_cpu = torch.zeros(3, 4, dtype=dtype)
        out = out_cpu.to(device)
        torch.mul(a.to(device), b.to(device), out=out.t())
        torch.mul(a, b, out=out_cpu.t())
        self.assertEqual(out.cpu(), out_cpu)

    @dtypes(torch.float32)
    def test_fallback_op_writes_into_device_views(self, device, dtype):
        # acos has no native kernel: the CPU fallback must write back into
        # the strided device view, in-place and through out=.
        x_cpu = make((4, 6), dtype).clamp(-0.9, 0.9)
        x = x_cpu.to(device)
        with torch.ocl.fallback_mode("silent"):
            x[:, 1::2].acos_()
            out = torch.zeros(6, 4, dtype=dtype, device=device)
            torch.asin(x_cpu.to(device), out=out.t())
        x_cpu[:, 1::2].acos_()
        self.assertEqual(x.cpu(), x_cpu)
        self.assertEqual(out.t().cpu(), torch.asin(make((4, 6), dtype).clamp(-0.9, 0.9)))

    # -- scalars and empty tensors -------------------------------------------
    @dtypes(torch.float32, torch.int64, torch.bool)
    def test_zero_dim_and_python_scalars(self, device, dtype):
        s = make((), dtype)
        d = s.to(device)
        self.assertEqual(d.item(), s.item())
        self.assertEqual((d + d).cpu(), s + s)
        self.assertEqual((torch.ones(3, dtype=dtype, device=device) * d).cpu(), torch.ones(3, dtype=dtype) * s)

    @dtypes(torch.float32, torch.int64)
    def test_empty_tensors(self, device, dtype):
        e = torch.empty(0, 3, dtype=dtype, device=device)
        self.assertEqual((e + 1).shape, (0, 3))
        self.assertEqual(e.sum(0).cpu(), torch.zeros(3, dtype=dtype))
        self.assertEqual(e.t().contiguous().shape, (3, 0))

    # -- deterministic mode (as CUDA) -------------------------------------------
    @dtypes(torch.float32, torch.float16, torch.complex64, torch.int32, torch.uint8, torch.bool)
    def test_deterministic_mode_fills_new_memory(self, device, dtype):
        def expected(n):
            if dtype.is_floating_point or dtype.is_complex:
                return torch.full((n,), float("nan"), dtype=dtype)
            return torch.full((n,), True if dtype == torch.bool else torch.iinfo(dtype).max, dtype=dtype)

        with DeterministicGuard(True, fill_uninitialized_memory=True):
            self.assertEqual(torch.empty(5, dtype=dtype, device=device).cpu(), expected(5), equal_nan=True)
            self.assertEqual(torch.empty_strided((2, 3), (1, 2), dtype=dtype, device=device).cpu().flatten(),
                             expected(6), equal_nan=True)
            self.assertEqual(torch.empty_like(torch.zeros(4, dtype=dtype, device=device)).cpu(), expected(4),
                             equal_nan=True)
            x = torch.zeros(2, dtype=dtype, device=device)
            x.resize_(6)  # the old elements keep their values; the new ones are filled
            self.assertEqual(x[:2].cpu(), torch.zeros(2, dtype=dtype))
            self.assertEqual(x[2:].cpu(), expected(4), equal_nan=True)
        with DeterministicGuard(True, fill_uninitialized_memory=False):
            x = torch.zeros(3, dtype=dtype, device=device)
            x.resize_(1)
            x.resize_(3)  # no fill: the storage did not grow
            self.assertEqual(x.cpu(), torch.zeros(3, dtype=dtype))

    # -- devices ---------------------------------------------------------------
    @deviceCountAtLeast(1)
    def test_device_list_starts_with_the_current_device(self, devices):
        self.assertEqual(devices[0], f"ocl:{torch.ocl.current_device()}")
        self.assertEqual(len(devices), torch.ocl.device_count())

    @onlyCUDA
    def test_only_cuda_is_skipped_here(self, device):
        self.fail("an @onlyCUDA test ran on ocl")


instantiate_device_type_tests(TestOclFoundation, globals(), only_for="privateuse1")


class TestMachinerySetUp(TestCase):
    """PrivateUse1 is set up the way PyTorch's device-generic tests expect."""

    def test_privateuse1_test_base_is_active(self):
        self.assertIn(PrivateUse1TestBase, get_device_type_test_bases())
        self.assertEqual(torch._C._get_privateuse1_backend_name(), "ocl")

    def test_the_instantiated_class_targets_ocl(self):
        cls = globals()["TestOclFoundationOCL"] if "TestOclFoundationOCL" in globals() else \
            globals()["TestOclFoundationPRIVATEUSE1"]
        names = [n for n in dir(cls) if n.startswith("test_")]
        self.assertIn("test_round_trip_keeps_values_and_layout_ocl_float32", names)
        self.assertIn("test_empty_tensors_ocl_int64", names)
        self.assertNotIn("TestOclFoundationCPU", globals())
