"""Grad mode, as in PyTorch: whether eager ops on tensors that require grad are recorded for
`.backward()`. Per thread; `jg.no_grad()` / `jg.enable_grad()` work as context managers and
decorators."""
from __future__ import annotations

import contextlib
import threading


class _GradState(threading.local):
    """Per-thread state; the class-level default makes the read cheap (no AttributeError)."""
    grad_enabled = True
    inference = False


STATE = _GradState()      # read directly by the eager dispatch's hot path: STATE.grad_enabled


def grad_enabled() -> bool:
    """torch.is_grad_enabled: whether eager operations are recorded for autograd."""
    return STATE.grad_enabled


def set_grad_enabled(mode: bool):
    """torch.set_grad_enabled: switch gradient recording on or off now; as a context manager
    (or decorator) the previous mode comes back on exit."""
    return _GradMode(bool(mode), now=True)


def no_grad():
    """`with jg.no_grad():` records nothing for `.backward()` (also usable as a decorator)."""
    return _GradMode(False)


def enable_grad():
    """torch.enable_grad: a context manager (and decorator) that turns gradient recording back on."""
    return _GradMode(True)


class _GradMode(contextlib.ContextDecorator):
    """Sets grad mode on entry (or at once: `now`, as set_grad_enabled) and restores the mode
    found then on exit."""

    def __init__(self, mode, now=False, inference=False):
        self.mode, self.inference, self.now = mode, inference, now
        if now:
            self.prev = (STATE.grad_enabled, STATE.inference)
            STATE.grad_enabled = mode

    def __enter__(self):
        if not self.now:
            self.prev = (STATE.grad_enabled, STATE.inference)
            STATE.grad_enabled, STATE.inference = self.mode, self.inference
        self.now = False        # a decorated function's later calls set the mode on entry

    def __exit__(self, *exc):
        STATE.grad_enabled, STATE.inference = self.prev
        return False

    def __call__(self, func):
        if self.now:    # set_grad_enabled(mode) as a decorator: the switch applies per call
            STATE.grad_enabled, STATE.inference = self.prev
            self.now = False
        return super().__call__(func)


class inference_mode(_GradMode):  # noqa: N801 - torch's name
    """torch.inference_mode(mode=True): no recording for `.backward()` inside (as no_grad;
    jitgrad does not forbid later autograd use of tensors made inside). A context manager, a
    decorator, or a bare decorator (`@jg.inference_mode`)."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            manager = super().__new__(cls)          # @inference_mode without parentheses
            manager.__init__(True)
            return manager(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        super().__init__(not mode, inference=bool(mode))


def is_inference_mode_enabled() -> bool:
    """torch.is_inference_mode_enabled."""
    return STATE.inference
