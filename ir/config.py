"""jitgrad's options, all in one store: every layer reads them here (ir/ is the lowest layer that
reads one: the pass manager's flags), and `jg.config` (jitgrad/config.py) is the user's view of
the same store.

An option's value is, in this order: the one set with `update(name, value)` (jg.config.update),
else its environment variable's, read at the moment the option is read (so a test or a shell can
set it at any time; `enable_x64` reads its variable once), else its default. `reset(name)` forgets
a value set with update. OPTIONS lists every option with its variable, default, meaning and the
layer that reads it; `table()` is the README's table ("Configuration, debug flags and environment
variables"), generated from it.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Callable, Optional

from .types import canonical_dtype, float32, float64


# ----------------------------------------------------------------------------- value checks

def _flag(text: str) -> bool:
    return text.strip().lower() not in ("", "0", "false", "no", "off")


def _boolean(value, where):
    if not isinstance(value, bool):
        raise TypeError(f"{where} expects True or False, got {type(value).__name__} {value!r}")
    return value


def whole_number(value, where) -> int:
    """A thread count: an int >= 1 (or its text); ValueError naming `where` otherwise."""
    try:
        n = int(value)
        ok = n >= 1 and (not isinstance(value, float) or n == value) and not isinstance(value, bool)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{where} expects a whole number of threads >= 1, got {value!r}")
    return n


def _names(text: str) -> frozenset:
    return frozenset(s.strip() for s in text.split(",") if s.strip())


def _name_set(value, where):
    if isinstance(value, str):
        return _names(value)
    try:
        return frozenset(value)
    except TypeError:
        raise TypeError(f"{where} expects pass names ('fuse,dce' or a set), got {value!r}") from None


def _debug_level(text: str) -> int:
    try:
        return int(text or 0)
    except ValueError:
        return 0


def _integer(value, where):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where} expects an int, got {type(value).__name__} {value!r}")
    return value


def _text(value, where):
    if not isinstance(value, str):
        raise TypeError(f"{where} expects a str, got {type(value).__name__} {value!r}")
    return value


def _choice(*allowed):
    def check(value, where):
        if value not in allowed:
            raise ValueError(f"{where} expects one of {', '.join(map(repr, allowed))}, got {value!r}")
        return value
    return check


_VECTOR_WIDTHS = _choice(0, 128, 256, 512)


def _float_dtype(value, where):
    if value is None:
        return None
    dt = canonical_dtype(value)
    if dt not in (float32, float64):
        raise TypeError(f"{where}: only float32 and float64 can be the default dtype, got {dt.name}")
    return dt


def _cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jitgrad")


def _cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):       # no affinity API (macOS)
        return max(1, os.cpu_count() or 1)


# ----------------------------------------------------------------------------- the options

@dataclass(frozen=True)
class Option:
    name: str
    env: Optional[str]          # its environment variable (None: set only with update)
    default: object             # the value, or a function computing it
    shown: str                  # the default as the table shows it
    meaning: str
    reader: str                 # the layer (and module) that reads it
    parse: Callable = str       # the variable's text -> value
    check: Callable = _text     # (value given to update, where) -> value, or raises
    aliases: tuple = ()
    env_once: bool = False      # read the variable once (a hot path reads the option)


OPTIONS = {o.name: o for o in [
    Option("enable_x64", "JITGRAD_ENABLE_X64", False, "False",
           "Python floats and float results computed from ints are float64 (JAX's float64 mode)",
           "front end (dtypes.py)", _flag, _boolean, aliases=("jax_enable_x64",), env_once=True),
    Option("default_dtype", None, None, "None",
           "the default float dtype set by `jg.set_default_dtype` (PyTorch's; wins over "
           "enable_x64 when set)", "front end (dtypes.py)", check=_float_dtype, env_once=True),
    Option("num_threads", "JITGRAD_NUM_THREADS", _cpus, "the CPUs of the affinity mask",
           "threads of the CPU kernels' pool (1: everything on the calling thread; a new size "
           "applies at once)", "runtime (thread_pool.py)",
           lambda text: whole_number(text.strip(), "JITGRAD_NUM_THREADS"), whole_number),
    Option("debug", "JITGRAD_DEBUG", 0, "0",
           "log level on stderr: 1 compiles and cache hits (and each loop or branch: compiled, or "
           "a host step and why), 2 pass timings, 3 optimized IR, 4 kernel source",
           "every layer (config.log)", _debug_level, _integer),
    Option("print_after", "JITGRAD_PRINT_AFTER", frozenset(), "none",
           "print the IR after these passes (`all` or `fuse,dce`)", "ir (passes/manager.py)",
           _names, _name_set),
    Option("verify", "JITGRAD_VERIFY", lambda: "pytest" in sys.modules, "on under pytest",
           "verify the graph between passes and the schedule and memory plan after them",
           "ir (passes/manager.py)", _flag, _boolean),
    Option("disable", "JITGRAD_DISABLE", frozenset(), "none",
           "switch these passes off (`fuse,cse`: they return their input unchanged)",
           "ir (passes/manager.py)", _names, _name_set),
    Option("backend", "JITGRAD_BACKEND", "compiled", "compiled",
           "`interpreter`: run jitted CPU graphs (still optimized) on the NumPy reference "
           "interpreter instead of generated code (loops iteration by iteration)",
           "front end (compilation/compile_graph.py)",
           lambda text: "interpreter" if text == "interpreter" else "compiled",
           _choice("compiled", "interpreter")),
    Option("cache_dir", "JITGRAD_CACHE_DIR", _cache_dir, "`$XDG_CACHE_HOME/jitgrad` or "
           "`~/.cache/jitgrad`", "where compiled units (LLVM objects, CUDA sources and "
           "numba.cuda's cache) live, in its `jitgrad-kernels/` subdirectory",
           "runtime (cache.py), codegen (disk_cache.py)", lambda text: text or _cache_dir()),
    Option("explain_recompiles", "JITGRAD_EXPLAIN_RECOMPILES", False, "False",
           "say which argument changed when a jitted function retraces",
           "front end (transforms/jit.py)", _flag, _boolean),
    Option("traceback", "JITGRAD_TRACEBACK", "filtered", "filtered",
           "`full`: keep jitgrad's internal frames in tracebacks (and the CLI prints them)",
           "front end (errors.py, cli/main.py)",
           lambda text: "full" if text == "full" else "filtered", _choice("filtered", "full")),
    Option("float32_matmul_precision", "JITGRAD_FLOAT32_MATMUL_PRECISION", "highest", "highest",
           "float32 products on CUDA tensor cores (`jg.set_float32_matmul_precision`, as "
           "PyTorch's): `highest` three TF32 products per step (3xTF32, float32's accuracy), "
           "`high` / `medium` one (TF32: 10-bit mantissas, float32 sums); read when a kernel is "
           "generated; the CPU always multiplies in full float32",
           "codegen (cuda/tiles.py)",
           lambda text: text.strip() if text.strip() in ("high", "medium") else "highest",
           _choice("highest", "high", "medium")),
    Option("cuda_fast_math", "JITGRAD_CUDA_FAST_MATH", False, "False",
           "CUDA kernels compiled with numba's fastmath: libdevice's fast exp/log/sin/cos "
           "(`__expf`: a few ulp near 0, relative error growing with |x|), division and square "
           "root approximate (`div.approx`, `sqrt.approx`), subnormals flushed to zero, "
           "contracted FMAs; read when a kernel is compiled (functions compiled before keep "
           "theirs); the CPU and the CUDA simulator compute as without it",
           "codegen (cuda/eager.py, cuda/toolchain.py)", _flag, _boolean),
    Option("cpu_vector_width", "JITGRAD_CPU_VECTOR_WIDTH", 512, "512",
           "bits of the vectors LLVM's loop vectorizer prefers in CPU kernels (its own choice "
           "is 256 on AVX-512 machines; 0 leaves it that): 512 ran the elementwise chain and "
           "GELU benchmarks 1.9-2x faster on Sapphire Rapids; read when a kernel is generated",
           "codegen (cpu/llvm_kernels.py)",
           lambda text: _VECTOR_WIDTHS(int(text) if text.strip().isdigit() else text.strip(),
                                       "JITGRAD_CPU_VECTOR_WIDTH"), _VECTOR_WIDTHS),
    Option("cpu_loop_fusion", "JITGRAD_CPU_LOOP_FUSION", True, "True",
           "a compiled scan / while_loop is one LLVM function calling its body's units directly; "
           "False: the generic loop kernel (jg_loop: a table walk per step), for comparisons; read "
           "when a loop is compiled", "codegen (cpu/loops.py)", _flag, _boolean),
    Option("allocator_cap", "JITGRAD_ALLOCATOR_CAP", 2 << 30, "2147483648 (2 GiB)",
           "bytes of free blocks the caching host allocator keeps (read when it is made)",
           "runtime (allocator.py)", int, _integer),
    Option("profile", "JITGRAD_PROFILE", "", "unset",
           "`trace.json`: profile the whole program with `jg.profiler`, write the Chrome trace "
           "at exit and print the top kernels to stderr (read once, by `import jitgrad`)",
           "front end (profiler.py)"),
    Option("artifact_key", "JITGRAD_ARTIFACT_KEY", "", "unset",
           "sign saved artifacts, and trust the machine code of artifacts signed with it",
           "front end (aot/artifact.py)"),
]}
ALIASES = {a: o.name for o in OPTIONS.values() for a in o.aliases}

_MISSING = object()
_set: dict = {}             # name -> value given to update()
_current: dict = {}         # name -> value of an env_once option (set, or its variable's once)
_hooks: dict = {}           # name -> functions called with the new value after it changes


def names() -> list:
    """Every name update() and read() take, aliases after their option."""
    return [n for o in OPTIONS.values() for n in (o.name, *o.aliases)]


def option(name: str) -> Option:
    o = OPTIONS.get(ALIASES.get(name, name))
    if o is None:
        raise AttributeError(f"jg.config has no option {name!r}; known options: "
                             + ", ".join(names()))
    return o


def read(name: str):
    """An option's value: set with update, else from its environment variable, else default."""
    value = _current.get(name, _MISSING)        # the fast path: an env_once option once read
    if value is not _MISSING:
        return value
    value = _set.get(name, _MISSING)
    if value is not _MISSING:
        return value
    o = option(name)
    if o.name != name:                          # an alias
        return read(o.name)
    text = os.environ.get(o.env, "") if o.env else ""
    value = o.parse(text) if text else (o.default() if callable(o.default) else o.default)
    if o.env_once:
        _current[o.name] = value
    return value


def update(name: str, value, where: Optional[str] = None) -> None:
    """Set an option (jg.config.update(name, value)); the value is checked first."""
    o = option(name)
    _set[o.name] = o.check(value, where or f"jg.config.update({name!r}, ...)")
    if o.env_once:
        _current[o.name] = _set[o.name]
    for hook in _hooks.get(o.name, ()):
        hook(_set[o.name])


def reset(name: str) -> None:
    """Forget a value set with update: the environment variable or the default decides again."""
    o = option(name)
    _set.pop(o.name, None)
    _current.pop(o.name, None)
    for hook in _hooks.get(o.name, ()):
        hook(read(o.name))


def on_update(name: str, hook) -> None:
    """Call hook(new value) after update or reset changes the option (the thread pool resizes)."""
    _hooks.setdefault(option(name).name, []).append(hook)


def chosen() -> dict:
    """The values set with update, to give back to restore() (tests put the store back)."""
    return dict(_set)


def restore(values: dict) -> None:
    for name in set(_set) | set(values):
        if name not in values:
            reset(name)
        elif _set.get(name, object()) is not values[name]:
            update(name, values[name])


# ----------------------------------------------------------------------------- readers

def debug_level() -> int:
    return read("debug")


def log(level: int, msg: str) -> None:
    """Print `msg` to stderr when the debug level (JITGRAD_DEBUG) is at least `level`."""
    if read("debug") >= level:
        print(f"[jitgrad] {msg}", file=sys.stderr, flush=True)


def print_after() -> frozenset:
    return read("print_after")


def disabled_passes() -> frozenset:
    return read("disable")


def verify_enabled() -> bool:
    return read("verify")


def explain_recompiles() -> bool:
    return read("explain_recompiles")


def interpreter_only() -> bool:
    return read("backend") == "interpreter"


def full_traceback() -> bool:
    return read("traceback") == "full"


def cache_dir() -> str:
    return read("cache_dir")


# ----------------------------------------------------------------------------- the table

def table() -> str:
    """The README's table of every option, generated from OPTIONS."""
    def cell(text):
        return text.replace("|", "\\|")
    rows = ["| option (`jg.config`) | environment variable | default | meaning | read by |",
            "|---|---|---|---|---|"]
    for o in OPTIONS.values():
        name = " / ".join(f"`{n}`" for n in (o.name, *o.aliases))
        env = f"`{o.env}`" if o.env else "(none)"
        rows.append(f"| {name} | {env} | {cell(o.shown)} | {cell(o.meaning)} | {o.reader} |")
    return "\n".join(rows)
