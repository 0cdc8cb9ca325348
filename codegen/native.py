"""Ahead-of-time native export: a numba ``cfunc`` -> ``libNAME.so`` + ``NAME.h``.

The cfunc's final LLVM IR is re-optimized as a standalone module: its C-callable
wrapper is renamed to the export name, every other definition is made internal
(so dead Python-facing helpers are dropped by global DCE), the module is run
through LLVM's O3 pipeline, emitted as a position-independent object and linked
by gcc with ``-Wl,--no-undefined``. The result depends only on libc/libm (plus
OpenBLAS when asked), never on libpython or numba.

Rules for code that is to be exported (anything else leaves unresolved symbols):

- no raising: use ``error_model="numpy"``, no ``raise``/asserts, no bounds
  checks; report failures as an integer status;
- no allocation: take a workspace pointer and carve arrays out of it with
  ``carray(byte_offset(ws, off), shape, dtype=...)``;
- no ``np.dot``/``@``: call :func:`sgemm`/:func:`dgemm` (C BLAS) or loops.
"""

from __future__ import annotations

import ctypes.util
import inspect
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
from numba import njit, types
from numba.core import errors
from numba.extending import intrinsic

__all__ = [
    "NativeBuildError", "NativeToolMissing", "UnresolvedSymbolsError", "NotPortableError",
    "build_shared_library", "c_prototype", "undefined_symbols", "shared_deps",
    "check_portable", "PORTABLE_SYMBOLS", "blas_available", "openblas_path",
    "sgemm", "dgemm", "sgemm_ptr", "dgemm_ptr", "cblas_sgemm", "cblas_dgemm",
    "byte_offset", "data_ptr",
]


class NativeBuildError(RuntimeError):
    """Building a native library failed."""


class NativeToolMissing(NativeBuildError):
    """A required external tool (gcc, nm, ldd) or library is not installed."""


class UnresolvedSymbolsError(NativeBuildError):
    """The code references symbols a standalone library cannot provide."""

    def __init__(self, message: str, symbols: list[str]):
        super().__init__(message)
        self.symbols = symbols


class NotPortableError(NativeBuildError):
    """A built library depends on something outside libc/libm/OpenBLAS."""


# --------------------------------------------------------------------------
# Symbols a portable library may import.

_LIBM_BASE = (
    "exp exp2 expm1 log log2 log10 log1p pow sqrt cbrt hypot "
    "sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh "
    "erf erfc lgamma tgamma fmod remainder floor ceil round trunc rint nearbyint "
    "lround llround lrint llrint fabs copysign fmin fmax fdim fma ldexp frexp modf "
    "sincos nextafter logb ilogb scalbn"
).split()
_LIBM = {n for base in _LIBM_BASE for n in (base, base + "f")}
_LIBC = {
    "memcpy", "memmove", "memset", "memcmp", "__stack_chk_fail",
    "malloc", "free",       # heap scratch of large kernels (column sums, sorts, LAPACK)
    # weak references every gcc-linked shared object carries
    "__cxa_finalize", "__gmon_start__", "_ITM_deregisterTMCloneTable",
    "_ITM_registerTMCloneTable",
}
_CBLAS = {
    f"cblas_{p}{op}" for p in "sd" for op in ("gemm", "gemv", "dot", "axpy", "scal", "copy", "nrm2")
}
# the LAPACK routines of the decompositions (codegen/llvm_lapack.py), in OpenBLAS (Fortran names)
_LAPACK = {
    f"{p}{r}_" for p in "sd" for r in ("potrf", "syevd", "getrf", "gesv", "geqrf", "orgqr", "gesdd")
}
PORTABLE_SYMBOLS: frozenset[str] = frozenset(_LIBM | _LIBC | _CBLAS | _LAPACK)

# Libraries a portable .so must never load (matched against ldd's names/paths).
_FORBIDDEN_DEPS = ("libpython", "numba", "llvmlite", "libstdc++", "libgfortran-numba")

# Which jitgrad rule a leftover symbol breaks, first match wins.
_RULES = (
    (re.compile(r"^NRT_"), "allocation",
     "the code allocates (np.empty/np.zeros, array expressions that make new arrays, "
     "lists); take a workspace pointer and carve arrays out of it"),
    (re.compile(r"^numba_(xx|ez_)"), "np.dot",
     "the code calls np.dot/@ (numba's BLAS helpers); call "
     "jitgrad.codegen.native.sgemm/dgemm (C BLAS) or write the loops"),
    (re.compile(r"^(_?Py|numba_gil_|numba_do_raise|numba_unpickle|numba_runtime_build_excinfo"
                r"|numba_|_ZN08NumbaEnv)"), "raising",
     "the code can raise (raise/assert, error_model='python' division checks, "
     "boundscheck, failed allocation) and so needs Python's error machinery; use "
     "error_model='numpy', no raise/assert, and return an int status instead"),
)


def _classify(symbol: str) -> str:
    for pattern, rule, _ in _RULES:
        if pattern.search(symbol):
            return rule
    return "unknown"


def _explain_unresolved(symbols: list[str], export_name: str, where: str) -> str:
    by_rule: dict[str, list[str]] = {}
    for s in sorted(set(symbols)):
        by_rule.setdefault(_classify(s), []).append(s)
    lines = [f"cannot export {export_name!r} as a standalone library: {where} "
             f"leaves these symbols unresolved:"]
    for pattern, rule, advice in _RULES:
        if rule in by_rule:
            lines.append(f"  [{rule}] {', '.join(by_rule[rule])}")
            lines.append(f"      rule broken: no {rule} in exported code; {advice}")
    if "unknown" in by_rule:
        lines.append(f"  [other] {', '.join(by_rule['unknown'])}")
        lines.append("      not in libc/libm; link the library that provides them "
                     "(link_blas=True for cblas_*) or avoid calling them")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# External tools.

def _tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise NativeToolMissing(
            f"{name!r} was not found on PATH; native export needs it "
            f"(Debian/Ubuntu: apt-get install {package})")
    return path


def _compiler() -> str:
    cc = os.environ.get("CC", "gcc")
    return _tool(cc, "gcc")


def _run(cmd: list[str], what: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise NativeBuildError(
            f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr.strip()}")
    return proc


def undefined_symbols(so_path) -> list[str]:
    """Dynamic symbols ``so_path`` imports (``nm -D --undefined-only``), sorted,
    with glibc version suffixes (``@GLIBC_2.2.5``) stripped."""
    nm = _tool("nm", "binutils")
    out = _run([nm, "-D", "--undefined-only", str(so_path)], "nm").stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if parts:
            names.add(parts[-1].split("@")[0])
    return sorted(names)


def shared_deps(so_path) -> list[str]:
    """Shared libraries ``so_path`` loads, transitively, as ``ldd`` names them
    (``libm.so.6``, ``libc.so.6``, ...; a missing one reads ``NAME => not found``)."""
    ldd = _tool("ldd", "libc-bin")
    out = _run([ldd, str(so_path)], "ldd").stdout
    deps = []
    for line in out.splitlines():
        line = line.strip()
        if not line or line.startswith("statically linked"):
            continue
        if "=> not found" in line:
            deps.append(line.split()[0] + " => not found")
        else:
            deps.append(line.split()[0])
    return deps


def check_portable(so_path, extra_allowed=()) -> None:
    """Raise :class:`NotPortableError` unless ``so_path`` loads no libpython /
    numba / llvmlite, has no missing dependency, and imports only symbols in
    :data:`PORTABLE_SYMBOLS` (plus ``extra_allowed``)."""
    problems = []
    for dep in shared_deps(so_path):
        if dep.endswith("not found"):
            problems.append(f"missing dependency: {dep}")
        elif any(bad in dep for bad in _FORBIDDEN_DEPS):
            problems.append(f"depends on {dep} (a standalone library must not)")
    allowed = PORTABLE_SYMBOLS | set(extra_allowed)
    stray = [s for s in undefined_symbols(so_path) if s not in allowed]
    if stray:
        problems.append(_explain_unresolved(stray, Path(so_path).name, "the library"))
    if problems:
        raise NotPortableError(f"{so_path} is not a portable library:\n" + "\n".join(problems))


# --------------------------------------------------------------------------
# Header generation.

_C_TYPES = {
    types.float32: "float", types.float64: "double",
    types.int8: "int8_t", types.int16: "int16_t", types.int32: "int32_t", types.int64: "int64_t",
    types.uint8: "uint8_t", types.uint16: "uint16_t", types.uint32: "uint32_t",
    types.uint64: "uint64_t", types.boolean: "_Bool", types.void: "void", types.none: "void",
    types.voidptr: "void*",
}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _c_type(t) -> str:
    if isinstance(t, types.CPointer):
        return _c_type(t.dtype) + "*"
    try:
        return _C_TYPES[t]
    except KeyError:
        raise NativeBuildError(f"no C type for numba type {t} in a cfunc signature") from None


def c_prototype(cfunc, export_name: str, arg_names=None) -> str:
    """C prototype for ``cfunc`` exported as ``export_name``,
    e.g. ``int32_t ew(float* x, float* out, int64_t n, void* workspace);``."""
    sig = cfunc._sig
    if arg_names is None:
        try:
            arg_names = list(inspect.signature(cfunc._pyfunc).parameters)
        except (TypeError, ValueError, AttributeError):
            arg_names = [f"arg{i}" for i in range(len(sig.args))]
    args = ", ".join(f"{_c_type(t)} {n}" for t, n in zip(sig.args, arg_names)) or "void"
    return f"{_c_type(sig.return_type)} {export_name}({args});"


def _header_text(export_name, decl, defines, comment, link_blas, cpu) -> str:
    guard = f"JITGRAD_{export_name.upper()}_H"
    libs = f"-L<dir> -l{export_name}" + (" (loads libopenblas.so.0 at run time)" if link_blas else "")
    lines = [
        f"/* {export_name}.h -- generated by jitgrad (jitgrad.codegen.native).",
        f" * Link: {libs}; needs only libc/libm{' and OpenBLAS' if link_blas else ''}.",
        f" * Code generated for CPU {cpu!r}: it may use instructions older CPUs lack.",
    ]
    for line in (comment or "").strip().splitlines():
        lines.append(f" * {line}".rstrip())
    lines += [" */", f"#ifndef {guard}", f"#define {guard}", "", "#include <stddef.h>",
              "#include <stdint.h>", ""]
    for name, value in defines.items():
        lines.append(f"#define {name} {int(value)}")
    if defines:
        lines.append("")
    decl = decl.strip()
    if not decl.endswith(";"):
        decl += ";"
    lines += ["#ifdef __cplusplus", 'extern "C" {', "#endif", "", decl, "",
              "#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------
# IR -> object -> shared library.

def _target_machine(triple: str, cpu: str | None):
    if cpu in (None, "host"):
        cpu_name, features = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
    else:
        cpu_name, features = cpu, ""
    target = llvm.Target.from_triple(triple)
    return target.create_target_machine(cpu=cpu_name, features=features, opt=3,
                                        reloc="pic", codemodel="default"), cpu_name


def _prepare_module(cfunc, export_name: str):
    try:
        mod = llvm.parse_assembly(cfunc.inspect_llvm())
    except RuntimeError as exc:
        raise NativeBuildError(f"llvmlite could not parse the IR of {cfunc!r}: {exc}") from exc
    wrapper = cfunc.native_name
    found = False
    for fn in mod.functions:
        if fn.name == export_name and fn.name != wrapper:
            raise NativeBuildError(
                f"export name {export_name!r} clashes with a symbol already in the module")
        if fn.is_declaration:
            continue
        if fn.name == wrapper:
            fn.name = export_name
            fn.linkage = llvm.Linkage.external
            fn.visibility = llvm.Visibility.default
            found = True
        else:
            fn.linkage = llvm.Linkage.internal
    if not found:
        raise NativeBuildError(f"C wrapper {wrapper!r} not found in the IR of {cfunc!r}")
    for gv in mod.global_variables:
        if not gv.is_declaration:
            gv.linkage = llvm.Linkage.internal
    try:
        mod.verify()
    except RuntimeError as exc:
        raise NativeBuildError(f"LLVM module for {export_name!r} failed to verify: {exc}") from exc
    return mod


def _optimize(mod, tm) -> None:
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pb = llvm.create_pass_builder(tm, pto)
    # At least twice: the cfunc wrapper calls its body `noinline`, and the wrapper's Python
    # error path folds away only once the first round has reduced a large body to `return 0`;
    # a larger entry (products reading a convolution's columns in loops) needs a third round
    # before its NRT_decref(null) calls inline away. Up to four, while runtime calls remain.
    for k in range(4):
        pb.getModulePassManager().run(mod, pb)
        if k >= 1 and not any(_classify(s) != "unknown" for s in _imports(mod)):
            break


def _imports(mod) -> list[str]:
    """Non-intrinsic declarations left in ``mod`` (what the object will import)."""
    names = [f.name for f in mod.functions if f.is_declaration and not f.name.startswith("llvm.")]
    names += [g.name for g in mod.global_variables if g.is_declaration]
    return names


def build_shared_library(cfunc, export_name: str, out_dir, *, header_decl: str | None = None,
                         defines: dict[str, int] | None = None, link_blas: bool = False,
                         comment: str = "", cpu: str | None = "host",
                         keep_intermediates: bool = False) -> tuple[Path, Path]:
    """Compile a numba ``cfunc`` into ``out_dir/lib{export_name}.so`` and
    ``out_dir/{export_name}.h``; return both paths.

    ``header_decl`` is the C prototype written to the header (default: derived
    from the cfunc's signature by :func:`c_prototype`). ``defines`` become
    ``#define NAME value`` lines (e.g. ``NAME_WORKSPACE_BYTES``). ``link_blas``
    links ``-lopenblas`` so :func:`sgemm`/:func:`dgemm` resolve. ``cpu`` is the
    LLVM CPU to generate code for: ``"host"`` (default, like numba) or a name
    such as ``"x86-64-v2"`` for a library that runs on older machines.
    ``keep_intermediates`` also writes the optimized ``{export_name}.ll`` and
    ``{export_name}.o``.
    """
    if not (hasattr(cfunc, "native_name") and hasattr(cfunc, "inspect_llvm")):
        raise NativeBuildError(
            f"build_shared_library needs a numba @cfunc (got {type(cfunc).__name__}); "
            f"compile the entry point with numba.cfunc(signature, error_model='numpy', nogil=True)")
    mod = _prepare_module(cfunc, export_name)
    return link_module(mod, export_name, out_dir, header_decl=header_decl or c_prototype(
        cfunc, export_name), defines=defines, link_blas=link_blas, comment=comment, cpu=cpu,
        keep_intermediates=keep_intermediates)


def link_module(mod, export_name: str, out_dir, *, header_decl: str, defines=None,
                link_blas: bool = False, comment: str = "", cpu: str | None = "host",
                keep_intermediates: bool = False) -> tuple[Path, Path]:
    """An llvmlite module whose one external definition is `export_name` -> optimized at O3,
    a PIC object, linked by gcc into ``out_dir/lib{export_name}.so``, plus the header."""
    if not _IDENT.match(export_name):
        raise NativeBuildError(f"export name {export_name!r} is not a C identifier")
    defines = dict(defines or {})
    for name in defines:
        if not _IDENT.match(name):
            raise NativeBuildError(f"#define name {name!r} is not a C identifier")
    cc = _compiler()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    so_path = out_dir / f"lib{export_name}.so"
    h_path = out_dir / f"{export_name}.h"

    try:
        tm, cpu_name = _target_machine(mod.triple, cpu)
        _optimize(mod, tm)
        obj = tm.emit_object(mod)
    except RuntimeError as exc:
        raise NativeBuildError(f"llvmlite failed to optimize/emit {export_name!r}: {exc}") from exc

    # Catch numba runtime / Python references before the linker does, with a diagnosis.
    bad = [s for s in _imports(mod) if _classify(s) != "unknown"]
    if bad:
        raise UnresolvedSymbolsError(_explain_unresolved(bad, export_name, "the optimized code"), bad)

    if keep_intermediates:
        (out_dir / f"{export_name}.ll").write_text(str(mod))
        (out_dir / f"{export_name}.o").write_bytes(obj)

    libs = ["-lm"]
    if link_blas:
        if not blas_available(for_linking=True):
            raise NativeToolMissing("link_blas=True but gcc cannot link OpenBLAS (-lopenblas) "
                                    "(Debian/Ubuntu: apt-get install libopenblas-dev)")
        libs = ["-lopenblas", "-lm"]
    with tempfile.TemporaryDirectory(prefix="jitgrad-native-") as tmp:
        obj_path = Path(tmp) / f"{export_name}.o"
        obj_path.write_bytes(obj)
        tmp_so = Path(tmp) / so_path.name
        cmd = [cc, "-shared", "-o", str(tmp_so), str(obj_path), f"-Wl,-soname,{so_path.name}",
               "-Wl,--no-undefined", "-Wl,--as-needed", "-Wl,-z,noexecstack", *libs]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            lib = re.search(r"cannot find -l(\S+)", proc.stderr)
            if lib:
                raise NativeToolMissing(f"the linker cannot find lib{lib.group(1)}.so; install its "
                                        f"development package\n{proc.stderr.strip()}")
            missing = sorted(set(re.findall(r"undefined reference to [`'](.+?)'", proc.stderr)))
            if missing:
                raise UnresolvedSymbolsError(
                    _explain_unresolved(missing, export_name, "linking"), missing)
            raise NativeBuildError(f"linking {so_path.name} failed: {' '.join(cmd)}\n"
                                   f"{proc.stderr.strip()}")
        # Replace atomically: a process may have the old library mapped.
        os.replace(shutil.copy2(tmp_so, out_dir / f".{so_path.name}.tmp"), so_path)
    h_path.write_text(_header_text(export_name, header_decl, defines, comment, link_blas, cpu_name))
    return so_path, h_path


# --------------------------------------------------------------------------
# C BLAS from numba code.

CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS = 101, 111, 112


def openblas_path() -> str | None:
    """The OpenBLAS shared library's name as the dynamic loader finds it, or None."""
    return ctypes.util.find_library("openblas")


def _load_openblas() -> bool:
    path = openblas_path()
    if path is None:
        return False
    try:
        # numba's JIT resolves cblas_* against this; a .so links -lopenblas instead.
        llvm.load_library_permanently(path)
    except RuntimeError:
        return False
    return True


_BLAS_LOADED = _load_openblas()


def blas_available(for_linking: bool = False) -> bool:
    """True when OpenBLAS's cblas_* can be called from numba code in this process;
    with ``for_linking``, also when gcc can link ``-lopenblas`` (needs the -dev package)."""
    if not _BLAS_LOADED:
        return False
    return not for_linking or _gcc_finds("libopenblas.so")


def _gcc_finds(filename: str) -> bool:
    cc = shutil.which(os.environ.get("CC", "gcc"))
    if cc is None:
        return False
    proc = subprocess.run([cc, f"-print-file-name={filename}"], capture_output=True, text=True)
    return proc.returncode == 0 and os.path.isabs(proc.stdout.strip())


def _gemm_signature(dtype):
    p, i = types.CPointer(dtype), types.int32  # CBLAS enums and LP64 blasint are C int
    return types.void(i, i, i, i, i, i, dtype, p, i, p, i, dtype, p, i)


# void cblas_sgemm(order, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)
cblas_sgemm = types.ExternalFunction("cblas_sgemm", _gemm_signature(types.float32))
cblas_dgemm = types.ExternalFunction("cblas_dgemm", _gemm_signature(types.float64))


@intrinsic
def _require_blas(typingctx):
    if not _BLAS_LOADED:
        raise errors.TypingError(
            "jitgrad native sgemm/dgemm need OpenBLAS's cblas_* but it was not found "
            "(Debian/Ubuntu: apt-get install libopenblas-dev)")

    def codegen(context, builder, signature, args):
        return context.get_dummy_value()
    return types.none(), codegen


@intrinsic
def data_ptr(typingctx, arr):
    """Typed pointer (``CPointer(dtype)``) to an array's first element."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data
    return types.CPointer(arr.dtype)(arr), codegen


@intrinsic
def byte_offset(typingctx, ptr, nbytes):
    """``ptr + nbytes`` (bytes) with the pointer's type kept: carve workspace
    arrays with ``carray(byte_offset(ws, off), shape, dtype=np.float32)``."""
    if not (isinstance(ptr, (types.CPointer, types.RawPointer)) and isinstance(nbytes, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        p, n = args
        i8p = context.get_value_type(types.voidptr)
        n = context.cast(builder, n, signature.args[1], types.intp)
        moved = builder.gep(builder.bitcast(p, i8p), [n])
        return builder.bitcast(moved, p.type)
    return ptr(ptr, nbytes), codegen


@njit(nogil=True, inline="always")
def _gemm_transpose_flag(trans):
    return np.int32(CBLAS_TRANS) if trans else np.int32(CBLAS_NO_TRANS)


@njit(nogil=True, inline="always")
def _leading_dim(a):
    """Row stride in elements for BLAS, or -1 if rows are not unit-stride."""
    rows, cols = a.shape
    if cols > 1 and a.strides[1] != a.itemsize:
        return -1
    ld = a.strides[0] // a.itemsize
    if rows > 1 and ld < cols:
        return -1  # broadcast, overlapping or negative rows
    return max(ld, cols, 1)


@njit(nogil=True, inline="always")
def _gemm_dims(A, B, C, transA, transB):
    M, K = (A.shape[1], A.shape[0]) if transA else (A.shape[0], A.shape[1])
    KB, N = (B.shape[1], B.shape[0]) if transB else (B.shape[0], B.shape[1])
    if KB != K or C.shape[0] != M or C.shape[1] != N:
        return -1, M, N, K
    if M > 2147483647 or N > 2147483647 or K > 2147483647:
        return -3, M, N, K
    return 0, M, N, K


@njit(nogil=True, inline="always")
def _scale(C, beta):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] = C[i, j] * beta if beta != 0 else 0


def _gemm_for(cblas_gemm, scalar):
    """A gemm over 2-D row-major arrays through `cblas_gemm`, computing in `scalar`."""
    @njit(nogil=True)
    def gemm(A, B, C, transA=False, transB=False, alpha=1.0, beta=0.0):
        _require_blas()
        status, M, N, K = _gemm_dims(A, B, C, transA, transB)
        if status != 0:
            return np.int32(status)
        if M == 0 or N == 0:
            return np.int32(0)
        if K == 0:
            _scale(C, beta)
            return np.int32(0)
        lda, ldb, ldc = _leading_dim(A), _leading_dim(B), _leading_dim(C)
        if lda < 0 or ldb < 0 or ldc < 0:
            return np.int32(-2)
        cblas_gemm(np.int32(CBLAS_ROW_MAJOR), _gemm_transpose_flag(transA),
                   _gemm_transpose_flag(transB), np.int32(M), np.int32(N), np.int32(K),
                   scalar(alpha), data_ptr(A), np.int32(lda), data_ptr(B), np.int32(ldb),
                   scalar(beta), data_ptr(C), np.int32(ldc))
        return np.int32(0)
    return gemm


# ``C = alpha * op(A) @ op(B) + beta * C`` on 2-D row-major arrays through OpenBLAS; never
# allocates or raises. Returns 0 on success, -1 on mismatched shapes, -2 when an array's rows
# are not unit-stride (BLAS cannot take it), -3 when a dimension exceeds int32.
sgemm = _gemm_for(cblas_sgemm, np.float32)
dgemm = _gemm_for(cblas_dgemm, np.float64)


@njit(nogil=True, inline="always")
def sgemm_ptr(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc):
    """Row-major ``cblas_sgemm`` on raw ``float32*`` pointers (no checks)."""
    _require_blas()
    cblas_sgemm(np.int32(CBLAS_ROW_MAJOR), _gemm_transpose_flag(transA), _gemm_transpose_flag(transB),
                np.int32(M), np.int32(N), np.int32(K), np.float32(alpha), A, np.int32(lda),
                B, np.int32(ldb), np.float32(beta), C, np.int32(ldc))


@njit(nogil=True, inline="always")
def dgemm_ptr(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc):
    """Row-major ``cblas_dgemm`` on raw ``float64*`` pointers (no checks)."""
    _require_blas()
    cblas_dgemm(np.int32(CBLAS_ROW_MAJOR), _gemm_transpose_flag(transA), _gemm_transpose_flag(transB),
                np.int32(M), np.int32(N), np.int32(K), np.float64(alpha), A, np.int32(lda),
                B, np.int32(ldb), np.float64(beta), C, np.int32(ldc))
