"""Data-parallel training in PyTorch's style: one model replica per MPI rank.

    model = jg.nn.parallel.DistributedDataParallel(MLP())   # rank 0's parameters everywhere
    opt = jg.optim.Adam(model.parameters(), lr=1e-3)
    for x, y in ArrayLoader(xs, ys, batch_size=32, shuffle=True, seed=0, drop_last=True,
                           shard=(jg.distributed.rank(), jg.distributed.world_size())):
        loss = F.cross_entropy(model(x), y)
        model.backward(loss)        # loss.backward(), then .grad averaged over the ranks
        opt.step(); opt.zero_grad()

jitgrad's eager autograd has no gradient hooks, so the averaging happens in `backward(loss)`
(or in `sync_gradients()` after a plain `loss.backward()`), all parameters in a few bucketed
MPI messages. Every rank then holds the gradient of the mean loss over all ranks' batches,
and, stepping the same optimizer, the same parameters.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from .. import distributed
from ..distributed import leaves
from ..eager.grad_mode import no_grad
from ..eager.tensor import Tensor
from .module import Module


# the collectives' messages name a Module's leaves .weight, .bias, ...: its parameters, buffers
# and submodules, in the flattening order of its aux data
leaves.register_child_names(Module, lambda aux: aux[1] + aux[2] + aux[3])


class DistributedDataParallel(Module):
    """Wrap `module` for data-parallel training across the ranks of `jg.distributed`.

    At construction every parameter is overwritten with root's value (rank 0 by default), so
    all replicas start equal. Calling the wrapper calls the module. With one process it
    behaves exactly like the module."""

    def __init__(self, module: Module, root: int = 0,
                 bucket_bytes: int = distributed.BUCKET_BYTES):
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: expected a jg.nn.Module to wrap, got "
                            f"{type(module).__name__}")
        super().__init__()
        self.module = module
        self.root = root
        self.bucket_bytes = bucket_bytes
        self.require_sync = True
        params = list(module.parameters())
        detached = [p.detach() for p in params]     # share storage: CPU values arrive in place
        values = distributed.broadcast(detached, root=root, bucket_bytes=bucket_bytes)
        with no_grad():
            for p, d, v in zip(params, detached, values):
                if v is not d:
                    p.copy_(v)

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def backward(self, loss, gradient=None, retain_graph: bool = False) -> None:
        """`loss.backward()`, then average every parameter's `.grad` over the ranks (unless
        inside `no_sync()`)."""
        loss.backward(gradient, retain_graph=retain_graph)
        if self.require_sync:
            self.sync_gradients()

    def sync_gradients(self) -> None:
        """Replace each parameter's `.grad` by its mean over the ranks. A parameter without a
        `.grad` on this rank (unused in this step) counts as a zero gradient, so every rank
        sends the same structure."""
        params = [p for p in self.module.parameters() if p.requires_grad]
        grads = [p.grad if p.grad is not None else Tensor._wrap(np.zeros(p.shape, p.dtype))
                 for p in params]
        for p, g in zip(params, distributed.allreduce(grads, "mean",
                                                      bucket_bytes=self.bucket_bytes)):
            p.grad = g if g.device == p.device else g.to(p.device)

    @contextmanager
    def no_sync(self):
        """Accumulate gradients locally (e.g. over micro-batches); the first `backward` after
        the block averages the accumulated sum, as in torch's DistributedDataParallel."""
        previous, self.require_sync = self.require_sync, False
        try:
            yield
        finally:
            self.require_sync = previous

    def extra_repr(self) -> str:
        return f"world_size={distributed.world_size()}"
