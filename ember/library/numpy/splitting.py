"""Splitting and stacking along an axis, written in Python and compiled by ember: np.split and
np.array_split (sections or split indices, axis=), np.hsplit, np.vsplit, np.dsplit; np.hstack,
np.vstack, np.dstack, np.column_stack and np.row_stack of tuples. Splits return a list of views."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.extending import overload
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_array, is_integer, is_number


def _split_at(ary, bounds):
    """The views ary[bounds[i]:bounds[i + 1]] along the first axis, as a list."""
    parts = [ary[bounds[0] : bounds[1]]]
    for i in range(1, bounds.shape[0] - 1):
        parts.append(ary[bounds[i] : bounds[i + 1]])
    return parts


_split_at_jit = njit(**NUMPY_ERRORS)(_split_at)


def _split_along(ary, bounds, axis):
    """The views between `bounds` along `axis` (each a view of `ary`), as a list."""
    moved = np.swapaxes(ary, 0, axis)
    parts = [np.swapaxes(moved[bounds[0] : bounds[1]], 0, axis)]
    for i in range(1, bounds.shape[0] - 1):
        parts.append(np.swapaxes(moved[bounds[i] : bounds[i + 1]], 0, axis))
    return parts


_split_along_jit = njit(**NUMPY_ERRORS)(_split_along)


def _section_bounds(length, sections, equal):
    if sections <= 0:
        raise ValueError("number sections must be larger than 0.")
    if equal and length % sections:
        raise ValueError("array split does not result in an equal division")
    each, extras = divmod(length, sections)
    bounds = np.empty(sections + 1, np.intp)
    bounds[0] = 0
    for i in range(sections):
        bounds[i + 1] = bounds[i] + each + (1 if i < extras else 0)
    return bounds


_section_bounds_jit = njit(**NUMPY_ERRORS)(_section_bounds)


def _index_bounds(length, indices):
    """0, the indices (slice bounds: negative ones count from the end), then the length."""
    bounds = np.empty(indices.shape[0] + 2, np.intp)
    bounds[0] = 0
    bounds[1:-1] = indices
    bounds[-1] = length
    return bounds


_index_bounds_jit = njit(**NUMPY_ERRORS)(_index_bounds)


def _axis_length(ary, axis):
    if not -ary.ndim <= axis < ary.ndim:
        raise np.exceptions.AxisError("axis is out of bounds for the array")
    return ary.shape[axis]


_axis_length_jit = njit(**NUMPY_ERRORS)(_axis_length)


@functools.cache
def _split_impl(equal: bool, sections: bool, first_axis: bool):
    """split (equal=True) or array_split by a number of sections or by indices (an array, list
    or tuple), along the first axis (C views) or any axis (views of any layout)."""
    if sections:

        def bounds_of(length, indices_or_sections):
            return _section_bounds_jit(length, indices_or_sections, equal)

    else:

        def bounds_of(length, indices_or_sections):
            return _index_bounds_jit(length, np.asarray(indices_or_sections))

    bounds_jit = njit(**NUMPY_ERRORS)(bounds_of)
    if first_axis:

        def split(ary, indices_or_sections, axis):
            return _split_at_jit(ary, bounds_jit(ary.shape[0], indices_or_sections))

    else:

        def split(ary, indices_or_sections, axis):
            length = _axis_length_jit(ary, axis)
            return _split_along_jit(ary, bounds_jit(length, indices_or_sections), axis)

    return split


@functools.cache
def _split_of_sequence(equal: bool, sections: bool, first_axis: bool):
    """A list or tuple of numbers splits as the array NumPy makes of it."""
    split = njit(**NUMPY_ERRORS)(_split_impl(equal, sections, first_axis))
    return lambda ary, indices_or_sections, axis=0: split(
        np.asarray(ary), indices_or_sections, axis
    )


def _split_points(typ) -> bool | None:
    """True for a number of sections, False for split indices, None for neither."""
    if is_integer(typ):
        return True
    if is_array(typ) and typ.ndim == 1 and isinstance(typ.dtype, types.Integer):
        return False
    if isinstance(typ, types.List) and is_integer(typ.dtype):
        return False
    if isinstance(typ, types.BaseTuple) and len(typ) and all(is_integer(t) for t in typ):
        return False
    return None


def _select_split(equal: bool):
    def select(ary, indices_or_sections, axis):
        # an omitted axis (the Python 0) or a literal 0 keeps the C-contiguous views
        first_axis = getattr(axis, "literal_value", axis) == 0
        sections = _split_points(indices_or_sections)
        if sections is None or not is_integer(as_type(axis)):
            return None
        if isinstance(ary, (types.List, types.UniTuple)) and is_number(ary.dtype):
            return _split_of_sequence(equal, sections, first_axis)
        if not (is_array(ary) and ary.ndim >= 1):
            return None
        return _split_impl(equal, sections, first_axis)

    return select


@overload(np.split, jit_options=NUMPY_ERRORS)
def _np_split(ary, indices_or_sections, axis=0):
    return _select_split(equal=True)(ary, indices_or_sections, axis)


@overload(np.array_split, jit_options=NUMPY_ERRORS)
def _np_array_split(ary, indices_or_sections, axis=0):
    return _select_split(equal=False)(ary, indices_or_sections, axis)


def _register_fixed_split(function, axis_of_rank, least_rank: int, message: str) -> None:
    """hsplit, vsplit, dsplit: np.split along an axis fixed by the array's rank."""

    @overload(function, jit_options=NUMPY_ERRORS)
    def _select(ary, indices_or_sections):
        if not is_array(ary) or _split_points(indices_or_sections) is None:
            return None
        if ary.ndim < least_rank:
            raise ValueError(message)
        axis = axis_of_rank(ary.ndim)
        impl = njit(**NUMPY_ERRORS)(
            _split_impl(True, _split_points(indices_or_sections), axis == 0)
        )
        return lambda ary, indices_or_sections: impl(ary, indices_or_sections, axis)


_register_fixed_split(np.hsplit, lambda ndim: 1 if ndim > 1 else 0, 1,
                      "hsplit only works on arrays of 1 or more dimensions")  # fmt: skip
_register_fixed_split(np.vsplit, lambda ndim: 0, 2,
                      "vsplit only works on arrays of 2 or more dimensions")  # fmt: skip
_register_fixed_split(np.dsplit, lambda ndim: 2, 3,
                      "dsplit only works on arrays of 3 or more dimensions")  # fmt: skip


# ---------------------------------------------------------------------------- stacking


def _stacked_ndim(t: types.Type) -> int | None:
    """The rank a member of a stacking tuple has: an array's, 0 for a number, else None."""
    if is_array(t):
        return t.ndim
    return 0 if is_number(t) else None


def _member_forms(kind: str, members: tuple) -> list[str] | None:
    """How each member enters np.concatenate: NumPy raises it to the rank the function needs
    (hstack: 1, vstack: 2, dstack: 3; column_stack turns vectors and scalars into columns)."""
    ranks = [_stacked_ndim(t) for t in members]
    if not members or None in ranks:
        return None
    if kind == "column":
        column = "np.atleast_1d(tup[{}])[:, None]"  # (a C column: NumPy's result is C)
        return [column.format(k) if r < 2 else f"tup[{k}]" for k, r in enumerate(ranks)]
    rank = {"h": 1, "v": 2, "d": 3}[kind]
    return [
        f"np.atleast_{rank}d(tup[{k}])" if r < rank else f"tup[{k}]" for k, r in enumerate(ranks)
    ]


@functools.cache
def _joined_impl(forms: tuple, axis: int):
    namespace = {"np": np}
    items = "".join(f"{form}, " for form in forms)
    if all(form == f"tup[{k}]" for k, form in enumerate(forms)):
        items = "tup"  # every member joins as it is (a long tuple stays one argument)
    exec(f"def stack(tup):\n    return np.concatenate(({items}), {axis})\n", namespace)  # noqa: S102
    return namespace["stack"]


def _select_joined(kind: str, tup):
    tup = types.unliteral(tup)
    if not isinstance(tup, types.BaseTuple):
        return None
    forms = _member_forms(kind, tuple(tup.types))
    if forms is None:
        return None
    if kind == "h":  # vectors join end to end, higher ranks along their second axis
        axis = 0 if max(1, _stacked_ndim(tup.types[0])) == 1 else 1
    else:
        axis = {"v": 0, "d": 2, "column": 1}[kind]
    return _joined_impl(tuple(forms), axis)


def _register_joined(kind: str, function) -> None:
    @overload(function, jit_options=NUMPY_ERRORS)
    def _select(tup):
        return _select_joined(kind, tup)


for _kind, _function in (
    ("h", np.hstack),
    ("v", np.vstack),
    ("d", np.dstack),
    ("column", np.column_stack),
):
    _register_joined(_kind, _function)


if hasattr(np, "row_stack"):  # removed in NumPy 2.4

    @overload(np.row_stack, jit_options=NUMPY_ERRORS)
    def _select_row_stack(tup):
        return lambda tup: np.vstack(tup)
