"""`ember.typed.Dict` (Numba's `numba.typed.Dict`): a Python object that owns one reference
to a native dict (ember/lowering/dicts.py), so compiled code receives and returns it without
copying and its changes are visible to both sides.

From Python, reads go straight to the native memory (`len`, iteration) and the other
operations call a few accessors compiled once per key/value type (ember/typed/accessors.py).
A typed dict's class is a subclass of `Dict` made once per key/value type, so that the native
call entry recognizes it by its exact type and reads its `_meminfo` slot (no Python code runs).
"""

from __future__ import annotations

import functools
import operator
from collections import abc
from collections.abc import Iterator, MutableMapping
from typing import Any

from ember import config, types
from ember.errors import ArgumentTypeError, TypingError
from ember.typed import accessors
from ember.typed.owned import NativeOwner, as_type, bind_release

_MISSING = object()


def new_dict(key: Any, value: Any, n_keys: int = 0) -> Dict:
    """Numba's `numba.typed.dictobject.new_dict(key_type, value_type)`: `Dict.empty`, from
    Python and in compiled code (ember/library/containers/typed_dicts.py)."""
    return Dict.empty(key, value, n_keys)


class Dict(NativeOwner, MutableMapping):
    """`Dict()` (types from the first insert), `Dict.empty(key_type, value_type)`, or a dict
    returned by compiled code."""

    __slots__ = ("_dict_type", "_meminfo", "_ops", "__weakref__")
    _native_type = property(operator.attrgetter("_dict_type"))
    _accessor_kit = accessors

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if config.DISABLE_JIT:  # as Numba: with the JIT disabled, a typed dict is a dict
            return dict(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._dict_type: types.DictType | None = None
        self._meminfo = 0
        self._ops: Any = None
        if len(args) > 1:  # CPython's dict() check, Numba's words and kind (TypingError) too
            raise ArgumentTypeError(
                f"Dict expected at most 1 argument, got {len(args)} (Dict expect at most 1 "
                f"argument, got {len(args)})"
            )
        if args and args[0] is not None:
            if not hasattr(args[0], "keys") and not hasattr(args[0], "__iter__"):
                raise ArgumentTypeError(
                    f"'{type(args[0]).__name__}' object is not iterable: Dict() takes a "
                    "mapping or an iterable of (key, value) pairs"
                )
            self.update(args[0])
        if kwargs:
            self.update(kwargs)

    def update(self, other: Any = (), /, **kwargs: Any) -> None:
        """As `dict.update`: a mapping, or an iterable of pairs checked as CPython does."""
        if hasattr(other, "keys"):
            for key in other.keys():
                self[key] = other[key]
        else:
            for index, pair in enumerate(other):
                try:
                    pair = tuple(pair)
                except TypeError:
                    raise TypeError(
                        f"cannot convert dictionary update sequence element #{index} to a sequence"
                    ) from None
                if len(pair) != 2:
                    raise ValueError(
                        f"dictionary update sequence element #{index} has length "
                        f"{len(pair)}; 2 is required"
                    )
                self[pair[0]] = pair[1]
        for key, value in kwargs.items():
            self[key] = value

    @classmethod
    def empty(cls, key_type: Any, value_type: Any, n_keys: int = 0) -> Dict:
        if config.DISABLE_JIT:
            return dict()
        made = cls()
        made._adopt_type(types.DictType(as_type(key_type), as_type(value_type)))
        return made

    @classmethod
    def _from_meminfo(cls, dict_type: types.DictType, meminfo: int) -> Dict:
        """Wrap a native dict, taking over one reference to it."""
        made = object.__new__(class_for(dict_type))
        made._dict_type = dict_type
        made._meminfo = meminfo
        made._ops = None
        bind_release()
        return made

    def _adopt_type(self, dict_type: types.DictType) -> None:
        self._dict_type = dict_type
        self._ops = accessors.for_type(dict_type)
        self._meminfo = self._ops.new()
        self.__class__ = class_for(dict_type)
        bind_release()

    @property
    def _ember_type_(self) -> types.DictType:
        if self._dict_type is None:
            raise TypeError(
                "an empty ember.typed.Dict() has no key and value types yet: insert an item "
                "first or make it with Dict.empty(key_type=..., value_type=...)"
            )
        return self._dict_type

    # ------------------------------------------------------------------ the mapping

    @property
    def _typed(self) -> bool:
        """Whether the key and value types are known yet (Numba's private spelling)."""
        return self._dict_type is not None

    def __getitem__(self, key: Any) -> Any:
        if self._dict_type is None:
            raise KeyError(key)
        ops = self._accessors()
        if ops.shares_values:  # the dict's own list, as Numba shares it
            from ember.typed.typedlist import List

            value_type = self._dict_type.value_type
            return List._from_meminfo(value_type, ops.getitem_address(self._meminfo, key))
        return ops.getitem(self._meminfo, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        if self._dict_type is None:
            from ember.dispatcher.typeof import typeof

            self._adopt_type(types.DictType(typeof(key), typeof(value)))
        self._accessors().setitem(self._meminfo, key, value)

    def __delitem__(self, key: Any) -> None:
        if self._dict_type is None:
            raise KeyError(key)
        self._accessors().delitem(self._meminfo, key)

    def __contains__(self, key: Any) -> bool:
        if self._dict_type is None:
            return False
        try:
            return self._accessors().contains(self._meminfo, key)
        except (TypeError, OverflowError, TypingError):  # another type's key: in no such dict
            return False

    def __iter__(self) -> Iterator:
        if self._dict_type is None:
            return iter(())
        return accessors.entries(self._dict_type, self._meminfo, pairs=False)

    def _snapshot(self) -> list:
        if self._dict_type is None:
            return []
        return accessors.snapshot(self._dict_type, self._meminfo)

    def items(self) -> ItemsView:
        return ItemsView(self)

    def values(self) -> ValuesView:
        return ValuesView(self)

    def keys(self) -> KeysView:
        return KeysView(self)

    # A missing key is answered without a KeyError raised by compiled code (~40 times the
    # cost of a lookup): `d.get(k, 0)` and `d.setdefault(k, v)` miss often in Python loops.

    def get(self, key: Any, default: Any = None) -> Any:
        if self._dict_type is None:
            return default
        ops = self._accessors()
        if ops.get is not None:  # None stands for a missing key
            found = ops.get(self._meminfo, key)
            return default if found is None else found
        return self[key] if key in self else default

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]  # as stored (converted to the value type)

    def pop(self, key: Any, default: Any = _MISSING) -> Any:
        if default is not _MISSING and key not in self:
            return default
        try:
            value = self[key]
        except KeyError:
            if default is _MISSING:
                raise
            return default
        del self[key]
        return value

    def popitem(self) -> tuple:
        """Remove and return the last inserted (key, value) pair, as a dict does (and
        Numba's typed dict; MutableMapping's would take the first)."""
        if not len(self):
            raise KeyError("popitem(): dictionary is empty")
        return self._accessors().popitem(self._meminfo)

    def copy(self) -> Dict:
        if self._dict_type is None:  # nothing stored yet: no types to copy
            return Dict()
        made = Dict.empty(self._dict_type.key_type, self._dict_type.value_type)
        made.update(self)
        return made

    def __reversed__(self) -> Iterator:
        return reversed(list(self))

    def __or__(self, other: Any) -> Any:
        """`d | other` (a dict or typed Dict): a copy of `d` updated with `other`."""
        if not isinstance(other, (Dict, dict)):
            return NotImplemented
        made = self.copy()
        made.update(other)
        return made

    def __ior__(self, other: Any) -> Dict:
        self.update(other)
        return self

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, (Dict, dict)):
            return NotImplemented
        return dict(self._snapshot()) == dict(other.items())

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:  # Numba's: keys and values as str() gives them
        return "{" + ", ".join(f"{key}: {value}" for key, value in self._snapshot()) + "}"

    def __repr__(self) -> str:
        return f"{self._dict_type}({self})" if self._dict_type else str(self)

    def __reduce__(self) -> tuple:
        key_type = self._dict_type.key_type if self._dict_type else None
        value_type = self._dict_type.value_type if self._dict_type else None
        return (_rebuild, (key_type, value_type, dict(self._snapshot())))


# Views as Python's and Numba's (`k in d.keys()` asks the dict, set operations work), whose
# iteration reads the native entries at once rather than one lookup per key.


class KeysView(abc.KeysView):
    def __reversed__(self) -> Iterator:  # dict views are reversible, as Python's
        return reversed(list(self._mapping))


class ItemsView(abc.ItemsView):
    def __iter__(self) -> Iterator:
        return iter(self._mapping._snapshot())

    def __reversed__(self) -> Iterator:
        return reversed(self._mapping._snapshot())


class ValuesView(abc.ValuesView):
    def __iter__(self) -> Iterator:
        return (value for _, value in self._mapping._snapshot())

    def __reversed__(self) -> Iterator:
        return (value for _, value in reversed(self._mapping._snapshot()))


@functools.cache
def class_for(dict_type: types.DictType) -> type:
    """The class of typed dicts of `dict_type`: `Dict` to its users (same name, no slots of its
    own), with `_boxer(meminfo)` wrapping a dict that compiled code returns."""

    def boxer(meminfo: int) -> Dict:
        return Dict._from_meminfo(dict_type, meminfo)

    namespace = {
        "__slots__": (),
        "__module__": Dict.__module__,
        "__qualname__": Dict.__qualname__,
        "_boxer": staticmethod(boxer),
    }
    return type(Dict)("Dict", (Dict,), namespace)


def slot_offset(box_class: type) -> int | None:
    """Where instances of `box_class` (typed dicts, lists, sets) keep the PyObject* of their
    `_meminfo` int, or None when not found."""
    from ember.dispatcher.call_slots import class_slot_offset

    return class_slot_offset(box_class, "_meminfo")


def dict_kind(dict_type: types.DictType) -> Any:
    """The native entry's argument kind of typed dicts of `dict_type`, or None (no fast path)."""
    from ember.dispatcher.object_layout import InstanceKind

    offset = slot_offset(Dict)
    if offset is None or not dict_type.is_precise:
        return None
    return InstanceKind(class_for(dict_type), offset, data_pointer=False)


def _rebuild(key_type: Any, value_type: Any, items: dict) -> Dict:
    made = Dict() if key_type is None else Dict.empty(key_type, value_type)
    made.update(items)
    return made
