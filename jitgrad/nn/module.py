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

from ..transforms import module_state, pytree_roles
from .. import tree_util
from ..eager.array_base import ArrayOps
from ..eager.grad_mode import no_grad
from ..eager.tensor import Tensor
from ..ir.types import kind_of


class Parameter(Tensor):
    """A float tensor that a Module registers as trainable (`requires_grad=True`).

    Under jit and grad a Parameter is an ordinary pytree leaf like any tensor."""
    __slots__ = ()

    def __new__(cls, data, requires_grad=True):
        arr = np.array(np.asarray(data), copy=True)
        if kind_of(arr.dtype) != "f":
            raise TypeError(f"Parameter: expected float data, got {arr.dtype}")
        p = cls._wrap(arr)
        p.requires_grad = bool(requires_grad)
        return p

    @classmethod
    def of(cls, tensor, requires_grad=True):
        """A Parameter holding `tensor`'s storage on its device (Module.to)."""
        p = cls._wrap(tensor._data, tensor.device)
        p._meta_type = tensor._meta_type            # shape and dtype of a meta tensor
        p.requires_grad = bool(requires_grad)
        return p

    def __reduce_ex__(self, protocol):   # copy.deepcopy and pickle (a copy of the data)
        return Parameter, (self._host("pickling a Parameter"), self.requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


class _Static:
    """The non-parameter attributes of a Module, as pytree aux data.

    Equal by value for plain Python data and by identity for anything else, so a model rebuilt
    by tree_unflatten (which shares these objects) hits the same jit cache entry. jit hashes and
    compares these on every call: the hash covers only the names, and equality first tries
    identity of every value (the common case after tree_unflatten)."""
    __slots__ = ("items", "flags", "_hash")

    def __init__(self, attrs: dict, flags=()):
        self.items = tuple(attrs.items())
        # per parameter: its requires_grad, None where a plain tensor sits (a gradient); not
        # part of equality: a model and its gradient have one structure (pytree_roles.py)
        self.flags = flags
        self._hash = hash(tuple(attrs))

    def _key(self):
        return tuple((k, _static_key(v)) for k, v in self.items)

    def __eq__(self, other):
        if not isinstance(other, _Static) or len(self.items) != len(other.items):
            return False
        if all(a[0] == b[0] and a[1] is b[1] for a, b in zip(self.items, other.items)):
            return True
        return self._key() == other._key()

    def __hash__(self):
        return self._hash

    def __reduce__(self):       # the hash of str is per process: made anew where unpickled
        return _Static, (dict(self.items), self.flags)


_PLAIN = (bool, int, float, complex, str, bytes, type(None), type)


def _static_key(v):
    if isinstance(v, _PLAIN):
        return v
    if isinstance(v, tuple) and not isinstance(v, ArrayOps):
        return tuple(_static_key(x) for x in v)
    return ("id", id(v))


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
            _GENERATION[0] += 1
            mods.pop(name, None)
            self.__dict__.pop(name, None)
            self.__dict__["_buffers"].pop(name, None)
            params[name] = value
        elif isinstance(value, Module):
            params, mods = self._registry("submodules")
            _GENERATION[0] += 1
            params.pop(name, None)
            self.__dict__.pop(name, None)
            self.__dict__["_buffers"].pop(name, None)
            mods[name] = value
        elif name in self.__dict__.get("_parameters", ()):
            if value is not None and not isinstance(value, ArrayOps):
                raise TypeError(f"cannot assign {type(value).__name__} to parameter '{name}' "
                                "(expected a tensor or None)")
            _GENERATION[0] += 1
            self._parameters[name] = value
        elif name in self.__dict__.get("_buffers", ()):
            new = _as_buffer(value, name)
            module_state.note_write(self, name, self._buffers[name])
            self._buffers[name] = new
        elif name in self.__dict__.get("_modules", ()):
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} to submodule '{name}' "
                                "(expected a Module or None)")
            _GENERATION[0] += 1
            self._modules[name] = value
        else:
            _set_static(self, name, value)

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
                _GENERATION[0] += 1
                _set_static(self, "_non_persistent_buffers", tuple(
                    n for n in self._non_persistent_buffers if n != name))
                return
        _AUX.pop(self, None)
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param) -> None:
        """Register `param` (a Parameter or None, e.g. a disabled bias) under `name`."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter: expected a Parameter or None for '{name}', "
                            f"got {type(param).__name__}")
        _GENERATION[0] += 1
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
        _set_static(self, "_non_persistent_buffers", rest if persistent else rest + (name,))

    def add_module(self, name: str, module) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module: expected a Module for '{name}', "
                            f"got {type(module).__name__}")
        _GENERATION[0] += 1
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
            _set_static(m, "training", bool(mode))
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


# ---------------------------------------------------------------------------------- pytrees

_TABLES = ("_parameters", "_buffers", "_modules")


def _flatten_module(m: Module):
    ties = _ties(m)
    view = _without(m, [slot for slot, _ in ties]) if ties else m
    d = view.__dict__
    params, bufs, mods = d["_parameters"], d.get("_buffers", {}), d["_modules"]
    flags = _flags(m, params)
    aux = _AUX.get(m)
    if (aux is None or aux[4].flags != flags or aux[1] != tuple(params) or aux[2] != tuple(bufs)
            or aux[3] != tuple(mods) or aux[5] != ties):
        static = {k: v for k, v in d.items() if k not in _TABLES}
        aux = (type(m), tuple(params), tuple(bufs), tuple(mods), _Static(static, flags), ties)
        _AUX[m] = aux
    return list(params.values()) + list(bufs.values()) + list(mods.values()), aux


def _unflatten_module(aux, children):
    # the aux names the class: tree_util finds Module's entry for every subclass through the MRO
    cls, param_names, buffer_names, mod_names, static, ties = aux
    m = object.__new__(cls)
    m.__dict__.update(static.items)
    n, b = len(param_names), len(param_names) + len(buffer_names)
    d = m.__dict__      # plain dicts (insertion-ordered), as torch.nn.Module's tables since 2.0
    d["_parameters"] = dict(zip(param_names, children[:n]))
    d["_buffers"] = dict(zip(buffer_names, children[n:b]))
    d["_modules"] = dict(zip(mod_names, children[b:]))
    for slot, first in ties:            # a tied slot holds its first slot's object again
        _put(m, slot, _get(m, first))
    if static.flags:
        _PARAM_FLAGS[m] = static.flags
    _AUX[m] = aux
    _TIES[m] = (_GENERATION[0], ties)
    module_state.note_created(m)
    return m


# A Parameter or Module held in two slots of a model (`head.weight = emb.weight`) is one pytree
# leaf (one subtree), as PyTorch lists it once: the module whose subtree holds both slots, not
# both inside one child (that child does it), flattens the later slot as empty and its unflatten
# puts the first slot's object there again. So a gradient sums over both uses, and a jitted
# update returns one tensor in both slots.
_GENERATION = [0]       # bumped by every parameter or submodule assignment
_TIES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # module -> (generation, ties)


def _ties(m) -> tuple:
    """((slot, first slot), ...) of m's subtree as paths of names, in flatten order (cached
    until a parameter or submodule is assigned anywhere)."""
    hit = _TIES.get(m)
    if hit is not None and hit[0] == _GENERATION[0]:
        return hit[1]
    ties = []
    _find_ties(m, (), None, {}, ties)
    ties = tuple(ties)
    _TIES[m] = (_GENERATION[0], ties)
    return ties


def _find_ties(m, prefix, child, seen, ties) -> None:
    """Walk m's slots in flatten order; seen: id -> (first path, the top child holding it)."""
    for table in (m._parameters, m._modules):
        for name, v in table.items():
            if v is None:
                continue
            path = prefix + (name,)
            first = seen.get(id(v))
            if first is None:
                seen[id(v)] = (path, child)
                if table is m._modules:
                    _find_ties(v, path, name if child is None else child, seen, ties)
            elif child is None or first[1] != child:
                ties.append((path, first[0]))


def _without(m, slots):
    """A shallow copy of m (its submodules copied along the paths) with those slots empty."""
    copy = object.__new__(type(m))
    copy.__dict__.update(m.__dict__)
    params, mods = dict(m._parameters), dict(m._modules)
    copy.__dict__["_parameters"], copy.__dict__["_modules"] = params, mods
    nested = {}
    for slot in slots:
        if len(slot) > 1:
            nested.setdefault(slot[0], []).append(slot[1:])
        else:
            (params if slot[0] in params else mods)[slot[0]] = None
    for name, rest in nested.items():
        mods[name] = _without(mods[name], rest)
    return copy


def _get(m, path):
    for name in path[:-1]:
        m = m._modules[name]
    return m._parameters[path[-1]] if path[-1] in m._parameters else m._modules[path[-1]]


def _put(m, path, value) -> None:
    for name in path[:-1]:
        m = m._modules[name]
    (m._parameters if path[-1] in m._parameters else m._modules)[path[-1]] = value


# a module -> the pytree aux it was last flattened to or rebuilt from, while its attributes
# other than the parameter, buffer and submodule tables stay as they were (_set_static drops
# it): a jitted step flattens its model's ~100 modules on every call, and the aux they had
# (the same objects) makes the cache lookup's comparison one of identities
_AUX: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _set_static(m, name, value) -> None:
    """Set an attribute that is not a parameter, buffer or submodule (pytree aux data)."""
    _AUX.pop(m, None)
    object.__setattr__(m, name, value)


# a module rebuilt by tree_unflatten -> the requires_grad flags of the parameters it was
# flattened from (its slots hold plain tensors or tracers until a jit result restores them)
_PARAM_FLAGS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _flags(m, params) -> tuple:
    """Per parameter slot: the requires_grad a jit result restores, None for a plain tensor;
    () when every slot is None (a gradient's modules: nothing to restore)."""
    flags = [p.requires_grad if isinstance(p, Parameter) else None for p in params.values()]
    if None in flags:           # plain tensors or tracers: the flags the module was rebuilt with
        inherited = _PARAM_FLAGS.get(m)
        if inherited:
            flags = [inherited[i] if f is None else f for i, f in enumerate(flags)]
        if flags.count(None) == len(flags):
            return ()
    return tuple(flags)


def _restore_parameters(root) -> None:
    """A jit result: parameters computed by the call become Parameters again, each with the
    requires_grad of the parameter it replaces, as the eager model had; a tensor in two slots
    (a tied weight) becomes one Parameter."""
    made = {}
    for m in root.modules():
        flags = _PARAM_FLAGS.get(m) or ()
        params = m._parameters
        for i, (name, p) in enumerate(list(params.items())):
            if type(p) is not Tensor:
                continue
            if id(p) in made:
                params[name] = made[id(p)]
            elif i < len(flags) and flags[i] is not None:
                params[name] = made[id(p)] = Parameter.of(p, flags[i])  # of() shares p's storage


def _as_gradient(root) -> None:
    """A gradient: its slots are plain tensors wherever the tree goes (tree_map, jit)."""
    for m in root.modules():
        _PARAM_FLAGS.pop(m, None)


def _state_slots(m: Module, seen=None) -> list:
    """One entry per pytree leaf of m: (module, buffer name) for a buffer, None otherwise; a
    parameter or module in two slots is one leaf, at its first slot (_ties)."""
    seen = set() if seen is None else seen
    out = []
    # parameters and buffers are tensors (one leaf) or None (no leaf): __setattr__ enforces it
    for p in m._parameters.values():
        if p is not None and id(p) not in seen:
            seen.add(id(p))
            out.append(None)
    out += [(m, name) for name, b in m.__dict__.get("_buffers", {}).items() if b is not None]
    for c in m._modules.values():
        if c is not None and id(c) not in seen:
            seen.add(id(c))
            out += _state_slots(c, seen)
    return out


tree_util.register_pytree_node(Module, _flatten_module, _unflatten_module)
pytree_roles.register(Module, gradient=_as_gradient, jit_result=_restore_parameters)
module_state.register_state_node(Module, _state_slots)


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
