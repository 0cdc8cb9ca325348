"""The models of the benchmark: sizes, the NumPy-initialized weights every framework starts
from (named as PyTorch's state_dict names them), the batch, and the optimizer settings.

Every framework computes the same function of the same weights: logits -> mean cross entropy
over integer labels; the step is loss, gradients and the optimizer update.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GPT:
    vocab: int = 512
    d: int = 128
    layers: int = 4
    heads: int = 4
    seq: int = 64
    batch: int = 8
    lr: float = 1e-3
    weight_decay: float = 0.01
    optimizer: str = "adamw"


@dataclass(frozen=True)
class CNN:
    batch: int = 64
    size: int = 28           # input 1 x size x size; conv3x3 padding 1, maxpool 2 twice
    c1: int = 8
    c2: int = 16
    classes: int = 10
    lr: float = 0.01
    momentum: float = 0.9
    optimizer: str = "sgd"


@dataclass(frozen=True)
class MLP:
    batch: int = 256
    sizes: tuple = (784, 512, 512, 10)
    lr: float = 1e-3
    optimizer: str = "adam"


@dataclass(frozen=True)
class LSTM:
    vocab: int = 128
    hidden: int = 128
    seq: int = 32
    batch: int = 16
    lr: float = 1e-3
    optimizer: str = "adam"


@dataclass(frozen=True)
class ResNet:
    batch: int = 32
    size: int = 32           # input 3 x size x size
    channels: int = 16       # conv3x3 stem, then `blocks` basic blocks at this width
    blocks: int = 2
    classes: int = 10
    lr: float = 0.01
    momentum: float = 0.9
    optimizer: str = "sgd"


FULL = {"gpt": GPT(), "cnn": CNN(), "mlp": MLP(), "lstm": LSTM(), "resnet": ResNet()}
SMALL = {"gpt": GPT(vocab=32, d=16, layers=2, heads=2, seq=8, batch=2),
         "cnn": CNN(batch=4, size=8, c1=2, c2=3),
         "mlp": MLP(batch=8, sizes=(12, 16, 16, 5)),
         "lstm": LSTM(vocab=16, hidden=8, seq=5, batch=3),
         "resnet": ResNet(batch=4, size=8, channels=4, blocks=1)}
ABOUT = {"gpt": "GPT-style decoder (vocab 512, d 128, 4 layers, 4 heads, seq 64, batch 8, AdamW)",
         "cnn": "CNN (28x28x1, batch 64: conv3x3(8)-relu-maxpool-conv3x3(16)-relu-maxpool-"
                "linear, SGD momentum)",
         "mlp": "MLP 784-512-512-10, batch 256, Adam",
         "lstm": "LSTM LM via scan (vocab 128, hidden 128, seq 32, batch 16, Adam)",
         "resnet": "ResNet (32x32x3, batch 32: conv3x3(16)-BN-relu, 2 basic blocks "
                   "conv-BN-relu-conv-BN + identity, relu; global avg pool, linear 10; "
                   "SGD momentum; BatchNorm in training mode)"}
SMALL_ABOUT = {m: f"{m} (small sizes)" for m in FULL}
MODELS = tuple(FULL)


def config(model: str, small: bool = False):
    return (SMALL if small else FULL)[model]


def _uniform(rng, shape, fan_in):
    b = 1.0 / np.sqrt(fan_in)
    return rng.uniform(-b, b, shape).astype(np.float32)


def _linear(rng, w, name, n_in, n_out, bias=True):
    w[f"{name}.weight"] = _uniform(rng, (n_out, n_in), n_in)
    if bias:
        w[f"{name}.bias"] = _uniform(rng, (n_out,), n_in)


def weights(model: str, cfg) -> dict:
    """name -> float32 array, PyTorch's layouts (Linear weight [out, in], Conv2d OIHW); the
    parameters only (BatchNorm's running statistics are each framework's fresh buffers)."""
    rng = np.random.default_rng(1234)
    w: dict = {}
    if model == "gpt":
        d = cfg.d
        w["tok.weight"] = (0.02 * rng.standard_normal((cfg.vocab, d))).astype(np.float32)
        w["pos.weight"] = (0.02 * rng.standard_normal((cfg.seq, d))).astype(np.float32)
        for i in range(cfg.layers):
            p = f"blocks.{i}"
            for ln in ("ln1", "ln2"):
                w[f"{p}.{ln}.weight"] = np.ones(d, np.float32)
                w[f"{p}.{ln}.bias"] = np.zeros(d, np.float32)
            _linear(rng, w, f"{p}.qkv", d, 3 * d)
            _linear(rng, w, f"{p}.proj", d, d)
            _linear(rng, w, f"{p}.fc", d, 4 * d)
            _linear(rng, w, f"{p}.out", 4 * d, d)
        w["ln_f.weight"] = np.ones(d, np.float32)
        w["ln_f.bias"] = np.zeros(d, np.float32)
        _linear(rng, w, "head", d, cfg.vocab, bias=False)
    elif model == "cnn":
        w["conv1.weight"] = _uniform(rng, (cfg.c1, 1, 3, 3), 9)
        w["conv1.bias"] = _uniform(rng, (cfg.c1,), 9)
        w["conv2.weight"] = _uniform(rng, (cfg.c2, cfg.c1, 3, 3), 9 * cfg.c1)
        w["conv2.bias"] = _uniform(rng, (cfg.c2,), 9 * cfg.c1)
        _linear(rng, w, "fc", cfg.c2 * (cfg.size // 4) ** 2, cfg.classes)
    elif model == "resnet":
        c = cfg.channels
        w["stem.weight"] = _uniform(rng, (c, 3, 3, 3), 27)
        names = ["bn"] + [f"blocks.{i}.bn{j}" for i in range(cfg.blocks) for j in (1, 2)]
        for i in range(cfg.blocks):
            for j in (1, 2):
                w[f"blocks.{i}.conv{j}.weight"] = _uniform(rng, (c, c, 3, 3), 9 * c)
        for n in names:     # BatchNorm: PyTorch's initial affine; running stats start 0 / 1
            w[f"{n}.weight"] = np.ones(c, np.float32)
            w[f"{n}.bias"] = np.zeros(c, np.float32)
        _linear(rng, w, "fc", c, cfg.classes)
    elif model == "mlp":
        for i, (a, b) in enumerate(zip(cfg.sizes[:-1], cfg.sizes[1:])):
            _linear(rng, w, f"fc{i}", a, b)
    elif model == "lstm":
        h = cfg.hidden
        w["emb.weight"] = rng.standard_normal((cfg.vocab, h)).astype(np.float32)
        w["weight_ih"] = _uniform(rng, (4 * h, h), h)      # gates i, f, g, o (PyTorch's order)
        w["weight_hh"] = _uniform(rng, (4 * h, h), h)
        w["bias_ih"] = _uniform(rng, (4 * h,), h)
        w["bias_hh"] = _uniform(rng, (4 * h,), h)
        _linear(rng, w, "head", h, cfg.vocab)
    else:
        raise ValueError(f"unknown model {model!r}; expected one of {', '.join(MODELS)}")
    return w


def batch(model: str, cfg) -> tuple:
    """(inputs, int32 labels) of one training batch."""
    rng = np.random.default_rng(99)
    if model == "gpt":
        tokens = rng.integers(0, cfg.vocab, (cfg.batch, cfg.seq + 1)).astype(np.int32)
        return tokens[:, :-1].copy(), tokens[:, 1:].copy()
    if model == "lstm":
        tokens = rng.integers(0, cfg.vocab, (cfg.batch, cfg.seq + 1)).astype(np.int32)
        return tokens[:, :-1].copy(), tokens[:, 1:].copy()
    if model == "cnn":
        x = rng.standard_normal((cfg.batch, 1, cfg.size, cfg.size)).astype(np.float32)
        return x, rng.integers(0, cfg.classes, cfg.batch).astype(np.int32)
    if model == "resnet":
        x = rng.standard_normal((cfg.batch, 3, cfg.size, cfg.size)).astype(np.float32)
        return x, rng.integers(0, cfg.classes, cfg.batch).astype(np.int32)
    if model == "mlp":
        x = rng.standard_normal((cfg.batch, cfg.sizes[0])).astype(np.float32)
        return x, rng.integers(0, cfg.sizes[-1], cfg.batch).astype(np.int32)
    raise ValueError(f"unknown model {model!r}; expected one of {', '.join(MODELS)}")
