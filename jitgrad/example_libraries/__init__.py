"""jitgrad.example_libraries: jax.example_libraries' optimizers and stax, over jitgrad, so
programs written against them run after `import jitgrad as jax`. Loaded on first use."""
