"""THE op database (PyTorch's OpInfo idea; DESIGN.md sections 10 and 14): one record table, by
namespace, from which the eager / jit / interpreter / grad / vmap / 16-bit / error / owner tests
(tests/test_opinfo.py, and the older consumers through tests/op_records.py) and the fuzzer's op
list are generated.

    numpy_ops.py          jitgrad.numpy (NumPy owns the names)
    nn_functional_ops.py  jitgrad.nn.functional (torch owns them)
    torch_ops.py          jitgrad.* top-level torch functions and Tensor methods (torch)
    scipy_ops.py          jitgrad.scipy.special (SciPy)
    lax_ops.py            jitgrad.lax (JAX; NumPy references)

RECORDS is the table the older consumers run (CUDA simulator, CPU codegen, vmap, autodiff, meta);
ALL_RECORDS adds the records written since, which tests/test_opinfo.py runs on every path.
"""
from . import lax_ops, nn_functional_ops, numpy_ops, scipy_ops, torch_ops
from .core import *  # noqa: F401,F403
from .core import OpRecord

NAMESPACES = {"jitgrad.numpy": numpy_ops, "jitgrad.nn.functional": nn_functional_ops,
              "jitgrad": torch_ops, "jitgrad.scipy.special": scipy_ops, "jitgrad.lax": lax_ops}

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


def fuzzable(kind=None) -> list:
    """The records the differential fuzzer draws from: (record, kind, domain), kind 'unary' |
    'binary' | 'reduce', domain a DOMAINS name per argument."""
    out = []
    for r in ALL_RECORDS:
        if r.fuzz and (kind is None or r.fuzz == kind):
            doms = r.domain if isinstance(r.domain, tuple) else (r.domain,) * (
                2 if r.fuzz == "binary" else 1)
            out.append((r, r.fuzz, doms))
    return out


# how the fuzzer's program text spells each namespace, and maps any float into each domain
_SPELLING = {"jitgrad.numpy": "jnp.{}", "jitgrad.nn.functional": "F.{}", "jitgrad": "jg.{}",
             "jitgrad.scipy.special": "jss.{}", "jitgrad.lax": "lax.{}"}
_INTO_DOMAIN = {"any": "{}", "positive": "(jnp.abs({}) + 0.5)", "nonzero": "{}",  # a kink at 0 is measure-zero
                "unit": "(jnp.tanh({}) * 0.9)", "ge1": "(jnp.abs({}) + 1.1)",
                "prob": "(F.sigmoid({}) * 0.8 + 0.1)", "near1": "(jnp.tanh({}) * 0.4 + 1.0)",
                "nonneg_small": "jnp.abs({})"}


def fuzz_templates(kind) -> list:
    """Program-text templates of the fuzzable records of `kind`, in the fuzzer's format:
    'unary' -> "jnp.exp2({a})", 'binary' -> "jnp.add({a}, {b})", 'reduce' -> "jnp.sum" (called
    with axis=, keepdims=). Inputs are mapped into each record's domain."""
    out = []
    for r, k, doms in fuzzable(kind):
        name = _SPELLING[NAMESPACE_OF[id(r)]].format(public_name(r))
        if k == "reduce":
            out.append(name)
            continue
        args = [_INTO_DOMAIN[d].format("{" + v + "}") for d, v in zip(doms, "ab")]
        out.append(f"{name}({', '.join(args)})")
    return sorted(set(out))
