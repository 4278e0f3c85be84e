# Owner(s): ["module: torch_ocl"]
"""A test file written the way PyTorch's own test/*.py files are: generic
device-type templates instantiated with instantiate_device_type_tests and
run by run_tests(). tests/python/test_run_upstream.py runs it through
``python -m torch_ocl.testing.run_upstream`` and checks the counts.
It is not part of the pytest suite in tests/python."""

import torch
from torch.testing._internal.common_device_type import (
    dtypes,
    instantiate_device_type_tests,
    onlyCUDA,
)
from torch.testing._internal.common_utils import TestCase, run_tests


class TestUpstreamStyle(TestCase):
    @dtypes(torch.float32, torch.int64)
    def test_add_matches_cpu(self, device, dtype):
        a = torch.arange(12, dtype=dtype).reshape(3, 4)
        b = torch.full((4,), 3, dtype=dtype)
        self.assertEqual((a.to(device) + b.to(device)).cpu(), a + b)

    def test_views_share_storage(self, device):
        x = torch.zeros(4, 4, device=device)
        x.t()[1].fill_(2)
        self.assertEqual(x[:, 1].cpu(), torch.full((4,), 2.0))
        self.assertTrue(x.t()._is_view())

    def test_device_of_results(self, device):
        y = torch.ones(3, device=device).sum()
        self.assertEqual(y.device, torch.device(device))

    @onlyCUDA
    def test_cuda_only(self, device):
        self.fail("must be skipped on ocl")

    def test_deliberately_failing_when_asked(self, device):
        import os
        if os.environ.get("TORCH_OCL_UPSTREAM_STYLE_FAIL") == "1":
            self.assertEqual(torch.ones(2, device=device).cpu(), torch.zeros(2))


class TestNotDeviceGeneric(TestCase):
    def test_cpu_only(self):
        self.assertEqual(torch.ones(2).sum().item(), 2.0)


instantiate_device_type_tests(TestUpstreamStyle, globals())

if __name__ == "__main__":
    run_tests()
