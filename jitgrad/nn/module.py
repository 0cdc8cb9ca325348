"""Module and Parameter: PyTorch's attribute-registered containers, and JAX pytrees at once.

Assigning a `Parameter` or a `Module` to an attribute registers it (as in PyTorch), so
`parameters()`, `named_parameters()`, `state_dict()` and the repr find it; `register_buffer` adds
state that is not a parameter (BatchNorm's running statistics). Every Module is also a pytree: its
leaves are its parameters and buffers (depth first, in registration order), every other attribute
is static. Buffers are state leaves (jitgrad/module_state.py): grad does not differentiate them,
and writes to them under jit are returned by the compiled function and assigned after the call.
So `jg.jit`, `jg.grad` and `jg.tree_util.tree_map` take models directly, and the gradient of a
loss with respect to a model is a model of the same class holding gradients.
"""
from __future__ import annotations

import inspect
import weakref
from collections import OrderedDict

import numpy as np

from ..transforms import module_state
from ..eager.array_base import ArrayOps
from ..eager.grad_mode import no_grad
from ..eager.tensor import Tensor
from ..ir.types import kind_of
from . import module_tree
from .parameter import Parameter


class Module:
    """Base class of layers and models: subclass it, set layers and Parameters as attributes in
    `__init__`, and write `forward`."""

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_non_persistent_buffers", ())
        object.__setattr__(self, "training", True)
        module_state.note_created(self)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}.forward is not defined")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    # registration --------------------------------------------------------------------------
    def _registry(self, what):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {what} before Module.__init__() is called "
                                 f"(call super().__init__() first in {type(self).__name__})")
        return self.__dict__["_parameters"], self.__dict__["_modules"]

    def __setattr__(self, name, value):
        if isinstance(value, Parameter):
            params, mods = self._registry("parameters")
            module_tree.slots_changed()
            mods.pop(name, None)
            self.__dict__.pop(name, None)
            self.__dict__["_buffers"].pop(name, None)
            params[name] = value
        elif isinstance(value, Module):
            params, mods = self._registry("submodules")
            module_tree.slots_changed()
            params.pop(name, None)
            self.__dict__.pop(name, None)
            self.__dict__["_buffers"].pop(name, None)
            mods[name] = value
        elif name in self.__dict__.get("_parameters", ()):
            if value is not None and not isinstance(value, ArrayOps):
                raise TypeError(f"cannot assign {type(value).__name__} to parameter '{name}' "
                                "(expected a tensor or None)")
            module_tree.slots_changed()
            self._parameters[name] = value
        elif name in self.__dict__.get("_buffers", ()):
            new = _as_buffer(value, name)
            module_state.note_write(self, name, self._buffers[name])
            self._buffers[name] = new
        elif name in self.__dict__.get("_modules", ()):
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} to submodule '{name}' "
                                "(expected a Module or None)")
            module_tree.slots_changed()
            self._modules[name] = value
        else:
            module_tree.set_static(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if name in d.get(table, ()):
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                module_tree.slots_changed()
                module_tree.set_static(self, "_non_persistent_buffers", tuple(
                    n for n in self._non_persistent_buffers if n != name))
                return
        module_tree.static_changed(self)
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param) -> None:
        """Register `param` (a Parameter or None, e.g. a disabled bias) under `name`."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter: expected a Parameter or None for '{name}', "
                            f"got {type(param).__name__}")
        module_tree.slots_changed()
        self._registry("parameters")[0][name] = param

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Register `tensor` (or None) as state named `name`: not a parameter (no gradient, not
        in parameters()), in state_dict() unless persistent=False, moved and cast by .to()
        (floating buffers only), a pytree leaf that jit reads and writes back. Assign a new
        value with `self.name = value`."""
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"register_buffer: expected a non-empty name without '.', got {name!r}")
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffers before Module.__init__() is called (call "
                                 f"super().__init__() first in {type(self).__name__})")
        if name in self._parameters or name in self._modules or (
                name in self.__dict__ and name not in self._buffers):
            raise KeyError(f"register_buffer: attribute '{name}' already exists")
        self._buffers[name] = _as_buffer(tensor, name)
        rest = tuple(n for n in self._non_persistent_buffers if n != name)
        module_tree.set_static(self, "_non_persistent_buffers", rest if persistent else rest + (name,))

    def add_module(self, name: str, module) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module: expected a Module for '{name}', "
                            f"got {type(module).__name__}")
        module_tree.slots_changed()
        self._registry("submodules")[1][name] = module

    # traversal -----------------------------------------------------------------------------
    def named_children(self):
        """(name, child) of each direct submodule, a child held twice listed once."""
        memo = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in memo:
                memo.add(id(m))
                yield name, m

    def children(self):
        return (m for _, m in self.named_children())

    def _slots_of_modules(self):
        """(name, child) of every submodule slot that holds one, a child held twice under both
        names (state_dict and the repr keep both, as PyTorch's)."""
        return ((n, m) for n, m in self._modules.items() if m is not None)

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(dotted name, module) of self and every submodule, pre-order; a module held in two
        places is listed once, under its first name, unless remove_duplicate=False (PyTorch's)."""
        if remove_duplicate:
            memo = set() if memo is None else memo
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name,
                                           remove_duplicate)

    def modules(self):
        """Every module once, self first, in named_modules' order (a stack, not nested
        generators: a jitted step's result restores its Parameters through this on every
        call)."""
        stack, seen = [self], set()
        while stack:
            m = stack.pop()
            if id(m) in seen:
                continue
            seen.add(id(m))
            yield m
            stack.extend(reversed([c for c in m._modules.values() if c is not None]))

    def _named_members(self, table, prefix, recurse, remove_duplicate):
        """(dotted name, tensor) of every entry of `table` ("_parameters" or "_buffers") of self
        (and its submodules), a tensor held in two slots listed once unless remove_duplicate is
        False, as PyTorch's (a tied weight is one parameter: an optimizer updates it once)."""
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        memo = set()
        for module_prefix, m in modules:
            for name, v in m.__dict__.get(table, {}).items():
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                memo.add(id(v))
                yield (f"{module_prefix}.{name}" if module_prefix else name), v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        return (b for _, b in self.named_buffers(recurse=recurse))

    def _persistent_buffers(self, prefix=""):
        skip = self._non_persistent_buffers
        for name, b in self._buffers.items():
            if b is not None and name not in skip:
                yield (f"{prefix}.{name}" if prefix else name), b
        for name, m in self._slots_of_modules():
            yield from m._persistent_buffers(f"{prefix}.{name}" if prefix else name)

    def apply(self, fn):
        """Call fn on every submodule (children first) and on self, as torch.nn.Module.apply."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # modes and gradients -------------------------------------------------------------------
    def train(self, mode: bool = True):
        for m in self.modules():
            module_tree.set_static(m, "training", bool(mode))
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, mode: bool = True):
        for p in self.parameters():
            p.requires_grad_(mode)
        return self

    def zero_grad(self, set_to_none: bool = True):
        for p in self.parameters():
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad = p.grad * 0

    # state dict ----------------------------------------------------------------------------
    def state_dict(self) -> OrderedDict:
        """name -> detached tensor sharing the parameter's (or persistent buffer's) storage;
        each module's parameters, then its buffers, then its children's, as PyTorch orders them."""
        return OrderedDict((n, v.detach()) for n, v in self._state_items())

    def _state_items(self, prefix=""):
        join = (lambda n: f"{prefix}.{n}") if prefix else (lambda n: n)
        for name, p in self._parameters.items():
            if p is not None:
                yield join(name), p
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers:
                yield join(name), b
        for name, m in self._slots_of_modules():
            yield from m._state_items(join(name))

    def load_state_dict(self, state_dict, strict: bool = True):
        """Copy values into the parameters in place and assign the persistent buffers (in the
        buffer's dtype). With strict, keys must match exactly. Returns (missing_keys,
        unexpected_keys)."""
        own = OrderedDict(self._state_items())
        buffers = {n for n, _ in self._persistent_buffers()}
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise KeyError(f"load_state_dict for {type(self).__name__}: missing keys {missing}, "
                           f"unexpected keys {unexpected}")
        for name, p in own.items():
            if name not in state_dict:
                continue
            value = np.asarray(state_dict[name])
            if value.shape != p.shape:
                raise ValueError(f"load_state_dict: '{name}' expects shape {tuple(p.shape)}, "
                                 f"got {value.shape}")
            if name in buffers:         # a buffer: a new tensor (its dtype, its device)
                owner, attr = self._owner_of(name)
                setattr(owner, attr, Tensor._wrap(np.array(value, p.dtype)).to(p.device))
                continue
            with no_grad():
                p.copy_(value.astype(p.dtype))
        return missing, unexpected

    def _owner_of(self, dotted):
        *path, attr = dotted.split(".")
        owner = self
        for part in path:
            owner = owner._modules[part]
        return owner, attr

    # devices and dtypes --------------------------------------------------------------------
    def to(self, *args, device=None, dtype=None):
        """Move parameters and buffers to `device` and cast floating ones to `dtype`, in place
        (integer buffers such as num_batches_tracked keep their dtype, as in PyTorch):
        model.to("cuda"), model.to(jg.float64), model.to(device, dtype). Returns self."""
        for a in args:
            if _is_dtype(a):
                dtype = a
            else:
                device = a
        moved = {}      # a tensor held in two slots (a tied weight) stays one tensor
        for m in self.modules():
            for table, make in ((m._parameters, _moved_parameter), (m._buffers, _moved_tensor)):
                for name, v in table.items():
                    if v is not None:
                        if id(v) not in moved:
                            moved[id(v)] = (v, make(v, device, dtype))
                        table[name] = moved[id(v)][1]
        return self

    def float(self):
        return self.to(dtype="float32")

    def double(self):
        return self.to(dtype="float64")

    def cpu(self):
        return self.to("cpu")

    def cuda(self, index=0):
        return self.to(f"cuda:{index}")

    def num_parameters(self) -> int:
        return sum(p.size for p in self.parameters())

    # repr ----------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        return ""

    def __repr__(self):
        lines = [f"({name}): " + repr(m).replace("\n", "\n  ")
                 for name, m in self._slots_of_modules()]
        head = f"{type(self).__name__}({self.extra_repr()}"
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


module_tree.register(Module)


def _as_buffer(value, name):
    if value is None or isinstance(value, ArrayOps):
        return value
    if isinstance(value, np.ndarray):
        return Tensor._wrap(np.array(value))
    raise TypeError(f"cannot assign {type(value).__name__} as buffer '{name}' (expected a tensor "
                    "or None)")


def _is_dtype(a) -> bool:
    """Module.to's positional arguments: a dtype (np.dtype, type, "float64") or a device."""
    if isinstance(a, (np.dtype, type)):
        return True
    try:
        return isinstance(a, str) and kind_of(np.dtype(a)) in "biufc" and len(a) > 1
    except TypeError:
        return False


def _moved_tensor(t, device, dtype):
    """t on `device`, cast to `dtype` if t is floating (PyTorch's Module.to rule)."""
    cast = dtype is not None and kind_of(t.dtype) in "fc" and kind_of(np.dtype(dtype)) in "fc"
    return t.to(device=device, dtype=dtype if cast else None)


def _moved_parameter(p, device, dtype):
    """The same Parameter when nothing changes, else a new one (optimizers built before
    .to() hold the old ones, as PyTorch warns: move the model first)."""
    t = _moved_tensor(p.detach(), device, dtype)
    if t.dtype == p.dtype and t.device == p.device:
        return p
    return Parameter.of(t, p.requires_grad)

_TAKES_KEY = weakref.WeakKeyDictionary()   # Module subclass -> whether forward takes `key`


def takes_key(module) -> bool:
    """Whether module.forward accepts a PRNG `key` (containers pass one split key to each)."""
    cls = type(module)
    hit = _TAKES_KEY.get(cls)
    if hit is None:
        hit = _TAKES_KEY[cls] = "key" in inspect.signature(cls.forward).parameters
    return hit
