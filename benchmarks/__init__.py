"""jitgrad benchmarks: `python -m jitgrad.benchmarks --help` (cli.py); how timing works: harness.py."""
from .cli import main

__all__ = ["main"]
