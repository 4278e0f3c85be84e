"""Batched submission of kernel launches (TORCH_OCL_SUBMIT_BATCH).

A stream holds kernel launches back behind a user event and submits them
together; everything that waits for the stream or orders work against it must
submit them first, or it would wait forever. Each check runs in a fresh
interpreter with batching forced on (the variable is read when the device is
first used), so the tests mean the same on CPU and GPU devices."""

import textwrap

import pytest
import torch

PRELUDE = textwrap.dedent("""
    import torch, torch_ocl
    from torch_ocl import _C
    def held():
        return _C._held_launches(torch.ocl.current_device())
    def zeros(n):
        x = torch.zeros(n, device="ocl")   # a fill launch
        torch.ocl.synchronize()
        return x
    def launch(n, x):
        for _ in range(n):
            x = x + 1          # one pointwise launch each
        return x
""")


def run_checked(run_python, body, batch="8", timeout=120):
    proc = run_python(PRELUDE + textwrap.dedent(body), env={"TORCH_OCL_SUBMIT_BATCH": batch}, timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_launches_are_held_then_submitted_at_the_batch_size(run_python):
    out = run_checked(run_python, """
        assert torch.ocl.launch_batch() == 8
        x = zeros(1000)
        x = launch(3, x)
        assert held() == 3, held()
        x = launch(5, x)          # the 8th launch submits the batch
        assert held() == 0, held()
        x = launch(2, x)
        assert held() == 2, held()
        assert torch.equal(x.cpu(), torch.full((1000,), 10.0))
        assert held() == 0
        print("ok")
    """)
    assert out.strip() == "ok"


@pytest.mark.parametrize("action", [
    "torch.ocl.synchronize()",
    "x.cpu()",
    "x.sum().item()",
    "torch.ocl.current_stream().synchronize()",
    "torch.ocl.Event().record()",
    "torch.ocl.current_stream().query()",
    "x.clone()",                              # a device copy (clEnqueueCopyBuffer or the copy kernel)
    "x.copy_(torch.ones(1000), non_blocking=True)",
    "torch.mm(x.view(10, 100), x.view(100, 10))",   # CLBlast / the GEMM kernel
    "torch.ocl.empty_cache()",
])
def test_every_wait_or_ordering_point_submits_held_launches(run_python, action):
    out = run_checked(run_python, f"""
        x = launch(3, zeros(1000))
        assert held() == 3, held()
        {action}
        # the action itself may have launched kernels; none of the three may still be held
        torch.ocl.synchronize()
        assert held() == 0, held()
        print(x.cpu()[0].item())
    """)
    assert float(out.split()[-1]) in (3.0, 1.0)  # copy_ replaced x by ones


def test_event_query_and_wait_on_held_launches_finish(run_python):
    run_checked(run_python, """
        import time
        x = launch(3, zeros(1000))
        e = torch.ocl.Event()
        e.record()
        deadline = time.time() + 30
        while not e.query():         # a held launch would never complete
            assert time.time() < deadline, "event never completed"
        e.synchronize()
        assert torch.equal(x.cpu(), torch.full((1000,), 3.0))
    """)


def test_cross_stream_wait_on_held_launches(run_python):
    run_checked(run_python, """
        s1, s2 = torch.ocl.Stream(), torch.ocl.Stream()
        with torch.ocl.stream(s1):
            x = launch(3, zeros(1000))
            assert held() == 3
        s2.wait_stream(s1)
        with torch.ocl.stream(s2):
            y = x * 2
        s2.synchronize()
        assert torch.equal(y.cpu(), torch.full((1000,), 6.0))
    """)


@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_exit_with_held_launches_finishes_them(run_python, tmp_path_factory, cache):
    # Held launches are submitted and finished at exit: started there, they ran
    # while PoCL's own exit handlers tore it down (SIGSEGV / abort; seen with
    # fresh cache folders, every time).
    dirs = tmp_path_factory.mktemp("exit_caches")
    env = {"TORCH_OCL_SUBMIT_BATCH": "8", "TORCH_OCL_CACHE_DIR": str(dirs / "ocl"), "POCL_CACHE_DIR": str(dirs / "pocl")}
    code = PRELUDE + textwrap.dedent("""
        import torch.nn.functional as F
        x = launch(5, zeros(1 << 16))
        y = F.glu(torch.randn(6, 8).to("ocl"))
        assert held() > 0
    """)
    for _ in range(1 if cache == "cold" else 2):  # warm: the second process finds the programs on disk
        proc = run_python(code, env=env, timeout=120)
        assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])


def test_batch_of_one_submits_every_launch(run_python):
    run_checked(run_python, """
        assert torch.ocl.launch_batch() == 1
        x = launch(3, zeros(10))
        assert held() == 0
        assert torch.equal(x.cpu(), torch.full((10,), 3.0))
    """, batch="1")


def test_threads_share_a_stream_with_held_launches(run_python):
    run_checked(run_python, """
        import threading
        results, errors = [], []
        def work(k):
            try:
                x = torch.full((1000,), float(k), device="ocl")
                for _ in range(50):
                    x = x + 1
                    if _ % 7 == 0:
                        torch.ocl.synchronize()
                results.append((k, x.cpu()))
            except Exception as e:  # reported below
                errors.append(e)
        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads: t.start()
        for t in threads: t.join(60)
        assert not errors, errors
        assert len(results) == 4
        for k, x in results:
            assert torch.equal(x, torch.full((1000,), k + 50.0))
    """)


def test_launches_during_another_threads_synchronize_are_not_held(run_python):
    # clFinish waits until the queue is empty, launches enqueued after it began
    # included: a launch held while thread B synchronizes would keep B waiting
    # for as long as thread A launches nothing more (here A waits for B).
    run_checked(run_python, """
        import threading, time
        m = torch.randn(2000, 2000, device="ocl")
        x = zeros(1000)                   # (synchronizes)
        big = m @ m                       # keeps the queue busy while B synchronizes
        finished = threading.Event()
        def b():
            torch.ocl.synchronize()
            finished.set()
        t = threading.Thread(target=b)
        t.start()
        time.sleep(0.02)                  # B is in clFinish now (the product takes longer)
        x = launch(3, x)
        ok = finished.wait(60)
        torch.ocl.synchronize()           # (releases B if the launches were held)
        t.join()
        assert ok, "synchronize in another thread waited for launches held after it began"
        assert torch.equal(x.cpu(), torch.full((1000,), 3.0))
    """)


def test_set_launch_batch_submits_and_changes_the_batch(run_python):
    run_checked(run_python, """
        x = launch(3, zeros(100))
        assert held() == 3
        torch.ocl.set_launch_batch(1)
        assert held() == 0 and torch.ocl.launch_batch() == 1
        x = launch(2, x)
        assert held() == 0
        torch.ocl.set_launch_batch(4)
        x = launch(3, x)
        assert held() == 3
        x = launch(1, x)
        assert held() == 0
        try:
            torch.ocl.set_launch_batch(0)
            raise SystemExit("no error")
        except RuntimeError as e:
            assert "at least 1 launch" in str(e), e
        assert torch.equal(x.cpu(), torch.full((100,), 9.0))
    """)


def test_default_batch_by_device_type():
    expected = 32 if torch.ocl.get_device_properties().type == "cpu" else 1
    import os
    if os.environ.get("TORCH_OCL_SUBMIT_BATCH"):
        expected = max(1, int(os.environ["TORCH_OCL_SUBMIT_BATCH"]))
    assert torch.ocl.launch_batch() == expected
