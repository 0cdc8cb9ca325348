"""The schedule verifier: what code generation relies on, checked between passes (always under
tests and with JITGRAD_VERIFY=1).

- the schedule is a valid graph (SSA, types, every kernel input defined before it is used);
- every node is a kernel whose body forms a kernel of its declared kind (fusion_rules.analyze:
  one domain, one index map per value);
- the memory plan: every buffer holds its value's bytes, no two arena buffers live at the same time
  overlap, and an output written in place of an input takes an input of that kernel of the same
  type that dies there and that the kernel kind allows (plan_memory.inplace_candidates).
"""
from __future__ import annotations

from ..errors import VerifyError
from ..kernel import KERNEL
from ..verifier import verify
from .fusion_rules import analyze
from .plan_memory import inplace_candidates, value_names


def verify_schedule(schedule, plan=None):
    verify(schedule)
    for i, k in enumerate(schedule.nodes):
        if k.op != KERNEL:
            raise VerifyError(f"schedule: node {i} is {k.op}, not a kernel")
        kind = k.params["kind"]
        if kind == "opaque":
            continue
        body = k.params["body"]
        info = analyze(body.nodes, body.outputs)
        if info is None or info.kind != kind:
            raise VerifyError(f"schedule: kernel {i} ({body.name}) is declared {kind} but its body "
                              f"forms {'no kernel' if info is None else info.kind}\n{body}")
    if plan is not None:
        _verify_plan(schedule, plan)
    return schedule


def _verify_plan(schedule, plan):
    try:
        plan.check()
    except AssertionError as e:
        raise VerifyError(str(e)) from None
    names = value_names(schedule)
    value_of = {names[v]: v for v in names}
    last = {}
    for i, k in enumerate(schedule.nodes):
        for v in k.inputs:
            last[v] = i
    for b in plan.buffers:
        if b.value is not None and b.nbytes < b.value.type.nbytes:
            raise VerifyError(f"memory plan: {b.name} holds {b.nbytes} bytes, its value "
                              f"{b.value.type} needs {b.value.type.nbytes}")
        if b.inplace_of is None:
            continue
        k = schedule.nodes[b.start]
        src = value_of.get(b.inplace_of)
        ins, outs = inplace_candidates(k)
        if (src not in ins or b.value not in outs or src.type != b.value.type
                or last.get(src) != b.start):
            raise VerifyError(f"memory plan: {b.name} is written in place of {b.inplace_of} in "
                              f"kernel {b.start} ({k.params['kind']}), which is not legal there")
