"""Records of the ops that hold graphs as params: the fused kernel the schedule is made of, the
structured control-flow ops, and a call with a user-written derivative."""
from __future__ import annotations

from .. import control_flow as C
from .. import kernel as K
from ..autodiff import control as AC
from ..autodiff import custom
from ..autodiff.scan_vjp import scan_vjp
from ..batching import control as BC
from .. import remat
from ..ops import Op
from ..registry import Primitive

_ONLY_AFTER_FUSION = "kernels exist only after fusion, which runs after every transformation"

RECORDS = [
    Primitive(Op.kernel, "kernel", K.type_rule, K.reference, None, unbatchable=_ONLY_AFTER_FUSION,
              doc="a fused kernel: params kind and body (ir/kernel.py)"),
    Primitive(Op.cond, "control", C.cond_rule, C.cond_reference, None, vjp=AC.branch_vjp,
              jvp=AC.branch_jvp, batch=BC.branch_op,
              doc="params true(*operands) if pred else false(*operands)"),
    Primitive(Op.switch, "control", C.switch_rule, C.switch_reference, None, vjp=AC.branch_vjp,
              jvp=AC.branch_jvp, batch=BC.branch_op,
              doc="params branches[clamp(index, 0, n - 1)](*operands) (lax.switch)"),
    Primitive(Op.while_loop, "control", C.while_rule, C.while_reference, None, vjp=AC.while_vjp,
              jvp=AC.while_jvp, batch=BC.while_loop,
              doc="carry = body(carry, *consts) while cond(carry, *consts)"),
    Primitive(Op.scan, "control", C.scan_rule, C.scan_reference, None, vjp=scan_vjp,
              jvp=AC.scan_jvp, batch=BC.scan,
              doc="a loop over the leading axis of xs carrying state, stacking outputs"),
    Primitive(Op.custom_vjp_call, "custom", custom.type_rule, custom.reference, None,
              vjp=custom.vjp, jvp=custom.jvp, batch=BC.custom_vjp,
              doc="params body, with the user's reverse-mode rule fwd / bwd (jg.custom_vjp)"),
    Primitive(Op.remat, "custom", remat.type_rule, remat.reference, None, vjp=remat.vjp,
              jvp=remat.jvp, batch=remat.batch,
              doc="params body, recomputed in the backward pass (jg.checkpoint / jg.remat)"),
]
