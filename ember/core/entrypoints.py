"""Numba's `numba.core.entrypoints` path: `init_all()` runs the installed packages' extension
entry points (ember/dispatcher/entrypoints.py)."""

from ember.dispatcher.entrypoints import init_all

__all__ = ["init_all"]
