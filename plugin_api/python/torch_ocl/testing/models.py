"""Four tiny models that cover what training a network on ocl needs, shared
by tests/python/test_models.py and bench/bench_models.py: a ResNet-18
topology CNN (narrow), a GPT-style decoder, an LSTM classifier and a
UNet-style conv/upsample net. Each comes with its optimizer, a batch maker and
a loss, so one training step is `step(spec, model, opt, batch)`.
"""

from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    """ResNet-18's topology (stem, 4 stages of 2 basic blocks, global pool,
    fc) with narrow stages and the CIFAR stem (3x3 stride 1; `imagenet_stem`:
    7x7 stride 2 + max pool)."""

    def __init__(self, width=4, classes=10, imagenet_stem=False):
        super().__init__()
        w = [width, 2 * width, 4 * width, 8 * width]
        if imagenet_stem:
            self.stem = nn.Sequential(nn.Conv2d(3, w[0], 7, 2, 3, bias=False), nn.BatchNorm2d(w[0]), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, 1))
        else:
            self.stem = nn.Sequential(nn.Conv2d(3, w[0], 3, 1, 1, bias=False), nn.BatchNorm2d(w[0]), nn.ReLU())
        layers, cin = [], w[0]
        for i, c in enumerate(w):
            layers += [BasicBlock(cin, c, 1 if i == 0 else 2), BasicBlock(c, c, 1)]
            cin = c
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class DecoderBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=2)
        q, k, v = (t.view(B, T, self.heads, D // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(B, T, D))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, layers=2, block=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(block, d)
        self.blocks = nn.Sequential(*(DecoderBlock(d, heads) for _ in range(layers)))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        pos = torch.arange(idx.shape[1], device=idx.device)
        return self.head(self.ln(self.blocks(self.tok(idx) + self.pos(pos))))


class LSTMClassifier(nn.Module):
    def __init__(self, vocab=40, d=16, hidden=24, classes=5):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, idx):
        out, (h, c) = self.lstm(self.emb(idx))
        return self.fc(out.mean(1))


class UNet(nn.Module):
    """Two down / up levels: conv blocks, max pool, bilinear upsampling and
    concatenated skip connections."""

    def __init__(self, cin=3, w=4, cout=2):
        super().__init__()

        def block(a, b):
            return nn.Sequential(nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(),
                                 nn.Conv2d(b, b, 3, padding=1), nn.ReLU())

        self.d1, self.d2, self.mid = block(cin, w), block(w, 2 * w), block(2 * w, 4 * w)
        self.u2, self.u1 = block(4 * w + 2 * w, 2 * w), block(2 * w + w, w)
        self.out = nn.Conv2d(w, cout, 1)

    def forward(self, x):
        x1 = self.d1(x)
        x2 = self.d2(F.max_pool2d(x1, 2))
        m = self.mid(F.max_pool2d(x2, 2))
        up = lambda t: F.interpolate(t, scale_factor=2, mode="bilinear", align_corners=False)  # noqa: E731
        y = self.u2(torch.cat([up(m), x2], 1))
        y = self.u1(torch.cat([up(y), x1], 1))
        return self.out(y)


@dataclass
class ModelSpec:
    name: str
    make_model: Callable[[], nn.Module]
    make_optimizer: Callable[[list], torch.optim.Optimizer]
    make_batch: Callable[[torch.Generator], tuple]  # CPU tensors (input, target)
    loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def _images(g, n=8, c=3, hw=16, classes=10):
    return torch.randn(n, c, hw, hw, generator=g), torch.randint(0, classes, (n,), generator=g)


def _tokens(g, n=4, t=16, vocab=64):
    x = torch.randint(0, vocab, (n, t + 1), generator=g)
    return x[:, :-1], x[:, 1:]


def _sentences(g, n=8, t=12, vocab=40, classes=5):
    return torch.randint(0, vocab, (n, t), generator=g), torch.randint(0, classes, (n,), generator=g)


def _segmentation(g, n=2, hw=16):
    return torch.randn(n, 3, hw, hw, generator=g), torch.randn(n, 2, hw, hw, generator=g)


SPECS = {
    "resnet18": ModelSpec("resnet18", ResNet18, lambda p: torch.optim.SGD(p, lr=0.02, momentum=0.9,
                                                                            weight_decay=1e-4),
                          _images, F.cross_entropy),
    "gpt": ModelSpec("gpt", GPT, lambda p: torch.optim.AdamW(p, lr=3e-3, weight_decay=0.01),
                     _tokens, lambda out, y: F.cross_entropy(out.flatten(0, 1), y.flatten())),
    "lstm": ModelSpec("lstm", LSTMClassifier, lambda p: torch.optim.Adam(p, lr=5e-3), _sentences, F.cross_entropy),
    "unet": ModelSpec("unet", UNet, lambda p: torch.optim.Adam(p, lr=1e-3), _segmentation, F.mse_loss),
}


def build(spec, device, seed=0, **optim_kwargs):
    """The model (same initial weights on every device for a seed) and its
    optimizer."""
    torch.manual_seed(seed)
    model = spec.make_model().to(device)
    opt = spec.make_optimizer(list(model.parameters()))
    for group in opt.param_groups:
        group.update(optim_kwargs)
    return model, opt


def batches(spec, steps, seed=1):
    g = torch.Generator().manual_seed(seed)
    return [spec.make_batch(g) for _ in range(steps)]


def step(spec, model, opt, batch):
    """One training step; returns the loss tensor (not synchronised)."""
    x, y = batch
    opt.zero_grad(set_to_none=True)
    loss = spec.loss(model(x), y)
    loss.backward()
    opt.step()
    return loss.detach()
