"""Model zoo: tiny `transformers` models of 20 architectures (tests/python/
zoo_models.py: BERT, RoBERTa, ELECTRA; GPT-2, Llama, Gemma, OPT, Qwen2,
GPT-NeoX, Phi, Mixtral (MoE); BART, T5, Whisper; ViT, Swin, ResNet, ConvNeXt;
wav2vec2 (CTC); CLIP), built from configs (no download), dropout off, trained
3 AdamW steps on `ocl` under fallback_mode("error") next to the same training
on the CPU in float32 and float64, from the same initial weights
(`model.to("ocl")` of a deep copy) on the same batch.

A step's loss passes when it is as close to the float64 CPU loss as twice the
float32 CPU loss is (|ocl - cpu64| <= 2 |cpu32 - cpu64| + 1e-6 |cpu64|), or
within 2e-3 relative of the float32 CPU loss. Decoders and encoder-decoders
also generate greedily (5 new tokens, KV cache): the tokens must be the CPU's
and the step scores close. When an op has no native kernel the test reruns
the training with the fallback allowed and fails naming the ops
(torch.ocl.fallback_stats()) and whether the losses then match.

Also: an optimizer built before `model.to("ocl")` (what CUDA users do) keeps
training the moved model, tied embeddings stay tied, and bad input (float
token ids, CPU input to an ocl model, token ids or labels out of range)
raises the CPU's error type (device-side checks at the next sync).
"""

import copy
import functools
import math
import os

import pytest
import torch

pytest.importorskip("transformers")

from zoo_models import ZOO, make_optimizer, to_device, train_step  # noqa: E402

STEPS = 3
# The issue allows 2e-3 relative; measured gaps are <= 7e-7 (CLIP), and 2e-3 once hid
# live dropout (GPT-2's *_pdrop), so the bound is tighter.
REL_TOL = 1e-4
SCORE_TOL = dict(rtol=1e-3, atol=1e-4)
NO_KERNEL = "has no native ocl kernel"

# Temporary: models failing today because of known defects, to be removed
# with the fixes (issue 27). strict=True: a fix makes the test XPASS -> fail,
# so the mark cannot outlive the defect.
KNOWN = {}


def _param(name):
    marks = [pytest.mark.xfail(strict=True, reason=KNOWN[name])] if name in KNOWN else []
    return pytest.param(name, marks=marks, id=name)


TRAIN = [_param(n) for n in ZOO]
GENERATE = [pytest.param(n, id=n) for n, s in ZOO.items() if s.generates]


def _losses(model, batch, opt=None):
    opt = opt if opt is not None else make_optimizer(model)
    return [train_step(model, opt, batch) for _ in range(STEPS)]


@functools.lru_cache(maxsize=None)
def cpu_losses(name):
    """(float32, float64) CPU losses of the zoo model's 3 training steps."""
    spec = ZOO[name]
    batch = spec.batch()
    l32 = [float(x) for x in _losses(spec.build(), batch)]
    try:
        l64 = [float(x) for x in _losses(spec.build().double(), to_device(batch, "cpu", torch.float64))]
    except RuntimeError:  # a float32-only CPU kernel (Mixtral's grouped_mm experts)
        l64 = [math.nan] * STEPS
    return tuple(l32), tuple(l64)


def loss_mismatches(got, l32, l64):
    """The steps whose loss fails the zoo's tolerance, as readable lines."""
    bad = []
    for i, (o, c, d) in enumerate(zip(got, l32, l64)):
        if not math.isfinite(o):
            bad.append(f"step {i}: ocl {o!r}")
            continue
        if abs(o - d) <= 2 * abs(c - d) + 1e-6 * abs(d) or abs(o - c) <= REL_TOL * abs(c):
            continue
        bad.append(f"step {i}: ocl {o:.7g}, cpu32 {c:.7g}, cpu64 {d:.7g} "
                   f"(|ocl-cpu32|/|cpu32| = {abs(o - c) / abs(c):.2e})")
    return bad


def train_on_ocl(name, optimizer_before_move=False):
    """Train a copy of the zoo model on ocl; returns (model, losses as floats)."""
    spec = ZOO[name]
    model = copy.deepcopy(spec.build())
    opt = make_optimizer(model) if optimizer_before_move else None
    model.to("ocl")
    if opt is None:
        opt = make_optimizer(model)
    batch = to_device(spec.batch(), "ocl")
    losses = torch.stack(_losses(model, batch, opt)).cpu().tolist()
    return model, opt, losses


def fallback_report(name, err):
    """Rerun the ocl training with the CPU fallback allowed: which ops fell
    back (calls in 3 steps) and whether the losses then match the CPU's."""
    torch.ocl.reset_fallback_stats()
    try:
        with torch.ocl.fallback_mode("silent"):
            _, _, losses = train_on_ocl(name)
        stats = dict(sorted(torch.ocl.fallback_stats().items()))
        bad = loss_mismatches(losses, *cpu_losses(name))
        verdict = "losses match the CPU's with the fallback" if not bad else "losses differ: " + "; ".join(bad)
    except Exception as e2:  # noqa: BLE001  (reported, not hidden)
        stats = dict(sorted(torch.ocl.fallback_stats().items()))
        verdict = f"also fails with the fallback: {type(e2).__name__}: {str(e2)[:300]}"
    finally:
        torch.ocl.reset_fallback_stats()
    return f"{name}: ops without a native ocl kernel: {stats}; {verdict} (strict-mode error: {err})"


@pytest.mark.parametrize("name", TRAIN)
def test_zoo_trains_like_cpu(name):
    l32, l64 = cpu_losses(name)
    assert all(math.isfinite(x) for x in l32) and l32[0] != l32[-1], l32  # training moves the loss
    try:
        with torch.ocl.fallback_mode("error"):
            model, opt, losses = train_on_ocl(name)
    except RuntimeError as e:
        if NO_KERNEL not in str(e):
            raise
        pytest.fail(fallback_report(name, str(e).splitlines()[0]), pytrace=False)
    bad = loss_mismatches(losses, l32, l64)
    assert not bad, f"{name} per-step losses differ from the CPU's:\n" + "\n".join(bad)
    assert all(p.device.type == "ocl" for p in model.parameters())
    if ZOO[name].tied:
        assert model.get_output_embeddings().weight is model.get_input_embeddings().weight, \
            "tied embeddings are no longer one Parameter after model.to('ocl')"


@pytest.mark.parametrize("name", ["gpt2", "bert"])
def test_zoo_optimizer_built_before_move(name):
    """CUDA users build the optimizer first, then model.to(device): the
    optimizer holds the same Parameter objects, now on ocl, and trains the
    moved model (losses as on the CPU)."""
    with torch.ocl.fallback_mode("error"):
        model, opt, losses = train_on_ocl(name, optimizer_before_move=True)
    held = [p for g in opt.param_groups for p in g["params"]]
    assert {id(p) for p in held} == {id(p) for p in model.parameters()}
    assert all(p.device.type == "ocl" for p in held)
    bad = loss_mismatches(losses, *cpu_losses(name))
    assert not bad, f"{name} (optimizer built before the move) losses differ from the CPU's:\n" + "\n".join(bad)


# torch.compile(model) with the default backend (Inductor's OpenCL code generator): the
# compiled model trains like the CPU, forward and backward, with the fallback forbidden,
# and generated kernels ran. CI compiles three architectures; TORCH_OCL_ZOO_COMPILE=all
# compiles every one.
COMPILED = list(ZOO) if os.environ.get("TORCH_OCL_ZOO_COMPILE") == "all" else ["bert", "gpt2", "llama"]


@pytest.mark.parametrize("name", COMPILED)
def test_zoo_compiled_trains_like_cpu(name):
    from torch_ocl import _inductor

    l32, l64 = cpu_losses(name)
    spec = ZOO[name]
    torch._dynamo.reset()
    model = copy.deepcopy(spec.build()).to("ocl")
    opt = make_optimizer(model)
    batch = to_device(spec.batch(), "ocl")
    launches = _inductor.generated_launches()
    with torch.ocl.fallback_mode("error"):
        losses = torch.stack(_losses(torch.compile(model), batch, opt)).cpu().tolist()
    assert _inductor.generated_launches() > launches, f"{name}: no generated kernel ran"
    bad = loss_mismatches(losses, l32, l64)
    assert not bad, f"{name} compiled: per-step losses differ from the CPU's:\n" + "\n".join(bad)


def _generate(model, prompt):
    out = model.generate(**prompt, max_new_tokens=5, do_sample=False, use_cache=True,
                         return_dict_in_generate=True, output_scores=True)
    return out.sequences.cpu(), [s.float().cpu() for s in out.scores]


@pytest.mark.parametrize("name", GENERATE)
def test_zoo_generates_like_cpu(name):
    spec = ZOO[name]
    model_c = spec.build().eval()
    model_o = copy.deepcopy(model_c).to("ocl")
    prompt = spec.prompt()
    seq_c, scores_c = _generate(model_c, prompt)
    try:
        with torch.ocl.fallback_mode("error"):
            seq_o, scores_o = _generate(model_o, to_device(prompt, "ocl"))
    except RuntimeError as e:
        if NO_KERNEL not in str(e):
            raise
        torch.ocl.reset_fallback_stats()
        with torch.ocl.fallback_mode("silent"):
            seq_f, _ = _generate(model_o, to_device(prompt, "ocl"))
        stats = dict(sorted(torch.ocl.fallback_stats().items()))
        pytest.fail(f"{name} generate: ops without a native ocl kernel: {stats}; with the fallback the "
                    f"tokens {'match' if torch.equal(seq_f, seq_c) else 'differ'}", pytrace=False)
    assert seq_o.tolist() == seq_c.tolist(), f"{name}: greedy tokens differ from the CPU's"
    assert len(scores_o) == len(scores_c)
    for i, (so, sc) in enumerate(zip(scores_o, scores_c)):
        finite = torch.isfinite(sc)
        assert torch.equal(torch.isfinite(so), finite), f"step {i}: masked tokens differ"
        torch.testing.assert_close(so[finite], sc[finite], **SCORE_TOL, msg=lambda m: f"step {i} scores: {m}")


# ---------------------------------------------------------------- bad input

def _error_of(fn):
    """The exception fn raises (its type and first line), None if none."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e).splitlines()[0] if str(e) else ""
    return None


def _forward_loss(model, batch):
    """Forward + loss + a sync (a device-side check raises at the sync)."""
    loss = model(**batch).loss
    loss.item()
    if loss.device.type == "ocl":
        torch.ocl.synchronize()


def _models(name):
    model_c = ZOO[name].build()
    return model_c, copy.deepcopy(model_c).to("ocl")


def _then_healthy(name, model_c, model_o):
    """After a bad input the device still computes: a good batch gives the
    CPU's loss."""
    batch = ZOO[name].batch()
    with torch.no_grad():
        expected = model_c(**batch).loss
        got = model_o(**to_device(batch, "ocl")).loss.cpu()
    torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-5)


def _raises_like_cpu_then_healthy(name, model_c, model_o, batch):
    """The bad batch raises on the CPU; on ocl (natively) it raises the same
    exception type; then both models still compute a good batch alike."""
    want = _error_of(lambda: _forward_loss(model_c, batch))
    assert want is not None
    with torch.ocl.fallback_mode("error"):
        got = _error_of(lambda: _forward_loss(model_o, to_device(batch, "ocl")))
    assert got is not None and got[0] is want[0], f"cpu raised {want}, ocl raised {got}"
    _then_healthy(name, model_c, model_o)


MISUSE_MODELS = ["bert", "gpt2", "t5"]


@pytest.mark.parametrize("name", MISUSE_MODELS)
def test_zoo_float_input_ids(name):
    model_c, model_o = _models(name)
    batch = ZOO[name].batch()
    batch["input_ids"] = batch["input_ids"].float()
    _raises_like_cpu_then_healthy(name, model_c, model_o, batch)


@pytest.mark.parametrize("name", MISUSE_MODELS + ["vit"])
def test_zoo_cpu_input_to_ocl_model(name):
    """CUDA raises RuntimeError 'Expected all tensors to be on the same
    device' for a CPU batch fed to a model on the device (a convolution:
    'Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)
    should be the same')."""
    _, model_o = _models(name)
    with torch.ocl.fallback_mode("error"):
        got = _error_of(lambda: _forward_loss(model_o, ZOO[name].batch()))
    assert got is not None and got[0] is RuntimeError, got
    assert "same device" in got[1] or ("Input type (torch.FloatTensor)" in got[1] and "should be the same" in got[1]), got


@pytest.mark.parametrize("name", MISUSE_MODELS)
def test_zoo_token_id_out_of_range(name):
    """An embedding index past the vocabulary: the CPU raises IndexError at
    once; ocl checks on the device and raises at the next sync, with the
    same type, and keeps working."""
    model_c, model_o = _models(name)
    batch = ZOO[name].batch()
    batch["input_ids"] = batch["input_ids"].clone()
    batch["input_ids"][0, 1] = ZOO[name].build().get_input_embeddings().num_embeddings + 7
    _raises_like_cpu_then_healthy(name, model_c, model_o, batch)


@pytest.mark.parametrize("name", ["bert", "gpt2", "vit"])
def test_zoo_label_out_of_range(name):
    """A class label past the number of classes: the CPU's cross_entropy
    raises IndexError ('Target N is out of bounds')."""
    model_c, model_o = _models(name)
    batch = ZOO[name].batch()
    batch["labels"] = batch["labels"].clone()
    batch["labels"][..., -1] = 1000  # the last position: a causal LM drops the first label
    _raises_like_cpu_then_healthy(name, model_c, model_o, batch)
