"""python -m torch_ocl.testing.run_upstream on files written like PyTorch's
own test files: counts per file, failures reported, and an empty ocl run
refused."""

import os
import textwrap

import pytest

UPSTREAM_STYLE = os.path.join(os.path.dirname(__file__), "..", "upstream_style", "test_ocl_upstream_style.py")


def run_upstream(run_python, *paths, env=None):
    return run_python(None, args=["-m", "torch_ocl.testing.run_upstream", *paths], env=env, timeout=600)


def test_counts_the_ocl_tests_of_an_upstream_style_file(run_python):
    proc = run_upstream(run_python, UPSTREAM_STYLE)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # 2 dtypes of test_add + 3 plain tests pass; @onlyCUDA is skipped on ocl;
    # the CPU-only class is counted apart; no CPU instantiation at all.
    assert "ocl tests: 5 passed, 0 failed, 1 skipped, 0 errors (other tests: 1;" in proc.stdout, proc.stdout


def test_a_failing_ocl_test_fails_the_run(run_python):
    proc = run_upstream(run_python, UPSTREAM_STYLE, env={"TORCH_OCL_UPSTREAM_STYLE_FAIL": "1"})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "ocl tests: 4 passed, 1 failed, 1 skipped" in proc.stdout, proc.stdout


def test_a_file_without_ocl_tests_is_an_error_not_a_pass(run_python, tmp_path):
    # No device-generic class at all (run_upstream sets
    # PYTORCH_TESTING_DEVICE_FOR_CUSTOM=privateuse1, so even only_for="cuda"
    # classes get ocl tests): an empty ocl run must not read as a pass.
    plain = tmp_path / "test_plain.py"
    plain.write_text(textwrap.dedent("""
        import torch
        from torch.testing._internal.common_utils import TestCase

        class TestPlain(TestCase):
            def test_something(self):
                pass
    """))
    proc = run_upstream(run_python, str(plain))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "no ocl tests were collected" in proc.stdout


def test_a_cuda_only_class_gets_ocl_tests_through_device_for_custom(run_python, tmp_path):
    # Files that name their devices (only_for=("cpu", "cuda"), as test_transformers.py)
    cuda_only = tmp_path / "test_cuda_only.py"
    cuda_only.write_text(textwrap.dedent("""
        import torch
        from torch.testing._internal.common_device_type import instantiate_device_type_tests
        from torch.testing._internal.common_utils import TestCase

        class TestCudaOnly(TestCase):
            def test_something(self, device):
                self.assertEqual(torch.ones(2, device=device).sum().item(), 2.0)

        instantiate_device_type_tests(TestCudaOnly, globals(), only_for="cuda")
    """))
    proc = run_upstream(run_python, str(cuda_only))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ocl tests: 1 passed, 0 failed" in proc.stdout, proc.stdout


def test_an_unavailable_device_collects_nothing_and_fails(run_python):
    # With every device filtered out, torch.ocl.is_available() is False and
    # PyTorch instantiates no ocl tests: the runner must not report success.
    proc = run_upstream(run_python, UPSTREAM_STYLE, env={"TORCH_OCL_DEVICES": "no-such-device"})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "no ocl tests were collected" in proc.stdout


@pytest.mark.parametrize("missing", ["does_not_exist.py"])
def test_a_missing_file_fails(run_python, missing):
    proc = run_upstream(run_python, missing)
    assert proc.returncode != 0
    assert "no such file" in proc.stdout


SLEEPY = textwrap.dedent("""
    import time
    import torch
    from torch.testing._internal.common_device_type import instantiate_device_type_tests
    from torch.testing._internal.common_utils import TestCase

    class TestSleepy(TestCase):  # unittest runs the tests in name order
        def test_a_passes(self, device):
            self.assertEqual(torch.ones(2, device=device).sum().item(), 2.0)

        def test_b_fails(self, device):
            self.assertEqual(torch.ones(2, device=device).cpu(), torch.zeros(2))

        def test_c_sleeps(self, device):
            time.sleep(900)

        def test_d_never_runs(self, device):
            pass

    instantiate_device_type_tests(TestSleepy, globals())
""")


def test_a_timed_out_file_reports_the_tests_it_ran(run_python, tmp_path):
    # Results are recorded as each test finishes, so the kill at --timeout
    # keeps the two finished tests, and the runner names the test it cut off.
    sleepy = tmp_path / "test_sleepy.py"
    sleepy.write_text(SLEEPY)
    timeout = 20
    while True:
        proc = run_python(None, args=["-m", "torch_ocl.testing.run_upstream", str(sleepy),
                                      "--timeout", str(timeout), "--failures"], timeout=600)
        # On a loaded machine the import of torch can outlast the timeout:
        # then nothing has run yet, and a longer timeout is tried.
        if "while running" in proc.stdout or timeout >= 160:
            break
        timeout *= 2
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "ocl tests: 1 passed, 1 failed, 0 skipped, 0 errors" in proc.stdout, proc.stdout
    assert "pytest exit code 124" in proc.stdout, proc.stdout
    assert (f"TIMED OUT after {timeout} s while running "
            "test_sleepy.py::TestSleepyPRIVATEUSE1::test_c_sleeps_ocl") in proc.stdout, proc.stdout
    assert "FAILED test_sleepy.py::TestSleepyPRIVATEUSE1::test_b_fails_ocl: AssertionError: " \
           "Tensor-likes are not close!" in proc.stdout, proc.stdout
    assert "test_d_never_runs" not in proc.stdout


RECORDING = textwrap.dedent("""
    import torch
    from torch.testing._internal.common_device_type import instantiate_device_type_tests
    from torch.testing._internal.common_utils import TestCase

    class TestRecording(TestCase):
        def test_native(self, device):
            self.assertEqual(torch.ones(3, device=device).sum().item(), 3.0)

        def test_uses_the_fallback(self, device):
            a = torch.ones(1, 3, 3, device=device, dtype=torch.int64)  # an int64 convolution: the fallback
            self.assertEqual(torch.nn.functional.conv1d(a, a.view(3, 3, 1)).cpu(), torch.full((1, 3, 3), 3))

        def test_known_to_fail(self, device):
            self.fail("listed in the disabled file")

        def test_fourth(self, device):
            pass

    instantiate_device_type_tests(TestRecording, globals())
""")


def _run_recording(run_python, tmp_path, *options, env=None):
    """run_upstream over RECORDING with --results-dir and `options`; returns
    the file's summary (the run must exit 0)."""
    import json
    path = tmp_path / "test_recording.py"
    path.write_text(RECORDING)
    results = tmp_path / "results"
    proc = run_python(None, args=["-m", "torch_ocl.testing.run_upstream", str(path), "--results-dir", str(results),
                                  *options], env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads((results / "test_recording.py.summary.json").read_text())


def test_summary_counts_disabled_tests_and_fallback_users(run_python, tmp_path):
    listing = tmp_path / "disabled.yaml"
    listing.write_text('test_recording.py:\n  "test_known_to_fail (TestRecording)": a reason\n'
                       '  "test_fou*_ocl (TestRecording)": a pattern\n')
    summary = _run_recording(run_python, tmp_path, env={"TORCH_OCL_UPSTREAM_DISABLED": str(listing)})
    results = tmp_path / "results"
    assert summary["counts"] == {"passed": 2, "failed": 0, "skipped": 2, "error": 0}, summary
    assert [t.split("::")[-1] for t in summary["disabled"]] == ["test_fourth_ocl", "test_known_to_fail_ocl"], summary
    # the fallback counters are per process: the plugin records each test's own calls
    assert [t.split("::")[-1] for t in summary["passed_with_fallback"]] == ["test_uses_the_fallback_ocl"], summary
    report = run_python(None, args=["-m", "torch_ocl.testing.upstream_report", str(results)], timeout=120)
    assert "| test_recording.py | ? | 4 | 2 | 0 | 0 | 100.0% | 100.0% | 0 | 2 | 1 (50.0%) |" in report.stdout, report.stdout
    # --sources names each file's version (the table shows the commit), --notes is appended
    (tmp_path / "sources.txt").write_text("test/test_recording.py someone/pytorch@0123456789abcdef\n")
    (tmp_path / "notes.md").write_text("## Adaptations\n\n- none\n")
    out = tmp_path / "upstream.md"
    run_python(None, args=["-m", "torch_ocl.testing.upstream_report", str(results), "--sources",
                           str(tmp_path / "sources.txt"), "--notes", str(tmp_path / "notes.md"), "--out", str(out)],
               timeout=120)
    text = out.read_text()
    assert "| test_recording.py | 0123456789 | 4 | 2 |" in text, text
    assert "- `test_recording.py`: someone/pytorch@0123456789abcdef" in text, text
    assert text.endswith("## Adaptations\n\n- none\n"), text


def test_shards_add_up_to_the_whole_file(run_python, tmp_path):
    import json
    path = tmp_path / "test_recording.py"
    path.write_text(RECORDING)
    results = tmp_path / "results"
    ids = []
    for shard in ("0/2", "1/2"):
        run_python(None, args=["-m", "torch_ocl.testing.run_upstream", str(path), "--results-dir", str(results),
                               "--shard", shard], timeout=600)
        summary = json.loads((results / f"test_recording.py.shard{shard.replace('/', 'of')}.summary.json").read_text())
        ids.append(sum(summary["counts"].values()))
    assert ids == [2, 2]
    report = run_python(None, args=["-m", "torch_ocl.testing.upstream_report", str(results)], timeout=120)
    assert "| test_recording.py | ? | 4 | 3 | 1 | 0 | 75.0% |" in report.stdout, report.stdout


def test_rerun_failed_updates_only_the_failed_tests(run_python, tmp_path):
    import json
    path = tmp_path / "test_recording.py"
    path.write_text(RECORDING)
    results = tmp_path / "results"
    run = ["-m", "torch_ocl.testing.run_upstream", str(path), "--results-dir", str(results)]
    run_python(None, args=run, timeout=600)
    summary = json.loads((results / "test_recording.py.summary.json").read_text())
    assert summary["counts"]["failed"] == 1
    # the failing test now passes: only it runs again, the others keep their outcomes
    listing = tmp_path / "disabled.yaml"
    listing.write_text('test_recording.py:\n  "test_known_to_fail (TestRecording)": now disabled\n')
    proc = run_python(None, args=run + ["--rerun-failed"], env={"TORCH_OCL_UPSTREAM_DISABLED": str(listing)},
                      timeout=600)
    assert "ocl tests: 3 passed, 0 failed, 1 skipped" in proc.stdout, proc.stdout


def test_rerun_failed_of_a_shard_reruns_its_failures(run_python, tmp_path):
    # the shard is taken from the whole collection before the rerun's list
    # (re-sharding the list would drop most of a shard's failures)
    import json
    path = tmp_path / "test_recording.py"
    path.write_text(RECORDING)
    results = tmp_path / "results"
    listing = tmp_path / "disabled.yaml"
    listing.write_text('test_recording.py:\n  "test_known_to_fail (TestRecording)": now disabled\n')
    for shard in ("0/4", "1/4", "2/4", "3/4"):  # one test each
        run = ["-m", "torch_ocl.testing.run_upstream", str(path), "--results-dir", str(results), "--shard", shard]
        run_python(None, args=run, timeout=600)
        summary_file = results / f"test_recording.py.shard{shard.replace('/', 'of')}.summary.json"
        if json.loads(summary_file.read_text())["counts"]["failed"] == 0:
            continue
        proc = run_python(None, args=run + ["--rerun-failed"], env={"TORCH_OCL_UPSTREAM_DISABLED": str(listing)},
                          timeout=600)
        assert json.loads(summary_file.read_text())["counts"]["failed"] == 0, proc.stdout
        return
    raise AssertionError("no shard had the failing test")


def test_rerun_fallback_reruns_the_tests_that_used_the_fallback(run_python, tmp_path):
    import json
    path = tmp_path / "test_recording.py"
    path.write_text(RECORDING)
    results = tmp_path / "results"
    run = ["-m", "torch_ocl.testing.run_upstream", str(path), "--results-dir", str(results)]
    run_python(None, args=run, timeout=600)
    jsonl = results / "test_recording.py.jsonl"
    lines = lambda test: jsonl.read_text().count(f"::{test}")  # noqa: E731
    before = {t: lines(t) for t in ("test_native_ocl", "test_uses_the_fallback_ocl", "test_known_to_fail_ocl")}
    # --rerun-fallback runs the failed test and the one that passed through the fallback again, nothing else
    proc = run_python(None, args=run + ["--rerun-fallback"], timeout=600)
    assert "ocl tests: 3 passed, 1 failed" in proc.stdout, proc.stdout  # the merged outcomes
    assert lines("test_native_ocl") == before["test_native_ocl"]
    assert lines("test_uses_the_fallback_ocl") > before["test_uses_the_fallback_ocl"]
    assert lines("test_known_to_fail_ocl") > before["test_known_to_fail_ocl"]
    summary = json.loads((results / "test_recording.py.summary.json").read_text())
    assert [t.split("::")[-1] for t in summary["passed_with_fallback"]] == ["test_uses_the_fallback_ocl"]


def test_only_ids_runs_the_listed_tests_with_or_without_the_file_part(run_python, tmp_path):
    ids = tmp_path / "ids.txt"
    # one id as docs/upstream.md lists them (no file part), one as pytest names it
    ids.write_text("TestRecordingPRIVATEUSE1::test_uses_the_fallback_ocl\n"
                   "test_recording.py::TestRecordingPRIVATEUSE1::test_fourth_ocl\n")
    summary = _run_recording(run_python, tmp_path, "--only-ids", str(ids))
    assert summary["counts"] == {"passed": 2, "failed": 0, "skipped": 0, "error": 0}, summary
    assert [t.split("::")[-1] for t in summary["passed_with_fallback"]] == ["test_uses_the_fallback_ocl"], summary


def test_xdist_runs_record_each_test_once_with_its_own_fallback_calls(run_python, tmp_path):
    import json
    # Under -n 2 the controller sees every worker's reports too; it must not
    # record them (its fallback counters are not the test's: a last line of 0
    # hid fallback users).
    listing = tmp_path / "disabled.yaml"
    listing.write_text('test_recording.py:\n  "test_known_to_fail (TestRecording)": a reason\n')
    summary = _run_recording(run_python, tmp_path, "--", "-n", "2", env={"TORCH_OCL_UPSTREAM_DISABLED": str(listing)})
    lines = (tmp_path / "results" / "test_recording.py.jsonl").read_text().splitlines()
    calls = [line for line in lines if '"when": "call"' in line]
    ids = [json.loads(line)["id"] for line in calls]
    assert len(ids) == len(set(ids)) == 4, calls  # one line per test (PyTorch skips a disabled one in its call)
    assert [t.split("::")[-1] for t in summary["passed_with_fallback"]] == ["test_uses_the_fallback_ocl"], summary


CRASHING = textwrap.dedent("""
    from torch.testing._internal.common_device_type import instantiate_device_type_tests
    from torch.testing._internal.common_utils import TestCase

    class TestCrashing(TestCase):
        def test_a_passes(self, device):
            pass

        def test_b_dies(self, device):
            import ctypes
            ctypes.string_at(0)  # a segfault takes the worker down: no report of its own

        def test_c_passes(self, device):
            pass

    instantiate_device_type_tests(TestCrashing, globals())
""")


def test_a_test_whose_process_dies_is_an_error_not_lost(run_python, tmp_path):
    # Under -n 2 pytest-xdist replaces the dead worker and goes on; only the
    # controller hears of the crash, and it records nothing: the test that
    # started and never reported is counted as an error.
    import json
    path = tmp_path / "test_crashing.py"
    path.write_text(CRASHING)
    results = tmp_path / "results"
    proc = run_python(None, args=["-m", "torch_ocl.testing.run_upstream", str(path), "--results-dir", str(results),
                                  "--", "-n", "2"], timeout=600)
    assert "ocl tests: 2 passed, 0 failed, 0 skipped, 1 errors" in proc.stdout, proc.stdout + proc.stderr
    summary = json.loads((results / "test_crashing.py.summary.json").read_text())
    [(test, message)] = summary["failures"].items()
    assert test.endswith("test_b_dies_ocl") and "died" in message, summary
    # the run's whole output is kept beside the results, with the crash report of the dead worker
    output = (results / "test_crashing.py.output.txt").read_text()
    assert "torch_ocl crash report: signal 11 (SEGV)" in output, output
