"""The models in JAX, as a JAX user writes them without extra libraries: parameters in a dict,
pure functions, jax.value_and_grad, the optimizer update by tree_map, and the whole step in one
jax.jit (optax and flax are not assumed to be installed)."""
from __future__ import annotations

import math

import numpy as np

NAME = "jax"


def version() -> str:
    import jax
    return jax.__version__


def _setup():
    import jax
    jax.config.update("jax_platforms", "cpu")
    return jax, jax.numpy


def _linear(p, name, x):
    y = x @ p[f"{name}.weight"].T
    b = p.get(f"{name}.bias")
    return y if b is None else y + b


def _layer_norm(p, name, x, eps=1e-5):
    jnp = _setup()[1]
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + eps) * p[f"{name}.weight"] + p[f"{name}.bias"]


def gpt(cfg):
    jax, jnp = _setup()
    mask = np.tril(np.ones((cfg.seq, cfg.seq), bool))

    def forward(p, idx):
        b, t = idx.shape
        d, h = cfg.d, cfg.heads
        hd = d // h
        x = p["tok.weight"][idx] + p["pos.weight"][jnp.arange(t)]
        for i in range(cfg.layers):
            n = f"blocks.{i}"
            q, k, v = jnp.split(_linear(p, f"{n}.qkv", _layer_norm(p, f"{n}.ln1", x)), 3, -1)
            q, k, v = (z.reshape(b, t, h, hd).transpose(0, 2, 1, 3) for z in (q, k, v))
            att = (q @ k.transpose(0, 1, 3, 2)) * (1.0 / math.sqrt(hd))
            att = jax.nn.softmax(jnp.where(mask, att, -jnp.inf), axis=-1)
            y = (att @ v).transpose(0, 2, 1, 3).reshape(b, t, d)
            x = x + _linear(p, f"{n}.proj", y)
            m = jax.nn.gelu(_linear(p, f"{n}.fc", _layer_norm(p, f"{n}.ln2", x)),
                            approximate=False)
            x = x + _linear(p, f"{n}.out", m)
        return _linear(p, "head", _layer_norm(p, "ln_f", x))
    return forward


def cnn(cfg):
    jax, jnp = _setup()
    from jax import lax

    def conv(p, name, x):
        y = lax.conv_general_dilated(x, p[f"{name}.weight"], (1, 1), ((1, 1), (1, 1)),
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return y + p[f"{name}.bias"][None, :, None, None]

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def forward(p, x):
        x = pool(jax.nn.relu(conv(p, "conv1", x)))
        x = pool(jax.nn.relu(conv(p, "conv2", x)))
        return _linear(p, "fc", x.reshape(x.shape[0], -1))
    return forward


def _batch_norm(p, b, name, x, momentum=0.1, eps=1e-5):
    """Training-mode BatchNorm over (N, H, W) as PyTorch's: normalize by the batch's biased
    variance; the running statistics (in the carried buffers b) move toward the batch's mean
    and unbiased variance."""
    jnp = _setup()[1]
    mu = x.mean((0, 2, 3))
    var = ((x - mu[None, :, None, None]) ** 2).mean((0, 2, 3))
    n = x.size // x.shape[1]
    b = {**b, f"{name}.running_mean": (1 - momentum) * b[f"{name}.running_mean"] + momentum * mu,
         f"{name}.running_var": (1 - momentum) * b[f"{name}.running_var"]
         + momentum * var * (n / (n - 1))}
    y = (x - mu[None, :, None, None]) / jnp.sqrt(var + eps)[None, :, None, None]
    return y * p[f"{name}.weight"][None, :, None, None] + p[f"{name}.bias"][None, :, None, None], b


def resnet(cfg):
    jax, jnp = _setup()
    from jax import lax

    def conv(p, name, x):
        return lax.conv_general_dilated(x, p[f"{name}.weight"], (1, 1), ((1, 1), (1, 1)),
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def forward(p, x, b):
        x, b = _batch_norm(p, b, "bn", conv(p, "stem", x))
        x = jax.nn.relu(x)
        for i in range(cfg.blocks):
            n = f"blocks.{i}"
            y, b = _batch_norm(p, b, f"{n}.bn1", conv(p, f"{n}.conv1", x))
            y, b = _batch_norm(p, b, f"{n}.bn2", conv(p, f"{n}.conv2", jax.nn.relu(y)))
            x = jax.nn.relu(x + y)
        return _linear(p, "fc", x.mean((2, 3))), b
    return forward


def resnet_buffers(cfg):
    jnp = _setup()[1]
    names = ["bn"] + [f"blocks.{i}.bn{j}" for i in range(cfg.blocks) for j in (1, 2)]
    return {f"{n}.{s}": (jnp.zeros if s == "running_mean" else jnp.ones)(cfg.channels,
                                                                          jnp.float32)
            for n in names for s in ("running_mean", "running_var")}


def mlp(cfg):
    jax, _ = _setup()

    def forward(p, x):
        x = jax.nn.relu(_linear(p, "fc0", x))
        x = jax.nn.relu(_linear(p, "fc1", x))
        return _linear(p, "fc2", x)
    return forward


def lstm(cfg):
    jax, jnp = _setup()

    def forward(p, idx):
        xs = p["emb.weight"][idx].transpose(1, 0, 2)
        x_gates = xs @ p["weight_ih"].T + p["bias_ih"]

        def cell(carry, xg):
            h, c = carry
            i, f, g, o = jnp.split(xg + h @ p["weight_hh"].T + p["bias_hh"], 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h
        zeros = jnp.zeros((idx.shape[0], cfg.hidden), jnp.float32)
        _, hs = jax.lax.scan(cell, (zeros, zeros), x_gates)
        return _linear(p, "head", hs.transpose(1, 0, 2))
    return forward


FORWARDS = {"gpt": gpt, "cnn": cnn, "mlp": mlp, "lstm": lstm, "resnet": resnet}
# models with buffers (BatchNorm's running statistics): forward(p, x, buffers) -> (logits,
# buffers), the buffers carried from step to step beside the optimizer state
BUFFERS = {"resnet": resnet_buffers}


def _optimizer(cfg):
    """(init(params) -> state, update(grads, state, params) -> (params, state)), PyTorch's
    AdamW / Adam / SGD-with-momentum semantics."""
    jax, jnp = _setup()
    tm = jax.tree_util.tree_map
    if cfg.optimizer == "sgd":
        def init(p):
            return (jnp.zeros((), jnp.int32), tm(jnp.zeros_like, p))

        def update(g, s, p):
            step, buf = s
            buf = jax.lax.cond(step == 0, lambda: g, lambda: tm(
                lambda b, gi: cfg.momentum * b + gi, buf, g))
            return tm(lambda pi, b: pi - cfg.lr * b, p, buf), (step + 1, buf)
        return init, update
    wd = cfg.weight_decay if cfg.optimizer == "adamw" else 0.0
    b1, b2, eps = 0.9, 0.999, 1e-8

    def init(p):
        return (jnp.zeros((), jnp.int32), tm(jnp.zeros_like, p), tm(jnp.zeros_like, p))

    def update(g, s, p):
        step, m, v = s
        step = step + 1
        t = step.astype(jnp.float32)
        m = tm(lambda mi, gi: b1 * mi + (1 - b1) * gi, m, g)
        v = tm(lambda vi, gi: b2 * vi + (1 - b2) * gi * gi, v, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t

        def upd(pi, mi, vi):
            pi = pi * (1 - cfg.lr * wd)
            return pi - cfg.lr * (mi / c1) / (jnp.sqrt(vi / c2) + eps)
        return tm(upd, p, m, v), (step, m, v)
    return init, update


class Trainer:
    def __init__(self, model_name, cfg, weights, data):
        jax, jnp = _setup()
        forward = FORWARDS[model_name](cfg)
        if model_name not in BUFFERS:
            plain = forward

            def forward(p, x, b):
                return plain(p, x), b

        def loss_fn(p, b, x, y):
            logits, b = forward(p, x, b)
            logits = logits.reshape(-1, logits.shape[-1])
            logp = jax.nn.log_softmax(logits, axis=-1)
            return -jnp.take_along_axis(logp, y.reshape(-1, 1), axis=1).mean(), b
        init, update = _optimizer(cfg)

        @jax.jit
        def train_step(p, s, b, x, y):
            (loss, b), g = jax.value_and_grad(loss_fn, has_aux=True)(p, b, x, y)
            p, s = update(g, s, p)
            return p, s, b, loss
        self.params = {k: jnp.asarray(v) for k, v in weights.items()}
        self.initial = self.params
        self.state = init(self.params)
        self.buffers = BUFFERS[model_name](cfg) if model_name in BUFFERS else {}
        self.x, self.y = (jnp.asarray(a) for a in data)
        self.train_step, self.loss_fn, self.jax = train_step, loss_fn, jax

    def step(self):
        self.params, self.state, self.buffers, loss = self.train_step(
            self.params, self.state, self.buffers, self.x, self.y)
        self.jax.block_until_ready((self.params, self.state, self.buffers))
        return float(loss)

    def grads(self) -> dict:
        g, _ = self.jax.jit(self.jax.grad(self.loss_fn, has_aux=True))(
            self.initial, self.buffers, self.x, self.y)
        return {k: np.asarray(v) for k, v in g.items()}
