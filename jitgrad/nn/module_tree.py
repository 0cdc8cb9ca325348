"""Modules as JAX pytrees (jax.tree_util's registered nodes): a Module's leaves are its
parameters and buffers (depth first, in registration order), every other attribute is static aux
data; a Parameter or Module held in two slots is one leaf; buffers are state leaves
(jitgrad/transforms/module_state.py); a jit result holds Parameters again, a gradient plain
tensors (jitgrad/transforms/pytree_roles.py). `register(Module)` (jitgrad/nn/module.py) installs
the flatten and unflatten rules."""
from __future__ import annotations

import weakref

from .. import tree_util
from ..eager.array_base import ArrayOps
from ..eager.tensor import Tensor
from ..transforms import module_state, pytree_roles
from .parameter import Parameter


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


_TABLES = ("_parameters", "_buffers", "_modules")


def _flatten_module(m):
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
# other than the parameter, buffer and submodule tables stay as they were (set_static drops
# it): a jitted step flattens its model's ~100 modules on every call, and the aux they had
# (the same objects) makes the cache lookup's comparison one of identities
_AUX: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def set_static(m, name, value) -> None:
    """Set an attribute that is not a parameter, buffer or submodule (pytree aux data)."""
    _AUX.pop(m, None)
    object.__setattr__(m, name, value)


def static_changed(m) -> None:
    """m's attributes other than its tables changed (an attribute deleted): flatten anew."""
    _AUX.pop(m, None)


def slots_changed() -> None:
    """A parameter or submodule was assigned or deleted somewhere: every module's ties are
    found again."""
    _GENERATION[0] += 1


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


def _state_slots(m, seen=None) -> list:
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


def register(module_class) -> None:
    """Make `module_class` (jitgrad.nn.Module: every subclass through the MRO) a pytree node,
    with its gradient and jit-result roles and its state leaves."""
    tree_util.register_pytree_node(module_class, _flatten_module, _unflatten_module)
    pytree_roles.register(module_class, gradient=_as_gradient, jit_result=_restore_parameters)
    module_state.register_state_node(module_class, _state_slots)
