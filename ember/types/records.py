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


def _member_with_title(member: Any) -> tuple:
    """(name, type, offset, title or None) of one member in any accepted spelling."""
    if isinstance(member[1], dict):
        spec = member[1]
        return (member[0], spec["type"], int(spec["offset"]), spec.get("title"))
    name, typ, offset, *title = member
    return (name, typ, int(offset), title[0] if title else None)


def _field_dtype(typ: Type) -> Any:
    """The NumPy dtype of one record field (a sub-array field: its element dtype and shape)."""
    import numpy as np

    from ember.library.numpy.support import numpy_dtype

    if isinstance(typ, NestedArray):
        return np.dtype((numpy_dtype(typ.dtype), typ.shape))
    return numpy_dtype(typ)


class Record(Type):
    """`Record([(name, type, offset), ...], size, aligned)`: one element of a structured array
    (Numba's members `(name, {'type': t, 'offset': n, 'title': ...})` are accepted too, and
    `(name, type, offset, title)`). A field's title (NumPy's alias of its name) reaches the
    field as its name does."""

    def __init__(self, fields: Any, size: int, aligned: bool = False) -> None:
        spelled_members = [_member_with_title(m) for m in fields]  # (Numba's keyword: fields)
        self.members = tuple((name, typ, offset) for name, typ, offset, _ in spelled_members)
        self.titles = {name: title for name, _, _, title in spelled_members if title is not None}
        self.size = int(size)
        self.aligned = bool(aligned)
        self.fields = {}
        for name, typ, offset, title in spelled_members:
            self.fields[name] = RecordField(typ, offset, None, title)
            if title is not None:
                self.fields[title] = RecordField(typ, offset, None, title)
        spelled = ",".join(
            f"{name}[type={typ};offset={off}" + (f";title={title}" if title else "") + "]"
            for name, typ, off, title in spelled_members
        )
        super().__init__(f"Record({spelled};{self.size};{self.aligned})")

    def __repr__(self) -> str:  # Numba's: a constructor call that eval() rebuilds
        members = ", ".join(
            f"({name!r}, {{'type': {typ!r}, 'offset': {offset}, 'alignment': None, "
            f"'title': {self.titles.get(name)!r}, }})"
            for name, typ, offset in self.members
        )
        return f"Record([{members}], {self.size}, {self.aligned})"

    @property
    def key(self) -> Any:
        return (self.members, tuple(sorted(self.titles.items())), self.size, self.aligned)

    def _rebuild_args(self) -> tuple:
        members = tuple((*member, self.titles.get(member[0])) for member in self.members)
        return (members, self.size, self.aligned)

    def is_title(self, key: str) -> bool:
        """Whether `key` is a field's title (rather than its name)."""
        return key in self.titles.values()

    def __bool__(self) -> bool:
        return True  # a type is always true, even a record without fields

    def typeof(self, field: str) -> Type:
        return self.fields[field].type

    def offset(self, field: str) -> int:
        return self.fields[field].offset

    def __len__(self) -> int:
        """The number of fields (Numba's), titles not counted apart."""
        return len(self.members)

    def can_convert_to(self, context: Any, other: Type) -> Any:
        """Record subtyping (as Numba's): this record converts safely to one whose every field
        it holds with the same type at the same offset, so code compiled for that one reads
        (and writes) this record's bytes in place."""
        if not isinstance(other, Record) or other == self or other.size > self.size:
            return None
        for name, typ, offset in other.members:
            mine = self.fields.get(name)
            if mine is None or mine.type != typ or mine.offset != offset:
                return None
        from ember.typing.conversions import Conversion

        return Conversion.safe

    @classmethod
    def make_c_struct(cls, name_types: Any) -> Record:
        """The record of `[(name, type), ...]` laid out as a C compiler lays out the struct
        (each field at its alignment, the size rounded up to the largest): an aligned record."""
        import numpy as np

        layout = np.dtype(
            {
                "names": [name for name, _ in name_types],
                "formats": [_field_dtype(typ) for _, typ in name_types],
            },
            align=True,
        )
        members = [(name, typ, layout.fields[name][1]) for name, typ in name_types]
        return cls(members, layout.itemsize, aligned=True)

    @property
    def dtype(self) -> Any:
        """The NumPy dtype this record type stands for: the first one typed as it (so that
        arrays made from that dtype object match it by identity), else one built once."""
        found = self.__dict__.get("_numpy_dtype")
        if found is None:
            found = self._numpy_dtype = self._build_dtype()
        return found

    def remember_dtype(self, dtype: Any) -> None:
        """Keep `dtype`, typed as this record, as the record's `dtype` if it has none yet."""
        self.__dict__.setdefault("_numpy_dtype", dtype)

    def _build_dtype(self) -> Any:
        import numpy as np

        return np.dtype(
            {
                "names": [name for name, _, _ in self.members],
                "formats": [_field_dtype(typ) for _, typ, _ in self.members],
                "offsets": [offset for _, _, offset in self.members],
                "titles": [self.titles.get(name) for name, _, _ in self.members],
                "itemsize": self.size,
            },
            align=self.aligned,
        )
