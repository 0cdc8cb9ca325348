"""Automatic differentiation as a graph transformation (DESIGN.md §3).

vjp_graph / vjp_values (reverse mode) and jvp_graph (forward mode) take an ir.Graph and return
a new ir.Graph; per-op rules live in VJP_RULES / JVP_RULES keyed by op (elementwise
derivatives are written once for both modes in elementwise.py); broadcasting is un-summed in
one place (Emitter.sum_to). Ops in ops.NON_DIFFERENTIABLE have zero derivatives; any other op
without a rule raises MissingRuleError naming it.
"""
from .custom import CUSTOM_VJP, inline_custom_calls
from .emitter import Emitter
from .jvp_rules import JVP_RULES
from .transform import jvp_graph, vjp_graph, vjp_values
from .vjp_rules import VJP_RULES

__all__ = ["CUSTOM_VJP", "Emitter", "JVP_RULES", "VJP_RULES", "inline_custom_calls",
           "jvp_graph", "vjp_graph", "vjp_values"]
from . import control  # noqa: E402,F401  (rules for cond / scan / while_loop)
from . import linalg  # noqa: E402,F401  (rules for the LAPACK decompositions)
from . import complex_rules  # noqa: E402,F401  (complex parts, complex abs, fft)
