"""Compound types: tuples, ranges and their iterators."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Type
from ember.types.scalars import int64


class BaseTuple(Type):
    """A tuple type; `types` lists the member types in order."""

    types: tuple[Type, ...]

    def __len__(self) -> int:
        return len(self.types)

    def __iter__(self):
        return iter(self.types)


class Tuple(BaseTuple):
    """A heterogeneous tuple."""

    def __init__(self, types: Any) -> None:
        self.types = tuple(types)
        super().__init__("Tuple(" + ", ".join(str(t) for t in self.types) + ")")

    @property
    def key(self) -> Any:
        return self.types

    def _rebuild_args(self) -> tuple:
        return (self.types,)


class UniTuple(BaseTuple):
    """A homogeneous tuple of `count` items of `dtype`."""

    def __init__(self, dtype: Type, count: int) -> None:
        self.dtype = dtype
        self.count = count
        self.types = (dtype,) * count
        super().__init__(f"UniTuple({dtype} x {count})")

    @property
    def key(self) -> Any:
        return (self.dtype, self.count)

    def _rebuild_args(self) -> tuple:
        return (self.dtype, self.count)


def make_tuple(types: Any) -> BaseTuple:
    """The canonical tuple type of `types`: a UniTuple when all members agree."""
    types = tuple(types)
    if types and all(t is types[0] for t in types):
        return UniTuple(types[0], len(types))
    return Tuple(types)


class RangeType(Type):
    """A `range` object over integers of `dtype`."""

    def __init__(self, dtype: Type = int64) -> None:
        self.dtype = dtype
        super().__init__(f"range_state_{dtype}")

    @property
    def key(self) -> Any:
        return self.dtype

    @property
    def iterator_type(self) -> RangeIteratorType:
        return RangeIteratorType(self.dtype)

    def _rebuild_args(self) -> tuple:
        return (self.dtype,)


class RangeIteratorType(Type):
    """The iterator of a range: a pointer to mutable (next, count, step) state."""

    def __init__(self, dtype: Type = int64) -> None:
        self.dtype = dtype
        self.yield_type = dtype
        super().__init__(f"range_iter_{dtype}")

    @property
    def key(self) -> Any:
        return self.dtype

    def _rebuild_args(self) -> tuple:
        return (self.dtype,)


class Pair(Type):
    """The (value, is_valid) result of `iternext`."""

    def __init__(self, first_type: Type, second_type: Type) -> None:
        self.first_type = first_type
        self.second_type = second_type
        super().__init__(f"pair<{first_type}, {second_type}>")

    @property
    def key(self) -> Any:
        return (self.first_type, self.second_type)

    def _rebuild_args(self) -> tuple:
        return (self.first_type, self.second_type)


range_state64_type = RangeType(int64)
range_iter64_type = RangeIteratorType(int64)
