"""Numba's `numba.core.registry` path for the one name programs test against:
`CPUDispatcher`, the class of every `@jit` function (ember's Dispatcher)."""

from ember.dispatcher.dispatcher import Dispatcher as CPUDispatcher

__all__ = ["CPUDispatcher"]
