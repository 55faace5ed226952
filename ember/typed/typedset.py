"""`ember.typed.Set` (Numba's `numba.typed.Set`): a Python object that owns one reference to a
native set (ember/lowering/dicts.py), so compiled code receives it without copying and its
changes are visible to both sides.

From Python, `len` and iteration read the native memory; the other operations call accessors
compiled once per set type (ember/typed/set_accessors.py). A typed set's class is a subclass of
`Set` made once per set type, so that the native call entry recognizes it by its exact type and
reads its `_meminfo` slot (no Python code runs).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Iterator, MutableSet
from typing import Any

from ember import config, types
from ember.errors import TypingError
from ember.typed import set_accessors
from ember.typed.owned import NativeOwner, as_type, bind_release, release


def new_set(key: Any) -> Set:
    """Numba's `numba.typed.setobject.new_set(key_type)`: `Set.empty`, from Python and in
    compiled code (ember/library/containers/typed_sets.py)."""
    return Set.empty(key)


class Set(NativeOwner, MutableSet):
    """`Set()` (item type from the first item added), `Set(iterable)`, `Set.empty(item_type)`,
    or a typed set that compiled code returned."""

    __slots__ = ("_set_type", "_meminfo", "_ops", "__weakref__")
    _native_type = property(operator.attrgetter("_set_type"))
    _accessor_kit = set_accessors

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if config.DISABLE_JIT:  # as Numba does for Dict and List: a typed set is a set
            return set(*args)
        return super().__new__(cls)

    def __init__(self, iterable: Iterable | None = None) -> None:
        self._set_type: types.SetType | None = None
        self._meminfo = 0
        self._ops: Any = None
        if iterable is not None:
            self.update(iterable)

    @classmethod
    def empty(cls, item_type: Any) -> Set:
        """An empty set whose items will be `item_type` (an ember type or a Python/NumPy one)."""
        if config.DISABLE_JIT:
            return set()
        made = cls()
        made._adopt_type(types.SetType(as_type(item_type)))
        return made

    @classmethod
    def _from_meminfo(cls, set_type: types.Set, meminfo: int) -> Set:
        """Wrap a native set (of any set type: all share one layout), taking over one
        reference to it."""
        set_type = types.SetType(set_type.dtype)
        made = object.__new__(class_for(set_type))
        made._set_type = set_type
        made._meminfo = meminfo
        made._ops = None
        bind_release()
        return made

    @classmethod
    def _from_iterable(cls, iterable: Iterable) -> Set:
        """What the set operators inherited from `MutableSet` (`|`, `&`, `-`, `^`) return."""
        return Set(iterable)

    def _adopt_type(self, set_type: types.SetType) -> None:
        from ember.typed import set_accessors

        problem = types.unsupported_key(set_type.dtype)
        if problem is not None:
            raise TypeError(problem)
        self._ops = set_accessors.for_type(set_type)
        self._adopt_native(set_type, self._ops.new())

    def _adopt_native(self, set_type: types.SetType, meminfo: int) -> None:
        """Become the owner of the native set `meminfo` (this set was untyped)."""
        self._set_type = set_type
        self._meminfo = meminfo
        self.__class__ = class_for(set_type)
        bind_release()

    @property
    def _ember_type_(self) -> types.SetType:
        raise TypeError(
            "an empty ember.typed.Set() has no item type yet: add an item first or make it "
            "with Set.empty(item_type)"
        )

    @property
    def _typed(self) -> bool:
        """Whether the item type is known yet (Numba's private spelling)."""
        return self._set_type is not None

    # ------------------------------------------------------------------ the set

    def __iter__(self) -> Iterator:
        if self._set_type is None:
            return iter(())
        if isinstance(self._set_type.dtype, _NUMBERS):
            return iter(_number_items(self._set_type, self._meminfo))
        from ember.typed import accessors

        return accessors.entries(self._set_type, self._meminfo, pairs=False)

    def __contains__(self, item: Any) -> bool:
        if self._set_type is None:
            return False
        try:
            return self._accessors().contains(self._meminfo, item)
        except (TypeError, OverflowError, TypingError):  # another type's item: in no such set
            return False

    def add(self, item: Any) -> None:
        if self._set_type is None:
            self._adopt_type(_set_type_of([item]))
        self._accessors().add(self._meminfo, item)

    def discard(self, item: Any) -> None:
        if self._set_type is not None:
            self._accessors().discard(self._meminfo, item)

    def remove(self, item: Any) -> None:
        if item not in self:
            raise KeyError(item)
        self.discard(item)

    def pop(self) -> Any:
        if not len(self):
            raise KeyError("pop from an empty set")
        return self._accessors().pop(self._meminfo)

    def clear(self) -> None:
        if self._set_type is not None:
            self._accessors().clear(self._meminfo)

    def update(self, *iterables: Iterable) -> None:
        """Add the items of each iterable (numbers in bulk, through a native `set(array)`)."""
        for iterable in iterables:
            items = list(iterable)
            if not items:
                continue
            if self._set_type is None:
                if self._fill(items):
                    continue
                self._adopt_type(_set_type_of(items))
            self._put(items)

    def _fill(self, items: list) -> bool:
        """Take `items` when they are numbers (this set is untyped and empty): one native
        `set(array)`, typed by the array's dtype. False when they are not numbers."""
        from ember import from_dtype
        from ember.dispatcher import reflection
        from ember.typed.typedlist import _as_number_array

        numbers = _as_number_array(items)
        if numbers is None or numbers.dtype.kind not in "biuf":
            return False
        set_type = types.SetType(from_dtype(numbers.dtype))
        self._adopt_native(set_type, reflection.array_to_native(set_type, numbers))
        return True

    def _put(self, items: list) -> None:
        from ember.dispatcher import reflection

        dtype = self._set_type.dtype
        if isinstance(dtype, (types.Boolean, types.Integer, types.Float)):
            made = reflection.to_native(types.Set(dtype), items)
            self._accessors().update_from(self._meminfo, made)
            release(made)
            return
        add = self._accessors().add
        for item in items:
            add(self._meminfo, item)

    def copy(self) -> Set:
        made = Set.empty(self._set_type.dtype) if self._set_type else Set()
        made.update(self)
        return made

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:  # Numba's: items as str() gives them ({a, b} for strings)
        return "{" + ", ".join(str(item) for item in self) + "}"

    def __repr__(self) -> str:
        return f"{self._set_type}({self})" if self._set_type else f"UntypedSet({self})"

    def __reduce__(self) -> tuple:
        item_type = self._set_type.dtype if self._set_type else None
        return (_rebuild, (item_type, list(self)))


_NUMBERS = (types.Boolean, types.Integer, types.Float)


def _number_items(set_type: types.SetType, meminfo: int) -> list:
    """The items of a native set of numbers, read at once through NumPy (a snapshot)."""
    import ctypes

    import numpy as np

    from ember.library.numpy.support import numpy_dtype
    from ember.lowering.dicts import DELETED_HASH, HeaderMemory
    from ember.runtime import nrt
    from ember.typed.accessors import _entry_ctype

    header = HeaderMemory.from_address(nrt.data_address(meminfo))
    if not header.used:
        return []
    entry = _entry_ctype(set_type)
    layout = np.dtype(
        {
            "names": ["hash", "key"],
            "formats": [np.int64, numpy_dtype(set_type.dtype)],
            "offsets": [entry.hash.offset, entry.key.offset],
            "itemsize": ctypes.sizeof(entry),
        }
    )
    memory = (ctypes.c_char * (header.used * layout.itemsize)).from_address(
        nrt.data_address(header.entries)
    )
    entries = np.frombuffer(memory, dtype=layout)
    return entries["key"][entries["hash"] != DELETED_HASH].tolist()


def _set_type_of(items: list) -> types.SetType:
    """The type of a typed set holding `items`: their common type when Python could pass them
    as a set, else the type of the first."""
    from ember.dispatcher.typeof import typeof

    try:
        item_type = typeof(set(items)).dtype
    except Exception:  # e.g. unhashable or mixed items: typed by the first, as Numba does
        item_type = typeof(items[0])
    return types.SetType(types.unliteral(item_type))


@functools.cache
def class_for(set_type: types.SetType) -> type:
    """The class of typed sets of `set_type`: `Set` to its users (same name, no slots of its
    own), typed by a class attribute so that `ember.typeof` reads it without a call, with
    `_boxer(meminfo)` wrapping a set that compiled code returns."""

    def boxer(meminfo: int) -> Set:
        return Set._from_meminfo(set_type, meminfo)

    namespace = {
        "__slots__": (),
        "__module__": Set.__module__,
        "__qualname__": Set.__qualname__,
        "_ember_type_": set_type,
        "_numba_type_": set_type,
        "_boxer": staticmethod(boxer),
    }
    return type(Set)("Set", (Set,), namespace)


def set_kind(set_type: types.SetType) -> Any:
    """The native entry's argument kind of typed sets of `set_type`, or None (no fast path)."""
    from ember.dispatcher.object_layout import InstanceKind
    from ember.typed.typeddict import slot_offset

    offset = slot_offset(Set)
    if offset is None or not set_type.is_precise:
        return None
    return InstanceKind(class_for(set_type), offset, data_pointer=False)


def _rebuild(item_type: Any, items: list) -> Set:
    made = Set() if item_type is None else Set.empty(item_type)
    made.update(items)
    return made
