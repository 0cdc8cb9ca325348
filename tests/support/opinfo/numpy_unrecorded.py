"""jitgrad.numpy's public names that have no op record, with the reason
(tests/consistency/test_opinfo_coverage.py checks the list is exact)."""

_SCALAR_TYPE = ("a scalar type (a dtype's class), not an op: tests/numpy/test_x64.py, "
                "test_dtypes_lowp.py")
_ABSTRACT = "an abstract class of NumPy's scalar type hierarchy, for issubdtype; not an op"
_CONSTANT = "a constant (a Python float), not a function"
_INDEX_TRICK = "an indexing object (obj[...] builds the index or the grid), not a function"
_PRINT = "print settings of the host (NumPy's), no array op"
_IO = "reads or writes host files or buffers; no array op to compare on every path"
_DTYPE_LOGIC = ("dtype logic on dtype objects and Python values (no arrays, nothing traced): "
                "tests/numpy/test_numpy_conformance.py")
_META = ("a Python value read off the shape or dtype (never traced): "
         "tests/numpy/test_jnp_functions.py")

_SCALAR_TYPES = (
    "bool bool_ cdouble complex128 complex64 complex_ csingle double float16 float32 float64 "
    "float_ int16 int32 int64 int8 int_ single uint uint16 uint32 uint64 uint8 "
    "float4_e2m1fn float6_e2m3fn float6_e3m2fn float8_e3m4 float8_e4m3 float8_e4m3b11fnuz "
    "float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu int1 int2 int4 "
    "uint1 uint2 uint4").split()
_ABSTRACTS = ("character complexfloating flexible floating generic inexact integer number "
              "object_ signedinteger unsignedinteger").split()

UNRECORDED = {
    "jitgrad.numpy": {
        **{n: _SCALAR_TYPE for n in _SCALAR_TYPES},
        **{n: _ABSTRACT for n in _ABSTRACTS},
        **{n: _CONSTANT for n in ("e", "pi", "inf", "nan", "euler_gamma")},
        **{n: _INDEX_TRICK for n in ("c_", "r_", "s_", "mgrid", "ogrid", "index_exp")},
        "newaxis": "None, the indexing marker; not a function",
        **{n: _PRINT for n in ("printoptions", "get_printoptions", "set_printoptions",
                               "array_repr", "array_str")},
        **{n: _IO for n in ("load", "save", "savez", "frombuffer", "fromfile", "fromiter",
                            "fromstring", "from_dlpack")},
        **{n: _DTYPE_LOGIC for n in ("can_cast", "promote_types", "result_type", "issubdtype",
                                     "isdtype", "finfo", "iinfo", "dtype", "broadcast_shapes")},
        **{n: _META for n in ("ndim", "shape", "size", "isscalar", "iscomplexobj",
                              "isrealobj", "iterable")},
        "ndarray": "the array class (jitgrad's Tensor), not an op",
        "ufunc": "the class of jnp.add, ...: its methods (reduce, accumulate, outer, at) are "
                 "tested in tests/numpy/test_jnp_functions.py",
        "ComplexWarning": "a warning class, not an op",
        "frompyfunc": "wraps a Python function as a ufunc object (a class factory), no op of "
                      "its own: the ufunc's methods are tested with the ufunc class",
    },
    "jitgrad.numpy.linalg": {
        n: "the named tuple class of a result (eigh, qr, svd, slogdet), not a function"
        for n in ("EighResult", "QRResult", "SVDResult", "SlogdetResult")},
}
