"""jitgrad: a compiler-based machine-learning framework.

`@jit` traces Python array functions into a typed SSA graph IR; grad/vjp/jvp differentiate by
transforming that IR; passes optimize it; numba/LLVM generates fused kernels. The same ops run
eagerly with PyTorch-style `requires_grad` / `.backward()`.
"""
__version__ = "0.1.0"

from . import ir, runtime  # noqa: E402,F401  (jitgrad.ir, jitgrad.runtime)
from .errors import ConcretizationError, DeviceMismatchError  # noqa: E402
from .errors import ArtifactError, ShapeError, UnexpectedTracerError  # noqa: E402,F401
from .eager.grad_mode import (enable_grad, inference_mode, is_inference_mode_enabled,  # noqa: E402
                              no_grad, set_grad_enabled)
from .eager.grad_mode import grad_enabled as is_grad_enabled  # noqa: E402
from .dtypes import bool_, complex64, complex128, float32, float64, int32, int64  # noqa: E402
from .dtypes import float16, int8, int16, uint8, uint16, uint32, uint64  # noqa: E402,F401
from .dtypes import get_default_dtype, set_default_dtype  # noqa: E402,F401
from .dtypes import get_float32_matmul_precision, set_float32_matmul_precision  # noqa: E402,F401
from . import config  # noqa: E402,F401
from .transforms.jit import jit  # noqa: E402
from .transforms.block import block_until_ready, device_get, device_put  # noqa: E402,F401
from .runtime.device import Device, device  # noqa: E402
from .eager.tensor import Tensor, as_tensor, tensor  # noqa: E402
from .eager import autograd_functions as _backward  # noqa: E402,F401  (installs Tensor.backward)
from .trace.tracing import ShapeDtype, make_graph  # noqa: E402
from .transforms.autodiff import grad, jvp, stop_gradient, value_and_grad, vjp  # noqa: E402
from .transforms.vmap import vmap  # noqa: E402
from .transforms.jacobians import hessian, jacfwd, jacrev  # noqa: E402
from .transforms.custom_vjp import custom_vjp  # noqa: E402
from .transforms.checkpoint import checkpoint, checkpoint_policies, remat  # noqa: E402
from . import numpy, tree_util  # noqa: E402,F401
from .eager.from_dlpack import from_dlpack  # noqa: E402,F401
from .transforms.control import cond, fori_loop, scan, switch, while_loop  # noqa: E402
from . import profiler  # noqa: E402,F401
profiler.profile_from_env()     # JITGRAD_PROFILE=path.json: the whole program, written at exit

bool = bool_  # noqa: A001

# Loaded on first use, so `import jitgrad` stays light: jg.nn, jg.lax, jg.random,
# jg.distributed, the torch API's functions (jg.cat, jg.zeros, jg.Size, ...) and Tensor methods
# (x.view, x.add_, x.relu: lazy_names.py, eager/lazy_methods.py), jg.cuda (device queries),
# jg.data (datasets and loaders), jg.save / jg.load (checkpoints; AOT artifacts), jg.bfloat16
# (ml_dtypes: ~0.7 s to load), jg.optim, jg.scipy, jg.test_util (check_grads, for tests).
# The CLI (jitgrad.cli) is its own entry point. name -> (module, attribute or None: the module)
from . import lazy_names as _names  # noqa: E402
from .eager.array_base import ArrayOps as _ArrayOps  # noqa: E402
from .eager.lazy_methods import install_lazy_methods as _install_lazy_methods  # noqa: E402
_LAZY = {"cuda": ("jitgrad.cuda", None), "data": ("jitgrad.data", None),
         "load": ("jitgrad.serialization", "load"), "save": ("jitgrad.serialization", "save"),
         "serialization": ("jitgrad.serialization", None),
         "backends": ("jitgrad.backends", None),
         "bfloat16": ("jitgrad.dtypes", "bfloat16"), "optim": ("jitgrad.optim", None),
         "scipy": ("jitgrad.scipy", None), "example_libraries": ("jitgrad.example_libraries", None),
         "utils": ("jitgrad.utils", None), "accelerator": ("jitgrad.accelerator", None),
         "test_util": ("jitgrad.test_util", None), "nn": ("jitgrad.nn", None),
         "lax": ("jitgrad.lax", None), "random": ("jitgrad.random", None),
         "distributed": ("jitgrad.distributed", None), "autograd": ("jitgrad.autograd", None),
         "linalg": ("jitgrad.linalg", None),
         "distributions": ("jitgrad.distributions", None),
         "make_jaxpr": ("jitgrad.trace.abstract_eval", "make_jaxpr"),
         "eval_shape": ("jitgrad.trace.abstract_eval", "eval_shape"),
         "ShapeDtypeStruct": ("jitgrad.trace.tracing", "ShapeDtype"),
         "Array": ("jitgrad.trace.array_type", "Array"),
         "jacobian": ("jitgrad.transforms.jacobians", "jacrev"),
         **{name: ("jitgrad.torch_api", name) for name in _names.TORCH_NAMES},
         **{name: ("jitgrad.torch_api.creation", name) for name in (
             "arange", "empty", "full", "ones", "rand", "randint", "randn", "zeros")}}
_install_lazy_methods("jitgrad.nn.functional", {_ArrayOps: _names.NN_METHODS})
_install_lazy_methods("jitgrad.torch_api", {_ArrayOps: _names.TORCH_METHODS,
                                            Tensor: _names.TORCH_TENSOR_METHODS})

from .lazy_import import lazy_attributes as _lazy_attributes  # noqa: E402
__getattr__, __dir__ = _lazy_attributes(__name__, globals(), _LAZY)
