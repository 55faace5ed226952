"""NumPy array types: dtype, number of dimensions, layout ('C', 'F', 'A') and writability,
plus the small types array code needs: raw pointers, slices, `...`, dtypes and iterators."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Dummy, Type
from ember.types.scalars import numpy_scalar, plain_number
from ember.types.strings import element_value_type


class ArrayCompatible(Type):
    """Numba's base of array-like types: a subclass names the array type it stands for in
    `as_array` (extension types such as a pandas-like Series derive from it)."""

    array_priority = 0.0

    @property
    def as_array(self) -> Array:
        raise NotImplementedError(f"{type(self).__name__} must define as_array")


class Buffer(ArrayCompatible):
    """Numba's base of types with a dtype, a number of dimensions and a layout; an extension
    type subclassing it is built as `super().__init__(dtype, ndim, layout)`."""

    def __init__(
        self, dtype: Type, ndim: int, layout: str, readonly: bool = False, name: str | None = None
    ) -> None:
        if layout not in ("C", "F", "A"):
            raise ValueError(f"array layout must be 'C', 'F' or 'A', not {layout!r}")
        self.dtype = dtype = plain_number(dtype)  # an array's dtype, not a NumPy scalar's type
        self.ndim = ndim
        self.layout = layout
        self.readonly = readonly
        kind = type(self).__name__.lower()
        super().__init__(name or f"{kind}({dtype}, {ndim}d, {layout})")

    @property
    def key(self) -> Any:
        return (self.dtype, self.ndim, self.layout, self.readonly)

    @property
    def mutable(self) -> bool:
        """Numba's name: items can be assigned (not read-only)."""
        return not self.readonly

    @property
    def as_array(self) -> Array:
        return Array(self.dtype, self.ndim, self.layout, self.readonly)

    def _rebuild_args(self) -> tuple:
        return (self.dtype, self.ndim, self.layout, self.readonly)


class Array(Buffer):
    """`Array(float64, 2, 'C')`: the type of a NumPy array as compiled code sees it."""

    def __init__(
        self, dtype: Type, ndim: int, layout: str, readonly: bool = False, aligned: bool = True
    ) -> None:
        from ember.types.records import NestedArray, Record

        # Numba's flag (its repr spells it): ember has one kind of array type, which is what
        # Numba calls unaligned for records not padded as a C struct
        if not aligned and not (isinstance(dtype, Record) and not dtype.aligned):
            raise ValueError("ember has no unaligned array types: drop aligned=False")

        if isinstance(dtype, NestedArray):  # NumPy's: a sub-array dtype adds its dimensions
            dtype, ndim = dtype.dtype, ndim + len(dtype.shape)
        if layout not in ("C", "F", "A"):
            raise ValueError(f"array layout must be 'C', 'F' or 'A', not {layout!r}")
        if ndim <= 1 and layout == "F":
            layout = "C"  # a contiguous array of 0 or 1 dimensions is both: say 'C'
        prefix = "readonly array" if readonly else "array"
        super().__init__(dtype, ndim, layout, readonly, f"{prefix}({dtype}, {ndim}d, {layout})")

    @property
    def as_array(self) -> Array:
        return self

    @property
    def aligned(self) -> bool:
        """Numba's flag: ember's arrays are always aligned for their dtype."""
        return True

    def __repr__(self) -> str:  # Numba's, as programs print `f.signatures`
        return f"Array({self.dtype!r}, {self.ndim}, '{self.layout}', {self.readonly}, aligned=True)"

    def copy(
        self,
        dtype: Type | None = None,
        ndim: int | None = None,
        layout: str | None = None,
        readonly: bool | None = None,
    ) -> Array:
        """This array type with some properties replaced."""
        return Array(
            self.dtype if dtype is None else dtype,
            self.ndim if ndim is None else ndim,
            self.layout if layout is None else layout,
            self.readonly if readonly is None else readonly,
        )

    @property
    def iterator_type(self) -> ArrayIterator:
        return ArrayIterator(self)


class PythonBuffer(Buffer):
    """A Python object exporting its memory through the buffer protocol, passed to compiled
    code: it is the array over that memory (its writes reach the object), with the array's
    data model; the subclasses are Numba's types of `bytearray`, `memoryview` and
    `array.array` arguments."""

    def __init__(self, dtype: Type, ndim: int, layout: str, readonly: bool = False) -> None:
        marker = ", readonly" if readonly else ""
        name = f"{type(self).__name__.lower()}({dtype}, {ndim}d, {layout}{marker})"
        super().__init__(dtype, ndim, layout, readonly, name)

    @property
    def as_array(self) -> Array:
        return Array(self.dtype, self.ndim, self.layout, self.readonly)


class ByteArray(PythonBuffer):
    """Numba's `ByteArray(uint8, 1, 'C')`: the type of a `bytearray`."""


class MemoryView(PythonBuffer):
    """Numba's `MemoryView(dtype, ndim, layout, readonly=...)`: the type of a `memoryview`."""


class PyArray(PythonBuffer):
    """Numba's `PyArray(dtype, 1, 'C')`: the type of an `array.array`."""


def array_from_slices(dtype: Type, spec: Any) -> Array:
    """Numba's spelling `float64[:, ::1]`: the unit step marks the contiguous dimension."""
    slices = spec if isinstance(spec, tuple) else (spec,)
    if not all(isinstance(s, slice) and s.start is None and s.stop is None for s in slices):
        raise KeyError(  # Numba's exception and words
            f"Can only index numba types with slices with no start or stop, got {spec!r} "
            "(array types are spelled with ':' and '::1', e.g. float64[:, ::1])"
        )
    steps = [s.step for s in slices]
    if any(step not in (None, 1) for step in steps):
        raise TypeError(f"only a step of 1 marks a contiguous dimension, got {spec!r}")
    layout = "A"
    if steps[-1] == 1 and all(step is None for step in steps[:-1]):
        layout = "C"
    elif steps[0] == 1 and all(step is None for step in steps[1:]):
        layout = "F"
    return Array(dtype, len(slices), "C" if len(slices) == 1 and layout == "F" else layout)


class RawPointer(Type):
    """An untyped machine pointer with runtime data (a meminfo, a PyObject*, array data)."""

    def can_convert_to(self, context: Any, other: Type) -> int | None:
        """A C function's `void *` stores into a 64-bit integer (its address), unsafely."""
        from ember.types.scalars import Integer

        if isinstance(other, Integer) and other.bitwidth == 64:
            return 4  # Conversion.unsafe (ember.typing.conversions)
        return None


meminfo_pointer = RawPointer("meminfo*")
pyobject_pointer = RawPointer("pyobject*")
data_pointer = RawPointer("void*")


class SliceType(Type):
    """A `slice` object of integers: `start:stop` or, with `has_step`, `start:stop:step`."""

    def __init__(self, has_step: bool) -> None:
        self.has_step = has_step
        super().__init__("slice<a:b:c>" if has_step else "slice<a:b>")

    @property
    def key(self) -> Any:
        return self.has_step

    def _rebuild_args(self) -> tuple:
        return (self.has_step,)


slice2_type = SliceType(False)
slice3_type = SliceType(True)


class EllipsisType(Dummy):
    """The `...` constant used in an index."""

    def __init__(self, name: str = "...") -> None:  # as Python (and Numba) show it
        super().__init__(name)

    def _rebuild_args(self) -> tuple:
        return ()


ellipsis_type = EllipsisType()


class DType(Dummy):
    """A NumPy dtype known at compile time (`a.dtype`, `np.dtype('f8')`), usable as an argument."""

    def __init__(self, dtype: Type) -> None:
        self.dtype = dtype
        super().__init__(f"dtype({dtype})")

    @property
    def key(self) -> Any:
        return self.dtype

    def _rebuild_args(self) -> tuple:
        return (self.dtype,)

    def __getitem__(self, spec: Any) -> Type:
        """`DType(int32)[:]` spells an array of the dtype, as `int32[:]` does."""
        return array_from_slices(self.dtype, spec)


class ArrayIterator(Type):
    """`iter(a)`: a pointer to {array, next index} state; yields items or sub-array views."""

    def __init__(self, array_type: Array) -> None:
        self.array_type = array_type
        if array_type.ndim == 1:  # an item is a NumPy scalar (strong in NumPy's promotion)
            self.yield_type = numpy_scalar(element_value_type(array_type.dtype))
        else:
            layout = "C" if array_type.layout == "C" else "A"
            self.yield_type = array_type.copy(ndim=array_type.ndim - 1, layout=layout)
        super().__init__(f"iter({array_type})")

    @property
    def key(self) -> Any:
        return self.array_type

    def _rebuild_args(self) -> tuple:
        return (self.array_type,)


class EnumerateType(Type):
    """`enumerate(iterable)`: a pointer to {count, inner iterator}; yields (int64, item)."""

    def __init__(self, inner: Type) -> None:
        from ember.types.containers import Tuple
        from ember.types.scalars import int64

        self.inner = inner
        self.yield_type = Tuple((int64, inner.yield_type))
        super().__init__(f"enumerate({inner})")

    @property
    def key(self) -> Any:
        return self.inner

    def _rebuild_args(self) -> tuple:
        return (self.inner,)


class ZipType(Type):
    """`zip(a, b, ...)`: a pointer to the inner iterators; yields a tuple of their items."""

    def __init__(self, inners: tuple) -> None:
        from ember.types.containers import make_tuple

        self.inners = tuple(inners)
        self.yield_type = make_tuple(t.yield_type for t in self.inners)
        super().__init__("zip(" + ", ".join(str(t) for t in self.inners) + ")")

    @property
    def key(self) -> Any:
        return self.inners

    def _rebuild_args(self) -> tuple:
        return (self.inners,)
