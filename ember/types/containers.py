"""Compound types: tuples, ranges and their iterators."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Type
from ember.types.scalars import int64, plain_number, unliteral


class BaseTuple(Type):
    """A tuple type; `types` lists the member types in order."""

    types: tuple[Type, ...]

    def __len__(self) -> int:
        return len(self.types)

    @classmethod
    def from_types(cls, member_types: Any) -> BaseTuple:
        """Numba's name for `make_tuple`: a UniTuple when all members agree."""
        return make_tuple(member_types)

    def __iter__(self):
        return iter(self.types)


class Tuple(BaseTuple):
    """A heterogeneous tuple. `Tuple((a, a))` is `UniTuple(a, 2)`, as in Numba (a namedtuple
    type keeps its own class)."""

    def __new__(cls, types: Any, *args: Any) -> Any:
        if cls is Tuple:
            members = _member_types(types)
            if members and all(member is members[0] for member in members):
                return UniTuple(members[0], len(members))
        return super().__new__(cls)

    def __init__(self, types: Any) -> None:
        self.types = _member_types(types)
        super().__init__("Tuple(" + ", ".join(str(t) for t in self.types) + ")")

    def __repr__(self) -> str:  # Numba's: a constructor call that eval() rebuilds
        members = ", ".join(repr(t) for t in self.types)
        return f"Tuple(({members}{',' if len(self.types) == 1 else ''}))"

    @property
    def key(self) -> Any:
        return self.types

    @property
    def count(self) -> int:
        """The number of members (Numba's name; UniTuple has it too)."""
        return len(self.types)

    def _rebuild_args(self) -> tuple:
        return (self.types,)


def _member_types(types: Any) -> tuple:
    """The member types given to a tuple type: an iterable of types, not one type (which
    would be indexed as `float64[0]`)."""
    if isinstance(types, Type):
        from ember.errors import TypingError

        raise TypingError(f"Argument 'types' is not iterable: {types} (give a tuple of types)")
    return tuple(types)


class UniTuple(BaseTuple):
    """A homogeneous tuple of `count` items of `dtype`."""

    def __init__(self, dtype: Type, count: int) -> None:
        self.dtype = dtype
        self.count = count
        self.types = (dtype,) * count
        super().__init__(f"UniTuple({dtype} x {count})")

    def __repr__(self) -> str:  # Numba's: a constructor call that eval() rebuilds
        return f"UniTuple({self.dtype!r}, {self.count})"

    @property
    def key(self) -> Any:
        return (self.dtype, self.count)

    def _rebuild_args(self) -> tuple:
        return (self.dtype, self.count)


def make_tuple(types: Any) -> BaseTuple:
    """The canonical tuple type of `types`: a UniTuple when all members agree."""
    types = tuple(map(plain_number, types))  # (a[0], 5): a UniTuple, as (5, 5)
    if types and all(t is types[0] for t in types):
        return UniTuple(types[0], len(types))
    return Tuple(types)


class NamedTuple(Tuple):
    """An instance of a namedtuple class (`collections.namedtuple`, `typing.NamedTuple`):
    a tuple whose members also have names, boxed back as an instance of that class."""

    def __init__(self, types: Any, instance_class: type) -> None:
        super().__init__(types)
        self.instance_class = instance_class
        self.fields = tuple(instance_class._fields)
        self.name = f"{instance_class.__name__}({', '.join(str(t) for t in self.types)})"

    @property
    def key(self) -> Any:
        return (self.types, self.instance_class)

    def _rebuild_args(self) -> tuple:
        return (self.types, self.instance_class)


class DeferredText(Tuple):
    """An exception message Python writes only when the exception is raised:
    `template.format(*members)` of members (strings, numbers) known at run time. Compiled code
    carries the members alone, so a `{!r}` of a string costs no compiled `repr`."""

    def __init__(self, types: Any, template: str) -> None:
        super().__init__(types)
        self.template = template
        self.name = f"DeferredText({template!r}, {', '.join(str(t) for t in self.types)})"

    @property
    def key(self) -> Any:
        return (self.types, self.template)

    def _rebuild_args(self) -> tuple:
        return (self.types, self.template)


class NamedUniTuple(UniTuple):
    """A namedtuple instance whose members all have one type."""

    def __init__(self, dtype: Type, count: int, instance_class: type) -> None:
        super().__init__(dtype, count)
        self.instance_class = instance_class
        self.fields = tuple(instance_class._fields)
        self.name = f"{instance_class.__name__}({dtype} x {count})"

    @property
    def key(self) -> Any:
        return (self.dtype, self.count, self.instance_class)

    def _rebuild_args(self) -> tuple:
        return (self.dtype, self.count, self.instance_class)


def make_named_tuple(types: Any, instance_class: type) -> BaseTuple:
    """The tuple type of an instance of `instance_class` with members of `types`."""
    types = tuple(types)
    if types and all(t is types[0] for t in types):
        return NamedUniTuple(types[0], len(types), instance_class)
    return NamedTuple(types, instance_class)


def widened(typ: Type) -> Type:
    """`typ` with its literal types widened, those of tuple members too (`(1, 'a')` as a
    constant is a tuple of literals; a list, set or dict of them holds `Tuple(int64,
    unicode_type)`, as in Numba). A namedtuple keeps its class; literal containers stay."""
    if type(typ) in (Tuple, UniTuple, NamedTuple, NamedUniTuple):
        members = [widened(member) for member in typ.types]
        named = getattr(typ, "instance_class", None)
        return make_tuple(members) if named is None else make_named_tuple(members, named)
    return unliteral(typ)


def is_named_tuple(typ: Type) -> bool:
    return isinstance(typ, (NamedTuple, NamedUniTuple))


class NamedTupleClass(Type):
    """A namedtuple class used as a value: calling it builds an instance."""

    def __init__(self, instance_class: type) -> None:
        self.instance_class = instance_class
        super().__init__(f"class({instance_class.__name__})")

    @property
    def key(self) -> Any:
        return self.instance_class

    def _rebuild_args(self) -> tuple:
        return (self.instance_class,)


class UniTupleIterator(Type):
    """The iterator of a homogeneous tuple: a pointer to {tuple, next index} state."""

    def __init__(self, tuple_type: UniTuple) -> None:
        self.tuple_type = tuple_type
        self.yield_type = tuple_type.dtype
        super().__init__(f"iter({tuple_type})")

    @property
    def key(self) -> Any:
        return self.tuple_type

    def _rebuild_args(self) -> tuple:
        return (self.tuple_type,)


class RangeType(Type):
    """A `range` object over integers of `dtype`."""

    def __init__(self, dtype: Type = int64) -> None:
        self.dtype = dtype
        super().__init__(f"range_state_{dtype}")

    @property
    def key(self) -> Any:
        return self.dtype

    @property
    def iterator_type(self) -> RangeIteratorType:
        return RangeIteratorType(self.dtype)

    def _rebuild_args(self) -> tuple:
        return (self.dtype,)


class RangeIteratorType(Type):
    """The iterator of a range: a pointer to mutable (next, count, step) state."""

    def __init__(self, dtype: Type = int64) -> None:
        self.dtype = dtype
        self.yield_type = dtype
        super().__init__(f"range_iter_{dtype}")

    @property
    def key(self) -> Any:
        return self.dtype

    def _rebuild_args(self) -> tuple:
        return (self.dtype,)


class Pair(Type):
    """The (value, is_valid) result of `iternext`."""

    def __init__(self, first_type: Type, second_type: Type) -> None:
        self.first_type = first_type
        self.second_type = second_type
        super().__init__(f"pair<{first_type}, {second_type}>")

    @property
    def key(self) -> Any:
        return (self.first_type, self.second_type)

    def _rebuild_args(self) -> tuple:
        return (self.first_type, self.second_type)


range_state64_type = RangeType(int64)
range_iter64_type = RangeIteratorType(int64)
