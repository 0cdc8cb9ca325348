"""Ahead-of-time artifacts: `compiled.save(path)` and `jg.load(path)` (save_load), the zip format
(artifact). Loaded on first use of jg.load; the native-library export is codegen/native/."""
