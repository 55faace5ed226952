"""Numba's `numba.typed` for code written against it: `List` is a Python list that remembers
its item type, so an empty one can be passed to compiled code; compiled code sees it as a list
of that type and its changes are written back (see ember/dispatcher/reflection.py). Inside
compiled code `List()` and `List(iterable)` build ordinary lists. `Dict` lives in
ember/typed/typeddict.py."""

from __future__ import annotations

from typing import Any

from ember import types


class List(list):
    """A list with an item type: `List()`, `List([1.0, 2.0])`, `List.empty_list(float64)`."""

    _item_type: types.Type | None = None

    @classmethod
    def empty_list(cls, item_type: Any, allocated: int = 0) -> List:
        """An empty list whose items will be `item_type` (an ember type or a Python/NumPy one)."""
        made = cls()
        made._item_type = _as_type(item_type)
        return made


def _as_type(item_type: Any) -> types.Type:
    if isinstance(item_type, types.Type):
        return item_type
    from ember import from_dtype

    return from_dtype(item_type)


from ember.typed.typeddict import Dict  # noqa: E402 - after List, which it does not need

__all__ = ["Dict", "List"]
