"""Scalar types: booleans, integers, floats, complex numbers, none and literals."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Dummy, Type
from ember.types.strings import unicode_type


class Number(Type):
    """A numeric scalar with a bit width; `kind_rank` orders bool < int < float < complex."""

    kind_rank = 0

    def __init__(self, name: str, bitwidth: int | None = None) -> None:
        super().__init__(name)
        if bitwidth is not None or not hasattr(self, "bitwidth"):  # an extension's own first
            self.bitwidth = bitwidth

    def _rebuild_args(self) -> tuple:
        return (self.name, self.bitwidth)

    def __call__(self, *args: Any) -> Any:
        """`int32(float64)` builds a signature; `int32(42.5)` converts a Python value to this
        type's NumPy scalar (np.int32(42)), as in Numba."""
        if len(args) == 1 and not isinstance(args[0], Type):
            return self.cast_python_value(args[0])
        return super().__call__(*args)

    def cast_python_value(self, value: Any) -> Any:
        import numpy as np

        return np.dtype(self.name).type(value)

    def _comparable(self, other: Any) -> bool:
        """Numba orders number types of one kind by width (int8 < int64, float32 < float64);
        signed and unsigned integers, or different kinds, do not compare."""
        return type(other) is type(self) and getattr(other, "signed", None) == getattr(
            self, "signed", None
        )

    def __lt__(self, other: Any) -> bool:
        return self.bitwidth < other.bitwidth if self._comparable(other) else NotImplemented

    def __le__(self, other: Any) -> bool:
        return self.bitwidth <= other.bitwidth if self._comparable(other) else NotImplemented

    def __gt__(self, other: Any) -> bool:
        return self.bitwidth > other.bitwidth if self._comparable(other) else NotImplemented

    def __ge__(self, other: Any) -> bool:
        return self.bitwidth >= other.bitwidth if self._comparable(other) else NotImplemented

    __hash__ = Type.__hash__


class Boolean(Number):
    kind_rank = 0

    def __init__(self, name: str = "bool", bitwidth: int = 1) -> None:
        super().__init__(name, bitwidth)

    def _rebuild_args(self) -> tuple:
        return ()


class Integer(Number):
    kind_rank = 1

    def __init__(self, name: str, bitwidth: int, signed: bool) -> None:
        super().__init__(name, bitwidth)
        self.signed = signed

    @classmethod
    def from_bitwidth(cls, bitwidth: int, signed: bool = True) -> Integer:
        """The integer type of this width and signedness (Numba's constructor)."""
        return integer_type(bitwidth, signed)

    @property
    def key(self) -> Any:
        """NumPy's name of the width and signedness ('int32', 'uint64'), as in Numba: one type
        per width whatever it is called, and `np.iinfo(t.key)` gives its limits."""
        return f"{'' if self.signed else 'u'}int{self.bitwidth}"

    @property
    def minval(self) -> int:
        return -(1 << (self.bitwidth - 1)) if self.signed else 0

    @property
    def maxval(self) -> int:
        return (1 << (self.bitwidth - (1 if self.signed else 0))) - 1

    def _rebuild_args(self) -> tuple:
        return (self.name, self.bitwidth, self.signed)


class Float(Number):
    kind_rank = 2


class Complex(Number):
    kind_rank = 3

    def __init__(self, name: str, bitwidth: int, underlying_float: Float) -> None:
        super().__init__(name, bitwidth)
        self.underlying_float = underlying_float

    def _rebuild_args(self) -> tuple:
        return (self.name, self.bitwidth, self.underlying_float)


class NumPyScalar:
    """A 64-bit number known to be a NumPy scalar (np.int64(5), an array's item): a distinct
    type, so NumPy's promotion keeps it strong beside an array (NEP 50: `int8_array +
    np.int64(100)` is int64, where `int8_array + 100` is int8). Everything else sees its plain
    type: `unliteral` widens it to that, as it widens a literal."""

    @property
    def plain(self) -> Number:
        return _PLAIN_OF[self.name]

    @property
    def mangling(self) -> str:
        return "np_" + self.name


class NumPyInteger(NumPyScalar, Integer):
    pass


class NumPyFloat(NumPyScalar, Float):
    pass


class NumPyComplex(NumPyScalar, Complex):
    pass


class NoneType(Type):
    def __init__(self, name: str = "none") -> None:
        super().__init__(name)

    def _rebuild_args(self) -> tuple:
        return ()


class Literal(Type):
    """A compile-time constant; `literal_type` is the type it widens to."""

    def __init__(self, value: Any, literal_type: Type) -> None:
        Type.__init__(self, f"Literal[{type(value).__name__}]({value})")  # as Numba spells it
        self.literal_value = value
        self.literal_type = literal_type

    @property
    def key(self) -> Any:
        value = self.literal_value
        try:
            hash(value)
        except TypeError:  # an unhashable constant (an extension's dict): keyed by its spelling
            return (type(value), repr(value))
        return (type(value), value)

    def _rebuild_args(self) -> tuple:
        return (self.literal_value, self.literal_type)


class IntegerLiteral(Literal, Integer):
    """A constant int; also an `Integer` of its widened type's width and signedness, so
    extension code testing `isinstance(ty, types.Integer)` accepts it, as in Numba."""

    def __init__(self, value: int, literal_type: Integer | None = None) -> None:
        literal_type = literal_type or constant_int_type(wrapped_constant(value))
        Literal.__init__(self, wrapped_constant(value), literal_type)
        self.bitwidth = literal_type.bitwidth
        self.signed = literal_type.signed


class BooleanLiteral(Literal, Boolean):
    """A constant bool; also a `Boolean`, as in Numba."""

    def __init__(self, value: bool, literal_type: Boolean | None = None) -> None:
        literal_type = literal_type or boolean
        Literal.__init__(self, value, literal_type)
        self.bitwidth = literal_type.bitwidth


class StringLiteral(Literal, Dummy):
    """A constant string: an exception message, a dispatch key, or (cast to `unicode_type`) a
    string value whose characters live in the compiled module."""

    def __init__(self, value: str, literal_type: Type | None = None) -> None:
        Literal.__init__(self, value, literal_type or string_type)

    def _rebuild_args(self) -> tuple:
        return (self.literal_value,)


boolean = bool_ = Boolean()
int8 = Integer("int8", 8, True)
int16 = Integer("int16", 16, True)
int32 = Integer("int32", 32, True)
int64 = Integer("int64", 64, True)
uint8 = Integer("uint8", 8, False)
uint16 = Integer("uint16", 16, False)
uint32 = Integer("uint32", 32, False)
uint64 = Integer("uint64", 64, False)
float32 = Float("float32", 32)
float64 = Float("float64", 64)
complex64 = Complex("complex64", 64, float32)
complex128 = Complex("complex128", 128, float64)
none = NoneType()
# the NumPy scalars of the types Python's numbers share (a narrower one is always NumPy's)
np_int64 = NumPyInteger("int64", 64, True)
np_uint64 = NumPyInteger("uint64", 64, False)
np_float64 = NumPyFloat("float64", 64)
np_complex128 = NumPyComplex("complex128", 128, float64)
_PLAIN_OF = {"int64": int64, "uint64": uint64, "float64": float64, "complex128": complex128}
_NUMPY_OF = {int64: np_int64, uint64: np_uint64, float64: np_float64, complex128: np_complex128}
string_type = string = unicode_type

intp = int64
uintp = uint64
byte = uint8
short, ushort = int16, uint16
intc, uintc = int32, uint32
long_, ulong = int64, uint64
longlong, ulonglong = int64, uint64
double = float64
float_ = float32
void = none
char, uchar = int8, uint8
int_, uint = int64, uint64
ssize_t, size_t = int64, uint64
b1 = boolean
i1, i2, i4, i8 = int8, int16, int32, int64
u1, u2, u4, u8 = uint8, uint16, uint32, uint64
f4, f8 = float32, float64
c8, c16 = complex64, complex128

# sets, as Numba's: extension code combines them with `|`
signed_domain = frozenset((int8, int16, int32, int64))
unsigned_domain = frozenset((uint8, uint16, uint32, uint64))
integer_domain = signed_domain | unsigned_domain
real_domain = frozenset((float32, float64))
complex_domain = frozenset((complex64, complex128))
number_domain = integer_domain | real_domain | complex_domain


def integer_type(bitwidth: int, signed: bool) -> Integer:
    """The interned integer type of this width and signedness."""
    for candidate in integer_domain:
        if candidate.bitwidth == bitwidth and candidate.signed == signed:
            return candidate
    raise ValueError(f"no {bitwidth}-bit {'signed' if signed else 'unsigned'} integer type")


def wrapped_constant(value: int) -> int:
    """An int constant as compiled code holds it: beyond the 64-bit types, the value that
    wrapping int64 arithmetic gives (CPython folds `(2**63 - 1) * 4` at compile time; compiled
    code computing it would wrap to -4)."""
    if int64.minval <= value <= uint64.maxval:
        return value
    value &= (1 << 64) - 1
    return value - (1 << 64) if value > int64.maxval else value


def constant_int_type(value: int) -> Type:
    """int64, or uint64 for a constant (already wrapped) above int64's range, as Numba does."""
    return int64 if value <= int64.maxval else uint64


def literal(value: Any) -> Type:
    """The literal type of a Python constant: an int, a bool or a str."""
    if isinstance(value, bool):
        return BooleanLiteral(value, boolean)
    if isinstance(value, int):
        value = wrapped_constant(value)
        return IntegerLiteral(value, constant_int_type(value))
    if isinstance(value, str):
        return StringLiteral(value)
    raise TypeError(f"no literal type for {value!r}")


def maybe_literal(value: Any) -> Type | None:
    """The literal type of a Python constant, or None when it has none (Numba's spelling)."""
    try:
        return literal(value)
    except TypeError:
        return None


def unliteral(typ: Type) -> Type:
    """Widen a literal type to the type it stands for, a NumPy scalar's type to its plain
    type; other types are unchanged."""
    if isinstance(typ, Literal):
        return typ.literal_type
    return typ.plain if isinstance(typ, NumPyScalar) else typ


def numpy_scalar(typ: Type) -> Type:
    """The type of a NumPy scalar of `typ` (strong in NumPy's promotion): np_int64 for int64;
    a narrower number type is one already."""
    return _NUMPY_OF.get(typ, typ)


def plain_number(typ: Type) -> Type:
    """A NumPy scalar's plain number type (other types, literals too, unchanged): what a
    container holds (a list of np.int64 items is a list of int64, as one of Python ints)."""
    return typ.plain if isinstance(typ, NumPyScalar) else typ


def is_numpy_scalar(typ: Type) -> bool:
    """Whether a value of type `typ` is known to be a NumPy scalar of 64 bits."""
    return isinstance(typ, NumPyScalar)
