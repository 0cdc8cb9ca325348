"""The runtime's own native functions: the sequencer's runner, the thread pool, the loop runner
and the profiler's timed runner are LLVM IR compiled with llvmlite. Compiling them cost 17, 24,
53 and ~15 ms in every fresh process, on the first call of every jitted function (a GPT step's
first call from the disk cache took 0.26-0.30 s, 41 ms of it the runner and the pool).

`load(ir_text, functions)` compiles a helper once per machine and keeps its object code in the
kernel cache (runtime/jg_runtime_<hex>.obj, sealed by its SHA-256 as the kernel units' are;
the name hashes the IR, the optimization level, the target and llvmlite's version), so a later
process links the object in about a millisecond. The helpers are compiled for the generic target
of the host's triple (no CPU features): their objects run on any CPU of the architecture.
Without a usable cache directory it compiles in memory, as before; a damaged entry is rebuilt.
"""
from __future__ import annotations

import hashlib
import os
import threading

from ..ir import config
from . import cache

_lock = threading.Lock()
_engines: list = []         # every engine stays alive: its code is called until the process ends


def load(ir_text: str, functions, opt: int = 2, passes: bool = False) -> list:
    """The addresses of `functions` in `ir_text` compiled at `opt` (`passes`: the module pass
    pipeline at O3 first, which inlines helpers and hoists loads)."""
    import llvmlite  # lazy: LLVM (25 ms) loads with the first compile; import jitgrad does not
    import llvmlite.binding as llvm     # lazy: as above
    with _lock:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        tm = llvm.Target.from_default_triple().create_target_machine(opt=opt)
        name = "jg_runtime_" + hashlib.sha256("\0".join(
            [ir_text, str(opt), str(passes), tm.triple, llvmlite.__version__]).encode()
        ).hexdigest()[:24]
        path = os.path.join(cache.kernel_dir("runtime"), name + ".obj")
        obj, status = cache.read_sealed(path)
        if obj is None:
            mod = llvm.parse_assembly(ir_text)
            mod.verify()
            if passes:
                pto = llvm.create_pipeline_tuning_options(3)
                llvm.create_pass_builder(tm, pto).getModulePassManager().run(
                    mod, llvm.create_pass_builder(tm, pto))
            obj = tm.emit_object(mod)
            try:
                cache.make_root()
                os.makedirs(os.path.dirname(path), exist_ok=True)
                cache.write_sealed(path, obj)
            except OSError as e:   # an unusable cache: compiled in memory (the units warn)
                config.log(1, f"runtime code {name} not cached ({e})")
        config.log(2, f"runtime code {name} ({', '.join(functions)}): {status}")
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
        engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        _engines.append(engine)
        return [engine.get_function_address(f) for f in functions]
