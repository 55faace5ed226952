"""Hash-table types: `DictType(key, value)` (Numba's spelling), `Set(item)`, `SetType(item)`
(a typed set), the dict views (`d.keys()`, `d.values()`, `d.items()`) and their iterators. An
empty `{}`/`set()` starts with `undefined` members that a later store decides, as `[]` does
(ember/types/lists.py)."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Dummy, Type
from ember.types.containers import BaseTuple, make_tuple, widened
from ember.types.lists import undefined
from ember.types.scalars import none, unliteral


class HashTable(Type):
    """What dicts and sets share: a key type, and a value type (None for sets)."""

    key_type: Type
    value_type: Type | None

    @property
    def is_precise(self) -> bool:  # type: ignore[override]
        members = (self.key_type,) if self.value_type is None else (self.key_type, self.value_type)
        return all(member.is_precise for member in members)

    def provisional_result(self, method: str, args: tuple) -> Type | None:
        """What `method(*args)` gives before a store decides the members (None: wait)."""
        return None


class DictType(HashTable):
    """A mutable mapping of `key_type` to `value_type`, insertion-ordered, shared by reference."""

    initial_value = None  # a display's constants, once asked for: literal_containers.py

    def __init__(self, key_type: Type, value_type: Type) -> None:
        self.key_type = widened(key_type)
        self.value_type = widened(value_type)
        super().__init__(f"DictType[{self.key_type},{self.value_type}]<iv=None>")

    def __repr__(self) -> str:  # Numba's spellings: str above, repr as a constructor call
        return f"DictType({self.key_type!r}, {self.value_type!r})"

    @property
    def key(self) -> Any:
        return (self.key_type, self.value_type)

    @property
    def iterator_type(self) -> HashTableIterator:
        return HashTableIterator(self, "keys")

    def refined_by(self, method: str, args: tuple) -> DictType | None:
        """The type an empty dict of undefined members takes from `d.method(*args)`
        (`__setitem__` for `d[k] = v`), or None when that call decides nothing."""
        if method in ("__setitem__", "setdefault") and len(args) == 2:
            return DictType(args[0], args[1])
        if method == "update" and len(args) == 1 and isinstance(args[0], DictType):
            return args[0]
        if method == "update" and len(args) == 1:  # pairs: `d.update([(1, "a")])`
            pair = _items_of(args[0])
            if isinstance(pair, BaseTuple) and len(pair) == 2:
                return DictType(*pair.types)
        return None

    def provisional_result(self, method: str, args: tuple) -> Type | None:
        """What `d.get(k, default)` (or `pop`) of an empty dict of undefined members gives
        until a store decides the value type: the default's type, so that the idiom
        `d[k] = d.get(k, 0) + 1` can decide it (typing widens it once the dict is known)."""
        if method in ("get", "pop") and len(args) == 2 and args[1] != none:
            return unliteral(args[1])
        if method == "setdefault" and len(args) == 2 and self.key_type.is_precise:
            return self.value_type  # `{}` holding `[]` so far: the append decides them
        return None

    def _rebuild_args(self) -> tuple:
        return (self.key_type, self.value_type)


class Set(HashTable):
    """A mutable set of `dtype` items (Numba's `types.Set`), shared by reference; `reflected`
    marks a set passed from Python, whose changes are written back to the caller's set."""

    value_type = None

    def __init__(self, dtype: Type, reflected: bool = False) -> None:
        self.dtype = self.key_type = widened(dtype)
        self.reflected = bool(reflected)
        super().__init__(f"{'reflected ' if self.reflected else ''}set({self.dtype})")

    def __repr__(self) -> str:
        return f"Set({self.dtype!r}, {self.reflected})"

    @property
    def key(self) -> Any:
        return (self.dtype, self.reflected)

    @property
    def iterator_type(self) -> HashTableIterator:
        return HashTableIterator(self, "keys")

    def of(self, dtype: Type) -> Set:
        """A set of the same kind (reflected, typed or neither) holding `dtype` items."""
        return Set(dtype, self.reflected)

    def refined_by(self, method: str, args: tuple) -> Set | None:
        if method == "add" and len(args) == 1:
            return self.of(args[0])
        if method == "update" and len(args) == 1:
            item = _items_of(args[0])
            return None if item is None else self.of(item)
        return None

    def _rebuild_args(self) -> tuple:
        return (self.dtype, self.reflected)


class SetType(Set):
    """Numba's `types.SetType`: the type of an `ember.typed.Set`, which comes back to Python as
    a typed Set sharing the native set. It is stored and lowered as `Set` is (a subclass, so
    every set operation applies), and differs in its boxing and spelling."""

    def __init__(self, itemty: Type) -> None:
        self.dtype = self.key_type = unliteral(itemty)
        self.reflected = False
        Type.__init__(self, f"SetType[{self.dtype}]<iv=None>")

    def __repr__(self) -> str:  # Numba's repr is its str
        return self.name

    @property
    def key(self) -> Any:
        return self.dtype

    def of(self, dtype: Type) -> SetType:
        return SetType(dtype)

    def _rebuild_args(self) -> tuple:
        return (self.dtype,)


class DictView(Type):
    """`d.keys()`, `d.values()` or `d.items()` (`kind`): iterable, sized, a view of `d`."""

    def __init__(self, dict_type: DictType, kind: str) -> None:
        self.dict_type = dict_type
        self.kind = kind
        super().__init__(f"dict_{kind}[{dict_type.key_type},{dict_type.value_type}]")

    @property
    def key(self) -> Any:
        return (self.dict_type, self.kind)

    @property
    def iterator_type(self) -> HashTableIterator:
        return HashTableIterator(self.dict_type, self.kind)

    def _rebuild_args(self) -> tuple:
        return (self.dict_type, self.kind)


class HashTableIterator(Type):
    """`iter(d)`, `iter(d.items())`...: a pointer to {table, next entry index} state."""

    def __init__(self, table_type: HashTable, kind: str) -> None:
        self.table_type = table_type
        self.kind = kind
        if kind == "keys":
            self.yield_type = table_type.key_type
        elif kind == "values":
            self.yield_type = table_type.value_type
        else:
            self.yield_type = make_tuple((table_type.key_type, table_type.value_type))
        super().__init__(f"iter({table_type}.{kind})")

    @property
    def key(self) -> Any:
        return (self.table_type, self.kind)

    def _rebuild_args(self) -> tuple:
        return (self.table_type, self.kind)


def _items_of(typ: Type) -> Type | None:
    """The items iterating over `typ` gives (an iterator, such as zip(), gives its own)."""
    iterator = getattr(typ, "iterator_type", typ)
    item = getattr(iterator, "yield_type", None)
    return unliteral(item) if item is not None else None


def unsupported_key(key_type: Type) -> str | None:
    """Why `key_type` cannot key a dict or fill a set, or None when it can: keys need `hash`
    and `==` (numbers, booleans, tuples of them, strings and types with those overloads)."""
    from ember.types.arrays import Array
    from ember.types.lists import List

    if isinstance(key_type, (Array, List, HashTable)):
        return (
            f"{key_type} cannot be a dict key or set item: it is mutable and has no hash "
            "(use a tuple, a number or a string)"
        )
    if key_type == none:  # Numba's words
        return (
            "Dict.key_type cannot be of type none: None has no hash in compiled code (a dict "
            "key or set item is a number, a string or a tuple of them)"
        )
    if isinstance(key_type, BaseTuple):
        for member in key_type.types:
            problem = unsupported_key(member)
            if problem is not None:
                return problem
    return None


empty_dict = DictType(undefined, undefined)
empty_set = Set(undefined)
empty_typed_set = SetType(undefined)


class TypeRef(Dummy):
    """A type used as a value (`types.int64` in `Dict.empty(key_type=types.int64, ...)`)."""

    def __init__(self, instance_type: Type) -> None:
        self.instance_type = instance_type
        super().__init__(f"typeref[{instance_type}]")

    @property
    def key(self) -> Any:
        return self.instance_type

    def _rebuild_args(self) -> tuple:
        return (self.instance_type,)
