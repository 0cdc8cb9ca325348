"""PyTorch eager (library kernels, autograd) and torch.compile (inductor, default mode).

The compiled training steps take gradients with torch.func.grad_and_value: torch.autograd.grad
inside torch.compile breaks the graph in two, grad_and_value traces the step as one graph.
"""
import torch
import torch.nn.functional as F

from .impl import Impl, collect
from .workloads import LR


def ew_chain(x):
    return torch.tanh(x * 1.5 + 0.3) * torch.sigmoid(x) + torch.exp(-x * x)


def gelu(x):
    return F.gelu(x, approximate="tanh")


def softmax(x):
    return torch.softmax(x, dim=-1)


def layernorm(x):
    return F.layer_norm(x, x.shape[-1:], eps=1e-5)


def sum_sq(x):
    return torch.sum(x * x)


def _logreg_loss(w, x, y):
    return F.cross_entropy(x @ w, y)  # y: one-hot probabilities


def _mlp_loss(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h1 = torch.relu(x @ w1 + b1)
    h2 = torch.relu(h1 @ w2 + b2)
    return F.cross_entropy(h2 @ w3 + b3, y)


def logreg_step(w, x, y):
    w = w.detach().requires_grad_()
    (g,) = torch.autograd.grad(_logreg_loss(w, x, y), (w,))
    return w.detach() - LR * g


def mlp_step(params, x, y):
    params = [p.detach().requires_grad_() for p in params]
    loss = _mlp_loss(params, x, y)
    grads = torch.autograd.grad(loss, params)
    return tuple(p.detach() - LR * g for p, g in zip(params, grads)), loss.detach()


def call_overhead(x):
    return x * 2 + 1


def call_pytree(d):
    return {k: v * 2 for k, v in d.items()}


def _logreg_step_functional(w, x, y):
    return w - LR * torch.func.grad(_logreg_loss)(w, x, y)


def _mlp_step_functional(params, x, y):
    grads, loss = torch.func.grad_and_value(_mlp_loss)(params, x, y)
    return tuple(p - LR * g for p, g in zip(params, grads)), loss


EAGER = collect(globals())
COMPILED = {name: torch.compile(fn) for name, fn in
            {**EAGER, "logreg_step": _logreg_step_functional, "mlp_step": _mlp_step_functional}.items()}


def _to_numpy(t):
    return t.detach().numpy()


IMPLS = [Impl("torch", torch.__version__, EAGER, to_framework=torch.from_numpy, to_numpy=_to_numpy),
         Impl("torch.compile", torch.__version__, COMPILED, to_framework=torch.from_numpy, to_numpy=_to_numpy)]
