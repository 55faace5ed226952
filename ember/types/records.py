"""NumPy structured (record) dtypes: `Record` lists each field's name, type and byte offset
(a number, a nested `Record`, or a `NestedArray` sub-array). An element of a record array is a
reference to its bytes inside the array."""

from __future__ import annotations

from typing import Any, NamedTuple

from ember.types.abstract import Type


class RecordField(NamedTuple):
    """A field of a record: Numba's (type, offset, alignment, title); the last two are None
    unless given."""

    type: Type
    offset: int
    alignment: int | None = None
    title: str | None = None


class NestedArray(Type):
    """`NestedArray(float64, (3,))`: a sub-array field (`('v', 'f8', (3,))`), C-ordered inside
    each record; reading it gives an array view of those bytes."""

    def __init__(self, dtype: Type, shape: tuple) -> None:
        self.dtype = dtype
        self.shape = tuple(int(n) for n in shape)
        super().__init__(f"NestedArray({dtype}, {self.shape})")

    @property
    def key(self) -> Any:
        return (self.dtype, self.shape)

    def _rebuild_args(self) -> tuple:
        return (self.dtype, self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)


class Record(Type):
    """`Record([(name, type, offset), ...], size, aligned)`: one element of a structured array
    (Numba's members `(name, {'type': t, 'offset': n, ...})` are accepted too)."""

    def __init__(self, members: Any, size: int, aligned: bool = False) -> None:
        members = [
            (m[0], m[1]["type"], m[1]["offset"]) if isinstance(m[1], dict) else m for m in members
        ]
        self.members = tuple((name, typ, int(offset)) for name, typ, offset in members)
        self.size = int(size)
        self.aligned = bool(aligned)
        self.fields = {name: RecordField(typ, offset) for name, typ, offset in self.members}
        spelled = ",".join(f"{name}[type={typ};offset={off}]" for name, typ, off in self.members)
        super().__init__(f"Record({spelled};{self.size};{self.aligned})")

    def __repr__(self) -> str:  # Numba's: a constructor call that eval() rebuilds
        members = ", ".join(
            f"({name!r}, {{'type': {typ!r}, 'offset': {offset}, 'alignment': None, "
            "'title': None, })"
            for name, typ, offset in self.members
        )
        return f"Record([{members}], {self.size}, {self.aligned})"

    @property
    def key(self) -> Any:
        return (self.members, self.size, self.aligned)

    def _rebuild_args(self) -> tuple:
        return (self.members, self.size, self.aligned)

    def __len__(self) -> int:
        """The number of fields (Numba's)."""
        return len(self.fields)

    def __bool__(self) -> bool:
        return True  # a type is always true, even a record without fields

    def typeof(self, field: str) -> Type:
        return self.fields[field].type

    def offset(self, field: str) -> int:
        return self.fields[field].offset

    @property
    def dtype(self) -> Any:
        """The NumPy dtype this record type stands for."""
        import numpy as np

        from ember.library.numpy.support import numpy_dtype

        def field_dtype(typ: Type) -> Any:
            if isinstance(typ, NestedArray):
                return np.dtype((numpy_dtype(typ.dtype), typ.shape))
            return numpy_dtype(typ)

        return np.dtype(
            {
                "names": [name for name, _, _ in self.members],
                "formats": [field_dtype(typ) for _, typ, _ in self.members],
                "offsets": [offset for _, _, offset in self.members],
                "itemsize": self.size,
            },
            align=self.aligned,
        )
