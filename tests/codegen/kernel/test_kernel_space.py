"""The one offset rule of every target (codegen/kernel/space.offset_terms): rendered as source by
Space (the CUDA generators) and as LLVM IR by the CPU's LoopOffsets, checked here against NumPy's
own addressing of a broadcast operand."""
import itertools

import numpy as np
import pytest

from jitgrad.codegen.kernel.buffer import CSE, IndentedBuffer
from jitgrad.codegen.kernel.space import Space, offset_terms


@pytest.mark.parametrize("space, shape", [
    ((2, 3, 4), (2, 3, 4)),     # fills the space
    ((2, 3, 4), (24,)),         # the space's size, another shape: read at the flat offset
    ((2, 3, 4), (3, 1)),        # right-aligned broadcast
    ((2, 3, 4), (2, 1, 4)),     # same rank, a middle dim broadcast
    ((2, 3, 4), (4,)),
    ((2, 3, 4), (1, 1)),        # one element
    ((5, 1, 3), (5, 1, 3)),     # a unit dim of the space adds no term
])
def test_offset_terms_address_what_numpy_broadcasting_reads(space, shape):
    operand = np.arange(int(np.prod(shape))).reshape(shape)
    fill = int(np.prod(shape)) == int(np.prod(space))
    seen = operand.reshape(space) if fill else np.broadcast_to(operand, space)
    terms = offset_terms(space, shape)
    assert all(space[d] != 1 for d, _ in terms)
    for idx in itertools.product(*map(range, space)):
        flat = sum(idx[d] * s for d, s in terms)
        assert operand.reshape(-1)[flat] == seen[idx], (idx, terms)


def test_space_renders_the_terms_as_source():
    cse = CSE(IndentedBuffer())
    space = Space((2, 3, 4), ["i", "j", "k"], cse)
    assert space.offset((3, 1)) == cse.get("j")
    assert space.offset((2, 1, 4)) == cse.get("i * 4 + k")
    assert space.offset((1,)) == "0"
    assert space.offset((24,)) == space.flat == cse.get("i * 12 + j * 4 + k")
