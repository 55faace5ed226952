"""`Optional(T)`: a value of type T or None, as Numba's `types.Optional` (`types.optional`)."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Type
from ember.types.scalars import NoneType, unliteral


class Optional(Type):
    """T or None: the type of a variable (or return value) that is None on some paths."""

    def __init__(self, typ: Type) -> None:
        typ = unliteral(typ)
        if isinstance(typ, (Optional, NoneType)):
            raise TypeError(f"cannot make an Optional of {typ}")
        self.type = typ
        super().__init__(f"OptionalType({typ})")

    @property
    def key(self) -> Any:
        return self.type

    @property
    def is_precise(self) -> bool:  # type: ignore[override]
        return self.type.is_precise

    def _rebuild_args(self) -> tuple:
        return (self.type,)


optional = Optional
