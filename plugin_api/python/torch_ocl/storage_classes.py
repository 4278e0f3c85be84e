"""The legacy typed storage classes of the ocl device: ``torch.ocl.FloatStorage`` & co.

As ``torch.cuda.FloatStorage`` for CUDA: ``tensor.storage_type()`` of an ocl
float32 tensor is ``torch.ocl.FloatStorage``; ``torch.ocl.FloatStorage(n)`` or
``torch.ocl.FloatStorage([1, 2])`` makes an ocl ``TypedStorage``, and
``isinstance(t.storage(), torch.ocl.FloatStorage)`` holds. PyTorch finds the
device of such a class from its ``__module__`` (``torch.ocl``) and the class
from the device module (``TypedStorage._get_legacy_storage_class``).
Quantized dtypes have no class: ocl has no quantized tensors.
"""

import torch
from torch._utils import classproperty
from torch.storage import _LegacyStorage, _warn_typed_storage_removal


class _OclLegacyStorage(_LegacyStorage):
    @classmethod
    def from_buffer(cls, *args, **kwargs):
        _warn_typed_storage_removal()
        raise RuntimeError("from_buffer: Not available for ocl storage")

    @classmethod
    def _new_with_weak_ptr(cls, *args, **kwargs):
        raise RuntimeError("_new_with_weak_ptr: Not available for ocl storage")

    @classmethod
    def _new_shared_filename(cls, manager, obj, size, *, device=None, dtype=None):
        raise RuntimeError("_new_shared_filename: Not available for ocl storage")


def _storage_class(name, dtype):
    def _dtype(cls):
        return dtype

    def public_dtype(cls):
        _warn_typed_storage_removal()
        return dtype

    return type(
        name,
        (_OclLegacyStorage,),
        {"__module__": "torch.ocl", "_dtype": classproperty(_dtype), "dtype": classproperty(public_dtype)},
    )


def install(device_module):
    """Adds one class per non-quantized dtype to ``device_module`` (``torch.ocl``)."""
    names = []
    for dtype, name in torch.storage._dtype_to_storage_type_map().items():
        if name.startswith("Q"):  # QInt8Storage, QUInt8Storage, ...
            continue
        cls = _storage_class(name, dtype)
        setattr(device_module, name, cls)
        torch._storage_classes.add(cls)
        names.append(name)
    return names
