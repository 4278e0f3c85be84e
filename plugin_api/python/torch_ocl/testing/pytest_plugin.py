"""pytest plugin (``-p torch_ocl.testing.pytest_plugin``) that imports torch_ocl
before any test file, so that torch.testing._internal sees the ``ocl``
device when it is first imported (run_upstream uses it)."""

import torch_ocl  # noqa: F401
