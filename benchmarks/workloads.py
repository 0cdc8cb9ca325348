"""The workload table: what each benchmark computes, on which inputs, and its physical limit.

Every implementation module (impl_*.py) defines one function per workload name, all with the
same signature and result: the inputs below, in order, and the same output as impl_numpy.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

F32 = np.float32
LR = 0.1  # SGD learning rate of both training steps
MLP_SIZES = (784, 512, 512, 10)


@dataclass(frozen=True)
class Cost:
    """Work that sets the bound: bytes through memory and matmul FLOPs (either may be zero)."""
    bytes: int = 0
    flops: int = 0


@dataclass(frozen=True)
class Workload:
    name: str
    about: str
    sizes: tuple[Any, Any]                     # (full, quick)
    make_inputs: Callable[[np.random.Generator, Any], tuple]
    cost: Callable[[tuple], Cost] | None       # None: no meaningful bound


def _vector(rng, n):
    return (rng.standard_normal(n, dtype=F32),)


def _rows(rng, shape):
    return (rng.standard_normal(shape, dtype=F32),)


def _one_hot(rng, batch, classes=10):
    return np.eye(classes, dtype=F32)[rng.integers(0, classes, batch)]


def _logreg_inputs(rng, batch):
    w = (rng.standard_normal((784, 10), dtype=F32) * F32(0.01))
    x = rng.random((batch, 784), dtype=F32)
    return (w, x, _one_hot(rng, batch))


def _mlp_inputs(rng, batch):
    params = []
    for fan_in, fan_out in zip(MLP_SIZES, MLP_SIZES[1:]):
        params.append(rng.standard_normal((fan_in, fan_out), dtype=F32) * F32(np.sqrt(2 / fan_in)))
        params.append(rng.standard_normal(fan_out, dtype=F32) * F32(0.01))
    x = rng.random((batch, MLP_SIZES[0]), dtype=F32)
    return (tuple(params), x, _one_hot(rng, batch))


def _ten_vectors(rng, n):
    return ({f"w{i}": rng.standard_normal(n, dtype=F32) for i in range(10)},)


def _read_write(inputs) -> Cost:
    # elementwise and row-wise kernels read the input once and write a same-sized output
    return Cost(bytes=2 * inputs[0].nbytes)


def _read_only(inputs) -> Cost:
    return Cost(bytes=inputs[0].nbytes)


def _logreg_flops(inputs) -> Cost:
    w, x, _ = inputs
    return Cost(flops=2 * 2 * x.shape[0] * w.size)  # x @ w and x.T @ dlogits


def _mlp_flops(inputs) -> Cost:
    params, x, _ = inputs
    weights = [p.size for p in params[0::2]]
    # forward: every layer; backward: weight grads of every layer, input grads of all but the first
    return Cost(flops=2 * x.shape[0] * (2 * sum(weights) + sum(weights[1:])))


WORKLOADS = [
    Workload("ew_chain", "tanh(x*1.5+0.3)*sigmoid(x)+exp(-x*x)", (10_000_000, 100_000), _vector, _read_write),
    Workload("gelu", "0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3)))", (10_000_000, 100_000), _vector, _read_write),
    Workload("softmax", "row softmax", ((4096, 1024), (256, 256)), _rows, _read_write),
    Workload("layernorm", "row layernorm, eps 1e-5, no affine", ((4096, 1024), (256, 256)), _rows, _read_write),
    Workload("sum_sq", "sum(x*x)", (10_000_000, 100_000), _vector, _read_only),
    Workload("logreg_step", "SGD step, W 784x10, softmax CE, returns new W", (100, 100), _logreg_inputs, _logreg_flops),
    Workload("mlp_step", "SGD step, MLP 784-512-512-10 ReLU, softmax CE, returns (params, loss)",
             (256, 32), _mlp_inputs, _mlp_flops),
    Workload("call_overhead", "x*2+1 on 16 floats: per-call overhead", (16, 16), _vector, None),
    Workload("call_pytree", "x*2 on each of a dict of 10 arrays of 16 floats: a pytree call's overhead",
             (16, 16), _ten_vectors, None),
]
BY_NAME = {w.name: w for w in WORKLOADS}
