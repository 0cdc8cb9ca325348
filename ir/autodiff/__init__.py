"""Automatic differentiation as a graph transformation (README: Layout).

vjp_graph / vjp_values (reverse mode) and jvp_graph (forward mode) take an ir.Graph and return
a new ir.Graph; per-op rules are the primitives' records (ir/primitives/: elementwise
derivatives are written once for both modes, as `linearized`), read through the VJP_RULES /
JVP_RULES tables of ir/registry.py; broadcasting is un-summed in one place (Emitter.sum_to).
Ops whose record says `nondiff` have zero derivatives; any other op without a rule raises
MissingRuleError naming it.
"""
from ..registry import JVP_RULES, VJP_RULES
from .custom import CUSTOM_VJP, inline_custom_calls
from .emitter import Emitter
from .transform import jvp_graph, vjp_graph, vjp_values

__all__ = ["CUSTOM_VJP", "Emitter", "JVP_RULES", "VJP_RULES", "inline_custom_calls",
           "jvp_graph", "vjp_graph", "vjp_values"]
