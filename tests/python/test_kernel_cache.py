"""The kernel cache on disk (backend/program_cache.cpp).

Each test runs fresh interpreters with their own TORCH_OCL_CACHE_DIR: a cache
file that is truncated, corrupted, or written for another key/driver is
refused and rebuilt with a warning (never a crash); folders are created 0700
and files 0600; two processes building the same kernel at once both succeed;
an unwritable cache folder degrades to in-memory caching with one warning;
on PoCL a binary is written by a background thread once builds pause.
"""

import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from conftest import PLUGIN_PATH

# Tiny programs: a cold PoCL compile costs well under a second each.
SRC_A = "__kernel void k(__global int* p) { p[0] = 42; }\n"
SRC_B = "__kernel void k(__global int* p) { p[0] = 43; }\n"

PRELUDE = textwrap.dedent(
    """
    import glob, json, os, sys
    import torch, torch_ocl
    from torch_ocl import _C
    SRC_A = %r
    SRC_B = %r
    def stats():
        return _C.program_cache_stats()
    def build(label, src):
        before = stats()
        _C._build_program(label, src, 0)
        after = stats()
        return {k: after[k] - before[k] for k in after}
    def cache_file(label):
        files = [f for f in glob.glob(os.path.join(_C.program_cache_dir(), label + "-*.bin"))]
        assert len(files) == 1, files
        return files[0]
    """
    % (SRC_A, SRC_B)
)


def _env(cache_dir):
    env = dict(os.environ)
    env.pop("TORCH_OCL_FALLBACK", None)
    env["PYTHONPATH"] = os.pathsep.join([PLUGIN_PATH] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["TORCH_OCL_CACHE_DIR"] = str(cache_dir)
    # These tests check the files themselves: write each binary at its first
    # build (on PoCL the default writes it in the background, tested below).
    env["TORCH_OCL_CACHE_SAVE"] = "first"
    return env


def _run(code, cache_dir, timeout=240):
    return subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)], env=_env(cache_dir),
                          capture_output=True, text=True, timeout=timeout)


def _warnings(stderr, what):
    return sum(1 for line in stderr.splitlines() if what in line)


def test_bad_files_are_rebuilt_with_a_warning(tmp_path):
    cache = tmp_path / "nested" / "cache"  # neither folder exists yet
    r = _run(
        """
        def rewrite(path, data):
            with open(path, "wb") as f:
                f.write(data)

        assert build("rel_a", SRC_A)["compiles"] == 1
        assert build("rel_b", SRC_B)["compiles"] == 1
        fa, fb = cache_file("rel_a"), cache_file("rel_b")
        good_a = open(fa, "rb").read()
        assert good_a[:8] == b"TOCLBIN\\0", good_a[:8]
        d = build("rel_a", SRC_A)
        assert d["disk_hits"] == 1 and d["compiles"] == 0, d

        cases = {
            # one flipped byte in the payload: checksum
            "corrupted": good_a[:-7] + bytes([good_a[-7] ^ 0xFF]) + good_a[-6:],
            # cut short (a full disk): length
            "truncated": good_a[: len(good_a) // 2],
            "header_only_part": good_a[:12],
            "empty": b"",
            # the other kernel's file under this kernel's name: key hash
            "foreign_key": open(fb, "rb").read(),
            # not our format at all (e.g. a raw driver binary from an old version)
            "raw_binary": good_a[40:],
            # a newer format version
            "future_version": good_a[:8] + (99).to_bytes(4, "little") + good_a[12:],
            # valid header and checksum over bytes the driver cannot load
            "garbage_payload": None,
        }
        import struct
        garbage = bytes(range(256)) * 8
        def fnv1a(b):
            h = 1469598103934665603
            for x in b:
                h = ((h ^ x) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
            return h
        magic, ver, hsize, key, _, _ = struct.unpack("<8sIIQQQ", good_a[:40])
        cases["garbage_payload"] = struct.pack("<8sIIQQQ", magic, ver, hsize, key, len(garbage), fnv1a(garbage)) + garbage

        for name, data in cases.items():
            rewrite(fa, data)
            d = build("rel_a", SRC_A)
            assert d["compiles"] == 1 and d["disk_rejects"] == 1, (name, d)
            assert open(fa, "rb").read() == good_a, name + ": not rewritten"
            d = build("rel_a", SRC_A)
            assert d["disk_hits"] == 1 and d["compiles"] == 0, (name, d)
        # the cache still works for real ops
        x = torch.arange(5.0, device="ocl")
        assert (x + 1).cpu().tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
        print("CASES", len(cases))
        """,
        cache,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "CASES 8" in r.stdout
    assert _warnings(r.stderr, "is unusable") == 8, r.stderr[-3000:]
    for reason in ("checksum mismatch", "truncated", "another kernel source", "not a torch_ocl kernel cache file",
                   "format version 99", "the driver"):
        assert reason in r.stderr, reason
    assert "not writable" not in r.stderr
    # user-only permissions on what we created; no temp files left behind
    for folder in (tmp_path / "nested", cache):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700, folder
    files = os.listdir(cache)
    assert files and all(f.endswith(".bin") for f in files), files
    for f in files:
        assert stat.S_IMODE(os.stat(cache / f).st_mode) == 0o600, f


def test_unwritable_cache_folder_degrades_to_memory(tmp_path):
    # Tests run as root, which ignores permission bits: a cache path under a
    # regular file cannot be created by anyone.
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    r = _run(
        """
        assert build("rel_a", SRC_A)["compiles"] == 1
        assert build("rel_b", SRC_B)["compiles"] == 1
        assert stats()["disk_write_failures"] == 1
        x = torch.arange(6, device="ocl").reshape(2, 3)
        assert (x * 2 + 1).cpu().tolist() == [[1, 3, 5], [7, 9, 11]]
        assert ((x * 2 + 1) * 2 + 1).cpu().tolist() == [[3, 7, 11], [15, 19, 23]]
        print("OK")
        """,
        blocker / "cache",
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "OK" in r.stdout
    assert _warnings(r.stderr, "kernel cache folder is not writable") == 1, r.stderr[-3000:]
    assert blocker.read_text() == "not a folder"


def test_read_only_folder_as_unprivileged_user(tmp_path):
    """A real read-only folder, as a user for whom permissions apply (as root,
    the child drops to 'nobody'; skipped where that user cannot run Python)."""
    if os.geteuid() == 0:
        # root ignores the mode bits; drop to nobody in the child
        import pwd
        try:
            nobody = pwd.getpwnam("nobody")
        except KeyError:
            pytest.skip("no 'nobody' user")
        uid, gid = nobody.pw_uid, nobody.pw_gid
    else:
        uid = gid = None
    cache = tmp_path / "ro"
    cache.mkdir()
    os.chmod(cache, 0o555)
    os.chmod(tmp_path, 0o755)
    env = _env(cache)
    env["HOME"] = str(tmp_path)  # PoCL's own cache must not need root's home
    env["POCL_CACHE_DIR"] = str(tmp_path / "pocl")
    os.makedirs(tmp_path / "pocl", mode=0o777)
    os.chmod(tmp_path / "pocl", 0o777)

    def drop():
        if uid is not None:
            os.setgid(gid)
            os.setuid(uid)

    code = PRELUDE + textwrap.dedent(
        """
        assert build("rel_a", SRC_A)["compiles"] == 1
        assert stats()["disk_write_failures"] == 1
        print("OK")
        """
    )
    try:
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=240,
                           preexec_fn=drop)
    except PermissionError as e:  # Python lives under /root, which 'nobody' cannot enter
        pytest.skip("the unprivileged user cannot run this Python: %s" % e)
    if uid is not None and r.returncode != 0 and ("Permission denied" in r.stderr or "No module" in r.stderr):
        pytest.skip("the unprivileged user cannot run this Python: " + r.stderr[-300:])
    assert r.returncode == 0, r.stderr[-3000:]
    assert _warnings(r.stderr, "kernel cache folder is not writable") == 1, r.stderr[-3000:]
    assert os.listdir(cache) == []


def test_two_processes_building_the_same_kernel(tmp_path):
    cache = tmp_path / "cache"
    go = tmp_path / "go"
    code = """
        import time
        while not os.path.exists(%r):
            time.sleep(0.01)
        for i in range(6):  # six distinct kernels, built by both at once
            src = SRC_A.replace("42", str(100 + i))
            d = build("race%%d" %% i, src)
            assert d["compiles"] + d["disk_hits"] == 1, d
            assert d["disk_rejects"] == 0, d
        print("OK", json.dumps(stats()))
        """ % str(go)
    procs = [subprocess.Popen([sys.executable, "-c", PRELUDE + textwrap.dedent(code)], env=_env(cache),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    go.write_text("")
    outs = [p.communicate(timeout=240) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
        assert "OK" in out
        assert "is unusable" not in err and "not writable" not in err, err[-3000:]
    files = sorted(os.listdir(cache))
    assert len(files) == 6 and all(f.endswith(".bin") for f in files), files  # no temp files left
    r = _run(
        """
        for i in range(6):
            d = build("race%d" % i, SRC_A.replace("42", str(100 + i)))
            assert d["disk_hits"] == 1 and d["compiles"] == 0, d
        print("OK")
        """,
        cache,
    )
    assert r.returncode == 0 and "OK" in r.stdout, r.stderr[-3000:]


def _env_save(cache_dir, mode):
    env = _env(cache_dir)
    if mode is None:
        env.pop("TORCH_OCL_CACHE_SAVE")
    else:
        env["TORCH_OCL_CACHE_SAVE"] = mode
    return env


def _run_save(code, cache_dir, mode):
    return subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)], env=_env_save(cache_dir, mode),
                          capture_output=True, text=True, timeout=240)


BUILD_ONCE = """
    d = build("twice", SRC_A)
    if os.environ.get("FLUSH"):
        _C.flush_program_cache_writes()
    d["background_writes"] = stats()["background_writes"]
    d["files"] = sorted(os.path.basename(f) for f in glob.glob(os.path.join(_C.program_cache_dir(), "*")))
    print("DELTA", json.dumps(d))
    print("PLATFORM", torch.ocl.get_device_properties().platform)
    """


def _delta(r):
    assert r.returncode == 0, r.stderr[-3000:]
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("DELTA ")][0]
    return json.loads(line[len("DELTA "):])


def test_background_writer_writes_the_binary(tmp_path, monkeypatch):
    """TORCH_OCL_CACHE_SAVE=background: the build returns at once, a
    background thread writes the binary (flushed here), the next process
    loads it instead of building."""
    monkeypatch.setenv("FLUSH", "1")
    cache = tmp_path / "cache"
    d = _delta(_run_save(BUILD_ONCE, cache, "background"))
    assert d["compiles"] == 1 and d["disk_hits"] == 0 and d["background_writes"] == 1, d
    assert len(d["files"]) == 1 and d["files"][0].endswith(".bin"), d
    assert stat.S_IMODE(os.stat(cache / d["files"][0]).st_mode) == 0o600
    d = _delta(_run_save(BUILD_ONCE, cache, "background"))
    assert d["disk_hits"] == 1 and d["compiles"] == 0, d


def test_default_save_policy_follows_the_driver(tmp_path, monkeypatch):
    """Unset (or 'auto'): PoCL writes in the background (asking it for a
    binary compiles every kernel of the program), other drivers at once.
    'first' always writes at once, on the building thread."""
    monkeypatch.setenv("FLUSH", "1")
    r = _run_save(BUILD_ONCE, tmp_path / "auto", None)
    d = _delta(r)
    pocl = "Portable Computing Language" in [ln for ln in r.stdout.splitlines() if ln.startswith("PLATFORM")][0]
    assert d["background_writes"] == (1 if pocl else 0), d
    assert [f.endswith(".bin") for f in d["files"]] == [True]
    d = _delta(_run_save(BUILD_ONCE, tmp_path / "first", "first"))
    assert d["background_writes"] == 0 and [f.endswith(".bin") for f in d["files"]] == [True], d


def test_exit_with_queued_writes_is_clean(tmp_path):
    """A process that exits while writes are queued (or one is in progress)
    exits cleanly: the write in progress completes (no partial file), the
    rest are dropped."""
    r = _run_save(
        """
        for i in range(4):
            build("q%d" % i, "__kernel void k(__global int* p) { p[0] = %d; }\\n" % (50 + i))
        print("BUILT")
        """,
        tmp_path / "c", "background")
    assert r.returncode == 0 and "BUILT" in r.stdout, r.stderr[-3000:]
    files = os.listdir(tmp_path / "c") if (tmp_path / "c").exists() else []
    # no temp file left behind (the writers' lock file stays)
    assert all(f.endswith(".bin") or f == ".binary-write.lock" for f in files), files


def test_writers_of_processes_sharing_the_folder_take_turns(tmp_path):
    """Background writers of processes that share a cache folder hold an
    exclusive lock on <folder>/.binary-write.lock while they generate a
    binary: while another process holds it nothing is written, a process
    exits promptly all the same (its queued write dropped), and once it is
    free the write happens."""
    import fcntl
    import time
    cache = tmp_path / "c"
    cache.mkdir()
    lock = open(cache / ".binary-write.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)  # another process's write in progress
    try:
        t0 = time.monotonic()
        r = _run_save("""
            import time
            d = build("locked", SRC_A)
            time.sleep(2.5)  # past the writer's quiet second: it waits for the lock
            d["background_writes"] = stats()["background_writes"]
            print("DELTA", json.dumps(d))
            """, cache, "background")
        d = _delta(r)
        assert d["compiles"] == 1 and d["background_writes"] == 0, d
        assert time.monotonic() - t0 < 60  # exit did not wait for the lock
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()
    assert [f for f in os.listdir(cache) if f.endswith(".bin")] == []
    r = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(BUILD_ONCE)],
                       env={**_env_save(cache, "background"), "FLUSH": "1"}, capture_output=True, text=True,
                       timeout=240)
    d = _delta(r)
    assert d["compiles"] == 1 and d["background_writes"] == 1, d
    assert [f.endswith(".bin") for f in d["files"]] == [True], d


def test_bad_save_policy_is_an_error(tmp_path):
    r = _run_save(BUILD_ONCE, tmp_path / "c", "sometimes")
    assert r.returncode != 0
    assert "TORCH_OCL_CACHE_SAVE must be 'first', 'background' or 'auto', not 'sometimes'" in r.stderr, r.stderr[-2000:]
