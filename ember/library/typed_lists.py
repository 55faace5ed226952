"""`ember.typed.List()` and `List(iterable)` inside compiled code: ordinary lists (an empty one
is typed by what is later put in it, as `[]` is)."""

from __future__ import annotations

from ember import types
from ember.typed import List
from ember.typing.overload import overload


@overload(List)
def typed_list(iterable=None):
    if iterable is None or isinstance(iterable, types.NoneType):

        def empty(iterable=None):
            return []

        return empty

    def filled(iterable=None):
        return list(iterable)

    return filled
