"""The one timing loop of the bench/ scripts."""

import collections
import time

Timing = collections.namedtuple("Timing", "wall cpu iters")


def best_time(fn, sync, loop_s=0.5, loops=3, max_iters=None):
    """Best seconds per call of `fn` over `loops` loops of about `loop_s`
    seconds each, after a warm-up call: as wall time and as this process's
    CPU time (all threads; steadier when other jobs share the cores), and the
    calls per loop. `sync` waits for the device."""
    fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    one = max(time.perf_counter() - t0, 1e-6)
    iters = max(1, int(loop_s / one))
    if max_iters is not None:
        iters = min(iters, max_iters)
    best, best_cpu = float("inf"), float("inf")
    for _ in range(loops):
        sync()
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(iters):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) / iters)
        best_cpu = min(best_cpu, (time.process_time() - c0) / iters)
    return Timing(best, best_cpu, iters)
