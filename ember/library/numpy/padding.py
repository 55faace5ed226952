"""np.pad in compiled code: consumes an array of any rank, NumPy's pad_width forms and a constant
mode ('constant', 'edge', 'wrap', 'reflect', 'symmetric', 'linear_ramp', 'maximum', 'minimum',
'mean', 'median', 'empty') with its keywords; produces a new C-contiguous array with NumPy's values.

Each axis is padded in turn, as NumPy does (corners take the values the earlier axes put there):
the padded array is viewed as (outer, extent, inner) for that axis and every lane is filled.
"""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_array, is_none, numpy_dtype

_MODES = (
    "constant", "edge", "wrap", "reflect", "symmetric", "linear_ramp", "maximum", "minimum",
    "mean", "median", "empty",
)  # fmt: skip
_STAT_MODES = ("maximum", "minimum", "mean", "median")

# ---------------------------------------------------------------------------- pairs per axis


def _nesting(typ: types.Type, what: str) -> tuple[int, ...]:
    """The shape NumPy's np.array() gives a number or a (nested) tuple of numbers."""
    typ = types.unliteral(typ)
    if isinstance(typ, (types.Number, types.Boolean)):
        return ()
    if isinstance(typ, types.BaseTuple) and len(typ.types) > 0:
        inner = {_nesting(member, what) for member in typ.types}
        if len(inner) == 1:
            return (len(typ.types), *inner.pop())
    raise TypingError(
        f"np.pad: {what} must be a number, a (before, after) pair or a tuple of pairs per axis "
        f"(got {typ})"
    )


def _pair_items(shape: tuple[int, ...], ndim: int, what: str) -> list[tuple[str, str]]:
    """For each axis, the index expressions of its (before, after) values in the given
    structure, broadcast the way NumPy's np.pad broadcasts them to (ndim, 2)."""
    size = int(np.prod(shape)) if shape else 1
    flat = [np.unravel_index(k, shape) if shape else () for k in range(size)]

    def item(index: tuple) -> str:
        return "value" + "".join(f"[{k}]" for k in index)

    if len(shape) < 3 and size == 1:
        return [(item(flat[0]), item(flat[0]))] * ndim
    if len(shape) < 3 and size == 2 and shape != (2, 1):
        return [(item(flat[0]), item(flat[1]))] * ndim
    if len(shape) <= 2 and (len(shape) < 2 or shape[0] in (1, ndim)) and shape[-1] in (1, 2):
        rows = shape[0] if len(shape) == 2 else 1
        pairs = []
        for axis in range(ndim):
            row = (axis if rows == ndim else 0,) if len(shape) == 2 else ()
            before = row + (0,)
            after = row + (1 if shape[-1] == 2 else 0,)
            pairs.append((item(before), item(after)))
        return pairs
    raise TypingError(
        f"np.pad: {what} of shape {shape} cannot be broadcast to ({ndim}, 2), one "
        "(before, after) pair per axis"
    )


@functools.cache
def _pairs_impl(shape: tuple[int, ...], ndim: int, dtype_name: str, as_index: bool, what: str):
    """A function turning the given value into an (ndim, 2) array of `dtype_name`."""
    lines = ["def pairs(value):", f"    out = np.empty(({ndim}, 2), np.{dtype_name})"]
    for axis, (before, after) in enumerate(_pair_items(shape, ndim, what)):
        lines.append(f"    out[{axis}, 0] = {before}")
        lines.append(f"    out[{axis}, 1] = {after}")
    if as_index:
        lines.append("    for k in range(out.size):")
        lines.append("        if out.flat[k] < 0:")
        lines.append('            raise ValueError("index can\'t contain negative values")')
    lines.append("    return out")
    namespace = {"np": np}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - assembled from integers and fixed text
    return njit(namespace["pairs"])


def _pairs_of(value: types.Type, ndim: int, dtype_name: str, what: str, as_index: bool = False):
    shape = _nesting(value, what)
    if as_index and not _all_integers(value):
        raise TypingError(f"np.pad: `{what}` must be of integral type.")
    return _pairs_impl(shape, ndim, dtype_name, as_index, what)


def _all_integers(typ: types.Type) -> bool:
    typ = types.unliteral(typ)
    if isinstance(typ, types.BaseTuple):
        return all(_all_integers(member) for member in typ.types)
    return isinstance(typ, types.Integer)


# ---------------------------------------------------------------------------- the padded array


@functools.cache
def _center_impl(ndim: int):
    """The padded array, uninitialized but for the original values in its middle."""
    shape = ", ".join(f"array.shape[{k}] + widths[{k}, 0] + widths[{k}, 1]" for k in range(ndim))
    where = ", ".join(f"widths[{k}, 0]:widths[{k}, 0] + array.shape[{k}]" for k in range(ndim))
    source = f"""
def center(array, widths):
    out = np.empty(({shape},), array.dtype)
    out[{where}] = array
    return out
"""
    namespace = {"np": np}
    exec(source, namespace)  # noqa: S102 - assembled from integers and fixed text
    return njit(namespace["center"])


@njit
def _lanes(out, axis):
    """`out` (C-contiguous) viewed as (outer, extent of `axis`, inner): lanes along `axis`."""
    outer = 1
    for k in range(axis):
        outer *= out.shape[k]
    inner = 1
    for k in range(axis + 1, out.ndim):
        inner *= out.shape[k]
    return out.reshape((outer, out.shape[axis], inner))


@njit
def _refuse_empty_axes(array, widths):
    """NumPy: only 'constant' and 'empty' can pad an axis that holds no values."""
    for axis in range(array.ndim):
        if array.shape[axis] == 0 and (widths[axis, 0] > 0 or widths[axis, 1] > 0):
            raise ValueError("can't extend empty axis using modes other than 'constant' or 'empty'")


# ---------------------------------------------------------------------------- lane fillers


@njit
def _fill_constant(lanes, before, after, low, high):
    extent = lanes.shape[1]
    for o in range(lanes.shape[0]):
        for j in range(before):
            for i in range(lanes.shape[2]):
                lanes[o, j, i] = low
        for j in range(extent - after, extent):
            for i in range(lanes.shape[2]):
                lanes[o, j, i] = high


@njit
def _fill_edge(lanes, before, after):
    extent = lanes.shape[1]
    for o in range(lanes.shape[0]):
        for j in range(before):
            for i in range(lanes.shape[2]):
                lanes[o, j, i] = lanes[o, before, i]
        for j in range(extent - after, extent):
            for i in range(lanes.shape[2]):
                lanes[o, j, i] = lanes[o, extent - after - 1, i]


@njit
def _fill_wrap(lanes, before, after):
    """The periodic extension of the original values (NumPy's repeated wrapping)."""
    extent = lanes.shape[1]
    period = extent - before - after
    for o in range(lanes.shape[0]):
        for j in range(before):
            for i in range(lanes.shape[2]):
                lanes[o, j, i] = lanes[o, before + (j - before) % period, i]
        for j in range(extent - after, extent):
            for i in range(lanes.shape[2]):
                lanes[o, j, i] = lanes[o, before + (j - before) % period, i]


@njit
def _reflect_chunk(lanes, left, right, period, symmetric, odd):
    """One step of NumPy's reflection: mirror at most one period's worth of the values filled
    so far into each side; returns the widths still to fill."""
    extent = lanes.shape[1]
    filled = extent - left - right
    offset = 1 if symmetric else 0
    if symmetric:
        filled = filled // period * period
    else:
        filled = (filled - 1) // (period - 1) * (period - 1)
    if left > 0:
        chunk = min(filled, left)
        for m in range(chunk):  # destination left - 1 - m mirrors source left - offset + 1 + m
            source = left - offset + 1 + m
            for o in range(lanes.shape[0]):
                for i in range(lanes.shape[2]):
                    value = lanes[o, source, i]
                    if odd:
                        value = 2 * lanes[o, left, i] - value
                    lanes[o, left - 1 - m, i] = value
        left -= chunk
    if right > 0:
        chunk = min(filled, right)
        edge = extent - right - 1
        for m in range(chunk):  # destination edge + 1 + m mirrors source edge - 1 + offset - m
            source = edge - 1 + offset - m
            for o in range(lanes.shape[0]):
                for i in range(lanes.shape[2]):
                    value = lanes[o, source, i]
                    if odd:
                        value = 2 * lanes[o, edge, i] - value
                    lanes[o, edge + 1 + m, i] = value
        right -= chunk
    return left, right


@njit
def _fill_reflect(lanes, before, after, symmetric, odd):
    period = lanes.shape[1] - before - after
    if period == 1:  # NumPy's legacy rule: a single value is repeated
        _fill_edge(lanes, before, after)
        return
    left, right = before, after
    while left > 0 or right > 0:
        left, right = _reflect_chunk(lanes, left, right, period, symmetric, odd)


@njit
def _ramp_value(end, edge, width, position, divide_first):
    """np.linspace(end, edge, width, endpoint=False)[position]: NumPy divides before
    multiplying when any lane's step is zero."""
    if divide_first:
        return position / width * (edge - end) + end
    return position * ((edge - end) / width) + end


@njit
def _floored(value):
    return np.floor(value)  # NumPy 2's linspace for integer dtypes


@njit
def _unchanged(value):
    return value


@njit
def _any_flat_ramp(lanes, position, end, width):
    for o in range(lanes.shape[0]):
        for i in range(lanes.shape[2]):
            if (lanes[o, position, i] - end) / width == 0:
                return True
    return False


@njit
def _fill_linear_ramp(lanes, before, after, low, high, finish):
    extent = lanes.shape[1]
    first, last = before, extent - after - 1
    flat_low = before > 0 and _any_flat_ramp(lanes, first, low, before)
    flat_high = after > 0 and _any_flat_ramp(lanes, last, high, after)
    for o in range(lanes.shape[0]):
        for i in range(lanes.shape[2]):
            edge = lanes[o, first, i]
            for j in range(before):
                lanes[o, j, i] = finish(_ramp_value(low, edge, before, j, flat_low))
            edge = lanes[o, last, i]
            for m in range(after):  # m-th value after the edge: the ramp read backwards
                value = _ramp_value(high, edge, after, after - 1 - m, flat_high)
                lanes[o, last + 1 + m, i] = finish(value)


@njit
def _maximum(values, integral):
    if values.size == 0:
        raise ValueError("stat_length of 0 yields no value for padding")
    return values.max()


@njit
def _minimum(values, integral):
    if values.size == 0:
        raise ValueError("stat_length of 0 yields no value for padding")
    return values.min()


@njit
def _mean(values, integral):
    """Integer arrays get the mean rounded half to even, as NumPy's np.pad does."""
    return np.round(values.mean()) if integral else values.mean()


@njit
def _median(values, integral):
    return np.round(np.median(values)) if integral else np.median(values)


_STATISTICS = {"maximum": _maximum, "minimum": _minimum, "mean": _mean, "median": _median}


@njit
def _fill_statistic(lanes, before, after, low_length, high_length, statistic, integral):
    extent = lanes.shape[1]
    length = extent - before - after
    low_length = length if low_length < 0 or low_length > length else low_length
    high_length = length if high_length < 0 or high_length > length else high_length
    for o in range(lanes.shape[0]):
        for i in range(lanes.shape[2]):
            low = statistic(lanes[o, before : before + low_length, i], integral)
            end = before + length
            high = statistic(lanes[o, end - high_length : end, i], integral)
            for j in range(before):
                lanes[o, j, i] = low
            for j in range(end, extent):
                lanes[o, j, i] = high


# ---------------------------------------------------------------------------- np.pad

_FILL_CALLS = {
    "constant": "_fill_constant(lanes, before, after, values[axis, 0], values[axis, 1])",
    "edge": "_fill_edge(lanes, before, after)",
    "wrap": "_fill_wrap(lanes, before, after)",
    "reflect": "_fill_reflect(lanes, before, after, False, {odd})",
    "symmetric": "_fill_reflect(lanes, before, after, True, {odd})",
    "linear_ramp": (
        "_fill_linear_ramp(lanes, before, after, values[axis, 0], values[axis, 1], {finish})"
    ),
    "statistic": (
        "_fill_statistic(lanes, before, after, values[axis, 0], values[axis, 1], statistic, "
        "{integral})"
    ),
}


@functools.cache
def _pad_impl(ndim: int, mode: str, widths_of, values_of, odd: bool, integral: bool):
    """np.pad for one rank and mode: the fill of each axis's lanes is chosen here."""
    values_from = {"linear_ramp": "end_values", **dict.fromkeys(_STAT_MODES, "stat_length")}
    fill = _FILL_CALLS.get("statistic" if mode in _STAT_MODES else mode, "").format(
        odd=odd, integral=integral, finish="_floored" if integral else "_unchanged"
    )
    lines = [
        "def pad(array, pad_width, mode, constant_values, end_values, stat_length, reflect_type):",
        "    widths = widths_of(pad_width)",
        "    out = center(array, widths)",
    ]
    if mode == "empty":
        lines.append("    return out")
    elif mode != "constant":
        lines += ["    refuse_empty_axes(array, widths)", "    if array.size == 0:"]
        lines.append("        return out")
    lines += [
        f"    values = values_of({values_from.get(mode, 'constant_values')})",
        f"    for axis in range({ndim}):",
        "        lanes = lanes_of(out, axis)",
        "        before, after = widths[axis, 0], widths[axis, 1]",
        f"        {fill}",
        "    return out",
    ]
    namespace = {
        "np": np,
        "widths_of": widths_of,
        "values_of": values_of,
        "center": _center_impl(ndim),
        "refuse_empty_axes": _refuse_empty_axes,
        "lanes_of": _lanes,
        "statistic": _STATISTICS.get(mode),
        "_floored": _floored,
        "_unchanged": _unchanged,
        **{name: value for name, value in globals().items() if name.startswith("_fill_")},
    }
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - assembled from fixed text
    return namespace["pad"]


@functools.cache
def _whole_axes(ndim: int):
    """stat_length=None: every (before, after) length is the whole axis (-1)."""
    return njit(lambda value: np.full((ndim, 2), -1, np.int64))


@njit
def _pad_0d(array, pad_width, mode, constant_values, end_values, stat_length, reflect_type):
    return array.copy()  # NumPy: nothing to pad


def _literal(value: types.Type, name: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, types.StringLiteral) or value.literal_value not in choices:
        shown = ", ".join(repr(choice) for choice in choices)
        raise TypingError(f"np.pad: {name} must be a constant string, one of {shown}")
    return value.literal_value


def _values_reader(mode: str, ndim: int, dtype: np.dtype, end_values, stat_length, constants):
    """The function making the (ndim, 2) array of the mode's per-side values."""
    if mode == "linear_ramp":
        kind = "complex128" if dtype.kind == "c" else "float64"
        return _pairs_of(as_type(end_values), ndim, kind, "end_values")
    if mode in _STAT_MODES:
        stat_length = as_type(stat_length)
        if is_none(stat_length):
            return _whole_axes(ndim)
        return _pairs_of(stat_length, ndim, "int64", "stat_length", as_index=True)
    return _pairs_of(as_type(constants), ndim, dtype.name, "constant_values")


@overload(np.pad, jit_options=NUMPY_ERRORS)
def _select_pad(
    array,
    pad_width,
    mode="constant",
    constant_values=0,
    end_values=0,
    stat_length=None,
    reflect_type="even",
):
    if not is_array(array):
        return None
    mode = _literal(as_type(mode), "mode", _MODES)
    odd = _literal(as_type(reflect_type), "reflect_type", ("even", "odd")) == "odd"
    if array.ndim == 0:
        return _pad_0d
    dtype = numpy_dtype(array.dtype)
    widths_of = _pairs_of(as_type(pad_width), array.ndim, "int64", "pad_width", as_index=True)
    values_of = _values_reader(mode, array.ndim, dtype, end_values, stat_length, constant_values)
    return _pad_impl(array.ndim, mode, widths_of, values_of, odd, dtype.kind in "iu")
