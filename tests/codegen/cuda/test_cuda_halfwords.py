"""The CUDA kernels' half-float converts (codegen/cuda/halfwords.py) on the CPU: their LLVM IR,
which a GPU runs, is compiled for this machine and checked bit for bit against the simulator's
versions, and both against the CPU units' converts (LLVM's `half`, x86's vcvtps2ph), NumPy and
ml_dtypes: every float16 and bfloat16 word, float32's specials, the ties and the edges of every
range, and random bits."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
from llvmlite import binding as llvm, ir

from jitgrad.codegen.kernel import float_bits

pytest.importorskip("numba_cuda", reason="numba-cuda not installed (the cuda extra)")
from jitgrad.codegen.cuda import halfwords as hw  # noqa: E402

F32, F64, I16 = ir.FloatType(), ir.DoubleType(), ir.IntType(16)


@pytest.fixture(scope="module")
def compiled():
    """name -> a ctypes function running one builder of halfwords (or LLVM's own conversion)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = ir.Module("halfwords")
    module.triple = llvm.get_process_triple()
    specs = {"f32_to_f16": (F32, I16, hw.ir_f32_to_f16),
             "f16_to_f32": (I16, F32, hw.ir_f16_to_f32),
             "f32_to_bf16": (F32, I16, float_bits.f32_to_bf16),
             "bf16_to_f32": (I16, F32, float_bits.bf16_to_f32),
             "f64_to_f32_odd": (F64, F32, hw.ir_f64_to_f32_odd),
             "llvm_f32_to_f16": (F32, I16, lambda b, x: b.bitcast(b.fptrunc(x, ir.HalfType()), I16))}
    i32 = ir.IntType(32)
    for name, (arg, res, build) in specs.items():
        # a float32 result comes back as its bits: ctypes' float -> Python float quiets NaNs
        fn = ir.Function(module, ir.FunctionType(i32 if res == F32 else res, [arg]), name)
        b = ir.IRBuilder(fn.append_basic_block())
        r = build(b, fn.args[0])
        b.ret(b.bitcast(r, i32) if res == F32 else r)
    tm = llvm.Target.from_default_triple().create_target_machine()
    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    engine = llvm.create_mcjit_compiler(parsed, tm)
    engine.finalize_object()
    ctype = {F32: ctypes.c_float, F64: ctypes.c_double, I16: ctypes.c_uint16,
             "bits": ctypes.c_uint32}
    out = {name: ctypes.CFUNCTYPE(ctype["bits" if res == F32 else res], ctype[arg])(
           engine.get_function_address(name))
           for name, (arg, res, _) in specs.items()}
    out["engine"] = engine          # kept alive with the functions
    return out


def _f32_samples():
    rng = np.random.default_rng(0)
    words = np.arange(1 << 16, dtype=np.uint32)
    exact = (words << 13) | ((words & 0x8000) << 16)       # float16-ish bit patterns moved up
    edges = np.array([0x7F800000, 0x7F800001, 0x7FC00000, 0x7FFFFFFF, 0x7FA00000, 0x477FEFFF,
                      0x477FF000, 0x477FE000, 0x38800000, 0x387FFFFF, 0x33000000, 0x33000001,
                      0x32FFFFFF, 0x00000001, 0x00800000, 0x3F800000, 0x7F7FFFFF], np.uint32)
    ties = np.concatenate([exact + d for d in (0xFFF, 0x1000, 0x1001, 0x2FFF, 0x3000)])
    bits = np.concatenate([edges, edges | 0x80000000, exact, ties,
                           rng.integers(0, 1 << 32, 20000, dtype=np.uint64).astype(np.uint32)])
    return bits.view(np.float32)


def _words(values, fn):
    return np.array([int(fn(v)) for v in values], np.uint16)


def test_float32_to_float16_matches_the_cpu_units_and_numpy(compiled):
    xs = _f32_samples()
    ir_words = _words(xs, compiled["f32_to_f16"])
    np.testing.assert_array_equal(ir_words, _words(xs, hw.sim_f32_to_f16))
    np.testing.assert_array_equal(ir_words, _words(xs, compiled["llvm_f32_to_f16"]))
    finite = ~np.isnan(xs)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(ir_words[finite], xs[finite].astype(np.float16).view(np.uint16))


def test_float16_words_to_float32_exactly(compiled):
    words = np.arange(1 << 16, dtype=np.uint16)
    ir_bits = np.array([compiled["f16_to_f32"](int(w)) for w in words], np.uint32)
    sim = np.array([hw.sim_f16_to_f32(w) for w in words], np.float32).view(np.uint32)
    np.testing.assert_array_equal(ir_bits, sim)
    np.testing.assert_array_equal(ir_bits, words.view(np.float16).astype(np.float32).view(np.uint32))


def test_bfloat16_both_ways_match_ml_dtypes(compiled):
    xs = _f32_samples()
    ir_words = _words(xs, compiled["f32_to_bf16"])
    np.testing.assert_array_equal(ir_words, _words(xs, hw.sim_f32_to_bf16))
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(ir_words, xs.astype(ml_dtypes.bfloat16).view(np.uint16))
    words = np.arange(1 << 16, dtype=np.uint16)
    back = np.array([compiled["bf16_to_f32"](int(w)) for w in words], np.uint32)
    np.testing.assert_array_equal(back, np.array([hw.sim_bf16_to_f32(w) for w in words],
                                                 np.float32).view(np.uint32))
    np.testing.assert_array_equal(back, words.view(ml_dtypes.bfloat16).astype(np.float32)
                                  .view(np.uint32))


def test_float64_to_float16_rounds_once_as_numpy(compiled):
    rng = np.random.default_rng(1)
    halves = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float64)
    halves = halves[np.isfinite(halves)]
    mids = np.concatenate([(halves[:-1] + halves[1:]) / 2, np.nextafter(halves, np.inf)])
    xs = np.concatenate([mids, rng.standard_normal(20000) * 1e3, [0.0, -0.0, np.inf, -np.inf,
                                                                  1e300, -1e300, 5e-324]])
    xs = xs[np.isfinite(xs) | np.isinf(xs)]
    ir_f32 = np.array([compiled["f64_to_f32_odd"](x) for x in xs], np.uint32).view(np.float32)
    sim_f32 = np.array([hw.sim_f64_to_f32_odd(x) for x in xs], np.float32)
    np.testing.assert_array_equal(ir_f32.view(np.uint32), sim_f32.view(np.uint32))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(_words(ir_f32, hw.sim_f32_to_f16),
                                      xs.astype(np.float16).view(np.uint16))
