"""Eager backward without re-running the forward: the values the eager ops already computed
become inputs of the gradient graph.

`ir.autodiff.vjp_values` differentiates a graph by copying its primal nodes and then emitting
the VJP rules, which read primal values; run as it is, the gradient graph of an eager
`.backward()` would compute the whole forward pass again. But every recorded op's inputs are
still held by its Record (`rec.datas`), so `reuse_saved` turns the copies of those values into
graph inputs, and dead-code elimination drops the primal nodes nothing needs any more: the
compiled backward runs the backward only, as PyTorch's autograd does.

Outputs of view ops (`RECOMPUTED`: reshape, transpose, ...) are not fed: NumPy's results of
those are views (often not contiguous, so the executable would copy them), and inside the
graph they cost nothing (index maps fused into their readers).
"""
from __future__ import annotations

from ..ir import Graph, Op
from ..ir.graph import Node, Value
from ..ir.passes.dce import dce

# ops whose results the gradient graph recomputes rather than reads (cheap views)
RECOMPUTED = frozenset((Op.reshape, Op.transpose, Op.broadcast_to, Op.slice, Op.rev))


def fed(op) -> bool:
    """Whether the results of recorded `op` are fed to the gradient graph as inputs."""
    return op not in RECOMPUTED


def reuse_saved(graph: Graph, vg: Graph, saved) -> Graph:
    """The gradient graph `vg` (= vjp_values(graph, wrt, out_idx=[0]): inputs graph.inputs +
    [seed], outputs [primal output] + gradients) with the primal values `saved` (Values of
    `graph`) read from new inputs. Result inputs: graph.inputs + one per saved value + [seed];
    outputs: the gradients only."""
    n_in = len(graph.inputs)
    env = dict(zip(graph.inputs, vg.inputs[:n_in]))
    # vjp_values copies each primal node with the same op and params: find the copies
    copies = {(n.op, _params_key(n.params), n.inputs): n for n in vg.nodes}
    for n in graph.nodes:
        ins = tuple([env.get(v) for v in n.inputs])
        hit = copies.get((n.op, _params_key(n.params), ins))
        if hit is not None:
            env.update(zip(n.outputs, hit.outputs))
    new_inputs = [Value(v.type) for v in saved]
    subst = {env[v]: nv for v, nv in zip(saved, new_inputs) if v in env}
    nodes = [n if not any(v in subst for v in n.inputs) else
             Node(n.op, tuple([subst.get(v, v) for v in n.inputs]), n.params, n.outputs,
                  n.source_info)
             for n in vg.nodes]
    out = Graph(list(vg.inputs[:n_in]) + new_inputs + list(vg.inputs[n_in:]), nodes,
                [subst.get(v, v) for v in vg.outputs[1:]], "backward")
    return dce(out)


def _params_key(params):
    """Which params a node has, to find its copy: the params object itself (copies share it),
    but sub-graphs (custom_vjp_call's body, fwd, bwd) by the text of their dead-code-free form
    (dce copies them, dropping what they do not use; dce of that changes nothing more)."""
    if not any(isinstance(v, Graph) for v in params.values()):
        return id(params)
    return tuple(sorted((k, str(dce(v)) if isinstance(v, Graph) else id(v))
                        for k, v in params.items()))
