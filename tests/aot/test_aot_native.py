"""Native export: a jitted function as libNAME.so + NAME.h, called from a C program with no
Python, compared with the same function jitted in Python; `jitgrad aot --native`."""
import importlib
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.native import link as native_link, export as native_export
from jitgrad.ir.types import parse_type

pytestmark = [pytest.mark.skipif(shutil.which(t) is None, reason=f"native export needs {t}")
              for t in ("gcc", "nm", "ldd")]
needs_blas = pytest.mark.skipif(not native_link.blas_available(for_linking=True),
                                reason="OpenBLAS not installed (apt-get install libopenblas-dev)")

USER_MODULE = '''
import jitgrad as jg
import jitgrad.numpy as jnp
import jitgrad.numpy as jnp
from jitgrad import nn
from jitgrad.nn import functional as F

jg.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def predict(x):                 # the trained weights are baked into the library
    return model(x)


def ew_chain(x):
    return jnp.tanh(x * 1.5 + 0.3) * F.sigmoid(x) + jnp.exp(-x * x)


def kinds(x):      # rowwise; column reductions (accumulator arrays); shape ops; an input as output
    shaped = jnp.concatenate([x[:, :3], jnp.pad(x[::-1, -2:], ((0, 0), (1, 0)))], axis=1).T
    return F.softmax(x, axis=-1), x.sum(axis=0), jnp.argmax(x, axis=0), shaped, x
'''


def c_driver(lib) -> str:
    """A C program: inputs from files argv[1..], outputs to files after them; first a call with
    a NULL output, whose status it prints too."""
    up, n_in, n_out = lib.name.upper(), len(lib.inputs), len(lib.outputs)
    lines = ["#include <stdio.h>", "#include <stdlib.h>", f'#include "{lib.name}.h"', "",
             "static void* slurp(const char* path, size_t bytes) {",
             "    void* p = malloc(bytes); FILE* f = fopen(path, \"rb\");",
             "    if (!p || !f || fread(p, 1, bytes, f) != bytes) exit(3);",
             "    fclose(f); return p;", "}", "",
             "int main(int argc, char** argv) {", f"    if (argc != {1 + n_in + n_out}) return 2;"]
    for i, p in enumerate(lib.inputs):
        lines.append(f"    {p.ctype}* in{i} = slurp(argv[{1 + i}], sizeof({p.ctype}) * {up}_IN{i}_SIZE);")
    for j, p in enumerate(lib.outputs):
        lines.append(f"    {p.ctype}* out{j} = malloc(sizeof({p.ctype}) * {up}_OUT{j}_SIZE);")
    lines.append(f"    void* ws = {up}_WORKSPACE_BYTES ? aligned_alloc(64, "
                 f"({up}_WORKSPACE_BYTES + 63) / 64 * 64) : NULL;")
    args = [f"in{i}" for i in range(n_in)] + [f"out{j}" for j in range(n_out)]
    with_null = args[:n_in] + ["NULL"] + args[n_in + 1:]
    lines.append(f"    printf(\"null=%d\\n\", (int){lib.name}({', '.join(with_null)}, ws));")
    lines.append(f"    int32_t status = {lib.name}({', '.join(args)}, ws);")
    lines.append("    printf(\"status=%d\\n\", (int)status);")
    for j, p in enumerate(lib.outputs):
        lines += [f"    FILE* f{j} = fopen(argv[{1 + n_in + j}], \"wb\");",
                  f"    fwrite(out{j}, sizeof({p.ctype}), {up}_OUT{j}_SIZE, f{j}); fclose(f{j});"]
    lines += ["    return status;", "}", ""]
    return "\n".join(lines)


def run_from_c(lib, tmp_path, inputs):
    """Compile the driver against the library (warnings are errors), run it, return outputs."""
    lib_dir = lib.so_path.parent
    src, exe = tmp_path / f"{lib.name}_main.c", tmp_path / f"{lib.name}_main"
    src.write_text(c_driver(lib))
    subprocess.run(["gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{lib_dir}", str(src),
                    "-o", str(exe), f"-L{lib_dir}", f"-l{lib.name}", f"-Wl,-rpath,{lib_dir}"],
                   check=True, capture_output=True, text=True)
    files = []
    for i, x in enumerate(inputs):
        files.append(tmp_path / f"in{i}.bin")
        np.ascontiguousarray(x).tofile(files[-1])
    outs = [tmp_path / f"out{j}.bin" for j in range(len(lib.outputs))]
    proc = subprocess.run([str(exe), *map(str, files + outs)], capture_output=True, text=True,
                          timeout=60)
    assert proc.stdout.split() == ["null=1", "status=0"], (proc.stdout, proc.stderr)
    return [np.fromfile(o, p.type.dtype).reshape(p.type.shape) for o, p in zip(outs, lib.outputs)]


def assert_standalone(so_path, blas):
    deps = native_link.shared_deps(so_path)
    assert not any(bad in d for d in deps for bad in ("python", "numba", "llvmlite")), deps
    assert any(d.startswith("libm.so") for d in deps) or not blas, deps
    assert any(d.startswith("libopenblas") for d in deps) == blas, deps
    undefined = set(native_link.undefined_symbols(so_path))
    assert undefined <= native_link.PORTABLE_SYMBOLS, undefined - native_link.PORTABLE_SYMBOLS
    assert ("cblas_sgemm" in undefined) == blas


@pytest.fixture(scope="module")
def user(tmp_path_factory):
    src = tmp_path_factory.mktemp("native_src")
    (src / "aot_native_model.py").write_text(USER_MODULE)
    sys.path.insert(0, str(src))
    try:
        yield importlib.import_module("aot_native_model"), src
    finally:
        sys.path.remove(str(src))
        sys.modules.pop("aot_native_model", None)


def test_elementwise_chain_from_c(user, tmp_path):
    mod, _ = user
    x = np.random.default_rng(1).standard_normal((3, 37)).astype(np.float32)
    lib = native_export.export(jg.jit(mod.ew_chain).lower(x).graph, tmp_path / "lib", "ew_chain")
    assert lib.workspace_bytes == 0 and not lib.blas
    header = lib.header_path.read_text()
    assert "int32_t ew_chain(const float* in0, float* out0, void* workspace);" in header
    for define in ("EW_CHAIN_WORKSPACE_BYTES 0", "EW_CHAIN_IN0_SIZE 111", "EW_CHAIN_IN0_DIM1 37",
                   "EW_CHAIN_ERR_NULL_POINTER 1"):
        assert f"#define {define}\n" in header
    (got,) = run_from_c(lib, tmp_path, [x])
    np.testing.assert_allclose(got, np.asarray(jg.jit(mod.ew_chain)(x)), rtol=1e-5, atol=1e-6)
    assert_standalone(lib.so_path, blas=False)


def test_kernel_kinds_shape_ops_and_an_output_that_is_an_input(user, tmp_path):
    mod, _ = user
    x = np.random.default_rng(2).standard_normal((5, 300)).astype(np.float32)
    lib = native_export.export(jg.jit(mod.kinds).lower(x).graph, tmp_path / "lib", "kinds")
    assert [p.ctype for p in lib.outputs] == ["float", "float", "int64_t", "float", "float"]
    got = run_from_c(lib, tmp_path, [x])
    want = [np.asarray(w) for w in jg.jit(mod.kinds)(x)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[4], x)
    assert_standalone(lib.so_path, blas=False)


def test_cli_native_mlp_from_c(user, tmp_path):
    # the products run the library's own unpacked GEMMs (codegen/cpu/llvm_small_gemm.py): no BLAS
    mod, src = user
    proc = subprocess.run([sys.executable, "-m", "jitgrad.cli", "aot", "aot_native_model:predict",
                           "--arg", "f32[16,64]", "-o", str(tmp_path / "lib"), "--native"],
                          capture_output=True, text=True, cwd=src, timeout=300,
                          env={**os.environ, "JITGRAD_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1:4] == ["  int32_t predict(const float* in0, float* out0, void* workspace);",
                          "  input  in0: x f32[16,64]", "  output out0: f32[16,10]"]
    workspace = int(lines[4].split()[1])
    assert lines[4] == f"  workspace {workspace} bytes (PREDICT_WORKSPACE_BYTES)"
    header = (tmp_path / "lib" / "predict.h").read_text()
    assert f"#define PREDICT_WORKSPACE_BYTES {workspace}\n" in header
    assert workspace >= 16 * 128 * 4     # the hidden activations live in the workspace

    lib = native_export.NativeLibrary(
        "predict", tmp_path / "lib" / "libpredict.so", tmp_path / "lib" / "predict.h",
        [native_export.Port("in0", "x", parse_type("f32[16,64]"))],
        [native_export.Port("out0", "output 0", parse_type("f32[16,10]"))], workspace, False)
    x = np.random.default_rng(3).standard_normal((16, 64)).astype(np.float32)
    (got,) = run_from_c(lib, tmp_path, [x])
    np.testing.assert_allclose(got, np.asarray(jg.jit(mod.predict)(x)), rtol=1e-5, atol=1e-5)
    assert_standalone(lib.so_path, blas=False)


@needs_blas
def test_a_product_of_two_transposed_operands_links_openblas(tmp_path):
    """The unpacked GEMMs read neither operand transposed at once: that product is OpenBLAS's,
    called through C BLAS from the library."""
    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in ((40, 48), (56, 40)))
    lib = native_export.export(jg.jit(lambda a, b: jnp.matmul(a.T, b.T)).lower(a, b).graph,
                               tmp_path / "lib", "tt")
    (got,) = run_from_c(lib, tmp_path, [a, b])
    np.testing.assert_allclose(got, a.T @ b.T, rtol=1e-5, atol=1e-5)
    assert_standalone(lib.so_path, blas=True)


def test_random_draws_export(tmp_path):
    """jg.random's draws are Threefry's uint32 arithmetic in kernels, so a function that draws
    exports like any other: the key is a uint32_t[2] input, the draws equal eager's."""
    def noisy(key, x):
        return x + jg.random.normal(key, (8,))
    key, x = np.asarray(jg.random.key(3)), np.arange(8, dtype=np.float32)
    lib = native_export.export(jg.jit(noisy).lower(key, x).graph, tmp_path / "lib", "noisy")
    assert "const uint32_t*" in lib.header_path.read_text()
    (got,) = run_from_c(lib, tmp_path, [key, x])
    np.testing.assert_allclose(got, np.asarray(noisy(key, x)), rtol=1e-6, atol=1e-6)


def test_llvm_units_library_checks_indices(tmp_path, monkeypatch, capsys):
    """A function whose kernels are all LLVM units becomes a library of those units; a take
    index out of range makes it return ERR_INDEX_OUT_OF_RANGE."""
    import ctypes
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    table = np.arange(12, dtype=np.float32).reshape(4, 3)

    def gather(idx, x):
        return jnp.take(x, idx, axis=0) * 2.0
    idx = np.array([0, 3, -1], np.int32)
    lib = native_export.export(jg.jit(gather).lower(idx, table).graph, tmp_path / "lib", "gather")
    assert "LLVM kernel units" in capsys.readouterr().err
    assert "#define GATHER_ERR_INDEX_OUT_OF_RANGE 3\n" in lib.header_path.read_text()
    so = ctypes.CDLL(str(lib.so_path))
    out = np.zeros((3, 3), np.float32)
    ws = np.zeros(lib.workspace_bytes + 64, np.uint8)
    ws_at = ctypes.c_void_p((ws.ctypes.data + 63) // 64 * 64)

    def call(i):
        return so.gather(ctypes.c_void_p(i.ctypes.data), ctypes.c_void_p(table.ctypes.data),
                         ctypes.c_void_p(out.ctypes.data), ws_at)
    assert call(idx) == 0
    np.testing.assert_array_equal(out, table[idx] * 2)
    assert call(np.array([0, 4, 1], np.int32)) == 3
    assert_standalone(lib.so_path, blas=False)


def test_kernels_with_heap_scratch_export_through_the_units(tmp_path, monkeypatch, capsys):
    """cumsum, and a kernel whose LLVM unit mallocs (a column sum's 80 KiB of accumulator rows:
    libc's malloc and free, unless LLVM's optimizer elides the pair), export through the LLVM
    units."""
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    x = np.linspace(-3, 3, 40, dtype=np.float32).reshape(4, 10)
    lib = native_export.export(jg.jit(lambda x: jnp.cumsum(x * 2.0, axis=1)).lower(x).graph,
                               tmp_path / "lib", "wave")
    assert "LLVM kernel units" in capsys.readouterr().err
    (got,) = run_from_c(lib, tmp_path, [x])
    np.testing.assert_allclose(got, np.cumsum(x * 2, axis=1), rtol=1e-5, atol=1e-5)
    assert_standalone(lib.so_path, blas=False)
    x = np.linspace(-3, 3, 40000, dtype=np.float32).reshape(4, 10000)
    lib = native_export.export(jg.jit(lambda x: jnp.sum(x * 2.0, axis=0)).lower(x).graph,
                               tmp_path / "lib2", "colsum")
    assert "LLVM kernel units" in capsys.readouterr().err
    (got,) = run_from_c(lib, tmp_path, [x])
    np.testing.assert_allclose(got, np.sum(x * 2, axis=0), rtol=1e-5, atol=1e-5)
    assert_standalone(lib.so_path, blas=False)


def test_a_convolution_and_its_gradient_export_through_the_units(tmp_path, monkeypatch, capsys):
    """A convolution and its gradients in a library, with a heap-scratch column sum beside them:
    the value and both gradients from C equal the jitted ones."""
    from jitgrad.nn import functional as F
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 6, 5)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    big = rng.standard_normal((4, 10000)).astype(np.float32)

    def f(x, w, big):
        y, (gx, gw) = jg.value_and_grad(lambda x, w: jnp.sum(F.conv2d(x, w, padding=1) ** 2),
                                        argnums=(0, 1))(x, w)
        return y, gx, gw, jnp.sum(big * 2.0, axis=0)
    lib = native_export.export(jg.jit(f).lower(x, w, big).graph, tmp_path / "lib", "convgrad")
    assert "LLVM kernel units" in capsys.readouterr().err
    got = run_from_c(lib, tmp_path, [x, w, big])
    for g, want in zip(got, jg.jit(f)(x, w, big)):
        np.testing.assert_allclose(g, np.asarray(want), rtol=1e-4, atol=1e-4)


@needs_blas
def test_decompositions_and_a_long_sort_export_through_the_units(tmp_path, monkeypatch, capsys):
    """LAPACK kernels (cholesky, slogdet, eigh) call OpenBLAS's LAPACK (dpotrf_, ...) and a sort
    line over 64 KiB mallocs its scratch: the library holds them, and from C gives the jitted
    values."""
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 5, 5))
    a = a @ a.transpose(0, 2, 1) + 5 * np.eye(5)
    line = rng.standard_normal((2, 10000)).astype(np.float32)

    def f(a, line):
        sign, logdet = jnp.linalg.slogdet(a)
        return (jnp.linalg.cholesky(a), sign * logdet, jnp.linalg.eigh(a)[0],
                jnp.sort(line, axis=1))
    lib = native_export.export(jg.jit(f).lower(a, line).graph, tmp_path / "lib", "decomp")
    assert "LLVM kernel units" in capsys.readouterr().err
    got = run_from_c(lib, tmp_path, [a, line])
    for g, want in zip(got, jg.jit(f)(a, line)):
        np.testing.assert_allclose(g, np.asarray(want), rtol=1e-9, atol=1e-9)
    undefined = set(native_link.undefined_symbols(lib.so_path))
    assert {"dpotrf_", "dgetrf_", "dsyevd_", "malloc", "free"} <= undefined
    assert undefined <= native_link.PORTABLE_SYMBOLS, undefined - native_link.PORTABLE_SYMBOLS
    assert any(d.startswith("libopenblas") for d in native_link.shared_deps(lib.so_path))
