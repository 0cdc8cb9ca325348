"""`jitgrad demo`: the main job. Train two classifiers on handwritten digits and report accuracy
and speed:

(a) softmax regression in the style of the lecture notes, eager, one `jg.grad` per batch:
        W_grad = jg.grad(loss)(W, x, y); W = W - lr * W_grad
(b) an MLP (jg.nn) whose whole training step (forward, backward, Adam) is one jitted function,
    timed against the same step run eagerly.

Default data: the bundled 8x8 digits (offline); `--data DIR` reads MNIST IDX files instead.
"""
from __future__ import annotations

import statistics
import sys
import time
from dataclasses import dataclass, field

import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn
from jitgrad.data import DataError, ArrayLoader, digits_split, load_mnist
from jitgrad.nn import functional as F


@dataclass
class Settings:
    """Per-dataset defaults (epochs, learning rates, batch size), chosen so each model is well
    past its accuracy target on that data."""
    softmax_epochs: int
    softmax_lr: float
    mlp_epochs: int
    mlp_lr: float
    batch_size: int
    hidden: int = 128


DEFAULTS = {"digits": Settings(10, 0.5, 20, 3e-3, 32), "mnist": Settings(3, 0.5, 5, 1e-3, 128, 256)}


@dataclass
class Run:
    name: str
    losses: list = field(default_factory=list)      # mean train loss per epoch
    accuracies: list = field(default_factory=list)  # test accuracy per epoch
    samples: int = 0
    train_s: float = 0.0

    @property
    def accuracy(self) -> float:
        return self.accuracies[-1]

    @property
    def samples_per_s(self) -> float:
        return self.samples / self.train_s


def accuracy(logits, y) -> float:
    return float(np.mean(np.asarray(jnp.argmax(logits, axis=-1)) == y))


def progress_bar(steps, epoch, epochs, label, disable=False):
    """A progress bar for one epoch; the caller updates it per step and closes it after
    writing the epoch's loss and test accuracy into it. `disable` hides it (ranks > 0)."""
    from tqdm import tqdm  # lazy: optional dependency
    return tqdm(total=steps, desc=f"  {label} epoch {epoch + 1:>2}/{epochs}", leave=True,
                bar_format="{desc} {bar:24} {n_fmt}/{total_fmt} [{elapsed}] {postfix}",
                file=sys.stderr, disable=disable)


# ---------------------------------------------------------------------------------- (a)

def loss(W, x, y):
    return F.cross_entropy(x @ W, y)


def softmax_regression(train, test, s: Settings, seed: int) -> Run:
    (x_train, y_train), (x_test, y_test) = train, test
    run = Run("softmax regression")
    lr = s.softmax_lr
    W = jnp.zeros((x_train.shape[1], 10))
    loader = ArrayLoader(x_train, y_train, batch_size=s.batch_size, shuffle=True, seed=seed,
                        drop_last=True)
    for epoch in range(s.softmax_epochs):
        bar = progress_bar(len(loader), epoch, s.softmax_epochs, "softmax")
        t0 = time.perf_counter()
        for x, y in loader:
            W_grad = jg.grad(loss)(W, x, y)
            W = W - lr * W_grad
            bar.update()
        run.train_s += time.perf_counter() - t0
        run.samples += len(loader) * s.batch_size
        run.losses.append(float(loss(W, x_train, y_train)))
        run.accuracies.append(accuracy(x_test @ W, y_test))
        bar.set_postfix_str(f"loss {run.losses[-1]:.3f}  test acc {run.accuracy:.1%}")
        bar.close()
    return run


# ---------------------------------------------------------------------------------- (b)

def mlp_loss(model, x, y):
    return F.cross_entropy(model(x), y)


def mlp(train, test, s: Settings, seed: int) -> tuple[Run, dict]:
    (x_train, y_train), (x_test, y_test) = train, test
    run = Run(f"MLP {x_train.shape[1]}-{s.hidden}-10")
    jg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(x_train.shape[1], s.hidden), nn.ReLU(), nn.Linear(s.hidden, 10))
    opt = jg.optim.adam(s.mlp_lr)
    state = opt.init(model)

    def train_step(model, state, x, y):
        loss, grads = jg.value_and_grad(mlp_loss)(model, x, y)
        model, state = opt.update(grads, state, model)
        return model, state, loss

    loader = ArrayLoader(x_train, y_train, batch_size=s.batch_size, shuffle=True, seed=seed,
                        drop_last=True)
    xb, yb = next(iter(ArrayLoader(x_train, y_train, batch_size=s.batch_size)))
    t0 = time.perf_counter()   # compile ahead of time, to time it apart from training
    step = jg.jit(train_step).lower(model, state, xb, yb).compile()
    predict = jg.jit(lambda model, x: model(x)).lower(model, x_test).compile()
    timing = {"compile_s": time.perf_counter() - t0, "backend": step.exe.backend}

    for epoch in range(s.mlp_epochs):
        bar, losses = progress_bar(len(loader), epoch, s.mlp_epochs, "MLP    "), []
        t0 = time.perf_counter()
        for x, y in loader:
            model, state, loss = step(model, state, x, y)
            losses.append(loss)
            bar.update()
        run.train_s += time.perf_counter() - t0
        run.samples += len(loader) * s.batch_size
        run.losses.append(float(np.mean([float(v) for v in losses])))
        run.accuracies.append(accuracy(predict(model, x_test), y_test))
        bar.set_postfix_str(f"loss {run.losses[-1]:.3f}  test acc {run.accuracy:.1%}")
        bar.close()

    timing["jit_ms"] = _median_ms(lambda: step(model, state, xb, yb), 30)
    with jg.no_grad():
        timing["eager_ms"] = _median_ms(lambda: train_step(model, state, xb, yb), 5)
    timing["model"] = model
    return run, timing


def save_params(model, path) -> None:
    """The trained MLP's parameters as an .npz (names from state_dict), for `jitgrad aot`."""
    np.savez(path, **{k: np.asarray(v) for k, v in model.state_dict().items()})


def _median_ms(fn, n) -> float:
    fn()   # warm up
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


# ---------------------------------------------------------------------------------- main

def load(data_dir):
    """(train, test, name, description) for the bundled digits or an MNIST directory."""
    if data_dir is None:
        train, test = digits_split(test_size=0.2, seed=0)
        return train, test, "digits", "bundled 8x8 handwritten digits"
    train, test = load_mnist(data_dir, "train"), load_mnist(data_dir, "test")
    return train, test, "mnist", f"MNIST from {data_dir}"


def plot(runs, path):
    import matplotlib  # lazy: optional dependency (--plot)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt       # lazy: after choosing the Agg backend
    from matplotlib.ticker import MaxNLocator
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    for r in runs:
        epochs = range(1, len(r.losses) + 1)
        ax_loss.plot(epochs, r.losses, marker="o", label=r.name)
        ax_acc.plot(epochs, [100 * a for a in r.accuracies], marker="o", label=r.name)
    ax_loss.set(xlabel="epoch", ylabel="train loss", title="training loss")
    ax_acc.set(xlabel="epoch", ylabel="test accuracy (%)", title="test accuracy")
    for ax in (ax_loss, ax_acc):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def settings_for(name, args) -> Settings:
    s = Settings(**vars(DEFAULTS[name]))
    epochs = 1 if getattr(args, "quick", False) else getattr(args, "epochs", None)
    if epochs is not None:
        s.softmax_epochs = s.mlp_epochs = epochs
    if getattr(args, "batch_size", None):
        s.batch_size = args.batch_size
    return s


def epochs_text(n) -> str:
    return f"{n} epoch" + ("" if n == 1 else "s")


def main(args=None) -> int:
    start = time.perf_counter()
    plot_path = getattr(args, "plot", None)
    if plot_path:
        try:
            import matplotlib  # noqa: F401  (lazy: optional dependency, checked before training)
        except ImportError:
            print("jitgrad demo: --plot needs matplotlib, which is not installed "
                  "(pip install 'jitgrad[plot]')", file=sys.stderr)
            return 1
    try:
        train, test, name, about = load(getattr(args, "data", None))
    except DataError as e:
        print(f"jitgrad demo: {e}", file=sys.stderr)
        return 1
    s = settings_for(name, args)
    seed = getattr(args, "seed", 0)
    print(f"jitgrad demo: {about}, {len(train[0])} train / {len(test[0])} test images\n")

    print(f"(a) softmax regression, eager, {epochs_text(s.softmax_epochs)} of batch {s.batch_size}:\n"
          "        W_grad = jg.grad(loss)(W, x, y); W = W - lr * W_grad", flush=True)
    a = softmax_regression(train, test, s, seed)
    print(f"    test accuracy {a.accuracy:.1%}   {a.samples_per_s:,.0f} samples/s   "
          f"{a.train_s:.1f} s\n")

    print(f"(b) MLP {train[0].shape[1]}-{s.hidden}-10, {epochs_text(s.mlp_epochs)} of batch "
          f"{s.batch_size}, one jitted training step (value_and_grad + Adam)", flush=True)
    b, t = mlp(train, test, s, seed)
    print(f"    test accuracy {b.accuracy:.1%}   {b.samples_per_s:,.0f} samples/s   "
          f"{b.train_s:.1f} s")
    print(f"    compile {t['compile_s']:.2f} s ({t['backend']} backend); step "
          f"{t['jit_ms']:.3f} ms jitted vs {t['eager_ms']:.2f} ms eager: "
          f"{t['eager_ms'] / t['jit_ms']:.0f}x faster")
    if plot_path:
        plot([a, b], plot_path)
        print(f"\nwrote {plot_path}")
    params_path = getattr(args, "save_params", None)
    if params_path:
        save_params(t["model"], params_path)
        print(f"\nwrote the MLP's parameters to {params_path} (see README: export to C)")
    print(f"\ntotal {time.perf_counter() - start:.1f} s")
    return 0
