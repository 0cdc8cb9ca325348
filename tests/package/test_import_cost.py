"""`import jitgrad` loads no heavy module: ml_dtypes (its extension alone takes ~0.7 s), LLVM,
numba, SciPy, the reference frameworks, nor jitgrad's own lazy parts; each loads on first use,
and that first use works. Every check runs in a fresh interpreter (the test process has loaded
everything already); none times anything, so a busy machine cannot fail them."""
import json
import subprocess
import sys

HEAVY = ["ml_dtypes", "llvmlite", "numba", "scipy", "torch", "jax", "tqdm", "matplotlib",
         "mpi4py", "jitgrad.codegen", "jitgrad.codegen.cpu", "jitgrad.aot", "jitgrad.cli",
         "jitgrad.cuda", "jitgrad.data", "jitgrad.scipy", "jitgrad.example_libraries",
         "jitgrad.optim"]


def run_fresh(code: str):
    """What `code` prints as JSON on its last line, run in a new interpreter."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_import_jitgrad_loads_no_heavy_module():
    loaded = run_fresh(f"import json, sys, jitgrad\n"
                       f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    assert loaded == []


def test_first_uses_load_bfloat16_and_the_compiler():
    got = run_fresh("""
import json, sys
import jitgrad as jg, jitgrad.numpy as jnp
f32 = jg.jit(lambda a: a * 2 + 1)(jnp.ones(3)).tolist()
after_f32_jit = sorted(m for m in ("ml_dtypes", "llvmlite") if m in sys.modules)
x = jnp.ones(3, dtype=jnp.bfloat16)
bf16 = jg.jit(lambda a: a * 3)(x)
print(json.dumps({"f32": f32, "after_f32_jit": after_f32_jit, "bf16": str(bf16.dtype),
                  "values": bf16.astype(jnp.float32).tolist(), "jg": str(jg.bfloat16),
                  "same": jg.bfloat16 == x.dtype == jnp.dtype(jnp.bfloat16),
                  "with_f16": str((x + jnp.ones(3, dtype=jnp.float16)).dtype),
                  "with_int": str((x + jnp.ones(3, dtype=jnp.int8)).dtype)}))
""")
    assert got == {"f32": [3.0, 3.0, 3.0], "after_f32_jit": ["llvmlite"], "bf16": "bfloat16",
                   "values": [3.0, 3.0, 3.0], "jg": "bfloat16", "same": True,
                   "with_f16": "float32", "with_int": "bfloat16"}


def test_a_bfloat16_array_of_the_users_own_ml_dtypes_is_recognized():
    # ml_dtypes loaded by the user, not by jitgrad: the dtype joins jitgrad's tables when it
    # first reaches canonical_dtype (promotion, names, the IR printer)
    got = run_fresh("""
import json, numpy as np
import jitgrad as jg, jitgrad.numpy as jnp
import ml_dtypes
x = jnp.asarray(np.array([1.5, 2.0], dtype=ml_dtypes.bfloat16))
graph = jg.make_graph(lambda a: a * 2)(x)
print(json.dumps({"dtype": str(x.dtype), "promoted": str((x + jnp.ones(2, jnp.float16)).dtype),
                  "graph_input": str(graph.inputs[0].type),
                  "doubled": jg.jit(lambda a: a * 2)(x).astype(jnp.float32).tolist()}))
""")
    assert got == {"dtype": "bfloat16", "promoted": "float32", "graph_input": "bf16[2]",
                   "doubled": [3.0, 4.0]}


def test_bfloat16_by_name_and_in_ir_text_loads_it():
    got = run_fresh("""
import json, sys
import jitgrad as jg
from jitgrad.dtypes import canonical_dtype
g = jg.ir.parse('''graph f(%a: bf16[3]) -> f32[3] {
  %0 = convert %a dtype=f32 : f32[3]
  return %0
}''')
print(json.dumps({"parsed": str(g.inputs[0].type), "loaded": "ml_dtypes" in sys.modules,
                  "by_name": [str(canonical_dtype(n)) for n in ("bfloat16", "bf16")]}))
""")
    assert got == {"parsed": "bf16[3]", "loaded": True, "by_name": ["bfloat16", "bfloat16"]}


def test_lazy_attributes_are_listed_and_unknown_names_still_fail():
    got = run_fresh("""
import json, jitgrad as jg
try:
    jg.no_such_name
    error = None
except AttributeError as e:
    error = str(e)
print(json.dumps({"listed": "bfloat16" in dir(jg) and "cuda" in dir(jg), "error": error}))
""")
    assert got == {"listed": True, "error": "module 'jitgrad' has no attribute 'no_such_name'"}
