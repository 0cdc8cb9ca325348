"""The two torch-owned record tables and their builders: FUNCTION_RECORDS (jitgrad.*, torch.*'s
meaning) and METHOD_RECORDS (jg.Tensor methods, torch.Tensor's meaning). One spec gives the
function, the method and the in-place forms (torch.abs_, x.abs_()): the in-place records run on
a clone, check the method returns the tensor itself, and hold the result to the reference cast
to the tensor's dtype (torch's in-place rule). In-place forms are eager-only (a traced value is
immutable), so they have no jit / grad / vmap tests; their error is tested on every path by the
out-of-place record's own paths and by tests/torch_api.

Method records are named "name[Tensor]" so their test ids differ from the function's."""
import numpy as np

import jitgrad as jg
from tests.support.torch_names import TENSOR_METHODS
from .core import FLOATS, Bools, Ints, table

FUNCTION_RECORDS, function_record = table("torch", "torch.")
METHOD_RECORDS, _method_table_record = table("torch", "torch.Tensor.")


def call_method(name):
    """x.name(*args, **kwargs) as a function of x."""
    def fn(x, *args, **kwargs):
        return getattr(x, name)(*args, **kwargs)
    fn.__name__ = f"Tensor.{name}"
    return fn


def method_record(name, ref, cases, fn=None, **kw):
    """x.name(...) (or `fn`, a function of x that calls it); jitgrad's own extra methods
    (x.astype, x.at, ...) have no torch function to compare."""
    kw.setdefault("owner_path", "torch.Tensor." + name if name in TENSOR_METHODS else None)
    return _method_table_record(f"{name}[Tensor]", fn or call_method(name), ref, cases,
                                takes_numpy=False, **kw)


def in_place(name, function):
    """x.name(...) (or torch.name(x, ...)) on a clone of x: it must return that clone."""
    def fn(x, *args, **kwargs):
        y = x.clone()
        out = getattr(jg, name)(y, *args, **kwargs) if function else getattr(y, name)(
            *args, **kwargs)
        assert out is y, f"{name} returned a new tensor, not its input"
        return y
    fn.__name__ = name
    return fn


def clone_then(x, update):
    """update(y) on a clone y of x, which must return y itself (torch's in-place rule)."""
    y = x.clone()
    assert update(y) is y, "the in-place update returned a new tensor"
    return y


def _shape(spec):
    return spec.shape if isinstance(spec, (Ints, Bools)) else spec


def _keeps_shape(case):
    try:
        return tuple(np.broadcast_shapes(*map(_shape, case))) == case[0]
    except ValueError:          # not a broadcasting op (x.put_(index, source))
        return True


def same_shape_cases(cases):
    """The cases whose broadcast result has the first argument's shape (in-place can't grow)."""
    return tuple(c for c in cases if _keeps_shape(c))


def _cast_like_first(ref):
    def cast(x, *args, **kwargs):
        return np.asarray(ref(x, *args, **kwargs)).astype(x.dtype)
    return cast


def inplace_records(name, ref, cases, function, method, reshaping=False, **kw):
    """The records of name_ (torch.name_ when `function`, x.name_() when `method`); a
    `reshaping` one (x.t_(), x.unsqueeze_(0)) makes the tensor stand for a new shape."""
    kw = {**kw, "differentiable": False, "batchable": False, "traceable": False, "fuzz": None,
          "errors": ()}
    if kw.pop("float_result", False):
        kw["dtypes"] = tuple(d for d in kw.get("dtypes", FLOATS) if d in FLOATS)
    cases = cases if reshaping else same_shape_cases(cases)
    iref = _cast_like_first(ref)
    if function:
        function_record(name + "_", in_place(name + "_", True), iref, cases, **kw)
    if method:
        _method_table_record(f"{name}_[Tensor]", in_place(name + "_", False), iref, cases,
                             takes_numpy=False, owner_path=f"torch.Tensor.{name}_", **kw)


def positional(f, names):
    """f with the keyword arguments `names` passed positionally, in that order (torch.tile(x,
    dims) is called tile(x, (2, 2)); torch's own function gets the keywords)."""
    def fn(*args, **kwargs):
        return f(*args, *[kwargs.pop(n) for n in names], **kwargs)
    return fn


def op(name, ref, cases, *, function=True, method=True, inplace=True, inplace_cases=None,
       by_position=(), **kw):
    """Records of torch's `name`: the function jg.name, the method x.name(), and, where jitgrad
    has them (and `inplace`), the in-place torch.name_ / x.name_() (on `inplace_cases`, by
    default the cases whose result keeps the first argument's shape). The kwargs named in
    `by_position` are passed positionally to jitgrad (the owner gets them as keywords)."""
    if function:
        function_record(name, positional(getattr(jg, name), by_position), ref, cases, **kw)
    if method:
        method_record(name, ref, cases, fn=positional(call_method(name), by_position), **kw)
    if inplace:     # function=False: jg.name is recorded elsewhere, torch.name_ is not
        inplace_records(name, ref, inplace_cases or cases, hasattr(jg, name + "_"),
                        method and hasattr(jg.Tensor, name + "_"),
                        reshaping=name in ("squeeze", "unsqueeze", "t"), **kw)
