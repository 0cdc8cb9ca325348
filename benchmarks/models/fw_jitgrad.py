"""The models in jitgrad, as a user writes them: nn.Modules, F.cross_entropy, a functional
optimizer, and the whole step (value_and_grad + update) in one jg.jit."""
from __future__ import annotations

import math

import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn
from jitgrad.nn import functional as F

NAME = "jitgrad"


def version() -> str:
    return jg.__version__


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, mask):
        b, t, d = x.shape
        h, hd = self.heads, d // self.heads
        q, k, v = jnp.split(self.qkv(self.ln1(x)), 3, axis=-1)
        q, k, v = (z.reshape(b, t, h, hd).transpose(0, 2, 1, 3) for z in (q, k, v))
        att = (q @ k.transpose(0, 1, 3, 2)) * (1.0 / math.sqrt(hd))
        att = F.softmax(jnp.where(mask, att, -jnp.inf), axis=-1)
        y = (att @ v).transpose(0, 2, 1, 3).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok, self.pos = nn.Embedding(cfg.vocab, cfg.d), nn.Embedding(cfg.seq, cfg.d)
        self.blocks = nn.ModuleList([Block(cfg.d, cfg.heads) for _ in range(cfg.layers)])
        self.ln_f = nn.LayerNorm(cfg.d)
        self.head = nn.Linear(cfg.d, cfg.vocab, bias=False)
        self.mask = np.tril(np.ones((cfg.seq, cfg.seq), bool))

    def forward(self, idx):
        x = self.tok(idx) + self.pos(jnp.arange(idx.shape[1]))
        for block in self.blocks:
            x = block(x, self.mask)
        return self.head(self.ln_f(x))


class CNN(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.conv1 = nn.Conv2d(1, cfg.c1, 3, padding=1)
        self.conv2 = nn.Conv2d(cfg.c1, cfg.c2, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(cfg.c2 * (cfg.size // 4) ** 2, cfg.classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc(x.reshape(x.shape[0], -1))


class BasicBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(y)))


class ResNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        c = cfg.channels
        self.stem = nn.Conv2d(3, c, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(c)
        self.blocks = nn.ModuleList([BasicBlock(c) for _ in range(cfg.blocks)])
        self.fc = nn.Linear(c, cfg.classes)

    def forward(self, x):
        x = F.relu(self.bn(self.stem(x)))
        for block in self.blocks:
            x = block(x)
        return self.fc(x.mean(axis=(2, 3)))          # global average pool


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        s = cfg.sizes
        self.fc0, self.fc1, self.fc2 = (nn.Linear(a, b) for a, b in zip(s[:-1], s[1:]))

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(F.relu(self.fc0(x)))))


class LSTM(nn.Module):
    """An LSTM language model whose cell is written out and run with jg.scan over time."""

    def __init__(self, cfg):
        super().__init__()
        h = self.hidden = cfg.hidden
        self.emb = nn.Embedding(cfg.vocab, h)
        self.weight_ih = nn.Parameter(jnp.zeros((4 * h, h)))
        self.weight_hh = nn.Parameter(jnp.zeros((4 * h, h)))
        self.bias_ih = nn.Parameter(jnp.zeros((4 * h,)))
        self.bias_hh = nn.Parameter(jnp.zeros((4 * h,)))
        self.head = nn.Linear(h, cfg.vocab)

    def forward(self, idx):
        xs = self.emb(idx).transpose(1, 0, 2)                   # time-major [T, B, H]
        x_gates = xs @ self.weight_ih.T + self.bias_ih         # all steps' input projections

        def cell(carry, xg):
            h, c = carry
            i, f, g, o = jnp.split(xg + h @ self.weight_hh.T + self.bias_hh, 4, axis=-1)
            c = F.sigmoid(f) * c + F.sigmoid(i) * jnp.tanh(g)
            h = F.sigmoid(o) * jnp.tanh(c)
            return (h, c), h
        zeros = jnp.zeros((idx.shape[0], self.hidden))
        _, hs = jg.scan(cell, (zeros, zeros), x_gates)
        return self.head(hs.transpose(1, 0, 2))


MODULES = {"gpt": GPT, "cnn": CNN, "mlp": MLP, "lstm": LSTM, "resnet": ResNet}


def _optimizer(cfg):
    if cfg.optimizer == "adamw":
        return jg.optim.adamw(cfg.lr, weight_decay=cfg.weight_decay)
    if cfg.optimizer == "sgd":
        return jg.optim.sgd(cfg.lr, momentum=cfg.momentum)
    return jg.optim.adam(cfg.lr)


def _loss(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


class Trainer:
    def __init__(self, model_name, cfg, weights, data):
        self.model = MODULES[model_name](cfg)
        self.model.load_state_dict({**self.model.state_dict(), **weights})   # buffers: fresh
        self.x, self.y = (jnp.asarray(a) for a in data)
        opt = _optimizer(cfg)
        self.state = opt.init(self.model)

        @jg.jit
        def train_step(model, state, x, y):
            loss, grads = jg.value_and_grad(_loss)(model, x, y)
            model, state = opt.update(grads, state, model)
            return model, state, loss
        self.train_step = train_step
        self.initial = self.model

    def step(self):
        self.model, self.state, loss = self.train_step(self.model, self.state, self.x, self.y)
        return float(loss)

    def grads(self) -> dict:
        """Gradients of the loss at the initial weights, by state_dict name."""
        g = jg.jit(jg.grad(_loss))(self.initial, self.x, self.y)
        return {k: np.asarray(v) for k, v in g.named_parameters()}
