"""The torch.ocl device module, device placement helpers, printing,
serialization, memory statistics and pinned memory."""

import gc

import pytest
import torch
from torch.testing import assert_close


def test_is_available_and_count():
    assert torch.ocl.is_available() is True
    n = torch.ocl.device_count()
    assert isinstance(n, int) and n >= 1
    assert torch.ocl.is_initialized()


def test_current_and_set_device():
    assert torch.ocl.current_device() == 0
    torch.ocl.set_device(0)
    assert torch.ocl.current_device() == 0
    torch.ocl.set_device("ocl:0")
    assert torch.ocl.current_device() == 0
    torch.ocl.set_device(torch.device("ocl", 0))
    assert torch.ocl.current_device() == 0


def test_set_device_out_of_range_raises():
    n = torch.ocl.device_count()
    with pytest.raises(RuntimeError, match=f"ocl:{n}"):
        torch.ocl.set_device(n)
    assert torch.ocl.current_device() == 0


def test_set_device_rejects_other_device_types():
    with pytest.raises(ValueError):
        torch.ocl.set_device(torch.device("cpu"))


def test_device_context_manager():
    with torch.ocl.device(0):
        assert torch.ocl.current_device() == 0
        x = torch.empty(3, device="ocl")
        assert x.device == torch.device("ocl", 0)
    with torch.ocl.device("ocl:0"):
        assert torch.ocl.current_device() == 0
    assert torch.ocl.current_device() == 0


def test_default_device_index_is_current():
    x = torch.zeros(2, device="ocl")
    assert x.device.type == "ocl"
    assert x.device.index == torch.ocl.current_device()


def test_synchronize():
    x = torch.randn(1000).to("ocl")
    y = x + 1
    assert torch.ocl.synchronize() is None
    torch.ocl.synchronize(0)
    torch.ocl.synchronize("ocl:0")
    torch.ocl.synchronize(torch.device("ocl:0"))
    assert_close(y.cpu(), x.cpu() + 1)


def test_device_name_and_properties():
    props = torch.ocl.get_device_properties()
    props0 = torch.ocl.get_device_properties(0)
    name = torch.ocl.get_device_name()
    assert isinstance(name, str) and name
    assert name == props.name == props0.name == torch.ocl.get_device_name(0)
    for field in ("name", "vendor", "driver_version"):
        value = getattr(props, field)
        assert isinstance(value, str) and value, field
    assert isinstance(props.total_memory, int) and props.total_memory > 0
    assert isinstance(props.multi_processor_count, int) and props.multi_processor_count > 0
    assert isinstance(props.fp64, bool)
    assert isinstance(props.fp16, bool)
    assert name in repr(props)


def test_fp64_property_matches_behaviour():
    props = torch.ocl.get_device_properties()
    src = torch.tensor([1.25, -2.5], dtype=torch.float64)
    if props.fp64:
        x = src.to("ocl")
        assert x.dtype == torch.float64
        assert_close((x * 2).cpu(), src * 2)
    else:
        with pytest.raises((TypeError, RuntimeError), match="float64"):
            src.to("ocl")


def test_manual_seed_reproducible():
    with torch.ocl.fallback_mode("silent"):
        torch.ocl.manual_seed(1234)
        a = torch.randn(257, device="ocl")
        b_next = torch.randn(257, device="ocl")
        torch.ocl.manual_seed(1234)
        b = torch.randn(257, device="ocl")
    assert a.device.type == "ocl"
    assert_close(a.cpu(), b.cpu(), rtol=0, atol=0)
    assert not torch.equal(a.cpu(), b_next.cpu())
    assert torch.ocl.initial_seed() == 1234


def test_torch_manual_seed_seeds_ocl():
    with torch.ocl.fallback_mode("silent"):
        torch.manual_seed(77)
        a = torch.rand(100, device="ocl")
        torch.manual_seed(77)
        b = torch.rand(100, device="ocl")
    assert torch.equal(a.cpu(), b.cpu())


def test_rng_state_roundtrip():
    with torch.ocl.fallback_mode("silent"):
        torch.ocl.manual_seed(5)
        state = torch.ocl.get_rng_state()
        assert isinstance(state, torch.Tensor) and state.dtype == torch.uint8
        a = torch.randn(64, device="ocl")
        c = torch.randn(64, device="ocl")
        torch.ocl.set_rng_state(state)
        b = torch.randn(64, device="ocl")
    assert torch.equal(a.cpu(), b.cpu())
    assert not torch.equal(a.cpu(), c.cpu())


def test_explicit_generator():
    with torch.ocl.fallback_mode("silent"):
        g = torch.Generator(device="ocl")
        g.manual_seed(9)
        a = torch.randn(32, device="ocl", generator=g)
        g.manual_seed(9)
        b = torch.randn(32, device="ocl", generator=g)
    assert g.device.type == "ocl"
    assert torch.equal(a.cpu(), b.cpu())


def test_tensor_ocl_and_is_ocl():
    cpu = torch.arange(6, dtype=torch.float32).view(2, 3)
    x = cpu.ocl()
    assert x.device.type == "ocl"
    assert x.is_ocl is True
    assert cpu.is_ocl is False
    assert torch.equal(x.cpu(), cpu)
    y = cpu.to("ocl:0")
    assert y.is_ocl and y.device == torch.device("ocl:0")


def test_module_ocl():
    torch.manual_seed(0)
    m = torch.nn.Linear(3, 4)
    ref = {k: v.clone() for k, v in m.state_dict().items()}
    m.ocl()
    for name, p in m.named_parameters():
        assert p.device.type == "ocl", name
        assert torch.equal(p.detach().cpu(), ref[name])
    m.cpu()
    assert all(p.device.type == "cpu" for p in m.parameters())


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.arange(6, dtype=torch.float32).view(2, 3),
        lambda: torch.tensor(3.5),
        lambda: torch.tensor([True, False]),
        lambda: torch.arange(12, dtype=torch.int64).view(3, 4).t(),
        lambda: torch.empty(0, 3),
    ],
    ids=["float2d", "scalar", "bool", "int_transposed", "empty"],
)
def test_repr(make):
    cpu = make()
    x = cpu.to("ocl")
    text = repr(x)
    assert "device='ocl:0'" in text
    # Same formatted data as on the CPU.
    assert text.replace(", device='ocl:0'", "") == repr(cpu)
    assert str(x) == text


def test_save_load(tmp_path):
    base = torch.arange(12, dtype=torch.float32).view(3, 4)
    x = base.to("ocl")
    payload = {"x": x, "t": x.t(), "i": torch.tensor([1, 2, 3]).to("ocl")}
    path = tmp_path / "t.pt"
    torch.save(payload, path)

    loaded = torch.load(path)
    assert loaded["x"].device.type == "ocl"
    assert torch.equal(loaded["x"].cpu(), base)
    assert torch.equal(loaded["t"].cpu(), base.t())
    assert loaded["t"].stride() == x.t().stride()
    assert loaded["i"].device.type == "ocl" and loaded["i"].dtype == torch.int64
    # The two views still share storage after loading.
    assert loaded["x"].untyped_storage().data_ptr() == loaded["t"].untyped_storage().data_ptr()

    on_cpu = torch.load(path, map_location="cpu")
    assert on_cpu["x"].device.type == "cpu"
    assert torch.equal(on_cpu["x"], base)
    assert torch.equal(on_cpu["t"], base.t())


def test_load_cpu_checkpoint_to_ocl(tmp_path):
    base = torch.randn(5, 3)
    path = tmp_path / "cpu.pt"
    torch.save(base, path)
    y = torch.load(path, map_location="ocl")
    assert y.device.type == "ocl"
    assert torch.equal(y.cpu(), base)
    z = torch.load(path, map_location=torch.device("ocl:0"))
    assert z.device == torch.device("ocl:0")


def test_python_m_torch_ocl(run_python):
    proc = run_python(None, args=["-m", "torch_ocl"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert torch.ocl.get_device_name() in proc.stdout


# Memory -------------------------------------------------------------------------


def test_memory_allocated_grows():
    gc.collect()
    before = torch.ocl.memory_allocated()
    x = torch.empty(1 << 20, device="ocl")
    after = torch.ocl.memory_allocated()
    assert after - before >= x.nbytes
    assert torch.ocl.max_memory_allocated() >= after
    assert torch.ocl.memory_reserved() >= after
    assert torch.ocl.max_memory_reserved() >= torch.ocl.memory_reserved()
    del x
    assert torch.ocl.memory_allocated() == before


def test_memory_stats_keys():
    x = torch.empty(1000, device="ocl")
    stats = torch.ocl.memory_stats()
    for key in (
        "allocated_bytes.all.current",
        "allocated_bytes.all.peak",
        "reserved_bytes.all.current",
        "reserved_bytes.all.peak",
        "active_bytes.all.current",
        "num_ooms",
    ):
        assert key in stats, key
    assert stats["allocated_bytes.all.current"] == torch.ocl.memory_allocated()
    assert stats["allocated_bytes.all.current"] >= x.nbytes
    assert stats.keys() == torch.ocl.memory_stats(0).keys()


def test_reset_peak_memory_stats():
    gc.collect()
    x = torch.empty(4 << 20, device="ocl", dtype=torch.uint8)
    peak = torch.ocl.max_memory_allocated()
    assert peak >= torch.ocl.memory_allocated()
    del x
    assert torch.ocl.max_memory_allocated() == peak
    torch.ocl.reset_peak_memory_stats()
    assert torch.ocl.max_memory_allocated() == torch.ocl.memory_allocated()
    assert torch.ocl.max_memory_allocated() < peak


def test_empty_cache_lowers_reserved():
    gc.collect()
    x = torch.empty(16 << 20, device="ocl", dtype=torch.uint8)
    x.fill_(1)
    del x
    reserved = torch.ocl.memory_reserved()
    assert reserved >= 16 << 20
    torch.ocl.empty_cache()
    assert torch.ocl.memory_reserved() < reserved
    assert torch.ocl.memory_reserved() >= torch.ocl.memory_allocated()


def test_mem_get_info():
    free, total = torch.ocl.mem_get_info()
    assert 0 <= free <= total
    assert total > 0


def test_accelerator_memory_allocated_matches():
    x = torch.empty(12345, device="ocl")
    assert torch.accelerator.current_accelerator().type == "ocl"
    assert torch.accelerator.memory_allocated() == torch.ocl.memory_allocated()
    assert torch.accelerator.memory_allocated() >= x.nbytes


# Pinned memory -----------------------------------------------------------------


def test_pin_memory():
    t = torch.randn(1000)
    assert not t.is_pinned()
    p = t.pin_memory()
    assert p.is_pinned()
    assert torch.equal(p, t)
    e = torch.empty(10, pin_memory=True)
    assert e.is_pinned()


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16])
def test_non_blocking_copies_pinned(dtype):
    src = (torch.randn(256, 129) * 100).to(dtype).pin_memory()
    d = src.to("ocl", non_blocking=True)
    d2 = d * 1  # work queued behind the copy
    out = torch.empty(src.shape, dtype=dtype, pin_memory=True)
    out.copy_(d2, non_blocking=True)
    torch.ocl.synchronize()
    assert torch.equal(out, src)
    back = d.to("cpu", non_blocking=True)
    torch.ocl.synchronize()
    assert torch.equal(back, src)


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_legacy_typed_storage_classes():
    # As torch.cuda.FloatStorage & co. for CUDA: one class per dtype in torch.ocl.
    for dtype, name in [(torch.float32, "FloatStorage"), (torch.int64, "LongStorage"),
                        (torch.bfloat16, "BFloat16Storage"), (torch.bool, "BoolStorage"),
                        (torch.complex64, "ComplexFloatStorage")]:
        cls = getattr(torch.ocl, name)
        t = torch.ones(3, dtype=dtype, device="ocl")
        assert t.storage_type() is cls
        assert isinstance(t.storage(), cls)
        assert not isinstance(t.storage(), getattr(torch, name))  # the CPU class
        assert not isinstance(t.cpu().storage(), cls)
        assert torch.is_storage(cls(2))
    s = torch.ocl.LongStorage([4, 5, 6])
    assert s.device == torch.device("ocl", 0) and s.dtype == torch.int64 and s.tolist() == [4, 5, 6]
    assert len(torch.ocl.HalfStorage(5)) == 5
    assert not hasattr(torch.ocl, "QInt8Storage")  # no quantized tensors on ocl
    with pytest.raises(RuntimeError, match="from_buffer"):
        torch.ocl.FloatStorage.from_buffer(b"\0" * 8)


def test_device_profile_follows_the_device_class_and_the_override(run_python):
    props = torch.ocl.get_device_properties(0)
    assert props.profile == ("gpu" if props.type.lower() == "gpu" else "cpu")
    code = "import torch, torch_ocl; print(torch.ocl.get_device_properties(0).profile)"
    for forced in ("cpu", "gpu"):
        proc = run_python(code, env={"TORCH_OCL_DEVICE_PROFILE": forced})
        assert proc.returncode == 0 and proc.stdout.strip() == forced, proc.stderr[-2000:]
    proc = run_python(code, env={"TORCH_OCL_DEVICE_PROFILE": "fast"})
    assert proc.returncode != 0 and "TORCH_OCL_DEVICE_PROFILE must be cpu or gpu" in proc.stderr
