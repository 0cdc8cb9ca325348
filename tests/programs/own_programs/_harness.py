"""Running the programs in this folder (see README.md here) on either framework.

Each program is written here for the framework it imports (``import torch``, ``from jax import
grad``, ...). ``source(name)`` gives its text unchanged; ``source(name, jitgrad=True)`` the same
text with only its framework imports renamed to jitgrad's (``import torch`` -> ``import jitgrad as
torch``, ``import torch.nn as nn`` -> ``import jitgrad.nn as nn``, ``from jax.example_libraries
import stax`` -> ``from jitgrad.example_libraries import stax``). Every other line is run as
written; ``renamed_lines`` lists what the renaming changed, and the tests check it touches import
lines only. A program defines ``main()``, which returns what it computed; the checks below run the
module body, instrument it from outside where the two frameworks' random draws differ, and call
``main()``.
"""
import contextlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = ["jax_mlp_fromscratch.py", "jax_stax_classifier.py", "jax_stax_vae.py",
            "torch_mnist_cnn.py", "torch_poly_regression.py", "torch_vae.py"]

_FRAMEWORK = r"(?P<fw>torch|jax)"
_RULES = [
    (re.compile(r"^import " + _FRAMEWORK + r"$"), "import jitgrad as {fw}"),
    (re.compile(r"^import " + _FRAMEWORK + r"(?P<sub>(\.\w+)+) as (?P<alias>\w+)$"),
     "import jitgrad{sub} as {alias}"),
    (re.compile(r"^from " + _FRAMEWORK + r"(?P<sub>(\.\w+)*) import (?P<names>.+)$"),
     "from jitgrad{sub} import {names}"),
]


def _read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


def _rename(line):
    for pattern, replacement in _RULES:
        m = pattern.match(line)
        if m:
            return replacement.format(**{k: v or "" for k, v in m.groupdict().items()})
    return line


def renamed_lines(name):
    """[(line number, the program's line, the line run on jitgrad)] for every line renamed."""
    return [(i, line, _rename(line)) for i, line in enumerate(_read(name).splitlines(), 1)
            if _rename(line) != line]


def source(name, jitgrad=False):
    text = _read(name)
    if not jitgrad:
        return text
    return "".join(_rename(line.rstrip("\n")) + ("\n" if line.endswith("\n") else "")
                   for line in text.splitlines(keepends=True))


@contextlib.contextmanager
def _path():
    old_path = list(sys.path)
    sys.path.insert(0, HERE)
    try:
        yield
    finally:
        sys.path[:] = old_path


def run(name, original=False, before=None):
    """Execute a program's module body (not its ``__main__`` block) on jitgrad, or on the
    framework it imports when original=True; call before(globals) if given; return the globals."""
    g = {"__name__": "own_program", "__file__": os.path.join(HERE, name),
         "__builtins__": __builtins__}
    with _path():
        exec(compile(source(name, jitgrad=not original), os.path.join(HERE, name), "exec"), g)
        if before is not None:
            before(g)
    return g


# ---- instrumentation shared by the checks (never edits a program's text) ----

@contextlib.contextmanager
def patched(*triples):
    """Set (object, attribute, value) for the duration; restore after."""
    saved = [(obj, attr, getattr(obj, attr)) for obj, attr, _ in triples]
    try:
        for obj, attr, value in triples:
            setattr(obj, attr, value)
        yield
    finally:
        for obj, attr, value in reversed(saved):
            setattr(obj, attr, value)


def numpy_init(shapes, seed=0):
    """Framework-free initial weights: name -> float32 array, uniform +-1/sqrt(fan_in)."""
    import numpy as np
    rng = np.random.RandomState(seed)
    out = {}
    for name, shape in shapes:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 100
        bound = 1.0 / np.sqrt(fan_in)
        out[name] = rng.uniform(-bound, bound, size=shape).astype(np.float32)
    return out


def _frameworks(original):
    if original:
        import torch
        return torch
    import jitgrad
    return jitgrad


def _load_numpy_state(fw, module, seed):
    import numpy as np
    state = module.state_dict()
    values = numpy_init([(k, tuple(v.shape)) for k, v in state.items()], seed)
    module.load_state_dict({k: fw.tensor(np.asarray(v)) for k, v in values.items()})


class _Proxy:
    """A module with some attributes replaced (the program's own module object stays as is)."""

    def __init__(self, module, **overrides):
        self.__dict__.update(_module=module, **overrides)

    def __getattr__(self, name):
        return getattr(self._module, name)


def _leaves(params, original):
    import numpy as np
    if original:
        import jax
        leaves = jax.tree_util.tree_leaves(params)
    else:
        import jitgrad
        leaves = jitgrad.tree_util.tree_leaves(params)
    return [np.asarray(leaf) for leaf in leaves]


def check_jax_classifier(name, original=False):
    """Run jax_mlp_fromscratch.py or jax_stax_classifier.py (2 epochs of 4 batches of 64 on
    synthetic_data's 256 images); return (training-set loss, test accuracy, the final parameter
    leaves as NumPy arrays)."""
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        out = run(name, original=original)["main"]()
    return out["loss"], out["accuracy"], _leaves(out["params"], original)


def check_jax_vae(original=False):
    """Run jax_stax_vae.py (2 epochs of 8 batches of 32, one jitted fori_loop per epoch); return
    (the last test ELBO, the final parameter leaves, the number of lit pixels in the last sampled
    grid)."""
    import io

    import numpy as np
    with contextlib.redirect_stdout(io.StringIO()):
        out = run("jax_stax_vae.py", original=original)["main"]()
    return out["elbo"], _leaves(out["params"], original), int(np.asarray(out["grid"]).sum())


def check_torch_mnist_cnn(original=False, epochs=2):
    """Run torch_mnist_cnn.py for `epochs` epochs (2 training batches of 32 each, then the
    128-image test pass). DigitNet starts from numpy_init weights with its Dropout layers set to
    p=0 (their masks come from each framework's own generator); every F.nll_loss value is
    recorded. Returns ([(reduction, value)], main()'s [(mean test loss, correct)], printed)."""
    import io
    fw = _frameworks(original)
    losses, results = [], []

    def before(g):
        net, functional = g["DigitNet"], g["F"]
        init, functional_nll = net.__init__, functional.nll_loss

        def seeded_init(self, *a, **k):
            init(self, *a, **k)
            _load_numpy_state(fw, self, seed=0)
            for m in self.modules():
                if isinstance(m, fw.nn.Dropout):
                    m.p = 0.0

        def nll_loss(*a, **k):
            out = functional_nll(*a, **k)
            losses.append((k.get("reduction", "mean"), float(out.item())))
            return out

        net.__init__ = seeded_init
        g["F"] = _Proxy(functional, nll_loss=nll_loss)
        results.extend(g["main"](["--epochs", str(epochs)]))

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run("torch_mnist_cnn.py", original=original, before=before)
    return losses, results, out.getvalue()


def _numpy_randn(fw, rng):
    import numpy as np

    def randn(*size, **kw):
        size = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
        return fw.tensor(rng.standard_normal(size).astype(np.float32))
    return randn


def _numpy_linear_init(fw, first_seed):
    count = [0]

    def reset_parameters(self):
        count[0] += 1
        values = numpy_init([("weight", tuple(self.weight.shape)),
                             ("bias", tuple(self.bias.shape))], seed=first_seed + count[0])
        with fw.no_grad():
            self.weight.copy_(fw.tensor(values["weight"]))
            self.bias.copy_(fw.tensor(values["bias"]))
    return reset_parameters


def check_torch_poly_regression(original=False):
    """Run torch_poly_regression.py to its stop criterion with its random draws made by NumPy
    (randn -> np.random.RandomState(0).standard_normal, float32) and the Linear layer's initial
    weights from numpy_init, so both frameworks fit the same data. Returns (every loss, the
    model's final weight and bias as NumPy arrays, printed)."""
    import io

    import numpy as np
    fw = _frameworks(original)
    rng = np.random.RandomState(0)
    out = io.StringIO()
    with patched((fw, "randn", _numpy_randn(fw, rng)),
                 (fw.nn.Linear, "reset_parameters", _numpy_linear_init(fw, 0))):
        with contextlib.redirect_stdout(out):
            model, losses = run("torch_poly_regression.py", original=original)["main"]()
    return (losses, np.array(model.weight.detach().tolist()),
            np.array(model.bias.detach().tolist()), out.getvalue())


def check_torch_vae(original=False, epochs=2):
    """Run torch_vae.py for `epochs` epochs (2 shuffled training batches of 128, one test
    batch) with every random draw made by NumPy: randperm (the DataLoader's shuffle), randn_like
    (the reparameterization), randn (the samples), and each nn.Linear's initial weights from
    numpy_init. Returns every F.binary_cross_entropy value (reduction='sum') in order and the
    program's printed lines."""
    import io

    import numpy as np
    fw = _frameworks(original)
    rng = np.random.RandomState(0)
    functional = fw.nn.functional
    bce, losses = functional.binary_cross_entropy, []
    randn = _numpy_randn(fw, rng)

    def randperm(n, *a, **k):  # the same shuffle every epoch: torch's RandomSampler draws one
        # more permutation after each epoch's last batch, jitgrad's does not
        return fw.tensor(np.random.RandomState(1).permutation(n).astype(np.int64))

    def randn_like(x, **kw):
        return randn(tuple(x.shape))

    def binary_cross_entropy(*a, **k):
        out = bce(*a, **k)
        losses.append(float(out.item()))
        return out

    out = io.StringIO()
    with patched((fw, "randperm", randperm), (fw, "randn", randn), (fw, "randn_like", randn_like),
                 (fw.nn.Linear, "reset_parameters", _numpy_linear_init(fw, 100)),
                 (functional, "binary_cross_entropy", binary_cross_entropy)):
        with contextlib.redirect_stdout(out):
            run("torch_vae.py", original=original)["main"](["--epochs", str(epochs)])
    return losses, out.getvalue()
