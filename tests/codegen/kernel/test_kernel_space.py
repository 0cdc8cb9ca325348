"""The one offset rule of every target (codegen/kernel/space.offset_terms): rendered as source by
Space (the CUDA generators) and as LLVM IR by the CPU's LoopOffsets, checked here against NumPy's
own addressing of a broadcast operand."""
import itertools

import numpy as np
import pytest

from jitgrad.codegen.kernel.buffer import CSE, IndentedBuffer
from jitgrad.codegen.kernel.space import Space, c_strides, flat_space, offset_terms


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


def test_baked_extents_unravel_as_constants():
    """A jit kernel's space: extents are ints, baked into the source."""
    cse = CSE(IndentedBuffer())
    space = flat_space((2, 3, 4), "i", cse)
    assert [space.index(d) for d in range(3)] == ["t1", "t2", "t3"]
    assert [line.strip() for line in cse.buf.lines] == \
        ["t1 = i // 12", "t2 = (i // 4) % 3", "t3 = (i) % 4"]
    assert space.size == 24 and c_strides((2, 3, 4)) == (12, 4, 1)


@pytest.mark.parametrize("shape, strides, base", [
    ((2, 3, 4), (12, 4, 1), 0),          # contiguous
    ((2, 3, 4), (4, 0, 1), 0),           # a broadcast dim: stride 0
    ((3, 5), (-5, 1), 10),               # reversed rows from the last one (rev)
    ((4, 2), (1, 8), 3),                 # a transpose of a slice
    ((7,), (2,), 1),                     # a strided slice, rank 1
])
def test_runtime_extents_address_what_numpy_strides_read(shape, strides, base):
    """CUDA's eager kernels: extents d0.. and strides s0.. are parameter names, the unravel and
    the offset the jit kernels' own; run the rendered source for every flat index and compare
    with NumPy's strided addressing."""
    buf = IndentedBuffer()
    cse = CSE(buf)
    space = flat_space(tuple(f"d{k}" for k in range(len(shape))), "i", cse)
    offset = space.strided([f"s{k}" for k in range(len(shape))], "base")
    assert space.size == " * ".join(f"d{k}" for k in range(len(shape)))
    code = compile("\n".join(line.strip() for line in buf.lines), "<space>", "exec")
    args = {**{f"d{k}": e for k, e in enumerate(shape)},
            **{f"s{k}": s for k, s in enumerate(strides)}, "base": base}
    for i, idx in enumerate(itertools.product(*map(range, shape))):
        env = dict(args, i=i)
        exec(code, env)
        assert env[offset] == base + sum(j * s for j, s in zip(idx, strides)), (idx, offset)
