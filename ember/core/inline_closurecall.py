"""Numba's `numba.core.inline_closurecall.length_of_iterator` path: how many items an iterator
(of a range, a list, an array...) has left, counted by running it to the end."""

from ember.extending import register_jitable

__all__ = ["length_of_iterator"]


@register_jitable
def length_of_iterator(iterator):
    """The items `iterator` yields from here on (it is exhausted afterwards)."""
    count = 0
    for _ in iterator:
        count += 1
    return count
