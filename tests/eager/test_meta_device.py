"""device='meta': shapes and dtypes without data. Every op runs its type rule only."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from tests.support.op_records import RECORDS, case_id, expected_dtype, iter_cases, reference


def test_huge_matmul_is_instant():
    a = jg.ones((10**6, 2 * 10**6), device="meta")
    b = jg.ones((2 * 10**6, 3 * 10**6), device="meta")
    c = a @ b
    assert c.device == "meta" and c.shape == (10**6, 3 * 10**6) and c.dtype == jg.float32
    d = jnp.tanh(c).sum(axis=0)
    assert d.shape == (3 * 10**6,) and d.device == "meta"


def test_mismatched_inner_dims_name_both_shapes():
    a = jg.ones((10**6, 2 * 10**6), device="meta")
    b = jg.ones((3 * 10**6, 4), device="meta")
    with pytest.raises(TypeError, match=r"matmul: inner dimensions differ: f32\[1000000,2000000\] "
                                        r"@ f32\[3000000,4\] \(2000000 != 3000000\)"):
        a @ b


def test_meta_creation_and_conversion():
    for t in (jg.zeros(2, 3, device="meta"), jg.tensor(np.ones((2, 3)), device="meta"),
              jnp.ones((2, 3), device="meta"), jg.ones(2, 3).to("meta"),
              jg.randn(2, 3, device=jg.device("meta"))):
        assert t.device == "meta" and t.shape == (2, 3)
    assert jg.tensor(np.ones(2), device="meta").dtype == jg.float64
    for huge in (jg.randn(10**6, 10**6, device="meta"), jg.rand(10**6, 10**6, device="meta"),
                 jnp.eye(10**6, device="meta"), jnp.zeros((10**6, 10**6), device="meta")):
        assert huge.shape == (10**6, 10**6) and huge.device == "meta"      # nothing allocated
    assert jnp.zeros_like(jg.zeros(4, device="meta")).device == "meta"


def test_host_data_joins_the_meta_device():
    """NumPy arrays, lists and Python scalars meeting a meta tensor become meta too."""
    m = jg.ones(2, 3, device="meta")
    for out in (m + 1.0, m * np.ones(3), jnp.where(np.ones((2, 3), bool), m, 0.0),
                jnp.maximum(m, [1.0, 2.0, 3.0]), m[:, [0, 2]], jnp.take(m, np.array([1]), axis=0),
                m.at[0, [1, 2]].set(5.0), m.at[:, 1].add([1.0, 2.0])):
        assert out.device == "meta"


def test_every_record_runs_on_meta():
    """Every op record, every case: on meta tensors the result has NumPy's shape and jitgrad's
    dtype, and no data."""
    for rec, args in iter_cases(RECORDS):
        want = reference(rec, args)
        got = rec.jg(*[jg.tensor(a, device="meta") for a in args])
        ws = want if isinstance(want, (list, tuple)) else [want]
        gs = got if isinstance(got, (list, tuple)) else [got]
        assert len(gs) == len(ws), case_id(rec, args)
        for g, w in zip(gs, ws):
            w = np.asarray(w)
            assert g.device == "meta", case_id(rec, args)
            assert g.shape == w.shape, f"{case_id(rec, args)}: {g.shape} != NumPy {w.shape}"
            assert g.dtype == expected_dtype(rec, args, w), case_id(rec, args)


def test_meta_under_jit_and_random():
    f = jg.jit(lambda x, w: jnp.maximum(x @ w, 0.0).mean(axis=1))
    out = f(jg.ones(4096, 1024, device="meta"), jg.ones(1024, 10**5, device="meta"))
    assert out.shape == (4096,) and out.device == "meta"
    key = jg.tensor(jg.random.key(0), device="meta")
    assert jg.random.normal(key, (5, 6)).device == "meta"


def test_a_0d_cpu_tensor_joins_another_device_as_in_pytorch():
    m = jg.ones(3, device="meta")
    for out in (m + jg.tensor(2.0), jg.tensor(2.0) * m, jnp.maximum(jg.tensor(0.0), m)):
        assert out.device == "meta" and out.shape == (3,)
    with pytest.raises(jg.DeviceMismatchError, match="meta and cpu"):
        m + jg.ones(1)          # only a 0-d CPU tensor moves; a 1-element one does not
