"""Tensor contractions, written in Python and compiled by ember: np.einsum (subscripts parsed at
compile time into nested loops) and np.tensordot (transposed and reshaped onto one np.dot)."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.manipulation import generated
from ember.library.numpy.support import NUMPY_ERRORS, is_array, is_integer, numpy_dtype

# ---------------------------------------------------------------------------- einsum


_ELLIPSIS = "..."


def _parse_subscripts(subscripts: str, ranks: tuple[int, ...]) -> tuple[list[str], str]:
    """The input terms and the output term of `subscripts` (implicit output: the broadcast
    ('...') labels, then the labels seen once in alphabetical order, as NumPy); '...' becomes
    one label per dimension it covers (right-aligned across the operands, as broadcasting);
    TypingError for what NumPy would refuse."""
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ranks):
        raise TypingError(f"np.einsum: {len(terms)} operand subscripts for {len(ranks)} operands")
    for term in [*terms, output]:
        if not all(label.isalpha() for label in term.replace(_ELLIPSIS, "", 1)):
            raise TypingError(f"np.einsum: invalid subscript in {subscripts!r}")
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in text]
    covered = [_ellipsis_extent(term, rank) for term, rank in zip(terms, ranks, strict=True)]
    broadcast = "".join(spare[: max(0, *covered)])
    terms = [
        term.replace(_ELLIPSIS, broadcast[len(broadcast) - count :]) if count >= 0 else term
        for term, count in zip(terms, covered, strict=True)
    ]
    labels = "".join(terms)
    if not arrow:
        once = sorted(label for label in set(labels) if labels.count(label) == 1)
        output = broadcast + "".join(label for label in once if label not in broadcast)
    elif _ELLIPSIS in output:
        output = output.replace(_ELLIPSIS, broadcast)
    elif broadcast:
        raise TypingError(
            "np.einsum: output has more dimensions than subscripts given in einstein sum, "
            "but no '...' ellipsis provided to broadcast the extra dimensions."
        )
    for label in output:
        if label not in labels:
            raise TypingError(f"np.einsum: output subscript {label!r} is not in the inputs")
        if output.count(label) > 1:
            raise TypingError(f"np.einsum: output subscript {label!r} appears more than once")
    return terms, output


def _ellipsis_extent(term: str, rank: int) -> int:
    """How many dimensions the term's '...' covers (-1: no '...'); TypingError when the labels
    do not fit the operand's rank."""
    labels = len(term.replace(_ELLIPSIS, "", 1))
    if _ELLIPSIS in term:
        if labels > rank:
            raise TypingError(
                f"np.einsum: the subscript {term!r} has more labels than the operand's "
                f"{rank} dimensions"
            )
        return rank - labels
    if labels != rank:
        raise TypingError(
            f"np.einsum: the subscript {term!r} has {labels} labels for an operand of "
            f"{rank} dimensions"
        )
    return -1


def _einsum_source(terms: list[str], output: str) -> str:
    """Loops over the output labels (in the output's order), then the summed ones. A label's
    extent is the largest of its operands' sizes; an operand whose size is 1 there broadcasts
    (its index is multiplied by 0)."""
    lines = ["def einsum(subscripts, *operands):"]
    lines += [f"    op{k} = operands[{k}]" for k in range(len(terms))]
    uses: dict[str, list[str]] = {}
    for k, term in enumerate(terms):
        for axis, label in enumerate(term):
            uses.setdefault(label, []).append(f"op{k}.shape[{axis}]")
    shared = {label for label, sizes in uses.items() if len(sizes) > 1}
    for label, sizes in uses.items():
        lines.append(f"    n_{label} = max({', '.join(sizes)}, 1)" if len(sizes) > 1
                     else f"    n_{label} = {sizes[0]}")  # fmt: skip
        if label in shared:
            lines.append(f"    if {' or '.join(f'{s} == 0' for s in sizes)}:")
            lines.append(f"        n_{label} = 0")
            for size in sizes:
                lines.append(f"    if {size} != n_{label} and {size} != 1:")
                lines.append(
                    f"        raise ValueError('einsum: operands have different extents for "
                    f"subscript {label}')"
                )
    index_of = {}
    for k, term in enumerate(terms):
        for axis, label in enumerate(term):
            if label in shared:
                name = f"s{k}_{axis}"
                lines.append(f"    {name} = 0 if op{k}.shape[{axis}] == 1 else 1")
                index_of[(k, axis)] = f"{label} * {name}"
            else:
                index_of[(k, axis)] = label
    summed = [label for label in uses if label not in output]
    product = " * ".join(
        f"op{k}[{', '.join(index_of[(k, axis)] for axis in range(len(term)))},]"
        if term else f"op{k}[()]"
        for k, term in enumerate(terms)
    )  # fmt: skip
    if output:
        shape = ", ".join(f"n_{label}" for label in output)
        lines.append(f"    out = np.zeros(({shape},), DT)")
    else:
        lines.append("    total = DT(0)")
    indent = "    "
    for label in output:
        lines.append(f"{indent}for {label} in range(n_{label}):")
        indent += "    "
    if output:
        lines.append(f"{indent}total = DT(0)")
    for label in summed:
        lines.append(f"{indent}for {label} in range(n_{label}):")
        indent += "    "
    lines.append(f"{indent}total += {product}")
    if output:
        indent = "    " * (len(output) + 1)
        lines.append(f"{indent}out[{', '.join(output)},] = total")
        lines.append("    return out")
    else:
        lines.append("    return total")
    return "\n".join(lines) + "\n"


@functools.cache
def _einsum_impl(subscripts: str, ranks: tuple[int, ...], dtype: str):
    terms, output = _parse_subscripts(subscripts, ranks)
    return generated("einsum", _einsum_source(terms, output), DT=getattr(np, dtype))


@overload(np.einsum, jit_options=NUMPY_ERRORS)
def _select_einsum(subscripts, *operands):
    if not isinstance(subscripts, types.StringLiteral):
        if isinstance(subscripts, types.UnicodeType):
            return None  # typing retries with the constant string, if it is one
        return None
    if not operands or not all(is_array(op) or _plain_number(op) for op in operands):
        return None
    ranks = tuple(op.ndim if is_array(op) else 0 for op in operands)
    dtypes = [numpy_dtype(op.dtype if is_array(op) else types.unliteral(op)) for op in operands]
    dtype = np.result_type(*dtypes).name
    inner = _einsum_impl(subscripts.literal_value, ranks, dtype)
    if all(is_array(op) for op in operands):
        return inner
    return _with_arrays(len(operands), inner)


def _plain_number(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.Number, types.Boolean))


@functools.cache
def _with_arrays(count: int, inner):
    """Numbers among the operands become 0-d arrays."""
    from ember.decorators import njit

    args = ", ".join(f"np.asarray(operands[{k}])" for k in range(count))
    source = f"def einsum(subscripts, *operands):\n    return inner(subscripts, {args})\n"
    return generated("einsum", source, inner=njit(**NUMPY_ERRORS)(inner))


# ---------------------------------------------------------------------------- tensordot


@functools.cache
def _tensordot_impl(a_ndim: int, b_ndim: int, count: int, form: str, dtype: str):
    """Sum over `count` axes: a's chosen axes moved last, b's first, both flattened to 2-d
    for one np.dot. `form`: 'int' (a's last `count` axes with b's first) or 'pairs' (the
    axes as a tuple of two tuples)."""
    a_free, b_free = a_ndim - count, b_ndim - count
    lines = ["def tensordot(a, b, axes=2):"]
    if form == "int":
        lines.append(f"    sa = np.arange({a_free}, {a_ndim})")
        lines.append(f"    sb = np.arange(0, {count})")
    else:
        lines.append(f"    sa = normalized(axes[0], {a_ndim})")
        lines.append(f"    sb = normalized(axes[1], {b_ndim})")
    lines += [
        f"    fa = free_axes(sa, {a_ndim})",
        f"    fb = free_axes(sb, {b_ndim})",
        "    inner = 1",
        f"    for k in range({count}):",
        "        if a.shape[sa[k]] != b.shape[sb[k]]:",
        "            raise ValueError('shape-mismatch for sum')",
        "        inner *= a.shape[sa[k]]",
    ]
    perm_a = ", ".join([f"fa[{k}]" for k in range(a_free)] + [f"sa[{k}]" for k in range(count)])
    perm_b = ", ".join([f"sb[{k}]" for k in range(count)] + [f"fb[{k}]" for k in range(b_free)])
    shape = [f"a.shape[fa[{k}]]" for k in range(a_free)] + [
        f"b.shape[fb[{k}]]" for k in range(b_free)
    ]
    rows = " * ".join(["1"] + shape[:a_free])
    cols = " * ".join(["1"] + shape[a_free:])
    lines += [
        f"    at = np.ascontiguousarray(np.transpose(a, ({perm_a},)).astype(DT))",
        f"    bt = np.ascontiguousarray(np.transpose(b, ({perm_b},)).astype(DT))",
        f"    product = np.dot(at.reshape(({rows}, inner)), bt.reshape((inner, {cols})))",
        f"    return product.reshape(({', '.join(shape)}{',' if shape else ''}))",
    ]
    return generated(
        "tensordot", "\n".join(lines) + "\n", DT=getattr(np, dtype),
        normalized=_normalized_jit, free_axes=_free_axes_jit,
    )  # fmt: skip


def _normalized(axes, ndim):
    out = np.empty(len(axes), np.int64)
    for k in range(len(axes)):
        axis = axes[k]
        if axis < -ndim or axis >= ndim:
            raise np.exceptions.AxisError("axis is out of bounds for the array in tensordot")
        out[k] = axis + ndim if axis < 0 else axis
    for k in range(out.shape[0]):
        for j in range(k):
            if out[j] == out[k]:
                raise ValueError("repeated axis in tensordot")
    return out


def _free_axes(summed, ndim):
    out = np.empty(ndim - summed.shape[0], np.int64)
    k = 0
    for axis in range(ndim):
        if not np.any(summed == axis):
            out[k] = axis
            k += 1
    return out


def _as_axes_tuple(typ):
    """One axis (an int) or a tuple of ints: the number of axes, or None."""
    if is_integer(typ):
        return 1
    if isinstance(typ, types.BaseTuple) and all(is_integer(t) for t in typ.types):
        return len(typ)
    return None


def _jit(func):
    from ember.decorators import njit

    return njit(**NUMPY_ERRORS)(func)


_normalized_jit = _jit(_normalized)
_free_axes_jit = _jit(_free_axes)


@functools.cache
def _pair_wrapper(single_a: bool, single_b: bool, inner):
    """Single int axes become 1-tuples before the general form."""
    first = "(axes[0],)" if single_a else "axes[0]"
    second = "(axes[1],)" if single_b else "axes[1]"
    source = f"def tensordot(a, b, axes=2):\n    return inner(a, b, ({first}, {second}))\n"
    return generated("tensordot", source, inner=_jit(inner))


def _constant_axes_pairs(axes) -> tuple | None:
    """Axes given with lists of constants (`([1, 0], [0, 1])`, `[[1], [0]]`, `[1, 0]`) as a
    pair of tuples of ints, else None (the lists' values come from typing's retry with
    their displays' values)."""
    if isinstance(axes, types.InitialValueList):
        items = axes.initial_value
    elif isinstance(axes, types.BaseTuple) and any(
        isinstance(t, types.InitialValueList) for t in axes.types
    ):
        items = [_constant_side(t) for t in axes.types]
    else:
        return None
    if len(items) != 2 or any(item is None for item in items):
        return None
    pair = [tuple(item) if isinstance(item, (list, tuple)) else (item,) for item in items]
    if not all(type(axis) is int for side in pair for axis in side):
        return None
    return tuple(pair)


def _constant_side(typ):
    if isinstance(typ, types.InitialValueList):
        return typ.initial_value
    if isinstance(typ, types.IntegerLiteral):
        return typ.literal_value
    return None


@functools.cache
def _constant_pairs_wrapper(pair: tuple):
    source = f"def tensordot(a, b, axes=2):\n    return np.tensordot(a, b, {pair!r})\n"
    return generated("tensordot", source)


@overload(np.tensordot, jit_options=NUMPY_ERRORS)
def _select_tensordot(a, b, axes=2):
    if not (is_array(a) and is_array(b)):
        return None
    dtype = np.result_type(numpy_dtype(a.dtype), numpy_dtype(b.dtype)).name
    if isinstance(axes, int) or isinstance(axes, types.IntegerLiteral):
        count = axes if isinstance(axes, int) else axes.literal_value
        if count < 0 or count > min(a.ndim, b.ndim):
            raise TypingError("np.tensordot: axes exceeds the dimensions of the operands")
        return _tensordot_impl(a.ndim, b.ndim, count, "int", dtype)
    if is_integer(axes):
        return None  # typing retries with the constant, if it is one
    constant = _constant_axes_pairs(axes)
    if constant is not None:
        return _constant_pairs_wrapper(constant)
    if not (isinstance(axes, types.BaseTuple) and len(axes) == 2):
        return None
    counts = [_as_axes_tuple(t) for t in axes.types]
    if None in counts:
        return None
    if counts[0] != counts[1]:
        raise TypingError("np.tensordot: shape-mismatch for sum (different numbers of axes)")
    count = counts[0]
    if count > min(a.ndim, b.ndim):
        raise TypingError("np.tensordot: more summed axes than the operands have")
    inner = _tensordot_impl(a.ndim, b.ndim, count, "pairs", dtype)
    singles = [is_integer(t) for t in axes.types]
    return _pair_wrapper(*singles, inner) if any(singles) else inner
