"""torch_ocl.profiler: where the time goes on ocl.

    with torch_ocl.profiler.profile(trace="trace.json") as prof:
        train_step()
    print(prof.table())

Runs torch's autograd profiler in its PrivateUse1 mode
(``torch.autograd.profiler.profile(use_device="ocl", use_kineto=False)``):
every op gets its host time and, from two OpenCL marker events around it
(profiling timestamps, backend/profiler_stubs.cpp), its device time. The
table adds the calls that ran on the CPU through the fallback. ``trace``
writes a Chrome trace (chrome://tracing, Perfetto).
"""

import torch

from . import _C

__all__ = ["profile"]


class profile:
    def __init__(self, trace=None, device_time=True, record_shapes=False):
        self.trace = trace
        self.device_time = device_time
        self.record_shapes = record_shapes
        self._prof = None
        self.fallback_calls = {}

    def __enter__(self):
        self._fallback_before = dict(_C.fallback_stats())
        if self.device_time:
            self._prof = torch.autograd.profiler.profile(use_device="ocl", use_kineto=False,
                                                         record_shapes=self.record_shapes)
        else:
            self._prof = torch.autograd.profiler.profile(record_shapes=self.record_shapes)
        self._prof.__enter__()
        return self

    def __exit__(self, *exc):
        if self.device_time and torch.ocl.is_available():
            torch.ocl.synchronize()
        self._prof.__exit__(*exc)
        after = dict(_C.fallback_stats())
        self.fallback_calls = {k: v - self._fallback_before.get(k, 0) for k, v in after.items()
                               if v != self._fallback_before.get(k, 0)}
        if self.trace:
            self._prof.export_chrome_trace(self.trace)
        return False

    @property
    def events(self):
        """torch's FunctionEventAvg list (``key_averages()``)."""
        return self._prof.key_averages()

    def rows(self):
        """[(op, calls, host total us, host self us, device us, fallback calls)], by host total time."""
        rows = []
        for e in self._prof.key_averages():
            name = e.key
            short = name.split("::", 1)[-1]
            fb = self.fallback_calls.get(name, self.fallback_calls.get(short, 0))
            dev = getattr(e, "self_device_time_total", 0.0) if self.device_time else 0.0
            rows.append((name, e.count, e.cpu_time_total, e.self_cpu_time_total, dev, fb))
        rows.sort(key=lambda r: -r[2])
        return rows

    def table(self, row_limit=30):
        head = f"{'op':<44} {'calls':>6} {'host ms':>9} {'self ms':>9} {'device ms':>10} {'fallback':>8}"
        lines = [head, "-" * len(head)]
        for name, calls, host, self_host, dev, fb in self.rows()[:row_limit]:
            lines.append(f"{name[:44]:<44} {calls:>6} {host / 1e3:>9.3f} {self_host / 1e3:>9.3f} "
                         f"{dev / 1e3:>10.3f} {fb:>8}")
        if self.fallback_calls:
            lines.append("fallback calls: " + ", ".join(f"{k} x{v}" for k, v in sorted(self.fallback_calls.items())))
        return "\n".join(lines)
