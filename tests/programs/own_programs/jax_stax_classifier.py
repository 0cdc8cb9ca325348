"""A digit classifier built with stax layers and trained by an example_libraries optimizer
(momentum): init_fun / apply_fun from stax.serial, opt_init / opt_update / get_params, a jitted
update taking the step number, shuffled minibatches from a Python generator.

Written here (tests/programs/own_programs/README.md); the harness runs this text on JAX and, with
its framework imports renamed, on jitgrad.
"""
import itertools

import numpy as np

import jax.numpy as jnp
from jax import grad, jit, random
from jax.example_libraries import optimizers, stax
from jax.example_libraries.stax import Dense, LogSoftmax, Relu

from synthetic_data import mnist_flat

init_net, apply_net = stax.serial(Dense(64), Relu, Dense(32), Relu, Dense(10), LogSoftmax)


def loss(params, batch):
    x, onehot = batch
    return -jnp.mean(jnp.sum(apply_net(params, x) * onehot, axis=1))


def accuracy(params, batch):
    x, onehot = batch
    return jnp.mean(jnp.argmax(apply_net(params, x), axis=-1) == jnp.argmax(onehot, axis=-1))


def shuffled_batches(x, y, batch_size, seed=0):
    rng = np.random.RandomState(seed)
    while True:
        order = rng.permutation(len(x))
        for start in range(0, len(x) - batch_size + 1, batch_size):
            idx = order[start:start + batch_size]
            yield x[idx], y[idx]


def main(epochs=2, batch_size=64):
    train_x, train_y, test_x, test_y = mnist_flat()
    steps_per_epoch = len(train_x) // batch_size
    opt_init, opt_update, get_params = optimizers.momentum(0.02, mass=0.9)

    @jit
    def update(step, opt_state, batch):
        return opt_update(step, grad(loss)(get_params(opt_state), batch), opt_state)

    _, params = init_net(random.PRNGKey(0), (-1, 784))
    opt_state = opt_init(params)
    stream = shuffled_batches(train_x, train_y, batch_size)
    step = itertools.count()
    for epoch in range(epochs):
        for _ in range(steps_per_epoch):
            opt_state = update(next(step), opt_state, next(stream))
        params = get_params(opt_state)
        print(f"epoch {epoch}: train accuracy {float(accuracy(params, (train_x, train_y))):.3f}"
              f" test accuracy {float(accuracy(params, (test_x, test_y))):.3f}")
    return {"params": params, "loss": float(loss(params, (train_x, train_y))),
            "accuracy": float(accuracy(params, (test_x, test_y)))}


if __name__ == "__main__":
    main()
