"""Every primitive's record, registered explicitly (the one place a new primitive is added).

Record files: unary.py and binary.py (elementwise), structural.py (reductions, cumulative ops,
shapes, indexing, matmul), conv_columns.py (im2col, col2im), linalg.py (LAPACK, fft),
sources.py (constant), composite.py (kernel, control flow, custom_vjp_call).
ir/registry.py holds the record type and the per-concern tables built from the records;
tests/ir/test_primitive_records.py checks that every record covers every concern or says why not.
"""
from ..registry import RECORDS, register, select
from . import binary, composite, conv_columns, linalg, sources, structural, unary

register(*unary.RECORDS, *binary.RECORDS, *structural.RECORDS, *linalg.RECORDS,
         *sources.RECORDS, *composite.RECORDS, *conv_columns.RECORDS)

# the kinds the passes and backends dispatch on
ELEMENTWISE = select(kind="elementwise")
REDUCE = select(kind="reduce")
LINALG = select(kind="linalg")

__all__ = ["ELEMENTWISE", "LINALG", "RECORDS", "REDUCE", "select"]
