"""Numba's `numba.core.registry` path for the names programs test against: `CPUDispatcher`, the
class of every `@jit` function (ember's Dispatcher), and `cpu_target`, the host's typing and
target contexts."""

from functools import cached_property

from ember.dispatcher.dispatcher import Dispatcher as CPUDispatcher


class _CPUTarget:
    """Numba's `cpu_target`: `.typing_context` and `.target_context`, made when first asked."""

    @cached_property
    def typing_context(self):
        from ember.typing.context import TypingContext

        return TypingContext()

    @cached_property
    def target_context(self):
        from ember.lowering.context import CPUContext

        return CPUContext()


cpu_target = _CPUTarget()

__all__ = ["CPUDispatcher", "cpu_target"]
