"""Views with chosen shapes and strides over an array's memory: np.lib.stride_tricks.as_strided
and sliding_window_view, np.broadcast_to, np.broadcast_arrays and np.broadcast_shapes, and
np.flip (every axis reversed: negative strides).

One intrinsic builds a view from (shape, strides) tuples and np.flip is lowered directly; the rest
is Python compiled by ember, generated per rank where NumPy's rules depend on it.
"""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import intrinsic, overload
from ember.library.numpy.creation import nested_items
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_integer,
    is_none,
    np_typer,
)
from ember.lowering import arrays as arr
from ember.lowering.arrays import ArrayFields, const
from ember.lowering.registry import lower_builtin
from ember.typing.signature import signature


def _integer_tuple(typ) -> bool:
    return isinstance(typ, types.BaseTuple) and all(is_integer(t) for t in typ)


def _shape_like(typ) -> bool:
    return is_integer(typ) or _integer_tuple(typ)


def _tuple_items(context, builder, tuple_type, value) -> list:
    return [
        context.cast(builder, builder.extract_value(value, k), item, types.intp)
        for k, item in enumerate(tuple_type)
    ]


@intrinsic
def _strided_view(typingctx, a, shape, strides):
    """A view of `a`'s memory (from its first element) with the given shape and byte strides;
    unchecked, as NumPy's as_strided."""
    if not (is_array(a) and _integer_tuple(shape) and _integer_tuple(strides)):
        return None
    if len(shape) != len(strides):
        return None
    view_type = a.copy(ndim=len(shape), layout="A")

    def codegen(context, builder, sig, args):
        fields = arr.unpack(builder, sig.args[0], args[0])
        dims = _tuple_items(context, builder, sig.args[1], args[1])
        steps = _tuple_items(context, builder, sig.args[2], args[2])
        view = ArrayFields(fields.meminfo, fields.parent, arr.product(builder, dims),
                           fields.itemsize, fields.data, dims, steps)  # fmt: skip
        arr.nrt_incref_fields(builder, view)
        return arr.pack(builder, sig.return_type, view)

    return signature(view_type, a, shape, strides), codegen


@intrinsic
def _read_only(typingctx, a):
    """`a` typed read-only (NumPy's broadcast_to views: writes would land on shared items)."""
    if not is_array(a):
        return None

    def codegen(context, builder, sig, args):
        arr.incref(builder, sig.args[0], args[0])
        return args[0]

    return signature(a.copy(readonly=True), a), codegen


# ---------------------------------------------------------------------------- as_strided


def _as_strided(x, shape, strides):
    return _strided_view(x, shape, strides)


def _as_strided_own_strides(x, shape, strides):
    return _strided_view(x, shape, x.strides)


def _as_strided_own_shape(x, shape=None, strides=None):
    return _strided_view(x, x.shape, strides)


def _as_strided_same(x, shape, strides):
    return _strided_view(x, x.shape, x.strides)


@overload(np.lib.stride_tricks.as_strided, jit_options=NUMPY_ERRORS)
def _select_as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    shape, strides = as_type(shape), as_type(strides)
    if not is_array(x):
        return None
    if is_none(shape) and is_none(strides):
        return _as_strided_same
    if _integer_tuple(shape) and _integer_tuple(strides) and len(shape) == len(strides):
        return _as_strided
    if _integer_tuple(shape) and is_none(strides) and len(shape) == x.ndim:
        return _as_strided_own_strides
    if is_none(shape) and _integer_tuple(strides) and len(strides) == x.ndim:
        return _as_strided_own_shape
    return None


# ---------------------------------------------------------------------------- broadcasting


def _broadcast_source(in_rank: int, out_rank: int) -> str:
    """Source of `broadcast(a, shape)`: `a` as a view of `shape` (a tuple of out_rank ints), with
    stride 0 along stretched axes; NumPy's messages for bad shapes."""
    lines = [
        "def broadcast(a, shape):",
        f"    lead = {out_rank - in_rank}",
    ]
    dims, steps = [], []
    for axis in range(out_rank):
        lines.append(f"    if shape[{axis}] < 0:")
        lines.append(
            "        raise ValueError('all elements of broadcast shape must be non-negative')"
        )
        source_axis = axis - (out_rank - in_rank)
        if source_axis < 0:
            steps.append("0")
        else:
            lines.append(
                f"    if a.shape[{source_axis}] != shape[{axis}] and a.shape[{source_axis}] != 1:"
            )
            lines.append("        raise ValueError('operands could not be broadcast together with "
                         "remapped shapes [original->remapped]')")  # fmt: skip
            steps.append(
                f"(a.strides[{source_axis}] if a.shape[{source_axis}] == shape[{axis}] else 0)"
            )
        dims.append(f"shape[{axis}]")
    shape_text, steps_text = "".join(f"{d}, " for d in dims), "".join(f"{s}, " for s in steps)
    lines.append(f"    return _strided_view(a, ({shape_text}), ({steps_text}))")
    return "\n".join(lines) + "\n"


@functools.cache
def _broadcast_impl(in_rank: int, out_rank: int):
    namespace = {"_strided_view": _strided_view}
    exec(_broadcast_source(in_rank, out_rank), namespace)  # noqa: S102 - from integers
    return njit(**NUMPY_ERRORS)(namespace["broadcast"])


@functools.cache
def _broadcast_to_impl(in_rank: int, out_rank: int, scalar: bool, int_shape: bool):
    """broadcast_to for an array or a scalar (as a 0-d array), shape an int or a tuple."""
    source = "np.full(1, array).reshape(())" if scalar else "array"
    shape = "(shape,)" if int_shape else "shape"
    namespace = {"np": np, "broadcast": _broadcast_impl(in_rank, out_rank), "read_only": _read_only}
    text = f"def broadcast_to(array, shape):\n    return read_only(broadcast({source}, {shape}))\n"
    exec(text, namespace)  # noqa: S102 - fixed text
    return namespace["broadcast_to"]


@overload(np.broadcast_to, jit_options=NUMPY_ERRORS)
def _select_broadcast_to(array, shape):
    if not _shape_like(shape):
        return None
    out_rank = 1 if is_integer(shape) else len(shape)
    scalar = isinstance(types.unliteral(array), (types.Number, types.Boolean))
    if isinstance(array, types.BaseTuple):
        return _broadcast_tuple_to(array, shape)
    if not (is_array(array) or scalar):
        return None
    in_rank = 0 if scalar else array.ndim
    if in_rank > out_rank:
        raise TypingError("input operand has more dimensions than allowed by the axis remapping")
    return _broadcast_to_impl(in_rank, out_rank, scalar, is_integer(shape))


def _broadcast_tuple_to(array, shape):
    """broadcast_to of a tuple: the array np.asarray makes of it, broadcast."""
    if _array_rank(array) is None:
        return None

    def broadcast_to(array, shape):
        return np.broadcast_to(np.asarray(array), shape)

    return broadcast_to


_MISMATCH = "shape mismatch: objects cannot be broadcast to a single shape"


def _merge_dims_source(ranks: list, out_rank: int) -> list:
    """Lines computing d0, d1, ...: the broadcast of the shapes s0, s1, ... (right-aligned)."""
    lines = []
    for axis in range(out_rank):
        lines.append(f"    d{axis} = 1")
        for index, rank in enumerate(ranks):
            source_axis = axis - (out_rank - rank)
            if source_axis < 0:
                continue
            size = f"s{index}[{source_axis}]"
            lines.append(f"    if {size} != 1:")
            lines.append(f"        if d{axis} != 1 and d{axis} != {size}:")
            lines.append(f"            raise ValueError('{_MISMATCH}')")
            lines.append(f"        d{axis} = {size}")
    return lines


@functools.cache
def _broadcast_shapes_impl(ranks: tuple, int_args: tuple):
    out_rank = max(ranks, default=0)
    params = ", ".join(f"a{k}" for k in range(len(ranks)))
    lines = [f"def broadcast_shapes({params}):"]
    for k, is_int in enumerate(int_args):
        lines.append(f"    s{k} = (a{k},)" if is_int else f"    s{k} = a{k}")
    lines += _merge_dims_source(list(ranks), out_rank)
    lines.append("    return (" + "".join(f"d{k}, " for k in range(out_rank)) + ")")
    namespace = {}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - from integers
    return namespace["broadcast_shapes"]


@functools.cache
def _broadcast_arrays_impl(ranks: tuple, converted: tuple):
    """`converted[k]`: argument k is a number or a tuple, made an array first."""
    out_rank = max(ranks, default=0)
    params = ", ".join(f"a{k}" for k in range(len(ranks)))
    lines = [f"def broadcast_arrays({params}):"]
    lines += [f"    v{k} = np.asarray(a{k})" if converted[k] else f"    v{k} = a{k}"
              for k in range(len(ranks))]  # fmt: skip
    lines += [f"    s{k} = v{k}.shape" for k in range(len(ranks))]
    lines += _merge_dims_source(list(ranks), out_rank)
    shape = "(" + "".join(f"d{k}, " for k in range(out_rank)) + ")"
    views = ", ".join(f"_b{k}(v{k}, {shape})" for k in range(len(ranks)))
    lines.append(f"    return ({views},)")
    namespace = {f"_b{k}": _broadcast_impl(rank, out_rank) for k, rank in enumerate(ranks)}
    namespace["np"] = np
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - from integers
    return namespace["broadcast_arrays"]


def _star_impl(impl):
    """An implementation taking *args that unpacks them for `impl`, generated with fixed arity."""
    return lambda *args: impl(*args)


@overload(np.broadcast_shapes, jit_options=NUMPY_ERRORS)
def _select_broadcast_shapes(*args):
    if not all(_shape_like(t) for t in args):
        return None
    ranks = tuple(1 if is_integer(t) else len(t) for t in args)
    impl = njit(**NUMPY_ERRORS)(_broadcast_shapes_impl(ranks, tuple(is_integer(t) for t in args)))
    return _star_impl(impl)


def _array_rank(typ) -> int | None:
    """The rank np.asarray gives an argument of broadcast_arrays, None if it is no array-like."""
    if is_array(typ):
        return typ.ndim
    found = nested_items(typ)
    return None if found is None else len(found[0])


@overload(np.broadcast_arrays, jit_options=NUMPY_ERRORS)
def _select_broadcast_arrays(*args):
    ranks = tuple(_array_rank(t) for t in args)
    if not args or None in ranks:
        return None
    converted = tuple(not is_array(t) for t in args)
    impl = njit(**NUMPY_ERRORS)(_broadcast_arrays_impl(ranks, converted))
    return _star_impl(impl)


# ---------------------------------------------------------------------------- sliding windows


@functools.cache
def _sliding_window_impl(ndim: int, window_rank: int, axis_form: str, count: int):
    """Windows of `count` sizes over axes given as None (every axis), an int or a tuple: the view
    has the array's axes (each shortened by window - 1 per window over it) followed by the
    window axes. `window_rank` is 0 for an integer window_shape."""
    lines = ["def sliding_window_view(x, window_shape, axis, subok, writeable):"]
    lines.append("    window = " + ("(window_shape,)" if window_rank == 0 else "window_shape"))
    axes = {"none": "(" + "".join(f"{k}, " for k in range(ndim)) + ")", "int": "(axis,)"}
    lines.append(f"    axes = {axes.get(axis_form, 'axis')}")
    for position in range(count):
        lines += [
            f"    if not -{ndim} <= axes[{position}] < {ndim}:",
            "        raise AxisError('axis is out of bounds for the array')",
            f"    if window[{position}] < 0:",
            "        raise ValueError('`window_shape` cannot contain negative values')",
        ]
    dims = []
    for k in range(ndim):
        shrink = " + ".join(
            f"(window[{j}] - 1 if axes[{j}] % {ndim} == {k} else 0)" for j in range(count)
        )
        lines.append(f"    d{k} = x.shape[{k}] - ({shrink})")
        lines.append(f"    if d{k} < 0:")
        lines.append(
            "        raise ValueError('window shape cannot be larger than input array shape')"
        )
        dims.append(f"d{k}")
    dims += [f"window[{j}]" for j in range(count)]
    steps = [f"x.strides[{k}]" for k in range(ndim)]
    steps += [f"x.strides[axes[{j}] % {ndim}]" for j in range(count)]
    lines.append(f"    return _strided_view(x, ({', '.join(dims)},), ({', '.join(steps)},))")
    namespace = {"_strided_view": _strided_view, "AxisError": np.exceptions.AxisError}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - from integers
    return namespace["sliding_window_view"]


@overload(np.lib.stride_tricks.sliding_window_view, jit_options=NUMPY_ERRORS)
def _select_sliding_window_view(x, window_shape, axis=None, subok=False, writeable=False):
    axis = as_type(axis)
    if not (is_array(x) and x.ndim >= 1 and _shape_like(window_shape)):
        return None
    count = 1 if is_integer(window_shape) else len(window_shape)
    window_rank = 0 if is_integer(window_shape) else count
    if is_none(axis):
        if count != x.ndim:
            raise TypingError("window_shape must have the same length as x.shape when axis is None")
        return _sliding_window_impl(x.ndim, window_rank, "none", count)
    if is_integer(axis) and count == 1:
        return _sliding_window_impl(x.ndim, window_rank, "int", count)
    if _integer_tuple(axis) and len(axis) == count:
        return _sliding_window_impl(x.ndim, window_rank, "tuple", count)
    return None


# ---------------------------------------------------------------------------- flip


@np_typer(np.flip, "m")
def _type_flip(m):
    if not is_array(m):
        raise TypingError(f"Cannot np.flip on {m} type: np.flip takes an array")
    if m.ndim == 0:  # NumPy's m[()]: the element
        return types.element_value_type(m.dtype)
    return m.copy(layout="A")


@lower_builtin(np.flip, types.Array)
def np_flip(context, builder, sig, args):
    """A view with every axis reversed (of a 0-d array: its element)."""
    fields = arr.unpack(builder, sig.args[0], args[0])
    if sig.args[0].ndim == 0:
        dtype = sig.args[0].dtype
        item = arr.load_item(builder, dtype, fields.data)
        return context.cast(builder, item, dtype, sig.return_type)
    data = fields.data
    strides = []
    for dim, stride in zip(fields.shape, fields.strides):
        last = builder.sub(dim, const(1))
        positive = builder.icmp_signed(">", dim, const(0))
        data = arr.offset_pointer(builder, data, builder.select(positive, builder.mul(last,
                                                                                      stride),
                                                                const(0)))  # fmt: skip
        strides.append(builder.neg(stride))
    view = ArrayFields(fields.meminfo, fields.parent, fields.nitems, fields.itemsize, data,
                       list(fields.shape), strides)  # fmt: skip
    arr.nrt_incref_fields(builder, view)
    return arr.pack(builder, sig.return_type, view)
