"""Optimization passes, one per file, each a pure function Graph -> Graph (plan_memory returns a
MemoryPlan for a schedule). manager.run_pipeline runs them in order:

    canonicalize → fold_constants → cse → dce → fuse → plan_memory

fusion_rules.py holds fusion legality (can_fuse / analyze) and profitability (score) apart;
rewriter.py is the copy-with-substitution helper the rewriting passes share.
"""
