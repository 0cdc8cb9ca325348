"""The `jitgrad` command: demo, bench, ir, aot, info, cache. One entry point, `--help` everywhere;
bad arguments exit with status 2 and a one-line error."""
from __future__ import annotations

import argparse
import sys

import numpy

import jitgrad as jg
from jitgrad.ir import config
from jitgrad.runtime.cache import CacheError, cache_clear, cache_info
from jitgrad.runtime.cuda_device import probe

from . import demo, demo_distributed
from .aot_command import add_parser as add_aot_parser
from .common import Parser, arg_spec, one_line, output_file, resolve

# ---------------------------------------------------------------------------------- info, cache

def _info(args) -> int:
    import llvmlite  # lazy: versions for `jitgrad info` only (numba is heavy)
    import numba

    count, why = probe()
    from jitgrad.codegen import BACKENDS  # lazy: loads codegen and LLVM
    backends = ", ".join(sorted(BACKENDS))
    info = cache_info()
    print(f"jitgrad   {jg.__version__}")
    print(f"numpy     {numpy.__version__}")
    print(f"numba     {numba.__version__}")
    print(f"llvmlite  {llvmlite.__version__}")
    print("devices   cpu, meta" + (f", cuda (x{count})" if count else f"  (cuda: {why})"))
    print(f"codegen   {backends}")
    print(f"cache     {info['dir']} ({info['files']} files, {info['bytes'] / 2**20:.1f} MiB)")
    return 0


def _cache(args) -> int:
    if args.action == "info":
        info = cache_info()
        print(f"cache directory  {info['dir']}")
        print(f"files            {info['files']}")
        print(f"size             {info['bytes'] / 2**20:.1f} MiB")
        return 0
    try:
        info = cache_clear()
    except CacheError as e:
        print(f"jitgrad cache clear: {e}", file=sys.stderr)
        return 1
    print(f"cleared {info['dir']}: removed {_files(info['files'])} ({info['bytes'] / 2**20:.1f} MiB)"
          + (f"; kept {_files(info['foreign'])} jitgrad did not write" if info["foreign"] else ""))
    return 0


def _files(n: int) -> str:
    return f"{n} file" + ("" if n == 1 else "s")


# ---------------------------------------------------------------------------------- demo, bench

def _demo(args) -> int:
    return (demo_distributed if getattr(args, "distributed", False) else demo).main(args)


def _bench(argv) -> int:
    from jitgrad.benchmarks import main  # lazy: the benchmark harness
    return main(argv, prog="jitgrad bench")


# ---------------------------------------------------------------------------------- ir

def _ir(args) -> int:
    fn = resolve(args.target, args.subparser)
    if args.print_after:
        config.update("print_after", args.print_after)
    if args.grad:
        fn = jg.grad(fn, argnums=args.argnums)
    try:
        sections = []
        if not (args.optimized or args.kernels):
            sections.append(str(jg.make_graph(fn)(*args.arg)))
        if args.optimized or args.kernels or args.print_after:
            lowered = jg.jit(fn).lower(*args.arg)
            lowered.schedule   # runs the pipeline, which prints after the chosen passes
            if args.optimized:
                sections.append(lowered.optimized_ir)
            if args.kernels:
                sections.append(lowered.kernels)
    except Exception as e:   # tracing runs user code: report any failure in one line
        print(f"jitgrad ir: {args.target}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print("\n\n".join(s.rstrip("\n") for s in sections))
    return 0


def _argnums(text: str):
    try:
        nums = tuple(int(t) for t in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad --argnums {text!r}: expected integers like 0 or 0,1")
    return nums[0] if len(nums) == 1 else nums


# ---------------------------------------------------------------------------------- parser

def build_parser() -> Parser:
    p = Parser(prog="jitgrad", description="jitgrad: traced SSA IR, autodiff as an IR "
               "transformation, fused LLVM kernels")
    p.add_argument("--version", action="version", version=f"jitgrad {jg.__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    d = sub.add_parser("demo", help="the main job: train on handwritten digits",
                       description="Train softmax regression (eager jg.grad) and an MLP (jitted "
                       "step) on the bundled 8x8 digits or MNIST; print accuracy and speed.")
    d.add_argument("--epochs", type=_positive, help="epochs for both models (default: per dataset)")
    d.add_argument("--quick", action="store_true", help="one epoch each (a smoke test)")
    d.add_argument("--data", metavar="DIR", help="train on MNIST IDX files in DIR instead "
                   "(train-images-idx3-ubyte[.gz], ...)")
    d.add_argument("--plot", metavar="FILE.png", type=output_file,
                   help="write loss/accuracy curves (needs matplotlib)")
    d.add_argument("--batch-size", type=_positive, help="mini-batch size (default: per dataset)")
    d.add_argument("--seed", type=int, default=0, help="shuffling and initialization seed")
    d.add_argument("--save-params", metavar="FILE.npz", type=output_file,
                   help="save the trained MLP's parameters (state_dict names) for `jitgrad aot`")
    d.add_argument("--distributed", action="store_true", help="data-parallel over MPI ranks: "
                   "run under mpiexec -n N (see README: Distributed training)")
    d.set_defaults(run=_demo)

    sub.add_parser("bench", help="time jitgrad against NumPy, numba, PyTorch and JAX "
                   "(jitgrad bench --help)", add_help=False)

    i = sub.add_parser("ir", help="print the IR, gradient graph, schedule or kernels of a function",
                       description="Trace MODULE:FUNCTION on abstract arguments and print its IR.")
    i.add_argument("target", metavar="MODULE:FUNCTION",
                   help="an importable module (or a .py file) and a function in it")
    i.add_argument("--arg", type=arg_spec, action="append", default=[], metavar="TYPE",
                   help="one per positional argument, e.g. f32[256,784] or i32[256]")
    i.add_argument("--grad", action="store_true", help="the gradient graph (jg.grad of FUNCTION)")
    i.add_argument("--argnums", type=_argnums, default=0, help="with --grad: which arguments "
                   "to differentiate, e.g. 0 or 0,1 (default 0)")
    i.add_argument("--optimized", action="store_true", help="the optimized schedule of kernels")
    i.add_argument("--kernels", action="store_true", help="the generated kernel source")
    i.add_argument("--print-after", metavar="PASSES",
                   help="print the IR after these passes: all, or e.g. fuse,dce")
    i.set_defaults(run=_ir, subparser=i)

    sub.add_parser("info", help="versions, devices, backends and the cache directory",
                   description="Versions, devices, codegen backends and the kernel cache."
                   ).set_defaults(run=_info)
    c = sub.add_parser("cache", help="show or clear the on-disk kernel cache",
                       description="The on-disk cache of generated kernels (JITGRAD_CACHE_DIR).")
    c.add_argument("action", choices=("info", "clear"),
                   help="info: location and size; clear: delete it")
    c.set_defaults(run=_cache)
    add_aot_parser(sub)
    return p


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return n


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:      # the benchmark harness owns its arguments and --help
        return _bench(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.error("expected a command: demo, bench, ir, aot, info or cache")
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print(f"jitgrad {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:   # noqa: BLE001 - a failure is one line; the traceback on request
        if config.full_traceback():
            raise
        print(f"jitgrad {args.command}: {type(e).__name__}: {one_line(e)} "
              "(JITGRAD_TRACEBACK=full shows the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
