"""jax.example_libraries.optimizers over jitgrad: each optimizer is an (init_fun, update_fun,
get_params) triple over pytrees of arrays,

    opt_init, opt_update, get_params = optimizers.adam(1e-3)
    opt_state = opt_init(params)
    opt_state = opt_update(i, grads, opt_state)      # i: the step number, for schedules
    params = get_params(opt_state)

with JAX's update formulas, step-size schedules and state packing."""
from __future__ import annotations

import functools
from collections import namedtuple

import numpy as np

from .. import numpy as jnp
from ..tree_util import register_pytree_node, tree_flatten, tree_map, tree_unflatten

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
# the flat states are the children; the tree structures are static data, as in JAX
register_pytree_node(
    OptimizerState, lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], aux[0], aux[1]))

Optimizer = namedtuple("Optimizer", ["init_fn", "update_fn", "params_fn"])
OptimizerState.__doc__ = ("jax.example_libraries.optimizers.OptimizerState: an optimizer's state, "
                          "its leaves packed with the tree structures (a pytree).")
Optimizer.__doc__ = ("jax.example_libraries.optimizers.Optimizer: the (init_fn, update_fn, "
                     "params_fn) triple an @optimizer function returns.")


def _unzip2(pairs):
    pairs = list(pairs)
    return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


def optimizer(opt_maker):
    """Decorator: an optimizer written for one array (init(x0) -> state,
    update(i, g, state) -> state, get_params(state) -> x, states being pytrees) becomes one
    over pytrees of arrays, whose state is an OptimizerState."""
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            x0_flat, tree = tree_flatten(x0_tree)
            states_flat, subtrees = _unzip2(tree_flatten(init(x0)) for x0 in x0_flat)
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grad_flat, tree2 = tree_flatten(grad_tree)
            if tree2 != tree:
                raise TypeError(f"optimizer update: expected gradients with the parameters' "
                                f"tree structure {tree}, got {tree2}")
            states = [tree_unflatten(t, s) for t, s in zip(subtrees, states_flat)]
            new_states = [update(i, g, s) for g, s in zip(grad_flat, states)]
            new_flat, subtrees2 = _unzip2(tree_flatten(s) for s in new_states)
            for s1, s2 in zip(subtrees, subtrees2):
                if s2 != s1:
                    raise TypeError(f"optimizer update: the update changed a state's structure "
                                    f"from {s1} to {s2}")
            return OptimizerState(new_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            states = [tree_unflatten(t, s) for t, s in zip(subtrees, states_flat)]
            return tree_unflatten(tree, [get_params(s) for s in states])

        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


def _first(state):
    return state[0]


@optimizer
def sgd(step_size):
    """Stochastic gradient descent: x - step_size(i) * g."""
    step_size = make_schedule(step_size)

    def update(i, g, x):
        return jnp.subtract(x, jnp.multiply(step_size(i), g))
    return (lambda x0: x0), update, (lambda x: x)


@optimizer
def momentum(step_size, mass):
    """Heavy-ball momentum: v = mass * v + g; x - step_size(i) * v."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = jnp.add(jnp.multiply(mass, velocity), g)
        return jnp.subtract(x, jnp.multiply(step_size(i), velocity)), velocity
    return (lambda x0: (x0, jnp.zeros_like(x0))), update, _first


@optimizer
def nesterov(step_size, mass):
    """Nesterov momentum: v = mass * v + g; x - step_size(i) * (mass * v + g)."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = jnp.add(jnp.multiply(mass, velocity), g)
        step = jnp.add(jnp.multiply(mass, velocity), g)
        return jnp.subtract(x, jnp.multiply(step_size(i), step)), velocity
    return (lambda x0: (x0, jnp.zeros_like(x0))), update, _first


def _inv_sqrt_or_zero(a):
    return jnp.where(jnp.greater(a, 0), jnp.true_divide(1.0, jnp.sqrt(jnp.where(
        jnp.greater(a, 0), a, 1.0))), 0.0)


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad with momentum (Duchi et al.): s += g^2; m = (1-momentum) g / sqrt(s) +
    momentum m; x - step_size(i) * m."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = jnp.add(g_sq, jnp.square(g))
        m = jnp.add(jnp.multiply(1.0 - momentum, jnp.multiply(g, _inv_sqrt_or_zero(g_sq))),
                    jnp.multiply(momentum, m))
        return jnp.subtract(x, jnp.multiply(step_size(i), m)), g_sq, m
    return init, update, _first


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp: a = gamma a + (1-gamma) g^2; x - step_size(i) g / sqrt(a + eps)."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq = state
        avg_sq = jnp.add(jnp.multiply(avg_sq, gamma), jnp.multiply(jnp.square(g), 1.0 - gamma))
        step = jnp.true_divide(jnp.multiply(step_size(i), g), jnp.sqrt(jnp.add(avg_sq, eps)))
        return jnp.subtract(x, step), avg_sq
    return (lambda x0: (x0, jnp.zeros_like(x0))), update, _first


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp with momentum: m = momentum m + step_size(i) g / sqrt(a + eps); x - m."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq, mom = state
        avg_sq = jnp.add(jnp.multiply(avg_sq, gamma), jnp.multiply(jnp.square(g), 1.0 - gamma))
        mom = jnp.add(jnp.multiply(momentum, mom), jnp.true_divide(
            jnp.multiply(step_size(i), g), jnp.sqrt(jnp.add(avg_sq, eps))))
        return jnp.subtract(x, mom), avg_sq, mom
    return init, update, _first


def _bias_correction(b, i, like):
    """1 - b^(i+1) in like's dtype (i may be a traced step number)."""
    return jnp.subtract(1.0, jnp.power(b, jnp.astype(jnp.add(i, 1), like.dtype)))


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma and Ba): bias-corrected moments m, v; x - step_size(i) m^ / (sqrt(v^) + eps)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = jnp.add(jnp.multiply(1.0 - b1, g), jnp.multiply(b1, m))
        v = jnp.add(jnp.multiply(1.0 - b2, jnp.square(g)), jnp.multiply(b2, v))
        mhat = jnp.true_divide(m, _bias_correction(b1, i, m))
        vhat = jnp.true_divide(v, _bias_correction(b2, i, v))
        step = jnp.true_divide(jnp.multiply(step_size(i), mhat), jnp.add(jnp.sqrt(vhat), eps))
        return jnp.subtract(x, step), m, v
    return init, update, _first


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """AdaMax (Adam with the infinity norm): u = max(b2 u, |g|);
    x - step_size(i) / (1 - b1^(i+1)) * m / (u + eps)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = jnp.add(jnp.multiply(1.0 - b1, g), jnp.multiply(b1, m))
        u = jnp.maximum(jnp.multiply(b2, u), jnp.abs(g))
        scale = jnp.true_divide(step_size(i), _bias_correction(b1, i, m))
        return jnp.subtract(x, jnp.true_divide(jnp.multiply(scale, m), jnp.add(u, eps))), m, u
    return init, update, _first


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3 (Anil et al., memory-efficient adaptive optimization): one accumulator per axis
    (the max of g^2 sums over the other axes) instead of one per entry."""
    step_size = make_schedule(step_size)

    def along(ndim, v, axis):
        return jnp.reshape(v, tuple(v.shape[0] if d == axis else 1 for d in range(ndim)))

    def init(x0):
        x_shape = tuple(jnp.shape(x0))
        x0 = jnp.atleast_1d(x0)
        return x0, jnp.zeros_like(x0), [jnp.zeros(n, x0.dtype) for n in x0.shape], x_shape

    def update(i, g, state):
        x, m, vs, x_shape = state
        g = jnp.atleast_1d(g)
        accum = functools.reduce(jnp.minimum, [along(g.ndim, v, a) for a, v in enumerate(vs)])
        accum = jnp.add(accum, jnp.square(g))
        m = jnp.add(jnp.multiply(1.0 - momentum, jnp.multiply(g, _inv_sqrt_or_zero(accum))),
                    jnp.multiply(momentum, m))
        x = jnp.subtract(x, jnp.multiply(step_size(i), m))
        others = [tuple(d for d in range(x.ndim) if d != a) for a in range(x.ndim)]
        vs = [jnp.max(accum, axis=axes) if axes else accum for axes in others]
        return x, m, vs, x_shape

    def get_params(state):
        x, _, _, x_shape = state
        return jnp.reshape(x, x_shape)
    return init, update, get_params


# step-size schedules: functions of the step number i (an int or a traced integer)

def constant(step_size):
    """jax.example_libraries.optimizers.constant: a schedule that returns `step_size` at every step."""
    def schedule(i):
        return step_size
    return schedule


def exponential_decay(step_size, decay_steps, decay_rate):
    """step_size * decay_rate^(i / decay_steps)."""
    def schedule(i):
        return jnp.multiply(step_size, jnp.power(decay_rate, jnp.true_divide(i, decay_steps)))
    return schedule


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    """step_size / (1 + decay_rate * i / decay_steps), the ratio floored if staircase."""
    def schedule(i):
        t = jnp.true_divide(i, decay_steps)
        t = jnp.floor(t) if staircase else t
        return jnp.true_divide(step_size, jnp.add(1.0, jnp.multiply(decay_rate, t)))
    return schedule


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    """From step_size to final_step_size over decay_steps steps along (1 - t)^power."""
    def schedule(step_num):
        t = jnp.true_divide(jnp.minimum(step_num, decay_steps), decay_steps)
        mult = jnp.power(jnp.subtract(1.0, t), power)
        return jnp.add(jnp.multiply(mult, step_size - final_step_size), final_step_size)
    return schedule


def piecewise_constant(boundaries, values):
    """values[k] for boundaries[k-1] < i <= boundaries[k] (len(values) = len(boundaries) + 1)."""
    boundaries, values = np.asarray(boundaries), np.asarray(values)
    if not values.shape[0] == boundaries.shape[0] + 1:
        raise ValueError(f"piecewise_constant: expected one more value than boundaries, got "
                         f"{values.shape[0]} values and {boundaries.shape[0]} boundaries")

    def schedule(i):
        k = jnp.sum(jnp.greater(i, boundaries))
        return jnp.take(jnp.asarray(values), k)
    return schedule


def make_schedule(scalar_or_schedule):
    """A schedule as is; a scalar step size as the constant schedule."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if np.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(f"make_schedule: expected a scalar step size or a schedule (a function of "
                    f"the step number), got {type(scalar_or_schedule).__name__} of shape "
                    f"{np.shape(scalar_or_schedule)}")


# utilities

def l2_norm(tree):
    """The l2 norm of all the leaves of tree together, as one vector."""
    leaves, _ = tree_flatten(tree)
    return jnp.sqrt(sum(jnp.sum(jnp.square(x)) for x in leaves))


def clip_grads(grad_tree, max_norm):
    """grad_tree scaled down so its l2_norm is at most max_norm."""
    norm = l2_norm(grad_tree)
    return tree_map(lambda g: jnp.where(jnp.less(norm, max_norm), g,
                                        jnp.multiply(g, jnp.true_divide(max_norm, norm))),
                    grad_tree)


class JoinPoint:
    """Marks where an optimizer state's per-parameter subtree joins the parameters' tree
    (a leaf of unpack_optimizer_state's result)."""
    __slots__ = ("subtree",)

    def __init__(self, subtree):
        self.subtree = subtree

    def __iter__(self):
        yield from self.subtree


def unpack_optimizer_state(opt_state):
    """The OptimizerState as a pytree of plain containers (for saving), with JoinPoint leaves."""
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = [tree_unflatten(t, s) for t, s in zip(subtree_defs, states_flat)]
    return tree_unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree):
    """The inverse of unpack_optimizer_state."""
    sentinels, tree_def = tree_flatten(marked_pytree, is_leaf=lambda x: isinstance(x, JoinPoint))
    if not all(isinstance(s, JoinPoint) for s in sentinels):
        raise TypeError("pack_optimizer_state: expected the result of unpack_optimizer_state "
                        "(a pytree whose leaves are JoinPoints)")
    states_flat, subtree_defs = _unzip2(tree_flatten(s.subtree) for s in sentinels)
    return OptimizerState(states_flat, tree_def, subtree_defs)
