"""The LSTM language-model training step written with the library's own nn.LSTM module (not a
hand-written cell): jitgrad's jg.nn.LSTM with the whole step in one jg.jit, against torch eager's
torch.nn.LSTM. One framework per process:

    python -m benchmarks.lstm_module jitgrad|torch

Embedding(128, 128) -> LSTM(128, 128) -> Linear(128, 128), seq 32, batch 16, cross-entropy,
Adam(1e-3). Prints the median of 20 steps in ms (after 3 warm-up steps), wall and process CPU
time, and the losses.
"""
from __future__ import annotations

import statistics
import sys
import time

import numpy as np

VOCAB, HIDDEN, SEQ, BATCH, STEPS, WARMUP = 128, 128, 32, 16, 20, 3


def _data():
    rng = np.random.default_rng(0)
    return rng.integers(0, VOCAB, (BATCH, SEQ)), rng.integers(0, VOCAB, (BATCH, SEQ))


def _time(step):
    """(median wall ms, median process CPU ms: all threads, less sensitive to a busy machine,
    last loss)."""
    times, cpu, loss = [], [], None
    for i in range(WARMUP + STEPS):
        t0, c0 = time.perf_counter(), time.process_time()
        loss = step()
        if i >= WARMUP:
            times.append((time.perf_counter() - t0) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
    return statistics.median(times), statistics.median(cpu), loss


def jitgrad_step():
    import jitgrad as jg
    import jitgrad.numpy as jnp
    from jitgrad import nn
    from jitgrad.nn import functional as F

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(VOCAB, HIDDEN)
            self.lstm = nn.LSTM(HIDDEN, HIDDEN, batch_first=True)
            self.head = nn.Linear(HIDDEN, VOCAB)

        def forward(self, idx):
            return self.head(self.lstm(self.emb(idx))[0])

    model, opt = LM(), jg.optim.adam(1e-3)
    state = opt.init(model)

    @jg.jit
    def step(model, state, x, y):
        def loss_fn(m):
            return F.cross_entropy(jnp.reshape(m(x), (-1, VOCAB)), jnp.reshape(y, (-1,)))
        loss, grads = jg.value_and_grad(loss_fn)(model)
        model, state = opt.update(grads, state, model)
        return model, state, loss

    x, y = (jnp.asarray(a) for a in _data())
    box = [model, state]

    def run():
        box[0], box[1], loss = step(box[0], box[1], x, y)
        return float(loss)
    return run


def torch_step():
    import torch

    class LM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(VOCAB, HIDDEN)
            self.lstm = torch.nn.LSTM(HIDDEN, HIDDEN, batch_first=True)
            self.head = torch.nn.Linear(HIDDEN, VOCAB)

        def forward(self, idx):
            return self.head(self.lstm(self.emb(idx))[0])

    model = LM()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = (torch.as_tensor(a) for a in _data())

    def run():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
        loss.backward()
        opt.step()
        return loss.item()
    return run


if __name__ == "__main__":
    name = sys.argv[1] if len(sys.argv) > 1 else "jitgrad"
    make = {"jitgrad": jitgrad_step, "torch": torch_step}[name]
    t0 = time.perf_counter()
    run = make()
    first_loss = run()
    first_ms = (time.perf_counter() - t0) * 1e3
    ms, cpu_ms, loss = _time(run)
    print(f"{name}: median {ms:.2f} ms/step wall, {cpu_ms:.2f} ms CPU, over {STEPS} steps (first "
          f"step incl. compile {first_ms:.0f} ms); loss {first_loss:.4f} -> {loss:.4f}")
