"""Element-by-element NumPy functions that are not ufuncs in ember, written in Python and compiled
by ember: sinc, heaviside, isin, array_equal, logspace, nan_to_num, isposinf, isneginf, angle,
real, imag, select and copyto."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_none,
    is_number,
    numpy_dtype,
)
from ember.typing.templates import registry


@registry.typer(np.ndarray)
def _type_ndarray_class(args, kws):
    return None  # np.ndarray is typed as a class (for isinstance); constructing one is not built


def _real(typ) -> bool:
    typ = typ.dtype if is_array(typ) else types.unliteral(typ)
    return isinstance(typ, (types.Integer, types.Float, types.Boolean))


def _sinc(x):
    y = np.pi * np.where(x == 0, 1.0e-20, x)  # NumPy's own guard against 0/0
    return np.sin(y) / y


def _sinc_scalar(x):
    y = np.pi * (1.0e-20 if x == 0 else x)
    return np.sin(y) / y


@overload(np.sinc, jit_options=NUMPY_ERRORS)
def _select_sinc(x):
    if not _real(x):
        return None
    return _sinc if is_array(x) else _sinc_scalar


def _heaviside(x1, x2):
    return np.where(np.isnan(x1), np.nan, np.where(x1 < 0, 0.0, np.where(x1 > 0, 1.0, x2)))


def _heaviside_scalar(x1, x2):
    if np.isnan(x1):
        return np.nan
    if x1 < 0:
        return 0.0
    return 1.0 if x1 > 0 else float(x2)


@overload(np.heaviside, jit_options=NUMPY_ERRORS)
def _select_heaviside(x1, x2):
    if not (_real(x1) and _real(x2)):
        return None
    return _heaviside if is_array(x1) or is_array(x2) else _heaviside_scalar


def _isin(element, test_elements, assume_unique, invert):
    ordered = np.sort(test_elements.ravel())
    flat = element.ravel()
    out = np.empty(flat.shape[0], np.bool_)
    n = ordered.shape[0]
    for i in range(flat.shape[0]):
        value = flat[i]
        low, high = 0, n
        while low < high:
            middle = (low + high) // 2
            if ordered[middle] < value:
                low = middle + 1
            else:
                high = middle
        out[i] = (low < n and ordered[low] == value) != invert
    return out.reshape(element.shape)


@overload(np.isin, jit_options=NUMPY_ERRORS)
def _select_isin(element, test_elements, assume_unique=False, invert=False):
    for name, flag in (("assume_unique", assume_unique), ("invert", invert)):
        if not isinstance(types.unliteral(as_type(flag)), types.Boolean):
            raise TypingError(f"np.isin: {name} must be a bool, not {flag}")
    if is_array(element) and is_array(test_elements) and _real(element) and _real(test_elements):
        return _isin
    operands = (element, test_elements)
    if not all(is_array(t) or _array_like(t) for t in operands) or all(map(is_array, operands)):
        return None
    return _isin_of_array_likes  # NumPy makes arrays of numbers (0-d), lists and tuples


def _array_like(typ) -> bool:
    typ = types.unliteral(typ)
    if isinstance(typ, (types.Integer, types.Float, types.Boolean)):
        return True
    if isinstance(typ, (types.List, types.ListType)):
        return isinstance(typ.dtype, (types.Integer, types.Float, types.Boolean))
    return isinstance(typ, types.BaseTuple) and all(map(_array_like, typ.types))


def _isin_of_array_likes(element, test_elements, assume_unique=False, invert=False):
    return np.isin(np.asarray(element), np.asarray(test_elements), assume_unique, invert)


def _shapes_equal(a1, a2):
    if a1.ndim != a2.ndim:
        return False
    for k in range(a1.ndim):
        if a1.shape[k] != a2.shape[k]:
            return False
    return True


_shapes_equal_jit = njit(**NUMPY_ERRORS)(_shapes_equal)


def _array_equal(a1, a2):
    if not _shapes_equal_jit(a1, a2):
        return False
    return bool(np.all(a1 == a2))  # a scalar when both are 0-d


def _array_equal_of_values(a1, a2):
    return _array_equal_jit(np.asarray(a1), np.asarray(a2))


_array_equal_jit = njit(**NUMPY_ERRORS)(_array_equal)


def _array_like(typ) -> bool:
    """Numbers, arrays and (nested) tuples or lists of numbers: what np.asarray takes."""
    typ = types.unliteral(typ)
    if isinstance(typ, (types.Number, types.Boolean, types.Array)):
        return True
    if isinstance(typ, types.BaseTuple):
        return all(_array_like(t) for t in typ.types)
    return isinstance(typ, types.List) and _array_like(typ.dtype)


@overload(np.array_equal, jit_options=NUMPY_ERRORS)
def _select_array_equal(a1, a2):
    if is_array(a1) and is_array(a2):
        return _array_equal if a1.ndim == a2.ndim else lambda a1, a2: False
    if _array_like(a1) and _array_like(a2):
        return _array_equal_of_values
    raise TypingError('Both arguments to "array_equals" must be array-like')


def _logspace(start, stop, num, endpoint, base):
    if endpoint:
        return np.power(base, np.linspace(start, stop, num))
    return np.power(base, np.linspace(start, stop, num + 1)[:-1])


@overload(np.logspace, jit_options=NUMPY_ERRORS)
def _select_logspace(start, stop, num=50, endpoint=True, base=10.0):
    num = as_type(num)
    endpoint = as_type(endpoint)
    base = as_type(base)
    if all(is_number(t) and _real(t) for t in (start, stop, num, endpoint, base)):
        return _logspace
    return None


# ---------------------------------------------------------------------------- infinities, parts


@njit(**NUMPY_ERRORS)
def _finite_value(value, nan, big, small):
    if value != value:
        return nan
    if value == np.inf:
        return big
    if value == -np.inf:
        return small
    return value


@njit(**NUMPY_ERRORS)
def _finite_complex(value, nan, big, small):
    real = _finite_value(value.real, nan, big, small)
    return complex(real, _finite_value(value.imag, nan, big, small))


def _nan_to_num_int_scalar(x, copy=True, nan=0.0, posinf=None, neginf=None):
    return x


def _nan_to_num_int_array(x, copy=True, nan=0.0, posinf=None, neginf=None):
    return x.copy() if copy else x


@functools.cache
def _nan_to_num_impl(kind: str, real_name: str, scalar: bool, posinf_given: bool,
                     neginf_given: bool, readonly: bool):  # fmt: skip
    """NumPy's nan_to_num: NaN, +inf and -inf replaced (in the real and imaginary parts of
    complex values apart); integers pass through. `copy=False` writes into x."""
    if kind == "int":
        return _nan_to_num_int_scalar if scalar else _nan_to_num_int_array
    big = "real_type(posinf)" if posinf_given else "real_type(largest)"
    small = "real_type(neginf)" if neginf_given else "real_type(-largest)"
    lines = [
        "def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):",
        f"    big, small, filler = {big}, {small}, real_type(nan)",
    ]
    if scalar:
        lines.append("    return fix(x, filler, big, small)")
    else:
        lines += [
            # a read-only array (a global constant) is always copied
            "    out = np.copy(x)" if readonly else "    out = np.copy(x) if copy else x",
            "    for index in np.ndindex(out.shape):",
            "        out[index] = fix(out[index], filler, big, small)",
            "    return out",
        ]
    namespace = {
        "np": np,
        "fix": _finite_complex if kind == "complex" else _finite_value,
        "real_type": np.dtype(real_name).type,
        "largest": float(np.finfo(np.dtype(real_name)).max),
    }
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - fixed text, chosen above
    return namespace["nan_to_num"]


@overload(np.nan_to_num, jit_options=NUMPY_ERRORS)
def _select_nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    posinf, neginf = as_type(posinf), as_type(neginf)
    dtype = x.dtype if is_array(x) else types.unliteral(x)
    if isinstance(dtype, types.Complex):
        kind, real = "complex", str(numpy_dtype(dtype.underlying_float))
    elif isinstance(dtype, types.Float):
        kind, real = "float", str(numpy_dtype(dtype))
    elif isinstance(dtype, (types.Integer, types.Boolean)):
        kind, real = "int", "float64"
    else:
        return None
    given = (not isinstance(posinf, types.NoneType), not isinstance(neginf, types.NoneType))
    readonly = is_array(x) and x.readonly
    return _nan_to_num_impl(kind, real, not is_array(x), *given, readonly)


def _isposinf(x):
    return x == np.inf


def _isneginf(x):
    return x == -np.inf


@functools.cache
def _infinity_test_impl(impl, with_out: bool):
    """The test alone, or written into `out` (broadcast, as NumPy's out=) and `out` returned."""
    test = njit(**NUMPY_ERRORS)(impl)
    if not with_out:
        return lambda x, out=None: test(x)

    def into_out(x, out=None):
        out[...] = test(x)
        return out

    return into_out


def _select_infinity_test(impl, x, out):
    out = as_type(out)
    if not _real(x):
        return None
    if is_none(out):
        return _infinity_test_impl(impl, False)
    return _infinity_test_impl(impl, True) if is_array(out) else None


@overload(np.isposinf, jit_options=NUMPY_ERRORS)
def _np_isposinf(x, out=None):
    return _select_infinity_test(_isposinf, x, out)


@overload(np.isneginf, jit_options=NUMPY_ERRORS)
def _np_isneginf(x, out=None):
    return _select_infinity_test(_isneginf, x, out)


def _angle(z, deg):
    result = np.arctan2(np.imag(z), np.real(z))
    return result * (180.0 / np.pi) if deg else result


@overload(np.angle, jit_options=NUMPY_ERRORS)
def _select_angle(z, deg=False):
    deg = as_type(deg)
    typ = z.dtype if is_array(z) else types.unliteral(z)
    if not isinstance(typ, types.Number):
        raise TypingError('Argument "z" must be a complex or Array[complex]')
    return _angle


def _real_part(val):
    return val.real


def _imag_part(val):
    return val.imag


def _select_part(impl):
    def select(val):
        typ = val.dtype if is_array(val) else types.unliteral(val)
        return impl if isinstance(typ, types.Number) else None

    return select


@overload(np.real, jit_options=NUMPY_ERRORS)
def _np_real(val):
    return _select_part(_real_part)(val)


@overload(np.imag, jit_options=NUMPY_ERRORS)
def _np_imag(val):
    return _select_part(_imag_part)(val)


# ---------------------------------------------------------------------------- select, copyto


_SELECT_SOURCE = """
def select_values(condlist, choicelist, default):
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    out = np.full(choicelist[0].shape, default, OUT)
    for k in range(len(condlist) - 1, -1, -1):  # the first true condition wins
        out = np.where(condlist[k], choicelist[k], out)
    return out
"""


@functools.cache
def _select_values(out: str):
    """np.select whose result has the dtype `out`: the choices' and the default's (a Python
    number: it adapts to the choices, as NumPy 2's promotion)."""
    namespace = {"np": np, "OUT": np.dtype(out).type}
    exec(_SELECT_SOURCE, namespace)  # noqa: S102 - fixed text
    return namespace["select_values"]


def _weak_number(typ) -> object:
    """A Python number of the kind of `typ`, for NumPy's promotion of a scalar operand."""
    typ = types.unliteral(typ)
    if isinstance(typ, types.Boolean):
        return False
    if isinstance(typ, types.Complex):
        return 0j
    return 0.0 if isinstance(typ, types.Float) else 0


@overload(np.select, jit_options=NUMPY_ERRORS)
def _select_select(condlist, choicelist, default=0):
    default = as_type(default)
    lists = (types.List, types.UniTuple)
    if not (isinstance(condlist, lists) and isinstance(choicelist, lists)):
        return None
    if not (is_array(condlist.dtype) and is_array(choicelist.dtype)):
        return None
    if not is_number(default):
        return None
    out = np.result_type(numpy_dtype(choicelist.dtype.dtype), _weak_number(default))
    return _select_values(out.name)


def _copyto(dst, src):
    dst[...] = src


@overload(np.copyto, jit_options=NUMPY_ERRORS)
def _select_copyto(dst, src):
    return _copyto if is_array(dst) and (is_array(src) or is_number(src)) else None


@overload(np.where, jit_options=NUMPY_ERRORS)
def _where_of_sequences(condition, x, y):
    """np.where with a list or tuple among its operands: as the arrays NumPy makes of them."""
    operands = (condition, x, y)
    sequences = tuple(
        isinstance(types.unliteral(t), (types.List, types.BaseTuple)) for t in operands
    )
    if not any(sequences) or not all(_array_like(t) for t in operands):
        return None
    return _where_converting(sequences)


@functools.cache
def _where_converting(sequences: tuple):
    """Only the sequences become arrays: a scalar choice stays weak in NumPy's promotion."""
    names = ("condition", "x", "y")
    parts = [f"np.asarray({n})" if seq else n for n, seq in zip(names, sequences)]
    namespace = {"np": np}
    source = f"def where(condition, x, y):\n    return np.where({', '.join(parts)})\n"
    exec(source, namespace)  # noqa: S102 - fixed names
    return namespace["where"]
