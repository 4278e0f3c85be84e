"""torch.distributed on ocl tensors: the ``ocl_gloo`` process-group backend.

``import torch_ocl`` registers it (torch.distributed is already loaded by
``import torch``, so this costs nothing). Use it as any backend::

    dist.init_process_group("ocl_gloo", rank=rank, world_size=n)   # or no backend:
    dist.init_process_group(rank=rank, world_size=n)                # ocl's default
    model = DDP(model.to("ocl"))

It is gloo with host staging: a collective on ocl tensors copies them to the
host, runs gloo's collective there, waits for it and copies the results back
into the ocl tensors; CPU tensors go to gloo unchanged. The work it returns
is already complete (its future holds the ocl tensors), so DDP's reducer,
``_broadcast_coalesced`` and ``dist.*`` collectives work as with gloo on CPU.

PyTorch lets a Python backend take part only as a whole ProcessGroup (its
pybind trampoline exists for ProcessGroup, not for c10d's per-device Backend),
so ``ocl_gloo`` is a ProcessGroup that serves both cpu and ocl tensors. A
``"cpu:gloo,ocl:ocl_gloo"`` string works too, but builds an unused gloo group
for cpu first.
"""

import torch
import torch.distributed as dist

NAME = "ocl_gloo"


def _is_ocl(x):
    return isinstance(x, torch.Tensor) and x.device.type == "ocl"


def _has_ocl(x):
    if isinstance(x, (list, tuple)):
        return any(_has_ocl(y) for y in x)
    return _is_ocl(x)


class _DoneWork(dist.Work):
    """A finished collective; its future's value is the (ocl) output tensors."""

    def __init__(self, result):
        super().__init__()
        self._future = torch.futures.Future()
        self._future.set_result(result)

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True

    def is_success(self):
        return True

    def get_future(self):
        return self._future


class OclGlooProcessGroup(dist.ProcessGroup):
    """gloo for cpu tensors; gloo through host copies for ocl tensors."""

    def __init__(self, store, rank, size, timeout):
        super().__init__(rank, size)
        self._gloo = dist.ProcessGroupGloo(store, rank, size, timeout)

    def getBackendName(self):  # noqa: N802 (the C++ name, called by c10d)
        return NAME

    def _run(self, name, args, out=0):
        """gloo's `name` on `args`; ocl tensors staged through host copies.

        args[out] holds the tensors that receive results (a tensor or a
        (nested) list); they are copied back after gloo finishes.
        """
        if not _has_ocl(args):
            return getattr(self._gloo, name)(*args)
        copy_back = []

        def stage(x, is_out):
            if isinstance(x, (list, tuple)):
                return [stage(y, is_out) for y in x]
            if not _is_ocl(x):
                return x
            host = x.detach().to("cpu").contiguous()
            if is_out:
                copy_back.append((x, host))
            return host

        host_args = [stage(a, i == out) for i, a in enumerate(args)]
        getattr(self._gloo, name)(*host_args).wait()
        with torch.no_grad():
            for dst, src in copy_back:
                dst.copy_(src)
        result = args[0 if out is None else out]
        return _DoneWork(list(result) if isinstance(result, (list, tuple)) else [result])

    @staticmethod
    def _list(tensors):
        return [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)

    def allreduce(self, tensors, opts=None):
        if isinstance(opts, dist.ReduceOp.RedOpType) or opts is None:
            op, opts = opts, dist.AllreduceOptions()
            if op is not None:
                opts.reduceOp = op
        return self._run("allreduce", [self._list(tensors), opts])

    def allreduce_coalesced(self, tensors, opts=None):
        return self._run("allreduce_coalesced", [list(tensors), opts or dist.AllreduceCoalescedOptions()])

    def broadcast(self, tensors, opts=None):
        return self._run("broadcast", [self._list(tensors), opts or dist.BroadcastOptions()])

    def reduce(self, tensors, opts=None):
        return self._run("reduce", [self._list(tensors), opts or dist.ReduceOptions()])

    def allgather(self, output_lists, inputs, opts=None):
        return self._run("allgather", [output_lists, inputs, opts or dist.AllgatherOptions()])

    def all_gather_single(self, output, input, opts=None):
        return self._run("_allgather_base", [output, input, opts or dist.AllgatherOptions()])

    _allgather_base = all_gather_single

    def gather(self, output_lists, inputs, opts=None):
        return self._run("gather", [output_lists, inputs, opts or dist.GatherOptions()])

    def scatter(self, outputs, input_lists, opts=None):
        return self._run("scatter", [outputs, input_lists, opts or dist.ScatterOptions()])

    def reduce_scatter(self, outputs, input_lists, opts=None):
        return self._run("reduce_scatter", [outputs, input_lists, opts or dist.ReduceScatterOptions()])

    def reduce_scatter_single(self, output, input, opts=None):
        return self._run("_reduce_scatter_base", [output, input, opts or dist.ReduceScatterOptions()])

    _reduce_scatter_base = reduce_scatter_single

    def alltoall(self, outputs, inputs, opts=None):
        return self._run("alltoall", [outputs, inputs, opts or dist.AllToAllOptions()])

    def all_to_all_single(self, output, input, output_split_sizes, input_split_sizes, opts=None):
        return self._run("alltoall_base", [output, input, output_split_sizes, input_split_sizes,
                                           opts or dist.AllToAllOptions()])

    alltoall_base = all_to_all_single

    def send(self, tensors, dst, tag=0):
        return self._run("send", [self._list(tensors), dst, tag], out=None)

    def recv(self, tensors, src, tag=0):
        return self._run("recv", [self._list(tensors), src, tag])

    def barrier(self, opts=None):
        return self._gloo.barrier(opts or dist.BarrierOptions())


def _create(store, rank, size, timeout):
    return OclGlooProcessGroup(store, rank, size, timeout)


def register():
    """Registers ``ocl_gloo`` (for cpu and ocl) with torch.distributed; idempotent."""
    if dist.is_gloo_available() and NAME not in dist.Backend.backend_list:
        dist.Backend.register_backend(NAME, _create, devices=["cpu", "ocl"])
