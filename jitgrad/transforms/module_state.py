"""State leaves (module buffers) inside pytree arguments, and their writes under transformations.

A Module's buffers (BatchNorm's running statistics) are pytree leaves, so `jg.jit` traces them
as inputs and a model returned from a jitted function carries them; but they are state, not
parameters: `jg.grad` does not differentiate them and the optimizers leave them as they are.

A transformation rebuilds its pytree arguments from traced values, so a module that assigns a
buffer inside it (`self.running_mean = ...`) writes to the rebuilt copy. `functionalize` turns
those writes into extra outputs (as torch.compile does): the transformation returns them beside
the function's own outputs and `write_back` assigns them to the modules the caller passed, after
the call, as eager code would have. Writes are logged per trace (`WriteLog`, a stack: the
innermost trace sees them), so a write to a module that is NOT an argument (one the function
closes over) is seen too: grad returns and assigns it as well (it traces on every call), jit
refuses it with an error (it read that buffer as a constant), and no traced value leaks into the
module; a transformation that cannot define writes (vmap) refuses them all.

This file knows nothing of nn: jitgrad.nn.module registers Module with `register_state_node`.
"""
from __future__ import annotations

from .. import tree_util
from ..eager.tensor import Tensor

_NODES = {}      # class -> fn(node) -> one (owner, name) or None per leaf, in tree_flatten order
_LOGS = []       # the active WriteLogs, innermost last
_UNDOING = [0]   # > 0 while functionalize puts back values it moved out (not writes)


def register_state_node(cls, slots):
    """slots(node) -> a list aligned with tree_leaves(node): (owner, name) for a state leaf
    (owner.name is the attribute a write assigns), None for any other leaf."""
    _NODES[cls] = slots


def _is_node(x) -> bool:
    return isinstance(x, tuple(_NODES))


def state_slots(tree) -> list:
    """(owner, name) or None for every leaf of `tree`, in tree_flatten order."""
    out = []
    for top in tree_util.tree_leaves(tree, is_leaf=_is_node):
        if _is_node(top):
            fn = next(f for c, f in _NODES.items() if isinstance(top, c))
            out.extend(fn(top))
        else:
            out.append(None)
    return out


def trainable_mask(tree) -> list:
    """True for every leaf of `tree` that is not state (what grad and optimizers update)."""
    return [s is None for s in state_slots(tree)]


class WriteLog:
    """The state writes made while one transformation traces (a context manager).
    refuse: the transformation cannot define them (its message is raised at the write)."""

    def __init__(self, refuse: str | None = None):
        self.refuse = refuse
        self.entries = []        # (owner, name, old value)
        self.created = set()     # ids of state owners made during the trace (theirs to write)

    def __enter__(self):
        _LOGS.append(self)
        return self

    def __exit__(self, *exc):
        _LOGS.remove(self)


def note_write(owner, name, old) -> None:
    """Called by an owner before it assigns state `name` (a buffer); `old` is its value."""
    if not _LOGS or _UNDOING[0]:
        return
    log = _LOGS[-1]
    if log.refuse and id(owner) not in log.created:
        raise ValueError(log.refuse.format(name=name, owner=type(owner).__name__))
    log.entries.append((owner, name, old))


def note_created(owner) -> None:
    """Called by an owner when it is made (or rebuilt from a pytree) while a trace runs."""
    if _LOGS:
        _LOGS[-1].created.add(id(owner))


def functionalize(fn, where: str, closed_over: str = "return"):
    """fn(*args, **kwargs) -> wrapper returning (out, written values). After a call, the
    wrapper's `.written` says where each value goes: a leaf index into
    tree_leaves((args, kwargs)) for a buffer of an argument, or (module, name) for a buffer of a
    module the function closes over. closed_over="refuse" raises for the latter (jit: the
    closed-over buffer was read as a constant, stale on the next call); "return" returns it too
    (grad, vjp, jvp and checkpoint trace on every call, so their reads are fresh)."""

    def wrapper(*args, **kwargs):
        tree = (args, kwargs)
        slots = state_slots(tree)
        before = tree_util.tree_leaves(tree)
        with WriteLog() as log:
            out = fn(*args, **kwargs)
        owners = {id(s[0]) for s in slots if s is not None}
        first = {}                  # (owner, name) -> value before the trace, for closed-over
        for owner, name, old in log.entries:
            if id(owner) not in owners and id(owner) not in log.created:
                first.setdefault((id(owner), name), (owner, name, old))
        stray = [(owner, name, getattr(owner, name)) for owner, name, _ in first.values()]
        _UNDOING[0] += 1
        try:
            for owner, name, old in reversed(list(first.values())):   # assigned after the call
                setattr(owner, name, old)
        finally:
            _UNDOING[0] -= 1
        if closed_over == "refuse" and stray:
            owner, name, _ = stray[0]
            raise ValueError(
                f"{where}: the function assigned buffer '{name}' of a {type(owner).__name__} that "
                "is not one of its arguments (a module the function closes over), whose value "
                "jit would read as a constant. Pass the model as an argument, so the write "
                "becomes an output of the traced function and is written back after each call, "
                "or call model.eval() (BatchNorm writes its running statistics only in training "
                "mode)")
        after = tree_util.tree_leaves(tree)
        if len(after) != len(before):
            raise ValueError(f"{where}: the function changed the number of tensors in its "
                             f"arguments ({len(before)} -> {len(after)}), e.g. registered or "
                             "removed a buffer or parameter; do that before calling it")
        own = [i for i, (s, a, b) in enumerate(zip(slots, before, after))
               if s is not None and a is not b]
        wrapper.written = own + [(owner, name) for owner, name, _ in stray]
        return out, [after[i] for i in own] + [v for _, _, v in stray]

    wrapper.written = []
    wrapper.__name__ = getattr(fn, "__name__", "fn")
    return wrapper


def write_back(tree, written, values) -> None:
    """Assign values[k] to where written[k] says (see functionalize): a state leaf of `tree`
    (the caller's arguments) or a (module, name); state carries no autograd history."""
    if not written:
        return
    slots = state_slots(tree) if any(isinstance(w, int) for w in written) else None
    for w, v in zip(written, values):
        owner, name = slots[w] if isinstance(w, int) else w
        setattr(owner, name, v.detach() if isinstance(v, Tensor) else v)


VMAP_REFUSAL = ("jg.vmap: {owner} assigns its buffer '{name}' inside the mapped function, and a "
                "per-example write to shared state is not defined (BatchNorm in training mode "
                "does this). Call model.eval(), build the layer with "
                "track_running_stats=False, or apply the model to the whole batch outside vmap "
                "(as functorch's vmap, which refuses it too)")

CONTROL_FLOW_REFUSAL = (
    "{owner} assigns its buffer '{name}' inside a traced jg.cond/switch/while_loop/fori_loop/scan "
    "body, but the module is not an operand of that body (the body closes over it), so the "
    "write cannot leave the body. Pass the model as an operand (a scan or loop carry) and "
    "return it, or call model.eval() (BatchNorm writes its running statistics only in "
    "training mode)")

JACFWD_REFUSAL = (
    "jg.jacfwd/jg.hessian: {owner} assigns its buffer '{name}', but a forward-mode Jacobian runs "
    "the function once per input element, so the write is not one step's (BatchNorm in "
    "training mode does this; torch.func.jacfwd refuses it too). Call model.eval(), use "
    "track_running_stats=False, or jg.jacrev (one forward pass, which writes once)")
