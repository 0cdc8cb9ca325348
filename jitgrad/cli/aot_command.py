"""`jitgrad aot MODULE:FUNCTION --arg TYPE ... -o DIR [--native]`: compile ahead of time.

Without --native: DIR/NAME.jgz, the artifact `jg.load` runs in another Python process.
With --native: DIR/libNAME.so and DIR/NAME.h, a C function with no Python in it.
Both print the input and output signature and the workspace size."""
from __future__ import annotations

import argparse
import keyword
import os
import re
import sys
import tempfile

import jitgrad as jg

from ..aot.save_load import workspace_bytes
from .common import arg_spec, one_line, resolve

# C11/C23 keywords and the header's own type names: a function named one would not compile
C_RESERVED = frozenset("""auto break case char const continue default do double else enum extern
float for goto if inline int long register restrict return short signed sizeof static struct
switch typedef union unsigned void volatile while alignas alignof bool constexpr false nullptr
static_assert thread_local true typeof typeof_unqual int8_t int16_t int32_t int64_t uint8_t
uint16_t uint32_t uint64_t size_t""".split())


def c_name_problem(text: str):
    """Why `text` cannot name the artifact, library and C function; None when it can."""
    if not re.fullmatch(r"[A-Za-z_]\w*", text):
        return "expected a C identifier like predict"
    if text in C_RESERVED or keyword.iskeyword(text):
        return "a C or Python keyword or type name"
    if re.match(r"_[A-Z_]", text):
        return "names starting with _ and a capital or __ are reserved in C"
    return None


def _c_name(text: str) -> str:
    why = c_name_problem(text)
    if why:
        raise argparse.ArgumentTypeError(f"bad --name {text!r}: {why}")
    return text


def add_parser(sub) -> None:
    a = sub.add_parser(
        "aot", help="compile a function ahead of time: a Python artifact or a C library",
        description="Trace MODULE:FUNCTION on the given argument types, compile it and write "
        "DIR/NAME.jgz (load it with jg.load, no tracing or compiling) or, with --native, "
        "DIR/libNAME.so and DIR/NAME.h (int32_t NAME(inputs..., outputs..., void* workspace)).")
    a.add_argument("target", metavar="MODULE:FUNCTION",
                   help="an importable module (or a .py file) and a function in it")
    a.add_argument("--arg", type=arg_spec, action="append", default=[], metavar="TYPE",
                   help="one per positional argument, e.g. f32[1,64] or i32[8]")
    a.add_argument("-o", "--out", required=True, metavar="DIR", help="directory to write into")
    a.add_argument("--native", action="store_true",
                   help="write a shared library and C header instead of a Python artifact")
    a.add_argument("--name", type=_c_name,
                   help="the artifact, library and C function name (default: FUNCTION's name)")
    a.set_defaults(run=run, subparser=a)


def run(args) -> int:
    try:
        os.makedirs(args.out, exist_ok=True)
        with tempfile.TemporaryFile(dir=args.out):
            pass
    except OSError as e:             # checked before tracing and compiling
        args.subparser.error(f"cannot write into -o {args.out}: {e.strerror or e}")
    fn = resolve(args.target, args.subparser)
    name = args.name or getattr(fn, "__name__", "")
    why = c_name_problem(name)
    if why:
        args.subparser.error(f"{args.target} cannot name the output ({name!r}: {why}); pass --name")
    try:
        lines = (_native if args.native else _artifact)(fn, args, name)
    except Exception as e:   # tracing runs user code; export errors explain themselves
        print(f"jitgrad aot: {args.target}: {type(e).__name__}: {one_line(e)}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def _artifact(fn, args, name) -> list[str]:
    lowered = jg.jit(fn).lower(*args.arg)
    compiled = lowered.compile()
    path = os.path.join(args.out, f"{name}.jgz")
    compiled.save(path)
    g = compiled.exe.graph
    names = g.arg_names or [f"in{i}" for i in range(len(g.inputs))]
    return ([f"wrote {path} (load it with jg.load)"] +
            [f"  input  {n}: {v.type}" for n, v in zip(names, g.inputs)] +
            [f"  output {j}: {v.type}" for j, v in enumerate(g.outputs)] +
            [f"  workspace {workspace_bytes(compiled.exe)} bytes"])


def _native(fn, args, name) -> list[str]:
    from ..codegen.native.export import export  # lazy: codegen, LLVM
    lib = export(jg.jit(fn).lower(*args.arg).graph, args.out, name)
    decl = next(line for line in lib.header_path.read_text().splitlines()
                if line.startswith(f"int32_t {name}("))
    return ([f"wrote {lib.so_path} and {lib.header_path}", f"  {decl}"] +
            [f"  input  {p.cname}: {p.label} {p.type}" for p in lib.inputs] +
            [f"  output {p.cname}: {p.type}" for p in lib.outputs] +
            [f"  workspace {lib.workspace_bytes} bytes ({name.upper()}_WORKSPACE_BYTES)"
             + ("; links OpenBLAS" if lib.blas else "")])
