"""List types: `List(dtype)`, its iterator, and the `undefined` element of an empty list display
whose element type a later `append`/`extend`/`insert`/setitem decides."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Type
from ember.types.arrays import Array
from ember.types.classes import ManagedStruct
from ember.types.containers import BaseTuple
from ember.types.scalars import Number, unliteral
from ember.types.strings import UnicodeType


class Undefined(Type):
    """The element type of `[]` before inference has seen anything stored into it."""

    is_precise = False

    def __init__(self) -> None:
        super().__init__("undefined")

    def _rebuild_args(self) -> tuple:
        return ()


undefined = Undefined()


class List(Type):
    """A mutable, growable list of `dtype` items, shared by reference as in Python."""

    initial_value = None  # a display's constants, once asked for: literal_containers.py

    def __init__(self, dtype: Type, reflected: bool = False) -> None:
        """`reflected` is accepted for Numba's `types.List(t, reflected=True)` spelling: one
        list type serves both (see ListType below)."""
        self.dtype = dtype
        super().__init__(f"ListType[{dtype}]")

    def __repr__(self) -> str:
        return f"ListType({self.dtype!r})"

    @property
    def key(self) -> Any:
        return self.dtype

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

    def refined_by(self, method: str, args: tuple) -> List | None:
        """The type an empty list of undefined items takes from `xs.method(*args)`
        (`__setitem__` for `xs[i] = v`), or None when that call decides nothing."""
        if method in ("append", "__setitem__") and args:
            return List(unliteral(args[-1]))
        if method == "insert" and len(args) == 2:
            return List(unliteral(args[1]))
        if method == "extend" and len(args) == 1 and isinstance(args[0], List):
            return args[0]
        return None

    def provisional_result(self, method: str, args: tuple) -> Type | None:
        """What `method(*args)` gives before a store decides the items (None: wait)."""
        return None

    def _rebuild_args(self) -> tuple:
        return (self.dtype,)


# One list type serves both of Numba's (reflected `List` and typed `ListType`): its items are
# stored alike whether the list came from Python or from `ember.typed.List`. It is spelled as
# Numba spells the typed one (`ListType[int64]`, repr `ListType(int64)`).
ListType = List


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
    from ember.types.dicts import HashTable
    from ember.types.enums import EnumMember

    if isinstance(dtype, (Number, EnumMember, List, Array, HashTable, UnicodeType, ManagedStruct)):
        return None
    if isinstance(dtype, BaseTuple) and all(unsupported_item(t) is None for t in dtype.types):
        return None
    return (
        f"lists of {dtype} are not supported: list items must be numbers, enum members, "
        "strings, arrays, tuples, lists, dicts, sets, jitclass instances or structrefs"
    )
