"""The `jitgrad` command: info, demo, and (as they land) bench, ir, cache, aot."""
from __future__ import annotations

import argparse
import sys


def _info(args) -> int:
    import llvmlite
    import numba
    import numpy

    import jitgrad
    from jitgrad.runtime import config
    from jitgrad.runtime.cuda_device import _probe
    count, why = _probe()
    print(f"jitgrad   {jitgrad.__version__}")
    print(f"numpy     {numpy.__version__}")
    print(f"numba     {numba.__version__}")
    print(f"llvmlite  {llvmlite.__version__}")
    print("devices   cpu, meta" + (f", cuda (x{count})" if count else f"  (cuda: {why})"))
    print(f"cache     {config.cache_dir()}")
    return 0


def _demo(args) -> int:
    from jitgrad.demo import main
    return main(args)


COMMANDS = {"info": _info, "demo": _demo}


def build_parser() -> argparse.ArgumentParser:
    import jitgrad
    p = argparse.ArgumentParser(prog="jitgrad", description="jitgrad: traced SSA IR, autodiff "
                                "as an IR transformation, fused numba kernels")
    p.add_argument("--version", action="version", version=f"jitgrad {jitgrad.__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("info", help="versions, devices and the cache directory")
    d = sub.add_parser("demo", help="the main job: train on handwritten digits")
    d.add_argument("--epochs", type=int, default=None, help="epochs to train")
    d.add_argument("--quick", action="store_true", help="a short run (one epoch)")
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    return COMMANDS[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
