"""The transformations: jit (and its compile seam to the passes and backends), grad and friends,
jacobians, vmap, custom_vjp, checkpoint, the control-flow front end (scan, while_loop, cond),
donation and module state under jit."""
