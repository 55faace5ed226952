"""Stage 5b: automatic parallelization (prange loops to parfors, run on a threading layer)."""
