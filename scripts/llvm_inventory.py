"""What the CPU backend still compiles with numba: every op record (tests/support/op_records.py) in
each of its dtypes, the integer edge matrix (tests/support/int_edges.py) and a few ops of each kind on
the dtypes the records leave out (int8 ... uint64, float16, bfloat16), run through jg.jit on
the CPU; each kernel the LLVM units refuse is listed with llvm_kernels.why_not's reason and the
records that produced it.

    .venv/bin/python scripts/llvm_inventory.py
"""
from __future__ import annotations

import collections
import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

import numpy as np  # noqa: E402

import jitgrad as jg  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402
from jitgrad.codegen.cpu import units as cpu_units, llvm_kernels  # noqa: E402

SEEN: dict = collections.defaultdict(set)     # (kind, reason) -> record ids
CURRENT = ["?"]
_why_not = llvm_kernels.why_not


def _recording(node, product_hint=None):
    why = _why_not(node, product_hint)
    if why is not None:
        SEEN[node.params["kind"], why].add(CURRENT[0])
    return why


# the dtypes the records leave out, through a few ops of each kind
EXTRA_DTYPES = ("int8", "int16", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16")
EXTRA_OPS = {
    "add": lambda a, b: a + b, "mul": lambda a, b: a * b, "floor_divide": lambda a, b: a // b,
    "remainder": lambda a, b: a % b, "less": lambda a, b: a < b, "maximum": jnp.maximum,
    "bitwise_and": lambda a, b: a & b if a.dtype.kind in "iu" else a + b,
    "right_shift": lambda a, b: a >> (b & 3) if a.dtype.kind in "iu" else a - b,
    "sum": lambda a, b: jnp.sum(a, axis=0), "max": lambda a, b: jnp.max(a, axis=1),
    "cumsum": lambda a, b: jnp.cumsum(a, axis=1), "sort": lambda a, b: jnp.sort(a, axis=0),
    "argsort": lambda a, b: jnp.argsort(a, axis=1), "matmul": lambda a, b: a @ b.T,
    "convert": lambda a, b: a.astype(np.float32) + b.astype(np.float32),
}


def main() -> int:
    from int_edges import BINARY, DTYPES, edges
    from op_records import ALL, RECORDS, iter_cases
    llvm_kernels.why_not = _recording
    failures = 0
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for rec, args in iter_cases(RECORDS, dtypes=ALL):
            CURRENT[0] = rec.id
            cpu_units.forget()
            try:
                jg.jit(lambda *a: rec.jg(*a))(*args)
            except Exception as e:          # noqa: BLE001 (an inventory, not a test)
                failures += 1
                print(f"  ({rec.id}: {type(e).__name__}: {str(e)[:80]})", file=sys.stderr)
        for name, (fn, _, rhs) in BINARY.items():
            for dt in DTYPES:
                CURRENT[0] = f"int_edges:{name}"
                a = edges(dt)
                b = rhs(dt)
                jg.jit(fn)(a[:, None], b[None, :])
        for dt in EXTRA_DTYPES:
            x = np.arange(1, 13).reshape(3, 4).astype(dt)
            for name, fn in EXTRA_OPS.items():
                CURRENT[0] = f"{name}:{dt}"
                cpu_units.forget()
                try:
                    jg.jit(fn)(x, x[::-1])
                except Exception as e:      # noqa: BLE001
                    failures += 1
                    print(f"  ({name} on {dt}: {type(e).__name__}: {str(e)[:80]})", file=sys.stderr)
    llvm_kernels.why_not = _why_not
    if not SEEN:
        print("every kernel compiled through LLVM")
    for (kind, why), ids in sorted(SEEN.items()):
        print(f"{kind:12s} {why:40s} <- {', '.join(sorted(ids))}")
    print(f"({failures} cases raised)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
