"""THE op database (PyTorch's OpInfo idea; DESIGN.md sections 10 and 14): one record table, by
namespace, from which the eager / jit / interpreter / grad / vmap / 16-bit / error / owner tests
(tests/consistency/test_opinfo.py, and the older consumers through tests/support/op_records.py) and the fuzzer's op
list are generated.

    numpy_ops.py          jitgrad.numpy (NumPy owns the names)
    nn_functional_ops.py  jitgrad.nn.functional (torch owns them)
                          with nn_functional_more_ops.py (+ _refs.py)
    torch_ops.py          jitgrad.* top-level torch functions (torch), with torch_*_ops.py
    torch_linalg_ops.py   jitgrad.linalg (torch.linalg)
    tensor_methods_ops.py jg.Tensor methods (torch), built with the functions (torch_records.py)
    scipy_ops.py          jitgrad.scipy.special (SciPy)
    lax_ops.py            jitgrad.lax (JAX; NumPy references)
    random_ops.py         jitgrad.random (JAX; statistics of draws from fixed keys)
    linalg_ops.py         jitgrad.scipy.linalg (SciPy)
    scipy_stats_ops.py    jitgrad.scipy.stats (SciPy)
    numpy_*.py, lax_*.py  more of those namespaces (.fft, .linalg, ...), gathered by numpy_ops.py
                          and lax_ops.py

RECORDS is the table the older consumers run (CUDA simulator, CPU codegen, vmap, autodiff, meta);
ALL_RECORDS adds the records written since, which tests/consistency/test_opinfo.py runs on every path.
"""
from . import (fuzz, lax_ops, nn_functional_ops, numpy_ops, scipy_ops, tensor_methods_ops,
               torch_ops, torch_unrecorded)
from . import linalg_ops, random_ops, scipy_stats_ops
from . import torch_linalg_ops
from .core import *  # noqa: F401,F403
from .core import OpRecord

NAMESPACES = {"jitgrad.numpy": numpy_ops, "jitgrad.nn.functional": nn_functional_ops,
              "jitgrad": torch_ops, "jitgrad.scipy.special": scipy_ops, "jitgrad.lax": lax_ops,
              "jitgrad.Tensor": tensor_methods_ops, "jitgrad.random": random_ops,
              "jitgrad.scipy.linalg": linalg_ops, "jitgrad.scipy.stats": scipy_stats_ops,
              "jitgrad.linalg": torch_linalg_ops}

RECORDS: list = (numpy_ops.RECORDS[:numpy_ops.LEGACY_COUNT]
                 + nn_functional_ops.RECORDS[:nn_functional_ops.LEGACY_COUNT])
ALL_RECORDS: list = [r for m in NAMESPACES.values() for r in m.RECORDS]
NAMESPACE_OF = {id(r): ns for ns, m in NAMESPACES.items() for r in m.RECORDS}

BY_NAME: dict = {}
for _rec in ALL_RECORDS:
    BY_NAME.setdefault(_rec.name, []).append(_rec)


def public_name(rec: OpRecord) -> str:
    """The namespace attribute a record tests: 'getitem[1]' -> 'getitem', 'linalg.det(...)' ->
    'linalg.det'."""
    return rec.name.split("[")[0].split("(")[0]


def fuzz_ops(kind, family="float") -> list:
    """The differential fuzzers' ops of `kind` ('unary' | 'binary' | 'reduce' | 'shape') in
    `family` ('float' | 'int'): the records marked fuzz=kind, as FuzzOps
    (tests/support/opinfo/fuzz.py)."""
    return fuzz.fuzz_ops(ALL_RECORDS, NAMESPACE_OF, public_name, kind, family)
