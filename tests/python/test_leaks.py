"""No leaks across repeated runs of ops (issue 11 item 7): after a warm-up
run (kernels built, caches filled), more runs of a set of ops leave the
counts of live OpenCL objects that torch_ocl made (buffers, events, kernels,
programs: torch_ocl._C._live_cl_objects()) and memory_allocated() where they
were. Each module's device memory is checked by the autouse fixture in
conftest.py.
"""

import gc

import torch
import torch.nn.functional as F

import torch_ocl
from torch_ocl import _C


def _ops(seed):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(33, 47, generator=g).to("ocl")
    b = torch.randn(47, 21, generator=g).to("ocl")
    idx = torch.randint(0, 33, (9,), generator=g).to("ocl")
    img = torch.randn(2, 3, 9, 9, generator=g).to("ocl")
    weight = torch.randn(4, 3, 3, 3, generator=g).to("ocl").requires_grad_()
    s = torch.ocl.Stream()
    out = [
        (a * 2 + 1).relu(),  # pointwise
        a.sum(1), a.amax(0), a.mean(),  # reductions
        a @ b,  # mm
        a.index_select(0, idx), a[idx, 3:9:2], a[a > 0],  # index
        a.t().contiguous(), a.cpu(), a.flip(0).clone(),  # copies
    ]
    y = F.conv2d(img, weight, padding=1)  # a conv, forward and backward
    y.square().sum().backward()
    out.append(weight.grad)
    with torch.ocl.stream(s):  # events: stream sync, recorded tensor, timing events
        s.wait_stream(torch.ocl.default_stream())
        c = a * 3
        a.record_stream(s)
        start, end = torch.ocl.Event(enable_timing=True), torch.ocl.Event(enable_timing=True)
        start.record()
        out.append(c + 1)
        end.record()
    end.synchronize()
    start.elapsed_time(end)
    torch.ocl.default_stream().wait_stream(s)
    pinned = torch.ones(100).pin_memory()
    out.append(pinned.to("ocl", non_blocking=True))
    out.append(a.sum().item())
    torch.ocl.synchronize()
    return len(out)


def _settled():
    """After empty_cache the allocator holds no cached segments: the blocks are
    cached per stream, and torch.ocl.Stream() hands out the pool's streams in
    turn, so cached segments grow until each pool stream has its own."""
    gc.collect()
    torch.ocl.synchronize()
    torch.ocl.empty_cache()
    return _C._live_cl_objects(), torch.ocl.memory_allocated()


def test_live_opencl_objects_do_not_grow_over_repeated_runs():
    _ops(0)  # warm-up: builds kernels and programs, fills the allocator's cache
    _ops(1)
    objects, allocated = _settled()
    for i in range(5):
        _ops(2 + i)
    objects_after, allocated_after = _settled()
    assert objects_after == objects, f"live OpenCL objects grew: {objects} -> {objects_after}"
    assert allocated_after == allocated
    # The counters see real objects: a fresh allocation makes a buffer.
    torch.ocl.empty_cache()
    before = _C._live_cl_objects()["buffers"]
    t = torch.empty(3 << 20, device="ocl")
    assert _C._live_cl_objects()["buffers"] == before + 1
    del t
    torch.ocl.empty_cache()
    assert _C._live_cl_objects()["buffers"] == before


def test_user_kernels_release_their_opencl_objects():
    src = "__kernel void plus1(__global float* x) { x[get_global_id(0)] += 1.0f; }"
    x = torch.zeros(8, device="ocl")
    torch_ocl.Kernel(src, "plus1")((8,), x)  # built once (program cache)
    torch.ocl.synchronize()
    gc.collect()
    before = _C._live_cl_objects()
    for _ in range(3):
        k = torch_ocl.Kernel(src, "plus1")
        k((8,), x)
        del k
    torch.ocl.synchronize()
    gc.collect()
    assert _C._live_cl_objects() == before
    assert x.cpu().tolist() == [4.0] * 8
