"""List types: `List(dtype)`, its iterator, and the `undefined` element of an empty list display
whose element type a later `append`/`extend`/`insert`/setitem decides."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Type
from ember.types.arrays import Array, SliceType
from ember.types.classes import ManagedStruct
from ember.types.containers import BaseTuple, UniTuple, widened
from ember.types.scalars import Number, plain_number
from ember.types.strings import BytesType, UnicodeType


class Undefined(Type):
    """The element type of `[]` before inference has seen anything stored into it."""

    is_precise = False

    def __init__(self) -> None:
        super().__init__("undefined")

    def _rebuild_args(self) -> tuple:
        return ()


undefined = Undefined()


class List(Type):
    """A mutable, growable list of `dtype` items, shared by reference as in Python: Numba's
    `types.List`. `reflected` marks a list passed from Python, whose changes are written back
    to the caller's list; a list made in compiled code (`[...]`, `list()`) is not reflected.
    Both come back to Python as Python lists."""

    initial_value = None  # a display's constants, once asked for: literal_containers.py

    def __init__(self, dtype: Type, reflected: bool = False, initial_value: Any = None) -> None:
        self.dtype = plain_number(dtype)  # [a[0]] holds int64s, as [5]
        self.reflected = bool(reflected)
        kind = "reflected list" if self.reflected else "list"
        super().__init__(f"{kind}({dtype})<iv=None>")

    def __repr__(self) -> str:
        return f"List({self.dtype!r}, {self.reflected})"

    @property
    def key(self) -> Any:
        return (self.dtype, self.reflected)

    @property
    def item_type(self) -> Type:
        """Numba's name for `dtype` on its typed-list type (`ListType`)."""
        return self.dtype

    def __getitem__(self, spec: Any) -> Type:
        """`List(int64)[0]` is the item type (Numba's spelling); slices spell arrays."""
        if isinstance(spec, int):
            return self.dtype
        return super().__getitem__(spec)

    @property
    def is_precise(self) -> bool:  # type: ignore[override]
        return self.dtype.is_precise

    @property
    def iterator_type(self) -> ListIterator:
        return ListIterator(self)

    def of(self, dtype: Type) -> List:
        """A list of the same kind (reflected, typed or neither) holding `dtype` items."""
        return List(dtype, self.reflected)

    def refined_by(self, method: str, args: tuple) -> List | None:
        """The type an empty list of undefined items takes from `xs.method(*args)`
        (`__setitem__` for `xs[i] = v`), or None when that call decides nothing."""
        if method == "__setitem__" and len(args) == 2 and isinstance(args[0], SliceType):
            method, args = "extend", args[1:]  # `xs[i:j] = ys` stores the items of ys
        if method in ("append", "__setitem__") and args:
            return self.of(widened(args[-1]))
        if method == "insert" and len(args) == 2:
            return self.of(widened(args[1]))
        if method == "extend" and len(args) == 1:  # from any iterable: `xs.extend(range(n))`
            item = items_of(args[0])
            return None if item is None or not item.is_precise else self.of(widened(item))
        return None

    def provisional_result(self, method: str, args: tuple) -> Type | None:
        """What `method(*args)` gives before a store decides the items (None: wait)."""
        return None

    def _rebuild_args(self) -> tuple:
        return (self.dtype, self.reflected)


class ListType(List):
    """Numba's `types.ListType`: the type of an `ember.typed.List`, which comes back to Python
    as a typed List sharing the native list. It is stored and lowered as `List` is (a
    subclass, so every list operation applies), and differs in its boxing and spelling."""

    def __init__(self, itemty: Type) -> None:
        self.dtype = itemty
        self.reflected = False
        self.initial_value = None
        Type.__init__(self, f"ListType[{itemty}]")

    def __repr__(self) -> str:
        return f"ListType({self.dtype!r})"

    @property
    def key(self) -> Any:
        return self.dtype

    def of(self, dtype: Type) -> ListType:
        return ListType(dtype)

    def _rebuild_args(self) -> tuple:
        return (self.dtype,)


def items_of(iterable: Type) -> Type | None:
    """The type of the items iterating over `iterable` gives, or None when unknown here."""
    if isinstance(iterable, UniTuple):
        return iterable.dtype
    iterator = getattr(iterable, "iterator_type", None)
    return getattr(iterator, "yield_type", None)


class ListIterator(Type):
    """`iter(xs)`: a pointer to {list, next index} state; yields the items."""

    def __init__(self, list_type: List) -> None:
        self.list_type = list_type
        self.yield_type = list_type.dtype
        super().__init__(f"iter({list_type})")

    @property
    def key(self) -> Any:
        return self.list_type

    def _rebuild_args(self) -> tuple:
        return (self.list_type,)


def unsupported_item(dtype: Type) -> str | None:
    """Why lists cannot hold items of `dtype`, or None when they can."""
    from ember.types.datetimes import NPDatetime, NPTimedelta
    from ember.types.dicts import HashTable
    from ember.types.enums import EnumMember
    from ember.types.records import Record

    scalars = (Number, EnumMember, NPDatetime, NPTimedelta, UnicodeType, BytesType, Record)
    if isinstance(dtype, (*scalars, List, Array, HashTable, ManagedStruct)):
        return None
    if isinstance(dtype, BaseTuple) and all(unsupported_item(t) is None for t in dtype.types):
        return None
    if _extension_value_type(dtype):
        return None
    return (
        f"lists of {dtype} are not supported: list items must be numbers, enum members, "
        "datetimes, strings, bytes, records, arrays, tuples, lists, dicts, sets, jitclass "
        "instances or structrefs"
    )


def _extension_value_type(dtype: Type) -> bool:
    """A type an extension defined (outside ember) for values with data (its own model, as a
    StructModel of numbers): lists hold them as Numba's do."""
    from ember.types.abstract import Dummy

    module = type(dtype).__module__ or ""
    return not module.startswith("ember.") and not isinstance(dtype, Dummy)
