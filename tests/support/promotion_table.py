"""JAX's type-promotion table for jitgrad's 15 dtypes: the oracle of jitgrad's array promotion
(jitgrad/promotion_lattice.py), which PyTorch's table agrees with wherever torch promotes; and
PyTorch's table for a dimensioned tensor meeting a 0-d one in Tensor operators (TORCH_ZERO_DIM:
jitgrad.numpy's functions keep JAX's table there).

Produced with jax 0.10.2 by `jax.numpy.promote_types(a, b)` under jax_enable_x64 (jitgrad's
ints are int64 like JAX's x64 mode); tests/numpy/test_dtypes_lowp.py checks it against JAX where
JAX is importable. Where "f64" stands for JAX's weak float (uint64 with a signed int), jitgrad
gives the default float: float32, float64 with enable_x64 (see `expected`)."""
from __future__ import annotations

from jitgrad.ir.types import dtype_from_short

ORDER = "f32 f64 i32 i64 bool c64 c128 f16 bf16 i8 i16 u8 u16 u32 u64".split()
JAX_TABLE = """
f32  f32  f64  f32  f32  f32  c64 c128  f32  f32  f32  f32  f32  f32  f32  f32
f64  f64  f64  f64  f64  f64 c128 c128  f64  f64  f64  f64  f64  f64  f64  f64
i32  f32  f64  i32  i64  i32  c64 c128  f16 bf16  i32  i32  i32  i32  i64  f64
i64  f32  f64  i64  i64  i64  c64 c128  f16 bf16  i64  i64  i64  i64  i64  f64
bool f32  f64  i32  i64 bool  c64 c128  f16 bf16   i8  i16   u8  u16  u32  u64
c64  c64 c128  c64  c64  c64  c64 c128  c64  c64  c64  c64  c64  c64  c64  c64
c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128
f16  f32  f64  f16  f16  f16  c64 c128  f16  f32  f16  f16  f16  f16  f16  f16
bf16 f32  f64 bf16 bf16 bf16  c64 c128  f32 bf16 bf16 bf16 bf16 bf16 bf16 bf16
i8   f32  f64  i32  i64   i8  c64 c128  f16 bf16   i8  i16  i16  i32  i64  f64
i16  f32  f64  i32  i64  i16  c64 c128  f16 bf16  i16  i16  i16  i32  i64  f64
u8   f32  f64  i32  i64   u8  c64 c128  f16 bf16  i16  i16   u8  u16  u32  u64
u16  f32  f64  i32  i64  u16  c64 c128  f16 bf16  i32  i32  u16  u16  u32  u64
u32  f32  f64  i64  i64  u32  c64 c128  f16 bf16  i64  i64  u32  u32  u32  u64
u64  f32  f64  f64  f64  u64  c64 c128  f16 bf16  f64  f64  u64  u64  u64  u64
"""

# the pairs where JAX's answer is its weak float (the default float dtype)
WEAK_FLOAT = {(a, b) for a in ("u64",) for b in ("i8", "i16", "i32", "i64")}
WEAK_FLOAT |= {(b, a) for a, b in WEAK_FLOAT}


# row: a dimensioned tensor's dtype; column: a 0-d tensor's dtype. Produced with torch 2.13 by
# `(torch.ones(3, dtype=a) + torch.ones((), dtype=b)).dtype` (equal to torch.result_type of the
# two) for the 12 dtypes torch promotes; torch's complex32 (float16 meeting a complex 0-d tensor)
# is jitgrad's complex64 (no complex32 here; JAX's `float16 * 1j` is complex64 too)
ZERO_DIM_ORDER = "bool u8 i8 i16 i32 i64 f16 bf16 f32 f64 c64 c128".split()
TORCH_ZERO_DIM = """
bool  bool   u8   i8  i16  i32  i64  f16 bf16  f32  f64  c64 c128
u8      u8   u8   u8   u8   u8   u8  f16 bf16  f32  f64  c64 c128
i8      i8   i8   i8   i8   i8   i8  f16 bf16  f32  f64  c64 c128
i16    i16  i16  i16  i16  i16  i16  f16 bf16  f32  f64  c64 c128
i32    i32  i32  i32  i32  i32  i32  f16 bf16  f32  f64  c64 c128
i64    i64  i64  i64  i64  i64  i64  f16 bf16  f32  f64  c64 c128
f16    f16  f16  f16  f16  f16  f16  f16  f16  f16  f16  c64  c64
bf16  bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16  c64  c64
f32    f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  c64  c64
f64    f64  f64  f64  f64  f64  f64  f64  f64  f64  f64 c128 c128
c64    c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64
c128  c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128
"""


def torch_zero_dim_table() -> dict:
    """{(dimensioned short name, 0-d short name): dtype} of a Tensor operator."""
    rows = [line.split() for line in TORCH_ZERO_DIM.strip().splitlines()]
    return {(r[0], c): dtype_from_short(v) for r in rows for c, v in zip(ZERO_DIM_ORDER, r[1:])}


def jax_table() -> dict:
    """{(short name, short name): dtype} under jax_enable_x64."""
    rows = [line.split() for line in JAX_TABLE.strip().splitlines()]
    return {(r[0], c): dtype_from_short(v) for r in rows for c, v in zip(ORDER, r[1:])}


def expected(a: str, b: str, default_float):
    """The dtype jitgrad promotes short names a and b to, with `default_float` the default."""
    return default_float if (a, b) in WEAK_FLOAT else jax_table()[a, b]
