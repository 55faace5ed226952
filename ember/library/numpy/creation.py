"""Array creation: np.empty, zeros, ones, full (and their `_like`), arange, linspace, eye,
identity, copy, array/asarray/ascontiguousarray of arrays, geomspace, and `a.copy()`.

Every function allocates through the runtime (ember/runtime/nrt.py) and returns a new
reference.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.builtins.int_scalars import cast_stored
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    constant_bool,
    is_none,
    is_number,
    np_typer,
    numpy_dtype,
    parse_dtype,
    refuse_complex_to_real,
)
from ember.lowering import arrays as arr
from ember.lowering import arrays_kernels as kernels
from ember.lowering.registry import VarArgs, lower_builtin

# ---------------------------------------------------------------------------- shapes


def shape_ndim(shape: types.Type) -> int | None:
    """The number of dimensions a `shape` argument gives (an int or a tuple of ints)."""
    shape = types.unliteral(shape)
    if _is_extent(shape):
        return 1
    if isinstance(shape, types.BaseTuple) and all(map(_is_extent, shape.types)):
        return len(shape)
    return None


def _is_extent(t: types.Type) -> bool:
    """An integer, or an IntEnum member (an integer too: Shape.ROWS as a dimension)."""
    t = types.unliteral(t)
    if isinstance(t, types.IntEnumMember):
        t = t.dtype
    return isinstance(t, types.Integer)


def shape_values(context, builder, shape_type: types.Type, value) -> list:
    if isinstance(shape_type, types.BaseTuple):
        return [
            context.cast(builder, builder.extract_value(value, i), t, types.int64)
            for i, t in enumerate(shape_type.types)
        ]
    return [context.cast(builder, value, shape_type, types.int64)]


def _fill(context, builder, array_type, result, item) -> None:
    fields = arr.unpack(builder, array_type, result)
    kernels.elementwise(context, builder, array_type, fields, [], lambda b, items: item)


def _zero(builder, array_type, result) -> None:
    fields = arr.unpack(builder, array_type, result)
    arr.memset_zero(builder, fields.data, builder.mul(fields.nitems, fields.itemsize))


# ---------------------------------------------------------------------------- empty, zeros...


def _creation(name: str, params: str, fill: str) -> None:
    function = getattr(np, name)

    @np_typer(function, params)
    def _typer(shape, *rest):
        ndim = shape_ndim(shape)
        if ndim is None:
            return None
        if name == "full":
            fill_value, dtype = rest
            fill_type = types.unliteral(fill_value)
            if not isinstance(fill_type, types.Number):
                return None
            dtype = parse_dtype(dtype, fill_type, name)  # np.full(n, np.int32(1)): int32
        else:
            dtype = parse_dtype(rest[0], function=name)
        if fill in ("one", "value") and isinstance(dtype, types.Record):
            raise TypingError(
                f"np.{name}() of {dtype} is not supported (ember fills arrays of numbers and "
                "booleans): make it with np.zeros or np.empty and assign each field"
            )
        return types.Array(dtype, ndim, "C")

    @lower_builtin(function, VarArgs(types.Type))
    def _lower(context, builder, sig, args):
        array_type = sig.return_type
        shape = shape_values(context, builder, sig.args[0], args[0])
        result = arr.allocate(context, builder, array_type, shape)
        _initialize(context, builder, sig, args, result, fill)
        return result


_creation("empty", "shape, dtype=None", "none")
_creation("zeros", "shape, dtype=None", "zero")
_creation("ones", "shape, dtype=None", "one")
_creation("full", "shape, fill_value, dtype=None", "value")


def _like(name: str, params: str, fill: str) -> None:
    function = getattr(np, name)

    @np_typer(function, params)
    def _typer(prototype, *rest):
        if is_number(prototype) or isinstance(prototype, types.Record):
            prototype = types.Array(types.unliteral(prototype), 0, "C")  # a scalar: 0-d
        if not isinstance(prototype, types.Array):
            return None
        numbers = isinstance(prototype.dtype, types.Number | types.Boolean)
        if fill in ("one", "value") and not numbers:
            raise TypingError(
                f"np.{name}() of an array of {prototype.dtype} is not supported (ember fills "
                "arrays of numbers and booleans): use np.empty_like or np.zeros_like"
            )
        if name == "full_like":
            fill_value, dtype = rest
            if not isinstance(types.unliteral(fill_value), types.Number):
                return None
        else:
            dtype = rest[0]
        dtype = parse_dtype(dtype, prototype.dtype, name)
        layout = "F" if prototype.layout == "F" else "C"
        return types.Array(dtype, prototype.ndim, layout)

    @lower_builtin(function, VarArgs(types.Type))
    def _lower(context, builder, sig, args):
        array_type = sig.return_type
        shape = []
        if isinstance(sig.args[0], types.Array):
            shape = arr.unpack(builder, sig.args[0], args[0]).shape
        result = arr.allocate(context, builder, array_type, shape, order=array_type.layout)
        _initialize(context, builder, sig, args, result, fill)
        return result


_like("empty_like", "prototype, dtype=None", "none")
_like("zeros_like", "prototype, dtype=None", "zero")
_like("ones_like", "prototype, dtype=None", "one")
_like("full_like", "prototype, fill_value, dtype=None", "value")


# ---------------------------------------------------------------------------- copies


@np_typer(np.copy, "a")
def _type_copy(a):
    if isinstance(a, types.Array):
        return types.Array(a.dtype, a.ndim, "F" if a.layout == "F" else "C")
    return None


@lower_builtin(np.copy, types.Array)
def np_copy(context, builder, sig, args):
    order = sig.return_type.layout
    return kernels.copy_array(context, builder, sig.args[0], args[0], order=order)


@overload(np.copy, jit_options=NUMPY_ERRORS)
def _copy_of_array_like(a):
    """np.copy of a number, tuple or list: the new array NumPy makes of it."""
    plain = (types.Number, types.Boolean, types.BaseTuple, types.List)
    return (lambda a: np.asarray(a)) if isinstance(types.unliteral(a), plain) else None


@np_typer((types.Array, "copy"), "self")
def _type_method_copy(a):
    return a.copy(layout="C", readonly=False)


@lower_builtin((types.Array, "copy"), types.Array)
def array_copy(context, builder, sig, args):
    return kernels.copy_array(context, builder, sig.args[0], args[0])


@np_typer(np.asarray, "a, dtype=None")
def _type_asarray(a, dtype):
    if isinstance(a, types.Array):
        if is_none(dtype) or parse_dtype(dtype) is a.dtype:
            return a
        refuse_complex_to_real("np.asarray", a.dtype, parse_dtype(dtype))
        # NumPy's order='K': a Fortran array's copy is Fortran too
        return types.Array(parse_dtype(dtype), a.ndim, "F" if a.layout == "F" else "C")
    return None


@lower_builtin(np.asarray, types.Array, types.Type)
def np_asarray(context, builder, sig, args):
    if sig.return_type is sig.args[0]:
        arr.incref(builder, sig.args[0], args[0])
        return args[0]
    out_type = sig.return_type
    return kernels.copy_array(
        context, builder, sig.args[0], args[0], out_type.dtype, order=out_type.layout
    )


@np_typer(np.ascontiguousarray, "a, dtype=None")
def _type_ascontiguous(a, dtype):
    if isinstance(a, types.Array):
        return types.Array(parse_dtype(dtype, default=a.dtype), max(a.ndim, 1), "C")
    return None


@lower_builtin(np.ascontiguousarray, types.Array, types.Type)
def np_ascontiguousarray(context, builder, sig, args):
    array_type, value = sig.args[0], args[0]
    if array_type.ndim == 0:  # NumPy returns a 1-element 1-d array
        fields = arr.unpack(builder, array_type, value)
        fields.shape, fields.strides = [arr.const(1)], [fields.itemsize]
        array_type = array_type.copy(ndim=1, layout="C")  # one item: contiguous, shared
        value = arr.pack(builder, array_type, fields)
    if array_type.layout == "C" and array_type.dtype is sig.return_type.dtype:
        arr.incref(builder, array_type, value)
        return value
    return kernels.copy_array(context, builder, array_type, value, sig.return_type.dtype)


@np_typer(np.array, "object, dtype=None")
def _type_array(obj, dtype):
    obj = types.unliteral(obj)
    if is_none(obj):
        raise TypingError('The argument "object" must be array-like')
    if isinstance(obj, types.Array):  # NumPy's order='K': a Fortran array's copy is Fortran
        layout = "F" if obj.layout == "F" else "C"
        return types.Array(parse_dtype(dtype, obj.dtype, "array"), obj.ndim, layout)
    items = nested_items(obj)
    if items is None:
        return None
    shape, leaves = items
    from ember.typing.conversions import unify_pair

    common = leaves[0] if leaves else types.float64
    for leaf in leaves[1:]:
        common = unify_pair(common, leaf)
        if common is None:
            return None
    if isinstance(common, types.Integer) and common.bitwidth < 64:
        common = types.int64 if common.signed else common
    return types.Array(parse_dtype(dtype, common, "array"), len(shape), "C")


def nested_items(typ) -> tuple | None:
    """(shape, leaf types) of a number or a rectangular nest of tuples of numbers."""
    typ = types.unliteral(typ)
    if isinstance(typ, types.Number):
        return (), [typ]
    if not isinstance(typ, types.BaseTuple):
        return None
    if len(typ) == 0:
        return (0,), []
    inner = [nested_items(t) for t in typ.types]
    if None in inner or len({shape for shape, _ in inner}) != 1:
        return None
    return (len(typ), *inner[0][0]), [leaf for _, leaves in inner for leaf in leaves]


@lower_builtin(np.array, types.Type, types.Type)
def np_array_from_tuples(context, builder, sig, args):
    array_type = sig.return_type
    shape, _ = nested_items(sig.args[0])
    result = arr.allocate(context, builder, array_type, [arr.const(n) for n in shape])
    fields = arr.unpack(builder, array_type, result)
    for flat, (path, leaf_type) in enumerate(_leaf_paths(sig.args[0])):
        item = builder.extract_value(args[0], list(path)) if path else args[0]
        item = context.cast(builder, item, leaf_type, array_type.dtype)
        pointer = builder.gep(
            fields.data,
            [arr.const(flat)],
            inbounds=True,
            source_etype=context.data_type(array_type.dtype),
        )
        arr.store_item(builder, array_type.dtype, item, pointer)
    return result


@lower_builtin(np.array, types.Array, types.Type)
def np_array_copy(context, builder, sig, args):
    out_type = sig.return_type
    return kernels.copy_array(
        context, builder, sig.args[0], args[0], out_type.dtype, order=out_type.layout
    )


def _leaf_paths(typ, prefix=()):
    typ = types.unliteral(typ)
    if isinstance(typ, types.BaseTuple):
        for index, member in enumerate(typ.types):
            yield from _leaf_paths(member, (*prefix, index))
    else:
        yield prefix, typ


# ---------------------------------------------------------------------------- ranges


@functools.cache
def _arange_impl(kind: str, dtype_name: str):
    np_type = np.dtype(dtype_name).type
    if kind == "int":

        def impl(start, stop, step, dtype):
            if step == 0:
                raise ZeroDivisionError("arange: step is zero")
            if step > 0:
                n = (stop - start + step - 1) // step
            else:
                n = (start - stop - step - 1) // (-step)
            if n < 0:
                n = 0
            out = np.empty(n, np_type)
            value = start
            for i in range(n):
                out[i] = value
                value += step
            return out

    elif kind == "complex":

        def impl(start, stop, step, dtype):
            if step == 0:
                raise ZeroDivisionError("arange: step is zero")
            span = (stop - start) / step  # NumPy: the shorter of the real and imaginary counts
            n = min(int(math.ceil(span.real)), int(math.ceil(span.imag)))
            if n < 0:
                n = 0
            out = np.empty(n, np_type)
            for i in range(n):
                out[i] = start + i * step
            return out

    else:

        def impl(start, stop, step, dtype):
            if step == 0:
                raise ZeroDivisionError("arange: step is zero")
            # in floats, as NumPy: integer bounds (a uint64 with an int64) would wrap
            first, step = float(start), float(step)
            n = int(math.ceil((float(stop) - first) / step))
            if n < 0:
                n = 0
            out = np.empty(n, np_type)
            # NumPy's fill: the second value is first + step, the others first + i * delta
            # with delta the difference of those two (3.0, 2.3, 1.5999999999999996, ...)
            delta = (first + step) - first
            for i in range(n):
                out[i] = first + step if i == 1 else first + i * delta
            return out

    return impl


@functools.cache
def _arange_stop_impl(kind: str, dtype_name: str, has_step: bool):
    """`np.arange(stop)`, `np.arange(stop, step=s)` and `np.arange(stop, None, s)`."""
    full = njit(**NUMPY_ERRORS)(_arange_impl(kind, dtype_name))
    if has_step:

        def impl(stop, unused_stop, step, dtype):
            return full(0, stop, step, dtype)

    else:

        def impl(stop, unused_stop, unused_step, dtype):
            return full(0, stop, 1, dtype)

    return impl


@overload(np.arange, jit_options=NUMPY_ERRORS)
def _select_arange(start, stop=None, step=None, dtype=None):
    stop = as_type(stop)
    step = as_type(step)
    dtype = as_type(dtype)
    numbers = [types.unliteral(t) for t in (start, stop, step) if not is_none(t)]
    if not all(isinstance(t, types.Number) for t in numbers):
        return None
    from ember.typing.conversions import unify_pair

    common = types.int64
    for t in numbers:
        common = unify_pair(common, t) if not isinstance(t, types.Boolean) else common
    result = parse_dtype(dtype, default=common)
    kind = {types.Integer: "int", types.Complex: "complex"}.get(type(common), "float")
    if is_none(stop):
        return _arange_stop_impl(kind, numpy_dtype(result).name, not is_none(step))
    impl = _arange_impl(kind, numpy_dtype(result).name)
    if is_none(step):
        return _with_default_step(impl)
    return impl


@functools.cache
def _with_default_step(impl_with_step):
    full = njit(**NUMPY_ERRORS)(impl_with_step)

    def impl(start, stop, step, dtype):
        return full(start, stop, 1, dtype)

    return impl


def _linspace_impl(dtype):
    def linspace(start, stop, num, endpoint):
        return _linspace_into(np.empty(num if num > 0 else 0, dtype), start, stop, num, endpoint)

    return linspace


def _linspace_into(out, start, stop, num, endpoint):
    if num < 0:
        raise ValueError("Number of samples must be non-negative.")
    div = num - 1 if endpoint else num
    delta = stop - start
    if div > 0:
        step = delta / div
        for i in range(num):
            out[i] = i * step + start
        if endpoint and num > 1:
            out[num - 1] = stop
    elif num == 1:
        out[0] = start
    return out


_linspace_into = njit(**NUMPY_ERRORS)(_linspace_into)


@overload(np.linspace, jit_options=NUMPY_ERRORS)
def _select_linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None):
    num, endpoint = as_type(num), as_type(endpoint)
    dtype = as_type(dtype)
    bounds = [types.unliteral(t) for t in (start, stop)]
    if not all(isinstance(t, types.Integer | types.Float | types.Complex) for t in bounds):
        return None
    if not isinstance(types.unliteral(num), types.Integer):
        return None
    # float64 (or complex128) whatever the bounds' width, as Numba (NumPy 2 keeps float32)
    complex_bounds = any(isinstance(t, types.Complex) for t in bounds)
    retstep = constant_bool(retstep, "np.linspace: retstep")
    computed = np.complex128 if complex_bounds else np.float64
    wanted = numpy_dtype(parse_dtype(dtype, types.complex128 if complex_bounds else types.float64))
    return _linspace_forms(computed, wanted, retstep)


@functools.cache
def _linspace_forms(computed: np.dtype, wanted: np.dtype, retstep: bool):
    """linspace(dtype=) (integers floored, as NumPy 2 does) and linspace(retstep=True)."""
    values = njit(**NUMPY_ERRORS)(_linspace_impl(computed))
    if wanted == computed and not retstep:
        return lambda start, stop, num=50, endpoint=True, retstep=False, dtype=None: values(
            start, stop, num, endpoint
        )
    integral = wanted.kind in "iu"

    @njit(**NUMPY_ERRORS)
    def converted(start, stop, num, endpoint):
        out = values(start, stop, num, endpoint)
        return (np.floor(out) if integral else out).astype(wanted)

    if not retstep:
        return lambda start, stop, num=50, endpoint=True, retstep=False, dtype=None: converted(
            start, stop, num, endpoint
        )

    def with_step(start, stop, num=50, endpoint=True, retstep=False, dtype=None):
        div = num - 1 if endpoint else num
        step = (stop - start) / div if div > 0 else np.nan
        return converted(start, stop, num, endpoint), step

    return with_step


def _geomspace(start, stop, num, endpoint):
    if start == 0 or stop == 0:
        raise ValueError("Geometric sequence cannot include zero")
    sign = 1.0
    if start < 0 and stop < 0:
        start, stop, sign = -start, -stop, -1.0
    out = 10.0 ** np.linspace(np.log10(start), np.log10(stop), num, endpoint)
    if num > 0:
        out[0] = start  # exact ends, as NumPy sets them
        if endpoint and num > 1:
            out[num - 1] = stop
    return out * sign


def _geomspace_complex(start, stop, num, endpoint):
    """NumPy's complex geomspace: start turned onto the positive reals, the sequence spaced
    there by logarithms, then turned back."""
    start, stop = complex(start), complex(stop)
    if start == 0 or stop == 0:
        raise ValueError("Geometric sequence cannot include zero")
    sign = start / abs(start)
    start, stop = start / sign, stop / sign
    out = 10.0 ** np.linspace(np.log10(start), np.log10(stop), num, endpoint)
    if num > 0:
        out[0] = start
        if endpoint and num > 1:
            out[num - 1] = stop
    return out * sign


@overload(np.geomspace, jit_options=NUMPY_ERRORS)
def _select_geomspace(start, stop, num=50, endpoint=True):
    num, endpoint = as_type(num), as_type(endpoint)
    bounds = [types.unliteral(t) for t in (start, stop)]
    if not isinstance(types.unliteral(num), types.Integer):
        return None
    if not all(isinstance(t, (types.Integer, types.Float, types.Complex)) for t in bounds):
        return None
    if any(isinstance(t, types.Complex) for t in bounds):
        return _geomspace_complex
    return _geomspace


def _eye_fill(out, k):
    rows, columns = out.shape
    for i in range(rows):
        j = i + k
        if 0 <= j < columns:
            out[i, j] = 1
    return out


@functools.cache
def _eye_impl(dtype_name: str, square: bool):
    np_type = np.dtype(dtype_name).type
    fill = njit(**NUMPY_ERRORS)(_eye_fill)
    if square:

        def impl(N, M, k, dtype):
            return fill(np.zeros((N, N), np_type), k)

    else:

        def impl(N, M, k, dtype):
            return fill(np.zeros((N, M), np_type), k)

    return impl


@overload(np.eye, jit_options=NUMPY_ERRORS)
def _select_eye(N, M=None, k=0, dtype=None):
    M = as_type(M)
    k = as_type(k)
    dtype = as_type(dtype)
    if not isinstance(types.unliteral(N), types.Integer):
        return None
    if not (is_none(M) or isinstance(types.unliteral(M), types.Integer)):
        return None
    result = parse_dtype(dtype)
    return _eye_impl(numpy_dtype(result).name, is_none(M))


@functools.cache
def _identity_impl(dtype_name: str):
    eye = njit(**NUMPY_ERRORS)(_eye_impl(dtype_name, True))

    def impl(n, dtype):
        return eye(n, None, 0, dtype)

    return impl


@overload(np.identity, jit_options=NUMPY_ERRORS)
def _select_identity(n, dtype=None):
    dtype = as_type(dtype)
    if not isinstance(types.unliteral(n), types.Integer):
        return None
    return _identity_impl(numpy_dtype(parse_dtype(dtype, function="identity")).name)


def _initialize(context, builder, sig, args, result, fill: str) -> None:
    """Fill a new array as its creation function asks: zeros, ones, args[1], or nothing."""
    array_type = sig.return_type
    if fill == "zero":
        _zero(builder, array_type, result)
    elif fill == "one":
        _fill(context, builder, array_type, result, context.get_constant(array_type.dtype, 1))
    elif fill == "value":
        item = cast_stored(context, builder, args[1], sig.args[1], array_type.dtype)
        _fill(context, builder, array_type, result, item)
