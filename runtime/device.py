"""Devices: 'cpu' (NumPy storage), 'meta' (shapes only), 'cuda' (slots in with the CUDA backend)."""
from __future__ import annotations

import re

from . import cuda_device

_DEVICE_RE = re.compile(r"^(cpu|meta|cuda)(?::(\d+))?$")


class Device:
    """torch.device: a device, `cpu` or `cuda[:index]` (jg.device('cuda') as torch.device)."""
    __slots__ = ("type", "index")

    def __init__(self, type: str, index: int | None = None):
        self.type, self.index = type, index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, Device) and (self.type, self.index or 0) == (other.type, other.index or 0)

    def __hash__(self):
        return hash((self.type, self.index or 0))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        return f"device(type='{self.type}'" + (f", index={self.index})" if self.index is not None else ")")


def device(spec) -> Device:
    """jg.device('cpu' | 'meta' | 'cuda' | 'cuda:0')."""
    if isinstance(spec, Device):
        return spec
    if spec is None:
        return CPU
    m = _DEVICE_RE.match(str(spec))
    if not m:
        raise ValueError(f"expected a device 'cpu', 'meta', 'cuda' or 'cuda:N', got {spec!r}")
    index = int(m.group(2)) if m.group(2) is not None else None
    if m.group(1) == "cuda":
        cuda_device.check_available(index or 0)
        return Device("cuda", index or 0)
    return Device(m.group(1), index)


CPU = Device("cpu")
META = Device("meta")
