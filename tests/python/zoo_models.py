"""Tiny `transformers` models for the model zoo (tests/python/test_model_zoo.py,
bench/bench_zoo.py, bench/first_step.py): one builder per architecture, from a
config (no download), dropout and every other source of training-time
randomness off, and the batch each one trains on (labels for its own loss).

    spec = ZOO["bert"]
    model = spec.build(seed=0)            # on the CPU, float32, train() mode
    batch = spec.batch(seed=1)            # dict of CPU tensors, with labels
    loss = model(**batch).loss

`spec.generate` holds the prompt kwargs for greedy `generate` (decoders and
encoder-decoders), or None.
"""

import copy
import dataclasses
import warnings
from typing import Callable, Optional

import torch

VOCAB = 99
HIDDEN = 32
LAYERS = 2
HEADS = 4
FFN = 37
BATCH = 2
SEQ = 10


def _no_randomness(cfg):
    """Zero every dropout (GPT-2: *_pdrop) / drop-path / layer-drop / SpecAugment probability of
    a config and its sub-configs (CLIP's text_config and vision_config)."""
    for key, value in list(vars(cfg).items()):
        if hasattr(value, "to_dict") and hasattr(value, "model_type"):
            _no_randomness(value)
            continue
        if not isinstance(value, float) or isinstance(value, bool):
            continue
        k = key.lower()
        if ("dropout" in k or k.endswith("pdrop") or "drop_path" in k or "layerdrop" in k or k.endswith("drop_prob")
                or k in ("mask_time_prob", "mask_feature_prob", "router_jitter_noise")):
            setattr(cfg, key, 0.0)
    return cfg


def _ids(g, *shape, low=3, high=VOCAB):
    return torch.randint(low, high, shape, generator=g)


def _padded_mask(batch=BATCH, seq=SEQ, pad=3):
    """All ones except the last `pad` positions of the last row."""
    m = torch.ones(batch, seq, dtype=torch.long)
    m[-1, seq - pad:] = 0
    return m


@dataclasses.dataclass
class ZooSpec:
    name: str
    family: str
    make: Callable[[], torch.nn.Module]      # builds the model (seeded by build())
    make_batch: Callable[[torch.Generator], dict]
    make_prompt: Optional[Callable[[torch.Generator], dict]] = None
    tied: bool = False                         # input and output embeddings share one Parameter

    def build(self, seed=0):
        torch.manual_seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = self.make()
        model.train()
        live = [n for n, m in model.named_modules()
                if isinstance(m, torch.nn.modules.dropout._DropoutNd) and m.p != 0]
        assert not live, f"{self.name}: dropout left on in {live[:3]}"
        return model

    def batch(self, seed=1):
        return self.make_batch(torch.Generator().manual_seed(seed))

    def prompt(self, seed=2):
        return None if self.make_prompt is None else self.make_prompt(torch.Generator().manual_seed(seed))

    @property
    def generates(self):
        return self.make_prompt is not None


def _t():
    import transformers
    return transformers


# ---------------------------------------------------------------- batches

def _mlm_batch(g):
    ids = _ids(g, BATCH, SEQ)
    labels = torch.full_like(ids, -100)
    labels[:, ::3] = ids[:, ::3]
    return dict(input_ids=ids, attention_mask=_padded_mask(), labels=labels)


def _clm_batch(g):
    ids = _ids(g, BATCH, SEQ)
    return dict(input_ids=ids, attention_mask=torch.ones_like(ids), labels=ids.clone())


def _clm_prompt(g):
    ids = _ids(g, BATCH, 6)
    return dict(input_ids=ids, attention_mask=torch.ones_like(ids))


def _s2s_batch(g):
    ids = _ids(g, BATCH, SEQ)
    return dict(input_ids=ids, attention_mask=_padded_mask(), labels=_ids(g, BATCH, 7))


def _s2s_prompt(g):
    ids = _ids(g, BATCH, 8)
    return dict(input_ids=ids, attention_mask=torch.ones_like(ids))


def _image_batch(size, labels=5):
    def make(g):
        return dict(pixel_values=torch.randn(BATCH, 3, size, size, generator=g),
                    labels=torch.randint(0, labels, (BATCH,), generator=g))
    return make


# ---------------------------------------------------------------- encoders

def _bert():
    T = _t()
    cfg = T.BertConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                       num_attention_heads=HEADS, intermediate_size=FFN, max_position_embeddings=64)
    return T.BertForMaskedLM(_no_randomness(cfg))


def _roberta():
    T = _t()
    cfg = T.RobertaConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                          num_attention_heads=HEADS, intermediate_size=FFN, max_position_embeddings=64,
                          pad_token_id=1)
    return T.RobertaForMaskedLM(_no_randomness(cfg))


def _electra():
    T = _t()
    cfg = T.ElectraConfig(vocab_size=VOCAB, embedding_size=16, hidden_size=HIDDEN,
                          num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                          intermediate_size=FFN, max_position_embeddings=64)
    return T.ElectraForPreTraining(_no_randomness(cfg))


def _electra_batch(g):
    ids = _ids(g, BATCH, SEQ)
    return dict(input_ids=ids, attention_mask=_padded_mask(),
                labels=torch.randint(0, 2, (BATCH, SEQ), generator=g))


# ---------------------------------------------------------------- decoders

def _gpt2():
    T = _t()
    cfg = T.GPT2Config(vocab_size=VOCAB, n_embd=HIDDEN, n_layer=LAYERS, n_head=HEADS, n_positions=64,
                       bos_token_id=1, eos_token_id=2, pad_token_id=0)
    return T.GPT2LMHeadModel(_no_randomness(cfg))


def _llama():
    T = _t()
    cfg = T.LlamaConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN,
                        num_hidden_layers=LAYERS, num_attention_heads=HEADS, num_key_value_heads=2,
                        max_position_embeddings=64, pad_token_id=0, bos_token_id=1, eos_token_id=2,
                        tie_word_embeddings=False)
    return T.LlamaForCausalLM(_no_randomness(cfg))


def _gemma():
    T = _t()
    cfg = T.GemmaConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN,
                        num_hidden_layers=LAYERS, num_attention_heads=HEADS, num_key_value_heads=1,
                        head_dim=8, max_position_embeddings=64, pad_token_id=0, bos_token_id=1,
                        eos_token_id=2, tie_word_embeddings=True)
    return T.GemmaForCausalLM(_no_randomness(cfg))


def _opt():
    T = _t()
    cfg = T.OPTConfig(vocab_size=VOCAB, hidden_size=HIDDEN, ffn_dim=FFN, num_hidden_layers=LAYERS,
                      num_attention_heads=HEADS, word_embed_proj_dim=HIDDEN, max_position_embeddings=64,
                      pad_token_id=0, bos_token_id=1, eos_token_id=2)
    return T.OPTForCausalLM(_no_randomness(cfg))


def _qwen2():
    T = _t()
    cfg = T.Qwen2Config(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN,
                        num_hidden_layers=LAYERS, num_attention_heads=HEADS, num_key_value_heads=2,
                        max_position_embeddings=64, pad_token_id=0, bos_token_id=1, eos_token_id=2,
                        tie_word_embeddings=False)
    return T.Qwen2ForCausalLM(_no_randomness(cfg))


def _gpt_neox():
    T = _t()
    cfg = T.GPTNeoXConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN,
                          num_hidden_layers=LAYERS, num_attention_heads=HEADS, rotary_pct=0.25,
                          max_position_embeddings=64, use_parallel_residual=True,
                          pad_token_id=0, bos_token_id=1, eos_token_id=2)
    return T.GPTNeoXForCausalLM(_no_randomness(cfg))


def _phi():
    T = _t()
    cfg = T.PhiConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN,
                      num_hidden_layers=LAYERS, num_attention_heads=HEADS, partial_rotary_factor=0.5,
                      max_position_embeddings=64, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    return T.PhiForCausalLM(_no_randomness(cfg))


def _mixtral():
    T = _t()
    # intermediate 48, not 37: the grouped_mm experts path (transformers' default
    # where torch has torch._grouped_mm) needs rows of a multiple of 16 bytes
    cfg = T.MixtralConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=48,
                          num_hidden_layers=LAYERS, num_attention_heads=HEADS, num_key_value_heads=2,
                          num_local_experts=4, num_experts_per_tok=2, output_router_logits=True,
                          router_aux_loss_coef=0.02, max_position_embeddings=64,
                          pad_token_id=0, bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
    return T.MixtralForCausalLM(_no_randomness(cfg))


# ---------------------------------------------------------------- encoder-decoders

def _bart():
    T = _t()
    cfg = T.BartConfig(vocab_size=VOCAB, d_model=HIDDEN, encoder_layers=LAYERS, decoder_layers=LAYERS,
                       encoder_attention_heads=HEADS, decoder_attention_heads=HEADS,
                       encoder_ffn_dim=FFN, decoder_ffn_dim=FFN, max_position_embeddings=64,
                       pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=0,
                       forced_eos_token_id=None)
    return T.BartForConditionalGeneration(_no_randomness(cfg))


def _t5():
    T = _t()
    cfg = T.T5Config(vocab_size=VOCAB, d_model=HIDDEN, d_kv=8, d_ff=FFN, num_layers=LAYERS,
                     num_decoder_layers=LAYERS, num_heads=HEADS, relative_attention_num_buckets=8,
                     relative_attention_max_distance=16, pad_token_id=0, eos_token_id=1,
                     decoder_start_token_id=0)
    return T.T5ForConditionalGeneration(_no_randomness(cfg))


WHISPER_MELS, WHISPER_SRC = 8, 16


def _whisper():
    T = _t()
    cfg = T.WhisperConfig(vocab_size=VOCAB, num_mel_bins=WHISPER_MELS, d_model=HIDDEN,
                          encoder_layers=LAYERS, decoder_layers=LAYERS, encoder_attention_heads=HEADS,
                          decoder_attention_heads=HEADS, encoder_ffn_dim=FFN, decoder_ffn_dim=FFN,
                          max_source_positions=WHISPER_SRC, max_target_positions=32,
                          pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1,
                          suppress_tokens=None, begin_suppress_tokens=None)
    return T.WhisperForConditionalGeneration(_no_randomness(cfg))


def _whisper_batch(g):
    return dict(input_features=torch.randn(BATCH, WHISPER_MELS, 2 * WHISPER_SRC, generator=g),
                labels=_ids(g, BATCH, 7))


def _whisper_prompt(g):
    return dict(input_features=torch.randn(BATCH, WHISPER_MELS, 2 * WHISPER_SRC, generator=g))


# ---------------------------------------------------------------- vision

def _vit():
    T = _t()
    cfg = T.ViTConfig(image_size=16, patch_size=4, num_channels=3, hidden_size=HIDDEN,
                      num_hidden_layers=LAYERS, num_attention_heads=HEADS, intermediate_size=FFN,
                      num_labels=5)
    return T.ViTForImageClassification(_no_randomness(cfg))


def _resnet():
    T = _t()
    cfg = T.ResNetConfig(num_channels=3, embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
                         layer_type="basic", num_labels=5)
    return T.ResNetForImageClassification(_no_randomness(cfg))


def _convnext():
    T = _t()
    cfg = T.ConvNextConfig(num_channels=3, patch_size=2, num_stages=2, hidden_sizes=[8, 16], depths=[1, 1],
                           num_labels=5)
    return T.ConvNextForImageClassification(_no_randomness(cfg))


def _swin():
    T = _t()
    cfg = T.SwinConfig(image_size=32, patch_size=4, num_channels=3, embed_dim=16, depths=[1, 1],
                       num_heads=[2, 2], window_size=4, mlp_ratio=2.0, num_labels=5)
    return T.SwinForImageClassification(_no_randomness(cfg))


# ---------------------------------------------------------------- speech

def _wav2vec2():
    T = _t()
    cfg = T.Wav2Vec2Config(vocab_size=20, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                           num_attention_heads=HEADS, intermediate_size=FFN,
                           conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
                           num_conv_pos_embeddings=8, num_conv_pos_embedding_groups=2,
                           pad_token_id=0, ctc_loss_reduction="mean", ctc_zero_infinity=True)
    return T.Wav2Vec2ForCTC(_no_randomness(cfg))


def _wav2vec2_batch(g):
    # 400 samples -> (400-10)//5+1 = 79 -> (79-3)//2+1 = 39 frames
    return dict(input_values=torch.randn(BATCH, 400, generator=g),
                labels=torch.randint(1, 20, (BATCH, 8), generator=g))


# ---------------------------------------------------------------- multimodal

def _clip():
    T = _t()
    text = dict(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN, num_hidden_layers=LAYERS,
                num_attention_heads=HEADS, max_position_embeddings=32, pad_token_id=0, bos_token_id=1,
                eos_token_id=2)
    vision = dict(image_size=16, patch_size=4, hidden_size=HIDDEN, intermediate_size=FFN,
                  num_hidden_layers=LAYERS, num_attention_heads=HEADS)
    cfg = T.CLIPConfig(text_config=text, vision_config=vision, projection_dim=16)
    return T.CLIPModel(_no_randomness(cfg))


def _clip_batch(g):
    ids = _ids(g, BATCH, SEQ)
    ids[:, -1] = 2  # eos: CLIP pools the text at the eos token
    return dict(input_ids=ids, attention_mask=torch.ones_like(ids),
                pixel_values=torch.randn(BATCH, 3, 16, 16, generator=g), return_loss=True)


ZOO = {s.name: s for s in [
    ZooSpec("bert", "encoder", _bert, _mlm_batch, tied=True),
    ZooSpec("roberta", "encoder", _roberta, _mlm_batch, tied=True),
    ZooSpec("electra", "encoder", _electra, _electra_batch),
    ZooSpec("gpt2", "decoder", _gpt2, _clm_batch, _clm_prompt, tied=True),
    ZooSpec("llama", "decoder", _llama, _clm_batch, _clm_prompt),
    ZooSpec("gemma", "decoder", _gemma, _clm_batch, _clm_prompt, tied=True),
    ZooSpec("opt", "decoder", _opt, _clm_batch, _clm_prompt, tied=True),
    ZooSpec("qwen2", "decoder", _qwen2, _clm_batch, _clm_prompt),
    ZooSpec("gpt_neox", "decoder", _gpt_neox, _clm_batch, _clm_prompt),
    ZooSpec("phi", "decoder", _phi, _clm_batch, _clm_prompt),
    ZooSpec("mixtral", "moe decoder", _mixtral, _clm_batch, _clm_prompt),
    ZooSpec("bart", "encoder-decoder", _bart, _s2s_batch, _s2s_prompt, tied=True),
    ZooSpec("t5", "encoder-decoder", _t5, _s2s_batch, _s2s_prompt, tied=True),
    ZooSpec("whisper", "speech encoder-decoder", _whisper, _whisper_batch, _whisper_prompt, tied=True),
    ZooSpec("vit", "vision transformer", _vit, _image_batch(16)),
    ZooSpec("swin", "vision transformer", _swin, _image_batch(32)),
    ZooSpec("resnet", "convnet", _resnet, _image_batch(32)),
    ZooSpec("convnext", "convnet", _convnext, _image_batch(32)),
    ZooSpec("wav2vec2", "speech", _wav2vec2, _wav2vec2_batch),
    ZooSpec("clip", "multimodal", _clip, _clip_batch),
]}


# ---------------------------------------------------------------- helpers

def to_device(batch, device, dtype=None):
    """Tensors of a batch dict on `device`; floating ones cast to `dtype`."""
    out = {}
    for k, v in batch.items():
        if isinstance(v, torch.Tensor):
            v = v.to(device)
            if dtype is not None and v.is_floating_point():
                v = v.to(dtype)
        out[k] = v
    return out


def make_optimizer(model):
    return torch.optim.AdamW(model.parameters(), lr=1e-3)


def train_step(model, opt, batch):
    """One training step; returns the loss tensor (detached, on the model's
    device: no sync)."""
    loss = model(**batch).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.detach()


def clone_model(model):
    return copy.deepcopy(model)
