"""Numba's `numba.core.runtime.nrtopt` path. ember pairs and removes redundant reference-count
operations with llvmlite's reference-count pruning pass (see ember/codegen/jit.py), so this
module offers no functions of its own."""
