"""The op record table, now the op database in tests/opinfo/ (one module per namespace); this
module re-exports it for the consumers that import `op_records`:

    from op_records import RECORDS, iter_cases, reference, expected_dtype, tolerance
    for rec, args in iter_cases(RECORDS, dtypes=FLOATS):
        got, want = rec.jg(*args), reference(rec, args)
        assert got.dtype == expected_dtype(rec, args, want)
        np.testing.assert_allclose(np.asarray(got), want, **tolerance(rec, got.dtype))
"""
try:
    from tests.opinfo import *  # noqa: F401,F403
    from tests.opinfo import BY_NAME, RECORDS  # noqa: F401
except ImportError:         # tests/ itself on sys.path, not the repository root
    from opinfo import *  # noqa: F401,F403
    from opinfo import BY_NAME, RECORDS  # noqa: F401
