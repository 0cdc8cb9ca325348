"""The models in PyTorch, as a PyTorch user writes them: nn.Modules, torch.optim, and either
eager steps or the whole step function under torch.compile (NAME "torch.compile"). The LSTM is
nn.LSTM in eager mode and the same cell written out (a Python loop over time, unrolled by
dynamo) under torch.compile."""
from __future__ import annotations

import math

import numpy as np

NAMES = ("torch", "torch.compile")


def version() -> str:
    import torch
    return torch.__version__


def _modules():
    import torch
    from torch import nn
    import torch.nn.functional as F

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
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
            q, k, v = (z.view(b, t, h, hd).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
            att = torch.softmax(att.masked_fill(~mask, float("-inf")), dim=-1)
            y = (att @ v).transpose(1, 2).reshape(b, t, d)
            x = x + self.proj(y)
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self, cfg, compiled):
            super().__init__()
            self.tok, self.pos = nn.Embedding(cfg.vocab, cfg.d), nn.Embedding(cfg.seq, cfg.d)
            self.blocks = nn.ModuleList([Block(cfg.d, cfg.heads) for _ in range(cfg.layers)])
            self.ln_f = nn.LayerNorm(cfg.d)
            self.head = nn.Linear(cfg.d, cfg.vocab, bias=False)
            self.register_buffer("mask", torch.tril(torch.ones(cfg.seq, cfg.seq, dtype=torch.bool)),
                                 persistent=False)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
            for block in self.blocks:
                x = block(x, self.mask)
            return self.head(self.ln_f(x))

    class CNN(nn.Module):
        def __init__(self, cfg, compiled):
            super().__init__()
            self.conv1 = nn.Conv2d(1, cfg.c1, 3, padding=1)
            self.conv2 = nn.Conv2d(cfg.c1, cfg.c2, 3, padding=1)
            self.pool = nn.MaxPool2d(2)
            self.fc = nn.Linear(cfg.c2 * (cfg.size // 4) ** 2, cfg.classes)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            return self.fc(x.flatten(1))

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
        def __init__(self, cfg, compiled):
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
            return self.fc(x.mean(dim=(2, 3)))

    class MLP(nn.Module):
        def __init__(self, cfg, compiled):
            super().__init__()
            s = cfg.sizes
            self.fc0, self.fc1, self.fc2 = (nn.Linear(a, b) for a, b in zip(s[:-1], s[1:]))

        def forward(self, x):
            return self.fc2(F.relu(self.fc1(F.relu(self.fc0(x)))))

    class LSTM(nn.Module):
        def __init__(self, cfg, compiled):
            super().__init__()
            h = self.hidden = cfg.hidden
            self.compiled = compiled
            self.emb = nn.Embedding(cfg.vocab, h)
            self.lstm = nn.LSTM(h, h, batch_first=True)
            self.head = nn.Linear(h, cfg.vocab)

        def forward(self, idx):
            x = self.emb(idx)
            if not self.compiled:
                return self.head(self.lstm(x)[0])
            l = self.lstm
            xg = x @ l.weight_ih_l0.T + l.bias_ih_l0
            h = c = x.new_zeros(idx.shape[0], self.hidden)
            hs = []
            for t in range(idx.shape[1]):
                i, f, g, o = (xg[:, t] + h @ l.weight_hh_l0.T + l.bias_hh_l0).chunk(4, dim=-1)
                c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
                h = torch.sigmoid(o) * torch.tanh(c)
                hs.append(h)
            return self.head(torch.stack(hs, 1))

    return {"gpt": GPT, "cnn": CNN, "mlp": MLP, "lstm": LSTM, "resnet": ResNet}


# the common weight names -> this framework's state_dict names
RENAME = {"weight_ih": "lstm.weight_ih_l0", "weight_hh": "lstm.weight_hh_l0",
          "bias_ih": "lstm.bias_ih_l0", "bias_hh": "lstm.bias_hh_l0"}


def _optimizer(cfg, params):
    import torch
    if cfg.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    if cfg.optimizer == "sgd":
        return torch.optim.SGD(params, lr=cfg.lr, momentum=cfg.momentum)
    return torch.optim.Adam(params, lr=cfg.lr)


class Trainer:
    def __init__(self, model_name, cfg, weights, data, compiled=False):
        import torch
        import torch.nn.functional as F
        torch.manual_seed(0)
        self.torch = torch
        self.model = _modules()[model_name](cfg, compiled)
        self.model.load_state_dict({**self.model.state_dict(),       # buffers: fresh
                                    **{RENAME.get(k, k): torch.from_numpy(v.copy())
                                       for k, v in weights.items()}})
        self.initial = {k: v.copy() for k, v in weights.items()}
        self.x, self.y = (torch.from_numpy(a.astype(np.int64) if a.dtype.kind == "i" else a)
                          for a in data)
        self.opt = _optimizer(cfg, self.model.parameters())

        def loss_fn(x, y):
            logits = self.model(x)
            return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))

        def train_step(x, y):
            self.opt.zero_grad(set_to_none=True)
            loss = loss_fn(x, y)
            loss.backward()
            self.opt.step()
            return loss.detach()
        self.loss_fn = loss_fn
        self.train_step = torch.compile(train_step) if compiled else train_step

    def step(self):
        return float(self.train_step(self.x, self.y))

    def grads(self) -> dict:
        torch = self.torch
        back = {v: k for k, v in RENAME.items()}
        now = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        self.model.load_state_dict({**now, **{RENAME.get(k, k): torch.from_numpy(v)
                                              for k, v in self.initial.items()}})
        self.model.zero_grad(set_to_none=True)
        self.loss_fn(self.x, self.y).backward()
        out = {back.get(k, k): p.grad.numpy().copy() for k, p in self.model.named_parameters()}
        self.model.load_state_dict(now)
        return out
