"""`StructRef` (Numba's `types.StructRef`): the base of user-registered types of mutable structs
shared by reference (ember/experimental/structref.py), and `StructRefPayload`, their fields."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from ember.types.abstract import Type
from ember.types.classes import ManagedStruct


class StructRefDefinitionError(TypeError, ValueError):
    """A badly defined structref (Numba raises ValueError, earlier ember TypeError: both)."""


def _checked_fields(owner: str, fields: Iterable) -> tuple[tuple[str, Type], ...]:
    checked: list[tuple[str, Type]] = []
    for item in fields:
        try:
            name, typ = item
        except (TypeError, ValueError):
            raise TypeError(f"{owner}: a field must be a (name, type) pair, not {item!r}") from None
        if not isinstance(name, str):
            raise StructRefDefinitionError(f"{owner}: expecting a str for field name, got {name!r}")
        if not name.isidentifier():
            raise StructRefDefinitionError(f"{owner}: field name {name!r} is not an identifier")
        if not isinstance(typ, Type):
            raise StructRefDefinitionError(
                f"{owner}: expecting a Numba Type for field type, got {typ!r} for {name!r}"
            )
        if any(name == seen for seen, _ in checked):
            raise TypeError(f"{owner}: field {name!r} is declared twice")
        checked.append((name, typ))
    return tuple(checked)


class StructRef(ManagedStruct):
    """A mutable struct passed by reference. Subclass it, decorate the subclass with
    `structref.register`, and make types with `MyStructType(fields=[("x", float64), ...])`;
    override `preprocess_fields` to adjust the fields (e.g. widen literal types)."""

    def __init__(self, fields: Iterable) -> None:
        owner = type(self).__qualname__
        fields = _checked_fields(owner, fields)
        self._fields = _checked_fields(owner, self.preprocess_fields(fields))
        listed = ", ".join(f"{name}: {typ}" for name, typ in self._fields)
        super().__init__(f"{owner}({listed})")

    def preprocess_fields(self, fields: tuple[tuple[str, Type], ...]) -> Iterable:
        """The fields to keep, given those asked for (a hook for subclasses)."""
        return fields

    @property
    def key(self) -> Any:
        return self._fields

    @property
    def mangling(self) -> str:
        # qualnames repeat (classes made in functions): the class's identity keeps symbols apart
        return f"{super().mangling}_{id(type(self)):x}"

    @property
    def fields(self) -> tuple[tuple[str, Type], ...]:
        """(name, type) pairs in declaration order."""
        return self._fields

    @property
    def field_dict(self) -> Mapping[str, Type]:
        """A read-only mapping of field name -> type."""
        return MappingProxyType(self.struct)

    @property
    def struct(self) -> dict[str, Type]:
        found = self.__dict__.get("_struct")
        if found is None:
            found = self._struct = dict(self._fields)
        return found

    def get_data_type(self) -> StructRefPayload:
        """The type of the struct behind the reference."""
        return StructRefPayload(type(self).__name__, self._fields)

    def _rebuild_args(self) -> tuple:
        return (self._fields,)


class StructRefPayload(Type):
    """The fields of a structref's struct, as one value type (Numba's name)."""

    def __init__(self, typename: str, fields: Iterable) -> None:
        self._typename = typename
        self._fields = _checked_fields(typename, fields)
        listed = ", ".join(f"{name}: {typ}" for name, typ in self._fields)
        super().__init__(f"{typename}.payload({listed})")

    @property
    def key(self) -> Any:
        return (self._typename, self._fields)

    @property
    def fields(self) -> tuple[tuple[str, Type], ...]:
        return self._fields

    @property
    def field_dict(self) -> Mapping[str, Type]:
        return MappingProxyType(dict(self._fields))

    def _rebuild_args(self) -> tuple:
        return (self._typename, self._fields)
