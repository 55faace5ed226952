"""argmax and argmin (of a whole array, or along one axis) as NumPy's: the index of the first
best item, or of the first NaN; also the one-pass scan for the best item that max/min use on a
strided line.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir as llvm

from ember import types
from ember.library.numpy.reductions import (
    _better,
    _extreme_fold,
    _first_item,
    _pick,
    _reduction,
    _strictly_better,
    reduce_all,
    reduce_axis,
)
from ember.lowering import arrays as arr
from ember.lowering.arrays import const


def _arg_extreme(is_max: bool):
    word = "argmax" if is_max else "argmin"

    def result(a, axis=None):
        if isinstance(a.dtype, types.Complex):
            return None  # reductions._complex_extreme
        return types.int64

    def folder(context, dtype):
        acc_struct = llvm.LiteralStructType([context.value_type(dtype), arr.i64])

        def step(b, acc, item, index):
            best = b.extract_value(acc, 0)
            is_first = b.icmp_signed("==", index, const(0))
            nan_best = (b.fcmp_unordered("uno", best, best) if isinstance(dtype, types.Float)
                        else llvm.Constant(arr.i1, 0))  # fmt: skip
            replace = b.and_(_better(b, dtype, is_max, item, best), b.not_(nan_best))
            replace = b.or_(replace, is_first)
            acc = b.insert_value(acc, b.select(replace, item, best), 0)
            return b.insert_value(acc, b.select(replace, index, b.extract_value(acc, 1)), 1)

        return acc_struct, step

    def check_empty(context, builder, length):
        empty = builder.icmp_signed("==", length, const(0))
        context.guard(builder, empty, ValueError, f"attempt to get {word} of an empty sequence")

    def lower_all(context, builder, sig, fields, args):
        """One line of items (1-d, or C-contiguous) by `_line_arg_extreme`; other layouts: the
        extreme first (a fold), then the first index holding it."""
        array_type = sig.args[0]
        dtype = array_type.dtype
        check_empty(context, builder, fields.nitems)
        if array_type.ndim == 1 or array_type.layout == "C":  # one line of items
            itemsize = const(context.get_abi_sizeof(context.data_type(dtype)))
            stride = fields.strides[0] if array_type.ndim == 1 else itemsize
            return _line_arg_extreme(
                context, builder, dtype, is_max, fields.data, stride, fields.nitems
            )
        init, step = _extreme_fold(dtype, is_max, _first_item(builder, array_type, fields))
        extreme = reduce_all(context, builder, array_type, fields, init.type, init, step)
        return _first_index(
            context, builder, array_type, fields, _equal_to(builder, dtype, extreme)
        )

    def lower_axis(context, builder, sig, fields, axis, args):
        array_type = sig.args[0]
        check_empty(context, builder, _pick(builder, axis, fields.shape))
        acc_struct, step = folder(context, array_type.dtype)
        return reduce_axis(
            context, builder, array_type, fields, axis, sig.return_type, acc_struct,
            lambda b, length: llvm.Constant(acc_struct, None), step,
            lambda b, acc, length: b.extract_value(acc, 1),
            line=lambda b, base, stride, length: _line_arg_extreme(
                context, b, array_type.dtype, is_max, base, stride, length
            ),
        )  # fmt: skip

    return result, lower_all, lower_axis


def _line_arg_extreme(context, builder, dtype, is_max: bool, base, stride, length):
    """argmax/argmin of the `length` (> 0) items at `base`, `stride` bytes apart, as for the
    whole array. Items `stride == itemsize` apart get their own loops, with a constant stride:
    over many items the extreme by a fold that vectorizes, then the first index holding it;
    other strides (a column) one scan, as the fold does not vectorize there."""
    itemsize = const(context.get_abi_sizeof(context.data_type(dtype)))
    result = arr.alloca_in_entry(builder, arr.i64, name="arg_extreme.index")

    def items(step_bytes):
        return lambda b, k: arr.load_item(
            b, dtype, arr.offset_pointer(b, base, b.mul(k, step_bytes))
        )

    with builder.if_else(builder.icmp_signed("==", stride, itemsize)) as (unit, strided):
        with unit:
            builder.store(_line_search(builder, dtype, is_max, items(itemsize), length), result)
        with strided:
            builder.store(_scan_search(builder, dtype, is_max, items(stride), length), result)
    return builder.load(result, typ=arr.i64)


def _line_search(builder, dtype, is_max: bool, item_at: Callable, length):
    """Below `_SCAN_BELOW` items one scan, else two passes (`_two_pass_search`)."""
    result = arr.alloca_in_entry(builder, arr.i64, name="line_search.index")
    few = builder.icmp_signed("<", length, const(_SCAN_BELOW))
    with builder.if_else(few, likely=True) as (scan, two_passes):
        with scan:
            builder.store(_scan_search(builder, dtype, is_max, item_at, length), result)
        with two_passes:
            builder.store(_two_pass_search(builder, dtype, is_max, item_at, length), result)
    return builder.load(result, typ=arr.i64)


_SCAN_BELOW = 512  # items: from there the vectorized fold pays for its set-up


def _scan_search(builder, dtype, is_max: bool, item_at: Callable, length):
    """argmax/argmin in one pass: the index of the first best item, or of the first NaN."""
    return scan(builder, dtype, is_max, item_at, length, last_of_ties=False)[1]


def scan(builder, dtype, is_max: bool, item_at: Callable, length, last_of_ties: bool):
    """(best item, its index) of the `length` (> 0) items in one pass that selects (no branch
    to mispredict on a new best: for floats one max/min instruction) and stops at the first
    NaN, the answer then. Of equal items the first stays, or the last (NumPy's max and min)."""
    is_float = isinstance(dtype, types.Float)
    first = item_at(builder, const(0))
    start = builder.block
    header = builder.append_basic_block("scan.header")
    body = builder.append_basic_block("scan.body")
    latch = builder.append_basic_block("scan.latch")
    done = builder.append_basic_block("scan.done")
    if is_float:
        builder.cbranch(builder.fcmp_unordered("uno", first, first), done, header)
    else:
        builder.branch(header)
    builder.position_at_end(header)
    index = builder.phi(arr.i64, name="scan.index")
    best = builder.phi(first.type, name="scan.best")
    where = builder.phi(arr.i64, name="scan.where")
    builder.cbranch(builder.icmp_signed("<", index, length), body, done)
    builder.position_at_end(body)
    item = item_at(builder, index)
    if is_float:
        builder.cbranch(builder.fcmp_unordered("uno", item, item), done, latch)
    else:
        builder.branch(latch)
    builder.position_at_end(latch)
    if last_of_ties:  # (NaN left the loop already)
        better = builder.not_(_strictly_better(builder, dtype, is_max, best, item))
    else:
        better = _strictly_better(builder, dtype, is_max, item, best)
    index.add_incoming(const(1), start)
    index.add_incoming(builder.add(index, const(1), flags=("nsw",)), latch)
    best.add_incoming(first, start)
    best.add_incoming(builder.select(better, item, best), latch)
    where.add_incoming(const(0), start)
    where.add_incoming(builder.select(better, index, where), latch)
    builder.branch(header)
    builder.position_at_end(done)
    answer, value = builder.phi(arr.i64), builder.phi(first.type)
    if is_float:
        answer.add_incoming(const(0), start)
        value.add_incoming(first, start)
        answer.add_incoming(index, body)
        value.add_incoming(item, body)
    answer.add_incoming(where, header)
    value.add_incoming(best, header)
    return value, answer


def _two_pass_search(builder, dtype, is_max: bool, item_at: Callable, length):
    """The extreme by a fold that vectorizes, then the first index holding it: found a block
    at a time, then an item at a time within the block."""
    init, step = _extreme_fold(dtype, is_max, item_at(builder, const(0)))
    acc = arr.alloca_in_entry(builder, init.type, name="arg_extreme.acc")
    builder.store(init, acc)
    with arr.for_range(builder, length) as k:
        builder.store(step(builder, builder.load(acc, typ=init.type), item_at(builder, k), k), acc)
    matches = _equal_to(builder, dtype, builder.load(acc, typ=init.type))
    block = _block_holding_first_match(builder, matches, item_at, length)
    # The extreme is among the items: the last one when none before it matches.
    last = builder.sub(length, const(1))
    return _first_hit(
        builder, block, last, 1, lambda b, k: matches(b, item_at(b, k)), "line_search"
    )


_SEARCH_BLOCK = 16  # items tested at once: one or two vector compares


def _block_holding_first_match(builder, matches: Callable, item_at: Callable, length):
    """The start of the first block of `_SEARCH_BLOCK` items with a match (or of the items
    left after whole blocks): a straight-line test of a block vectorizes, where an item-at-a-
    time search that stops at the match does not."""
    whole = builder.sub(length, builder.srem(length, const(_SEARCH_BLOCK)))

    def block_matches(b, start):
        hit = llvm.Constant(arr.i1, 0)
        for k in range(_SEARCH_BLOCK):
            hit = b.or_(hit, matches(b, item_at(b, b.add(start, const(k), flags=("nsw",)))))
        return hit

    return _first_hit(builder, const(0), whole, _SEARCH_BLOCK, block_matches, "block_search")


def _first_hit(builder, start, stop, step: int, hit: Callable, name: str):
    """The first of `start`, `start + step`, ... below `stop` for which `hit(builder, index)`
    holds, else the first one not below `stop`: a loop that leaves at the hit."""
    before = builder.block
    header = builder.append_basic_block(f"{name}.header")
    body = builder.append_basic_block(f"{name}.body")
    done = builder.append_basic_block(f"{name}.done")
    builder.branch(header)
    builder.position_at_end(header)
    index = builder.phi(arr.i64, name=f"{name}.index")
    index.add_incoming(start, before)
    builder.cbranch(builder.icmp_signed("<", index, stop), body, done)
    builder.position_at_end(body)
    found = hit(builder, index)
    index.add_incoming(builder.add(index, const(step), flags=("nsw",)), builder.block)
    builder.cbranch(found, done, header)
    builder.position_at_end(done)
    return index


def _first_index(context, builder, array_type, fields, predicate: Callable) -> llvm.Value:
    """The C-order index of the first item for which `predicate(builder, item)` holds (-1 if
    none), by a fold over every item (for arrays that are not one line of items)."""

    def first_match(b, found, item, index):
        unset = b.icmp_signed("<", found, const(0))
        return b.select(b.and_(unset, predicate(b, item)), index, found)

    return reduce_all(context, builder, array_type, fields, arr.i64, const(-1), first_match)


def _equal_to(builder, dtype, extreme) -> Callable:
    """item -> i1: the item is `extreme` (NaN matches NaN: NumPy's argmax of data with NaN is
    the first NaN)."""
    if not isinstance(dtype, types.Float):
        return lambda b, item: b.icmp_unsigned("==", item, extreme)
    extreme_is_nan = builder.fcmp_unordered("uno", extreme, extreme)
    return lambda b, item: b.select(
        extreme_is_nan, b.fcmp_unordered("uno", item, item), b.fcmp_ordered("==", item, extreme)
    )


_reduction("argmax", "axis=None", *_arg_extreme(True))
_reduction("argmin", "axis=None", *_arg_extreme(False))
