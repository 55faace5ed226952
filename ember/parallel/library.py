"""Typing and lowering of the parallel API in jitted code: `prange` types and lowers as
`range` (the parfor pass decides whether it runs in parallel); the thread functions call the
threading layer."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import overload
from ember.library.builtins import ranges
from ember.lowering.registry import lower_builtin
from ember.parallel import threading_layer as tl
from ember.parallel.api import (
    get_num_threads,
    get_parallel_chunksize,
    get_thread_id,
    numpy_prange,
    pndindex,
    pndindex_size,
    pndindex_unravel,
    prange,
    reduction_prange,
    set_num_threads,
    set_parallel_chunksize,
    setitem_prange,
    stencil_prange,
    worker_parallel_chunksize,
)
from ember.typing.signature import signature
from ember.typing.templates import registry

_i64 = llvm.IntType(64)

for _marker in (prange, stencil_prange, numpy_prange, reduction_prange, setitem_prange):
    registry.typer(_marker)(ranges._type_range)
    lower_builtin(_marker, types.Integer)(ranges.range_stop)
    lower_builtin(_marker, types.Integer, types.Integer)(ranges.range_start_stop)
    lower_builtin(_marker, *[types.Integer] * 3)(ranges.range_start_stop_step)


@registry.typer(get_num_threads)
@registry.typer(get_thread_id)
def _type_thread_query(args, kws):
    return signature(types.int64) if not args and not kws else None


@registry.typer(set_num_threads)
def _type_set_num_threads(args, kws):
    if len(args) != 1 or kws:
        return None
    if not isinstance(types.unliteral(args[0]), types.Integer):
        raise TypingError(f"The number of threads specified must be an integer, not {args[0]}")
    return signature(types.none, types.int64)


@lower_builtin(get_num_threads)
def _lower_get_num_threads(context, builder, sig, args):
    return builder.call(tl.declare_symbol(builder.module, tl.GET_NUM_THREADS), [])


@lower_builtin(get_thread_id)
def _lower_get_thread_id(context, builder, sig, args):
    return builder.call(tl.declare_symbol(builder.module, tl.THREAD_ID), [])


@lower_builtin(set_num_threads, types.Integer)
def _lower_set_num_threads(context, builder, sig, args):
    from ember import config

    (count,) = args
    too_small = builder.icmp_signed("<", count, count.type(1))
    too_large = builder.icmp_signed(">", count, count.type(config.NUM_THREADS))
    message = f"The number of threads must be between 1 and {config.NUM_THREADS}"
    context.guard(builder, builder.or_(too_small, too_large), ValueError, message)
    builder.call(tl.declare_symbol(builder.module, tl.SET_NUM_THREADS), [count])
    return context.get_dummy_value(types.none)


@registry.typer(get_parallel_chunksize)
@registry.typer(worker_parallel_chunksize)
def _type_get_chunksize(args, kws):
    return signature(types.int64) if not args and not kws else None


@registry.typer(set_parallel_chunksize)
def _type_set_chunksize(args, kws):
    if len(args) != 1 or kws:
        return None
    if not isinstance(types.unliteral(args[0]), types.Integer):
        raise TypingError(f"The parallel chunksize must be an integer, not {args[0]}")
    return signature(types.int64, types.int64)


@lower_builtin(get_parallel_chunksize)
def _lower_get_chunksize(context, builder, sig, args):
    return builder.call(tl.declare_symbol(builder.module, tl.GET_CHUNKSIZE), [])


@lower_builtin(worker_parallel_chunksize)
def _lower_worker_chunksize(context, builder, sig, args):
    return _i64(0)


@lower_builtin(set_parallel_chunksize, types.Integer)
def _lower_set_chunksize(context, builder, sig, args):
    (size,) = args
    negative = builder.icmp_signed("<", size, size.type(0))
    context.guard(builder, negative, ValueError, "chunksize must be greater than or equal to zero")
    previous = builder.call(tl.declare_symbol(builder.module, tl.GET_CHUNKSIZE), [])
    builder.call(tl.declare_symbol(builder.module, tl.SET_CHUNKSIZE), [size])
    return previous


@overload(pndindex)
def _pndindex(*shape):
    """`pndindex(...)` in jitted code: np.ndindex's index tuples."""
    import numpy as np

    return lambda *shape: np.ndindex(*shape)


def _pndindex_dims(shape) -> list[str]:
    """The expressions of each dimension of `pndindex(*shape)`'s arguments (`shape[0][k]`
    for one tuple, `shape[k]` for integers)."""
    if len(shape) == 1 and isinstance(shape[0], types.BaseTuple):
        items, prefix = shape[0].types, "shape[0]"
    else:
        items, prefix = shape, "shape"
    if not all(isinstance(t, types.Integer) for t in items):
        raise TypingError(f"pndindex() takes integers or one tuple of integers, not {shape}")
    return [f"{prefix}[{k}]" for k in range(len(items))]


def _generated(source: str):
    namespace: dict = {}
    exec(source, namespace)  # the dimension count fixes the code: written out per count
    return namespace["impl"]


@overload(pndindex_size)
def _pndindex_size(*shape):
    """The count of index tuples (NumPy's ValueError for a negative dimension)."""
    dims = _pndindex_dims(shape)
    lines = ["def impl(*shape):", "    n = 1"]
    for dim in dims:
        lines += [
            f"    if {dim} < 0:",
            "        raise ValueError('negative dimensions are not allowed')",
            f"    n *= {dim}",
        ]
    return _generated("\n".join([*lines, "    return n"]))


@overload(pndindex_unravel)
def _pndindex_unravel(flat, *shape):
    """The C-order index tuple at `flat`: the last dimension varies fastest."""
    dims = _pndindex_dims(shape)
    lines = ["def impl(flat, *shape):", "    rest = flat"]
    for k in range(len(dims) - 1, 0, -1):
        lines += [f"    i{k} = rest % {dims[k]}", f"    rest = rest // {dims[k]}"]
    if dims:
        lines.append("    i0 = rest")
    items = "".join(f"i{k}, " for k in range(len(dims)))
    return _generated("\n".join([*lines, f"    return ({items})"]))
