"""remat_outputs: a kernel that writes several values computed from one value of its body by
short elementwise chains writes that one value instead, and the kernels reading them compute
the chains again (rematerialization of cheap producers, as XLA's fusion duplicates them).

Reverse-mode autodiff saves what each op's rule reads: GELU's forward kernel (a matmul epilogue)
wrote 1 + erf(y/sqrt 2), y/2 and exp(-y^2/2) * 2/sqrt(pi) beside the activation, all functions
of the pre-activation y. Now it writes y instead of the last two: the backward's epilogue
computes y/2 and the exp (which the forward no longer computes: the exp moves, it is not
copied), and reads 1 + erf as before (recomputing erf would copy it: the forward still needs
it for the activation; copied, erf and exp cost the backward as much as the outputs saved).

The outputs of a kernel with one such root are rematerialized together when (1) each is a
chain of at most MAX_CHAIN elementwise nodes of the root's shape whose other inputs are scalar
constants, and the chain copies only cheap ops (what it shares with outputs that stay is
computed twice); (2) none is a graph output; (3) every kernel reading one still forms a kernel
of its kind with the chains inlined (fusion_rules.analyze: an epilogue can take them, a matmul
operand cannot); (4) it pays, in fusion's units: bytes no longer written and read against the
chains' ops computed again, less the producer's ops that become dead. A root that is an input of
the kernel is read where it already lies; otherwise it becomes an output. A pure pass.
"""
from __future__ import annotations

from ..builder import Builder
from ..graph import Graph, Node, Value
from ..kernel import KERNEL, type_rule
from ..ops import Op
from ..registry import COST, OP_COST
from .cse import node_key
from .dce import live_nodes
from .fusion_rules import DEFAULT_OP_COST, analyze, is_elementwise_like

MAX_CHAIN = 8
KINDS = ("elementwise", "matmul", "rowwise", "reduce")


def _scalar_constant(node) -> bool:
    return node is not None and node.op == Op.constant and node.params["value"].size == 1


def _chain(producer, v):
    """(root, nodes computing v from it, scalar constants included, in order) when v is computed
    from one body value by 1..MAX_CHAIN elementwise nodes of v's shape; else None."""
    nodes, x, ops = [], v, 0
    while True:
        n = producer.get(x)
        if n is None or n.op == Op.constant or not is_elementwise_like(n) or len(n.outputs) != 1:
            break
        others = [i for i in n.inputs if not _scalar_constant(producer.get(i))]
        if len(others) != 1 or others[0].type.shape != v.type.shape:
            break
        ops += 1
        if ops > MAX_CHAIN:
            return None
        nodes += [n] + [producer[i] for i in n.inputs if i is not others[0]]
        x = others[0]
    return (x, nodes[::-1]) if nodes else None


def _cost(nodes) -> float:
    return sum(OP_COST.get(n.op, DEFAULT_OP_COST) for n in nodes if n.op != Op.constant)


def _rebuilt(kernel, body_outputs, top_outputs):
    """`kernel` writing `body_outputs` (its body's values) as `top_outputs`, dead nodes dropped;
    None where that forms no kernel of its kind."""
    body = kernel.params["body"]
    live = set(live_nodes(body, body_outputs))
    nodes = [n for n in body.nodes if n in live]
    info = analyze(nodes, body_outputs)
    if info is None or info.kind != kernel.params["kind"]:
        return None
    new = Graph(list(body.inputs), nodes, list(body_outputs), body.name)
    return _node(kernel, new, kernel.inputs, top_outputs)


def _node(kernel, body, inputs, outputs) -> Node:
    node = Node(KERNEL, tuple(inputs), {**kernel.params, "body": body}, tuple(outputs),
                kernel.source_info)
    type_rule(KERNEL, [v.type for v in inputs], node.params)
    return node


def _inlined(kernel, recomputed):
    """`kernel` with each input in `recomputed` (top-level Value -> (root's top-level Value,
    root in the producer's body, chain nodes, chain end)) computed from its root by the chain;
    None where the body then forms no kernel of its kind."""
    body = kernel.params["body"]
    b = Builder(Graph(name=body.name))
    env, outer, memo = {}, {}, {}

    def outer_input(top):
        if top not in outer:
            outer[top] = b.add_input(top.type)
        return outer[top]
    for top, inner in zip(kernel.inputs, body.inputs):
        if top not in recomputed:
            env[inner] = outer_input(top)

    def value(x):
        """x's body value; a recomputed input's chain is emitted where it is first read (after
        the matmul of a matmul kernel: its epilogue)."""
        if x not in env:
            root_top, root, nodes, end = recomputed[kernel.inputs[body.inputs.index(x)]]
            local = {root: outer_input(root_top)}
            for n in nodes:     # chain nodes two inputs share are emitted once
                ins = [local[y] for y in n.inputs]
                key = node_key(n.op, ins, n.params)
                if key not in memo:
                    memo[key] = b.emit(n.op, ins, n.params, n.source_info)
                local.update(zip(n.outputs, memo[key]))
            env[x] = local[end]
        return env[x]
    for n in body.nodes:
        env.update(zip(n.outputs, b.emit(n.op, [value(x) for x in n.inputs], n.params,
                                         n.source_info)))
    b.graph.outputs = [value(v) for v in body.outputs]
    info = analyze(b.graph.nodes, b.graph.outputs)
    if info is None or info.kind != kernel.params["kind"]:
        return None
    return _node(kernel, b.graph, list(outer), kernel.outputs)


def _groups(kernel, keep):
    """root -> [(output index, chain nodes)] for the outputs that may be recomputed."""
    body = kernel.params["body"]
    producer = body.producers()
    groups = {}
    for j, (o, top) in enumerate(zip(body.outputs, kernel.outputs)):
        c = None if top in keep else _chain(producer, o)
        if c is not None:
            groups.setdefault(c[0], []).append((j, c[1]))
    return groups


def _moved_not_copied(body, members):
    """The members whose chains copy only cheap ops: what a chain shares with the outputs that
    stay (erf, still needed by GELU's output) would be computed twice; an op only the chain
    needs (the exp of GELU's derivative) moves to the readers. Copied erf and exp cost GPT's
    backward epilogue as much as the two outputs fewer saved its forward (172 us a layer)."""
    while True:
        gone = {m for m, _ in members}
        rest = set(live_nodes(body, [o for j, o in enumerate(body.outputs) if j not in gone]))
        kept = [(m, chain) for m, chain in members
                if all(OP_COST.get(n.op, DEFAULT_OP_COST) <= COST["cheap"] for n in chain
                       if n in rest and n.op != Op.constant)]
        if len(kept) == len(members):
            return members
        members = kept


def _try(nodes, i, root, members, users):
    """Rematerialize `members` of the kernel at nodes[i] from `root`: the replaced nodes by index,
    or None where it is illegal or does not pay."""
    k = nodes[i]
    body = k.params["body"]
    members = _moved_not_copied(body, members)
    if len(members) < 2 and root not in body.inputs and root not in body.outputs:
        return None         # one value written for another: never pays
    size = root.type.nbytes
    readers = {j for m, _ in members for j in users.get(k.outputs[m], ())}
    if not readers or any(nodes[j].op != KERNEL or nodes[j].params["kind"] not in KINDS
                          for j in readers):
        return None
    gone = {m for m, _ in members}
    kept = [(o, t) for j, (o, t) in enumerate(zip(body.outputs, k.outputs)) if j not in gone]
    if root in body.inputs:
        root_top, new_output = k.inputs[body.inputs.index(root)], False
    elif root in body.outputs:
        root_top, new_output = k.outputs[body.outputs.index(root)], False
    else:
        root_top, new_output = Value(root.type), True
        kept.append((root, root_top))
    if not kept:
        return None         # (fusion left it apart from its readers for a reason)
    producer = _rebuilt(k, [o for o, _ in kept], [t for _, t in kept])
    if producer is None:
        return None
    saved = sum(size * (1 + len(users.get(k.outputs[m], ()))) for m, _ in members)
    added = size * (len(readers) + new_output)
    freed = _cost(set(body.nodes) - set(producer.params["body"].nodes)) * root.type.size
    recs = {j: {k.outputs[m]: (root_top, root, chain, body.outputs[m]) for m, chain in members
                if k.outputs[m] in nodes[j].inputs} for j in sorted(readers)}
    recompute = sum(_cost({n for _, _, chain, _ in rec.values() for n in chain})
                    for rec in recs.values()) * root.type.size
    if saved - added <= recompute - freed:
        return None
    out = {i: producer}
    for j, rec in recs.items():
        out[j] = _inlined(nodes[j], rec)
        if out[j] is None:
            return None
    return out


def remat_outputs(graph: Graph) -> Graph:
    nodes = list(graph.nodes)
    keep = set(graph.outputs)
    users = {}
    for j, n in enumerate(nodes):
        for v in n.inputs:
            users.setdefault(v, set()).add(j)
    for i in range(len(nodes)):
        changed = True
        while changed and nodes[i].op == KERNEL and nodes[i].params["kind"] in KINDS:
            changed = False
            for root, members in _groups(nodes[i], keep).items():
                out = _try(nodes, i, root, members, users)
                if out is None:
                    continue
                for j, new in out.items():
                    for v in nodes[j].inputs:
                        users[v].discard(j)
                    for v in new.inputs:
                        users.setdefault(v, set()).add(j)
                    nodes[j] = new
                changed = True
                break
    if all(a is b for a, b in zip(nodes, graph.nodes)):
        return graph
    return Graph(list(graph.inputs), nodes, list(graph.outputs), graph.name, graph.arg_names)
