"""Literal container types: a list display whose items share no type (`LiteralList`) and a dict
display of constant string keys whose values share no type (`LiteralStrKeyDict`). Both are
immutable and stored as a tuple of their members; `literal_value` holds the member types."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Type
from ember.types.containers import Tuple
from ember.types.dicts import DictType
from ember.types.lists import List
from ember.types.scalars import Literal, StringLiteral, literal, unliteral


class LiteralContainer(Tuple):
    """The common base: a display's members, kept apart from plain tuples when types merge."""

    def unified_with(self, other: Type, unify: Any) -> Type | None:
        """The type this and `other` become where control flow merges (None: no such type);
        `unify` merges two member types."""
        if type(other) is not type(self) or self.fields_of() != other.fields_of():
            return None
        members = [unify(a, b) for a, b in zip(self.types, other.types)]
        if None in members:
            return None
        return self.rebuilt(members)


class LiteralList(LiteralContainer):
    """`['a', 1, 2j]`: tuple-like; `literal_value` is the list of member types (literal types
    for constant members, so an `@overload` can specialize on the values)."""

    getitem_error = (
        "Cannot __getitem__ on a literal list, return type cannot be statically determined"
    )

    def __init__(self, member_types: Any) -> None:
        self.member_types = tuple(member_types)
        super().__init__(unliteral(t) for t in self.member_types)
        self.name = "LiteralList((" + ", ".join(str(t) for t in self.member_types) + "))"

    @property
    def literal_value(self) -> list[Type]:
        return list(self.member_types)

    @property
    def key(self) -> Any:
        return self.member_types

    def fields_of(self) -> Any:
        return len(self.types)

    def rebuilt(self, members: list[Type]) -> LiteralList:
        return LiteralList(members)

    def from_members(self, members: Any) -> list:
        """The Python value of the members (boxed): what the display makes in CPython."""
        return list(members)

    def _rebuild_args(self) -> tuple:
        return (self.member_types,)


class LiteralStrKeyDict(LiteralContainer):
    """`{'a': 1, 'b': 'cat'}`: a named-tuple-like dict; `literal_value` maps each key's
    StringLiteral type to its value's type, in display order."""

    def __init__(self, items: Any) -> None:
        pairs = items.items() if isinstance(items, dict) else items
        self.pairs = tuple((_key_literal(k), v) for k, v in pairs)
        super().__init__(unliteral(v) for _, v in self.pairs)
        self.fields = tuple(k.literal_value for k, _ in self.pairs)
        self.name = "LiteralStrKeyDict({" + ", ".join(f"{k}: {v}" for k, v in self.pairs) + "})"

    @property
    def literal_value(self) -> dict[Type, Type]:
        return dict(self.pairs)

    @property
    def key(self) -> Any:
        return self.pairs

    def fields_of(self) -> Any:
        return self.fields

    def rebuilt(self, members: list[Type]) -> LiteralStrKeyDict:
        return LiteralStrKeyDict(zip((k for k, _ in self.pairs), members))

    def from_members(self, members: Any) -> dict:
        """The Python value of the members (boxed): what the display makes in CPython."""
        return dict(zip(self.fields, members))

    def _rebuild_args(self) -> tuple:
        return (self.pairs,)


def _key_literal(key: Any) -> StringLiteral:
    found = literal(key) if isinstance(key, str) else key
    if not isinstance(found, StringLiteral):
        raise TypeError(f"a LiteralStrKeyDict key must be a constant string, got {key!r}")
    return found


class InitialValueList(List, Literal):
    """A list made by a display of constants, asked for as a literal (`literally(x)` in an
    overload): the list's type, whose `initial_value` is the display's values (later stores
    change the list, not this)."""

    def __init__(self, dtype: Type, initial_value: Any) -> None:
        self.dtype = dtype  # as List sets it (its __init__ would reach Literal's next)
        self.reflected = False
        self.literal_value = list(initial_value)
        self.literal_type = List(dtype)
        Type.__init__(self, f"list({dtype})<iv={self.literal_value}>")

    @property
    def initial_value(self) -> list:
        return list(self.literal_value)

    @property
    def key(self) -> Any:
        return (self.dtype, _hashable(self.literal_value))

    def _rebuild_args(self) -> tuple:
        return (self.dtype, self.literal_value)


class InitialValueDict(DictType, Literal):
    """A dict made by a display of constants, asked for as a literal: `initial_value` is the
    display's {key: value}."""

    def __init__(self, key_type: Type, value_type: Type, initial_value: dict) -> None:
        self.literal_type = DictType(key_type, value_type)
        self.key_type, self.value_type = self.literal_type.key_type, self.literal_type.value_type
        self.literal_value = dict(initial_value)
        Type.__init__(self, f"DictType[{self.key_type},{self.value_type}]<iv={self.literal_value}>")

    @property
    def initial_value(self) -> dict:
        return dict(self.literal_value)

    @property
    def key(self) -> Any:
        return (self.key_type, self.value_type, _hashable(self.literal_value.items()))

    def _rebuild_args(self) -> tuple:
        return (self.key_type, self.value_type, self.literal_value)


def _hashable(values: Any) -> tuple:
    """The values with their classes (1 and 1.0 and True are different initial values)."""
    return tuple(
        _hashable(v) + (type(v),) if isinstance(v, (tuple, list)) else (type(v), v) for v in values
    )
