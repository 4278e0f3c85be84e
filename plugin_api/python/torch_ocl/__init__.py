"""torch_ocl: PyTorch on OpenCL devices, as the ``ocl`` device.

``import torch_ocl`` (or PyTorch's backend autoload) registers the device:
``torch.device("ocl")``, ``tensor.to("ocl")``, ``tensor.ocl()``,
``module.ocl()`` and the device module ``torch.ocl``.
"""

__version__ = "0.1.0"


def _autoload():
    """Entry point of the ``torch.backends`` group (run by ``import torch``).

    Importing this package does the registration; when ``import torch_ocl``
    itself triggers ``import torch``, torch calls this while the package is
    still being imported, and the import finishes the work afterwards.
    """


import torch  # noqa: E402

from . import _C  # loads libtorch_ocl.so: dispatcher registrations, hooks, allocator
import atexit as _atexit  # noqa: E402

# (atexit runs its handlers last-registered first.) CLBlast's programs are
# released last, while the OpenCL implementation is whole: released by
# CLBlast's static destructor, after the implementation's own teardown, they
# corrupt the heap on oclgrind.
_atexit.register(_C._clear_blas_programs)
# Launches a stream still holds (batched submission) run and finish while the
# process is whole: started by a C exit handler they could need a kernel
# compiled after LLVM's static destructors ran.
_atexit.register(_C._finish_held_launches)
# Likewise the kernel cache's background binary writer (PoCL) stops here: the
# write in progress finishes, queued ones are dropped (the next process
# queues them again).
_atexit.register(_C.stop_program_cache_writes)
_C.enable_background_cache_writes()

torch.utils.rename_privateuse1_backend("ocl")

from . import device as _device_module  # noqa: E402

torch._register_device_module("ocl", _device_module)
from .storage_classes import install as _install_storage_classes  # noqa: E402

_install_storage_classes(_device_module)
torch.utils.generate_methods_for_privateuse1_backend(
    for_tensor=True, for_module=True, for_packed_sequence=True, for_storage=True
)

from ._printing import install as _install_printing  # noqa: E402

_install_printing()

from .device import *  # noqa: E402,F401,F403
from .kernels import Kernel, kernel  # noqa: E402,F401
from ._compile import install as _install_compile_hook  # noqa: E402

_install_compile_hook()

if torch.distributed.is_available():  # torch builds without distributed lack the base classes
    from . import distributed  # noqa: E402  (the "ocl_gloo" torch.distributed backend)

    distributed.register()

__all__ = _device_module.__all__ + ["Kernel", "kernel", "profiler"]


def __getattr__(name):
    if name == "profiler":  # imported on first use: it pulls in torch.profiler
        from . import profiler

        return profiler
    raise AttributeError(f"module 'torch_ocl' has no attribute {name!r}")
