"""Types of Python enums (`enum.Enum`, `enum.IntEnum`): a member type per enum class, held as its
value, and the class itself as a compile-time value. Consumes enum classes; produces types."""

from __future__ import annotations

import enum
from typing import Any

from ember.errors import TypingError
from ember.types.abstract import Dummy, Type
from ember.types.scalars import Integer, Number, complex128, float64, int64, uint64


class EnumMember(Type):
    """A member of one enum class, held as its value (of type `dtype`: a number, or a tuple
    of numbers)."""

    def __init__(self, instance_class: type, dtype: Type) -> None:
        self.instance_class = instance_class
        self.dtype = dtype
        kind = type(self).__name__
        super().__init__(f"{kind}({instance_class.__qualname__}, {dtype})")

    @property
    def key(self) -> Any:
        return (self.instance_class, self.dtype)

    def _rebuild_args(self) -> tuple:
        return (self.instance_class, self.dtype)


class IntEnumMember(EnumMember):
    """A member of an `IntEnum` class: also an integer in arithmetic and comparisons."""


class EnumClass(Dummy):
    """An enum class used as a value: its attributes are members, calling it looks one up."""

    def __init__(self, instance_class: type, dtype: Type) -> None:
        self.instance_class = instance_class
        self.dtype = dtype
        super().__init__(f"{type(self).__name__}({instance_class.__qualname__}, {dtype})")

    @property
    def key(self) -> Any:
        return (self.instance_class, self.dtype)

    def _rebuild_args(self) -> tuple:
        return (self.instance_class, self.dtype)

    @property
    def member_type(self) -> EnumMember:
        member_class = IntEnumMember if isinstance(self, IntEnumClass) else EnumMember
        return member_class(self.instance_class, self.dtype)


class IntEnumClass(EnumClass):
    """An `IntEnum` class used as a value."""


def enum_member_type(enum_class: type) -> EnumMember:
    """The type of the members of `enum_class`; a TypingError when their values are not all
    numbers of one type."""
    found = _member_types.get(enum_class)
    if found is None:
        found = _member_types[enum_class] = enum_class_type(enum_class).member_type
    return found


def enum_class_type(enum_class: type) -> EnumClass:
    """The type of `enum_class` used as a value (the same checks as its members' type)."""
    found = _class_types.get(enum_class)
    if found is None:
        dtype = _value_type(enum_class)
        is_int = issubclass(enum_class, int) and isinstance(dtype, Integer)
        found = (IntEnumClass if is_int else EnumClass)(enum_class, dtype)
        _class_types[enum_class] = found
    return found


_class_types: dict[type, EnumClass] = {}
_member_types: dict[type, EnumMember] = {}


def _value_type(enum_class: type) -> Type:
    members = list(enum_class.__members__.items())
    if not members:
        raise TypingError(f"enum class {enum_class.__qualname__!r} has no members to type")
    found = {name: _value_number_type(member.value) for name, member in members}
    kinds = {typ for typ in found.values()}
    if len(kinds) == 1 and None not in kinds:
        return kinds.pop()
    if None not in kinds:  # numbers of several types: Numba's words (and a ValueError too)
        names = ", ".join(sorted(str(kind) for kind in kinds))
        raise HeterogeneousEnumError(f"Cannot type heterogeneous enum: got value types {names}")
    spelled = ", ".join(
        f"{name}={member.value!r} ({found[name] or type(member.value).__name__})"
        for name, member in members
    )
    raise TypingError(
        f"cannot type enum class {enum_class.__qualname__!r}: the values of its members must "
        f"all be numbers (or tuples of numbers) of one type, got {spelled}"
    )


class HeterogeneousEnumError(TypingError, ValueError):
    """An enum whose members' values are numbers of different types (Numba: a ValueError)."""


def _value_number_type(value: Any) -> Type | None:
    """A member value's type: a number, or a tuple of numbers (`MARS = (6.4e23, 3.4e6)`)."""
    if type(value) is not tuple:
        return _number_type(value)
    from ember.types.containers import Tuple, UniTuple

    items = [_value_number_type(item) for item in value]
    if not items or None in items:
        return None
    if all(item == items[0] for item in items):
        return UniTuple(items[0], len(items))
    return Tuple(tuple(items))


def _number_type(value: Any) -> Number | None:
    cls = type(value)
    if cls is float:
        return float64
    if cls is complex:
        return complex128
    if isinstance(value, int) and cls is not bool and not isinstance(value, enum.Enum):
        if int64.minval <= value <= int64.maxval:
            return int64
        return uint64 if 0 <= value <= uint64.maxval else None
    return None
