"""fuse: group the graph's nodes into kernels; the result's top-level nodes are kernel nodes in
schedule order (ir/kernel.py).

1. Duplicate cheap producers (small constants, broadcasts, converts, size-1 reshapes) into each
   consumer that can absorb them: recomputing them costs no more than reading a materialized
   copy, and a broadcast scalar is then never written out at full size. An im2col is copied
   into each product that reads it (its columns are read in place from the image).
2. Sweep the nodes in order; each node starts a group and repeatedly merges with the group of one
   of its producers: among the merges that are legal (fusion_rules.can_fuse) it takes the one
   with the best positive score (fusion_rules.score). Merging (never copying) is the only way a
   matmul or a reduction joins a kernel, so none is ever computed twice.
3. Copies of a cheap node that stayed alone are merged back into one kernel.
4. Order the groups topologically (stable in the original order) and build one kernel node each.
"""
from __future__ import annotations

import heapq

from ..builder import Builder
from ..graph import INLINE_LIMIT, Graph, Node, Value
from ..kernel import make_kernel
from ..ops import Op
from ..primitives import REDUCE
from .cse import node_key
from .fusion_rules import (GraphFacts, KernelInfo, analyze, can_fuse, is_elementwise_like,
                           is_last_two_transpose, is_unit_reshape, recompute_cost, score,
                           view_form)
from .matmul_views import VIEW_OPS


def _cheap(node) -> bool:
    if node.op == Op.constant:
        return node.params["value"].size <= INLINE_LIMIT
    return node.op in (Op.broadcast_to, Op.convert, Op.im2col) or is_unit_reshape(node)


def _reads_columns(node) -> bool:
    """A matmul or its transposed operand: each gets its own copy of an im2col it reads, so
    every product of a convolution (the forward one, the weight gradient's) can read the
    columns in place from the image (fusion_rules.matmul_operand) and none is written out."""
    return node.op == Op.matmul or is_last_two_transpose(node)


def _absorbs(node) -> bool:
    return is_elementwise_like(node) or node.op in REDUCE


def _matmul_views(graph: Graph, consumers) -> set:
    """Slices, transposes and reshapes read only by matmuls, directly or through other such
    nodes, on operand chains the GEMM reads in place (fusion_rules.view_form; attention's
    heads cut from one qkv product): each product gets its own copy of the chain. A node on a
    chain the GEMM cannot read stays one shared node (one copy kernel, or a product store)."""
    producer, outputs = graph.producers(), set(graph.outputs)
    foldable, not_foldable = set(), set()
    for u in graph.nodes:
        for x in u.inputs if u.op == Op.matmul else ():
            chain = []
            while x in producer and producer[x].op in VIEW_OPS:
                chain.append(producer[x])
                x = producer[x].inputs[0]
            if chain:
                (foldable if view_form(x, chain) is not None else not_foldable).update(chain)
    found = set()
    for n in reversed(graph.nodes):
        users = consumers.get(n.output, ()) if n in foldable - not_foldable else ()
        if users and n.output not in outputs and all(
                u.op == Op.matmul or u in found for u in users):
            found.add(n)
    return found


def _duplicate_cheap(graph: Graph):
    """A copy of `graph` where every consumer that can absorb a cheap producer chain has its own
    copy of it, and every matmul its own copy of the views it reads (_matmul_views); other
    uses share one. Returns (graph, origin: copied Node -> original Node)."""
    producer = graph.producers()
    views = _matmul_views(graph, graph.consumers())
    out = Graph(list(graph.inputs), [], list(graph.outputs), graph.name, graph.arg_names)
    origin = {}
    shared = {}

    def copy(v, memo, private):
        n = producer.get(v)
        if n is None or not (_cheap(n) or n in views):
            return v
        if v in memo:
            return memo[v]
        ins = tuple(copy(x, memo, private) for x in n.inputs)
        outs = tuple(Value(o.type) for o in n.outputs) if private else n.outputs
        new = Node(n.op, ins, n.params, outs, n.source_info)
        origin[new] = n
        out.nodes.append(new)
        memo.update(zip(n.outputs, outs))
        return memo[v]

    def own(n, v):
        """Whether consumer n gets its own copy of v's producer chain."""
        p = producer.get(v)
        return p is not None and (p in views or (_reads_columns(n) and p.op == Op.im2col))

    for n in graph.nodes:
        if _cheap(n) or n in views:
            continue
        private = {} if _absorbs(n) else None
        ins = tuple(copy(v, private, True) if private is not None
                    else copy(v, {}, True) if own(n, v)
                    else copy(v, shared, False) for v in n.inputs)
        out.nodes.append(Node(n.op, ins, n.params, n.outputs, n.source_info))
    out.outputs = [copy(v, shared, False) for v in graph.outputs]
    return out, origin


# A kernel body holds at most this many nodes: legality and profitability are checked on the
# merged group at each merge, so unbounded groups make fusion quadratic in a long chain; bounded
# ones also make a long chain a few identical kernels, compiled once (codegen/cpu/units.py).
MAX_KERNEL_NODES = 64


class _Group:
    """A kernel in the making: its nodes, their KernelInfo and its recompute cost (computed once:
    every candidate merge's score subtracts it)."""
    __slots__ = ("nodes", "info", "cost")

    def __init__(self, nodes, info):
        self.nodes, self.info = nodes, info
        self.cost = recompute_cost(nodes, info)


# The cycle check of a merge searches at most this many kernels; a merge that needs a longer
# search is not made (as if it closed a cycle). Without the bound, the search is as long as the
# path from a forward value to its use in the backward pass: fusion was quadratic in the depth.
MAX_CYCLE_SEARCH = 64


def _reaches(start, target, skip, group_of, facts, limit):
    """Whether a path of kernels leads from one of the groups in `start` to `target` without
    passing through `skip` (or the search passes MAX_CYCLE_SEARCH kernels: True, conservatively).
    Only nodes at positions <= limit can lie on such a path (the node order is topological and
    every node of `target` is at or before `limit`)."""
    seen, todo = set(), list(start)
    while todo:
        g = todo.pop()
        if g is target:
            return True
        if g in seen or g is skip:
            continue
        seen.add(g)
        if len(seen) > MAX_CYCLE_SEARCH:
            return True
        for n in g.nodes:
            for v in n.outputs:
                for u in facts.users.get(v, ()):
                    if facts.position[u] <= limit and u in group_of and group_of[u] is not g:
                        todo.append(group_of[u])
    return False


def _successors(g, group_of, facts, limit):
    return [group_of[u] for n in g.nodes for v in n.outputs for u in facts.users.get(v, ())
            if facts.position[u] <= limit and u in group_of and group_of[u] is not g]


def _makes_cycle(p, g, group_of, facts, limit, producer) -> bool:
    """Whether merging groups p and g would close a cycle between kernels: a path from one to the
    other through a third group (pairwise checks on nodes miss paths that jump through groups).
    Such a path ends with an edge into its target from a group other than its source: a target
    fed only by the source (say a node reading one value of the kernel it joins) needs no search."""
    def one_way(a, b):
        feeds = {group_of[producer[x]] for n in b.nodes for x in n.inputs
                 if x in producer and producer[x] in group_of}
        if not feeds - {a, b}:
            return False
        return _reaches([q for q in _successors(a, group_of, facts, limit) if q is not b], b, a,
                        group_of, facts, limit)
    return one_way(p, g) or one_way(g, p)


def _group(graph: Graph, facts: GraphFacts):
    """Node -> _Group after the greedy producer-consumer sweep. Candidates are tried in the
    order of their first node, so the same graph always gives the same groups."""
    group_of = {}
    producer = graph.producers()
    for n in graph.nodes:
        alone = analyze([n], facts.outputs([n]), facts.category) or KernelInfo("opaque", ())
        g = _Group(frozenset([n]), alone)
        group_of[n] = g
        limit = facts.position[n]
        while True:
            best = None
            # the node's producers, and those of a matmul's prologue (reshape under transpose)
            xs = [*n.inputs, *(x for m in g.nodes if m is not n
                               and facts.category[m] == "transpose" for x in m.inputs)]
            cands = {id(group_of[producer[x]]): group_of[producer[x]] for x in xs
                     if x in producer}
            cands.pop(id(g), None)
            for p in sorted(cands.values(), key=lambda q: min(map(facts.position.__getitem__,
                                                                  q.nodes))):
                if len(p.nodes) + len(g.nodes) > MAX_KERNEL_NODES:
                    continue
                info = can_fuse(p.nodes, g.nodes, facts)
                if info is None:
                    continue
                s = score(p.nodes, g.nodes, info, p.cost, g.cost, facts)
                if s > 0 and (best is None or s > best[0]) and not _makes_cycle(
                        p, g, group_of, facts, limit, producer):
                    best = (s, p, info)
            if best is None:
                break
            _, p, info = best
            g = _Group(p.nodes | g.nodes, info)
            for m in g.nodes:
                group_of[m] = g
    return group_of


def _merge_lone_copies(groups, origin, facts):
    """Cheap copies that fused with nothing: keep one per (op, inputs, params); returns the
    surviving groups and a substitution for the outputs of the dropped ones."""
    subst, seen, kept = {}, {}, []
    for g in groups:
        (n,) = g.nodes if len(g.nodes) == 1 else (None,)
        if n is not None and n in origin:
            key = node_key(n.op, [subst.get(v, v) for v in n.inputs], n.params)
            if key in seen and not any(v in facts.graph_outputs for v in n.outputs):
                subst.update(zip(n.outputs, seen[key].outputs))
                continue
            seen.setdefault(key, n)
        kept.append(g)
    return kept, subst


def _schedule(groups, producer, subst, facts):
    """Groups in a topological order, stable with respect to the original node order."""
    first = {g: min(facts.position[n] for n in g.nodes) for g in groups}
    owner = {n: g for g in groups for n in g.nodes}
    succs = {g: set() for g in groups}
    indeg = dict.fromkeys(groups, 0)
    for g in groups:
        preds = {owner[producer[subst.get(v, v)]] for n in g.nodes for v in n.inputs
                 if subst.get(v, v) in producer} - {g}
        indeg[g] = len(preds)
        for p in preds:
            succs[p].add(g)
    ready = [(first[g], g) for g in groups if indeg[g] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, g = heapq.heappop(ready)
        order.append(g)
        for s in succs[g]:
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(ready, (first[s], s))
    if len(order) != len(groups):
        raise AssertionError(f"fuse: the kernels form a cycle ({len(groups) - len(order)} of "
                             f"{len(groups)} kernels cannot be scheduled)")
    return order


def _kernel(g, index, facts, subst, origin):
    """The kernel node running group g; its outputs are the original Values. Copies of one cheap
    node that met again in this kernel are emitted once, unless the copies are read along
    different axes (a broadcast read as a row and, through a reshape, as a column): then the
    merged body forms no kernel, and each copy stays its own body value."""
    nodes = sorted(g.nodes, key=facts.position.__getitem__)
    outputs = facts.outputs(nodes)
    graph, outer, env, merged = _body(nodes, index, subst, origin, merge=True)
    if merged:
        info = analyze(graph.nodes, [env[v] for v in outputs])
        if info is None or info.kind != g.info.kind:
            graph, outer, env, _ = _body(nodes, index, subst, origin, merge=False)
    # two copies of a cheap node merged above are one body value: write it once, and let the
    # later kernels and the graph outputs read the kept copy (subst)
    kept = {}
    for v in outputs:
        if env[v] in kept:
            subst[v] = kept[env[v]]
        else:
            kept[env[v]] = v
    graph.outputs = list(kept)
    k = make_kernel(g.info.kind, graph, list(outer))
    k.outputs = tuple(kept.values())
    return k


def _body(nodes, index, subst, origin, merge):
    """(body graph without outputs, outer values by body input, env: Value -> body value,
    whether copies of a cheap node were merged)."""
    produced = {v for n in nodes for v in n.outputs}
    b = Builder(Graph(name=f"k{index}"))
    env, outer, copies, merged = {}, {}, {}, False
    for n in nodes:
        for v in n.inputs:
            if v not in produced and v not in env:
                u = subst.get(v, v)
                if u not in outer:
                    outer[u] = b.add_input(v.type)
                env[v] = outer[u]
        ins = [env[v] for v in n.inputs]
        key = node_key(n.op, ins, n.params) if merge and n in origin else None
        outs = copies.get(key) if key is not None else None
        if outs is None:
            outs = b.emit(n.op, ins, n.params, n.source_info)
            copies[key] = outs
        else:
            merged = True
        env.update(zip(n.outputs, outs))
    return b.graph, outer, env, merged


def fuse(graph: Graph) -> Graph:
    dup, origin = _duplicate_cheap(graph)
    facts = GraphFacts(dup)
    group_of = _group(dup, facts)
    groups = list({id(g): g for g in group_of.values()}.values())
    groups, subst = _merge_lone_copies(sorted(groups, key=lambda g: min(
        facts.position[n] for n in g.nodes)), origin, facts)
    order = _schedule(groups, dup.producers(), subst, facts)
    out = Graph(list(graph.inputs), [], [], graph.name, graph.arg_names)
    out.nodes = [_kernel(g, i, facts, subst, origin) for i, g in enumerate(order)]
    out.outputs = [subst.get(v, v) for v in dup.outputs]
    return out

