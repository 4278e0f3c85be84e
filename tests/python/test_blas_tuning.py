"""CLBlast tuning as data: `python -m torch_ocl.tune` parses the tuners' output and writes the
parameter file; the plugin applies a file from the cache folder with OverrideParameters.
No real tuning runs here: the tuners are replaced by a fake script that prints CLBlast's table."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
import torch


# A valid Xgemm configuration for any OpenCL device (small work groups).
XGEMM = {"GEMMK": 0, "KREG": 1, "KWG": 16, "KWI": 2, "MDIMA": 8, "MDIMC": 8, "MWG": 32, "NDIMB": 8, "NDIMC": 8,
         "NWG": 32, "SA": 0, "SB": 0, "STRM": 0, "STRN": 0, "VWM": 1, "VWN": 1}


def run_python(code, env):
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)


def base_env(tmp_path):
    env = dict(os.environ)
    env["TORCH_OCL_CACHE_DIR"] = str(tmp_path / "cache")
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env.pop("TORCH_OCL_TUNING", None)
    return env


def fake_tuner(bin_dir, name, params, rows):
    """A script named like a CLBlast tuner that prints its table: rows = [(values, ms, status)]."""
    lines = ["* Found 3 configuration(s)", "* Parameters explored: " + " ".join(params), "",
             "|   ID | total | param | compiles | time | GFLOPS | status |",
             "|  ref |     - | - | OK | 1.00 ms | - | reference OK |"]
    for i, (values, ms, status) in enumerate(rows, 1):
        vals = " ".join(f"{v:4d}" for v in values)
        lines.append(f"| {i:4d} | {len(rows):5d} | {vals} |   8   8 |  64  64 |   OK   120 ms |   {ms:8.2f} ms |"
                     f"    1.0 |   {status} |")
    path = bin_dir / name
    path.write_text("#!/bin/sh\ncat <<'EOF'\n" + "\n".join(lines) + "\nEOF\n")
    path.chmod(0o755)


def test_tune_parses_tuner_output_and_writes_file(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    names = list(XGEMM)
    good = [XGEMM[n] for n in names]
    slower = dict(XGEMM, MWG=64)
    fake_tuner(bin_dir, "clblast_tuner_xgemm", names,
               [([slower[n] for n in names], 9.0, "results match"),
                (good, 2.5, "results match"),
                ([XGEMM[n] if n != "NWG" else 16 for n in names], 0.5, "results differ")])  # wrong: ignored
    env = base_env(tmp_path)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    out = tmp_path / "tuned.json"
    r = subprocess.run([sys.executable, "-m", "torch_ocl.tune", "--kernels", "Xgemm", "--out", str(out)],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "[tune] Xgemm/32" in r.stdout
    data = json.loads(out.read_text())
    assert data["parameters"]["Xgemm"]["32"] == XGEMM
    assert data["best_ms"]["Xgemm"]["32"] == 2.5
    assert data["device"] == torch.ocl.get_device_properties(0).name


def test_tune_without_tuners_says_what_to_install(tmp_path):
    env = base_env(tmp_path)
    env["PATH"] = str(tmp_path)  # no tuner programs
    r = subprocess.run([sys.executable, "-m", "torch_ocl.tune", "--out", str(tmp_path / "x.json")],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 1
    assert "clblast-utils" in r.stderr
    assert not (tmp_path / "x.json").exists()


# blas_tuning applies the file (as the first CLBlast call does) and names it
CHECK = textwrap.dedent("""
    import torch, torch_ocl
    print("SOURCE=" + torch.ocl.get_device_properties(0).blas_tuning)
""")
# ... and a GEMM runs with the file's parameters (a cold CLBlast compile: seconds on PoCL)
CHECK_MM = textwrap.dedent("""
    import torch, torch_ocl
    a, b = torch.randn(70, 50), torch.randn(50, 90)
    r = torch.mm(a.to("ocl"), b.to("ocl")).cpu()
    torch.testing.assert_close(r, a @ b, rtol=1e-4, atol=1e-4)
""") + CHECK


def test_cached_tuning_file_is_applied(tmp_path):
    env = base_env(tmp_path)
    from torch_ocl import _C
    p = torch.ocl.get_device_properties(0)
    folder = tmp_path / "cache" / "tuning"
    folder.mkdir(parents=True)
    f = folder / _C.blas_tuning_file_name(p.name, p.driver_version)
    f.write_text(json.dumps({"device": p.name, "parameters": {"Xgemm": {"32": XGEMM}}}))
    r = run_python(CHECK_MM, env)
    assert r.returncode == 0, r.stderr
    assert f"SOURCE={f}" in r.stdout
    # TORCH_OCL_TUNING=0: CLBlast's defaults, no file
    env["TORCH_OCL_TUNING"] = "0"
    r = run_python(CHECK, env)
    assert r.returncode == 0, r.stderr
    assert "SOURCE=\n" in r.stdout


def test_bad_tuning_file_warns_and_keeps_defaults(tmp_path):
    env = base_env(tmp_path)
    from torch_ocl import _C
    p = torch.ocl.get_device_properties(0)
    folder = tmp_path / "cache" / "tuning"
    folder.mkdir(parents=True)
    (folder / _C.blas_tuning_file_name(p.name, p.driver_version)).write_text("{not json")
    r = run_python(CHECK, env)
    assert r.returncode == 0, r.stderr
    assert "ignoring the CLBlast tuning file" in r.stderr
    # falls back to the shipped file for this device, if the package has one, else none
    shipped = os.path.join(os.path.dirname(_C.__file__), "tuning",
                           _C.blas_tuning_file_name(p.name, p.driver_version))
    expected = shipped if os.path.exists(shipped) else ""
    assert f"SOURCE={expected}\n" in r.stdout
