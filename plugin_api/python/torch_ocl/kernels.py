"""User OpenCL kernels on ocl tensors.

``torch_ocl.Kernel(source, name)`` is a kernel you launch yourself;
``torch_ocl.kernel(source, name, outputs=...)`` turns it into a PyTorch
operator (a ``torch.library`` custom op) that allocates its outputs, works
under ``torch.compile`` (a fake implementation computes output shapes) and
under autograd when given a backward.

Both build through torch_ocl's program cache (compiled once per device, the
binary kept on disk; ``TORCH_OCL_LOG=compile`` shows the build).
"""

import hashlib
import re

import torch

from . import _C

__all__ = ["Kernel", "kernel"]

_SCALAR_CODES = {
    "char": "i8", "uchar": "u8", "unsigned char": "u8", "short": "i16", "ushort": "u16",
    "unsigned short": "u16", "int": "i32", "uint": "u32", "unsigned int": "u32", "unsigned": "u32",
    "long": "i64", "ulong": "u64", "unsigned long": "u64", "float": "f32", "double": "f64",
}
_QUALIFIERS = {"const", "__const", "__global", "global", "__constant", "constant", "restrict", "__restrict",
               "volatile", "__read_only", "__write_only"}


class _Param:
    def __init__(self, text):
        text = " ".join(text.split())
        m = re.match(r"^(.*?)([A-Za-z_]\w*)\s*$", text)
        if not m:
            raise ValueError(f"cannot parse kernel parameter {text!r}")
        decl, self.name = m.group(1).strip(), m.group(2)
        self.pointer = "*" in decl
        self.const = bool(re.search(r"\b(const|__const|__constant|constant)\b", decl))
        words = [w for w in decl.replace("*", " ").split() if w not in _QUALIFIERS]
        self.ctype = " ".join(words)
        if not self.pointer and self.ctype not in _SCALAR_CODES:
            raise ValueError(f"kernel parameter {text!r}: scalar type {self.ctype!r} is not supported "
                             f"(use one of {sorted(set(_SCALAR_CODES))})")
        if "__local" in decl.split() or "local" in decl.split():
            raise ValueError(f"kernel parameter {text!r}: __local parameters are not supported")

    @property
    def schema_type(self):
        if self.pointer:
            return "Tensor"
        return "float" if self.ctype in ("float", "double") else "int"


def _parse(source, name):
    source_nc = re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)
    m = re.search(r"(?:__kernel|\bkernel)\s+void\s+" + re.escape(name) + r"\s*\(([^)]*)\)", source_nc)
    if not m:
        raise ValueError(f"no '__kernel void {name}(...)' in the OpenCL source")
    body = m.group(1).strip()
    return [_Param(p) for p in body.split(",")] if body and body != "void" else []


def _grid(size):
    if isinstance(size, int):
        return [size]
    size = [int(s) for s in size]
    if not 1 <= len(size) <= 3:
        raise ValueError(f"a global size has 1 to 3 dimensions, got {len(size)}")
    return size


class Kernel:
    """An OpenCL kernel from `source`, launched with
    ``k(global_size, *args, local_size=None)``.

    Arguments follow the kernel's parameters: an ocl tensor (contiguous) for
    each ``__global`` pointer, a Python number for each scalar (converted to
    the parameter's C type: ``int``, ``long``, ``float``, ...). The launch is
    asynchronous, on the current ocl stream."""

    def __init__(self, source: str, name: str):
        self.source, self.name = source, name
        self.params = _parse(source, name)
        self._kernel = _C.UserKernel(source, name)

    def __call__(self, global_size, *args, local_size=None):
        if len(args) != len(self.params):
            raise TypeError(f"kernel '{self.name}' takes {len(self.params)} arguments "
                            f"({', '.join(p.name for p in self.params)}), got {len(args)}")
        converted = []
        for p, a in zip(self.params, args):
            if p.pointer:
                if not isinstance(a, torch.Tensor):
                    raise TypeError(f"kernel '{self.name}': argument '{p.name}' must be a tensor, "
                                    f"got {type(a).__name__}")
                converted.append(a)
            else:
                if isinstance(a, torch.Tensor):
                    raise TypeError(f"kernel '{self.name}': argument '{p.name}' ({p.ctype}) must be a "
                                    f"number, got a tensor")
                code = _SCALAR_CODES[p.ctype]
                converted.append((code, float(a) if code[0] == "f" else int(a)))
        self._kernel.launch(_grid(global_size), converted, [] if local_size is None else _grid(local_size))

    def __repr__(self):
        return f"torch_ocl.Kernel({self.name}({', '.join(p.ctype + ('*' if p.pointer else '') + ' ' + p.name for p in self.params)}))"


_ops = {}


def kernel(source: str, name: str, *, outputs, grid=None, local_size=None, op_name=None,
           backward=None, setup_context=None):
    """A PyTorch operator running the OpenCL kernel `name` from `source`.

    outputs: {parameter name: how to allocate it}, for the kernel's output
        pointers: the name of an input parameter (an empty tensor like it) or a
        function of the op's inputs returning an empty tensor (it must work
        on fake tensors too: use torch.empty/empty_like/new_empty).
    The op's inputs are the remaining kernel parameters, in order (tensors
    for pointers, float/int for scalars); it returns the output tensor(s).
    grid: the global size, an int/tuple or a function of the inputs
        (default: the first output's numel).
    op_name: "namespace::name" of the op (default torch_ocl_user::<name>).
    backward, setup_context: as torch.library.register_autograd.
    """
    params = _parse(source, name)
    names = [p.name for p in params]
    for out in outputs:
        if out not in names:
            raise ValueError(f"outputs names '{out}', which is not a parameter of {name}({', '.join(names)})")
        p = params[names.index(out)]
        if not p.pointer or p.const:
            raise ValueError(f"output '{out}' must be a non-const __global pointer parameter")
    inputs = [p for p in params if p.name not in outputs]
    out_params = [p for p in params if p.name in outputs]
    qualname = op_name or f"torch_ocl_user::{name}"
    key = hashlib.sha1((source + "\0" + name).encode()).hexdigest()
    if qualname in _ops:
        op, old_key = _ops[qualname]
        if old_key != key:
            raise RuntimeError(f"an op named {qualname} was already defined from another kernel source; "
                               f"pass op_name=")
        return op

    in_names = [p.name for p in inputs]
    ret = "Tensor" if len(out_params) == 1 else "(" + ", ".join("Tensor" for _ in out_params) + ")"
    schema = "(" + ", ".join(f"{p.schema_type} {p.name}" for p in inputs) + ") -> " + ret

    def allocate(args):
        bound = dict(zip(in_names, args))
        result = []
        for p in out_params:
            how = outputs[p.name]
            result.append(torch.empty_like(bound[how]) if isinstance(how, str) else how(*args))
        return result

    compiled = Kernel(source, name)

    def impl(*args):
        args = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in args]
        # A view's data may start where the device cannot bind a buffer: copy it.
        args = [a.clone() if isinstance(a, torch.Tensor) and a.storage_offset() else a for a in args]
        outs = allocate(args)
        bound = dict(zip(in_names, args))
        bound.update({p.name: o for p, o in zip(out_params, outs)})
        size = grid(*args) if callable(grid) else grid if grid is not None else outs[0].numel()
        compiled(size, *(bound[n] for n in names), local_size=local_size)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def fake(*args):
        outs = allocate(args)
        return outs[0] if len(outs) == 1 else tuple(outs)

    op = torch.library.custom_op(qualname, impl, mutates_args=(), device_types="ocl", schema=schema)
    op.register_fake(fake)
    if backward is not None:
        op.register_autograd(backward, setup_context=setup_context)
    op.kernel = compiled
    _ops[qualname] = (op, key)
    return op
