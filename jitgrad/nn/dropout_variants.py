"""torch.nn's dropout variants beyond dropout.py: dropout1d/dropout3d (whole channels),
alpha_dropout and feature_alpha_dropout (SELU-preserving), with their modules Dropout1d,
Dropout3d, AlphaDropout and FeatureAlphaDropout. Randomness as dropout.py: a jg.random key
(`layer(x, key=k)`, required inside jit) or the global generator eagerly."""
from __future__ import annotations

from .. import numpy as jnp
from ..numpy._convert import asarray
from .dropout import dropout
from .module import Module

_ALPHA = 1.7580993408473766      # -SELU's scale * alpha: where a dropped SELU unit sits


def _check_p(p, where):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{where}: p must be in [0, 1], got {p}")


def _keep_mask(x, p, feature, key):
    """1 where kept, 0 where dropped: per element, or per (sample, channel) for `feature`."""
    shape = tuple(x.shape[:2]) + (1,) * (x.ndim - 2) if feature else tuple(x.shape)
    ones = jnp.ones(shape, x.dtype)
    return jnp.multiply(dropout(ones, p, True, key), 1.0 - p)


def _feature_dropout(input, p, training, key, ranks, where):
    _check_p(p, where)
    x = asarray(input)
    if x.ndim not in ranks:
        raise ValueError(f"{where}: expected a {ranks[0]}-D (unbatched) or {ranks[1]}-D input, "
                         f"got shape {tuple(x.shape)}")
    if not training or p == 0.0:
        return x
    batched = x if x.ndim == ranks[1] else x[None]
    scale = dropout(jnp.ones(tuple(batched.shape[:2]) + (1,) * (batched.ndim - 2), x.dtype), p,
                    True, key)
    y = jnp.multiply(batched, scale)
    return y if x.ndim == ranks[1] else y[0]


def dropout1d(input, p=0.5, training=True, inplace=False, key=None):
    """torch.nn.functional.dropout1d: zero whole channels of (N, C, L) or (C, L)."""
    return _feature_dropout(input, p, training, key, (2, 3), "dropout1d")


def dropout3d(input, p=0.5, training=True, inplace=False, key=None):
    """torch.nn.functional.dropout3d: zero whole channels of (N, C, D, H, W) or (C, D, H, W)."""
    return _feature_dropout(input, p, training, key, (4, 5), "dropout3d")


def _alpha(input, p, training, feature, key, where):
    _check_p(p, where)
    x = asarray(input)
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return jnp.multiply(x, 0.0)
    keep = _keep_mask(x, p, feature, key)
    a = 1.0 / ((_ALPHA * _ALPHA * p + 1) * (1 - p)) ** 0.5
    b = jnp.add(jnp.multiply(jnp.subtract(keep, 1.0), _ALPHA * a), _ALPHA * a * p)
    return jnp.add(jnp.multiply(x, jnp.multiply(keep, a)), b)


def alpha_dropout(input, p=0.5, training=False, inplace=False, key=None):
    """torch.nn.functional.alpha_dropout: dropped units set to SELU's saturation value, then an
    affine map that keeps zero mean and unit variance."""
    return _alpha(input, p, training, False, key, "alpha_dropout")


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False, key=None):
    """torch.nn.functional.feature_alpha_dropout: alpha_dropout of whole channels."""
    return _alpha(input, p, training, True, key, "feature_alpha_dropout")


class _DropoutVariant(Module):
    fn = staticmethod(dropout1d)

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        _check_p(p, type(self).__name__)
        self.p, self.inplace = float(p), inplace

    def forward(self, x, key=None):
        return type(self).fn(x, self.p, self.training, key=key)

    def extra_repr(self):
        return f"p={self.p}"


class Dropout1d(_DropoutVariant):
    """torch.nn.Dropout1d."""
    fn = staticmethod(dropout1d)


class Dropout3d(_DropoutVariant):
    """torch.nn.Dropout3d."""
    fn = staticmethod(dropout3d)


class AlphaDropout(_DropoutVariant):
    """torch.nn.AlphaDropout."""
    fn = staticmethod(alpha_dropout)


class FeatureAlphaDropout(_DropoutVariant):
    """torch.nn.FeatureAlphaDropout."""
    fn = staticmethod(feature_alpha_dropout)


__all__ = ["dropout1d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "Dropout1d",
           "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]
