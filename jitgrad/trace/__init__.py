"""Tracing Python into the IR: Tracer values, the stack of traces being recorded, user source
locations, calling and inlining graphs, and the closure check."""
