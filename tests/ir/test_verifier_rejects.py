"""Negative IR tests (as xDSL's filecheck tests): each tests/ir/golden/verifier/<case>.ir holds a
graph that the parser or the verifier must reject, a comment saying which rule it breaks, and a
line `// error: <ErrorClass>: <first line of the message>` (line numbers count the graph's
lines, comments left out). The test parses and verifies the
text and checks the error's class and first line exactly, so a weaker or vaguer message fails."""
import pathlib

import pytest

from jitgrad import ir

CASES = pathlib.Path(__file__).parent / "golden" / "verifier"


def expected_error(path):
    line = next(l for l in path.read_text().splitlines() if l.startswith("// error: "))
    kind, message = line[len("// error: "):].split(": ", 1)
    return kind, message


@pytest.mark.parametrize("path", sorted(CASES.glob("*.ir")), ids=lambda p: p.stem)
def test_rejected_with_its_message(path):
    kind, message = expected_error(path)
    text = "\n".join(l for l in path.read_text().splitlines() if not l.startswith("//"))
    with pytest.raises(Exception) as info:
        ir.verify(ir.parse(text))
    assert type(info.value).__name__ == kind
    assert str(info.value).splitlines()[0] == message


def test_every_rule_has_a_case():
    names = {p.stem for p in CASES.glob("*.ir")}
    assert len(names) >= 14
    assert all(expected_error(p) for p in CASES.glob("*.ir"))
