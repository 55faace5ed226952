"""String types: `unicode_type` (Numba's `types.unicode_type`, also `types.string`), a Python
`str` in compiled code, and the iterator over its characters; `bytes_type`; and the
fixed-size elements of NumPy string arrays, `UnicodeCharSeq` ('<U3') and `CharSeq` ('S3'),
which read as a `str` and a `bytes`."""

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


class BytesType(Type):
    """Immutable `bytes` made in compiled code (ember/library/strings/bytes.py)."""

    mutable = False  # Numba's flag on its buffer types

    def _rebuild_args(self) -> tuple:
        return (self.name,)

    @property
    def iterator_type(self) -> BytesIterator:
        return BytesIterator(self)


class BytesIterator(Type):
    """`iter(b)`: yields the byte values as ints."""

    def __init__(self, bytes_type: BytesType) -> None:
        from ember.types.scalars import int64  # (scalars imports this module)

        self.bytes_type = bytes_type
        self.yield_type = int64
        super().__init__(f"iter({bytes_type})")

    @property
    def key(self) -> Any:
        return self.bytes_type

    def _rebuild_args(self) -> tuple:
        return (self.bytes_type,)


bytes_type = BytesType("bytes")


class _CharSeq(Type):
    """`count` fixed-size characters of a NumPy string array's element (NUL-padded)."""

    unit_bytes = 1
    numpy_kind = "S"
    unit_name = "char"

    def __init__(self, count: int) -> None:
        self.count = int(count)
        super().__init__(f"[{self.unit_name} x {self.count}]")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.count})"

    @property
    def key(self) -> Any:
        return self.count

    def _rebuild_args(self) -> tuple:
        return (self.count,)

    @property
    def size(self) -> int:
        """Bytes per element."""
        return self.count * self.unit_bytes


class UnicodeCharSeq(_CharSeq):
    """An element of a '<U<count>' array: UCS-4 code points; reads as a `str`."""

    unit_bytes = 4
    numpy_kind = "U"
    unit_name = "unichr"

    @property
    def value_type(self) -> UnicodeType:
        return unicode_type


class CharSeq(_CharSeq):
    """An element of an 'S<count>' array: bytes; reads as a `bytes`."""

    @property
    def value_type(self) -> BytesType:
        return bytes_type


def element_value_type(dtype: Type) -> Type:
    """What reading one element of an array of `dtype` gives: a string array's fixed-size
    element reads as a `str` (or `bytes`), trailing NULs stripped as NumPy does."""
    return dtype.value_type if isinstance(dtype, _CharSeq) else dtype
