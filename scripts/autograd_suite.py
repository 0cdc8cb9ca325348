"""HIPS autograd's gradient tests run against jitgrad through a shim.

    python scripts/autograd_suite.py /path/to/autograd          # a checkout of HIPS/autograd
    python scripts/autograd_suite.py /path/to/autograd -v       # every failure's reason in full

The checkout is only read: its tests/ are copied to a temporary directory next to a small
`autograd` package that maps autograd's API onto jitgrad (autograd.numpy -> jitgrad.numpy,
autograd.numpy.random -> numpy.random, grad/value_and_grad -> jg.grad/jg.value_and_grad,
autograd.test_util.check_grads/combo_check -> jitgrad.test_util.check_grads, forward and reverse
mode to the order asked). Then pytest runs the scored files and the script prints passed / failed
with each failure's reason.

Scored: the real-valued gradient tests of test_numpy.py, test_systematic.py, test_scalar_ops.py
and test_binary_ops.py (but NOT_SCORED, three tests of autograd's own extensions): 296 tests.
"Real-valued": argument combinations holding a complex number are not
checked (jitgrad differentiates complex functions with JAX's convention, which autograd's
numerical check does not share); a test none of whose checks is real is not scored.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

SCORED = ("test_numpy.py", "test_systematic.py", "test_scalar_ops.py", "test_binary_ops.py")

# autograd's own extensions of NumPy, not NumPy's API: not scored (296 tests remain)
NOT_SCORED = {
    "test_numpy.py::test_numpy_version": "autograd.numpy.__version__ is NumPy's version",
    "test_numpy.py::test_make_diagonal": "np.make_diagonal is an autograd extension",
    "test_numpy.py::test_diagonal": "builds its input with np.make_diagonal",
}

SHIM = {
    "autograd/__init__.py": '''
        import numpy as _onp
        import jitgrad as _jg
        from autograd import numpy  # noqa: F401


        def _argnums(argnum):
            return tuple(argnum) if isinstance(argnum, list) else argnum


        # autograd computes in float64 throughout: JAX's x64 mode is the comparable setting
        _jg.config.update("enable_x64", True)


        def _f64(x):
            # autograd differentiates NumPy float64 values (and lists/tuples of them)
            if isinstance(x, (list, tuple)):
                return type(x)(_f64(v) for v in x)
            if isinstance(x, (float, int, _onp.ndarray, _onp.generic)) and not isinstance(x, bool):
                return _onp.asarray(x, dtype=_onp.result_type(x, _onp.float64))
            return x


        def grad(fun, argnum=0):
            g = _jg.grad(fun, argnums=_argnums(argnum))
            return lambda *args, **kw: g(*map(_f64, args), **kw) if not kw else \\
                _jg.grad(lambda *a: fun(*a, **kw), argnums=_argnums(argnum))(*map(_f64, args))


        def value_and_grad(fun, argnum=0):
            return lambda *args, **kw: _jg.value_and_grad(
                lambda *a: fun(*a, **kw), argnums=_argnums(argnum))(*map(_f64, args))


        def deriv(fun, argnum=0):
            return grad(fun, argnum)
    ''',
    "autograd/numpy/__init__.py": '''
        from jitgrad.numpy import *  # noqa: F401,F403
        import jitgrad.numpy as _jnp
        from autograd.numpy import random  # noqa: F401


        def __getattr__(name):
            # names `import *` skips (those starting with an underscore, or not in __all__)
            try:
                return getattr(_jnp, name)
            except AttributeError:
                raise AttributeError(f"jitgrad.numpy has no attribute {name!r}") from None
    ''',
    "autograd/numpy/random.py": '''
        from numpy.random import *  # noqa: F401,F403
    ''',
    "autograd/test_util.py": '''
        import itertools

        import numpy as _onp
        from jitgrad import test_util as _tu

        from autograd import _f64

        TOL = 1e-6
        RTOL = 1e-6
        # autograd's finite-difference step: its tests hold values closer than JAX's 1e-4
        # (np.min over [-0.234153, -0.234137]), where a wider step straddles the kink
        EPS = 1e-6


        COUNTS = {"real": 0, "complex": 0}    # checks made in the running test


        def scalar_close(a, b):
            return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL


        def _is_complex(x):
            if isinstance(x, (list, tuple)):
                return any(_is_complex(v) for v in x)
            return _onp.iscomplexobj(x)


        def check_grads(f, argnum=0, modes=None, order=2):
            modes = tuple(modes) if modes is not None else ("fwd", "rev")
            nums = (argnum,) if isinstance(argnum, int) else tuple(argnum)

            def run(*args, **kwargs):
                if any(_is_complex(a) for a in args):
                    COUNTS["complex"] += 1        # not checked: real-valued suite
                    return
                COUNTS["real"] += 1
                args = [_f64(a) if i in nums else a for i, a in enumerate(args)]

                def g(*xs):
                    full = list(args)
                    for i, x in zip(nums, xs):
                        full[i] = x
                    return f(*full, **kwargs)

                _tu.check_grads(g, tuple(args[i] for i in nums), order=order, modes=modes, eps=EPS)
            return run


        def combo_check(fun, *args, **kwargs):
            def _combo_check(*cargs, **ckwargs):
                kv = [[(k, x) for x in xs] for k, xs in ckwargs.items()]
                for a in itertools.product(*cargs):
                    for k in itertools.product(*kv):
                        check_grads(fun, *args, **kwargs)(*a, **dict(k))
            return _combo_check
    ''',
    "conftest_shim.py": '''
        import numpy as np
        import pytest

        from autograd.test_util import COUNTS


        @pytest.fixture(autouse=True)
        def random_seed():
            np.random.seed(42)
            COUNTS.update(real=0, complex=0)


        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(item, call):
            outcome = yield
            rep = outcome.get_result()
            # a test that checked only complex combinations is not scored
            if call.when == "call" and rep.passed and COUNTS["complex"] and not COUNTS["real"]:
                rep.outcome = "skipped"
                rep.longrepr = (str(item.path), 0, "complex-only")
    ''',
}


def write_shim(root):
    for rel, text in SHIM.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(textwrap.dedent(text).lstrip())
    # the suite's own conftest seeds NumPy; ours also turns complex-only tests into skips
    shutil.move(os.path.join(root, "conftest_shim.py"), os.path.join(root, "tests", "conftest.py"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkout", help="a directory holding HIPS/autograd's tests/")
    ap.add_argument("-v", "--verbose", action="store_true", help="print full failure reasons")
    ap.add_argument("-k", default=None, help="pytest -k expression (a subset)")
    ap.add_argument("--files", nargs="*", default=list(SCORED))
    opts = ap.parse_args(argv)
    src = os.path.join(opts.checkout, "tests")
    if not os.path.isdir(src):
        ap.error(f"{opts.checkout!r} has no tests/ directory (expected a HIPS/autograd checkout)")
    with tempfile.TemporaryDirectory(prefix="autograd_suite_") as tmp:
        shutil.copytree(src, os.path.join(tmp, "tests"))
        write_shim(tmp)
        env = dict(os.environ, PYTHONPATH=tmp + os.pathsep + os.environ.get("PYTHONPATH", ""))
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfEs",
               "--tb=line" if not opts.verbose else "--tb=short", "-W", "ignore",
               *[os.path.join("tests", f) for f in opts.files]]
        cmd += [f"--deselect=tests/{t}" for t in NOT_SCORED]
        if opts.k:
            cmd += ["-k", opts.k]
        proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    lines = out.splitlines()
    failed = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
    summary = next((ln for ln in reversed(lines) if " passed" in ln or " failed" in ln), "")
    if opts.verbose:
        print(out)
    else:
        for ln in failed:
            print(ln[:300])
    print(summary)
    print(f"not scored: {len(NOT_SCORED)} ({', '.join(NOT_SCORED)})")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
