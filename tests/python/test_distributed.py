"""torch.distributed on ocl: the ocl_gloo backend (gloo with host staging).

One spawn of two processes does every check (spawning costs an interpreter
and an import of torch per rank): each rank runs the collectives and three DDP
training steps on its half of a batch and saves what it saw; the test then
compares with the values the collectives must give and with a single-process
CPU run on the whole batch. Both ranks use one OpenCL device when the machine
has one (TORCH_OCL_DEVICES gives each rank its own device where there are more).
"""

import os

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

import torch_ocl

WORLD = 2
STEPS = 3
LR = 0.1
BATCH = 6  # per rank


def _model():
    return torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 3))


def _data():
    g = torch.Generator().manual_seed(1234)
    return torch.randn(WORLD * BATCH, 5, generator=g), torch.randn(WORLD * BATCH, 3, generator=g)


def _collectives(rank):
    dev = "ocl"
    out = {}
    t = torch.arange(6, dtype=torch.float32, device=dev) * (rank + 1)
    dist.all_reduce(t)
    out["all_reduce_sum"] = t.cpu()
    i = torch.tensor([rank * 10, -rank, 7], dtype=torch.int64, device=dev)
    dist.all_reduce(i, op=dist.ReduceOp.MAX)
    out["all_reduce_max_int64"] = i.cpu()
    # A transposed view: the result must land in the view's elements.
    base = torch.zeros(3, 4, device=dev)
    view = base.t()
    view.copy_(torch.arange(12.0).reshape(4, 3) + rank)
    dist.all_reduce(view)
    out["all_reduce_view"] = base.cpu()
    b = torch.full((4,), float(rank), dtype=torch.float64, device=dev)
    dist.broadcast(b, src=1)
    out["broadcast"] = b.cpu()
    gathered = [torch.empty(2, 3, device=dev) for _ in range(WORLD)]
    dist.all_gather(gathered, torch.full((2, 3), rank + 0.5, device=dev))
    out["all_gather"] = torch.stack([g.cpu() for g in gathered])
    flat = torch.empty(WORLD * 3, device=dev)
    dist.all_gather_single(flat, torch.arange(3.0, device=dev) + 10 * rank)
    out["all_gather_single"] = flat.cpu()
    rs = torch.empty(2, device=dev)
    dist.reduce_scatter_single(rs, torch.arange(WORLD * 2.0, device=dev) * (rank + 1))
    out["reduce_scatter_single"] = rs.cpu()
    a2a = torch.empty(WORLD, dtype=torch.int32, device=dev)
    dist.all_to_all_single(a2a, torch.arange(WORLD, dtype=torch.int32, device=dev) + 100 * rank)
    out["all_to_all_single"] = a2a.cpu()
    p2p = torch.full((3,), -1.0, device=dev)
    if rank == 0:
        dist.send(torch.tensor([1.0, 2.0, 3.0], device=dev), dst=1)
    else:
        dist.recv(p2p, src=0)
    out["send_recv"] = p2p.cpu()
    dist.barrier()
    return out


DDP_CONFIGS = {
    # A small bucket cap: the two layers' gradients go in separate buckets.
    "buckets": dict(bucket_cap_mb=1e-4),
    # Gradients alias the buckets; the used-parameter map is all-reduced each step.
    "views_unused": dict(gradient_as_bucket_view=True, find_unused_parameters=True),
}


def _ddp(rank, config):
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.manual_seed(rank)  # different initial weights: DDP must broadcast rank 0's
    model = _model().to("ocl")
    ddp = DDP(model, **DDP_CONFIGS[config])
    x, y = _data()
    x, y = x[rank * BATCH:(rank + 1) * BATCH].to("ocl"), y[rank * BATCH:(rank + 1) * BATCH].to("ocl")
    opt = torch.optim.SGD(ddp.parameters(), lr=LR)
    grads = []
    for _ in range(STEPS):
        opt.zero_grad()
        F.mse_loss(ddp(x), y).backward()
        grads.append([p.grad.cpu() for p in model.parameters()])
        opt.step()
    stats = ddp._get_ddp_logging_data()
    return {"grads": grads, "params": [p.detach().cpu() for p in model.parameters()],
            "time_stats": [stats.get(k, 0) for k in ("avg_forward_compute_time", "avg_backward_compute_time",
                                                     "avg_backward_comm_time")]}


def _worker(rank, init_file, result_dir, devices):
    if devices is not None:  # before the first device use (the runtime reads it then)
        os.environ["TORCH_OCL_DEVICES"] = devices[rank]
    dist.init_process_group("ocl_gloo", init_method=f"file://{init_file}", rank=rank, world_size=WORLD)
    try:
        with torch.ocl.fallback_mode("error"):  # every op in the steps is native
            out = _collectives(rank)
            out["ddp"] = {config: _ddp(rank, config) for config in DDP_CONFIGS}
        out["backend"] = dist.get_backend()
        torch.save(out, os.path.join(result_dir, f"rank{rank}.pt"))
    finally:
        dist.destroy_process_group()


def _reference():
    torch.manual_seed(0)
    model = _model()
    x, y = _data()
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    grads = []
    for _ in range(STEPS):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        grads.append([p.grad.clone() for p in model.parameters()])
        opt.step()
    return grads, [p.detach() for p in model.parameters()]


def _warm_kernel_cache():
    """Build the ranks' OpenCL programs once, here: the ranks then load them
    from the disk cache instead of both compiling them at the same time."""
    model = _model().to("ocl")
    x, y = _data()
    F.mse_loss(model(x.to("ocl")), y.to("ocl")).backward()
    torch.optim.SGD(model.parameters(), lr=LR).step()
    grad = model[0].weight.grad
    torch.mul(grad, 0.5, out=torch.empty_like(grad))  # DDP's gradient / world size
    for dtype in (torch.float32, torch.float64, torch.int32):
        (torch.arange(4, dtype=dtype, device="ocl") * 2 + 1).fill_(3)
    torch.ocl.synchronize()


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dist")
    _warm_kernel_cache()
    devices = None
    if "TORCH_OCL_DEVICES" not in os.environ:
        n = torch.ocl.device_count()
        devices = [str(r % n) for r in range(WORLD)]
    mp.spawn(_worker, args=(str(tmp / "init"), str(tmp), devices), nprocs=WORLD, join=True)
    return [torch.load(tmp / f"rank{r}.pt") for r in range(WORLD)]


def test_collectives_on_ocl_tensors(results):
    ranks = torch.arange(WORLD, dtype=torch.float32)
    for out in results:
        assert out["backend"] == "ocl_gloo"
        torch.testing.assert_close(out["all_reduce_sum"], torch.arange(6.0) * (ranks + 1).sum())
        torch.testing.assert_close(out["all_reduce_max_int64"], torch.tensor([(WORLD - 1) * 10, 0, 7]))
        expected_view = (torch.arange(12.0).reshape(4, 3) * WORLD + ranks.sum()).t()
        torch.testing.assert_close(out["all_reduce_view"], expected_view)
        torch.testing.assert_close(out["broadcast"], torch.ones(4, dtype=torch.float64))
        torch.testing.assert_close(out["all_gather"], (ranks + 0.5).view(WORLD, 1, 1).expand(WORLD, 2, 3))
        torch.testing.assert_close(out["all_gather_single"],
                                   torch.cat([torch.arange(3.0) + 10 * r for r in range(WORLD)]))
    full = torch.arange(WORLD * 2.0) * (ranks + 1).sum()
    for r, out in enumerate(results):
        torch.testing.assert_close(out["reduce_scatter_single"], full[2 * r:2 * r + 2])
        torch.testing.assert_close(out["all_to_all_single"],
                                   torch.tensor([r + 100 * src for src in range(WORLD)], dtype=torch.int32))
    torch.testing.assert_close(results[0]["send_recv"], torch.full((3,), -1.0))
    torch.testing.assert_close(results[1]["send_recv"], torch.tensor([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("config", DDP_CONFIGS)
def test_ddp_matches_single_process(results, config):
    ref_grads, ref_params = _reference()
    for out in (r["ddp"][config] for r in results):
        for step in range(STEPS):
            for got, want in zip(out["grads"][step], ref_grads[step]):
                torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
        # DDP's logger measured the steps (torch_ocl registers its timer for the ocl device type).
        assert all(t > 0 for t in out["time_stats"]), out["time_stats"]
        for got, want in zip(out["params"], ref_params):
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


def test_backend_registered():
    assert "ocl_gloo" in dist.Backend.backend_list
    assert dist.Backend.default_device_backend_map["ocl"] == "ocl_gloo"
    assert sorted(dist.Backend.backend_capability["ocl_gloo"]) == ["cpu", "ocl"]
    torch_ocl.distributed.register()  # idempotent
    assert dist.Backend.backend_list.count("ocl_gloo") == 1


def test_default_backend_for_ocl_one_process(tmp_path):
    # No backend named: the accelerator is ocl, whose default backend is ocl_gloo.
    config = dist.distributed_c10d.BackendConfig(dist.Backend.UNDEFINED)
    assert config.get_device_backend_map() == {"ocl": "ocl_gloo"}
    dist.init_process_group(init_method=f"file://{tmp_path / 'init'}", rank=0, world_size=1)
    try:
        assert dist.get_backend_config() == "ocl:ocl_gloo"
        assert isinstance(dist.group.WORLD, torch_ocl.distributed.OclGlooProcessGroup)
        x = torch.arange(5.0, device="ocl")
        dist.all_reduce(x)  # one rank: unchanged, and still on ocl
        assert x.device.type == "ocl"
        torch.testing.assert_close(x.cpu(), torch.arange(5.0))
        c = torch.arange(3.0)
        work = dist.all_reduce(c, async_op=True)  # cpu tensors go to gloo as they are
        work.wait()
        torch.testing.assert_close(c, torch.arange(3.0))
    finally:
        dist.destroy_process_group()
