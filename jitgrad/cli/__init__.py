"""The `jitgrad` command line: main (the parser and the cache commands), aot_command, the demo and
the distributed demo. `python -m jitgrad.cli` runs it."""
