"""From a traced graph to an executable: the pass pipeline (cached on disk) and a backend.
The front end's lowest working layer: it imports ir/, runtime/ and codegen/ only, so eager
autograd, jit and AOT artifacts all compile through it (compile_graph.py)."""
