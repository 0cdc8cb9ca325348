"""The fallbacks that exist by design (README "Fallbacks"): each is chosen by a check made before
any code is written, logged at JITGRAD_DEBUG=1, and computes what NumPy computes; an op no path
covers is an UnsupportedOpError naming the op, the backend and the user's line. No module of
ir/, codegen/, runtime/ or jitgrad/ catches NotImplementedError to choose a path.
(The CUDA op-by-op fallback runs under the simulator in tests/cuda_sim/test_cuda_fallbacks.py.)"""
import ast
import pathlib

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.cpu import units as cpu_units, llvm_kernels
from jitgrad.codegen.cuda import kernel_coverage as cuda_coverage, fused as cuda_fused
from jitgrad.codegen.native import export as native_export
from jitgrad.compilation.compile_graph import optimize
from jitgrad.ir.kernel import kernel_nodes
from jitgrad.ir.ops import Op

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = r"test_fallbacks\.py:\d+"


def _kernels(fn, *args):
    optimized, schedule, _ = optimize(jg.jit(fn).lower(*args).graph)
    return kernel_nodes(optimized, schedule)


def _caught(tree):
    """Names of the exception types each `except` of the module names."""
    for h in ast.walk(tree):
        if isinstance(h, ast.ExceptHandler) and h.type is not None:
            types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
            yield from (ast.unparse(t).rsplit(".", 1)[-1] for t in types)


@pytest.mark.parametrize("where", ["ir", "codegen", "runtime", "jitgrad"])
def test_no_module_chooses_a_path_by_catching_not_implemented_error(where):
    files = sorted((ROOT / where).rglob("*.py"))
    assert files
    found = [f"{f.relative_to(ROOT)} catches {name}" for f in files
             for name in _caught(ast.parse(f.read_text()))
             if name in ("NotImplementedError", "UnsupportedOpError", "MissingRuleError")]
    assert found == []


def test_a_kernel_the_llvm_units_do_not_cover_is_an_internal_error(monkeypatch, capsys):
    """No numba fallback for CPU kernels (issue 26): cumsum is an LLVM unit, and a kernel
    llvm_kernels.why_not refused would be an internal error naming the kernel and the reason."""
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    cpu_units.forget()
    x = np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6)
    got = jg.jit(lambda x: jnp.cumsum(x * 3.0, axis=1))(x)
    np.testing.assert_allclose(got.numpy(), np.cumsum(x * 3, axis=1), rtol=1e-5, atol=1e-6)
    assert "numba" not in capsys.readouterr().err
    cpu_units.forget()
    # a fault no real kernel has, injected through the units' public coverage check
    monkeypatch.setattr(llvm_kernels, "why_not", lambda node, hint=None: "a made-up gap")
    with pytest.raises(AssertionError, match=r"internal error: the LLVM units do not build this "
                                             r"(opaque|elementwise) kernel \(a made-up gap\)"):
        jg.jit(lambda x: jnp.cumsum(x * 3.0, axis=1))(x)
    cpu_units.forget()


def test_an_op_without_a_cpu_kernel_runs_on_the_host(monkeypatch, capsys):
    """cpu.py: random, complex values and ops no CPU kernel implements (fft) run with the NumPy
    reference between the compiled kernels; control flow compiles (codegen/cpu/loops.py)."""
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    got = jg.jit(lambda x: jnp.fft.fft(x * 2.0))(x)
    np.testing.assert_allclose(got.numpy(), np.fft.fft(x * 2), rtol=1e-5, atol=1e-5)
    assert "cpu backend: fft (complex values) runs on the host" in capsys.readouterr().err
    got = jg.jit(lambda x: jg.while_loop(lambda x: jnp.sum(x) < 100.0, lambda x: x * 2.0 + 1.0,
                                         x))(x)
    want = x
    while want.sum() < 100:
        want = want * 2 + 1
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    assert "cpu backend: while_loop compiled" in capsys.readouterr().err   # no longer a host op


def test_native_export_of_a_host_op_names_op_backend_and_line(tmp_path):
    """fft has complex values: the first op holding one (the conversion to complex, an LLVM
    unit in the JIT) is named, with the reason and the line; fft on a complex input is named as
    the op the JIT runs on the host."""
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    graph = jg.jit(lambda x: jnp.fft.fft(x)).lower(x).graph
    with pytest.raises(native_export.NativeExportError,
                       match=rf"cannot export .*: convert is not supported by the native backend: "
                             rf"complex values .*\(at .*{HERE}\)"):
        native_export.export(graph, tmp_path, "spectrum")
    z = (x + 1j * x).astype(np.complex64)
    graph = jg.jit(lambda z: jnp.fft.fft(z)).lower(z).graph
    with pytest.raises(native_export.NativeExportError,
                       match=rf"cannot export .*: fft is not supported by the native backend: the "
                             rf"JIT runs it on the host \(NumPy\), which a library has not "
                             rf"\(at .*{HERE}\)"):
        native_export.export(graph, tmp_path, "spectrum2")


# ----------------------------------------------------------------------------- CUDA, no device

def _why(fn, *args):
    return [cuda_coverage.why_not(n) for n in _kernels(fn, *args)
            if n.params["kind"] in cuda_fused.GENERATORS]


@pytest.mark.parametrize("fn, args, reason", [
    (lambda x: jnp.argmax(x * 2.0, axis=1), [np.ones((4, 6), np.float32)],
     "argmax runs as an eager kernel"),
    (lambda a, b: a @ b + 1, [np.ones((4, 6), np.int32), np.ones((6, 3), np.int32)],
     "int32 matmul runs as an eager kernel"),
    (lambda x: (jnp.exp(x), jnp.sum(jnp.exp(x), axis=0)), [np.ones((4, 6), np.float32)],
     "a reduce kernel output computed before its reductions"),
])
def test_cuda_runs_a_fused_kernel_its_generators_do_not_cover_op_by_op(fn, args, reason):
    assert reason in _why(fn, *args)


def test_the_benchmark_kernels_are_covered_by_the_cuda_generators():
    x, w = np.ones((8, 32), np.float32), np.ones((32, 16), np.float32)
    fns = [lambda x, w: jg.nn.functional.relu(x @ w + 1.0),
           lambda x, w: jg.nn.functional.softmax(x, axis=-1),
           lambda x, w: jnp.sum(x * x, axis=0),
           lambda x, w: (x - jnp.mean(x, axis=-1, keepdims=True)) / jnp.std(x, axis=-1,
                                                                             keepdims=True)]
    for fn in fns:
        assert _why(fn, x, w) and set(_why(fn, x, w)) == {None}


def test_a_kernel_the_cuda_check_passes_always_generates():
    """What the check passes, the generators write (their source, no device needed); what it
    refuses runs op by op. Over the differential fuzzer's programs."""
    from tests.support import fuzz_programs as fp
    refused = 0
    for seed in range(12):
        fn, xs = fp._task(fp.program(seed), "combined")
        for n in _kernels(fn, *xs):
            kind = n.params["kind"]
            if kind in cuda_fused.GENERATORS and cuda_coverage.why_not(n) is None:
                assert cuda_fused.GENERATORS[kind]("k", n).source.text
            refused += kind in cuda_fused.GENERATORS and cuda_coverage.why_not(n) is not None
    assert refused       # the programs do reach the fallback


def test_an_op_no_cuda_kernel_implements_is_named():
    assert cuda_coverage.op_why_not(Op.while_loop) == "no CUDA kernel implements it"
    assert cuda_coverage.op_why_not(Op.sort) is None and cuda_coverage.op_why_not(Op.exp) is None
