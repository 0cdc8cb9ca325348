"""jitgrad.distributed: data-parallel training over MPI (mpi4py), from a laptop to a cluster.

Launch N copies of a program with `mpiexec -n N python train.py`; each is a rank. Collectives
take and return pytrees (tensors, NumPy arrays, numbers, Modules), eagerly or on the outputs of
jitted functions:

    import jitgrad as jg
    jg.distributed.init()                       # joins the MPI world; a no-op without mpiexec
    params = jg.distributed.broadcast(params)   # everyone starts from rank 0's values
    loss, grads = step(params, x, y)            # jitted value_and_grad on this rank's shard
    grads = jg.distributed.allreduce(grads)     # averaged over ranks (op="mean" | "sum" | ...)
    params, state = update(grads, state, params)

Without an MPI launcher (or without mpi4py installed) the process is rank 0 of 1 and every
collective returns its input. Install MPI with `pip install 'jitgrad[distributed]'`.
"""
from .collectives import BUCKET_BYTES, allgather, allreduce, barrier, broadcast  # noqa: F401
from .world import (DistributedError, abort, init, is_initialized, launched_by_mpi,  # noqa: F401
                    rank, world_size)

__all__ = ["BUCKET_BYTES", "DistributedError", "abort", "allgather", "allreduce", "barrier",
           "broadcast", "init", "is_initialized", "launched_by_mpi", "rank", "world_size"]
