"""Numba's `numba.core.registry` path for the names programs take from it: `CPUDispatcher`, the
class of every `@jit` function (ember's Dispatcher), and `cpu_target`, whose `typing_context`
and `target_context` are ember's typing and lowering contexts."""

import functools

from ember.dispatcher.dispatcher import Dispatcher as CPUDispatcher


class _CPUTarget:
    """The CPU target's contexts, made on first use."""

    @functools.cached_property
    def typing_context(self):
        from ember.typing.context import TypingContext

        return TypingContext()

    @functools.cached_property
    def target_context(self):
        from ember.lowering.context import CPUContext

        return CPUContext()


cpu_target = _CPUTarget()

__all__ = ["CPUDispatcher", "cpu_target"]
