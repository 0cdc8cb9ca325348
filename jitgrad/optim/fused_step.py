"""The fused multi-tensor step of the PyTorch-style optimizers (torch's foreach/fused options).

One compiled function per parameter group updates all of the group's parameters that have a
gradient: it takes their values, gradients and state slots as lists and returns the new ones,
one fused kernel per parameter instead of ~14 eager ops that each allocate a result.

It is compiled once per key: the rule, the hyperparameters other than lr and the rule's runtime
ones, the state slots, and per parameter its shape, dtype and which set of per-step scalars it
takes. The per-step scalars (lr, with a schedule evaluated on the host; Adam's bias corrections
1 - b**step; AdamW's shrink factor; momentum and betas, which CyclicLR and OneCycleLR cycle) are
runtime arguments, one set per distinct (step, dtype, host numbers), so a new step, learning
rate or momentum does not recompile; editing any other hyperparameter of a group does (and
takes effect).

Results: the parameter is written in place (one copy, as p.copy_ does: the same object and
storage, its version counter moves, its views follow); the state slots become the new arrays,
as on the per-tensor path. Nothing is donated (jit's donate_argnums): the memory planner may
put a parameter's new value into a moment's storage, so the parameter would still need the copy
(on the GPT benchmark's AdamW step, 53 parameters, the copies cost ~0.34 ms of ~2.5).

Parameters the fused step does not take (fused_reason) stay on the per-tensor path.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..eager.tensor import Tensor
from .. import tree_util
from ..trace.tracing import ShapeDtype
from ..transforms.jit import jit

FUSED_DTYPES = (np.dtype("float32"), np.dtype("float64"))
MAX_ENTRIES = 16                              # compiled steps kept per optimizer


def _array(t):
    """t's host storage when it is a CPU NumPy array, else None."""
    d = getattr(t, "_data", None)
    return d if type(d) is np.ndarray and t.device.type == "cpu" else None


def fused_reason(p, grad, slots) -> str | None:
    """Why parameter p cannot take the fused step (None: it can)."""
    data = _array(p)
    if data is None:
        return f"it is on {p.device}"
    if data.dtype not in FUSED_DTYPES:
        return f"its dtype is {data.dtype} (the fused step takes float32 and float64)"
    if not data.flags.writeable:
        return "its storage is read-only"
    g = _array(grad)
    if g is None or g.dtype != data.dtype or g.shape != data.shape:
        return f"its gradient is {grad.dtype}{list(grad.shape)} on {grad.device}"
    for s in slots:
        a = _array(s)
        if a is None or a.dtype != data.dtype or a.shape != data.shape:
            return f"its state is {s.dtype}{list(s.shape)} on {s.device}"
    return None


def _root(a: np.ndarray):
    while a.base is not None:
        a = a.base
    return a


def shared_storage(params) -> set:
    """ids of the parameters whose storage overlaps another's: updated one after the other on
    the per-tensor path, each reading what the previous wrote."""
    by_root, shared = {}, set()
    for p in params:
        a = p._data
        same = by_root.setdefault(id(_root(a)), [])
        for q in same:          # almost always none: each parameter owns its memory
            if np.shares_memory(a, q._data):
                shared |= {id(p), id(q)}
        same.append(p)
    return shared


def _update_fn(rule, hyper, which, names):
    """The traced step: per parameter k, rule.fn with scalar set which[k]."""
    def fused_update(params, grads, slots, scalars):
        new = [rule.fn(hyper, scalars[k], p, g, dict(zip(names, s)))
               for k, p, g, s in zip(which, params, grads, slots)]
        return [n[0] for n in new], [[n[1][name] for name in names] for n in new]
    return fused_update


class FusedStep:
    """The compiled steps of one optimizer, by key; `compiles` counts traces + compiles."""

    def __init__(self, rule):
        self.rule = rule
        self.cache = OrderedDict()
        self.compiles = 0

    def __getstate__(self):         # copy.deepcopy / pickle of an optimizer: compile again
        return {**self.__dict__, "cache": OrderedDict()}

    def __call__(self, group, params, state) -> None:
        """One update of `params` (all with a gradient and a fused_reason of None); `state`
        maps each to its dict (rules.py: 'step', the slots by name, host numbers), stepped
        here."""
        rule, names = self.rule, list(self.rule.slots(group))
        hyper = {k: tuple(group[k]) if isinstance(group[k], list) else group[k]
                 for k in rule.defaults if k != "lr" and k not in rule.runtime}   # scalars
        nows = [{**state[p], "step": state[p]["step"] + 1} for p in params]
        sets, which, scalars = {}, [], []          # one scalar set per (step, dtype, host)
        for p, now in zip(params, nows):
            dtype = p._data.dtype
            k = sets.setdefault((now["step"], dtype, *(now[h] for h in rule.host)), len(scalars))
            if k == len(scalars):
                scalars.append([np.asarray(x, dtype) for x in rule.scalars(group, now)])
            which.append(k)
        values = [p._data for p in params]
        slots = [[state[p][n]._data for n in names] for p in params]
        key = (tuple(sorted(hyper.items())), tuple(names), tuple(which),
               tuple((a.shape, a.dtype) for a in values))
        compiled = self.cache.get(key)
        if compiled is None:
            args = (values, [p.grad._data for p in params], slots, scalars)
            compiled = self._compile(key, _update_fn(rule, hyper, which, names), args)
        outs = compiled.exe.run(values + [p.grad._data for p in params]
                                + [a for s in slots for a in s] + [a for s in scalars for a in s])
        it = iter(outs[len(params):])
        for p, now, new in zip(params, nows, outs):
            np.copyto(p._data, new)       # p.copy_(new), without the per-call dispatch
            p._version[0] += 1
            p._write_through()
            st = state[p]
            st.update({n: Tensor._wrap(next(it)) for n in names})
            st.update(rule.after(group, now))

    def _compile(self, key, update, args):
        fn = jit(update)
        # abstract, strongly typed arguments: a 0-d array passed as itself is weak (a NumPy
        # scalar), and would take a Python constant's default dtype
        specs = tree_util.tree_map(lambda a: ShapeDtype(a.shape, a.dtype), args)
        compiled = fn.lower(*specs).compile()
        n_in = sum(len(a) if i < 2 else sum(map(len, a)) for i, a in enumerate(args))
        assert len(compiled.exe.graph.inputs) == n_in, "fused step: inputs out of order"
        self.compiles += 1
        self.cache[key] = compiled
        while len(self.cache) > MAX_ENTRIES:
            self.cache.popitem(last=False)
        return compiled
