"""`ember.typed.List` (Numba's `numba.typed.List`): a Python object that owns one reference to a
native list (ember/lowering/lists.py), so compiled code receives it without copying and its
changes are visible to both sides.

From Python, whole-list reads (iteration, `repr`, `==`) box the native items at once; single-item
operations call accessors compiled once per list type (ember/typed/list_accessors.py). A typed
list's class is a subclass of `List` made once per list type, so that the native call entry
recognizes it by its exact type and reads its `_meminfo` slot (no Python code runs).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Iterator, MutableSequence
from typing import Any

from ember import config, types
from ember.typed import list_accessors
from ember.typed.owned import NativeOwner, as_type, bind_release, release


def new_list(item: Any, allocated: int = 0) -> List:
    """Numba's `numba.typed.listobject.new_list(item_type, allocated=0)`: `List.empty_list`,
    from Python and in compiled code (ember/library/containers/typed_lists.py)."""
    return List.empty_list(item, allocated)


class List(NativeOwner, MutableSequence):
    """`List()` (item type from the first item put in), `List(iterable)`,
    `List.empty_list(item_type)`, or a typed list that compiled code filled."""

    __slots__ = ("_list_type", "_meminfo", "_ops", "__weakref__")
    _native_type = property(operator.attrgetter("_list_type"))
    _accessor_kit = list_accessors

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if config.DISABLE_JIT:  # as Numba: with the JIT disabled, a typed list is a list
            return list(*args)
        return super().__new__(cls)

    def __init__(self, *args: Iterable, **kwargs: Any) -> None:
        """`List()` or `List(iterable)` (a 0-d array gives its one item, as in Numba)."""
        self._list_type: types.ListType | None = None
        self._meminfo = 0
        self._ops: Any = None
        if kwargs:  # the checks and words of Numba and of Python's list()
            raise TypeError("List() takes no keyword arguments")
        if len(args) > 1:
            raise TypeError(f"List() expected at most 1 argument, got {len(args)}")
        if args:
            self._fill(_items_of(args[0]))

    @classmethod
    def empty_list(cls, item_type: Any, allocated: int = 0) -> List:
        """An empty list whose items will be `item_type` (an ember type or a Python/NumPy one)."""
        if config.DISABLE_JIT:
            return []
        made = cls()
        made._adopt_type(types.ListType(as_type(item_type)), allocated)
        return made

    @classmethod
    def _from_meminfo(cls, list_type: types.List, meminfo: int) -> List:
        """Wrap a native list (of any list type: all share one layout), taking over one
        reference to it."""
        if type(list_type) is not types.ListType:  # a reflected or plain list's items
            list_type = types.ListType(list_type.dtype)
        made = object.__new__(class_for(list_type))
        made._list_type = list_type
        made._meminfo = meminfo
        made._ops = None
        bind_release()
        return made

    def _adopt_type(self, list_type: types.List, allocated: int = 0) -> None:
        from ember.typed import list_accessors

        self._list_type = list_type
        self._ops = list_accessors.for_type(list_type)
        self._meminfo = self._ops.new(int(allocated))
        self.__class__ = class_for(list_type)
        bind_release()

    def _fill(self, items: list) -> None:
        """Take `items` (this list is untyped and empty); numbers at the speed of `np.array`."""
        if not items:
            return
        numbers = _as_number_array(items)
        if numbers is None:
            self._adopt_type(_list_type_of(items))
            self._put(items)
            return
        from ember import from_dtype
        from ember.dispatcher import reflection

        list_type = types.ListType(from_dtype(numbers.dtype))
        self._list_type = list_type
        self._meminfo = reflection.array_to_native(list_type, numbers)
        self.__class__ = class_for(list_type)
        bind_release()

    @property
    def _ember_type_(self) -> types.List:
        raise TypeError(
            "an empty ember.typed.List() has no item type yet: append an item first or make "
            "it with List.empty_list(item_type)"
        )

    @property
    def _typed(self) -> bool:
        """Whether the item type is known yet (Numba's private spelling)."""
        return self._list_type is not None

    @property
    def _dtype(self) -> types.Type:
        """The item type (Numba's private spelling, which programs use)."""
        if self._list_type is None:
            raise RuntimeError("invalid operation on untyped list")
        return self._list_type.dtype

    def _allocated(self) -> int:
        """How many items the native list has room for before it grows (Numba's internal)."""
        return self._header().capacity if self._list_type else 0

    def _is_mutable(self) -> bool:
        """False once `_make_immutable()` was called (Numba's internal)."""
        return not self._header().frozen if self._list_type else True

    def _make_immutable(self) -> None:
        """From now on every mutation raises ValueError("list is immutable"), from Python and
        from compiled code (the flag lives in the native list, shared by both)."""
        if self._list_type is None:
            raise RuntimeError("invalid operation on untyped list")
        self._header().frozen = 1

    def _header(self) -> Any:
        from ember.lowering.lists import HeaderMemory
        from ember.runtime import nrt

        return HeaderMemory.from_address(nrt.data_address(self._meminfo))

    # ------------------------------------------------------------------ the sequence

    def __getitem__(self, index: Any) -> Any:
        if type(index) is int and self._list_type is not None:  # the common case, first
            ops = self._accessors()
            if not ops.shares_items:
                return ops.getitem(self._meminfo, index)
        if isinstance(index, slice):
            made = List.empty_list(self._list_type.dtype) if self._list_type else List()
            made.extend(self._items()[index])
            return made
        if self._list_type is None:
            raise IndexError("list index out of range")
        item_type = self._list_type.dtype
        if isinstance(item_type, types.List):  # the inner list itself, as Numba shares it
            address = self._accessors().getitem_address(self._meminfo, _index(index))
            return List._from_meminfo(item_type, address)
        return self._accessors().getitem(self._meminfo, _index(index))

    def __setitem__(self, index: Any, value: Any) -> None:
        if type(index) is int and self._list_type is not None:  # the common case, first
            self._accessors().setitem(self._meminfo, index, value)
            return
        if isinstance(index, slice):
            items = self._items()
            try:
                items[index] = value
            except ValueError as error:  # Python's words, then Numba's
                raise ValueError(
                    f"{error} (length mismatch for extended slice and sequence)"
                ) from None
            self._replace(items)
            return
        if self._list_type is None:
            raise IndexError("list assignment index out of range")
        self._accessors().setitem(self._meminfo, _index(index), value)

    def __delitem__(self, index: Any) -> None:
        if isinstance(index, slice):
            items = self._items()
            del items[index]
            self._replace(items)
            return
        if self._list_type is None:
            raise IndexError("list assignment index out of range")
        self._accessors().delitem(self._meminfo, _index(index))

    def insert(self, index: int, value: Any) -> None:
        self._type_from(value)
        self._accessors().insert(self._meminfo, _index(index), value)

    def append(self, value: Any) -> None:
        self._type_from(value)
        self._accessors().append(self._meminfo, value)

    def extend(self, values: Iterable) -> None:
        values = list(values)
        if not values:
            return
        if self._list_type is None:
            self._adopt_type(_list_type_of(values))
        self._put(values)

    def _put(self, values: list) -> None:
        """Append `values`: built natively at C speed where the item type allows."""
        from ember.dispatcher import reflection

        if not isinstance(self._list_type.dtype, reflection.BULK_ITEM_TYPES):
            append = self._accessors().append
            for value in values:
                append(self._meminfo, value)
            return
        made = reflection.to_native(self._list_type, values)
        # into this native list, never a new one: other typed Lists may share it
        self._accessors().extend(self._meminfo, made)
        release(made)

    def _replace(self, items: list) -> None:
        self.clear()
        self.extend(items)

    def _type_from(self, value: Any) -> None:
        if self._list_type is None:
            self._adopt_type(_list_type_of([value]))

    def pop(self, index: int = -1) -> Any:
        if not len(self):
            raise IndexError("pop from empty list")
        return self._accessors().pop(self._meminfo, _index(index))

    def clear(self) -> None:
        if self._list_type is not None:
            self._accessors().clear(self._meminfo)

    def sort(self, key: Any = None, reverse: bool = False) -> None:
        if key is None and not reverse and self._list_type is not None:
            self._accessors().sort(self._meminfo)
            return
        self._replace(sorted(self._items(), key=key, reverse=reverse))

    def reverse(self) -> None:
        if self._list_type is not None:
            self._accessors().reverse(self._meminfo)

    def copy(self) -> List:
        return self[:]

    def _items(self) -> list:
        """The items as a Python list (a snapshot)."""
        if self._list_type is None:
            return []
        if isinstance(self._list_type.dtype, types.List):  # inner lists shared, not copied
            return [self[index] for index in range(len(self))]
        from ember.typed import list_accessors

        return list_accessors.items(self._list_type, self._meminfo)

    def __iter__(self) -> Iterator:
        return iter(self._items())

    def __contains__(self, value: Any) -> bool:
        return value in self._items()

    def index(self, value: Any, start: int = 0, stop: int = 2**63 - 1) -> int:
        return self._items().index(value, start, stop)

    def remove(self, value: Any) -> None:
        try:
            index = self.index(value)
        except ValueError:  # CPython's words for remove (index says "5 is not in list")
            raise ValueError("list.remove(x): x not in list") from None
        del self[index]

    def count(self, value: Any) -> int:
        return self._items().count(value)

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, (List, list)):
            return NotImplemented
        return self._items() == list(other)

    def __ne__(self, other: Any) -> bool:
        return self._order(other, operator.ne)

    def _order(self, other: Any, compare: Any) -> bool:
        """Python's list comparison; False against anything that is not a list, even for
        `!=` (as Numba's typed lists answer)."""
        if not isinstance(other, (List, list)):
            return False
        return compare(self._items(), list(other))

    def __lt__(self, other: Any) -> bool:
        return self._order(other, operator.lt)

    def __le__(self, other: Any) -> bool:
        return self._order(other, operator.le)

    def __gt__(self, other: Any) -> bool:
        return self._order(other, operator.gt)

    def __ge__(self, other: Any) -> bool:
        return self._order(other, operator.ge)

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:  # Numba's: items as str() gives them ([a, b] for strings)
        return "[" + ", ".join(str(item) for item in self._items()) + "]"

    def __repr__(self) -> str:
        item_type = self._list_type.dtype if self._list_type else "Undefined"
        return f"ListType[{item_type}]({self})"

    def __reduce__(self) -> tuple:
        item_type = self._list_type.dtype if self._list_type else None
        return (_rebuild, (item_type, self._items()))


def _as_number_array(items: list) -> Any:
    """`items` as a 1-d NumPy array when they are all numbers (bool, int, float, complex) of
    one kind NumPy keeps exactly, else None."""
    if not isinstance(items[0], (int, float, complex)):
        return None
    import numpy as np

    try:
        values = np.asarray(items)
    except (ValueError, TypeError, OverflowError):
        return None
    return values if values.ndim == 1 and values.dtype.kind in "biufc" else None


def _list_type_of(items: list) -> types.ListType:
    """The type of a typed list holding `items`: their common type when Python could pass them
    as a list, else the type of the first (an inner list being a typed list)."""
    from ember.dispatcher.typeof import typeof

    try:
        item_type = typeof(items).dtype
    except Exception:  # e.g. tuples or arrays: typed by the first item, as Numba does
        item_type = types.unliteral(typeof(items[0]))
    if isinstance(item_type, types.List) and not isinstance(item_type, types.ListType):
        item_type = types.ListType(item_type.dtype)
    return types.ListType(item_type)


def _index(index: Any) -> int:
    if not hasattr(index, "__index__"):
        raise TypeError(f"list indices must be integers or slices, not {type(index).__name__}")
    return index.__index__()


@functools.cache
def class_for(list_type: types.List) -> type:
    """The class of typed lists of `list_type`: `List` to its users (same name, no slots of its
    own), typed by a class attribute so that `ember.typeof` reads it without a call, with
    `_boxer(meminfo)` giving what compiled code returns for a list of that type: a typed List
    sharing the native list for a `ListType`, else a Python list (as Numba returns lists made
    with `[...]` or passed from Python)."""

    def boxer(meminfo: int) -> list:
        from ember.dispatcher.pycall import box_list

        return box_list(list_type, meminfo, (), None)

    def typed_boxer(meminfo: int) -> List:
        return List._from_meminfo(list_type, meminfo)

    typed = isinstance(list_type, types.ListType)
    namespace = {
        "__slots__": (),
        "__module__": List.__module__,
        "__qualname__": List.__qualname__,
        "_ember_type_": list_type,
        "_numba_type_": list_type,
        "_boxer": staticmethod(typed_boxer if typed else boxer),
    }
    return type(List)("List", (List,), namespace)


def list_kind(list_type: types.List) -> Any:
    """The native entry's argument kind of typed lists of `list_type`, or None (no fast path).
    Python lists of the same type are copied in and written back by the argument kind that
    wraps this one (ember/dispatcher/entry_lists.py)."""
    from ember.dispatcher.object_layout import InstanceKind
    from ember.typed.typeddict import slot_offset

    offset = slot_offset(List)
    if offset is None or not list_type.is_precise:
        return None
    return InstanceKind(class_for(list_type), offset, data_pointer=False)


def _rebuild(item_type: Any, items: list) -> List:
    made = List() if item_type is None else List.empty_list(item_type)
    made.extend(items)
    return made


def _items_of(iterable: Any) -> list:
    """The items a typed List is made of: those of `iterable`, or the one item of a 0-d
    array or NumPy scalar."""
    if type(iterable) is list:
        return iterable
    if getattr(iterable, "ndim", None) == 0:
        return [iterable.item()]
    try:
        return list(iterable)
    except TypeError:
        if hasattr(iterable, "__iter__"):
            raise  # an iterable that failed while iterating
        raise TypeError(
            f"List() argument must be iterable, not {type(iterable).__name__}"
        ) from None
