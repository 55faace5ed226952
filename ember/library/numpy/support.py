"""Shared pieces of ember's NumPy support: dtypes and keyword folding for typers.

Typers registered with `np_typer` see every parameter of a NumPy-like Python signature: keyword
arguments are placed by name and omitted ones take the type of their default. The returned
Signature carries the signature (`pysig`), so lowering places keyword arguments the same way
(`CallLowering._folded_arguments`).

NumPy functions themselves are `@overload`/`@overload_method` implementations written in Python
(with `jit_options=NUMPY_ERRORS`), the way a user's extension is written.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ember import types
from ember.errors import NumbaNotImplementedError, NumbaValueError, TypingError
from ember.typing.overload import NUMPY_ERRORS, as_type  # noqa: F401 - used by numpy/
from ember.typing.signature import Signature
from ember.typing.templates import registry

# ---------------------------------------------------------------------------- dtypes

_SCALAR_CLASSES = {
    np.bool_: types.boolean, np.int8: types.int8, np.int16: types.int16, np.int32: types.int32,
    np.int64: types.int64, np.uint8: types.uint8, np.uint16: types.uint16,
    np.uint32: types.uint32, np.uint64: types.uint64, np.float32: types.float32,
    np.float64: types.float64, np.complex64: types.complex64, np.complex128: types.complex128,
}  # fmt: skip
_BUILTIN_DTYPES = {float: types.float64, int: types.int64, bool: types.boolean,
                   complex: types.complex128}  # fmt: skip

SUPPORTED_KINDS = (
    "booleans, integers, floats, complex numbers, records and strings ('U', 'S') of the "
    "machine's byte order"
)


def scalar_class_type(value: Any) -> types.Type | None:
    """The ember type a NumPy scalar class (np.float32) or builtin class (float) stands for."""
    try:
        return _SCALAR_CLASSES.get(value) or _BUILTIN_DTYPES.get(value)
    except TypeError:
        return None


def numpy_dtype(dtype: types.Type) -> np.dtype:
    """The NumPy dtype of an ember scalar type."""
    if isinstance(dtype, types.Record):
        return dtype.dtype
    if isinstance(dtype, (types.UnicodeCharSeq, types.CharSeq)):
        return np.dtype(f"{dtype.numpy_kind}{dtype.count}")
    if dtype is types.pyobject:  # np.dtype(object) passed in as a value (types.DType)
        return np.dtype(object)
    return np.dtype("bool" if isinstance(dtype, types.Boolean) else dtype.name)


class UnsupportedDtypeError(NumbaValueError, NumbaNotImplementedError, ValueError):
    """A NumPy dtype ember cannot compile for (objects, strings, datetimes, float16...); a
    ValueError too, as `typeof` raises for values it cannot type, and the
    NumbaNotImplementedError Numba's `from_dtype` raises for them."""


def from_numpy_dtype(dtype: np.dtype) -> types.Type:
    """The ember scalar type of a NumPy dtype (a sub-array dtype, `('f8', (4,))`: a
    NestedArray); UnsupportedDtypeError for the unsupported ones."""
    from ember.dispatcher.typeof import dtype_to_type, subarray_type

    if dtype.subdtype is not None:
        found = subarray_type(dtype)
        if found is None:
            raise UnsupportedDtypeError(
                f"unsupported NumPy dtype {dtype} (sub-array): its elements must be numbers, "
                "booleans, strings or records"
            )
        return found
    found = dtype_to_type(dtype)
    if found is None:
        if dtype.fields is not None:
            raise UnsupportedDtypeError(
                f"unsupported NumPy dtype {dtype} (records): ember's record fields are "
                "numbers, booleans, strings, nested records and sub-arrays of those"
            )
        if dtype.kind in "mM" and np.datetime_data(dtype)[1] != 1:  # datetime64[10Y]
            unit = np.datetime_data(dtype)[0]
            raise UnsupportedDtypeError(
                f"Unsupported array dtype: {dtype} (a multiple of a unit): ember (as Numba) "
                f"compiles for one unit ([{unit}], [ns]...); convert it first, e.g. "
                f"`values.astype('{dtype.str[1:2]}8[{unit}]')`, or pass its integer view, "
                "e.g. `values.view(np.int64)`"
            )
        if not dtype.isnative:  # Numba's words first: programs match them
            what = _describe_dtype(dtype) if dtype.kind in "OUSMmV" else "numbers"
            hint = _conversion_hint(dtype) if dtype.kind in "US" else _NATIVE_ORDER_HINT
            raise UnsupportedDtypeError(
                f"Unsupported array dtype: {dtype} ({what}): of the other byte order; ember (as "
                f"Numba) compiles for the machine's byte order only{hint}"
            )
        raise UnsupportedDtypeError(
            f"unsupported NumPy dtype {dtype} ({_describe_dtype(dtype)}): ember arrays hold "
            f"{SUPPORTED_KINDS}{_conversion_hint(dtype)}"
        )
    return found


_NATIVE_ORDER_HINT = "; convert it first, e.g. `values.astype(values.dtype.newbyteorder('='))`"


def _conversion_hint(dtype: np.dtype) -> str:
    """What the caller can do instead, for dtypes with an obvious numeric counterpart."""
    if dtype.kind == "f":
        return "; convert it first, e.g. `values.astype(np.float32)`"
    if dtype.kind in "mM":
        return "; pass its integer view instead, e.g. `values.view(np.int64)`"
    if dtype.kind in "US" and dtype.itemsize:
        return f"; convert it first, e.g. `values.astype('{dtype.kind}{_characters(dtype)}')`"
    return ""


def _characters(dtype: np.dtype) -> int:
    return dtype.itemsize // 4 if dtype.kind == "U" else dtype.itemsize


def _describe_dtype(dtype: np.dtype) -> str:
    return {
        "O": "Python objects",
        "U": "strings",
        "S": "bytes",
        "M": "datetimes",
        "m": "timedeltas",
        "V": "records",
    }.get(dtype.kind, "not a plain number" if dtype.kind != "f" else "a float width ember lacks")


OBJECT_ARRAYS_REFUSED = (
    "dtype=object: arrays of Python objects cannot be created or used in compiled code; "
    "use a numeric dtype, or build the object array outside the jitted function"
)


def parse_dtype(
    typ: types.Type, default: types.Type | None = types.float64, function: str = ""
) -> types.Type:
    """The scalar type a `dtype=` argument stands for (np.float32, float, 'f8', a.dtype...);
    `function`: the np.<function> taking it, named when a string dtype is not a constant."""
    typ_value = typ
    if isinstance(typ_value, types.NoneType):
        if default is None:
            raise TypingError("a dtype is required here")
        return default
    if isinstance(typ_value, types.DType):
        if typ_value.dtype is types.pyobject:
            raise TypingError(OBJECT_ARRAYS_REFUSED)
        return typ_value.dtype
    if isinstance(typ_value, types.TypeRef) and isinstance(
        typ_value.instance_type, (types.Number, types.Boolean, types.Record)
    ):
        return typ_value.instance_type  # Numba's type objects: np.zeros(3, dtype=float64)
    if isinstance(typ_value, types.Function):
        found = scalar_class_type(typ_value.typing_key)
        if found is not None:
            return found
    if isinstance(typ_value, types.StringLiteral):
        try:
            dtype = np.dtype(typ_value.literal_value)
        except TypeError:
            raise TypingError(
                f"Invalid NumPy dtype specified: {typ_value.literal_value!r}"
            ) from None
        return from_numpy_dtype(dtype)
    if isinstance(typ_value, types.UnicodeType) and function:
        raise TypingError(f"If np.{function} dtype is a string it must be a string constant.")
    if isinstance(typ_value, types.UnicodeType):
        raise TypingError(
            "a dtype given as a string must be a string constant (a literal such as 'f8' "
            "written in the call), not a string variable"
        )
    if isinstance(typ_value, (types.Number, types.Boolean)) and not isinstance(
        typ_value, types.Literal
    ):
        return typ_value  # a NumPy scalar stands for its dtype: dtype=np.complex64(1)
    raise TypingError(f"cannot use a value of type {typ} as a dtype")


def constant_bool(value: Any, what: str) -> bool:
    """The value of a flag that selects the result's type (retstep=, sparse=): a constant
    True/False, or the omitted default (which an overload receives as Python's bool)."""
    if isinstance(value, types.BooleanLiteral):
        return value.literal_value
    if isinstance(value, bool):
        return value
    raise TypingError(f"{what} must be the constant True or False")


def refuse_complex_to_real(what: str, source: types.Type, target: types.Type) -> None:
    """NumPy drops the imaginary part (with a ComplexWarning); compiled code asks for it."""
    if isinstance(source, types.Complex) and isinstance(target, (types.Float, types.Integer)):
        raise TypingError(
            f"{what}: converting {source} to {target} would drop the imaginary part: convert "
            "the .real (or .imag) part instead"
        )


def is_array(typ: types.Type) -> bool:
    return isinstance(typ, types.Array)


def is_number(typ: types.Type) -> bool:
    return isinstance(types.unliteral(typ), types.Number)


def is_real_number(typ: types.Type) -> bool:
    """An integer, float or bool (NumPy's real scalars), literal or not."""
    return isinstance(types.unliteral(typ), (types.Integer, types.Float, types.Boolean))


def is_integer(typ: types.Type) -> bool:
    return isinstance(types.unliteral(typ), types.Integer)


def is_none(typ: types.Type) -> bool:
    return isinstance(typ, types.NoneType)


# NumPy's floating-point behaviour (no Python exceptions for division by zero or domain errors)
# ---------------------------------------------------------------------------- typers


def make_pysig(params: str) -> inspect.Signature:
    """An inspect.Signature from a parameter list written as Python: 'a, axis=None'."""
    namespace: dict = {}
    exec(f"def f({params}): pass", {}, namespace)  # noqa: S102 - a literal parameter list
    return inspect.signature(namespace["f"])


def fold(pysig: inspect.Signature, args: tuple, kws: dict) -> tuple | None:
    """Argument types in parameter order, defaults typed from their values; None when the call
    does not bind."""
    from ember.typing.context import TypingContext

    try:
        bound = pysig.bind(*args, **kws)
    except TypeError:
        return None
    folded = []
    for name, param in pysig.parameters.items():
        if name in bound.arguments:
            folded.append(bound.arguments[name])
        else:
            folded.append(TypingContext().resolve_value_type(param.default))
    return tuple(folded)


def np_typer(key: Any, params: str) -> Callable:
    """Decorator: `typer(*folded_types) -> return type | Signature | None` for calls of `key`
    with the Python parameters `params` (keywords and defaults folded by name)."""
    pysig = make_pysig(params)

    def decorate(typer: Callable) -> Callable:
        @registry.typer(key)
        def _typer(args, kws):
            folded = fold(pysig, tuple(args), kws)
            if folded is None:
                return None
            result = typer(*folded)
            if result is None:
                return None
            if isinstance(result, Signature):
                return Signature(result.return_type, result.args, pysig=pysig)
            return Signature(result, folded, pysig=pysig)

        return typer

    return decorate
