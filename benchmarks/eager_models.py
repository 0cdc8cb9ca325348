"""Eager training steps of four models, the model code written once for PyTorch and jitgrad
(each framework is a namespace of nn, F, optim and a few functions: `framework(name)`):

  gpt          nanoGPT: 4 blocks of d 128, causal scaled_dot_product_attention, GELU MLP,
               token embedding tied to the LM head, AdamW with decay on matrices only, grad
               clip 1.0
  lstm         the word language model of PyTorch's examples: Embedding, 2-layer nn.LSTM
               (dropout 0.2), Linear; the hidden state carried (detached) from step to step;
               clip_grad_norm_ 0.25, SGD lr 20
  transformer  the same example's TransformerModel: Embedding * sqrt(d), sinusoidal positions,
               nn.TransformerEncoder of 2 layers under a causal mask, Linear; clip 0.25, SGD
  cnn          the MNIST example's Net: 2 conv3x3 + ReLU, max-pool 2, dropout 0.25, Linear 128,
               dropout 0.5, Linear 10; Adadelta lr 1.0

Every framework starts from the same weights (`initial_weights`: NumPy arrays drawn by
parameter name) and trains on the same batch. Dropout draws its own masks in each framework,
so the training losses differ a little; `eval_loss0`, the loss at the initial weights in eval
mode, is the same function in both. `python benchmarks/eager_models.py FRAMEWORK MODEL` (run
by path, so the torch process never imports jitgrad) times one model in this process and
prints one JSON line; eager_models_cli.py starts one such process per framework and model.
"""
from __future__ import annotations

import json
import math
import resource
import statistics
import sys
import time
import zlib
from dataclasses import dataclass, replace
from types import SimpleNamespace

import numpy as np

MODELS = ("gpt", "lstm", "transformer", "cnn")
FRAMEWORKS = ("jitgrad", "torch")


@dataclass(frozen=True)
class Sizes:
    vocab: int = 512
    d: int = 128             # model width (embedding, hidden)
    hidden: int = 256        # the Transformer's feed-forward width
    layers: int = 4
    heads: int = 4
    seq: int = 64
    batch: int = 8
    image: int = 28          # the CNN's input: 1 x image x image
    c1: int = 32
    c2: int = 64
    fc: int = 128


FULL = {"gpt": Sizes(),
        "lstm": Sizes(vocab=2000, d=200, layers=2, seq=35, batch=20),
        "transformer": Sizes(vocab=2000, d=128, hidden=256, layers=2, heads=2, seq=35, batch=20),
        "cnn": Sizes(batch=64)}
SMALL = {m: replace(s, vocab=32, d=16, hidden=32, layers=2, heads=2, seq=8, batch=2, image=12,
                    c1=4, c2=8, fc=16) for m, s in FULL.items()}


def framework(name: str) -> SimpleNamespace:
    """The namespace the models are written against: PyTorch's or jitgrad's."""
    if name == "torch":
        import torch
        return SimpleNamespace(name=name, version=torch.__version__, nn=torch.nn,
                               F=torch.nn.functional, optim=torch.optim, arange=torch.arange,
                               zeros=torch.zeros, tensor=torch.from_numpy, no_grad=torch.no_grad,
                               clip_grad_norm_=torch.nn.utils.clip_grad_norm_,
                               set_threads=torch.set_num_threads)
    import jitgrad as jg
    return SimpleNamespace(name=name, version=jg.__version__, nn=jg.nn, F=jg.nn.functional,
                           optim=jg.optim, arange=jg.arange, zeros=jg.zeros, tensor=jg.tensor,
                           no_grad=jg.no_grad, clip_grad_norm_=jg.nn.utils.clip_grad_norm_,
                           set_threads=lambda n: jg.config.update("num_threads", n))


def modules(fw) -> dict:
    """The four models' nn.Module classes, built on fw.nn."""
    nn, F = fw.nn, fw.F

    class CausalSelfAttention(nn.Module):
        def __init__(self, s):
            super().__init__()
            self.c_attn, self.c_proj, self.n_head = nn.Linear(s.d, 3 * s.d), nn.Linear(s.d, s.d), s.heads

        def forward(self, x):
            B, T, C = x.shape
            qkv = self.c_attn(x)
            q, k, v = (qkv[..., i * C:(i + 1) * C].reshape(B, T, self.n_head, C // self.n_head)
                       .swapaxes(1, 2) for i in range(3))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.swapaxes(1, 2).reshape(B, T, C))

    class Block(nn.Module):
        def __init__(self, s):
            super().__init__()
            self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(s.d), CausalSelfAttention(s), nn.LayerNorm(s.d)
            self.mlp = nn.Sequential(nn.Linear(s.d, 4 * s.d), nn.GELU(), nn.Linear(4 * s.d, s.d))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self, s):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(s.vocab, s.d), nn.Embedding(s.seq, s.d)
            self.h = nn.ModuleList([Block(s) for _ in range(s.layers)])
            self.ln_f = nn.LayerNorm(s.d)
            self.lm_head = nn.Linear(s.d, s.vocab, bias=False)
            self.wte.weight = self.lm_head.weight          # weight tying

        def forward(self, idx):
            x = self.wte(idx) + self.wpe(fw.arange(idx.shape[1]))
            for block in self.h:
                x = block(x)
            return self.lm_head(self.ln_f(x))

    class RNNModel(nn.Module):
        def __init__(self, s):
            super().__init__()
            self.drop, self.encoder = nn.Dropout(0.2), nn.Embedding(s.vocab, s.d)
            self.rnn = nn.LSTM(s.d, s.d, s.layers, dropout=0.2)
            self.decoder = nn.Linear(s.d, s.vocab)

        def forward(self, src, hidden):
            out, hidden = self.rnn(self.drop(self.encoder(src)), hidden)
            return self.decoder(self.drop(out)), hidden

    class TransformerModel(nn.Module):
        def __init__(self, s):
            super().__init__()
            self.d, self.encoder = s.d, nn.Embedding(s.vocab, s.d)
            self.pe = fw.tensor(positions(s.seq, s.d))[:, None]       # [T, 1, d]
            self.drop = nn.Dropout(0.2)
            layer = nn.TransformerEncoderLayer(s.d, s.heads, s.hidden, 0.2)
            self.transformer_encoder = nn.TransformerEncoder(layer, s.layers)
            self.decoder = nn.Linear(s.d, s.vocab)
            self.mask = nn.Transformer.generate_square_subsequent_mask(s.seq)

        def forward(self, src):
            x = self.drop(self.encoder(src) * math.sqrt(self.d) + self.pe[:src.shape[0]])
            return self.decoder(self.transformer_encoder(x, self.mask))

    class Net(nn.Module):
        def __init__(self, s):
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2d(1, s.c1, 3, 1), nn.Conv2d(s.c1, s.c2, 3, 1)
            self.dropout1, self.dropout2 = nn.Dropout(0.25), nn.Dropout(0.5)
            self.fc1 = nn.Linear(s.c2 * ((s.image - 4) // 2) ** 2, s.fc)
            self.fc2 = nn.Linear(s.fc, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
            x = F.relu(self.fc1(self.dropout1(x).reshape(x.shape[0], -1)))
            return self.fc2(self.dropout2(x))

    return {"gpt": GPT, "lstm": RNNModel, "transformer": TransformerModel, "cnn": Net}


def positions(seq, d) -> np.ndarray:
    """The sinusoidal position encoding of PyTorch's word language model example."""
    pos = np.arange(seq, dtype=np.float32)[:, None]
    div = np.exp(np.arange(0, d, 2, dtype=np.float32) * (-math.log(10000.0) / d))
    pe = np.zeros((seq, d), np.float32)
    pe[:, 0::2], pe[:, 1::2] = np.sin(pos * div), np.cos(pos * div)
    return pe


def initial_weights(shapes: dict) -> dict:
    """name -> float32 array, drawn from the name alone: matrices N(0, 1/fan_in), 1-D weights
    (norms) 1, other vectors small."""
    out = {}
    for name, shape in shapes.items():
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        if len(shape) >= 2:
            a = rng.standard_normal(shape) / math.sqrt(math.prod(shape[1:]))
        elif name.endswith("weight"):
            a = np.ones(shape)
        else:
            a = 0.02 * rng.standard_normal(shape)
        out[name] = a.astype(np.float32)
    return out


def batch(model, s) -> tuple:
    rng = np.random.default_rng(1)
    if model == "cnn":
        return (rng.standard_normal((s.batch, 1, s.image, s.image)).astype(np.float32),
                rng.integers(0, 10, s.batch))
    shape = (s.seq, s.batch) if model in ("lstm", "transformer") else (s.batch, s.seq)
    return rng.integers(0, s.vocab, shape), rng.integers(0, s.vocab, shape)


class Trainer:
    """One model in one framework: `step()` runs an eager training step and returns the loss."""

    def __init__(self, fw, model, s):
        self.fw, self.model_name, self.s = fw, model, s
        self.model = modules(fw)[model](s)
        params = dict(self.model.named_parameters())      # a tied weight under its first name
        weights = initial_weights({k: tuple(p.shape) for k, p in params.items()})
        self.model.load_state_dict({k: fw.tensor(v) for k, v in weights.items()}, strict=False)
        self.x, self.y = (fw.tensor(a) for a in batch(model, s))
        self.hidden = None
        if model == "gpt":
            decay = [p for p in params.values() if p.ndim >= 2]
            rest = [p for p in params.values() if p.ndim < 2]
            self.opt = fw.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                       {"params": rest, "weight_decay": 0.0}],
                                      lr=6e-4, betas=(0.9, 0.95))
            self.clip = 1.0
        elif model == "cnn":
            self.opt, self.clip = fw.optim.Adadelta(params.values(), lr=1.0), None
        else:
            self.opt, self.clip = fw.optim.SGD(params.values(), lr=20.0), 0.25

    def loss(self):
        F, model = self.fw.F, self.model
        if self.model_name == "lstm":
            if self.hidden is None:
                zeros = self.fw.zeros((self.s.layers, self.s.batch, self.s.d))
                self.hidden = (zeros, zeros)
            logits, hidden = model(self.x, tuple(h.detach() for h in self.hidden))
            self.hidden = hidden
        else:
            logits = model(self.x)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), self.y.reshape(-1))

    def step(self) -> float:
        self.opt.zero_grad()
        loss = self.loss()
        loss.backward()
        if self.clip is not None:
            self.fw.clip_grad_norm_(self.model.parameters(), self.clip)
        self.opt.step()
        return float(loss.detach())

    def eval_loss(self) -> float:
        self.model.eval()
        hidden = self.hidden
        with self.fw.no_grad():
            out = float(self.loss())
        self.model.train()
        self.hidden = hidden
        return out


def run(framework_name, model, *, small=False, steps=20, warmup=3, threads=None) -> dict:
    """Time `steps` eager training steps of `model` after the first and `warmup` more."""
    fw = framework(framework_name)
    if threads:
        fw.set_threads(threads)
    s = (SMALL if small else FULL)[model]
    tr = Trainer(fw, model, s)
    eval0 = tr.eval_loss()
    t0 = time.perf_counter()
    losses = [tr.step()]
    first_s = time.perf_counter() - t0
    losses += [tr.step() for _ in range(warmup)]
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        losses.append(tr.step())
        times.append(1e3 * (time.perf_counter() - t0))
    out = {"framework": framework_name, "model": model, "version": fw.version,
           "eval_loss0": eval0, "losses": losses[:3], "first_s": first_s,
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    if times:
        out.update(median_ms=statistics.median(times), min_ms=min(times), max_ms=max(times),
                   steps=len(times))
    return out


def main(argv) -> None:
    import argparse
    p = argparse.ArgumentParser(prog="eager_models.py")
    p.add_argument("framework", choices=FRAMEWORKS)
    p.add_argument("model", choices=MODELS)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int)
    p.add_argument("--small", action="store_true")
    a = p.parse_args(argv)
    try:
        out = run(a.framework, a.model, small=a.small, steps=a.steps, warmup=a.warmup,
                  threads=a.threads)
    except Exception as e:  # noqa: BLE001 - reported in the parent's table
        out = {"framework": a.framework, "model": a.model,
               "error": f"{type(e).__name__}: {e}".splitlines()[0][:200]}
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.path.pop(0)          # this folder: its module names must not shadow anyone's imports
    main(sys.argv[1:])
