"""jitgrad's own GEMM functions (codegen/cpu/llvm_small_gemm.py) against the OpenBLAS jitgrad
calls otherwise, one call at a time on one core: `python -m benchmarks.small_gemm [--calls N]`.

Both are called through ctypes with their arguments prepared once (the same ~0.7 us of call
overhead in each), taking turns call by call (this VM's speed drifts within seconds); medians
of N calls, us and GFLOP/s. The shapes are the models' products; each runs the form
`llvm_small_gemm.use_for` picks on this machine (the broadcast or dot form where it picks
BLAS), named in the last column."""
from __future__ import annotations

import argparse
import ctypes
import time

import llvmlite.binding as llvm
import numpy as np

from jitgrad.codegen.cpu import llvm_jit, llvm_small_gemm

# (label, M, K, N, B stored transposed)
SHAPES = [("LSTM step [16,128] @ [128,512]", 16, 128, 512, False),
          ("MLP forward [256,784] @ W[512,784].T", 256, 784, 512, True),
          ("MLP input grad [256,512] @ [512,784]", 256, 512, 784, False),
          ("GPT fc [512,128] @ W[512,128].T", 512, 128, 512, True),
          ("GPT out [512,512] @ W[128,512].T", 512, 512, 128, True),
          ("conv [16,144] @ [144,1088]", 16, 144, 1088, False),
          ("conv weight grad [16,1088] @ [1088,144]", 16, 1088, 144, True),
          ("LSTM backward [16,512] @ W[128,512].T", 16, 512, 128, True),
          ("MLP block [128,512] @ [512,784]", 128, 512, 784, False),
          ("MLP block [128,784] @ W[512,784].T", 128, 784, 512, True),
          ("GPT up projection [256,128] @ [128,512]", 256, 128, 512, False),
          ("GPT down projection [256,512] @ [512,128]", 256, 512, 128, False)]


def _median_us(calls_, calls):
    """Median us of each call, the calls taking turns."""
    times = [[] for _ in calls_]
    for i in range(calls + 5):
        for call, ts in zip(calls_, times):
            t0 = time.perf_counter()
            call()
            if i >= 5:
                ts.append(time.perf_counter() - t0)
    return [float(np.median(ts)) * 1e6 for ts in times]


def _blas_call(M, K, N, tb, a, b, c):
    name, bits = llvm_jit.blas_symbol("sgemm")
    address = llvm.address_of_symbol(name)      # registered by blas_symbol
    I = ctypes.c_int32 if bits == 32 else ctypes.c_int64
    f = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 13)(address)
    # row-major C = A B is column-major C^T = B^T A^T: gemm(B, A) with N and M swapped
    cells = [ctypes.c_char(b"T" if tb else b"N"), ctypes.c_char(b"N"), I(N), I(M), I(K),
             ctypes.c_float(1.0), None, I(K if tb else N), None, I(K), ctypes.c_float(0.0), None,
             I(N)]
    args = [None if x is None else ctypes.addressof(x) for x in cells]
    args[6], args[8], args[11] = b.ctypes.data, a.ctypes.data, c.ctypes.data

    def call():
        f(*args)
    call.cells = cells      # the argument cells live as long as the call
    return call


def _form(M, K, N, tb):
    return llvm_small_gemm.use_for(M, N, K, False, tb, np.float32) or ("dot" if tb else "bcast")


def _small_call(M, K, N, tb, a, b, c):
    """The function through ctypes, its parameters as llvm_small_gemm.PARAMS lists them."""
    form = _form(M, K, N, tb)
    ctype = {"i": ctypes.c_int64, "p": ctypes.c_void_p, "ld": ctypes.c_int64}
    params = llvm_small_gemm.PARAMS[form.split("_")[0]]
    f = ctypes.CFUNCTYPE(None, *[ctype[k] for _, k in params])(
        llvm_small_gemm.address(form, "float32"))
    value = {"M": M, "N": N, "K": K, "A": a.ctypes.data, "sai": K, "sap": 1, "lda": K,
             "B": b.ctypes.data, "ldb": K if tb else N, "C": c.ctypes.data, "ldc": N}
    args = [ctype[k](value[n]) for n, k in params]
    return lambda: f(*args)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.small_gemm")
    p.add_argument("--calls", type=int, default=300)
    calls = p.parse_args(argv).calls
    rng = np.random.default_rng(0)
    print("| product | OpenBLAS us (GFLOP/s) | jitgrad us (GFLOP/s) | form |\n|---|---:|---:|---|")
    for label, M, K, N, tb in SHAPES:
        a = rng.standard_normal((M, K)).astype(np.float32)
        b = rng.standard_normal((N, K) if tb else (K, N)).astype(np.float32)
        c1, c2 = np.empty((M, N), np.float32), np.empty((M, N), np.float32)
        blas, small = _blas_call(M, K, N, tb, a, b, c1), _small_call(M, K, N, tb, a, b, c2)
        blas(), small()
        np.testing.assert_allclose(c2, c1, rtol=1e-4, atol=1e-3 * np.sqrt(K))
        t1, t2 = _median_us([blas, small], calls)
        flops = 2 * M * N * K / 1e3
        print(f"| {label} | {t1:.1f} ({flops / t1:.0f}) | {t2:.1f} ({flops / t2:.0f}) |"
              f" {_form(M, K, N, tb)} |")


if __name__ == "__main__":
    main()
