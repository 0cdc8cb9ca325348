"""Golden tests per pass: IR text in, IR text out (tests/ir/passes/golden/<pass>-<case>.ir).

Each file holds the input graph, a line `// ---- expected` followed by the graph the pass must
produce, or `// ---- unchanged` when the pass must leave it as it is. Lines starting with `//`
are comments. The pass runs on `ir.parse(input)`, followed by dce for the rewriting passes (they
leave dead nodes to it); the result must print exactly as the expected text, which must itself
round-trip through ir.parse.
"""
import pathlib

import numpy as np
import pytest

from jitgrad import ir
from jitgrad.ir.passes.canonicalize import canonicalize
from jitgrad.ir.passes.cse import cse
from jitgrad.ir.passes.dce import dce
from jitgrad.ir.passes.fold_constants import FOLD_LIMIT, fold_constants
from jitgrad.ir.passes.fuse import fuse

GOLDEN = pathlib.Path(__file__).parent / "golden"
PASSES = {
    "canonicalize": lambda g: dce(canonicalize(g)),
    "fold_constants": lambda g: dce(fold_constants(g)),
    "cse": lambda g: dce(cse(g)),
    "dce": dce,
    "fuse": fuse,
}


def _graph_text(lines):
    return "\n".join(l for l in lines if not l.startswith("//")).strip()


def load(path):
    lines = path.read_text().splitlines()
    cut = next(i for i, l in enumerate(lines) if l.startswith("// ----"))
    before = _graph_text(lines[:cut])
    expected = before if "unchanged" in lines[cut] else _graph_text(lines[cut + 1:])
    return before, expected


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.ir")), ids=lambda p: p.stem)
def test_golden(path):
    text, expected = load(path)
    run = PASSES[path.stem.split("-")[0]]
    out = run(ir.verify(ir.parse(text)))
    ir.verify(out)
    assert str(out) == expected
    assert str(ir.parse(expected)) == expected


def _big_constant_times_two(n):
    b = ir.Builder(ir.Graph(name="f"))
    c = b.constant(np.arange(n, dtype=np.float32))
    two = b.constant(np.float32(2))
    b.graph.outputs = [b.emit1(ir.Op.mul, (c, two))]
    return b.graph


def test_fold_respects_the_size_limit():
    over = _big_constant_times_two(FOLD_LIMIT + 1)
    assert str(fold_constants(over)) == str(over)
    under = fold_constants(_big_constant_times_two(FOLD_LIMIT))
    assert [n.op for n in dce(under).nodes] == [ir.Op.constant]
    np.testing.assert_array_equal(ir.interpret(under, [])[0], np.arange(FOLD_LIMIT) * 2)


def test_passes_are_pure():
    text, _ = load(GOLDEN / "canonicalize-structural.ir")
    g = ir.parse(text)
    for run in PASSES.values():
        run(g)
        assert str(g) == text
