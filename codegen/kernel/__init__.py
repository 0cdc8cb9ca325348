"""Target-independent kernel analysis: canonical text, iteration spaces, the scalar evaluator and
expression table, control-flow nodes, cost thresholds (codegen/__init__.py: the layout)."""
