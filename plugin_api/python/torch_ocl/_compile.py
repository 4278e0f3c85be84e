"""torch.compile on ocl.

The default backend, Inductor, generates OpenCL C kernels for ocl
(torch_ocl/_inductor.py). The backend is registered when
torch._inductor's codegen registry is first imported (a post-import hook),
so `import torch_ocl` does not pay for importing inductor; the code
generator itself is imported on first use (importing it while the registry
module initialises would be circular).

A second post-import hook tells Dynamo not to trace the device module
(torch.ocl: generators, RNG state, device selection), as it does not trace
torch.cuda: a compiled function calling torch.ocl.set_rng_state (OpInfo's
wrapper_set_seed, freeze_rng_state) runs it eagerly behind a graph break
instead of resuming inside no_dispatch() with fake tensors. A third one
makes the special functions the generator does not write (digamma, i0,
erfinv, the Bessel functions, ...) eager ocl calls inside compiled graphs.
A fourth one lets Dynamo trace nn.RNN/GRU/LSTM modules whose parameters
live on ocl (see _trace_rnn_modules_on_ocl).
"""

import importlib.abc
import importlib.util
import sys

_CODEGEN_REGISTRY = "torch._inductor.codegen.common"
_TRACE_RULES = "torch._dynamo.trace_rules"
_LOWERING = "torch._inductor.lowering"
_DYNAMO_BUILDER = "torch._dynamo.variables.builder"


def _real(name):
    from . import _inductor

    _inductor.register_device_op_overrides_once()
    return getattr(_inductor, name)


class _Lazy(type):
    # Inductor reads class attributes of the registered codegens before it
    # constructs them: both go to the real class, imported on first use.
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_real(cls._target), name)

    def __call__(cls, *args, **kwargs):
        return _real(cls._target)(*args, **kwargs)


class _OclScheduling(metaclass=_Lazy):
    _target = "OclScheduling"


class _OclWrapperCodegen(metaclass=_Lazy):
    _target = "OclWrapperCodegen"


def _codegen_version() -> str:
    """A hash of the code generator's source: part of Inductor's FX graph cache
    key (through the backend's custom pass, with the device profile), so an
    updated generator never reuses kernels an older one wrote."""
    import hashlib
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256()
    for name in ("_inductor.py", "_device_interface.py"):
        with open(os.path.join(here, name), "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def _register(module):
    if "ocl" not in getattr(module, "device_codegens", {}):
        from torch._inductor.custom_graph_pass import CustomGraphModulePass

        class _CodegenVersion(CustomGraphModulePass):
            def __call__(self, gm):
                pass

            def uuid(self):
                # The device's profile and fp64 shape the generated code (elements per
                # work item, generated or eager scans, scan carries): graphs cached
                # under another profile are not reused.
                import torch

                props = torch.ocl.get_device_properties(torch.ocl.current_device())
                return f"torch_ocl-codegen-{_codegen_version()}-{props.profile}-fp64={int(props.fp64)}"

        module.register_backend_for_device("ocl", _OclScheduling, _OclWrapperCodegen,
                                           device_custom_pass=_CodegenVersion())
        from torch._dynamo.device_interface import register_interface_for_device

        from ._device_interface import OclInterface

        register_interface_for_device("ocl", OclInterface)


def _skip_device_module(module):
    module.add("torch_ocl.device")


EAGER_WARNED: set = set()  # the ops _eager_special_functions_on_ocl warned about (once per process)


def _eager_special_functions_on_ocl(lowering):
    """Inductor lowers the special functions (digamma, polygamma, i0, erfinv,
    igamma, frexp, the Bessel and orthogonal-polynomial families, ...) to
    ops.<name> that the OpenCL generator does not write. On ocl tensors their
    lowering becomes a fallback kernel: the eager ocl op, called from the
    compiled graph (as Inductor's Triton backend does for the ones it lacks);
    on other devices Inductor's own lowering stays."""
    import warnings

    import torch
    from torch._inductor.codegen.common import OpOverrides, pointwise_overrides_data
    from torch.utils._pytree import tree_leaves

    from ._inductor import OclOverrides

    aten_names = {name: data.name for name, data in pointwise_overrides_data.items()}
    aten_names.update(erfinv="erfinv", frexp="frexp")
    written = set(vars(OclOverrides)) | set(vars(OpOverrides))

    def on_ocl(args, kwargs):
        for a in tree_leaves((args, kwargs)):
            get_device = getattr(a, "get_device", None)
            device = get_device() if callable(get_device) else None
            if isinstance(device, torch.device) and device.type == "ocl":
                return True
        return False

    for ops_name, aten_name in aten_names.items():
        if ops_name in written:
            continue
        for namespace in (torch.ops.aten, torch.ops.prims):
            packet = getattr(namespace, aten_name, None)
            if packet is None:
                continue
            for overload in packet.overloads():
                op = getattr(packet, overload)
                inductors = lowering.lowerings.get(op)
                if inductors is None:
                    continue
                eager = lowering.fallback_handler(op, add_to_fallback_set=False)

                def lower(*args, _op=op, _inductors=inductors, _eager=eager, **kwargs):
                    if not on_ocl(args, kwargs):
                        return _inductors(*args, **kwargs)
                    if _op not in EAGER_WARNED:
                        EAGER_WARNED.add(_op)
                        warnings.warn(f"torch.compile on ocl: {_op} runs as its eager ocl kernel inside the "
                                      "compiled graph (the OpenCL code generator has no fused form of it)")
                    return _eager(*args, **kwargs)

                lowering.lowerings[op] = lower


def _trace_rnn_modules_on_ocl(builder):
    """Dynamo graph-breaks at every nn.RNN/GRU/LSTM unless
    torch._dynamo.config.allow_rnn is set, on every device: CUDA runs the
    module as one cuDNN call either way. On ocl the eager module is a GEMM
    plus a few small kernels per cell, time step and direction, so a break
    there leaves most of an RNN model's launches unfused (compiled LSTM
    classifier 1.06x eager). For modules whose parameters are on ocl, Dynamo
    traces them (allow_rnn for that module only): the cells unroll into the
    graph and each fuses into one generated kernel. Modules on other devices
    keep Dynamo's default; TORCH_OCL_COMPILE_RNN=0 restores the break on ocl
    too."""
    import os

    import torch
    from torch._dynamo import config

    builder_class = getattr(builder, "VariableBuilder", None)
    wrap_module = getattr(builder_class, "wrap_module", None)
    if wrap_module is None:  # another Dynamo: keep its behaviour
        return

    def on_ocl(module):
        return any(p.device.type == "ocl" for p in module.parameters(recurse=False))

    def wrap_ocl_rnn(self, value):
        if (isinstance(value, torch.nn.RNNBase) and not config.allow_rnn and on_ocl(value)
                and os.environ.get("TORCH_OCL_COMPILE_RNN", "1") != "0"):
            with config.patch(allow_rnn=True):
                return wrap_module(self, value)
        return wrap_module(self, value)

    builder_class.wrap_module = wrap_ocl_rnn


_ON_IMPORT = {_CODEGEN_REGISTRY: _register, _TRACE_RULES: _skip_device_module,
              _LOWERING: _eager_special_functions_on_ocl, _DYNAMO_BUILDER: _trace_rnn_modules_on_ocl}


class _Hook(importlib.abc.MetaPathFinder):
    """Runs _ON_IMPORT[name](module) right after `name` is first imported."""

    def __init__(self):
        self.pending = {n: f for n, f in _ON_IMPORT.items() if n not in sys.modules}

    def find_spec(self, name, path, target=None):
        if name not in self.pending:
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
            self.pending.pop(name)(module)
            if not self.pending and self in sys.meta_path:
                sys.meta_path.remove(self)

        loader.exec_module = exec_and_register
        return spec


def install():
    for name, on_import in _ON_IMPORT.items():
        if name in sys.modules:
            on_import(sys.modules[name])
    hook = _Hook()
    if hook.pending:
        sys.meta_path.insert(0, hook)
