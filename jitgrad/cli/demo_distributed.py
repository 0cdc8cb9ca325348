"""`jitgrad demo --distributed`: the demo's two models trained data-parallel over MPI ranks.

    mpiexec -n 2 jitgrad demo --distributed

Each rank trains on its shard of every epoch (ArrayLoader(shard=(rank, world))) with the same
global batch as the single-process demo, split over the ranks; gradients are averaged with
jg.distributed.allreduce after every step, so all ranks take the same steps. Rank 0 prints.
At the end every rank compares its parameters with rank 0's and the largest difference is
printed (0 when data parallelism works).
"""
from __future__ import annotations

import sys
import time

import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import distributed as dist
from jitgrad import nn
from jitgrad.data import DataError, ArrayLoader

from .demo import (
    Run, accuracy, epochs_text, load, loss, mlp_loss, plot, progress_bar, save_params, settings_for
)


class Ranks:
    """This rank's place in the world, and printing on rank 0 only."""

    def __init__(self):
        dist.init()
        self.rank, self.world = dist.rank(), dist.world_size()

    def print(self, *args, **kwargs):
        if self.rank == 0:
            print(*args, **kwargs)

    def loader(self, x, y, rank_batch, seed):
        return ArrayLoader(x, y, batch_size=rank_batch, shuffle=True, seed=seed, drop_last=True,
                          shard=(self.rank, self.world))

    def epoch_end(self, run, loader, rank_batch, losses, test, predict, bar):
        """Global samples and mean loss of the epoch, test accuracy, the bar's last word."""
        run.samples += len(loader) * rank_batch * self.world
        run.losses.append(float(dist.allreduce(np.float64(np.mean(losses)))))
        run.accuracies.append(accuracy(predict(), test[1]))
        bar.set_postfix_str(f"loss {run.losses[-1]:.3f}  test acc {run.accuracy:.1%}")
        bar.close()


def softmax_regression(ranks, train, test, s, rank_batch, seed) -> tuple[Run, object]:
    (x_train, y_train), (x_test, _) = train, test
    run, W = Run("softmax regression"), jnp.zeros((x_train.shape[1], 10))
    loader = ranks.loader(x_train, y_train, rank_batch, seed)
    for epoch in range(s.softmax_epochs):
        bar, losses = progress_bar(len(loader), epoch, s.softmax_epochs, "softmax", ranks.rank > 0), []
        t0 = time.perf_counter()
        for x, y in loader:
            W_grad = dist.allreduce(jg.grad(loss)(W, x, y))
            W = W - s.softmax_lr * W_grad
            bar.update()
        run.train_s += time.perf_counter() - t0
        losses.append(float(loss(W, x_train, y_train)))
        ranks.epoch_end(run, loader, rank_batch, losses, test, lambda: x_test @ W, bar)
    return run, W


def mlp(ranks, train, test, s, rank_batch, seed) -> tuple[Run, object, dict]:
    (x_train, y_train), (x_test, _) = train, test
    jg.manual_seed(seed + ranks.rank)    # different inits: the broadcast makes them equal
    model = nn.Sequential(nn.Linear(x_train.shape[1], s.hidden), nn.ReLU(),
                          nn.Linear(s.hidden, 10))
    model = dist.broadcast(model)
    opt = jg.optim.adam(s.mlp_lr)
    state = opt.init(model)
    loader = ranks.loader(x_train, y_train, rank_batch, seed)
    xb, yb = next(iter(ranks.loader(x_train, y_train, rank_batch, seed)))
    t0 = time.perf_counter()
    grad_step = jg.jit(jg.value_and_grad(mlp_loss)).lower(model, xb, yb).compile()
    grads = grad_step(model, xb, yb)[1]
    update = jg.jit(opt.update).lower(grads, state, model).compile()
    predict = jg.jit(lambda model, x: model(x)).lower(model, x_test).compile()
    timing = {"compile_s": time.perf_counter() - t0, "allreduce_s": 0.0, "steps": 0}
    run = Run(f"MLP {x_train.shape[1]}-{s.hidden}-10")
    for epoch in range(s.mlp_epochs):
        bar, losses = progress_bar(len(loader), epoch, s.mlp_epochs, "MLP    ", ranks.rank > 0), []
        t0 = time.perf_counter()
        for x, y in loader:
            value, grads = grad_step(model, x, y)
            t1 = time.perf_counter()
            grads = dist.allreduce(grads)
            timing["allreduce_s"] += time.perf_counter() - t1
            model, state = update(grads, state, model)
            losses.append(value)
            bar.update()
        run.train_s += time.perf_counter() - t0
        timing["steps"] += len(loader)
        losses = [float(v) for v in losses]
        ranks.epoch_end(run, loader, rank_batch, losses, test, lambda: predict(model, x_test), bar)
    return run, model, timing


def max_difference_from_rank0(params) -> float:
    """The largest |p - p_rank0| over all parameters and all ranks."""
    leaves = [np.asarray(p) for p in jg.tree_util.tree_leaves(params)]
    rank0 = dist.broadcast(leaves)
    local = max((float(np.max(np.abs(a - b))) for a, b in zip(leaves, rank0) if a.size),
                default=0.0)
    return float(dist.allreduce(local, op="max"))


def main(args) -> int:
    start = time.perf_counter()
    ranks = Ranks()
    try:
        train, test, name, about = load(getattr(args, "data", None))
    except DataError as e:
        ranks.print(f"jitgrad demo: {e}", file=sys.stderr)
        return 1
    s = settings_for(name, args)
    seed = getattr(args, "seed", 0)
    if s.batch_size % ranks.world:
        ranks.print(f"jitgrad demo: --batch-size {s.batch_size} does not split evenly over "
                    f"{ranks.world} ranks; pass a multiple of {ranks.world}", file=sys.stderr)
        return 1
    rank_batch = s.batch_size // ranks.world
    ranks.print(f"jitgrad demo --distributed: {ranks.world} MPI rank"
                f"{'s' if ranks.world > 1 else ''}, {about}, {len(train[0])} train / "
                f"{len(test[0])} test images; global batch {s.batch_size} = {ranks.world} x "
                f"{rank_batch}, gradients averaged with jg.distributed.allreduce every step\n")

    ranks.print(f"(a) softmax regression, eager, {epochs_text(s.softmax_epochs)}:\n"
                "        W_grad = allreduce(jg.grad(loss)(W, x, y)); W = W - lr * W_grad",
                flush=True)
    a, W = softmax_regression(ranks, train, test, s, rank_batch, seed)
    ranks.print(f"    test accuracy {a.accuracy:.1%}   {a.samples_per_s:,.0f} samples/s   "
                f"{a.train_s:.1f} s\n")

    ranks.print(f"(b) MLP {train[0].shape[1]}-{s.hidden}-10, {epochs_text(s.mlp_epochs)}: jitted "
                "value_and_grad -> allreduce(grads) -> jitted Adam update", flush=True)
    b, model, t = mlp(ranks, train, test, s, rank_batch, seed)
    ranks.print(f"    test accuracy {b.accuracy:.1%}   {b.samples_per_s:,.0f} samples/s   "
                f"{b.train_s:.1f} s")
    ranks.print(f"    compile {t['compile_s']:.2f} s; allreduce "
                f"{1e3 * t['allreduce_s'] / max(t['steps'], 1):.3f} ms per step")
    diff = max_difference_from_rank0([W, model])
    ranks.print(f"\nfinal parameters on all {ranks.world} ranks: max |difference| from rank 0 "
                f"= {diff:.3g}" + (" (identical)" if diff == 0 else ""))
    if ranks.rank == 0 and getattr(args, "plot", None):
        plot([a, b], args.plot)
        print(f"\nwrote {args.plot}")
    if ranks.rank == 0 and getattr(args, "save_params", None):
        save_params(model, args.save_params)
        print(f"\nwrote the MLP's parameters to {args.save_params}")
    ranks.print(f"\ntotal {time.perf_counter() - start:.1f} s")
    return 0
