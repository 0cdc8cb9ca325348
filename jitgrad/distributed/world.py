"""The process group: which MPI world this process is in, and what happens when a rank fails.

mpi4py is imported only when a launcher (mpiexec, srun) started this process, so a plain
`python train.py` never touches MPI and jitgrad works without mpi4py installed.
"""
from __future__ import annotations

import os
import sys
import traceback

# environment variables that MPI launchers (Open MPI, MPICH/Hydra, PMIx) set for every rank
_LAUNCHER_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")
_LAUNCHER_RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")

_comm = None          # mpi4py communicator (a duplicate of COMM_WORLD), None single-process
_initialized = False


class DistributedError(RuntimeError):
    """A collective could not run: ranks disagree on what they call it with, or MPI is missing."""


def launched_by_mpi() -> bool:
    """Whether an MPI launcher started this process (its environment names a rank)."""
    return any(v in os.environ for v in _LAUNCHER_RANK_VARS + _LAUNCHER_SIZE_VARS)


def _launcher_size() -> int:
    for v in _LAUNCHER_SIZE_VARS:
        if os.environ.get(v, "").isdigit():
            return int(os.environ[v])
    return 1


def init() -> None:
    """Join the MPI world if an MPI launcher started this process; else run as rank 0 of 1.

    Idempotent. Under `mpiexec -n N` it duplicates COMM_WORLD (so jitgrad's messages never
    mix with the program's own MPI traffic) and, with N > 1, installs a hook that turns an
    uncaught exception on any rank into MPI_Abort of the whole job, naming the rank, instead of
    leaving the other ranks waiting forever in their next collective; ranks sharing a machine
    share its cores for parallel kernels.
    """
    global _comm, _initialized
    if _initialized:
        return
    if launched_by_mpi():
        try:
            from mpi4py import MPI  # lazy: optional, loaded only under an MPI launcher
        except ImportError:
            raise DistributedError(
                f"jg.distributed.init: this process was started by an MPI launcher "
                f"({_launcher_size()} ranks) but mpi4py is not installed; install it with "
                f"pip install 'jitgrad[distributed]'") from None
        _comm = MPI.COMM_WORLD.Dup()
        if _comm.Get_size() > 1:
            sys.excepthook = _abort_on_uncaught_exception
            _share_cores(_comm.Split_type(MPI.COMM_TYPE_SHARED).Get_size())
    _initialized = True


def _share_cores(local_ranks: int) -> None:
    """Give each of the ranks on this machine its share of the cores for parallel kernels
    (numba's prange), unless NUMBA_NUM_THREADS says otherwise: N ranks each running as many
    threads as there are cores would oversubscribe the machine N times."""
    if local_ranks > 1 and "NUMBA_NUM_THREADS" not in os.environ:
        import numba  # lazy: `import jitgrad` leaves numba unloaded
        numba.set_num_threads(max(1, min(numba.config.NUMBA_NUM_THREADS,
                                         (os.cpu_count() or 1) // local_ranks)))


def is_initialized() -> bool:
    return _initialized


def comm():
    """The communicator, or None when this is a single process (initializing on first use)."""
    init()
    return _comm


def rank() -> int:
    """This process's index in the world, 0 .. world_size() - 1."""
    c = comm()
    return 0 if c is None else c.Get_rank()


def world_size() -> int:
    """The number of processes taking part (1 without an MPI launcher)."""
    c = comm()
    return 1 if c is None else c.Get_size()


def abort(message: str, status: int = 1) -> None:
    """Print `message` naming this rank and end every rank of the job with `status`."""
    print(f"jitgrad.distributed: rank {rank()} of {world_size()}: {message}", file=sys.stderr,
          flush=True)
    c = comm()
    if c is None:
        raise SystemExit(status)
    c.Abort(status)


def _abort_on_uncaught_exception(kind, value, tb):
    traceback.print_exception(kind, value, tb, file=sys.stderr)
    first_line = str(value).split("\n")[0]
    what = f"{kind.__name__}: {first_line}" if first_line else kind.__name__
    abort(f"uncaught {what}; aborting all {world_size()} ranks (MPI_Abort)")
