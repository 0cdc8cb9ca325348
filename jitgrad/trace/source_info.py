"""Where in the user's code a traced or eager op came from: the innermost frame outside
jitgrad, as 'file.py:LINE', for error messages and the IR's source locations."""
from __future__ import annotations

import os
import sys

# jitgrad/ (this file's grandparent) and the ir/ and runtime/ folders installed beside it
_PKG_DIRS = tuple(os.path.dirname(os.path.abspath(m)) + os.sep for m in (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep + "__init__.py",
    sys.modules["jitgrad.ir"].__file__, sys.modules["jitgrad.runtime"].__file__))


def user_frame():
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIRS):
        f = f.f_back
    return f


def user_source_info() -> str | None:
    """'file.py:LINE' of the innermost frame outside jitgrad."""
    f = user_frame()
    return f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}" if f is not None else None


def with_location(e: Exception, info: str | None) -> Exception:
    """`e` with ' (at file.py:LINE)' appended, once."""
    if info and "(at " not in str(e):
        return type(e)(f"{e} (at {info})")
    return e
