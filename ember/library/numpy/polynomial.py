"""np.polynomial.polynomial (polyadd, polysub, polymul, polydiv, polyval, polyint) and
np.polynomial.polyutils (as_series, trimseq) in compiled code, with NumPy's coefficient rules.

Coefficients (arrays, numbers, lists or tuples) become 1-d arrays of their common type, as
np.common_type gives it (integers count as float64), low degree first.
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.polynomial.polynomial as poly
import numpy.polynomial.polyutils as polyutils
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.dispatcher.typeof import typeof
from ember.errors import TypingError
from ember.extending import (
    AttributeTemplate,
    box,
    infer_getattr,
    intrinsic,
    lower_getattr,
    overload,
    register_model,
    unbox,
)
from ember.library.interop.boxing import box_by_calling
from ember.library.numpy.creation import nested_items
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    from_numpy_dtype,
    is_array,
    is_integer,
    is_number,
    numpy_dtype,
)
from ember.lowering import arrays as arr
from ember.lowering.boxing import NativeValue
from ember.lowering.models import StructModel
from ember.typing.signature import Signature


def _leaf_dtype(typ: types.Type) -> types.Type | None:
    """The dtype np.array gives one coefficient argument, None when it is no array-like."""
    typ = types.unliteral(typ)
    if is_array(typ):
        if typ.ndim > 1:
            raise TypingError("Coefficient array is not 1-d")
        return typ.dtype
    if isinstance(typ, types.List):
        return typ.dtype if is_number(typ.dtype) else None
    found = nested_items(typ)
    if found is None or len(found[0]) > 1:
        return None
    leaves = found[1]
    if not leaves:
        return types.float64
    return from_numpy_dtype(np.result_type(*[numpy_dtype(t) for t in leaves]))


def _require_array_like(typ: types.Type, name: str) -> None:
    """A TypingError naming the argument when `typ` is no array-like of numbers (NumPy raises
    at run time; the result type could not be found)."""
    typ = types.unliteral(typ)
    if is_array(typ) or is_number(typ):
        return
    if isinstance(typ, (types.List, types.BaseTuple)):
        elements = [typ.dtype] if isinstance(typ, types.List) else list(typ.types)
        if all(is_number(t) or isinstance(t, (types.List, types.BaseTuple)) or is_array(t)
               for t in elements):  # fmt: skip
            return
        raise TypingError(f'Input dtype must be scalar. The argument "{name}" is {typ}')
    raise TypingError(f'The argument "{name}" must be array-like, not {typ}')


def common_coefficient_type(*dtypes: types.Type) -> types.Type:
    """np.common_type of arrays of these dtypes: at least float64 unless all are narrower
    floats; complex when any is complex."""
    if any(isinstance(t, types.Boolean) or not is_number(t) for t in dtypes):
        raise TypingError("Coefficient arrays have no common type")
    common = np.common_type(*[np.empty(0, numpy_dtype(t)) for t in dtypes])
    return from_numpy_dtype(np.dtype(common))


@njit(**NUMPY_ERRORS)
def _trimseq(seq):
    """NumPy's trimseq: drop trailing zeros, keeping at least the first coefficient."""
    last = len(seq) - 1
    if last < 0 or seq[last] != 0:
        return seq
    while last > 0 and seq[last] == 0:
        last -= 1
    return seq[: last + 1]


@functools.cache
def _series_impl(dtype: types.Type, trim: bool):
    """One coefficient argument as a fresh 1-d array of `dtype` (trimmed with `trim`)."""
    target = numpy_dtype(dtype).type

    def series(values):
        out = np.atleast_1d(np.asarray(values)).astype(target)
        if out.size == 0:
            raise ValueError("Coefficient array is empty")
        return _trimseq(out) if trim else out

    return njit(**NUMPY_ERRORS)(series)


def _pair_series(c1, c2):
    """The two coefficient arrays of a binary operation, trimmed, of their common type."""
    _require_array_like(c1, "c1")
    _require_array_like(c2, "c2")
    leaves = (_leaf_dtype(c1), _leaf_dtype(c2))
    if None in leaves:
        return None
    return _series_impl(common_coefficient_type(*leaves), True)


def _constant_bool(value, what: str) -> bool:
    """A flag argument: its Python default when omitted, else a literal True/False."""
    found = value if isinstance(value, bool) else getattr(value, "literal_value", None)
    if not isinstance(found, bool):
        raise TypingError(f'The argument "{what}" must be boolean (a constant True or False)')
    return found


@overload(polyutils.trimseq, jit_options=NUMPY_ERRORS)
def _select_trimseq(seq):
    _require_array_like(seq, "seq")
    if is_array(seq) and seq.ndim != 1:
        raise TypingError("Coefficient array is not 1-d")
    if (is_array(seq) and seq.ndim == 1) or isinstance(seq, types.List):
        return lambda seq: _trimseq(seq)
    raise TypingError(f'Unsupported type {seq} for argument "seq": pass an array or a list')


@functools.cache
def _as_series_of_tuple_impl(count: int, trimmed, untrimmed):
    items = "".join(f"s(alist[{k}]), " for k in range(count))
    lines = [
        "def as_series(alist, trim=True):",
        f"    if trim:\n        s = trimmed\n        return [{items}]",
        f"    s = untrimmed\n    return [{items}]",
    ]
    namespace = {"trimmed": trimmed, "untrimmed": untrimmed}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - from integers and fixed text
    return namespace["as_series"]


def _as_series_of_rows(trimmed, untrimmed):
    """Each row (of a 1-d array: each number) as one series."""

    def as_series(alist, trim=True):
        if trim:
            return [trimmed(alist[k]) for k in range(alist.shape[0])]
        return [untrimmed(alist[k]) for k in range(alist.shape[0])]

    return as_series


def _as_series_of_list(trimmed, untrimmed):
    def as_series(alist, trim=True):
        if trim:
            return [trimmed(row) for row in alist]
        return [untrimmed(row) for row in alist]

    return as_series


@overload(polyutils.as_series, jit_options=NUMPY_ERRORS)
def _select_as_series(alist, trim=True):
    _require_array_like(alist, "alist")
    if not isinstance(as_type(trim), (bool, types.Boolean)):
        raise TypingError(f'The argument "trim" must be boolean, not {trim}')
    if is_array(alist):
        if alist.ndim > 2:
            raise TypingError("Coefficient array is not 1-d")
        dtype = common_coefficient_type(alist.dtype)
        return _as_series_of_rows(_series_impl(dtype, True), _series_impl(dtype, False))
    if isinstance(alist, types.List):
        dtype = common_coefficient_type(_leaf_dtype(alist.dtype))
        return _as_series_of_list(_series_impl(dtype, True), _series_impl(dtype, False))
    if isinstance(alist, types.BaseTuple) and len(alist) > 0:
        leaves = [_leaf_dtype(t) for t in alist.types]
        if None in leaves:
            return None
        dtype = common_coefficient_type(*leaves)
        trimmed, untrimmed = _series_impl(dtype, True), _series_impl(dtype, False)
        return _as_series_of_tuple_impl(len(alist), trimmed, untrimmed)
    return None


# ---------------------------------------------------------------------------- arithmetic


@overload(poly.polyadd, jit_options=NUMPY_ERRORS)
def _select_polyadd(c1, c2):
    series = _pair_series(c1, c2)
    if series is None:
        return None

    def polyadd(c1, c2):
        a, b = series(c1), series(c2)
        if a.shape[0] > b.shape[0]:
            a[: b.shape[0]] += b
            return _trimseq(a)
        b[: a.shape[0]] += a
        return _trimseq(b)

    return polyadd


@overload(poly.polysub, jit_options=NUMPY_ERRORS)
def _select_polysub(c1, c2):
    series = _pair_series(c1, c2)
    if series is None:
        return None

    def polysub(c1, c2):
        a, b = series(c1), series(c2)
        if a.shape[0] > b.shape[0]:
            a[: b.shape[0]] -= b
            return _trimseq(a)
        b = -b
        b[: a.shape[0]] += a
        return _trimseq(b)

    return polysub


@overload(poly.polymul, jit_options=NUMPY_ERRORS)
def _select_polymul(c1, c2):
    series = _pair_series(c1, c2)
    if series is None:
        return None

    def polymul(c1, c2):
        return _trimseq(np.convolve(series(c1), series(c2)))

    return polymul


@overload(poly.polydiv, jit_options=NUMPY_ERRORS)
def _select_polydiv(c1, c2):
    series = _pair_series(c1, c2)
    if series is None:
        return None

    def polydiv(c1, c2):
        a, b = series(c1), series(c2)
        n1, n2 = a.shape[0], b.shape[0]
        if b[n2 - 1] == 0:
            raise ZeroDivisionError("polydiv: the divisor's leading coefficient is zero")
        if n1 < n2:
            return a[:1] * 0, a
        if n2 == 1:
            return a / b[0], a[:1] * 0
        scale = b[n2 - 1]
        lower = b[: n2 - 1] / scale
        i, j = n1 - n2, n1 - 1
        while i >= 0:
            a[i:j] -= lower * a[j]
            i -= 1
            j -= 1
        return a[j + 1 :] / scale, _trimseq(a[: j + 1])

    return polydiv


# ---------------------------------------------------------------------------- polyval


@functools.cache
def _polyval_impl(
    coefficient_ndim: int, x_ndim: int, x_convert: bool, zero_d_array: bool, tensor: bool
):
    """Horner's rule over the first axis of the coefficients; with `tensor`, the coefficients
    get x's dimensions appended so every x meets every column."""
    lines = ["def polyval(x, c, tensor=True):"]
    if x_convert:
        lines.append("    x = np.asarray(x)")
    elif zero_d_array:  # NumPy's arithmetic on a 0-d array gives a scalar
        lines.append("    x = x[()]")
    lines.append("    c = _float_coefficients(c)")
    if tensor and x_ndim > 0 and coefficient_ndim > 1:
        lines.append("    c = c.reshape(c.shape + (" + "1, " * x_ndim + "))")
    lines += [
        "    n = c.shape[0]",
        "    if n == 0:",
        "        raise IndexError('index -1 is out of bounds for axis 0 with size 0')",
        "    value = c[n - 1] + x * 0",
        "    for i in range(2, n + 1):",
        "        value = c[n - i] + value * x",
        "    return value",
    ]
    namespace = {"np": np, "_float_coefficients": _float_coefficients}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - from integers and fixed text
    return namespace["polyval"]


@njit(**NUMPY_ERRORS)
def _float_coefficients(c):
    return np.atleast_1d(np.asarray(c)) + 0.0


def _float_coefficients_ndim(c: types.Type) -> int | None:
    c = types.unliteral(c)
    if is_array(c):
        return max(c.ndim, 1)
    if isinstance(c, types.List) and is_number(c.dtype):
        return 1
    found = nested_items(c)
    return None if found is None else max(len(found[0]), 1)


@overload(poly.polyval, jit_options=NUMPY_ERRORS, prefer_literal=True)
def _select_polyval(x, c, tensor=True):
    _require_array_like(x, "x")
    _require_array_like(c, "c")
    tensor_value = _constant_bool(tensor, "tensor")
    coefficient_ndim = _float_coefficients_ndim(c)
    if coefficient_ndim is None:
        return None
    x = types.unliteral(x)
    if is_array(x) or is_number(x):
        x_ndim = x.ndim if is_array(x) else 0
        return _polyval_impl(
            coefficient_ndim, x_ndim, False, is_array(x) and x_ndim == 0, tensor_value
        )
    found = nested_items(x) if not isinstance(x, types.List) else ((0,), [x.dtype])
    if found is None:
        return None
    return _polyval_impl(coefficient_ndim, len(found[0]), True, False, tensor_value)


# ---------------------------------------------------------------------------- polyint


@njit(**NUMPY_ERRORS)
def _horner_rows(rows, x):
    """The polynomial with coefficient rows `rows` (one column per polynomial) at x."""
    n = rows.shape[0]
    value = rows[n - 1] + x * 0
    for i in range(2, n + 1):
        value = rows[n - i] + value * x
    return value


def _polyint(c, m=1, k=0, lbnd=0, scl=1, axis=0):
    if m < 0:
        raise ValueError("The order of integration must be non-negative")
    coefficients = _float_coefficients(c)
    if m == 0:
        return coefficients
    count = coefficients.shape[0]
    columns = coefficients.size // count if count else 0
    rows = coefficients.reshape((count, columns)).copy()
    for step in range(m):
        constant = k if step == 0 else 0
        n = rows.shape[0]
        rows *= scl
        if n == 1 and np.all(rows[0] == 0):
            rows[0] += constant
        else:
            integrated = np.empty((n + 1, columns), rows.dtype)
            integrated[0] = rows[0] * 0
            integrated[1] = rows[0]
            for j in range(1, n):
                integrated[j + 1] = rows[j] / (j + 1)
            integrated[0] += constant - _horner_rows(integrated, lbnd)
            rows = integrated
    return rows.reshape((rows.shape[0],) + coefficients.shape[1:])


@overload(poly.polyint, jit_options=NUMPY_ERRORS)
def _select_polyint(c, m=1, k=0, lbnd=0, scl=1, axis=0):
    m, k, lbnd, scl, axis = (as_type(t) for t in (m, k, lbnd, scl, axis))
    _require_array_like(c, "c")
    if _float_coefficients_ndim(c) is None:
        return None
    if not is_integer(m):
        raise TypingError(f'The argument "m" must be an integer (the order of integration), '
                          f"not {m}")  # fmt: skip
    if not (is_number(k) and is_number(lbnd) and is_number(scl)):
        raise TypingError("polyint: k, lbnd and scl must be numbers (one integration constant)")
    if not (is_integer(axis) and getattr(axis, "literal_value", 0) == 0):
        raise TypingError("polyint: only axis=0 is supported")
    return _polyint


# ---------------------------------------------------------------------------- Polynomial


class PolynomialType(types.Type):
    """A np.polynomial.Polynomial: its coef, domain and window arrays (1-d each)."""

    def __init__(self, coef: types.Array, domain: types.Array, window: types.Array) -> None:
        self.coef, self.domain, self.window = coef, domain, window
        super().__init__(f"Polynomial({coef}, {domain}, {window})")

    @property
    def key(self):
        return (self.coef, self.domain, self.window)

    def _rebuild_args(self) -> tuple:
        return (self.coef, self.domain, self.window)


_POLYNOMIAL_PARTS = ("coef", "domain", "window")


@register_model(PolynomialType)
class PolynomialModel(StructModel):
    def __init__(self, fe_type: PolynomialType) -> None:
        super().__init__(fe_type, [(name, getattr(fe_type, name)) for name in _POLYNOMIAL_PARTS])


def _polynomial_part_getter(name: str):
    def get_part(context, builder, typ, value):
        part = builder.extract_value(value, _POLYNOMIAL_PARTS.index(name))
        arr.incref(builder, getattr(typ, name), part)  # a new reference, as every read gives
        return part

    return get_part


for _name in _POLYNOMIAL_PARTS:
    lower_getattr(PolynomialType, _name)(_polynomial_part_getter(_name))


@infer_getattr
class _PolynomialAttributes(AttributeTemplate):
    key = PolynomialType

    def generic_resolve(self, typ: PolynomialType, attr: str):
        return getattr(typ, attr) if attr in _POLYNOMIAL_PARTS else None


@intrinsic
def _make_polynomial(typingctx, coef, domain, window):
    if not all(is_array(t) and t.ndim == 1 for t in (coef, domain, window)):
        return None
    result = PolynomialType(coef, domain, window)

    def codegen(context, builder, sig, args):
        value = llvm.Constant(context.value_type(result), llvm.Undefined)
        for index, (typ, part) in enumerate(zip(sig.args, args)):
            arr.incref(builder, typ, part)  # the arguments stay the caller's references
            value = builder.insert_value(value, part, index)
        return value

    return Signature(result, (coef, domain, window)), codegen


@functools.cache
def _interval_impl(given: bool, what: str):
    """A domain or window as NumPy keeps it: two float64 numbers, [-1, 1] when not given."""

    def interval(values):
        if not given:
            return np.array([-1.0, 1.0])
        out = np.atleast_1d(np.asarray(values)).astype(np.float64)
        if out.ndim != 1 or out.shape[0] != 2:
            raise ValueError(what + " has wrong number of elements.")
        return out

    return njit(**NUMPY_ERRORS)(interval)


def _given(value) -> bool:
    return not isinstance(as_type(value), (types.NoneType, type(None)))


@overload(poly.Polynomial, jit_options=NUMPY_ERRORS)
def _select_polynomial(coef, domain=None, window=None, symbol="x"):
    _require_array_like(coef, "coef")
    dtype = _leaf_dtype(coef)
    if dtype is None:
        return None
    series = _series_impl(common_coefficient_type(dtype), False)
    domain_of = _interval_impl(_given(domain), "Domain")
    window_of = _interval_impl(_given(window), "Window")

    def polynomial(coef, domain=None, window=None, symbol="x"):
        return _make_polynomial(series(coef), domain_of(domain), window_of(window))

    return polynomial


@box(PolynomialType)
def _box_polynomial(typ, val, c):
    """`Polynomial(coef, domain, window)`: the parts boxed as a tuple (the same layout), then
    the class called with it."""
    parts_type = types.Tuple([typ.coef, typ.domain, typ.window])
    return box_by_calling(poly.Polynomial, parts_type, val, c)


def polynomial_type_of(value: poly.Polynomial) -> PolynomialType | None:
    """The type of a Polynomial argument (ember/dispatcher/typeof.py): of its three arrays."""
    parts = [typeof(getattr(value, name)) for name in _POLYNOMIAL_PARTS]
    if not all(isinstance(t, types.Array) and t.ndim == 1 for t in parts):
        return None
    return PolynomialType(*parts)


@unbox(PolynomialType)
def _unbox_polynomial(typ, obj, c):
    """A Polynomial argument: its coef, domain and window arrays, borrowed (the object keeps
    them alive for the call)."""
    builder, pyapi = c.builder, c.pyapi
    value = llvm.Constant(c.context.value_type(typ), llvm.Undefined)
    is_error = llvm.Constant(llvm.IntType(1), 0)
    for index, name in enumerate(_POLYNOMIAL_PARTS):
        part = pyapi.object_getattr_string(obj, name)
        native = c.unbox(getattr(typ, name), part)
        pyapi.decref(part)
        value = builder.insert_value(value, native.value, index)
        if native.is_error is not None:
            is_error = builder.or_(is_error, native.is_error)
    return NativeValue(value, is_error=is_error)
