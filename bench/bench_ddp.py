"""DDP training step time on ocl with the ocl_gloo backend (gloo through host
copies): the plain model in one process, then DDP with 1 and with 2 processes
(same model, same batch per rank). Every process uses ocl device
`rank % device_count` (TORCH_OCL_DEVICES); with one device both ranks share it.

  PYTHONPATH=plugin_api/python python bench/bench_ddp.py [--hidden 1024] [--batch 64] [--steps 10]

Times: best of 3 loops of --steps steps each after 3 warm-up steps, ending with
torch.ocl.synchronize(); every rank runs the same fixed number of steps (a
collective cannot use bench/timing.py's self-calibrating loop) and rank 0 reports.
Also one all_reduce of the gradients' size on cpu and on ocl tensors (best of 5):
the difference is the host staging.
"""

import argparse
import os
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

import torch_ocl  # noqa: F401  (registers the ocl_gloo backend)


def make(args):
    torch.manual_seed(0)
    h = args.hidden
    return torch.nn.Sequential(torch.nn.Linear(h, h), torch.nn.ReLU(), torch.nn.Linear(h, h), torch.nn.ReLU(),
                               torch.nn.Linear(h, 10)).to("ocl")


def time_steps(model, args, rank):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(rank)
    x = torch.randn(args.batch, args.hidden, generator=g).to("ocl")
    y = torch.randint(0, 10, (args.batch,), generator=g).to("ocl")

    def step():
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()

    for _ in range(3):
        step()
    best = float("inf")
    for _ in range(3):
        torch.ocl.synchronize()
        if dist.is_initialized():
            dist.barrier()
        t0 = time.perf_counter()
        for _ in range(args.steps):
            step()
        torch.ocl.synchronize()
        best = min(best, (time.perf_counter() - t0) / args.steps)
    return best


def time_allreduce(numel, device):
    t = torch.ones(numel, device=device)
    best = float("inf")
    for _ in range(5):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(t)
        torch.ocl.synchronize()
        best = min(best, time.perf_counter() - t0)
    return best


def worker(rank, world, init_file, devices, args, result):
    if devices is not None:
        os.environ["TORCH_OCL_DEVICES"] = devices[rank]
    from torch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("ocl_gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
    try:
        model = DDP(make(args))
        numel = sum(p.numel() for p in model.parameters())
        t = (time_steps(model, args, rank), time_allreduce(numel, "cpu"), time_allreduce(numel, "ocl"))
        if rank == 0:
            torch.save(t, result)
    finally:
        dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--batch", type=int, default=64, help="per rank")
    p.add_argument("--steps", type=int, default=10)
    args = p.parse_args()
    devices = None
    if "TORCH_OCL_DEVICES" not in os.environ:
        n = torch.ocl.device_count()
        devices = [str(r % n) for r in range(2)]
    params = sum(p.numel() for p in make(args).parameters())
    print(f"MLP {args.hidden}x3 ({params / 1e6:.2f} M parameters, {params * 4 / 2**20:.1f} MiB of gradients), "
          f"batch {args.batch} per rank, device {torch.ocl.get_device_name(0)} x{torch.ocl.device_count()}")
    print(f"{'plain, 1 process':<22} {1e3 * time_steps(make(args), args, 0):8.1f} ms/step")
    with tempfile.TemporaryDirectory() as tmp:
        for world in (1, 2):
            result = os.path.join(tmp, f"t{world}.pt")
            mp.spawn(worker, args=(world, os.path.join(tmp, f"init{world}"), devices, args, result), nprocs=world)
            step, ar_cpu, ar_ocl = torch.load(result)
            print(f"{f'DDP, {world} process' + ('es' if world > 1 else ''):<22} {1e3 * step:8.1f} ms/step   "
                  f"all_reduce of the gradients' size: {1e3 * ar_cpu:.1f} ms cpu, {1e3 * ar_ocl:.1f} ms ocl (staged)")


if __name__ == "__main__":
    main()
