"""PyTorch ecosystem features on ocl: autocast + GradScaler, streams and
events, the compile log and profiler, user OpenCL kernels as custom ops,
torch.compile."""

import copy

import pytest
import torch
import torch.nn.functional as F

import torch_ocl
from torch_ocl.testing import models

from fallback_examples import int_conv

LOW = [torch.float16, torch.bfloat16]


# Autocast ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", LOW, ids=["float16", "bfloat16"])
def test_autocast_op_dtypes_follow_cuda_policy(strict, dtype):
    a = torch.randn(6, 6, device="ocl")
    img = torch.randn(2, 3, 5, 5, device="ocl")
    w = torch.randn(4, 3, 3, 3, device="ocl")
    with torch.autocast("ocl", dtype=dtype):
        low = {
            "mm": torch.mm(a, a), "matmul": a @ a, "linear": F.linear(a, a),
            "bmm": torch.bmm(a[None], a[None]), "addmm": torch.addmm(a, a, a),
            "conv2d": F.conv2d(img, w),
        }
        fp32 = {
            # float32 outputs even from lower-precision inputs
            "softmax": torch.softmax(a.to(dtype), 0), "log_softmax": F.log_softmax(a.to(dtype), 1),
            "sum": a.to(dtype).sum(), "exp": torch.exp(a.to(dtype)), "log": torch.log(a.abs().to(dtype)),
            "layer_norm": F.layer_norm(a.to(dtype), (6,)), "mse_loss": F.mse_loss(a.to(dtype), a),
            "cross_entropy": F.cross_entropy(a.to(dtype), torch.arange(6, device="ocl")),
            # promote: the widest input dtype
            "addcmul": torch.addcmul(a, a.to(dtype), a.to(dtype)),
        }
        untouched = torch.relu(a.to(dtype))  # not on any list: runs in its input dtype
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            F.binary_cross_entropy(torch.rand(3, device="ocl"), torch.rand(3, device="ocl"))
    for name, t in low.items():
        assert t.dtype == dtype, name
    for name, t in fp32.items():
        assert t.dtype == torch.float32, name
    assert untouched.dtype == dtype
    # Values: the lower-precision product equals the CPU product of the rounded inputs.
    ref = torch.mm(a.cpu().to(dtype).float(), a.cpu().to(dtype).float())
    torch.testing.assert_close(low["mm"].float().cpu(), ref, atol=0.1, rtol=0.02)
    assert torch.get_autocast_dtype("ocl") in LOW


def test_autocast_rejects_unsupported_dtype():
    with pytest.warns(UserWarning, match="not supported"):
        with torch.autocast("ocl", dtype=torch.float64):
            pass


def _train(dtype, steps=3):
    spec = models.SPECS["resnet18"]
    model, opt = models.build(spec, "ocl")
    scaler = torch.amp.GradScaler("ocl", enabled=dtype == torch.float16)
    losses = []
    for x, y in models.batches(spec, steps):
        x, y = x.to("ocl"), y.to("ocl")
        opt.zero_grad(set_to_none=True)
        with torch.autocast("ocl", dtype=dtype or torch.float16, enabled=dtype is not None):
            out = model(x)
            loss = spec.loss(out, y)
        if dtype is not None:
            assert out.dtype == dtype and loss.dtype == torch.float32
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    return losses, model


def test_autocast_training_step_close_to_fp32(strict):
    # float16 + GradScaler only: bfloat16's op policy is the same lists (tested above), and a
    # second low-precision training run would compile every CNN kernel again (CI cold time).
    ref, ref_model = _train(None)
    for dtype in [torch.float16]:
        losses, model = _train(dtype)
        # Same weights and batches: the losses track the float32 run.
        assert losses == pytest.approx(ref, abs=0.15), (dtype, losses, ref)
        for p, q in zip(model.parameters(), ref_model.parameters()):
            assert p.dtype == torch.float32 and p.grad.dtype == torch.float32
    assert ref[-1] != ref[0]  # it trained


def test_grad_scaler_skips_step_on_inf_and_backs_off(strict):
    p = torch.nn.Parameter(torch.ones(4, device="ocl"))
    opt = torch.optim.SGD([p], lr=0.1)
    scaler = torch.amp.GradScaler("ocl", init_scale=1024.0)
    scaler.scale((p * torch.tensor([1.0, float("inf"), 1.0, 1.0], device="ocl")).sum()).backward()
    scaler.step(opt)
    scaler.update()
    assert torch.equal(p.detach().cpu(), torch.ones(4))  # step skipped
    assert scaler.get_scale() == 512.0
    opt.zero_grad()
    scaler.scale((p * 2).sum()).backward()
    scaler.step(opt)
    scaler.update()
    torch.testing.assert_close(p.detach().cpu(), torch.full((4,), 0.8))  # unscaled grad 2, lr 0.1
    assert scaler.get_scale() == 512.0


# Streams and events --------------------------------------------------------------

def test_stream_api_matches_torch_cuda():
    default = torch.ocl.default_stream()
    assert torch.ocl.current_stream() == default and default.stream_id == 0
    s = torch.ocl.Stream()
    hi = torch.ocl.Stream(priority=-1)
    assert isinstance(s, torch.Stream) and s.device == torch.device("ocl", 0)
    assert s != default and s.priority == 0 and hi.priority == -1
    assert torch.ocl.Stream.priority_range() == (0, -1)
    with torch.ocl.stream(s):
        assert torch.ocl.current_stream() == s
        assert torch.accelerator.current_stream() == s  # the generic API sees it
        with torch.ocl.stream(hi):
            assert torch.ocl.current_stream() == hi
        assert torch.ocl.current_stream() == s
    assert torch.ocl.current_stream() == default
    torch.ocl.set_stream(s)
    try:
        assert torch.ocl.current_stream() == s
    finally:
        torch.ocl.set_stream(default)
    torch.accelerator.set_stream(hi)
    assert isinstance(torch.ocl.current_stream(), torch.ocl.Stream) and torch.ocl.current_stream() == hi
    torch.accelerator.set_stream(default)
    # The generic constructor reaches the same pools.
    g = torch.Stream(device="ocl")
    assert g.device_type == s.device_type and 1 <= g.stream_id
    with pytest.raises(ValueError, match="ocl stream"):
        torch.ocl.set_stream(torch.Stream(device="cpu"))


def test_wait_stream_orders_work_across_streams(strict):
    side = torch.ocl.Stream()
    x = torch.arange(1 << 20, dtype=torch.float32, device="ocl")
    ref = torch.arange(1 << 20, dtype=torch.float32)
    side.wait_stream(torch.ocl.current_stream())  # x is ready before side reads it
    with torch.ocl.stream(side):
        y = x
        for _ in range(30):  # a queue of work on the side stream
            y = y * 1.5 - 2.0
    for _ in range(30):
        ref = ref * 1.5 - 2.0
    torch.ocl.current_stream().wait_stream(side)
    y.record_stream(torch.ocl.current_stream())  # y is used on the default stream from here on
    z = y + 1.0
    assert torch.equal(z.cpu(), ref + 1.0)
    # Events: the same ordering through record_event / wait_event.
    with torch.ocl.stream(side):
        w = z * 2.0
        ev = side.record_event()
    assert isinstance(ev, torch.Event) and ev.device.type == "ocl"
    torch.ocl.current_stream().wait_event(ev)
    assert torch.equal((w - 1.0).cpu(), (ref + 1.0) * 2.0 - 1.0)
    side.synchronize()
    assert side.query() and ev.query()


def test_event_elapsed_time_is_plausible():
    import time

    a = torch.randn(256, 256, device="ocl")
    torch.ocl.synchronize()
    start, end = torch.ocl.Event(enable_timing=True), torch.ocl.Event(enable_timing=True)
    t0 = time.perf_counter()
    start.record()
    for _ in range(8):
        a = torch.tanh(a @ a)
    end.record()
    end.synchronize()
    wall_ms = (time.perf_counter() - t0) * 1e3
    assert start.query() and end.query()
    ms = start.elapsed_time(end)
    assert 0 < ms <= wall_ms * 1.05 + 0.5, (ms, wall_ms)
    # The generic torch.Event reaches the same implementation.
    g0, g1 = torch.Event(device="ocl", enable_timing=True), torch.Event(device="ocl", enable_timing=True)
    g0.record()
    (a @ a).sum()
    g1.record()
    g1.synchronize()
    assert g0.elapsed_time(g1) > 0
    e0, e1 = torch.ocl.Event(), torch.ocl.Event()
    e0.record()
    e1.record()
    e1.synchronize()
    with pytest.raises(ValueError, match="enable_timing"):
        e0.elapsed_time(e1)


# Profiling ------------------------------------------------------------------------

def test_compile_log_names_each_program(run_python, tmp_path):
    code = (
        "import torch, torch_ocl\n"
        "k = torch_ocl.Kernel('__kernel void logged_fill(__global float* y, float v) "
        "{ y[get_global_id(0)] = v; }', 'logged_fill')\n"
        "y = torch.empty(8, device='ocl'); k(8, y, 3.0); print(y.cpu().sum().item())\n"
    )
    # The second run must find the binary: written at the first build.
    env = {"TORCH_OCL_LOG": "compile", "TORCH_OCL_CACHE_DIR": str(tmp_path), "TORCH_OCL_CACHE_SAVE": "first"}
    first = run_python(code, env=env)
    assert first.returncode == 0, first.stderr
    assert "24.0" in first.stdout
    line = [ln for ln in first.stderr.splitlines() if "user_logged_fill" in ln]
    assert len(line) == 1 and "[torch_ocl] compile" in line[0] and "built" in line[0] and " ms" in line[0]
    second = run_python(code, env=env)
    assert [ln for ln in second.stderr.splitlines() if "user_logged_fill" in ln][0].count("disk cache") == 1
    quiet = run_python(code, env={"TORCH_OCL_LOG": None, "TORCH_OCL_CACHE_DIR": str(tmp_path)})
    assert "[torch_ocl] compile" not in quiet.stderr


def test_profiler_table_device_time_fallbacks_and_trace(tmp_path):
    import json

    import torch_ocl.profiler

    a = torch.randn(128, 128, device="ocl")
    torch.relu(a @ a)  # warm: kernels built outside the profile
    trace = tmp_path / "trace.json"
    with torch.ocl.fallback_mode("silent"):
        with torch_ocl.profiler.profile(trace=str(trace)) as prof:
            for _ in range(3):
                b = torch.relu(a @ a)
            int_conv(b[:2, :2].long())  # an int64 convolution: the CPU fallback
    rows = {r[0]: r for r in prof.rows()}
    assert rows["aten::mm"][1] == 3 and rows["aten::relu"][1] == 3
    assert rows["aten::mm"][2] > 0 and rows["aten::mm"][4] > 0  # host and device time
    assert sum(prof.fallback_calls.values()) >= 1
    table = prof.table()
    assert "aten::mm" in table and "device ms" in table and "fallback calls:" in table
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e.get("name") == "aten::mm" for e in events)


# User OpenCL kernels ------------------------------------------------------------

AXPY = r"""
__kernel void eco_axpy(__global const float* x, __global const float* y, __global float* out,
                       float a, long n) {
  long i = get_global_id(0);
  if (i < n) out[i] = a * x[i] + y[i];
}
"""
TRANSPOSE = r"""
__kernel void eco_transpose(__global const int* src, __global int* dst, int rows, int cols) {
  int r = get_global_id(0), c = get_global_id(1);
  dst[c * rows + r] = src[r * cols + c];
}
"""
SQUARE = r"""
__kernel void eco_square(__global const float* x, __global float* y) {
  size_t i = get_global_id(0);
  y[i] = x[i] * x[i];
}
"""


def test_user_kernel_launch():
    k = torch_ocl.Kernel(AXPY, "eco_axpy")
    assert [p.name for p in k.params] == ["x", "y", "out", "a", "n"]
    x, y = torch.randn(1000), torch.randn(1000)
    out = torch.empty(1000, device="ocl")
    k(1024, x.to("ocl"), y.to("ocl"), out, 2.5, 1000)
    torch.testing.assert_close(out.cpu(), 2.5 * x + y)
    t = torch_ocl.Kernel(TRANSPOSE, "eco_transpose")
    src = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    dst = torch.empty(4, 3, dtype=torch.int32, device="ocl")
    t((3, 4), src.to("ocl"), dst, 3, 4)  # a 2-D range
    assert torch.equal(dst.cpu(), src.t())
    with pytest.raises(TypeError, match="takes 5 arguments"):
        k(8, out, out)
    with pytest.raises(RuntimeError, match="must be an ocl tensor"):
        k(8, x, y, out, 1.0, 8)
    with pytest.raises(RuntimeError, match="contiguous"):
        t((3, 4), src.to("ocl").t(), dst, 3, 4)
    with pytest.raises(ValueError, match="no '__kernel void nothere"):
        torch_ocl.Kernel(AXPY, "nothere")
    bad = torch_ocl.Kernel("__kernel void eco_bad(__global float* x) { x[0] = undeclared; }", "eco_bad")
    with pytest.raises(RuntimeError, match="build log"):
        bad(1, out)


def test_user_kernel_as_custom_op_eager_compile_and_views():
    axpy = torch_ocl.kernel(AXPY, "eco_axpy", outputs={"out": "x"},
                            grid=lambda x, y, a, n: n)
    assert isinstance(axpy, torch._library.custom_ops.CustomOpDef)
    x, y = torch.randn(33, 7), torch.randn(33, 7)
    xo, yo = x.to("ocl"), y.to("ocl")
    torch.testing.assert_close(axpy(xo, yo, 3.0, x.numel()).cpu(), 3.0 * x + y)
    torch.testing.assert_close(torch.ops.torch_ocl_user.eco_axpy(xo, yo, 3.0, x.numel()).cpu(), 3.0 * x + y)
    # A transposed input and a view starting mid-buffer are copied in.
    torch.testing.assert_close(axpy(xo.t(), yo.t(), 1.0, x.numel()).cpu(), x.t() + y.t())
    torch.testing.assert_close(axpy(xo[1:], yo[1:], -1.0, 32 * 7).cpu(), -x[1:] + y[1:])
    # torch.compile traces it through the fake implementation.
    f = torch.compile(lambda a, b: axpy(a, b, 2.0, a.numel()).relu(), backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(f(xo, yo).cpu(), (2.0 * x + y).relu())
    assert torch_ocl.kernel(AXPY, "eco_axpy", outputs={"out": "x"}) is axpy  # defined once
    with pytest.raises(ValueError, match="non-const"):
        torch_ocl.kernel(AXPY, "eco_axpy", outputs={"x": "y"}, op_name="torch_ocl_user::bad_out")


def test_user_kernel_op_autograd():
    def setup(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x

    square = torch_ocl.kernel(SQUARE, "eco_square", outputs={"y": "x"}, backward=backward, setup_context=setup)
    x = torch.randn(50, dtype=torch.float32)
    xo = x.to("ocl").requires_grad_()
    y = square(xo)
    torch.testing.assert_close(y.detach().cpu(), x * x)
    (y * torch.arange(50.0, device="ocl")).sum().backward()
    torch.testing.assert_close(xo.grad.cpu(), 2 * x * torch.arange(50.0))
    torch.library.opcheck(square, (x.to("ocl"),), test_utils=("test_schema", "test_faketensor",
                                                              "test_autograd_registration"))


# torch.compile --------------------------------------------------------------------

def test_torch_compile_aot_eager_trains_like_eager(strict):
    spec = models.SPECS["resnet18"]
    (x, y), = models.batches(spec, 1)
    x, y = x.to("ocl"), y.to("ocl")
    eager, _ = models.build(spec, "ocl")
    compiled_model, _ = models.build(spec, "ocl")
    compiled = torch.compile(compiled_model, backend="aot_eager")
    for m in (eager, compiled):
        spec.loss(m(x), y).backward()
    for (name, p), q in zip(eager.named_parameters(), compiled_model.parameters()):
        torch.testing.assert_close(q.grad, p.grad, atol=1e-4, rtol=1e-3, msg=name)


def test_torch_compile_default_backend_runs_on_ocl(strict):
    """The default backend (Inductor) generates OpenCL for ocl
    (tests/python/test_compile.py has the rest)."""
    torch._dynamo.reset()
    m = torch.nn.Linear(4, 4)
    x = torch.randn(2, 4)
    got = torch.compile(copy.deepcopy(m).to("ocl"))(x.to("ocl"))
    torch.testing.assert_close(got.cpu(), m(x), rtol=1e-5, atol=1e-5)
