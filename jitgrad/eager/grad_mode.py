"""Grad mode, as in PyTorch: whether eager ops on tensors that require grad are recorded for
`.backward()`. Per thread; `jg.no_grad()` / `jg.enable_grad()` work as context managers and
decorators."""
from __future__ import annotations

import contextlib
import threading


class _GradState(threading.local):
    """Per-thread state; the class-level default makes the read cheap (no AttributeError)."""
    grad_enabled = True


STATE = _GradState()      # read directly by the eager dispatch's hot path: STATE.grad_enabled


def grad_enabled() -> bool:
    """torch.is_grad_enabled: whether eager operations are recorded for autograd."""
    return STATE.grad_enabled


@contextlib.contextmanager
def set_grad_enabled(mode: bool):
    """torch.set_grad_enabled: switch gradient recording on or off (also a context manager)."""
    prev = STATE.grad_enabled
    STATE.grad_enabled = bool(mode)
    try:
        yield
    finally:
        STATE.grad_enabled = prev


def no_grad():
    """`with jg.no_grad():` records nothing for `.backward()` (also usable as a decorator)."""
    return _GradMode(False)


def enable_grad():
    """torch.enable_grad: a context manager (and decorator) that turns gradient recording back on."""
    return _GradMode(True)


class _GradMode(contextlib.ContextDecorator):
    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = self.mode

    def __exit__(self, *exc):
        STATE.grad_enabled = self.prev
        return False
