"""What the `jitgrad` subcommands share: the parser with one-line errors, argument types
(output files, DTYPE[dims] specs), MODULE:FUNCTION resolution, one-line exception text."""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import re
import sys
import tempfile

import jitgrad as jg
from jitgrad.ir.types import SHORT_NAMES, dtype_from_short


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error (no usage block) and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def output_file(text: str) -> str:
    """An argparse type for a file to write later: its directory must exist and take a new
    file now, so a bad path fails before any long work (training, compiling)."""
    parent = os.path.dirname(os.path.abspath(text))
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text} is a directory; expected a file path")
    try:
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot write {text}: {e.strerror or e} ({parent})")
    return text


def arg_spec(text: str):
    """'f32[256,784]' -> jg.ShapeDtype((256, 784), float32)."""

    m = re.fullmatch(r"(\w+)\[([\d,\s]*)\]", text.strip())
    if m is None or dtype_from_short(m.group(1)) is None:
        raise argparse.ArgumentTypeError(
            f"bad --arg {text!r}: expected DTYPE[D0,D1,...] with DTYPE one of "
            f"{', '.join(SHORT_NAMES)}, e.g. f32[256,784] or f32[] for a scalar")
    dims = tuple(int(d) for d in m.group(2).replace(" ", "").split(",") if d)
    return jg.ShapeDtype(dims, dtype_from_short(m.group(1)))


def resolve(target: str, parser):
    """MODULE:FUNCTION (a dotted module or a .py path; FUNCTION may be dotted) -> the callable."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        parser.error(f"expected MODULE:FUNCTION (e.g. mypkg.model:loss or model.py:loss), "
                     f"got {target!r}")
    try:
        if module_name.endswith(".py"):
            spec = importlib.util.spec_from_file_location(
                os.path.splitext(os.path.basename(module_name))[0], module_name)
            if spec is None or not os.path.isfile(module_name):
                raise ImportError(f"no such file {module_name}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            if os.getcwd() not in sys.path:    # as `python -m` would: modules in the cwd
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except Exception as e:   # the user's module may fail in any way while importing
        parser.error(f"cannot import {module_name!r}: {type(e).__name__}: {e}")
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            parser.error(f"{module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        parser.error(f"{target} is a {type(obj).__name__}, not a function")
    return obj


def one_line(e: BaseException) -> str:
    """An exception's message on one line (jitgrad's messages may list one item a line)."""
    return "; ".join(line.strip() for line in str(e).splitlines() if line.strip())
