"""Every public name of jitgrad's namespaces has a docstring that says what it does (and, in the
root namespace, which PyTorch / JAX / NumPy name it mirrors), and is rendered by the API
reference; every other public attribute is a module, an implementation import listed in
docs/hooks.py HELPERS, or a constant / dtype / namespace object listed in ALLOWED with the reason.
The names are docs/hooks.py's `public_names`, the list the reference pages render. Also: the
generated regions of the docs (the naming table, the CLI reference) are current."""
import importlib
import importlib.util
import inspect
import pathlib
import re
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("jitgrad_docs_hooks", ROOT / "docs" / "hooks.py")
hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hooks)

# the library each namespace mirrors (its module docstring says so): a name there means what the
# same name means in that library, so its docstring need not repeat it
MIRRORS = {
    "jitgrad.numpy": "numpy / jax.numpy", "jitgrad.numpy.linalg": "numpy.linalg",
    "jitgrad.numpy.fft": "numpy.fft", "jitgrad.nn": "torch.nn", "jitgrad.nn.init": "torch.nn.init",
    "jitgrad.nn.utils": "torch.nn.utils", "jitgrad.nn.functional": "torch.nn.functional",
    "jitgrad.optim": "torch.optim", "jitgrad.optim.lr_scheduler": "torch.optim.lr_scheduler",
    "jitgrad.lax": "jax.lax", "jitgrad.random": "jax.random",
    "jitgrad.scipy.special": "jax.scipy.special", "jitgrad.scipy.linalg": "jax.scipy.linalg",
    "jitgrad.scipy.stats": "jax.scipy.stats",
    "jitgrad.example_libraries.optimizers": "jax.example_libraries.optimizers",
    "jitgrad.example_libraries.stax": "jax.example_libraries.stax",
    "jitgrad.tree_util": "jax.tree_util", "jitgrad.profiler": "torch.profiler",
    "jitgrad.autograd": "torch.autograd", "jitgrad.autograd.functional": "torch.autograd.functional",
    "jitgrad.linalg": "torch.linalg",
    "jitgrad.utils.data": "torch.utils.data", "jitgrad.utils.tensorboard": "torch.utils.tensorboard",
    "jitgrad.errors": None,
}
_LIBRARY = re.compile(r"torch|PyTorch|NumPy|numpy|np\.|jax|JAX|jnp|lax|scipy|SciPy|Array API|"
                      r"array API|Python")
# root names with no counterpart in PyTorch, JAX or NumPy
JITGRAD_ONLY = {"ArtifactError", "ConcretizationError", "DeviceMismatchError", "load",
                "make_graph", "ShapeError"}
# root names whose docstring does not yet name the counterpart: the counterpart, as data
ROOT_COUNTERPARTS = {
    "asarray": "torch.asarray", "checkpoint": "jax.checkpoint", "cond": "jax.lax.cond",
    "device": "torch.device", "dropout": "torch.dropout", "imag": "torch.imag",
    "jacfwd": "jax.jacfwd", "jacrev": "jax.jacrev", "jacobian": "jax.jacobian", "jvp": "jax.jvp",
    "layer_norm": "torch.layer_norm", "no_grad": "torch.no_grad", "real": "torch.real",
    "remat": "jax.remat", "scan": "jax.lax.scan", "stop_gradient": "jax.lax.stop_gradient",
    "tensor": "torch.tensor", "vjp": "jax.vjp", "vmap": "jax.vmap",
    "while_loop": "jax.lax.while_loop",
}

_DTYPE = "a dtype: documented in docs/guide/dtypes.md (and numpy.md for jitgrad.numpy's)"
_CONST = "a constant of numpy's with its value (docs/guide/numpy.md)"
_NP = "NumPy's own object, re-exported as jax.numpy does"
_DIST = ("a distribution: a namespace of logpdf/pdf/cdf/... functions with jax.scipy.stats's "
         "signatures (the module docstring of jitgrad.scipy.stats)")
_LAYER = ("a stax layer, an (init_fun, apply_fun) pair or a functools.partial of GeneralConv, "
          "as jax.example_libraries.stax's (the module docstring)")
_EXCLUDED = "the names of the mirrored namespace left out, with the reason for each"
ALLOWED = {
    "jitgrad": dict.fromkeys(
        "bfloat16 bool bool_ cdouble cfloat complex128 complex64 double float float16 float32 "
        "float64 half int int16 int32 int64 int8 long short uint16 uint32 uint64 uint8".split(),
        _DTYPE) | {"default_generator": "the jitgrad.Generator instance jg.manual_seed seeds "
                                        "(torch.default_generator); its class is documented",
                   "dtype": "numpy.dtype, as torch.dtype for isinstance checks"}
    | dict.fromkeys("strided contiguous_format channels_last channels_last_3d "
                    "preserve_format".split(), "a torch.layout / torch.memory_format constant "
                                               "(classes documented)"),
    "jitgrad.numpy": {
        **dict.fromkeys(
            "bool bool_ cdouble character complex128 complex64 complex_ complexfloating csingle "
            "double flexible float16 float32 float4_e2m1fn float64 float6_e2m3fn float6_e3m2fn "
            "float8_e3m4 float8_e4m3 float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz "
            "float8_e5m2 float8_e5m2fnuz float8_e8m0fnu float_ floating generic inexact int1 "
            "int16 int2 int32 int4 int64 int8 int_ integer number object_ signedinteger single "
            "uint uint1 uint16 uint2 uint32 uint4 uint64 uint8 unsignedinteger".split(), _DTYPE),
        **dict.fromkeys("e euler_gamma inf nan pi newaxis".split(), _CONST),
        **dict.fromkeys("c_ r_ s_ index_exp mgrid ogrid".split(),
                        "an index-trick object as numpy's (jitgrad/numpy/index_tricks.py)"),
        **dict.fromkeys("ComplexWarning get_printoptions printoptions set_printoptions "
                        "iterable".split(), _NP),
    },
    "jitgrad.random": {"EXCLUDED": _EXCLUDED},
    "jitgrad.scipy.special": {"EXCLUDED": _EXCLUDED},
    "jitgrad.scipy.linalg": {"EXCLUDED": _EXCLUDED},
    "jitgrad.scipy.stats": {
        "EXCLUDED": _EXCLUDED,
        **dict.fromkeys(
            "bernoulli beta betabinom binom cauchy chi2 dirichlet expon gamma gennorm geom "
            "gumbel_l gumbel_r laplace logistic multinomial nbinom pareto poisson t truncnorm "
            "uniform vonmises wrapcauchy".split(), _DIST)},
    "jitgrad.example_libraries.stax": dict.fromkeys(
        "Conv Conv1DTranspose ConvTranspose Elu Exp FanInSum Flatten Gelu Identity LeakyRelu "
        "LogSoftmax Relu Selu Sigmoid Softmax Softplus Tanh".split(), _LAYER),
    "jitgrad.tree_util": {"namedtuple": "collections.namedtuple, listed in tree_util.__all__"},
}

CASES = [(ns, name) for ns in hooks.NAMESPACES for name in hooks.public_names(ns)]


def _doc(obj):
    doc = obj.__doc__ if inspect.isclass(obj) else inspect.getdoc(obj)
    doc = inspect.cleandoc(doc or "")
    if inspect.isclass(obj) and re.fullmatch(rf"{re.escape(obj.__name__)}\(.*\)", doc, re.S):
        return ""               # namedtuple's generated "Name(field, ...)"
    return doc


@pytest.mark.parametrize("namespace", list(hooks.NAMESPACES))
def test_namespace_documented(namespace):
    mod = importlib.import_module(namespace)
    assert (mod.__doc__ or "").strip(), f"{namespace} has no module docstring"
    page = ROOT / "docs" / "reference" / hooks.NAMESPACES[namespace]
    assert re.search(rf"^::: {re.escape(namespace)}\s*$", page.read_text(), re.M), \
        f"{page.name} does not render {namespace}"


def test_every_public_name_has_a_docstring():
    missing = [f"{ns}.{name}" for ns, name in CASES if not _doc(getattr(
        importlib.import_module(ns), name)).strip()]
    assert not missing, f"{len(missing)} public names without a docstring: {missing}"


def test_root_docstrings_name_their_counterpart():
    """jitgrad.* mixes PyTorch's and JAX's names: each says whose it is (or is jitgrad's own)."""
    mod = importlib.import_module("jitgrad")
    silent = [name for name in hooks.public_names("jitgrad")
              if name not in JITGRAD_ONLY and name not in ROOT_COUNTERPARTS
              and _doc(getattr(mod, name)) and not _LIBRARY.search(_doc(getattr(mod, name)))]
    assert not silent, f"say which library's name these mirror (or add to JITGRAD_ONLY): {silent}"


@pytest.mark.parametrize("namespace", list(hooks.NAMESPACES))
def test_every_public_attribute_accounted_for(namespace):
    mod = importlib.import_module(namespace)
    rendered = set(hooks.public_names(namespace))
    helpers = hooks.HELPERS.get(namespace, {})
    allowed = ALLOWED.get(namespace, {})
    stray = []
    for name in hooks.public_attributes(namespace):
        try:
            obj = getattr(mod, name)
        except Exception:               # a lazy name whose optional dependency is missing
            continue
        if name in rendered or name in helpers or name in allowed:
            continue
        if isinstance(obj, types.ModuleType) or name == "annotations":
            continue                    # a submodule (implementation, or a namespace of its own)
        stray.append(name)
    assert not stray, (f"{namespace}: public attributes neither rendered nor listed in ALLOWED "
                       f"(tests/package/test_docstrings.py) or HELPERS (docs/hooks.py): {stray}")
    assert all(reason for reason in {**allowed, **helpers}.values())


def test_mirrors_cover_every_namespace():
    assert set(MIRRORS) == set(hooks.NAMESPACES) - {"jitgrad"}


@pytest.mark.parametrize("path", ["coming-from-pytorch.md", "reference/cli.md"])
def test_generated_regions_are_current(path):
    """The Markdown source's generated regions equal what docs/hooks.py renders now (run
    `python docs/hooks.py` to rewrite them)."""
    text = (ROOT / "docs" / path).read_text()
    assert "<!-- begin generated:" in text
    assert hooks.render_generated(text) == text, f"docs/{path} is stale: python docs/hooks.py"
