"""A kernel's canonical text: its body as IR with the graph renamed and the user's source lines
dropped, so the same computation anywhere (another layer, another graph, another program) has
the same text. Compiled units are named by its hash (CPU: codegen/cpu/units.py; CUDA:
codegen/cuda/backend.py), and the text is the comment at the top of every unit."""
from __future__ import annotations

import hashlib
import re
import weakref

_SOURCE_LINE = re.compile(r"\s+#.*$")
# body graph -> its lines: a kernel's key and name both read them, and printing a body is most
# of what loading a schedule's units from disk costs (kernel bodies are not changed once fused)
_LINES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def remember(node, lines: tuple) -> None:
    """Give a kernel the lines body_lines would print for it (a schedule read from the pipeline
    cache carries them: codegen/pipeline_cache.py)."""
    _LINES[node.params["body"]] = tuple(lines)


def body_lines(node) -> tuple:
    body = node.params["body"]
    lines = _LINES.get(body)
    if lines is None:
        text = str(body).splitlines()
        text[0] = re.sub(r"^graph \S+?\(", "graph kernel(", text[0])
        lines = _LINES[body] = tuple(_SOURCE_LINE.sub("", line) for line in text)
    return lines


def digest(node, *extra) -> str:
    """24 hex digits of the kernel's kind, canonical body and anything else its code depends on."""
    parts = [node.params["kind"], *body_lines(node), *map(str, extra)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]
