"""`ufunc.reduce(array, axis=0, dtype=None, initial=None, keepdims=False, out=None, where=True)`
in jitted code,
for NumPy's binary ufuncs, @vectorize ufuncs and DUFuncs (Numba's DUFunc.reduce): the kernel
folds each line along `axis` (an int, negative allowed, or None for all axes) from `initial`,
or the ufunc's identity for an empty line, else the line's first element; the result is an
array of the other axes, or a scalar for a 1-d array or axis=None (keepdims=True: the reduced
axes kept with length 1; `out=`, `where=` and keepdims over a tuple of axes: jit_reduce_options)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ember import types
from ember.errors import TypingError
from ember.typing.overload import overload_method
from ember.ufuncs import jit_reduce_options as options
from ember.ufuncs.jit_reduce_options import absent

_EMPTY = "zero-size array to reduction operation which has no identity"


def reducible_ufunc(fnty: types.Type) -> Any:
    """The ufunc behind a Function type (NumPy's own, @vectorize's or a DUFunc), else None."""
    from ember.ufuncs.vectorize import DUFunc

    key = getattr(fnty, "typing_key", None)
    return key if isinstance(key, (np.ufunc, DUFunc)) else None


def numpy_fold_dtype(ufunc: Any, method: str, array: types.Array) -> np.dtype | None:
    """The dtype one of NumPy's own ufuncs folds an array in when not its own (add and
    multiply fold small integers and booleans in int64, logical_and any array in bool, divide
    integers in float64); None when the same, or for ember's ufuncs (their loops say).
    TypingError with NumPy's words when NumPy has no loop for the array's dtype."""
    from ember.library.numpy.support import numpy_dtype

    if not isinstance(ufunc, np.ufunc) or "_ember_reduce" in getattr(ufunc, "__dict__", {}):
        return None
    given = numpy_dtype(array.dtype)
    try:  # NumPy resolves the fold's loop on one element
        found = np.asarray(ufunc.reduce(np.ones(1, given))).dtype
    except (TypeError, ValueError) as error:
        raise TypingError(f"{ufunc.__name__}.{method}: {error}") from None
    return None if found == given else found


def identity_of(ufunc: Any) -> Any:
    """The ufunc's identity as a Python number (None when it has none)."""
    identity = ufunc.identity
    return identity if isinstance(identity, (int, float)) else None


@overload_method(types.Function, "reduce")
def _ufunc_reduce(
    fnty, array, axis=0, dtype=None, initial=None, keepdims=False, out=None, where=True
):
    ufunc = reducible_ufunc(fnty)
    if ufunc is None:
        return None
    keeps = _keeps_dims(ufunc, keepdims)
    if keeps is None:  # a bool known only when run: the literal pass of the overload may know
        return None
    if _numpys_positional_order(initial, out):
        return _swapped_out_and_initial(ufunc, keeps, options.masked(where))
    axis = types.unliteral(axis) if isinstance(axis, types.Type) else axis
    if not absent(out) or options.masked(where) or (keeps and isinstance(axis, types.BaseTuple)):
        return _reduce_with_options(ufunc, array, axis, dtype, initial, keeps, out, where)
    if keeps:
        if not isinstance(array, types.Array):
            raise TypingError('The first argument "array" must be array-like')  # Numba's words
        return _make_keepdims_reduce(ufunc, array.ndim, absent(axis))
    if ufunc.nin != 2 or ufunc.nout != 1:
        raise TypingError(f"reduce only supported for binary functions, not {ufunc.__name__}")
    if not isinstance(array, types.Array):
        raise TypingError('The first argument "array" must be array-like')  # Numba's words
    if isinstance(axis, int) or isinstance(axis, types.Omitted):  # not given: the default 0
        axis = types.int64
    if isinstance(axis, types.NoneType) and array.ndim > 1 and not _reorderable(ufunc):
        raise TypingError(_not_reorderable(ufunc))
    if isinstance(axis, types.BaseTuple):
        if not all(isinstance(t, types.Integer) for t in axis.types):
            raise TypingError(f"{ufunc.__name__}.reduce: axis must hold ints, not {axis}")
        if len(axis.types) > 1 and not _reorderable(ufunc):
            raise TypingError(_not_reorderable(ufunc))
        count = len(axis.types)
        fold = numpy_fold_dtype(ufunc, "reduce", array) if count == 0 and absent(dtype) else None
        return _make_multi_axis_reduce(ufunc, array.ndim, count, absent(dtype), fold)
    if not (absent(axis) or isinstance(axis, types.Integer)):
        raise TypingError(f"{ufunc.__name__}.reduce: axis must be an int or None, not {axis}")
    if absent(dtype):
        folded = numpy_fold_dtype(ufunc, "reduce", array)
        element, result = (None, None) if folded is None else _loop_dtypes(ufunc, array, folded)
    else:
        element, result = _loop_dtypes(ufunc, array, _numpy_dtype_of(dtype))
    return _make_reduce(ufunc, array.ndim, absent(axis), element, result, absent(initial))


def _numpys_positional_order(initial: Any, out: Any) -> bool:
    """NumPy's order is `reduce(array, axis, dtype, out, keepdims, initial, where)`, Numba's
    `reduce(array, axis, dtype, initial)`: the overload takes Numba's, so an array (or None)
    fourth and a number sixth were passed in NumPy's order."""
    fourth_is_out = isinstance(initial, types.Array)
    sixth_is_initial = isinstance(types.unliteral(out), (types.Number, types.Boolean))
    return (fourth_is_out and (absent(out) or sixth_is_initial)) or (
        sixth_is_initial and absent(initial)
    )


@functools.cache
def _swapped_out_and_initial(ufunc: Any, keeps: bool, masked: bool) -> Any:
    """The reduction with `initial` and `out` passed on where NumPy's positions put them
    (`where` only when it can mask: an unmasked call stays the plain reduction's)."""
    call = (
        "    return ufunc.reduce(array, axis=axis, dtype=dtype, initial=out, "
        f"keepdims={keeps}, out=initial{', where=where' if masked else ''})"
    )
    return options.compile_reduce(ufunc, [call])


def _reduce_with_options(ufunc, array, axis, dtype, initial, keeps, out, where) -> Any:
    """`out=`, `where=` or keepdims=True over a tuple of axes (jit_reduce_options)."""
    name = ufunc.__name__
    if ufunc.nin != 2 or ufunc.nout != 1:
        raise TypingError(f"reduce only supported for binary functions, not {name}")
    if not isinstance(array, types.Array):
        raise TypingError('The first argument "array" must be array-like')  # Numba's words
    kind, count = options.axis_kind(axis)
    if not absent(out):
        options.check_out(name, out, options.result_ndim(array.ndim, kind, count, keeps))
        return options.into_out(ufunc, array.ndim, kind, count, keeps, options.masked(where))
    if options.masked(where):
        if absent(initial) and identity_of(ufunc) is None:
            raise TypingError(
                f"reduction operation '{name}' does not have an identity, so to use a where "
                "mask one has to specify 'initial'"
            )  # NumPy's words
        if absent(dtype):
            result = numpy_fold_dtype(ufunc, "reduce", array)
        else:
            result = _numpy_dtype_of(dtype)
        start = "identity" if absent(initial) else "initial"
        return options.masked_reduce(ufunc, array.ndim, kind, count, keeps, start, result)
    return options.keepdims_over_tuple(ufunc, array.ndim, count)


def _keeps_dims(ufunc: Any, keepdims: Any) -> bool | None:
    """Whether `keepdims=` asks to keep the reduced axes (a constant: the result's ndim
    depends on it); None for a bool not known when typing."""
    if keepdims is None or isinstance(keepdims, (bool, types.Omitted, types.NoneType)):
        return keepdims is True
    if isinstance(keepdims, types.BooleanLiteral):
        return bool(keepdims.literal_value)
    if isinstance(keepdims, types.Boolean):
        return None
    raise TypingError(
        f"{ufunc.__name__}.reduce: keepdims must be a constant True or False in compiled code "
        f"(the result's dimensions depend on it), not {keepdims}"
    )


@functools.cache
def _make_keepdims_reduce(ufunc: Any, ndim: int, all_axes: bool):
    """The reduction, then the reduced axes put back with length 1 (NumPy's keepdims)."""
    lines = ["    r = ufunc.reduce(array, axis=axis, dtype=dtype, initial=initial)"]
    if all_axes or ndim == 1:
        ones = ", ".join(["1"] * ndim)
        lines.append(f"    return np.full(({ones},), r)")
    else:
        lines.append(f"    k = axis if axis >= 0 else axis + {ndim}")
        lines.append("    return np.expand_dims(r, k)")
    return _compile_impl(ufunc, lines)


def _numpy_dtype_of(dtype: types.Type) -> np.dtype:
    """The NumPy dtype a `dtype=` argument's type names."""
    from ember.library.numpy.support import numpy_dtype, parse_dtype

    return numpy_dtype(parse_dtype(dtype))


def _loop_dtypes(ufunc: Any, array: types.Array, result: np.dtype) -> tuple:
    """(the elements' dtype, the accumulator's) of a reduction in `result`: NumPy folds in
    `result` with a loop (result, X) -> result, the elements cast to X: the array's own dtype
    when such a loop exists (`float64(float64, int64)` reduces int64 arrays as they are),
    else one the array casts to safely, else `result` itself."""
    from ember.library.numpy.support import from_numpy_dtype, numpy_dtype

    from_numpy_dtype(result)  # a dtype ember lacks (float16) fails here, with its name
    given = numpy_dtype(array.dtype)
    seconds = []
    for loop in ufunc.types:
        inputs, output = loop.split("->")
        first, second = (np.dtype(code) for code in inputs)
        if first == result and np.dtype(output) == result:
            seconds.append(second)
    for second in sorted(seconds, key=lambda d: d != given):
        if np.can_cast(given, second, "safe"):
            return second, result
    return result, result


def _not_reorderable(ufunc: Any) -> str:
    """NumPy's (and Numba's) message for a reduction over several axes without an identity."""
    return (
        f"reduction operation '{ufunc.__name__}' is not reorderable, so at most one axis may "
        "be specified"
    )


def _reorderable(ufunc: Any) -> bool:
    """Whether the lines may be folded in any order: a ufunc with an identity (or declared
    identity='reorderable')."""
    from ember.ufuncs.capi import IDENTITY_CODES, _head
    from ember.ufuncs.vectorize import DUFunc

    if isinstance(ufunc, DUFunc):
        return ufunc._identity is not None
    return _head(ufunc).identity != IDENTITY_CODES[None]


@functools.cache  # one implementation per ufunc and typing (the overload's contract)
def _make_multi_axis_reduce(ufunc: Any, ndim: int, count: int, same_dtype: bool, fold=None):
    """Reduce over a tuple of axes: one axis at a time, the highest first, so the others keep
    their positions; `initial` joins the first step only (once per result element). `fold`:
    the dtype NumPy folds in, for the empty tuple (a copy in that dtype)."""
    cast = "array" if same_dtype else "array.astype(dtype)"
    if fold is not None:
        cast = "array.astype(result)"
    lines = [f"    a = {cast}"]
    if count == 0:
        lines.append("    return a.copy()")
    names = [f"k{j}" for j in range(count)]
    for j, name in enumerate(names):
        lines += [
            f"    {name} = axis[{j}] if axis[{j}] >= 0 else axis[{j}] + {ndim}",
            f"    if {name} < 0 or {name} >= {ndim}:",
            "        raise ValueError('Invalid axis')",
        ]
    for j in range(count):
        for i in range(j):
            lines += [
                f"    if {names[i]} == {names[j]}:",
                "        raise ValueError(\"duplicate value in 'axis'\")",
            ]
    for j in range(count):  # a sorting network: descending order
        for i in range(count - 1 - j):
            a, b = names[i], names[i + 1]
            lines.append(f"    if {a} < {b}:")
            lines.append(f"        {a}, {b} = {b}, {a}")
    if count:
        lines.append(f"    r0 = ufunc.reduce(a, axis={names[0]}, initial=initial)")
        for j in range(1, count):
            lines.append(f"    r{j} = ufunc.reduce(r{j - 1}, axis={names[j]})")
        lines.append(f"    return r{count - 1}")
    return _compile_impl(ufunc, lines, result=fold)


@functools.cache
def _make_reduce(ufunc: Any, ndim: int, all_axes: bool, element, result, no_initial: bool):
    """`element`, `result`: the dtypes the elements are cast to and the fold runs in (None:
    the array's own)."""
    identity = identity_of(ufunc)
    cast = "array" if element is None else "array.astype(element)"
    result_dtype = "a.dtype" if result is None else "result"
    convert = "" if result is None or result == element else "result_scalar"
    start = "identity" if no_initial else "initial"
    # the start value as the result's dtype (NumPy casts initial so)
    start_cell = [
        f"    cell = np.empty(1, dtype={result_dtype})",
        f"    cell[0] = {start}",
        "    first = cell[0]",
    ]
    if not no_initial or identity is not None:
        a_lines = start_cell
    else:
        a_lines = []
    if all_axes or ndim == 1:
        lines = [
            f"    a = np.ascontiguousarray({cast}).ravel()",
            *a_lines,
            *_scalar_fold("a", "first", no_initial, identity, convert),
        ]
    else:
        # the axis between the axes before it (pre) and after it (post), C order
        shape_items = ", ".join(f"s[{j}] if {j} < k else s[{j + 1}]" for j in range(ndim - 1))
        lines = [
            f"    k = axis if axis >= 0 else axis + {ndim}",
            f"    if k < 0 or k >= {ndim}:",
            "        raise ValueError('Invalid axis')",
            f"    a = np.ascontiguousarray({cast})",
            *a_lines,
            *axis_split_lines(ndim),
            *(
                ["    if n == 0:", f"        raise ValueError({_EMPTY!r})"]
                if no_initial and identity is None
                else []
            ),
            "    lines = a.reshape((pre, n, post))",
            f"    out = np.empty((pre, post), dtype={result_dtype})",
            "    for p in range(pre):",
            "        for q in range(post):",
            *[
                "        " + line
                for line in _scalar_fold("lines[p, :, q]", "first", no_initial, identity, convert)
                if not line.strip().startswith("return")
            ],
            "            out[p, q] = acc",
            f"    return out.reshape(({shape_items},))",
        ]
    return _compile_impl(ufunc, lines, element, result)


def _compile_impl(ufunc: Any, lines: list[str], element=None, result=None):
    """The implementation function whose body is `lines` (generated per array ndim, as the
    result's shape has one entry fewer)."""
    extra = {} if result is None else {"element": element, "result_scalar": result.type}
    return options.compile_reduce(ufunc, lines, result, extra)


def _scalar_fold(
    line: str, start: str, no_initial: bool, identity: Any, convert: str = ""
) -> list[str]:
    """Statements folding the 1-d `line` into `acc` (then returning it); `convert` names the
    scalar type a first element starting the fold becomes."""
    head = [f"    values = {line}", "    count = values.shape[0]"]
    if not no_initial or identity is not None:
        return [*head, f"    acc = {start}", "    for i in range(count):",
                "        acc = ufunc(acc, values[i])", "    return acc"]  # fmt: skip
    return [
        *head,
        "    if count == 0:",
        f"        raise ValueError({_EMPTY!r})",
        f"    acc = {convert}(values[0])" if convert else "    acc = values[0]",
        "    for i in range(1, count):",
        "        acc = ufunc(acc, values[i])",
        "    return acc",
    ]


def axis_split_lines(ndim: int) -> list[str]:
    """Generated lines viewing `a` (of `ndim` dimensions) around axis `k`: `s` its shape, `pre`
    and `post` the products of the lengths before and after the axis, `n` the axis's length."""
    return [
        "    s = a.shape",
        "    pre = 1",
        "    post = 1",
        f"    for j in range({ndim}):",
        "        if j < k:",
        "            pre *= s[j]",
        "        elif j > k:",
        "            post *= s[j]",
        "    n = s[k]",
    ]
