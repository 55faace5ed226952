"""String types: `unicode_type` (Numba's `types.unicode_type`, also `types.string`), a Python
`str` in compiled code, and the iterator over its characters."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Type


class UnicodeType(Type):
    """An immutable Python `str`: reference-counted code points (ember/lowering/strings.py)."""

    def _rebuild_args(self) -> tuple:
        return (self.name,)

    @property
    def iterator_type(self) -> UnicodeIterator:
        return UnicodeIterator(self)


class UnicodeIterator(Type):
    """`iter(s)`: yields one-character strings."""

    def __init__(self, string_type: UnicodeType) -> None:
        self.string_type = string_type
        self.yield_type = string_type
        super().__init__(f"iter({string_type})")

    @property
    def key(self) -> Any:
        return self.string_type

    def _rebuild_args(self) -> tuple:
        return (self.string_type,)


unicode_type = UnicodeType("unicode_type")
