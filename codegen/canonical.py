"""A kernel's canonical text: its body as IR with the graph renamed and the user's source lines
dropped, so the same computation anywhere (another layer, another graph, another program) has
the same text. Compiled units are named by its hash (CPU: codegen/cpu_units.py; CUDA:
codegen/cuda.py), and the text is the comment at the top of every unit."""
from __future__ import annotations

import hashlib
import re

_SOURCE_LINE = re.compile(r"\s+#.*$")


def body_lines(node) -> list[str]:
    text = str(node.params["body"]).splitlines()
    text[0] = re.sub(r"^graph \S+?\(", "graph kernel(", text[0])
    return [_SOURCE_LINE.sub("", line) for line in text]


def digest(node, *extra) -> str:
    """24 hex digits of the kernel's kind, canonical body and anything else its code depends on."""
    parts = [node.params["kind"], *body_lines(node), *map(str, extra)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]
