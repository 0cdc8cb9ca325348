"""An op input written in place (unrecorded: under no_grad, or through `.data`) after the op
that made it and before the op that read it.

The reader computed with the written value, and autograd does not see the write: the gradient
flows on to the producer as if the value were the producer's output, which the producer's own
backward needs as it was (exp's backward reads exp's output). PyTorch raises where the
producer saved that output. Here the backward graph reads the written array for the reader
alone, through a straight-through node (its value the array, its cotangent passed on to the
producer's output), and the producer's output is not fed from the written array: where the
producer's backward needs it, the graph computes it again from the producer's inputs. Both
ops' derivatives then see the values they had in the forward.
"""
from __future__ import annotations

import functools

from ..ir.autodiff import CUSTOM_VJP
from .saved_residuals import graph_of, saving_params


def was_written(rec, j: int) -> bool:
    """Whether input slot j of record `rec` (its offset in rec.ins) was written in place between
    its producer's op and this one."""
    ins = rec.ins
    p = ins[j + 4]
    return p is not None and ins[j + 3] != p.born_version(ins[j + 5])


def straight_through(builder, produced, written):
    """A value equal to `written` whose cotangent goes to `produced` (same type)."""
    return builder.emit(CUSTOM_VJP, [produced, written], _params(produced.type))[0]


@functools.lru_cache(maxsize=256)
def _params(t) -> dict:
    fwd = graph_of("written_fwd", [t, t], lambda e, ins: [ins[1]])
    bwd = graph_of("written_bwd", [t, t, t], lambda e, ins: [ins[2], e.zeros(t)])
    return saving_params(fwd, 1, bwd)
