"""Eager per-op overhead and the eager GPT training step, jitgrad beside PyTorch (and NumPy).

    python -m benchmarks.eager_overhead              # per-op table (+ torch when importable)
    python -m benchmarks.eager_overhead --gpt        # + eager GPT step, each framework in its
                                                     #   own process, median of --steps steps
    python -m benchmarks.eager_overhead --breakdown  # where one jitgrad op's time goes
    python -m benchmarks.eager_overhead --gpt --foreach false   # the optimizers' per-tensor path

Per-op numbers are the minimum over 5 loops of 20,000 calls (microseconds of process CPU time per
call; `--wall` for wall-clock time), on 16 float32 elements (a + b, a + b with requires_grad, tanh) and a 64x64 float32 matmul.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import timeit

import numpy as np

LOOPS, CALLS = 5, 20_000


TIMER = time.process_time     # CPU time of this process: steadier than wall time on a busy machine


def per_call_us(fn, calls=CALLS, loops=LOOPS) -> float:
    return min(timeit.repeat(fn, timer=TIMER, number=calls, repeat=loops)) / calls * 1e6


def _cases(mod, make):
    """name -> zero-argument callable, given `make(array, requires_grad)` and the module."""
    rng = np.random.default_rng(0)
    a16, b16 = (rng.standard_normal(16).astype(np.float32) for _ in range(2))
    m1, m2 = (rng.standard_normal((64, 64)).astype(np.float32) for _ in range(2))
    a, b = make(a16, False), make(b16, False)
    ag, bg = make(a16, True), make(b16, True)
    x, y = make(m1, False), make(m2, False)
    return {"a + b": lambda: a + b, "a + b (requires_grad)": lambda: ag + bg,
            "tanh(a)": lambda: mod.tanh(a), "matmul 64x64": lambda: x @ y}


def jitgrad_cases():
    import jitgrad as jg
    import jitgrad.numpy as jnp
    return _cases(jnp, lambda arr, rg: jg.tensor(arr, requires_grad=rg))


def torch_cases():
    import torch
    torch.set_num_threads(1)
    return _cases(torch, lambda arr, rg: torch.tensor(arr, requires_grad=rg))


def numpy_cases():
    c = _cases(np, lambda arr, rg: arr)
    del c["a + b (requires_grad)"]
    return c


def op_table() -> dict:
    """Per case, the frameworks' loops interleaved (jitgrad, NumPy, torch, then again): this
    VM's speed drifts by 1.5x within seconds, which timing one framework after the other read
    as a difference between them."""
    cases = {"jitgrad": jitgrad_cases(), "numpy": numpy_cases()}
    try:
        cases["torch"] = torch_cases()
    except ImportError:
        pass
    out = {fw: {} for fw in cases}
    for name in cases["jitgrad"]:
        for _ in range(LOOPS):
            for fw, cs in cases.items():
                if name in cs:
                    t = per_call_us(cs[name], loops=1)
                    out[fw][name] = min(out[fw].get(name, t), t)
    return out


def print_table(res: dict) -> None:
    cols = [c for c in ("jitgrad", "torch", "numpy") if c in res]
    print(f"{'op (us per call)':<24}" + "".join(f"{c:>10}" for c in cols))
    for k in res["jitgrad"]:
        cells = "".join(f"{res[c][k]:>10.2f}" if k in res[c] else f"{'-':>10}" for c in cols)
        print(f"{k:<24}{cells}")


# ----------------------------------------------------------------------------- breakdown

def breakdown() -> None:
    """The cost of each stage of `a + b` on 16 floats, timed alone (us per call)."""
    import jitgrad as jg
    import jitgrad.numpy as jnp
    from jitgrad.eager.dispatch import apply, eager_apply as _eager_apply
    from jitgrad.ir import Op
    from jitgrad.ir.reference import evaluate
    from jitgrad.ir.registry import infer_types
    from jitgrad.eager.tensor import Tensor
    a16 = np.arange(16, dtype=np.float32)
    a, b = jg.tensor(a16), jg.tensor(a16 + 1)
    ag, bg = jg.tensor(a16, requires_grad=True), jg.tensor(a16 + 1, requires_grad=True)
    types = [a._type, b._type]
    out_types = infer_types(Op.add, types, {})
    rows = [
        ("a + b (operator, total)", lambda: a + b),
        ("jnp.add(a, b)", lambda: jnp.add(a, b)),
        ("dispatch.apply(add)", lambda: apply(Op.add, [a, b])),
        ("core._eager_apply(add)", lambda: _eager_apply(Op.add, [a, b], {})),
        ("  Tensor._type x2", lambda: (a._type, b._type)),
        ("  infer_types(add)", lambda: infer_types(Op.add, types, {})),
        ("  reference.evaluate(add)", lambda: evaluate(Op.add, [a16, a16], {}, out_types)),
        ("  np.add", lambda: np.add(a16, a16)),
        ("  Tensor._wrap", lambda: Tensor._wrap(a16)),
        ("ag + bg (operator, total)", lambda: ag + bg),
        ("dispatch.apply(add) grad", lambda: apply(Op.add, [ag, bg])),
    ]
    for name, fn in rows:
        print(f"{name:<30}{per_call_us(fn, calls=5000, loops=3):>9.2f} us")


# ----------------------------------------------------------------------------- GPT step

def _timed(obj, name: str, sink: list) -> None:
    """Wrap obj.<name> (an optimizer's step) to append each call's time (ms) to sink."""
    method = getattr(obj, name)

    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            sink.append((time.perf_counter() - t0) * 1e3)
    setattr(obj, name, timed)


def _gpt_child(fw: str, steps: int, foreach=None) -> None:
    """Runs in its own process: median eager GPT step time (ms) of `fw` and of its optimizer's
    step within it, printed as JSON. foreach: jitgrad's optimizer option (None: fused step)."""
    opt_times = []
    from benchmarks.models import model_spec
    cfg = model_spec.FULL["gpt"]
    weights, data = model_spec.weights("gpt", cfg), model_spec.batch("gpt", cfg)
    if fw == "torch":
        import torch
        torch.set_num_threads(1)
        from benchmarks.models.fw_torch import Trainer
        trainer = Trainer("gpt", cfg, weights, data)
        _timed(trainer.opt, "step", opt_times)
        step = trainer.step
    else:
        import jitgrad as jg
        import jitgrad.numpy as jnp
        from benchmarks.models.fw_jitgrad import MODULES, _loss
        model = MODULES["gpt"](cfg)
        model.load_state_dict(dict(weights))
        x, y = (jnp.asarray(a) for a in data)
        opt = jg.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay,
                             foreach=foreach)
        _timed(opt, "step", opt_times)

        def step():
            opt.zero_grad()
            loss = _loss(model, x, y)
            loss.backward()
            opt.step()
            return float(loss)
    losses = [step() for _ in range(3)]         # warm-up
    del opt_times[:]
    times, cpu = [], []
    for _ in range(steps):
        t0, c0 = time.perf_counter(), time.process_time()
        losses.append(step())
        times.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    print(json.dumps({"median_ms": statistics.median(times), "min_ms": min(times),
                      "cpu_median_ms": statistics.median(cpu), "first_losses": losses[:3],
                      "opt_median_ms": statistics.median(opt_times)}))


def gpt_step(fw: str, steps: int, foreach: str = "none") -> dict:
    # one thread each: torch.set_num_threads(1) in the child, jitgrad's pool and BLAS here
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               JITGRAD_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-m", "benchmarks.eager_overhead", "--gpt-child", fw,
                          "--steps", str(steps), "--foreach", foreach], capture_output=True,
                         text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gpt", action="store_true", help="also the eager GPT training step")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--breakdown", action="store_true")
    p.add_argument("--wall", action="store_true", help="wall-clock instead of process CPU time")
    p.add_argument("--foreach", choices=("none", "true", "false"), default="none",
                   help="jitgrad optimizer's foreach option (false: the per-tensor eager path)")
    p.add_argument("--gpt-child", choices=("jitgrad", "torch"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    global TIMER
    if args.wall:
        TIMER = time.perf_counter
    if args.gpt_child:
        return _gpt_child(args.gpt_child, args.steps,
                          {"none": None, "true": True, "false": False}[args.foreach])
    print("uptime:", os.popen("uptime").read().strip())
    if args.breakdown:
        return breakdown()
    print_table(op_table())
    if args.gpt:
        for fw in ("jitgrad", "torch"):
            try:
                r = gpt_step(fw, args.steps, args.foreach)
            except subprocess.CalledProcessError as e:
                print(f"GPT eager step {fw}: failed\n{e.stderr[-2000:]}")
                continue
            print(f"GPT eager step {fw:<8} median {r['median_ms']:.1f} ms  min "
                  f"{r['min_ms']:.1f} ms  CPU median {r['cpu_median_ms']:.1f} ms  "
                  f"(losses {[round(v, 4) for v in r['first_losses']]})  optimizer step median "
                  f"{r['opt_median_ms']:.1f} ms ({r['opt_median_ms'] / r['median_ms']:.0%})")


if __name__ == "__main__":
    main()
