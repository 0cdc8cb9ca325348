"""Every user-facing error message: what it names (types, devices, the user's source line) and
what it suggests."""
import inspect
import re

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.eager.dispatch import apply
from jitgrad.ir import Op


def line_of(fn, marker):
    """'test_errors.py:N' of the line in fn's source that contains `marker`."""
    lines, first = inspect.getsourcelines(fn)
    n = next(i for i, text in enumerate(lines) if marker in text)
    return f"test_errors.py:{first + n}"


SUGGESTS = ("jg.where", "jg.cond", "static_argnums")


def _if_positive(x):
    if x > 0:                               # <- traced bool
        return x
    return -x


def _to_float(x):
    return x * float(x)                     # <- traced float


def _item(x):
    return x + x.item()                     # <- traced item


def _list_index(i):
    table = [1.0, 2.0, 3.0]
    return table[i]                         # <- traced index


def _to_numpy(x):
    return np.asarray(x) + 1                # <- traced array


def _range(n):
    return [n for _ in range(n)]            # <- traced range


@pytest.mark.parametrize("fn, arg, what", [
    (_if_positive, 1.0, "bool() (e.g. `if x > 0:`)"),
    (_to_float, 1.0, "float()"),
    (_item, 1.0, ".item()"),
    (_list_index, 1, "using a value as a Python index"),
    (_to_numpy, 1.0, "converting to a NumPy array"),
    (_range, 2, "using a value as a Python index"),
], ids=["if", "float", "item", "list index", "np.asarray", "range"])
def test_control_flow_on_traced_values(fn, arg, what):
    with pytest.raises(jg.ConcretizationError) as e:
        jg.jit(fn)(jg.tensor(arg))
    msg = str(e.value)
    assert msg.startswith(what) and "traced value" in msg
    assert f"(at {line_of(fn, '# <- traced')})" in msg
    for s in SUGGESTS:
        assert s in msg


def test_control_flow_is_fine_in_eager_grad():
    """grad of an eager call traces concretely: Python control flow on values works there."""
    g = jg.grad(lambda x: x * x if x > 0 else -x)
    assert g(jg.tensor(3.0)).item() == 6.0 and g(jg.tensor(-3.0)).item() == -1.0


def _bad_add(x, y):
    return x + y                            # <- shapes


def _bad_matmul(x, y):
    return x @ y                            # <- shapes


def _bad_dtypes(x, y):
    return apply(Op.add, [x, y])            # <- dtypes (a primitive: no promotion)


@pytest.mark.parametrize("fn, a, b, text", [
    (_bad_add, (2, 3), (4,), "add: cannot broadcast shapes f32[2,3] and f32[4]"),
    (_bad_matmul, (2, 3), (4, 2), "matmul: inner dimensions differ: f32[2,3] @ f32[4,2] (3 != 4)"),
], ids=["broadcast", "matmul"])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_shape_mismatch_names_both_types_and_the_line(fn, a, b, text, mode):
    run = fn if mode == "eager" else jg.jit(fn)
    with pytest.raises(TypeError) as e:
        run(jg.zeros(a), jg.zeros(b))
    assert str(e.value) == f"{text} (at {line_of(fn, '# <- shapes')})"


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_dtype_mismatch_names_both_types_and_the_line(mode):
    run = _bad_dtypes if mode == "eager" else jg.jit(_bad_dtypes)
    with pytest.raises(TypeError) as e:
        run(jg.zeros(3), jg.zeros(3, dtype=jg.float64))
    assert str(e.value) == ("add: expected inputs of one dtype, got f32[3] and f64[3] "
                            f"(at {line_of(_bad_dtypes, '# <- dtypes')})")


def test_other_shape_errors_name_the_line():
    here = f"test_errors.py:{inspect.currentframe().f_lineno + 3}"
    msg = f"cannot reshape f32[6] into shape (4, 2) (at {here})"
    with pytest.raises(TypeError, match=re.escape(msg)):
        jnp.reshape(jg.zeros(6), (4, 2)).shape
    here = f"test_errors.py:{inspect.currentframe().f_lineno + 2}"
    with pytest.raises(np.exceptions.AxisError, match=re.escape(f"dimension 1 (at {here})")):
        jnp.sum(jg.zeros(2), axis=3)
    with pytest.raises(TypeError, match=re.escape("concatenation axis: f32[2,3] and f32[4,2]")):
        jnp.concatenate([jg.zeros(2, 3), jg.zeros(4, 2)])


def test_compiled_function_lists_expected_and_actual_per_argument():
    compiled = jg.jit(lambda x, y: x + y).lower(jg.zeros(3), jg.zeros(3)).compile()
    with pytest.raises(TypeError) as e:
        compiled(jg.zeros(3), jg.zeros(4, dtype=jg.float64))
    assert str(e.value).splitlines() == [
        "<lambda> was compiled for other argument types:",
        "  argument 0: expected f32[3], got f32[3]",
        "  argument 1: expected f32[3], got f64[4]   <-- differs"]
    with pytest.raises(TypeError, match=r"argument 1: expected f32\[3\], got \(missing\)"):
        compiled(jg.zeros(3))
    assert compiled(np.ones(3, np.float32), jg.ones(3)).tolist() == [2.0, 2.0, 2.0]


def test_device_mix_names_both_devices():
    here = f"test_errors.py:{inspect.currentframe().f_lineno + 2}"
    with pytest.raises(jg.DeviceMismatchError) as e:
        jg.ones(2, device="meta") + jg.ones(2)
    assert str(e.value) == ("add: expected all tensors on one device, got meta and cpu "
                            f"(move one with .to('meta')) (at {here})")
    with pytest.raises(jg.DeviceMismatchError, match="got cpu and meta"):
        jnp.matmul(jg.ones(2, 2), jg.ones(2, 2, device="meta"))


def test_bad_arguments_to_jit():
    with pytest.raises(TypeError, match="got str; pass other values with static_argnums"):
        jg.jit(lambda x, s: x)(jg.zeros(1), "mode")
    with pytest.raises(TypeError, match="returned a str leaf"):
        jg.jit(lambda x: "done")(jg.zeros(1))


def test_meta_tensors_have_no_data():
    m = jg.ones(3, device="meta")
    for fn in (lambda: m.numpy(), lambda: m.item(), lambda: np.asarray(m)):
        with pytest.raises(RuntimeError, match="meta tensor has a shape and dtype but no data"):
            fn()
    with pytest.raises(RuntimeError, match="meta tensor has no data to modify"):
        m[0] = 1.0


def test_dtype_errors():
    with pytest.raises(TypeError, match=r"expected a dtype \(float32, float64, int32, int64, "):
        jg.zeros(2, dtype="banana")
    with pytest.raises(TypeError, match="can't be cast to int64 in place"):
        x = jg.tensor([1, 2])
        x += 0.5
    with pytest.raises(TypeError, match="supported on integer and bool tensors, got float32"):
        jg.tensor([1.0, 2.0]) & jg.tensor([1.0, 0.0])


def test_tracebacks_show_the_user_call_not_jitgrad_internals(monkeypatch):
    import traceback
    monkeypatch.delenv("JITGRAD_TRACEBACK", raising=False)
    x, y = jg.ones((3, 4)), jg.ones((5, 6))
    try:
        x @ y
    except Exception as e:  # noqa: BLE001
        frames = traceback.extract_tb(e.__traceback__)
        files = [f.filename for f in frames]
    # the user's line, then at most the boundary that re-raised it: api_boundary's wrapper
    # (errors.py) or the flat eager operator (dispatch.fast_binary's `fast`)
    internal = [f for f in frames[1:] if "/jitgrad/" in f.filename
                and not f.filename.endswith("errors.py") and f.name != "fast"]
    assert files[0].endswith("test_errors.py") and not internal and len(files) <= 2, files
    monkeypatch.setenv("JITGRAD_TRACEBACK", "full")
    try:
        x @ y
    except Exception as e:  # noqa: BLE001
        files = [f.filename for f in traceback.extract_tb(e.__traceback__)]
    assert any(f.endswith("dispatch.py") for f in files)
