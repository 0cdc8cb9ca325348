"""torch.optim.Optimizer: the base of the PyTorch-style optimizers and of users' own.

    class MySGD(jg.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, dict(lr=lr))
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        with jg.no_grad():
                            p.copy_(p - group["lr"] * p.grad)

param_groups is a list of dicts ('params' and the hyperparameters, defaults filled in, editable
between steps, as lr schedulers do); state maps each parameter to its dict of state;
state_dict() / load_state_dict() use torch's format: the state keyed by parameter index, the
groups with 'params' as index lists, so torch's state dicts (tensors as NumPy arrays) load."""
from __future__ import annotations

import functools
from collections import defaultdict
from itertools import chain

import numpy as np

from ..eager.tensor import Tensor, tensor
from .. import numpy as jnp
from .param_checks import group_params, param_list


class Optimizer:
    """torch.optim.Optimizer(params, defaults)."""

    def __init_subclass__(cls, **kwargs):
        """Every step() records that it ran (_opt_called): an lr scheduler stepped before the
        optimizer warns, as torch's does."""
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "records_call", False):
            @functools.wraps(step)
            def recorded_step(self, *args, **kwargs):
                self._opt_called = True
                return step(self, *args, **kwargs)
            recorded_step.records_call = True
            cls.step = recorded_step

    def __init__(self, params, defaults: dict):
        self.defaults = dict(defaults)
        self.state = defaultdict(dict)
        self.param_groups = []
        params = param_list(params, type(self).__name__)
        for group in params if isinstance(params[0], dict) else [{"params": params}]:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Adds a group (a dict with 'params'); missing hyperparameters take the defaults."""
        who = type(self).__name__
        if not isinstance(param_group, dict) or "params" not in param_group:
            raise TypeError(f"{who}: a parameter group is a dict with a 'params' entry, "
                            f"got {type(param_group).__name__}")
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        names = None
        if params and isinstance(params[0], tuple):       # model.named_parameters()
            names, params = [n for n, _ in params], [p for _, p in params]
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        params = group_params(params, who, seen)
        group = {**self.defaults, **param_group, "params": params}
        if names is not None:
            group["param_names"] = names
        self.param_groups.append(self.checked_group(group))

    def checked_group(self, group: dict) -> dict:
        """Subclasses validate (and normalize) a group's hyperparameters here."""
        return group

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None if set_to_none or p.grad is None else jnp.zeros_like(p.grad)

    def step(self, closure=None):
        raise NotImplementedError(f"{type(self).__name__}.step: an Optimizer subclass "
                                  "defines step(closure=None)")

    # -- torch's state_dict format -----------------------------------------------------------
    def state_dict(self) -> dict:
        """{'state': {index: state}, 'param_groups': [{..., 'params': [indices]}]}."""
        index, groups = {}, []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            packed["params"] = [index.setdefault(id(p), len(index)) for p in g["params"]]
            groups.append(packed)
        state = {}
        for p, st in self.state.items():
            packed = self.packed_state(st)
            if packed:
                state[index[id(p)] if isinstance(p, Tensor) else p] = packed
        return {"state": state, "param_groups": groups}

    def packed_state(self, st: dict) -> dict:
        """One parameter's state as state_dict() gives it."""
        return dict(st)

    def unpacked_state(self, p, st: dict) -> dict:
        """A loaded state for p: floating tensors (NumPy arrays too) become p's dtype and
        device, 'step' stays as it is, as torch's load_state_dict."""
        return {k: v if k == "step" else _like(v, p) for k, v in st.items()}

    def load_state_dict(self, state_dict: dict) -> None:
        who = type(self).__name__
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError(f"{who}.load_state_dict: loaded state dict has {len(saved)} "
                             f"parameter groups, the optimizer has {len(self.param_groups)}")
        for i, (s, g) in enumerate(zip(saved, self.param_groups)):
            if len(s["params"]) != len(g["params"]):
                raise ValueError(f"{who}.load_state_dict: loaded state dict contains a "
                                 f"parameter group that doesn't match the size of optimizer's "
                                 f"group: group {i} has {len(s['params'])} parameters, the "
                                 f"optimizer's {len(g['params'])}")
        by_index = dict(zip(chain.from_iterable(s["params"] for s in saved),
                            chain.from_iterable(g["params"] for g in self.param_groups)))
        state = defaultdict(dict)
        for k, st in state_dict["state"].items():
            p = by_index.get(k)
            state[p if p is not None else k] = (self.unpacked_state(p, dict(st))
                                                if p is not None else st)
        groups = [self.checked_group({**{k: v for k, v in s.items() if k != "params"},
                                      "params": g["params"]})
                  for s, g in zip(saved, self.param_groups)]
        self.state, self.param_groups = state, groups

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {g[k]}" for k in sorted(g) if k != "params"]
        return "\n".join(lines + [")"])


def _like(v, p):
    """v as a tensor of p's dtype and device when it is a floating array; else v itself."""
    if isinstance(v, (Tensor, np.ndarray)) or hasattr(v, "__array__"):
        a = np.asarray(v)
        if a.dtype.kind in "fc":
            return tensor(a, dtype=p.dtype, device=p.device)
    return v
