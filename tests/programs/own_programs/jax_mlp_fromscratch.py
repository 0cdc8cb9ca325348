"""An MLP digit classifier in plain jax.numpy: parameters as a list of (W, b) pairs, the loss's
gradient by jax.grad, one jitted SGD step, minibatches drawn by NumPy.

Written here (tests/programs/own_programs/README.md); the harness runs this text on JAX and, with
its framework imports renamed, on jitgrad.
"""
import numpy as np

import jax.numpy as jnp
from jax import grad, jit
from jax.scipy.special import logsumexp

from synthetic_data import mnist_flat

LAYERS = [784, 48, 24, 10]
STEP_SIZE = 0.05
BATCH = 64
EPOCHS = 2


def make_params(sizes, scale=0.1, seed=0):
    rng = np.random.RandomState(seed)
    return [(scale * rng.randn(n_out, n_in).astype(np.float32),
             scale * rng.randn(n_out).astype(np.float32))
            for n_in, n_out in zip(sizes[:-1], sizes[1:])]


def log_probs(params, x):
    h = x
    for w, b in params[:-1]:
        h = jnp.maximum(h @ w.T + b, 0.0)
    w, b = params[-1]
    logits = h @ w.T + b
    return logits - logsumexp(logits, axis=1, keepdims=True)


def loss(params, batch):
    x, onehot = batch
    return -jnp.mean(jnp.sum(log_probs(params, x) * onehot, axis=1))


def accuracy(params, batch):
    x, onehot = batch
    return jnp.mean(jnp.argmax(log_probs(params, x), axis=1) == jnp.argmax(onehot, axis=1))


@jit
def sgd_step(params, batch):
    grads = grad(loss)(params, batch)
    return [(w - STEP_SIZE * dw, b - STEP_SIZE * db) for (w, b), (dw, db) in zip(params, grads)]


def batches(x, y, rng):
    order = rng.permutation(len(x))
    for start in range(0, len(x) - BATCH + 1, BATCH):
        idx = order[start:start + BATCH]
        yield x[idx], y[idx]


def main():
    train_x, train_y, test_x, test_y = mnist_flat()
    params = make_params(LAYERS)
    rng = np.random.RandomState(1)
    for epoch in range(EPOCHS):
        for batch in batches(train_x, train_y, rng):
            params = sgd_step(params, batch)
        print(f"epoch {epoch}: train loss {float(loss(params, (train_x, train_y))):.4f}, "
              f"test accuracy {float(accuracy(params, (test_x, test_y))):.3f}")
    return {"params": params, "loss": float(loss(params, (train_x, train_y))),
            "accuracy": float(accuracy(params, (test_x, test_y)))}


if __name__ == "__main__":
    main()
