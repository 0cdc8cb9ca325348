"""Reading and running the ported programs (see README.md in this folder).

A ported file is a short header, the line ``# ---- upstream file follows ----``, then the upstream
file with some lines replaced. A replaced line keeps the upstream line's indentation and ends with
``  # PORT: was <upstream line>`` (a framework import renamed to jitgrad) or ``  # DATA: was
<upstream line>`` (a dataset download replaced by ported_data, or an epoch count shortened).
``source(name, revert=...)`` puts the upstream lines back: reverting both kinds gives the upstream
file byte for byte (its git blob id is in the header), reverting only PORT gives the same
shortened program on the original framework.
"""
import contextlib
import hashlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEPARATOR = "# ---- upstream file follows ----\n"
_MARK = re.compile(r"^(?P<indent>[ \t]*)(?P<code>.*?)  # (?P<kind>PORT|DATA): was (?P<was>.*)$")


def _read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


def header(name):
    return _read(name).split(SEPARATOR, 1)[0]


def upstream_blob(name):
    """The git blob id named in the header (``# upstream-blob: <sha1>``)."""
    return re.search(r"^# upstream-blob: ([0-9a-f]{40})$", header(name), re.M).group(1)


def changed_lines(name):
    """[(line number in the port, kind, port line, upstream line)] for every replaced line."""
    text = _read(name)
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        m = _MARK.match(line)
        if m:
            out.append((i, m["kind"], m["indent"] + m["code"], m["indent"] + m["was"]))
    return out


def source(name, revert=()):
    """The program body (after the header), with the PORT / DATA lines named in revert undone."""
    body = _read(name).split(SEPARATOR, 1)[1]
    lines = []
    for line in body.splitlines(keepends=True):
        m = _MARK.match(line.rstrip("\n"))
        if m and m["kind"] in revert:
            line = m["indent"] + m["was"] + ("\n" if line.endswith("\n") else "")
        lines.append(line)
    return "".join(lines)


def _runnable(name, revert):
    """source() with the header's lines left blank, so tracebacks name the port's line numbers."""
    head = _read(name).split(SEPARATOR, 1)[0]
    return "\n" * (head.count("\n") + 1) + source(name, revert)


def git_blob_id(text):
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@contextlib.contextmanager
def _argv_and_path(argv, name):
    old_argv, old_path = sys.argv, list(sys.path)
    sys.argv = [name] + list(argv or [])
    sys.path.insert(0, HERE)
    try:
        yield
    finally:
        sys.argv, sys.path[:] = old_argv, old_path


def run(name, original=False, argv=None, run_name="__main__", before=None):
    """Execute a ported program; return its module globals.

    original=True runs it on the framework it was written for (PORT lines reverted).
    before(globals) is called after the module body when run_name != "__main__" (so a test can
    wrap a class before calling main()).
    """
    src = _runnable(name, ("PORT",) if original else ())
    g = {"__name__": run_name, "__file__": os.path.join(HERE, name), "__builtins__": __builtins__}
    with _argv_and_path(argv, name):
        try:
            exec(compile(src, os.path.join(HERE, name), "exec"), g)
            if before is not None:
                before(g)
        except Exception as e:
            e.program_globals = g  # what the program had computed when it failed
            raise
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


def check_torch_mnist(original=False, epochs=2):
    """Run pytorch/examples mnist/main.py for `epochs` epochs of --dry-run (one training step
    each, then the 128-image test pass). Net starts from numpy_init weights, its Dropout layers
    set to p=0 (their masks come from each framework's own generator); every F.nll_loss value is
    recorded. Returns {"train": [...], "test": [...]} (mean losses; test is the summed loss over
    the test set divided by its size, as the program prints)."""
    import io
    fw = _frameworks(original)
    losses = []

    def before(g):
        net, functional = g["Net"], g["F"]
        init = net.__init__

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

        functional_nll = functional.nll_loss
        net.__init__ = seeded_init
        g["F"] = _Proxy(functional, nll_loss=nll_loss)
        g["main"]()  # what the program's `if __name__ == '__main__':` does, after the wrapping

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run("torch_mnist.py", original=original, run_name="ported_program", before=before,
            argv=["--epochs", str(epochs), "--dry-run", "--log-interval", "1", "--no-accel"])
    return losses, out.getvalue()


class _Proxy:
    """A module with some attributes replaced (the program's own module object stays as is)."""

    def __init__(self, module, **overrides):
        self.__dict__.update(_module=module, **overrides)

    def __getattr__(self, name):
        return getattr(self._module, name)


def check_torch_regression(original=False):
    """Run pytorch/examples regression/main.py to its own stop criterion (loss < 1e-3) with its
    random draws made by NumPy (randn -> np.random.RandomState(0).standard_normal, float32) and
    fc's initial weights from numpy_init, so both frameworks fit the same data. Returns (every
    smooth_l1_loss value, the number of batches, fc's final weight and bias, the error the final
    print lines raised or None)."""
    import numpy as np
    fw = _frameworks(original)
    rng = np.random.RandomState(0)
    losses = []
    functional = fw.nn.functional
    smooth_l1 = functional.smooth_l1_loss

    def randn(*size, **kw):
        size = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
        return fw.tensor(rng.standard_normal(size).astype(np.float32))

    def reset_parameters(self):
        values = numpy_init([("weight", tuple(self.weight.shape)),
                             ("bias", tuple(self.bias.shape))], seed=1)
        with fw.no_grad():
            self.weight.copy_(fw.tensor(values["weight"]))
            self.bias.copy_(fw.tensor(values["bias"]))

    def smooth_l1_loss(*a, **k):
        out = smooth_l1(*a, **k)
        losses.append(float(out.item()))
        return out

    g, error = {}, None
    with patched((fw, "randn", randn), (fw.nn.Linear, "reset_parameters", reset_parameters),
                 (functional, "smooth_l1_loss", smooth_l1_loss)):
        import io
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                g = run("torch_regression.py", original=original)
        except Exception as e:  # noqa: BLE001 -- reported to the test, which names what failed
            error, g = e, e.program_globals
    fc = g.get("fc")
    return losses, len(losses), fc, error


def check_jax_mnist(name, original=False):
    """Run a jax-ml/jax MNIST example (2 epochs of 2 batches on ported_data's 256 images);
    return (loss on the training set, test accuracy, the final parameters as NumPy arrays)."""
    import io

    import numpy as np
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        g = run(name, original=original)
    params = g["params"]
    if original:
        import jax
        leaves = jax.tree_util.tree_leaves(params)
    else:
        import jitgrad
        leaves = jitgrad.tree_util.tree_leaves(params)
    loss = float(g["loss"](params, (g["train_images"], g["train_labels"])))
    acc = float(g["accuracy"](params, (g["test_images"], g["test_labels"])))
    return loss, acc, [np.asarray(leaf) for leaf in leaves]


def check_jax_mnist_vae(original=False):
    """Run jax-ml/jax examples/mnist_vae.py (2 epochs of 8 batches on ported_data's images,
    lax.fori_loop over batches, random.bernoulli binarization, stax FanOut/parallel); its image
    grids go to a temporary TMPDIR. Returns (the last epoch's test ELBO, the final parameters as
    NumPy arrays, the number of lit pixels in the last sampled grid)."""
    import io
    import tempfile

    import numpy as np
    os.environ.setdefault("MPLBACKEND", "Agg")
    out = io.StringIO()
    old_tmp = os.environ.get("TMPDIR")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TMPDIR"] = tmp + os.sep
        try:
            with contextlib.redirect_stdout(out):
                g = run("jax_mnist_vae.py", original=original)
        finally:
            if old_tmp is None:
                del os.environ["TMPDIR"]
            else:
                os.environ["TMPDIR"] = old_tmp
    if original:
        import jax
        leaves = jax.tree_util.tree_leaves(g["get_params"](g["opt_state"]))
    else:
        import jitgrad
        leaves = jitgrad.tree_util.tree_leaves(g["get_params"](g["opt_state"]))
    elbo, images = g["evaluate"](g["opt_state"], g["test_images"])
    return float(elbo), [np.asarray(leaf) for leaf in leaves], int(np.asarray(images).sum())


def check_torch_vae(original=False, epochs=1):
    """Run pytorch/examples vae/main.py for `epochs` epochs (2 training batches of 128, one test
    batch) with every random draw made by NumPy: randperm (the DataLoader's shuffle), randn_like
    (the reparameterization), randn (the samples), and each nn.Linear's initial weights from
    numpy_init. Returns every F.binary_cross_entropy value (reduction='sum') in order and the
    program's printed lines."""
    import io

    import numpy as np
    fw = _frameworks(original)
    rng = np.random.RandomState(0)
    functional = fw.nn.functional
    bce, losses, count = functional.binary_cross_entropy, [], [0]

    def randperm(n, *a, **k):  # the same shuffle every epoch: torch's RandomSampler draws one
        # more permutation after each epoch's last batch, jitgrad's does not
        return fw.tensor(np.random.RandomState(1).permutation(n).astype(np.int64))

    def randn(*size, **kw):
        size = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
        return fw.tensor(rng.standard_normal(size).astype(np.float32))

    def randn_like(x, **kw):
        return randn(tuple(x.shape))

    def reset_parameters(self):
        count[0] += 1
        values = numpy_init([("weight", tuple(self.weight.shape)),
                             ("bias", tuple(self.bias.shape))], seed=100 + count[0])
        with fw.no_grad():
            self.weight.copy_(fw.tensor(values["weight"]))
            self.bias.copy_(fw.tensor(values["bias"]))

    def binary_cross_entropy(*a, **k):
        out = bce(*a, **k)
        losses.append(float(out.item()))
        return out

    out = io.StringIO()
    with patched((fw, "randperm", randperm), (fw, "randn", randn), (fw, "randn_like", randn_like),
                 (fw.nn.Linear, "reset_parameters", reset_parameters),
                 (functional, "binary_cross_entropy", binary_cross_entropy)):
        with contextlib.redirect_stdout(out):
            run("torch_vae.py", original=original, argv=["--epochs", str(epochs), "--no-accel"])
    return losses, out.getvalue()
