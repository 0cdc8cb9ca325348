"""Ahead-of-time native export: an llvmlite module -> ``libNAME.so`` + ``NAME.h``.

The module (codegen/native/library.py: the kernel units and the entry that calls them) is run
through LLVM's O3 pipeline, emitted as a position-independent object and linked by gcc with
``-Wl,--no-undefined``. The result depends only on libc (memcpy and friends; malloc/free for
the heap scratch of large kernels), libm and, when asked, OpenBLAS (cblas_* and the LAPACK
routines of the decompositions), never on libpython, numba or llvmlite: `check_portable`
checks the built library's imports and dependencies.
"""

from __future__ import annotations

import ctypes.util
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import llvmlite.binding as llvm

__all__ = [
    "NativeBuildError", "NativeToolMissing", "UnresolvedSymbolsError", "NotPortableError",
    "link_module", "undefined_symbols", "shared_deps", "check_portable", "PORTABLE_SYMBOLS",
    "blas_available", "openblas_path",
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
# the LAPACK routines of the decompositions (cpu/kernels/lapack.py), in OpenBLAS (Fortran names)
_LAPACK = {
    f"{p}{r}_" for p in "sd" for r in ("potrf", "syevd", "getrf", "gesv", "geqrf", "orgqr", "gesdd")
}
PORTABLE_SYMBOLS: frozenset[str] = frozenset(_LIBM | _LIBC | _CBLAS | _LAPACK)

# Libraries a portable .so must never load (matched against ldd's names/paths).
_FORBIDDEN_DEPS = ("libpython", "numba", "llvmlite", "libstdc++", "libgfortran-numba")


def _explain_unresolved(symbols: list[str], export_name: str, where: str) -> str:
    return (f"cannot export {export_name!r} as a standalone library: {where} leaves these "
            f"symbols unresolved: {', '.join(sorted(set(symbols)))}\n"
            "      not in libc/libm/OpenBLAS; link the library that provides them or avoid "
            "calling them")


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

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _header_text(export_name, decl, defines, comment, link_blas, cpu) -> str:
    guard = f"JITGRAD_{export_name.upper()}_H"
    libs = f"-L<dir> -l{export_name}" + (" (loads libopenblas.so.0 at run time)" if link_blas else "")
    lines = [
        f"/* {export_name}.h -- generated by jitgrad (jitgrad.codegen.native).",
        f" * Link: {libs}; needs only libc (malloc/free: large kernels' scratch), libm"
        f"{' and OpenBLAS' if link_blas else ''}.",
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


def _optimize(mod, tm) -> None:
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pb = llvm.create_pass_builder(tm, pto)
    for _ in range(2):      # two rounds, as the library build has run since it had LLVM units
        pb.getModulePassManager().run(mod, pb)


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
# OpenBLAS.

def openblas_path() -> str | None:
    """The OpenBLAS shared library's name as the dynamic loader finds it, or None."""
    return ctypes.util.find_library("openblas")


def blas_available(for_linking: bool = False) -> bool:
    """True when the dynamic loader finds OpenBLAS; with ``for_linking``, also when gcc can link
    ``-lopenblas`` (needs the -dev package)."""
    if openblas_path() is None:
        return False
    return not for_linking or _gcc_finds("libopenblas.so")


def _gcc_finds(filename: str) -> bool:
    cc = shutil.which(os.environ.get("CC", "gcc"))
    if cc is None:
        return False
    proc = subprocess.run([cc, f"-print-file-name={filename}"], capture_output=True, text=True)
    return proc.returncode == 0 and os.path.isabs(proc.stdout.strip())
