"""NumPy structured (record) dtypes: `Record` lists each field's name, type and byte offset.
An element of a record array is a reference to its bytes inside the array."""

from __future__ import annotations

from typing import Any, NamedTuple

from ember.types.abstract import Type


class RecordField(NamedTuple):
    type: Type
    offset: int


class Record(Type):
    """`Record([(name, type, offset), ...], size, aligned)`: one element of a structured array."""

    def __init__(self, members: Any, size: int, aligned: bool = False) -> None:
        self.members = tuple((name, typ, int(offset)) for name, typ, offset in members)
        self.size = int(size)
        self.aligned = bool(aligned)
        self.fields = {name: RecordField(typ, offset) for name, typ, offset in self.members}
        spelled = ",".join(f"{name}[type={typ};offset={off}]" for name, typ, off in self.members)
        super().__init__(f"Record({spelled};{self.size};{self.aligned})")

    @property
    def key(self) -> Any:
        return (self.members, self.size, self.aligned)

    def _rebuild_args(self) -> tuple:
        return (self.members, self.size, self.aligned)

    def typeof(self, field: str) -> Type:
        return self.fields[field].type

    def offset(self, field: str) -> int:
        return self.fields[field].offset

    @property
    def dtype(self) -> Any:
        """The NumPy dtype this record type stands for."""
        import numpy as np

        from ember.library.numpy.support import numpy_dtype

        return np.dtype(
            {
                "names": [name for name, _, _ in self.members],
                "formats": [numpy_dtype(typ) for _, typ, _ in self.members],
                "offsets": [offset for _, _, offset in self.members],
                "itemsize": self.size,
            },
            align=self.aligned,
        )
