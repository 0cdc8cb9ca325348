"""The primitives' names: one enum member per op of the IR.

Everything else about a primitive (its group, type rule, NumPy reference, derivative, batching
rule, scalar expression, cost, jitgrad.numpy and Tensor-method names) is its record in
ir/primitives/, the one place a new primitive is described.
"""
from __future__ import annotations

import enum


class Op(str, enum.Enum):
    # elementwise unary, float in -> float out
    exp = "exp"; log = "log"; log1p = "log1p"; expm1 = "expm1"; sqrt = "sqrt"; rsqrt = "rsqrt"
    sin = "sin"; cos = "cos"; tan = "tan"; tanh = "tanh"; asin = "asin"; acos = "acos"
    atan = "atan"; sinh = "sinh"; cosh = "cosh"; asinh = "asinh"; acosh = "acosh"
    atanh = "atanh"; erf = "erf"; sigmoid = "sigmoid"; floor = "floor"; ceil = "ceil"
    round = "round"
    # elementwise unary, numeric in -> same dtype out
    neg = "neg"; abs = "abs"; sign = "sign"; square = "square"
    # elementwise unary with other result dtypes
    isnan = "isnan"; isinf = "isinf"; logical_not = "logical_not"; signbit = "signbit"
    bitwise_not = "bitwise_not"
    # complex numbers: parts (complex -> float), conjugate, and (re, im) -> complex
    real = "real"; imag = "imag"; conj = "conj"; complex = "complex"  # noqa: A003
    convert = "convert"; stop_gradient = "stop_gradient"
    # elementwise binary (NumPy broadcasting, equal dtypes)
    add = "add"; sub = "sub"; mul = "mul"; div = "div"; floor_div = "floor_div"; mod = "mod"
    pow = "pow"; max = "max"; min = "min"; atan2 = "atan2"
    eq = "eq"; ne = "ne"; lt = "lt"; le = "le"; gt = "gt"; ge = "ge"
    logical_and = "logical_and"; logical_or = "logical_or"; logical_xor = "logical_xor"
    select = "select"
    bitwise_and = "bitwise_and"; bitwise_or = "bitwise_or"; bitwise_xor = "bitwise_xor"
    shift_left = "shift_left"; shift_right = "shift_right"
    # reductions and scans
    reduce_sum = "reduce_sum"; reduce_max = "reduce_max"; reduce_min = "reduce_min"
    reduce_prod = "reduce_prod"; argmax = "argmax"; argmin = "argmin"
    cumsum = "cumsum"; sort = "sort"; argsort = "argsort"
    # shapes and data movement
    reshape = "reshape"; transpose = "transpose"; broadcast_to = "broadcast_to"
    slice = "slice"; rev = "rev"; pad = "pad"; concatenate = "concatenate"
    take = "take"; scatter_add = "scatter_add"
    im2col = "im2col"; col2im = "col2im"       # a convolution's shifted runs, and their adjoint
    matmul = "matmul"
    cholesky = "cholesky"; eigh = "eigh"; svd = "svd"; qr = "qr"; solve = "solve"
    slogdet = "slogdet"
    fft = "fft"
    constant = "constant"
    # ops holding graphs as params: a fused kernel (ir/kernel.py), structured control flow
    # (ir/control_flow.py) and a user-written derivative (ir/autodiff/custom.py)
    kernel = "kernel"; cond = "cond"; switch = "switch"; while_loop = "while_loop"; scan = "scan"
    custom_vjp_call = "custom_vjp_call"
    remat = "remat"             # a sub-graph recomputed in the backward pass (ir/remat.py)

    def __str__(self):
        return self.value

    __format__ = object.__format__
