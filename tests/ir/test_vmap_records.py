"""Every op record batched with jg.vmap, along every axis position, against a Python loop over
the examples; for differentiable records also grads through vmap and vmap through grad."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import tree_util
from tests.support.op_records import F64, RECORDS, case_id, make_args

B = 3


def _dtype(rec):
    return F64 if F64 in rec.dtypes else rec.dtypes[0]


CASES = [(rec, case) for rec in RECORDS for case in rec.cases]


def _examples(rec, case):
    return [make_args(rec, case, _dtype(rec), seed=s) for s in range(B)]


def _stack(examples, i, axis):
    return np.stack([ex[i] for ex in examples], axis=axis)


def _loop(fn, examples):
    outs = [fn(*[jnp.asarray(a) for a in ex]) for ex in examples]
    leaves = [tree_util.tree_leaves(o) for o in outs]
    return [np.stack([np.asarray(lv[k]) for lv in leaves]) for k in range(len(leaves[0]))]


def _close(got, want, dtype):
    tol = 1e-9 if dtype == F64 else 2e-5
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def _axis_configs(examples):
    """in_axes configurations: every argument mapped at position k (k up to each one's rank),
    and, with several arguments, only the first one mapped (the others shared)."""
    ranks = [np.ndim(a) for a in examples[0]]
    configs = [tuple(min(k, r) for r in ranks) for k in range(max(ranks) + 1)]
    configs.append(tuple(-1 for _ in ranks))
    if len(ranks) > 1:
        configs.append((0,) + (None,) * (len(ranks) - 1))
    return configs


@pytest.mark.parametrize("rec,case", CASES,
                         ids=[case_id(r, make_args(r, c, _dtype(r))) for r, c in CASES])
def test_vmap_matches_loop(rec, case):
    examples = _examples(rec, case)
    dtype = _dtype(rec)
    for axes in _axis_configs(examples):
        if None in axes:
            shared = [examples[0][i] for i in range(1, len(axes))]
            exs = [(ex[0], *shared) for ex in examples]
        else:
            exs = examples
        args = [_stack(exs, i, ax) if ax is not None else exs[0][i] for i, ax in enumerate(axes)]
        got = tree_util.tree_leaves(jg.vmap(rec.jg, in_axes=axes)(*args))
        _close(got, _loop(rec.jg, exs), dtype)


GRAD_CASES = [(rec, case) for rec, case in CASES if rec.differentiable and F64 in rec.dtypes]


def _scalar_fn(rec, template):
    """(sum of rec.jg over the float arguments, indices of those arguments in `template`)."""
    floats = [i for i, a in enumerate(template) if np.asarray(a).dtype == F64]

    def fn(*xs, rest):
        args = list(rest)
        for i, x in zip(floats, xs):
            args[i] = x
        return sum(jnp.sum(o) for o in tree_util.tree_leaves(rec.jg(*args)))
    return fn, floats


@pytest.mark.parametrize("rec,case", GRAD_CASES,
                         ids=[case_id(r, make_args(r, c, F64)) for r, c in GRAD_CASES])
def test_grads_through_and_under_vmap(rec, case):
    examples = _examples(rec, case)
    fn, floats = _scalar_fn(rec, examples[0])
    if not floats:
        pytest.skip("no float argument")
    argnums = tuple(range(len(floats)))
    want = [np.stack([np.asarray(g) for g in gs]) for gs in zip(*[
        jg.grad(lambda *xs, ex=ex: fn(*xs, rest=ex), argnums)(*[ex[i] for i in floats])
        for ex in examples])]
    batched = [_stack(examples, i, 0) for i in range(len(examples[0]))]
    xs = [batched[i] for i in floats]

    def per_example(*a):
        full = list(a)
        return fn(*[full[i] for i in floats], rest=full)

    # vmap through grad: per-example gradients
    under = jg.vmap(jg.grad(lambda *a: per_example(*a), argnums=tuple(floats)))(*batched)
    _close(under, want, F64)

    # grad through vmap: the gradient of the summed batched function
    def total(*fx):
        full = list(batched)
        for i, x in zip(floats, fx):
            full[i] = x
        return jnp.sum(jg.vmap(per_example)(*full))
    _close(jg.grad(total, argnums)(*xs), want, F64)
