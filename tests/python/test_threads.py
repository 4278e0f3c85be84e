"""8 Python threads at once (issue 11 item 5): half on a stream of their own,
half on the default stream, each running mixed ops and host<->device copies
for a bounded time and comparing every result exactly with the CPU computed
in the same thread. Exact means integer dtypes, and float32 only on small
integers (sums and products stay exact below 2**24). torch releases the GIL
inside ops, so the threads really run torch_ocl's C++ side concurrently:
kernel cache, launches (kernel arguments are per-kernel state), allocator,
streams, copies.
"""

import os
import random
import threading
import time

import torch

import torch_ocl  # noqa: F401

N_THREADS = 8
BUDGET_S = float(os.environ.get("TORCH_OCL_THREAD_BUDGET_S", "12"))


def _case(rng, gen):
    """One round of ops on the device and on the CPU; returns (name, ocl, cpu) triples."""
    n = rng.choice([1, 17, 1000, 4099, 65_537])
    a = torch.randint(-50, 50, (n,), generator=gen, dtype=torch.int64)
    b = torch.randint(1, 20, (n,), generator=gen, dtype=torch.int32)
    m = rng.choice([3, 16, 33])
    k = rng.choice([5, 64])
    x = torch.randint(-4, 5, (m, k), generator=gen).float()
    w = torch.randint(-4, 5, (k, m), generator=gen).float()
    idx = torch.randint(0, n, (rng.randrange(1, 50),), generator=gen)
    ad, bd, xd, wd, idxd = (t.to("ocl") for t in (a, b, x, w, idx))
    out = []
    out.append(("pointwise", (ad * bd + 3).remainder(7) - ad.abs(), (a * b + 3).remainder(7) - a.abs()))
    out.append(("where", torch.where(ad > 0, ad, -bd), torch.where(a > 0, a, -b)))
    out.append(("sum", ad.sum(), a.sum()))
    out.append(("amax", bd.amax(), b.amax()))
    out.append(("cumsum", bd.cumsum(0), b.cumsum(0)))
    out.append(("mm", xd @ wd, x @ w))
    out.append(("mm_t", (xd.t() @ xd).sum(1), (x.t() @ x).sum(1)))
    out.append(("index_select", ad.index_select(0, idxd), a.index_select(0, idx)))
    out.append(("index", ad[idxd] + bd[idxd], a[idx] + b[idx]))
    out.append(("mask", ad[bd > 10], a[b > 10]))
    # device -> device copy, strided copy, and back to the host through copy_
    c = torch.empty(n, dtype=torch.int64, device="ocl")
    c.copy_(ad.flip(0))
    out.append(("d2d", c, a.flip(0)))
    host = torch.empty((n + 1) // 2, dtype=torch.int64)
    host.copy_(ad[::2])  # strided device -> host
    out.append(("d2h", host, a[::2]))
    out.append(("h2d_inplace", ad.add_(torch.ones(n, dtype=torch.int64).to("ocl")), a + 1))
    return out


def _worker(tid, use_own_stream, deadline, results, errors, start):
    try:
        rng = random.Random(1000 + tid)
        gen = torch.Generator().manual_seed(1000 + tid)
        stream = torch.ocl.Stream() if use_own_stream else torch.ocl.default_stream()
        rounds = 0
        start.wait()
        with torch.ocl.stream(stream):
            assert torch.ocl.current_stream() == stream
            while rounds < 3 or time.monotonic() < deadline:
                for name, got, want in _case(rng, gen):
                    got = got.cpu()  # on this thread's stream: waits for its kernels
                    if got.dtype != want.dtype or not torch.equal(got, want):
                        errors.append(f"thread {tid} ({'own' if use_own_stream else 'default'} stream), "
                                      f"round {rounds}, {name}: {got.flatten()[:8].tolist()} != "
                                      f"{want.flatten()[:8].tolist()}")
                        return
                rounds += 1
                if rounds > 10_000:
                    break
        results[tid] = rounds
    except Exception as e:  # noqa: BLE001  (reported by the main thread)
        errors.append(f"thread {tid}: {type(e).__name__}: {e}")


def test_eight_threads_own_and_default_streams_exact():
    # Warm the kernels once on this thread: cold compiles would eat the budget.
    for _ in _case(random.Random(0), torch.Generator().manual_seed(0)):
        pass
    torch.ocl.synchronize()
    results, errors = {}, []
    start = threading.Barrier(N_THREADS)
    deadline = time.monotonic() + BUDGET_S
    threads = [threading.Thread(target=_worker, args=(i, i % 2 == 0, deadline + 0.0, results, errors, start))
               for i in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=BUDGET_S + 240)
    assert not any(t.is_alive() for t in threads), "a thread hung (deadlock?)"
    assert errors == [], "\n".join(errors)
    assert sorted(results) == list(range(N_THREADS))
    assert all(r >= 3 for r in results.values()), results
    torch.ocl.synchronize()
    print(f"\n[threads] {N_THREADS} threads, {BUDGET_S:.0f} s budget, rounds per thread: "
          f"{[results[i] for i in range(N_THREADS)]}")
