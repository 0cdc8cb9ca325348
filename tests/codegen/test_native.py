"""codegen/native/link.py: an llvmlite module -> standalone libNAME.so + NAME.h, called from C; the
portability check. (Whole functions exported from jitted graphs: tests/aot/test_aot_native.py.)"""

import shutil
import subprocess

import llvmlite.binding as llvm
import numpy as np
import pytest
from llvmlite import ir

from jitgrad.codegen.native import link as native_link
from jitgrad.codegen.cpu.llvm_exprs import counted_loop

pytestmark = [
    pytest.mark.skipif(shutil.which("gcc") is None, reason="native export needs gcc"),
    pytest.mark.skipif(shutil.which("nm") is None, reason="native export needs nm (binutils)"),
    pytest.mark.skipif(shutil.which("ldd") is None, reason="native export needs ldd"),
]

C_FILL = r"""
#include <stdio.h>
#include <stdlib.h>
/* exact in float32, so NumPy can rebuild the same inputs */
static void fill(float* p, int n, int mul, int mod, float scale) {
    for (int i = 0; i < n; ++i) p[i] = (float)((i * mul) % mod - mod / 2) * scale;
}
"""
DECL = "int32_t ew_chain(const float* x, float* out, int64_t n, void* workspace)"


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


def assert_standalone(so_path):
    deps = native_link.shared_deps(so_path)
    assert not any("python" in d or "numba" in d or "llvmlite" in d for d in deps), deps
    assert any(d.startswith("libc.so") for d in deps), deps
    undefined = native_link.undefined_symbols(so_path)
    allowed = native_link.PORTABLE_SYMBOLS
    assert set(undefined) <= allowed, set(undefined) - allowed
    native_link.check_portable(so_path)
    return undefined


def ew_chain_module(name="ew_chain"):
    """out[i] = tanhf(x[i] * 1.5 + 0.3) for i < n, as an llvmlite module (parsed)."""
    f32, i64 = ir.FloatType(), ir.IntType(64)
    mod = ir.Module(name=name)
    fn = ir.Function(mod, ir.FunctionType(ir.IntType(32), [f32.as_pointer(), f32.as_pointer(), i64,
                                                           ir.IntType(8).as_pointer()]), name=name)
    tanhf = ir.Function(mod, ir.FunctionType(f32, [f32]), name="tanhf")
    x, out, n, _ = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    with counted_loop(b, n) as i:
        v = b.fadd(b.fmul(b.load(b.gep(x, [i])), ir.Constant(f32, 1.5)), ir.Constant(f32, 0.3))
        b.store(b.call(tanhf, [v]), b.gep(out, [i]))
    b.ret(ir.Constant(ir.IntType(32), 0))
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    parsed = llvm.parse_assembly(str(mod))
    parsed.triple = llvm.get_process_triple()
    parsed.verify()
    return parsed


def test_elementwise_chain_from_c(tmp_path):
    lib_dir = tmp_path / "lib"
    so, h = native_link.link_module(ew_chain_module(), "ew_chain", lib_dir, header_decl=DECL,
                                    defines={"EW_CHAIN_WORKSPACE_BYTES": 0},
                                    comment="out[i] = tanh(x[i]*1.5+0.3)")
    assert so == lib_dir / "libew_chain.so" and h == lib_dir / "ew_chain.h"
    header = h.read_text()
    assert "#define EW_CHAIN_WORKSPACE_BYTES 0" in header
    assert DECL + ";" in header
    assert "tanh(x[i]*1.5+0.3)" in header

    n = 37
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
    assert "tanhf" in assert_standalone(so)  # libm supplies the math


def test_generic_cpu_target(tmp_path):
    so, h = native_link.link_module(ew_chain_module("ew_generic"), "ew_generic", tmp_path,
                                    header_decl=DECL.replace("ew_chain", "ew_generic"),
                                    cpu="x86-64", keep_intermediates=True)
    assert "'x86-64'" in h.read_text()
    assert (tmp_path / "ew_generic.ll").exists() and (tmp_path / "ew_generic.o").exists()
    native_link.check_portable(so)


def test_heap_and_lapack_symbols_are_portable():
    assert {"malloc", "free", "dpotrf_", "sgesdd_"} <= native_link.PORTABLE_SYMBOLS


def test_check_portable_rejects_stray_symbols(tmp_path):
    src = tmp_path / "stray.c"
    src.write_text("void* NRT_Allocate(long);\nvoid* f(void) { return NRT_Allocate(8); }\n")
    so = tmp_path / "libstray.so"
    subprocess.run(["gcc", "-shared", "-fPIC", str(src), "-o", str(so)], check=True)
    assert "NRT_Allocate" in native_link.undefined_symbols(so)
    with pytest.raises(native_link.NotPortableError, match=r"NRT_Allocate[\s\S]*not in libc/libm"):
        native_link.check_portable(so)
    native_link.check_portable(so, extra_allowed={"NRT_Allocate"})


def test_bad_inputs(tmp_path, monkeypatch):
    with pytest.raises(native_link.NativeBuildError, match="C identifier"):
        native_link.link_module(ew_chain_module(), "not-a-name", tmp_path, header_decl=DECL)
    monkeypatch.setenv("CC", str(tmp_path / "no-such-gcc"))
    with pytest.raises(native_link.NativeToolMissing, match="apt-get install gcc"):
        native_link.link_module(ew_chain_module(), "ew_chain", tmp_path, header_decl=DECL)
