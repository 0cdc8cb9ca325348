"""The op record table, now the op database in tests/support/opinfo/ (one module per namespace); this
module re-exports it for the consumers that import `op_records`:

    from tests.support.op_records import RECORDS, iter_cases, reference, expected_dtype, tolerance
    for rec, args in iter_cases(RECORDS, dtypes=FLOATS):
        got, want = rec.jg(*args), reference(rec, args)
        assert got.dtype == expected_dtype(rec, args, want)
        np.testing.assert_allclose(np.asarray(got), want, **tolerance(rec, got.dtype))
"""
try:
    from tests.support.opinfo import *  # noqa: F401,F403
    from tests.support.opinfo import BY_NAME, RECORDS  # noqa: F401
except ImportError:         # tests/ itself on sys.path, not the repository root
    from tests.support.opinfo import *  # noqa: F401,F403
    from tests.support.opinfo import BY_NAME, RECORDS  # noqa: F401
