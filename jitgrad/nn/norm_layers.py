"""BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d and GroupNorm, with PyTorch's arguments, parameters
(`weight`, `bias`) and buffers (`running_mean`, `running_var`, `num_batches_tracked`).

In training mode BatchNorm normalizes by the batch's statistics and moves its running statistics
towards them (`momentum`; None is the cumulative average over `num_batches_tracked` batches); in
eval mode it normalizes by the running statistics. With track_running_stats=False it has no
buffers and always uses the batch's statistics. The updates are buffer assignments
(`self.running_mean = ...`), which jg.jit and jg.grad return from the traced function and write
back to the model after the call, so a jitted training step updates them as eager code does.
"""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..dtypes import default_float
from ..numpy._convert import asarray
from ..eager.tensor import tensor
from . import normalization as N
from .module import Module, Parameter


class _NormBase(Module):
    """Parameters and running-statistics buffers shared by BatchNorm and InstanceNorm."""
    ranks = (4,)            # accepted input ranks
    default_affine, default_track = True, True

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=None,
                 track_running_stats=None):
        super().__init__()
        affine = self.default_affine if affine is None else affine
        track = self.default_track if track_running_stats is None else track_running_stats
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), momentum
        self.affine, self.track_running_stats = bool(affine), bool(track)
        c, dt = self.num_features, default_float()
        self.register_parameter("weight", Parameter(np.ones(c, dt)) if affine else None)
        self.register_parameter("bias", Parameter(np.zeros(c, dt)) if affine else None)
        stats = (tensor(np.zeros(c, dt)), tensor(np.ones(c, dt)),
                 tensor(np.zeros((), np.int64))) if track else (None, None, None)
        for name, value in zip(("running_mean", "running_var", "num_batches_tracked"), stats):
            self.register_buffer(name, value)

    def reset_running_stats(self):
        if self.track_running_stats:
            dt = self.running_mean.dtype
            self.running_mean = tensor(np.zeros(self.num_features, dt))
            self.running_var = tensor(np.ones(self.num_features, dt))
            self.num_batches_tracked = tensor(np.zeros((), np.int64))

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            self.weight = Parameter(np.ones(self.num_features, self.weight.dtype))
            self.bias = Parameter(np.zeros(self.num_features, self.bias.dtype))

    def _check_input(self, x):
        if x.ndim not in self.ranks:
            want = " or ".join(f"{r}D" for r in self.ranks)
            raise ValueError(f"{type(self).__name__}: expected {want} input, got {x.ndim}D input "
                             f"of shape {tuple(x.shape)}")
        if x.shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}({self.num_features}): expected "
                             f"{self.num_features} channels in dimension 1, got shape "
                             f"{tuple(x.shape)}")

    def _momentum(self):
        """The update factor for this step; counts the batch when tracking in training mode."""
        if not (self.training and self.track_running_stats and
                self.num_batches_tracked is not None):
            return 0.0 if self.momentum is None else self.momentum
        self.num_batches_tracked = self.num_batches_tracked + 1
        if self.momentum is None:     # cumulative moving average
            return 1.0 / self.num_batches_tracked.astype(self.running_mean.dtype)
        return self.momentum

    def _store(self, new_mean, new_var):
        if new_mean is not None:
            self.running_mean, self.running_var = new_mean, new_var

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    def forward(self, x):
        x = asarray(x)
        self._check_input(x)
        factor = self._momentum()
        batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        use_running = not self.training or self.track_running_stats
        y, new_mean, new_var = N.batch_norm_with_stats(
            x, self.running_mean if use_running else None,
            self.running_var if use_running else None, self.weight, self.bias, batch_stats,
            factor, self.eps)
        self._store(new_mean, new_var)
        return y


class BatchNorm1d(_BatchNorm):
    """Over (N, C) or (N, C, L) input."""
    ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Over (N, C, H, W) input."""
    ranks = (4,)


class BatchNorm3d(_BatchNorm):
    """Over (N, C, D, H, W) input."""
    ranks = (5,)


class _InstanceNorm(_NormBase):
    """Defaults as PyTorch: affine=False, track_running_stats=False. An unbatched input (one
    rank less) is normalized as a batch of one."""
    default_affine, default_track = False, False

    def forward(self, x):
        x = asarray(x)
        unbatched = x.ndim == self.ranks[0] - 1
        if unbatched:
            x = jnp.expand_dims(x, 0)
        self._check_input(x)
        factor = 0.0 if self.momentum is None else self.momentum   # PyTorch counts no batches
        use_input_stats = self.training or not self.track_running_stats
        y, new_mean, new_var = N.instance_norm_with_stats(
            x, self.running_mean, self.running_var, self.weight, self.bias, use_input_stats,
            factor, self.eps)
        if self.training and self.track_running_stats:
            self._store(new_mean, new_var)
        return y[0] if unbatched else y


class InstanceNorm1d(_InstanceNorm):
    """torch.nn.InstanceNorm1d: normalize each (sample, channel) over its length."""
    ranks = (3,)


class InstanceNorm2d(_InstanceNorm):
    """torch.nn.InstanceNorm2d: normalize each (sample, channel) over its height and width."""
    ranks = (4,)


class InstanceNorm3d(_InstanceNorm):
    """torch.nn.InstanceNorm3d: normalize each (sample, channel) over its three spatial dims."""
    ranks = (5,)


class GroupNorm(Module):
    """Normalize each sample's channels in num_groups groups, then a per-channel affine."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True):
        super().__init__()
        if num_groups <= 0 or num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self.num_groups, self.num_channels = int(num_groups), int(num_channels)
        self.eps, self.affine = float(eps), bool(affine)
        dt = default_float()
        self.register_parameter("weight", Parameter(np.ones(num_channels, dt)) if affine else None)
        self.register_parameter("bias", Parameter(np.zeros(num_channels, dt)) if affine else None)

    def forward(self, x):
        return N.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", "GroupNorm"]
