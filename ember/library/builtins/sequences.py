"""sorted, reversed, min/max of 1-d arrays, `x in range(...)`, range attributes (start, stop,
step), isinstance with classes known at compile time, and three-argument pow.

`reversed(xs)` of a list or array gives a reversed list (a copy made at the call: iterating it
is what programs do with it); of a range, the reversed range. min/max of an array compare item
by item as CPython does (so NaN follows Python's rules, not NumPy's).
"""

from __future__ import annotations

import math
import operator

from llvmlite import ir as llvm

from ember import types
from ember.extending import overload, overload_method
from ember.library.builtins import key_functions
from ember.library.builtins.enumerate_zip import iterator_of
from ember.lowering.registry import lower_builtin, lower_getattr
from ember.misc.literal import literal_unroll
from ember.typing.overload import register_jitable
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, registry


def _number(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.Number, types.Boolean))


def _iterator(typ) -> bool:
    """An iterator or generator: `iter(x)` is `x` itself."""
    return iterator_of(typ) is typ


def _indexable(typ) -> bool:
    if isinstance(typ, types.Array):
        return typ.ndim == 1 and _number(typ.dtype)
    return isinstance(typ, types.List)


# ---------------------------------------------------------------------------- ranges

_RANGE_FIELDS = ("start", "stop", "step")


@registry.register_attr
class RangeAttributes(AttributeTemplate):
    key = types.RangeType

    def generic_resolve(self, range_type: types.RangeType, attr: str) -> types.Type | None:
        return range_type.dtype if attr in _RANGE_FIELDS else None


for _index, _field in enumerate(_RANGE_FIELDS):

    @lower_getattr(types.RangeType, _field)
    def _range_field(context, builder, typ, value, _index=_index):
        return builder.extract_value(value, _index)


@overload(operator.contains)
def range_contains(r, x):
    if not isinstance(r, types.RangeType):
        return None
    if isinstance(types.unliteral(x), (types.Float, types.Boolean)):

        def contains_number(r, x):  # 3.0 in range(5) compares as CPython: by value
            return x == int(x) and int(x) in r if math.isfinite(x) else False

        return contains_number
    if isinstance(types.unliteral(x), types.Complex):

        def contains_complex(r, x):  # equal to an int only when it has no imaginary part
            return x.imag == 0 and x.real in r

        return contains_complex
    if not isinstance(types.unliteral(x), types.Integer):
        return None

    def contains(r, x):
        if r.step > 0:
            return r.start <= x < r.stop and (x - r.start) % r.step == 0
        return r.stop < x <= r.start and (r.start - x) % -r.step == 0

    return contains


# ---------------------------------------------------------------------------- reversed, sorted


@overload(operator.getitem)
def range_getitem(r, index):
    if not isinstance(r, types.RangeType):
        return None
    if isinstance(index, types.SliceType):

        def range_slice(r, index):
            start, stop, step = index.indices(len(r))
            return range(r.start + start * r.step, r.start + stop * r.step, r.step * step)

        return range_slice
    if not isinstance(types.unliteral(index), (types.Integer, types.Boolean)):
        return None

    def range_item(r, index):
        count = len(r)
        position = index + count if index < 0 else index
        if position < 0 or position >= count:
            raise IndexError("range object index out of range")
        return r.start + position * r.step

    return range_item


@overload_method(types.RangeType, "count")
def range_count(r, value):
    if not _number(value):
        return None
    return lambda r, value: 1 if value in r else 0


@overload_method(types.RangeType, "index")
def range_index(r, value):
    if not _number(value):
        return None

    def index(r, value):
        if value not in r:
            raise ValueError("value is not in range")
        return int((value - r.start) // r.step)

    return index


@overload(reversed)
def builtin_reversed(seq):
    if isinstance(seq, types.RangeType):

        def reversed_range(seq):
            count = len(seq)
            last = seq.start + (count - 1) * seq.step
            return range(last, last - count * seq.step, -seq.step)

        return reversed_range
    homogeneous = isinstance(seq, (types.UnicodeType, types.UniTuple))
    if not (_indexable(seq) or homogeneous):
        return None

    def reversed_items(seq):
        return [seq[index] for index in range(len(seq) - 1, -1, -1)]

    return reversed_items


@overload(sorted)
def builtin_sorted(iterable, key=None, reverse=False):
    if not (_indexable(iterable) or iterator_of(iterable) is not None):
        return None
    if not _no_key(key):  # a jitted or builtin function (an inner one is inlined instead)
        return key_functions.sorted_by_key

    def sorted_items(iterable, key=None, reverse=False):
        out = [item for item in iterable]
        if reverse:  # a stable descending order: equal items keep their order (0.0, -0.0)
            out.reverse()
            out.sort()
            out.reverse()
        else:
            out.sort()
        return out

    from ember.library.containers.list_sorting import _sortable, _stable_sort

    item = iterator_of(iterable)
    if item is None or not _sortable(types.unliteral(item.yield_type)):
        return sorted_items

    def sorted_sortable(iterable, key=None, reverse=False):  # list.sort's work, inlined
        out = [item for item in iterable]
        if reverse:
            out.reverse()
            _stable_sort(out)
            out.reverse()
        else:
            _stable_sort(out)
        return out

    return sorted_sortable


def _no_key(key) -> bool:
    return key is None or isinstance(key, types.NoneType)


# ---------------------------------------------------------------------------- min, max


def _array_extreme(symbol: str):
    better = operator.gt if symbol == "max" else operator.lt
    message = f"{symbol}() arg is an empty sequence"

    def select(iterable):
        if not (isinstance(iterable, types.Array) and iterable.ndim == 1):
            return None
        dtype = iterable.dtype  # numbers and datetimes (a NaT never beats nor is beaten)
        if not (_number(dtype) or isinstance(dtype, types.NPDatetime | types.NPTimedelta)):
            return None
        if isinstance(dtype, types.Complex):
            return None

        def extreme(iterable):
            if iterable.shape[0] == 0:
                raise ValueError(message)
            best = iterable[0]
            for index in range(1, iterable.shape[0]):
                if better(iterable[index], best):
                    best = iterable[index]
            return best

        return extreme

    return select


overload(max)(_array_extreme("max"))
overload(min)(_array_extreme("min"))


def _comparable(typ) -> bool:
    """Items `<` orders: numbers, strings and tuples of those."""
    if isinstance(typ, types.BaseTuple) and not isinstance(typ, types.LiteralContainer):
        return all(_comparable(member) for member in typ)
    return _number(typ) or isinstance(types.unliteral(typ), types.UnicodeType)


def _iterator_extreme(symbol: str):
    """min/max over strings, tuples, sets, dicts, ranges, iterators and generators (generator
    expressions too): one pass, the first of equal extremes kept, as CPython does."""
    better = operator.gt if symbol == "max" else operator.lt
    message = f"{symbol}() arg is an empty sequence"

    def select(iterable):
        if isinstance(iterable, types.Array) or _indexable(iterable):
            return None  # their own, above and in containers/list_sorting.py
        iterator = iterator_of(iterable)
        if iterator is None or not _comparable(iterator.yield_type):
            return None

        def extreme(iterable):
            empty = True
            for item in iterable:
                if empty:
                    best, empty = item, False
                elif better(item, best):
                    best = item
            if empty:
                raise ValueError(message)
            return best

        return extreme

    return select


overload(max)(_iterator_extreme("max"))
overload(min)(_iterator_extreme("min"))


def _strings_extreme(symbol: str):
    """min/max of two or more strings or tuples given as arguments: the first of equal
    extremes."""
    better = operator.gt if symbol == "max" else operator.lt

    def select(*args):
        if len(args) < 2 or all(_number(a) for a in args) or not all(map(_comparable, args)):
            return None  # (numbers have their own)

        def extreme(*args):
            best = args[0]
            for item in literal_unroll(args):  # members may differ in type (literal strings)
                if better(item, best):
                    best = item
            return best

        return extreme

    return select


overload(max)(_strings_extreme("max"))
overload(min)(_strings_extreme("min"))


def _given(argument) -> bool:
    """A keyword argument the call passed (None: left out; types.none: passed as None)."""
    return argument is not None and not isinstance(argument, types.Omitted)


def _keyed_extreme(symbol: str):
    """min/max(iterable, key=..., default=...) with a jitted or builtin key (an inner function
    or lambda is inlined instead: key_functions.py) or a default for an empty iterable: each
    key computed once, the first of equal extremes kept, as CPython does."""
    better = operator.gt if symbol == "max" else operator.lt
    message = f"{symbol}() arg is an empty sequence"

    def by_key(iterable, key=None, default=None):
        best, best_score, empty = None, None, True
        for item in iterable:
            score = key(item)
            if empty or better(score, best_score):
                best, best_score, empty = item, score, False
        if empty:
            raise ValueError(message)
        return best

    def by_key_or_default(iterable, key=None, default=None):
        best, best_score, empty = None, None, True
        for item in iterable:
            score = key(item)
            if empty or better(score, best_score):
                best, best_score, empty = item, score, False
        return default if empty else best

    def by_item(iterable, key=None, default=None):
        best, empty = None, True
        for item in iterable:
            if empty or better(item, best):
                best, empty = item, False
        if empty:
            raise ValueError(message)
        return best

    def by_item_or_default(iterable, key=None, default=None):
        best, empty = None, True
        for item in iterable:
            if empty or better(item, best):
                best, empty = item, False
        return default if empty else best

    def select(iterable, key=None, default=None):
        if not (_given(key) or _given(default)):
            return None  # plain min/max: above
        if _comparable(key):  # max(a, b) of two values (tuples): not a key function
            return None
        if not (_indexable(iterable) or iterator_of(iterable) is not None):
            return None
        if not _given(key) or isinstance(key, types.NoneType):
            return by_item_or_default if _given(default) else by_item
        return by_key_or_default if _given(default) else by_key

    return select


overload(max)(_keyed_extreme("max"))
overload(min)(_keyed_extreme("min"))


# ---------------------------------------------------------------------------- isinstance


def _python_classes(typ) -> tuple | None:
    """The classes a compile-time `classinfo` stands for, or None if it is not one."""
    if isinstance(typ, types.BaseTuple):
        parts = [_python_classes(member) for member in typ.types]
        return None if None in parts else tuple(c for part in parts for c in part)
    if isinstance(typ, types.TypeRef):  # a type instance used as a class: types.int32
        return (typ.instance_type,)
    key = getattr(typ, "typing_key", None)
    return (key,) if isinstance(key, type) else None


# A Python int, float or complex is an int64, float64 or complex128 in compiled code; NumPy's
# other scalars (np.int8(3)) are not instances of those classes, as in CPython.
_PYTHON_NUMBER_TYPES = {
    int: (types.int64, types.boolean),
    float: (types.float64,),
    complex: (types.complex128,),
    bool: (types.boolean,),
}
# A literal list or str-keyed dict (a list or dict of mixed item types) is a tuple inside
# ember but a list or dict to the program, as in CPython; a typed List is not a Python list.
_CLASS_TYPES = {
    str: (types.UnicodeType,),
    bytes: (types.BytesType,),
    dict: (types.DictType, types.LiteralStrKeyDict),
    set: (types.Set,),
    range: (types.RangeType,),
    slice: (types.SliceType,),
}


def is_instance_of(value_type: types.Type, classes: tuple) -> bool | None:
    """isinstance() of a value of `value_type` (None: a class this cannot decide)."""
    import sys

    numpy = sys.modules.get("numpy")
    plain = types.unliteral(value_type)
    found = False
    for cls in classes:
        if isinstance(cls, types.Type):
            found |= plain == cls
        elif numpy is not None and cls is numpy.ndarray:
            found |= isinstance(value_type, types.Array)
        elif cls in _PYTHON_NUMBER_TYPES:
            found |= plain in _PYTHON_NUMBER_TYPES[cls]
        elif cls is list:
            found |= isinstance(plain, types.List | types.LiteralList) and not isinstance(
                plain, types.ListType
            )
        elif cls is tuple:
            found |= isinstance(plain, types.BaseTuple) and not isinstance(
                plain, types.LiteralContainer
            )
        elif cls in _CLASS_TYPES:
            found |= isinstance(plain, _CLASS_TYPES[cls])
        elif numpy is not None and _numpy_scalar_class(numpy, cls):
            found |= _is_numpy_instance(numpy, plain, cls)
        elif _is_namedtuple_class(cls):
            found |= types.is_named_tuple(plain) and issubclass(plain.instance_class, cls)
        elif isinstance(getattr(cls, "class_type", None), types.ClassType):  # a jitclass
            found |= value_type is cls.class_type.instance_type
        elif _typed_container_type(cls) is not None:
            found |= isinstance(plain, _typed_container_type(cls))
        else:
            found |= plain is _registered_type(cls)
    return found


def _is_namedtuple_class(cls: object) -> bool:
    from ember.library.containers.namedtuples import is_namedtuple_class

    return is_namedtuple_class(cls)


def _registered_type(cls: type) -> types.Type:
    """The type an extension registered for its class (`as_numba_type.register`): what
    `isinstance(x, cls)` compares x's type with; a TypingError (Numba's words) without one."""
    from ember.errors import TypingError
    from ember.extending import as_numba_type

    if issubclass(cls, types.Type):
        raise TypingError(  # Numba's words first
            f"Numba type classes (here {cls.__name__}) are not supported as isinstance()'s "
            "class: use a type instance (types.int64), or test the type in an @overload"
        )
    found = as_numba_type.try_infer(cls)
    if found is None:
        raise TypingError(
            f"Cannot infer Numba type of Python type {cls!r}: isinstance() in compiled code "
            "knows Python's and ember's classes, and those registered with "
            "`as_numba_type.register(cls, ember_type)`"
        )
    return found


def _typed_container_type(cls) -> type | None:
    """The type class of ember.typed.List, Dict or Set instances, for one of those classes."""
    import sys

    typed = sys.modules.get("ember.typed")
    if typed is None:
        return None
    kinds = {typed.List: types.ListType, typed.Dict: types.DictType, typed.Set: types.SetType}
    return kinds.get(cls)


def _numpy_scalar_class(numpy, cls) -> bool:
    """A NumPy scalar class, concrete (np.int32) or abstract (np.floating)."""
    return isinstance(cls, type) and issubclass(cls, numpy.generic)


def _is_numpy_instance(numpy, plain: types.Type, cls: type) -> bool:
    """isinstance() against a NumPy scalar class, by the NumPy class of the value's type.
    np.int64 is also how ember types a Python int, so isinstance(1, np.int64) is True in
    compiled code, as in Numba (CPython says False)."""
    if isinstance(plain, types.NPDatetime | types.NPTimedelta):  # any unit
        scalar_class = (
            numpy.datetime64 if isinstance(plain, types.NPDatetime) else numpy.timedelta64
        )
    elif isinstance(plain, types.Number | types.Boolean):
        from ember.np.numpy_support import as_dtype

        scalar_class = as_dtype(plain).type
    else:
        return False
    return issubclass(scalar_class, cls)


@registry.typer(bytes)
def _type_bytes_class(args, kws):
    return None  # `bytes` is typed as a class for isinstance; bytes(...) calls are not built


@registry.typer(tuple)
def _type_tuple_class(args, kws):
    return None  # `tuple` is typed as a class for isinstance; tuple(...) calls are not built


@registry.typer(isinstance)
def _type_isinstance(args, kws):
    if kws or len(args) != 2:
        return None
    classes = _python_classes(args[1])
    if classes is None or is_instance_of(args[0], classes) is None:
        return None
    return signature(types.boolean, *args)


@lower_builtin(isinstance, types.Type, types.Type)
def _lower_isinstance(context, builder, sig, args):
    classes = _python_classes(sig.args[1])
    subject = sig.args[0]
    if not isinstance(subject, types.Optional):
        return llvm.Constant(llvm.IntType(1), int(is_instance_of(subject, classes)))
    # `y = x if c else None`: the answer for a T or for None, chosen by the value at run time
    from ember.lowering.optional import is_valid

    when_value = llvm.Constant(llvm.IntType(1), int(is_instance_of(subject.type, classes)))
    when_none = llvm.Constant(llvm.IntType(1), int(is_instance_of(types.none, classes)))
    return builder.select(is_valid(builder, args[0]), when_value, when_none)


# ---------------------------------------------------------------------------- pow(a, b, m)


@overload(pow)
def builtin_pow_mod(base, exp, mod):
    if not all(isinstance(types.unliteral(t), types.Integer) for t in (base, exp, mod)):
        return None

    def power_mod(base, exp, mod):
        if mod == 0:
            raise ValueError("pow() 3rd argument cannot be 0")
        modulus = abs(mod)
        factor = base % modulus
        if exp < 0:  # Python 3.8+: the power of the inverse of base modulo mod
            factor = _inverse_mod(factor, modulus)
            exp = -exp
        result = 1 % modulus
        while exp > 0:
            if exp & 1:
                result = _multiply_mod(result, factor, modulus)
            factor = _multiply_mod(factor, factor, modulus)
            exp >>= 1
        if mod < 0 and result != 0:  # Python's modulo takes the modulus's sign
            result -= modulus
        return result

    return power_mod


@register_jitable
def _inverse_mod(a, m):
    """x in [0, m) with a * x % m == 1 (extended Euclid), as CPython's pow(a, -1, m)."""
    old_r, r = a, m
    old_s, s = 1, 0
    while r != 0:
        q = old_r // r
        old_r, r = r, old_r - q * r
        old_s, s = s, old_s - q * s
    if old_r != 1:
        raise ValueError("base is not invertible for the given modulus")
    return old_s % m


@register_jitable
def _multiply_mod(a, b, m):
    """a * b % m for 0 <= a, b < m without overflowing 64 bits (doubling when m is large)."""
    if m <= 3037000499:
        return a * b % m
    result = 0
    while b > 0:
        if b & 1:
            result = (result + a) % m if result < m - a else result + a - m
        a = a + a - m if a >= m - a else a + a
        b >>= 1
    return result
