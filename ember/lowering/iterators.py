"""Iterator state shared by containers that own memory (arrays, lists): entry-block state
that holds the container until the function returns, and the (item, valid) pair of `next`."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.lowering import arrays as arr


def owning_state(context, builder, container_type: types.Type, container, extra=()):
    """Entry-block state {container, index, *extra} holding a reference to the container (an
    array, a list) until the function returns or this iterator is made again; `extra` i64
    values follow the index (a dict's size when iteration began)."""
    container_llvm = context.value_type(container_type)
    state_type = llvm.LiteralStructType([container_llvm, arr.i64] + [arr.i64] * len(extra))
    state = arr.alloca_in_entry(builder, state_type, name="iter.state")
    arr.store_in_entry(builder, llvm.Constant(state_type, None), state)
    container_slot = builder.gep(state, [arr.i32_(0), arr.i32_(0)], source_etype=state_type)
    previous = builder.load(container_slot, typ=container_llvm)
    arr.exchange_references(builder, container_type, previous, container)
    builder.store(container, container_slot)
    index_slot = builder.gep(state, [arr.i32_(0), arr.i32_(1)], source_etype=state_type)
    builder.store(arr.const(0), index_slot)
    for position, value in enumerate(extra, start=2):
        slot = builder.gep(state, [arr.i32_(0), arr.i32_(position)], source_etype=state_type)
        builder.store(value, slot)

    def release(exit_builder):
        slot = exit_builder.gep(state, [arr.i32_(0), arr.i32_(0)], source_etype=state_type)
        arr.decref(exit_builder, container_type, exit_builder.load(slot, typ=container_llvm))

    arr.at_function_exit(builder, release)
    return state


def iternext_pair(context, builder, sig, item_and_block, before, valid):
    """The (item, valid) pair of an iterator's `next`: the item where the iterator produced one
    (in `item_and_block`'s block), a zero item on the exhausted path from `before`."""
    item, filled = item_and_block
    item_llvm = item.type
    result = builder.phi(item_llvm)
    result.add_incoming(item, filled)
    result.add_incoming(llvm.Constant(item_llvm, None), before)
    pair = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
    pair = builder.insert_value(pair, result, 0)
    return builder.insert_value(pair, valid, 1)
