"""Implicit conversion kinds between types (exact, promote, safe, unsafe) and type unification.

The numeric table is built once at import from a few declared edges, closed transitively:
a path's kind is the worst kind along it, and the best path wins (seed 003).
"""

from __future__ import annotations

import enum
from functools import cache

from ember import types
from ember.types.functions import unify_exception_classes, unify_functions


class Conversion(enum.IntEnum):
    exact = 1
    promote = 2
    safe = 3
    unsafe = 4


_t = types
# (from, to, kind forward); the reverse direction is always unsafe when `reversible`.
_NUMERIC_EDGES = [
    (_t.boolean, _t.int8, Conversion.safe, True),
    (_t.boolean, _t.uint8, Conversion.safe, True),
    (_t.int8, _t.int16, Conversion.promote, True),
    (_t.uint8, _t.uint16, Conversion.promote, True),
    (_t.int16, _t.int32, Conversion.promote, True),
    (_t.uint16, _t.uint32, Conversion.promote, True),
    (_t.int32, _t.int64, Conversion.promote, True),
    (_t.uint32, _t.uint64, Conversion.promote, True),
    (_t.uint8, _t.int16, Conversion.safe, True),
    (_t.uint16, _t.int32, Conversion.safe, True),
    (_t.uint32, _t.int64, Conversion.safe, True),
    (_t.int16, _t.float32, Conversion.safe, True),
    (_t.int32, _t.float64, Conversion.safe, True),
    (_t.int64, _t.float64, Conversion.safe, True),  # safe in Numba's table, though lossy
    (_t.uint64, _t.float64, Conversion.safe, True),
    (_t.float32, _t.float64, Conversion.promote, True),
    (_t.float32, _t.complex64, Conversion.safe, False),
    (_t.float64, _t.complex128, Conversion.safe, False),
    (_t.complex64, _t.complex128, Conversion.promote, True),
]


def _close_numeric_table() -> dict[tuple[types.Type, types.Type], Conversion]:
    graph: dict[types.Type, dict[types.Type, Conversion]] = {}
    for src, dst, kind, reversible in _NUMERIC_EDGES:
        graph.setdefault(src, {})[dst] = kind
        if reversible:
            graph.setdefault(dst, {})[src] = Conversion.unsafe
    table = {}
    numbers = (_t.boolean, *_t.number_domain)
    for source in numbers:
        best = {source: Conversion.exact}
        frontier = [source]
        while frontier:
            node = frontier.pop()
            for nxt, kind in graph.get(node, {}).items():
                worst = max(best[node], kind)
                if nxt not in best or worst < best[nxt]:
                    best[nxt] = worst
                    frontier.append(nxt)
        for target, kind in best.items():
            table[source, target] = kind
    return table


_NUMERIC_TABLE = _close_numeric_table()


@cache
def can_convert(from_type: types.Type, to_type: types.Type) -> Conversion | None:
    """The kind of implicit conversion from one type to another, or None when there is none."""
    if from_type is to_type:
        return Conversion.exact
    if isinstance(from_type, types.Literal):
        inner = can_convert(from_type.literal_type, to_type)
        return max(inner, Conversion.promote) if inner is not None else None
    if types.is_numpy_scalar(from_type) or types.is_numpy_scalar(to_type):
        # a NumPy scalar is its plain number type but for NEP 50's promotion
        return can_convert(types.unliteral(from_type), types.unliteral(to_type))
    numeric = _NUMERIC_TABLE.get((from_type, to_type))
    if numeric is not None:
        return numeric
    if isinstance(from_type, types.BaseTuple) and isinstance(to_type, types.BaseTuple):
        return _convert_members(from_type.types, to_type.types)
    if isinstance(from_type, types.Array) and isinstance(to_type, types.Array):
        return _convert_array(from_type, to_type)
    if isinstance(to_type, types.Optional) or isinstance(from_type, types.Optional):
        return _convert_optional(from_type, to_type)
    if isinstance(to_type, (types.UnicodeCharSeq, types.CharSeq)):  # a string element's store
        stored = (to_type.value_type, types.unicode_type)  # 'S' takes an ASCII str too
        return Conversion.unsafe if from_type in stored else None
    if isinstance(from_type, types.List) and isinstance(to_type, types.List):
        # reflected, typed and plain lists of one item type share their representation
        return Conversion.promote if from_type.dtype is to_type.dtype else None
    if isinstance(from_type, types.Set) and isinstance(to_type, types.Set):
        return Conversion.promote if from_type.dtype is to_type.dtype else None  # as lists
    if isinstance(from_type, types.IntEnumMember):  # an IntEnum member is also an int
        inner = can_convert(from_type.dtype, to_type)
        return max(inner, Conversion.safe) if inner is not None else None
    if isinstance(from_type, (types.DispatcherType, types.DispatcherChoice)) and isinstance(
        to_type, types.FunctionType
    ):
        return Conversion.safe  # compiled for the signature, called through its C entry
    return _extension_conversion(from_type, to_type)


def _extension_conversion(from_type: types.Type, to_type: types.Type) -> Conversion | None:
    """An extension type's own rule (Numba's hooks): `from_type.can_convert_to(context,
    to_type)` or `to_type.can_convert_from(context, from_type)`, a Conversion or None."""
    for hook, other in (
        (getattr(from_type, "can_convert_to", None), to_type),
        (getattr(to_type, "can_convert_from", None), from_type),
    ):
        if hook is not None:
            found = hook(None, other)
            if found is not None:
                return Conversion(found) if not isinstance(found, Conversion) else found
    return None


def _convert_optional(from_type: types.Type, to_type: types.Type) -> Conversion | None:
    """None and T become Optional(T) by promotion; Optional(T) becomes T only safely (it is
    checked at run time, raising TypeError when the value is None), as in Numba."""
    if isinstance(to_type, types.Optional):
        if isinstance(from_type, types.NoneType):
            return Conversion.promote
        inner = from_type.type if isinstance(from_type, types.Optional) else from_type
        kind = can_convert(inner, to_type.type)
        if kind is None or isinstance(from_type, types.Optional):
            return kind
        return max(kind, Conversion.promote)
    kind = can_convert(from_type.type, to_type)
    return None if kind is None else max(kind, Conversion.safe)


def _convert_members(sources: tuple, targets: tuple) -> Conversion | None:
    if len(sources) != len(targets):
        return None
    worst = Conversion.exact
    for src, dst in zip(sources, targets):
        kind = can_convert(src, dst)
        if kind is None:
            return None
        worst = max(worst, kind)
    return worst


def _convert_array(src: types.Array, dst: types.Array) -> Conversion | None:
    if src.dtype is not dst.dtype or src.ndim != dst.ndim:
        return None
    if src.readonly and not dst.readonly:
        return None
    if src.layout != dst.layout and dst.layout != "A":
        return None
    return Conversion.safe if src.layout != dst.layout else Conversion.promote


def storable(from_type: types.Type, to_type: types.Type) -> Conversion | None:
    """How a value converts when stored into a container's slot of `to_type`: as
    `can_convert` up to safe, and besides an integer into a narrower integer or any float, or
    a float (complex) into a narrower float (complex) (Numba casts, warning: `d[k] = 123`
    into int32 values).
    A float is not truncated into an integer slot (Numba would; Python's list would hold
    the float). None: it cannot be stored."""
    from_type = types.unliteral(from_type)
    kind = can_convert(from_type, to_type)
    if kind is not None and kind <= Conversion.safe:
        return kind
    if isinstance(from_type, types.BaseTuple) and isinstance(to_type, types.BaseTuple):
        if len(from_type) != len(to_type):  # member by member: `d[(1, 2)]`, uint32 pairs
            return None
        kinds = [storable(a, b) for a, b in zip(from_type.types, to_type.types)]
        return None if None in kinds else max(kinds, default=Conversion.exact)
    integral = (types.Integer, types.Boolean)
    if isinstance(from_type, integral) and isinstance(to_type, (types.Integer, types.Float)):
        return Conversion.unsafe
    if isinstance(from_type, types.Float) and isinstance(to_type, types.Float):
        return Conversion.unsafe
    if isinstance(from_type, types.Complex) and isinstance(to_type, types.Complex):
        return Conversion.unsafe
    if _text_into_chars(from_type, to_type):
        return Conversion.safe  # NumPy's: cut to the slot's length, as a char array stores it
    return None


def _text_into_chars(from_type: types.Type, to_type: types.Type) -> bool:
    """A str into a fixed-length str slot, or bytes into a fixed-length bytes slot (a typed
    Dict keyed by a char array's dtype)."""
    if isinstance(to_type, types.UnicodeCharSeq):
        return isinstance(from_type, types.UnicodeType)
    return isinstance(to_type, types.CharSeq) and isinstance(from_type, types.BytesType)


def warn_if_unsafe(kind: Conversion, from_type: types.Type, to_type: types.Type) -> None:
    """Numba's NumbaTypeSafetyWarning for a store that may lose information."""
    if kind is Conversion.unsafe:
        import warnings

        from ember.errors import NumbaTypeSafetyWarning

        warnings.warn(
            NumbaTypeSafetyWarning(
                f"unsafe cast from {types.unliteral(from_type)} to {to_type}. Precision may be "
                "lost."
            ),
            stacklevel=2,
        )


# ------------------------------------------------------------------------------ unification


def _numpy_promote(a: types.Number, b: types.Number) -> types.Number:
    """NumPy's `promote_types` on scalar types, without importing NumPy."""
    if a is b:
        return a
    if a.kind_rank > b.kind_rank:
        a, b = b, a
    if isinstance(b, types.Boolean):
        return a
    if isinstance(a, types.Boolean):
        return b
    if isinstance(a, types.Integer) and isinstance(b, types.Integer):
        return _promote_integers(a, b)
    if isinstance(a, types.Integer):  # with a float or a complex
        needed = 64 if a.bitwidth >= 32 else 32
        return _at_least(b, needed)
    if isinstance(a, types.Float) and isinstance(b, types.Complex):
        return _at_least(b, a.bitwidth)
    return a if a.bitwidth >= b.bitwidth else b


def _promote_integers(a: types.Integer, b: types.Integer) -> types.Number:
    if a.signed == b.signed:
        return a if a.bitwidth >= b.bitwidth else b
    signed, unsigned = (a, b) if a.signed else (b, a)
    if unsigned.bitwidth < signed.bitwidth:
        return signed
    if unsigned.bitwidth == 64:
        return types.float64
    return types.integer_type(unsigned.bitwidth * 2, True)


def _at_least(number: types.Number, float_bits: int) -> types.Number:
    """`number` (a float or complex) widened so its real part has `float_bits` bits."""
    if isinstance(number, types.Complex):
        return types.complex128 if float_bits > 32 else number
    return types.float64 if float_bits > number.bitwidth else number


def unify_pair(first: types.Type, second: types.Type) -> types.Type | None:
    """The type that both `first` and `second` can become at a merge, or None."""
    if first is second:
        return first
    first, second = types.unliteral(first), types.unliteral(second)
    if first is second:
        return first
    if _int_enum_and_number(first, second) or _int_enum_and_number(second, first):
        first, second = _int_enum_value_type(first), _int_enum_value_type(second)
    if isinstance(first, types.Number) and isinstance(second, types.Number):
        return _numpy_promote(first, second)
    if isinstance(first, (types.Optional, types.NoneType)) or isinstance(
        second, (types.Optional, types.NoneType)
    ):
        return _unify_optional(first, second)
    if isinstance(first, types.LiteralContainer):
        return first.unified_with(second, unify_pair)
    if isinstance(second, types.LiteralContainer):
        return second.unified_with(first, unify_pair)
    if isinstance(first, types.BaseTuple) and isinstance(second, types.BaseTuple):
        if len(first) != len(second):
            return None
        members = [unify_pair(a, b) for a, b in zip(first.types, second.types)]
        if None in members:
            return None
        named = getattr(first, "instance_class", None)
        if named is not None and named is getattr(second, "instance_class", None):
            return types.make_named_tuple(members, named)
        return types.make_tuple(members)
    if isinstance(first, types.Array) and isinstance(second, types.Array):
        if (first.dtype, first.ndim) != (second.dtype, second.ndim):
            return None
        return types.Array(first.dtype, first.ndim, "A", first.readonly or second.readonly)
    if isinstance(first, types.List) and isinstance(second, types.List):
        # only an empty list of undefined items takes another list's type: a list's items
        # keep their type (the storage of list(int64) holds int64 values)
        if not first.is_precise:
            return second
        if not second.is_precise:
            return first
        return _unify_list_kinds(first, second)
    if isinstance(first, types.HashTable) and type(first) is type(second):
        # as for lists: only an empty `{}`/`set()` of undefined members takes another's type
        if isinstance(first, types.DictType) and not (first.is_precise and second.is_precise):
            return _unify_waiting_dicts(first, second)
        if not first.is_precise:
            return second
        if not second.is_precise:
            return first
        if isinstance(first, types.Set) and first.dtype is second.dtype:
            return types.Set(first.dtype, first.reflected or second.reflected)
        return None
    if isinstance(first, types.ExceptionInstance) and isinstance(second, types.ExceptionInstance):
        return types.ExceptionInstance(BaseException)  # one layout for every class
    if isinstance(first, types.BoundFunction) and isinstance(second, types.BoundFunction):
        if first.template is not None or second.template is not None:
            return None  # (identical methods unified above)
        this = unify_pair(first.this, second.this) if first.attr == second.attr else None
        return None if this is None else types.BoundFunction(this, first.attr)
    return unify_functions(first, second) or unify_exception_classes(first, second)


def _unify_waiting_dicts(first: types.DictType, second: types.DictType) -> types.Type | None:
    """Dicts of which one at least still waits for members: each undefined member takes the
    other's (`{}` holding `[]` so far meets `{int64: list(int64)}`); defined ones must agree."""

    def member(a: types.Type, b: types.Type) -> types.Type | None:
        if a is types.undefined or a is b:
            return b
        if b is types.undefined:
            return a
        if isinstance(a, types.List) and isinstance(b, types.List):
            return unify_pair(a, b) if not (a.is_precise and b.is_precise) else None
        if isinstance(a, types.HashTable) and isinstance(b, types.HashTable):
            return unify_pair(a, b) if not (a.is_precise and b.is_precise) else None
        return None

    key = member(first.key_type, second.key_type)
    value = member(first.value_type, second.value_type)
    return None if key is None or value is None else types.DictType(key, value)


def _unify_list_kinds(first: types.List, second: types.List) -> types.List | None:
    """Lists of one item type: a typed list stays typed, else reflected wins (as in Numba);
    a typed list and a Python one do not meet."""
    if first.dtype is not second.dtype:
        return None
    if isinstance(first, types.ListType) or isinstance(second, types.ListType):
        return first if type(first) is type(second) else None
    return types.List(first.dtype, first.reflected or second.reflected)


def _int_enum_and_number(first: types.Type, second: types.Type) -> bool:
    """Whether an IntEnum member meets a number (or another class's member): both are ints."""
    return isinstance(first, types.IntEnumMember) and isinstance(
        second, (types.Number, types.IntEnumMember)
    )


def _int_enum_value_type(typ: types.Type) -> types.Type:
    return typ.dtype if isinstance(typ, types.IntEnumMember) else typ


def _unify_optional(first: types.Type, second: types.Type) -> types.Type | None:
    """None merged with T (or with Optional(T)) is Optional(T); T must hold runtime data."""
    inner = [t.type if isinstance(t, types.Optional) else t for t in (first, second)]
    values = [t for t in inner if not isinstance(t, types.NoneType)]
    if not values:
        return types.none
    common = values[0] if len(values) == 1 else unify_pair(*values)
    if common is None or isinstance(common, types.Dummy) or not common.is_precise:
        return None
    return types.Optional(common)
