"""Differences along an axis, written in Python and compiled by ember: np.diff (any rank, n=,
axis=), np.ediff1d (to_begin=, to_end=) and np.unwrap (discont=, axis=, period=)."""

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
    is_integer,
    is_none,
    numpy_dtype,
)

_NAMESPACE = {
    "np": np,
    "AxisError": np.exceptions.AxisError,
    "N0_OTHER_DTYPE": "np.diff(n=0) returns the array itself, whose dtype differs from the "
    "joined prepend=/append= values: compiled code needs one result dtype; skip the call",
}


def _generated(name: str, source: str):
    namespace = dict(_NAMESPACE)
    exec(source, namespace)  # noqa: S102 - source assembled from integers and fixed text
    return namespace[name]


def _axis_branches(ndim: int, body: str) -> list:
    """`if axis == k:` branches running `body` with {lo} and {hi} replaced by index expressions
    that take [1:] and [:-1] along axis k (NumPy's negative axes folded first)."""
    lines = [f"    if axis < 0:\n        axis += {ndim}"]
    for axis in range(ndim):
        lo = ", ".join("1:" if k == axis else ":" for k in range(ndim))
        hi = ", ".join(":-1" if k == axis else ":" for k in range(ndim))
        lines.append(f"    if axis == {axis}:")
        lines += ["        " + line.format(lo=lo, hi=hi) for line in body.splitlines()]
    lines.append("    raise AxisError('axis is out of bounds for the array')")
    return lines


# Differences of datetimes are timedeltas: the first is taken before the loop so that `out`
# keeps one type (n=0, where NumPy returns the datetimes themselves, is refused).
_DATETIME_DIFF = (
    "if n == 0:\n"
    "    raise ValueError('np.diff of datetime64 values with n=0 is not supported: use a.copy()')\n"
    "out = a[{lo}] - a[{hi}]\n"
    "for _ in range(n - 1):\n"
    "    out = out[{lo}] - out[{hi}]\n"
    "return out"
)


@functools.cache
def _diff_impl(ndim: int, boolean: bool, datetimes: bool = False):
    step = "out = out[{lo}] != out[{hi}]" if boolean else "out = out[{lo}] - out[{hi}]"
    body = f"out = a.copy()\nfor _ in range(n):\n    {step}\nreturn out"
    if datetimes:
        body = _DATETIME_DIFF
    lines = [
        "def diff(a, n=1, axis=-1, prepend=None, append=None):",
        "    if n < 0:",
        "        raise ValueError('order must be non-negative but got ' + str(n))",
        *_axis_branches(ndim, body),
    ]
    return _generated("diff", "\n".join(lines) + "\n")


@overload(np.diff, jit_options=NUMPY_ERRORS)
def _select_diff(a, n=1, axis=-1, prepend=None, append=None):
    n, axis = as_type(n), as_type(axis)
    prepend, append = as_type(prepend), as_type(append)
    if not (is_array(a) and is_integer(n) and is_integer(axis)):
        return None
    if a.ndim == 0:  # NumPy's ValueError, known while compiling (Numba's TypingError)
        raise TypingError("np.diff: diff requires input that is at least one dimensional")
    if not (is_none(prepend) and is_none(append)):
        same_dtype = _joined_dtype(a, prepend, append) == numpy_dtype(a.dtype)
        return _diff_extended_impl(a.ndim, _end_kind(prepend), _end_kind(append), same_dtype)
    return _diff_impl(
        a.ndim, isinstance(a.dtype, types.Boolean), isinstance(a.dtype, types.NPDatetime)
    )


def _end_kind(value: types.Type) -> str:
    """How prepend=/append= joins the array: not at all, as a block of one value, or as is."""
    if is_none(value):
        return "none"
    if isinstance(types.unliteral(value), (types.Number, types.Boolean)):
        return "scalar"
    if is_array(value):
        return "scalar" if value.ndim == 0 else "array"
    raise TypingError(f"np.diff: prepend= and append= take a number or an array (got {value})")


def _joined_dtype(a: types.Type, *ends: types.Type) -> np.dtype:
    dtypes = [numpy_dtype(a.dtype)]
    for end in ends:
        if is_array(end):
            dtypes.append(numpy_dtype(end.dtype))
        elif not is_none(end):  # np.full of a Python number: int64, float64 or complex128
            dtypes.append(numpy_dtype(types.unliteral(end)))
    return np.result_type(*dtypes)


@functools.cache
def _diff_extended_impl(ndim: int, prepend: str, append: str, same_dtype: bool):
    """np.diff(a, n, axis, prepend=, append=): NumPy joins the values along the axis first, a
    number as a block one item thick (n=0 returns `a` itself before joining: a copy here, of
    the one dtype a compiled function can return)."""
    block = ", ".join(f"1 if axis == {k} else a.shape[{k}]" for k in range(ndim))
    parts = {"none": "", "scalar": "np.full(({block},), {name}),", "array": "{name},"}
    joined = (
        parts[prepend].format(block=block, name="prepend")
        + " a, "
        + parts[append].format(block=block, name="append")
    )
    source = f"""
def diff(a, n=1, axis=-1, prepend=None, append=None):
    if axis < -{ndim} or axis >= {ndim}:
        raise AxisError('axis is out of bounds for the array')
    if axis < 0:
        axis += {ndim}
    if n == 0:
        {"return a.copy()" if same_dtype else "raise ValueError(N0_OTHER_DTYPE)"}
    return np.diff(np.concatenate(({joined}), axis), n, axis)
"""
    return _generated("diff", source)


# ---------------------------------------------------------------------------- ediff1d


def _as_flat(values, dtype):
    return np.asarray(values).astype(dtype).ravel()


_as_flat_jit = njit(**NUMPY_ERRORS)(_as_flat)


def _ediff1d(ary, to_end, to_begin):
    flat = ary.ravel()
    inner = flat[1:] - flat[:-1]
    return np.concatenate((_as_flat_jit(to_begin, inner.dtype), inner,
                           _as_flat_jit(to_end, inner.dtype)))  # fmt: skip


def _ediff1d_plain(ary, to_end, to_begin):
    flat = ary.ravel()
    return flat[1:] - flat[:-1]


def _ediff1d_end(ary, to_end, to_begin):
    flat = ary.ravel()
    inner = flat[1:] - flat[:-1]
    return np.concatenate((inner, _as_flat_jit(to_end, inner.dtype)))


def _ediff1d_begin(ary, to_end, to_begin):
    flat = ary.ravel()
    inner = flat[1:] - flat[:-1]
    return np.concatenate((_as_flat_jit(to_begin, inner.dtype), inner))


def _end_values(typ, ary) -> bool:
    """Arrays or numbers whose dtype casts to ary's under NumPy's 'same_kind' rule."""
    if not (is_array(typ) or isinstance(types.unliteral(typ), (types.Number, types.Boolean))):
        return False
    dtype = typ.dtype if is_array(typ) else types.unliteral(typ)
    if not np.can_cast(numpy_dtype(dtype), numpy_dtype(ary.dtype), "same_kind"):
        raise TypingError(
            f"dtype of to_begin/to_end ({dtype}) must be compatible with input `ary` ({ary.dtype}) "
            "under the `same_kind` rule."
        )
    return True


@overload(np.ediff1d, jit_options=NUMPY_ERRORS)
def _select_ediff1d(ary, to_end=None, to_begin=None):
    to_end, to_begin = as_type(to_end), as_type(to_begin)
    if not is_array(ary) or isinstance(ary.dtype, types.Boolean):
        return None
    no_end, no_begin = is_none(to_end), is_none(to_begin)
    if not ((no_end or _end_values(to_end, ary)) and (no_begin or _end_values(to_begin, ary))):
        return None
    if no_end and no_begin:
        return _ediff1d_plain
    if no_begin:
        return _ediff1d_end
    return _ediff1d_begin if no_end else _ediff1d


# ---------------------------------------------------------------------------- unwrap


def _unwrap_rows(rows, discont, period, half, ambiguous):
    """NumPy's unwrap of each row of a 2-d array: jumps larger than `discont` (at least
    period / 2) are replaced by their complement modulo `period`, wrapped into [-half, half)
    (to +half at an `ambiguous` boundary: an integer period's half rounds down, and an odd one
    has no ambiguous boundary)."""
    limit = max(discont, period / 2.0)
    out = rows.copy()
    for r in range(rows.shape[0]):
        correction = rows[r, 0] - rows[r, 0]  # a zero of the rows' type
        for i in range(1, rows.shape[1]):
            jump = rows[r, i] - rows[r, i - 1]
            wrapped = np.mod(jump + half, period) - half
            if ambiguous and wrapped == -half and jump > 0:
                wrapped = half
            if abs(jump) >= limit:
                correction += wrapped - jump
            out[r, i] = rows[r, i] + correction
    return out


_unwrap_rows_jit = njit(**NUMPY_ERRORS)(_unwrap_rows)


@functools.cache
def _unwrap_impl(one_dimensional: bool, default_discont: bool, integer: bool, out: str):
    """unwrap through 2-d rows: the axis moved last, the others flattened; in int64 for
    integers with an integer period, else float64; the result in `out` (NumPy's dtype)."""
    limit = "-np.inf" if default_discont else "discont"  # -inf: NumPy's default, period / 2
    halves = "period // 2, period % 2 == 0" if integer else "period / 2.0, True"
    if one_dimensional:
        body = f"""
    if axis != 0 and axis != -1:
        raise AxisError('axis is out of bounds for the array')
    rows = p.astype(WORK).reshape((1, p.shape[0]))
    return unwrap_rows(rows, {limit}, period, {halves})[0].astype(OUT)
"""
    else:
        body = f"""
    moved = np.ascontiguousarray(np.swapaxes(p, axis, -1)).astype(WORK)
    length = moved.shape[-1]
    rows = moved.reshape((moved.size // length if length else 0, length))
    done = unwrap_rows(rows, {limit}, period, {halves})
    return np.swapaxes(done.reshape(moved.shape), axis, -1).astype(OUT)
"""
    namespace = dict(
        _NAMESPACE,
        unwrap_rows=_unwrap_rows_jit,
        WORK=np.int64 if integer else np.float64,
        OUT=np.dtype(out).type,
    )
    exec("def unwrap(p, discont, axis, period):" + body, namespace)  # noqa: S102 - fixed text
    return namespace["unwrap"]


@overload(np.unwrap, jit_options=NUMPY_ERRORS)
def _select_unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    discont, axis, period = as_type(discont), as_type(axis), as_type(period)
    real = (types.Integer, types.Float)
    if not (is_array(p) and isinstance(p.dtype, real) and is_integer(axis)):
        return None
    if not (is_none(discont) or isinstance(types.unliteral(discont), real)):
        return None
    if not isinstance(types.unliteral(period), real):
        return None
    period = types.unliteral(period)
    integer = isinstance(p.dtype, types.Integer) and isinstance(period, types.Integer)
    # the period is a Python number to NumPy: float32 stays float32, integers stay integers
    out = np.result_type(numpy_dtype(p.dtype), 0 if integer else 0.0)
    return _unwrap_impl(p.ndim == 1, is_none(discont), integer, out.name)
