"""Native export: numba cfunc -> standalone libNAME.so + NAME.h, called from C."""

import math
import shutil
import subprocess

import numpy as np
import pytest

numba = pytest.importorskip("numba")
from numba import carray, cfunc, njit, types  # noqa: E402

from jitgrad.codegen import native  # noqa: E402

pytestmark = [
    pytest.mark.skipif(shutil.which("gcc") is None, reason="native export needs gcc"),
    pytest.mark.skipif(shutil.which("nm") is None, reason="native export needs nm (binutils)"),
    pytest.mark.skipif(shutil.which("ldd") is None, reason="native export needs ldd"),
]
needs_blas = pytest.mark.skipif(
    not native.blas_available(for_linking=True),
    reason="OpenBLAS not installed (apt-get install libopenblas-dev)")

f32p = types.CPointer(types.float32)
KERNEL = dict(error_model="numpy", nogil=True)

C_FILL = r"""
#include <stdio.h>
#include <stdlib.h>
/* exact in float32, so NumPy can rebuild the same inputs */
static void fill(float* p, int n, int mul, int mod, float scale) {
    for (int i = 0; i < n; ++i) p[i] = (float)((i * mul) % mod - mod / 2) * scale;
}
"""


def np_fill(n, mul, mod, scale):
    return ((np.arange(n) * mul) % mod - mod // 2).astype(np.float32) * np.float32(scale)


def compile_and_run(tmp_path, lib_dir, name, source):
    """Build a C driver against lib{name}.so with warnings as errors, run it, parse floats."""
    c_file = tmp_path / f"{name}_driver.c"
    exe = tmp_path / f"{name}_driver"
    c_file.write_text(source)
    subprocess.run(
        ["gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{lib_dir}", str(c_file),
         "-o", str(exe), f"-L{lib_dir}", f"-l{name}", f"-Wl,-rpath,{lib_dir}", "-lm"],
        check=True, capture_output=True, text=True)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split()
    assert lines[0] == "status=0", proc.stdout
    return np.array([float(v) for v in lines[1:]], dtype=np.float64)


def assert_standalone(so_path, blas=False):
    deps = native.shared_deps(so_path)
    assert not any("python" in d or "numba" in d or "llvmlite" in d for d in deps), deps
    assert any(d.startswith("libc.so") for d in deps), deps
    if blas:
        assert any(d.startswith("libopenblas") for d in deps), deps
    undefined = native.undefined_symbols(so_path)
    assert set(undefined) <= native.PORTABLE_SYMBOLS, set(undefined) - native.PORTABLE_SYMBOLS
    assert not any(s.startswith(("NRT_", "Py", "_Py", "numba_")) for s in undefined)
    native.check_portable(so_path)
    return undefined


# ---------------------------------------------------------------- (a) elementwise


@cfunc(types.int32(f32p, f32p, types.int64, types.voidptr), **KERNEL)
def ew_chain(x, out, n, workspace):
    for i in range(n):
        out[i] = math.tanh(x[i] * np.float32(1.5) + np.float32(0.3))
    return 0


def test_elementwise_chain_from_c(tmp_path):
    lib_dir = tmp_path / "lib"
    so, h = native.build_shared_library(
        ew_chain, "ew_chain", lib_dir,
        header_decl="int32_t ew_chain(const float* x, float* out, int64_t n, void* workspace)",
        defines={"EW_CHAIN_WORKSPACE_BYTES": 0}, comment="out[i] = tanh(x[i]*1.5+0.3)")
    assert so == lib_dir / "libew_chain.so" and h == lib_dir / "ew_chain.h"
    header = h.read_text()
    assert "#define EW_CHAIN_WORKSPACE_BYTES 0" in header
    assert "int32_t ew_chain(const float* x, float* out, int64_t n, void* workspace);" in header
    assert "tanh(x[i]*1.5+0.3)" in header

    n = 37  # odd: exercises the vector loop's remainder
    driver = C_FILL + r"""
#include "ew_chain.h"
int main(void) {
    enum { N = 37 };
    float x[N], out[N];
    fill(x, N, 37, 101, 1.0f / 32.0f);
    int32_t st = ew_chain(x, out, N, NULL);
    printf("status=%d\n", (int)st);
    for (int i = 0; i < N; ++i) printf("%.9g\n", out[i]);
    return 0;
}
"""
    got = compile_and_run(tmp_path, lib_dir, "ew_chain", driver)
    x = np_fill(n, 37, 101, 1 / 32)
    want = np.tanh(x * np.float32(1.5) + np.float32(0.3))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    undefined = assert_standalone(so)
    assert "tanhf" in undefined  # libm supplies the math


def test_generated_prototype_from_signature():
    assert native.c_prototype(ew_chain, "k") == \
        "int32_t k(float* x, float* out, int64_t n, void* workspace);"


# ---------------------------------------------------------------- (b) MLP with BLAS

BATCH, IN, HIDDEN, OUT = 8, 64, 32, 10
HIDDEN_OFFSET = 64  # bytes; not 0, so byte_offset's arithmetic is tested too
WORKSPACE_BYTES = HIDDEN_OFFSET + BATCH * HIDDEN * 4


def _mlp_kernel():
    @cfunc(types.int32(f32p, f32p, f32p, f32p, f32p, f32p, types.voidptr), **KERNEL)
    def tiny_mlp(x, w1, b1, w2, b2, out, workspace):
        X = carray(x, (BATCH, IN))
        W1 = carray(w1, (IN, HIDDEN))
        B1 = carray(b1, HIDDEN)
        W2 = carray(w2, (HIDDEN, OUT))
        B2 = carray(b2, OUT)
        Y = carray(out, (BATCH, OUT))
        H = carray(native.byte_offset(workspace, HIDDEN_OFFSET), (BATCH, HIDDEN), dtype=np.float32)
        status = native.sgemm(X, W1, H)
        if status != 0:
            return status
        for i in range(BATCH):
            for j in range(HIDDEN):
                H[i, j] = max(H[i, j] + B1[j], np.float32(0.0))
        status = native.sgemm(H, W2, Y)
        if status != 0:
            return status
        for i in range(BATCH):
            for j in range(OUT):
                Y[i, j] += B2[j]
        return 0
    return tiny_mlp


MLP_DRIVER = C_FILL + r"""
#include <string.h>
#include "tiny_mlp.h"
int main(void) {
    static float x[MLP_BATCH * MLP_IN], w1[MLP_IN * MLP_HIDDEN], b1[MLP_HIDDEN];
    static float w2[MLP_HIDDEN * MLP_OUT], b2[MLP_OUT], out[MLP_BATCH * MLP_OUT];
    fill(x, MLP_BATCH * MLP_IN, 37, 101, 1.0f / 32.0f);
    fill(w1, MLP_IN * MLP_HIDDEN, 53, 61, 1.0f / 128.0f);
    fill(b1, MLP_HIDDEN, 7, 11, 1.0f / 16.0f);
    fill(w2, MLP_HIDDEN * MLP_OUT, 29, 43, 1.0f / 64.0f);
    fill(b2, MLP_OUT, 3, 5, 1.0f / 8.0f);
    void* ws = aligned_alloc(64, (TINY_MLP_WORKSPACE_BYTES + 63) / 64 * 64);
    memset(ws, 0xff, TINY_MLP_WORKSPACE_BYTES);  /* NaN garbage: the kernel must overwrite */
    int32_t st = tiny_mlp(x, w1, b1, w2, b2, out, ws);
    printf("status=%d\n", (int)st);
    for (int i = 0; i < MLP_BATCH * MLP_OUT; ++i) printf("%.9g\n", out[i]);
    free(ws);
    return 0;
}
"""


@needs_blas
def test_mlp_with_cblas_from_c(tmp_path):
    kernel = _mlp_kernel()
    lib_dir = tmp_path / "lib"
    so, h = native.build_shared_library(
        kernel, "tiny_mlp", lib_dir, link_blas=True,
        header_decl=("int32_t tiny_mlp(const float* x, const float* w1, const float* b1, "
                     "const float* w2, const float* b2, float* out, void* workspace);"),
        defines={"TINY_MLP_WORKSPACE_BYTES": WORKSPACE_BYTES, "MLP_BATCH": BATCH,
                 "MLP_IN": IN, "MLP_HIDDEN": HIDDEN, "MLP_OUT": OUT})
    got = compile_and_run(tmp_path, lib_dir, "tiny_mlp", MLP_DRIVER)

    x = np_fill(BATCH * IN, 37, 101, 1 / 32).reshape(BATCH, IN).astype(np.float64)
    w1 = np_fill(IN * HIDDEN, 53, 61, 1 / 128).reshape(IN, HIDDEN).astype(np.float64)
    b1 = np_fill(HIDDEN, 7, 11, 1 / 16).astype(np.float64)
    w2 = np_fill(HIDDEN * OUT, 29, 43, 1 / 64).reshape(HIDDEN, OUT).astype(np.float64)
    b2 = np_fill(OUT, 3, 5, 1 / 8).astype(np.float64)
    want = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    np.testing.assert_allclose(got.reshape(BATCH, OUT), want, rtol=1e-5, atol=1e-5)

    undefined = assert_standalone(so, blas=True)
    assert "cblas_sgemm" in undefined


# ---------------------------------------------------------------- BLAS helpers in-process


@needs_blas
def test_gemm_helpers_in_jit():
    @njit
    def run_s(A, B, C, ta, tb):
        return native.sgemm(A, B, C, ta, tb, 1.0, 0.0)

    @njit
    def run_d(A, B, C):
        return native.dgemm(A, B, C, True, False, 2.0, 1.0)

    rng = np.random.default_rng(0)
    A = rng.standard_normal((9, 7), dtype=np.float32)
    B = rng.standard_normal((5, 7), dtype=np.float32)
    C = np.empty((9, 5), np.float32)
    assert run_s(A, B, C, False, True) == 0
    np.testing.assert_allclose(C, A @ B.T, rtol=1e-5, atol=1e-5)
    # row slices are fine (lda > cols); column-strided rows are refused, not miscomputed
    big = rng.standard_normal((12, 12), dtype=np.float32)
    C2 = np.zeros((9, 5), np.float32)
    assert run_s(big[:9, 1:8], big[2:9, :5], C2, False, False) == 0
    np.testing.assert_allclose(C2, big[:9, 1:8] @ big[2:9, :5], rtol=1e-5, atol=1e-5)
    assert run_s(big[:9, ::2][:, :6], big[:6, :5], C2, False, False) == -2
    assert run_s(A, A, C, False, False) == -1  # shape mismatch -> status, no exception

    Ad = rng.standard_normal((4, 6))
    Bd = rng.standard_normal((4, 3))
    Cd = np.ones((6, 3))
    assert run_d(Ad, Bd, Cd) == 0
    np.testing.assert_allclose(Cd, 2 * Ad.T @ Bd + 1, rtol=1e-12)


# ---------------------------------------------------------------- error paths


def test_allocation_is_a_clear_error(tmp_path):
    @cfunc(types.int32(f32p, types.int64, types.voidptr), **KERNEL)
    def allocates(x, n, workspace):
        tmp = np.empty(n, np.float32)
        xs = carray(x, n)
        for i in range(n):
            tmp[i] = xs[i] * 2
        xs[:] = tmp
        return 0

    with pytest.raises(native.UnresolvedSymbolsError) as info:
        native.build_shared_library(allocates, "allocates", tmp_path,
                                    header_decl="int32_t allocates(float*, int64_t, void*);")
    msg = str(info.value)
    assert "NRT_" in msg and "allocation" in msg and "workspace" in msg
    assert any(s.startswith("NRT_") for s in info.value.symbols)
    assert not (tmp_path / "liballocates.so").exists()


def test_raising_is_a_clear_error(tmp_path):
    @cfunc(types.int32(f32p, types.int64, types.voidptr), **KERNEL)
    def raises(x, n, workspace):
        if n < 0:
            raise ValueError("negative")
        return 0

    with pytest.raises(native.UnresolvedSymbolsError, match=r"raising[\s\S]*error_model"):
        native.build_shared_library(raises, "raises", tmp_path)


def test_np_dot_is_a_clear_error(tmp_path):
    pytest.importorskip("scipy")  # numba's np.dot needs scipy's BLAS to compile at all

    @cfunc(types.int32(f32p, types.int64, types.voidptr), **KERNEL)
    def uses_dot(x, n, workspace):
        a = carray(x, (n, n))
        a[0, 0] = np.dot(a, a)[0, 0]
        return 0

    with pytest.raises(native.UnresolvedSymbolsError, match=r"np\.dot[\s\S]*sgemm"):
        native.build_shared_library(uses_dot, "uses_dot", tmp_path)


def test_generic_cpu_target(tmp_path):
    so, h = native.build_shared_library(ew_chain, "ew_generic", tmp_path, cpu="x86-64",
                                        keep_intermediates=True)
    assert "'x86-64'" in h.read_text()
    assert (tmp_path / "ew_generic.ll").exists() and (tmp_path / "ew_generic.o").exists()
    native.check_portable(so)


def test_check_portable_rejects_stray_symbols(tmp_path):
    src = tmp_path / "stray.c"
    src.write_text("void* NRT_Allocate(long);\nvoid* f(void) { return NRT_Allocate(8); }\n")
    so = tmp_path / "libstray.so"
    subprocess.run(["gcc", "-shared", "-fPIC", str(src), "-o", str(so)], check=True)
    assert "NRT_Allocate" in native.undefined_symbols(so)
    with pytest.raises(native.NotPortableError, match=r"NRT_Allocate[\s\S]*allocation"):
        native.check_portable(so)
    native.check_portable(so, extra_allowed={"NRT_Allocate"})


def test_bad_inputs(tmp_path, monkeypatch):
    with pytest.raises(native.NativeBuildError, match="cfunc"):
        native.build_shared_library(njit(lambda x: x), "f", tmp_path)
    with pytest.raises(native.NativeBuildError, match="C identifier"):
        native.build_shared_library(ew_chain, "not-a-name", tmp_path)
    monkeypatch.setenv("CC", str(tmp_path / "no-such-gcc"))
    with pytest.raises(native.NativeToolMissing, match="apt-get install gcc"):
        native.build_shared_library(ew_chain, "ew", tmp_path)
