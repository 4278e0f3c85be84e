"""torch.compile on ocl.

backend="aot_eager" (or "eager") works: the captured graph runs on
torch_ocl's kernels. The default backend, inductor, generates Triton or C++
kernels and has no OpenCL code generator; this module makes it say so
instead of "Unsupported device type: ocl". The registration happens when
torch._inductor's codegen registry is first imported (a post-import hook),
so `import torch_ocl` does not pay for importing inductor.
"""

import importlib.abc
import importlib.util
import sys

_TARGET = "torch._inductor.codegen.common"
MESSAGE = (
    "torch.compile's default backend (inductor) cannot compile for the ocl device: it generates "
    "Triton or C++ kernels and torch_ocl provides no OpenCL code generator for it. Use "
    "torch.compile(model, backend='aot_eager') (or backend='eager'): the captured graph then runs on "
    "torch_ocl's own kernels."
)


class _Refuse(type):
    # Inductor reads class attributes of the registered codegens before it
    # constructs them: both raise the message.
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise RuntimeError(MESSAGE)

    def __call__(cls, *args, **kwargs):
        raise RuntimeError(MESSAGE)


class _no_inductor(metaclass=_Refuse):
    pass


def _register(module):
    if "ocl" not in getattr(module, "device_codegens", {}):
        module.register_backend_for_device("ocl", _no_inductor, _no_inductor)


class _Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != _TARGET:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        exec_module = loader.exec_module

        def exec_and_register(module):
            exec_module(module)
            _register(module)
            if self in sys.meta_path:
                sys.meta_path.remove(self)

        loader.exec_module = exec_and_register
        return spec


def install():
    if _TARGET in sys.modules:
        _register(sys.modules[_TARGET])
    else:
        sys.meta_path.insert(0, _Hook())
