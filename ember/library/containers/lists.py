"""Lists in compiled code: `list()`, `len`, truth, indexing, slicing and iteration. Methods are
in list_methods.py, operators in list_operators.py, sorting in list_sorting.py; all of them are
`@overload`s over the primitives of list_primitives.py."""

from __future__ import annotations

import operator

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import lower_builtin, lower_cast, overload
from ember.library.builtins.enumerate_zip import iterator_of
from ember.library.containers.list_primitives import (
    _check_mutable,
    _fits,
    _index,
    _is_list,
    _length,
    _load,
    _move,
    _new_list,
    _refuse_bad_index,
    _release,
    _reserve,
    _set_length,
    _shrink_to,
    _slice_indices,
    _store_new,
)
from ember.library.strings.core import deferred_text
from ember.lowering import arrays as refs
from ember.lowering import iterators
from ember.lowering import lists as primitives
from ember.typing.signature import signature
from ember.typing.templates import registry

# ---------------------------------------------------------------------------- list()


@registry.typer(list)
def _type_empty_list(args, kws):
    if not args and not kws:
        return signature(types.List(types.undefined))
    return None


@lower_builtin(list)
def empty_list(context, builder, sig, args):
    return primitives.allocate(context, builder, sig.return_type, refs.const(0))


@overload(list)
def list_from_iterable(iterable):
    iterator = iterator_of(iterable)
    if iterator is not None:
        problem = types.unsupported_item(types.unliteral(iterator.yield_type))
        if problem is not None:
            raise TypingError(problem)

        def impl(iterable):
            out = _new_list(iterable, 0)
            for item in iterable:
                out.append(item)
            return out

        return impl


# ---------------------------------------------------------------------------- size and items


@overload(len)
def list_len(xs):
    if _is_list(xs):
        return lambda xs: _length(xs)


@lower_cast(types.List, types.Boolean)
def list_truth(context, builder, from_type, to_type, value):
    """`if xs:`: not empty."""
    return builder.icmp_signed("!=", primitives.length(builder, value), refs.const(0))


_SIZED = (types.List, types.UnicodeType, types.DictType, types.Set)


@registry.typer(operator.not_)
def _type_not_of_container(args, kws):
    """`not xs` of a list, string, dict or set: empty (lowered as `not` of its truth)."""
    if len(args) == 1 and isinstance(types.unliteral(args[0]), _SIZED):
        return signature(types.boolean, types.unliteral(args[0]))
    return None


@overload(operator.getitem)
def list_getitem(xs, index):
    if not _is_list(xs):
        return None
    _refuse_bad_index(index, "list indices must be integers or slices")
    if _index(index):

        def getitem(xs, index):
            n = _length(xs)
            if index < 0:
                index += n
            if index < 0 or index >= n:
                raise IndexError("list index out of range")
            return _load(xs, index)

        return getitem
    if isinstance(index, types.SliceType):

        def getslice(xs, index):
            start, count, step = _slice_indices(index, _length(xs))
            out = _new_list(xs, count)
            for k in range(count):
                _store_new(out, k, _load(xs, start + k * step))
            _set_length(out, count)
            return out

        return getslice


@overload(operator.setitem)
def list_setitem(xs, index, value):
    if _is_list(xs):
        _refuse_bad_index(index, "list indices must be integers or slices")
    if not (_is_list(xs) and _index(index)):
        return None
    store = f"invalid setitem with value of {types.unliteral(value)} to element of {xs.dtype}: "
    if _fits(xs, value, store):

        def setitem(xs, index, value):
            _check_mutable(xs)
            n = _length(xs)
            if index < 0:
                index += n
            if index < 0 or index >= n:
                raise IndexError("list assignment index out of range")
            _release(xs, index)
            _store_new(xs, index, value)

        return setitem


@overload(operator.setitem)
def list_setslice(xs, index, values):
    """`xs[a:b] = values` (any length) and `xs[a:b:k] = values` (the slice's length)."""
    if not (_is_list(xs) and isinstance(index, types.SliceType)):
        return None
    if iterator_of(values) is None:
        raise TypingError(
            "can only assign an iterable when using a slice with assignment/setitem, "
            f"not {types.unliteral(values)}"
        )
    if not _fits(xs, iterator_of(values).yield_type):
        return None

    def setslice(xs, index, values):
        _check_mutable(xs)
        values = list(values)  # a copy: `xs[:] = xs` reads the items before they move
        n = _length(xs)
        start, count, step = _slice_indices(index, n)
        m = len(values)
        if step != 1 and m != count:
            message = (  # Python's words, then Numba's
                "attempt to assign sequence of size {} to extended slice of size {} (cannot "
                "resize extended list slice with step != 1; length mismatch for extended "
                "slice and sequence)"
            )
            raise ValueError(deferred_text(message, m, count))
        if step != 1:
            for k in range(m):
                _release(xs, start + k * step)
                _store_new(xs, start + k * step, values[k])
            return
        for k in range(count):
            _release(xs, start + k)
        _reserve(xs, n - count + m)
        _move(xs, start + count, start + m, n - start - count)
        for k in range(m):
            _store_new(xs, start + k, values[k])
        _shrink_to(xs, n - count + m)

    return setslice


@overload(operator.delitem)
def list_delitem(xs, index):
    if not _is_list(xs):
        return None
    if _index(index):

        def delitem(xs, index):
            _check_mutable(xs)
            n = _length(xs)
            if index < 0:
                index += n
            if index < 0 or index >= n:
                raise IndexError("list assignment index out of range")
            _release(xs, index)
            _move(xs, index + 1, index, n - index - 1)
            _shrink_to(xs, n - 1)

        return delitem
    if isinstance(index, types.SliceType):

        def delslice(xs, index):
            _check_mutable(xs)
            n = _length(xs)
            start, count, step = _slice_indices(index, n)
            if count == 0:
                return
            if step < 0:  # the same items, walked upwards
                start += (count - 1) * step
                step = -step
            write = start
            deleted = 0
            for read in range(start, n):
                if deleted < count and read == start + deleted * step:
                    _release(xs, read)
                    deleted += 1
                else:
                    _move(xs, read, write, 1)
                    write += 1
            _shrink_to(xs, n - count)

        return delslice
    return None


@registry.typer(iter)
def _type_iter(args, kws):
    if len(args) == 1 and not kws and _is_list(args[0]):
        return signature(args[0].iterator_type, args[0])
    return None


@lower_builtin(iter, types.List)
def list_iter(context, builder, sig, args):
    """{list, index} state; a typed list's also keeps its length, which must not change while
    it is iterated (Numba's rule for typed lists; other lists follow Python)."""
    if isinstance(sig.args[0], types.ListType):
        length = primitives.length(builder, args[0])
        return iterators.owning_state(context, builder, sig.args[0], args[0], (length,))
    return iterators.owning_state(context, builder, sig.args[0], args[0])


@lower_builtin(next, types.ListIterator)
def list_iternext(context, builder, sig, args):
    """The next item while the index is below the current length (which may grow).

    The test also asks for the items' storage, which any index below the length has: a test
    of nothing, but one that keeps the storage's load out of the item's block. There LLVM
    could not move it before a loop that does not grow the list (it might not be safe to
    run when the index test fails); in the test's block it is loaded once per loop."""
    list_type = sig.args[0].list_type
    typed = isinstance(list_type, types.ListType)
    fields = [context.value_type(list_type), refs.i64] + [refs.i64] * typed
    state_type = llvm.LiteralStructType(fields)
    xs = builder.load(
        builder.gep(args[0], [refs.i32_(0), refs.i32_(0)], source_etype=state_type),
        typ=context.value_type(list_type),
    )
    index_slot = builder.gep(args[0], [refs.i32_(0), refs.i32_(1)], source_etype=state_type)
    index = builder.load(index_slot, typ=refs.i64)
    if typed:
        start_slot = builder.gep(args[0], [refs.i32_(0), refs.i32_(2)], source_etype=state_type)
        changed = builder.icmp_signed(
            "!=", builder.load(start_slot, typ=refs.i64), primitives.length(builder, xs)
        )
        context.guard(builder, changed, RuntimeError, "list was mutated during iteration")
    storage = primitives.storage_of(builder, xs)
    has_storage = builder.icmp_unsigned("!=", storage, llvm.Constant(storage.type, None))
    below_length = builder.icmp_signed("<", index, primitives.length(builder, xs))
    valid = builder.and_(below_length, has_storage)
    before = builder.block
    with builder.if_then(valid, likely=True):
        builder.store(builder.add(index, refs.const(1)), index_slot)
        item = primitives.load_item(context, builder, list_type, xs, index, storage)
        filled = builder.block
    return iterators.iternext_pair(context, builder, sig, (item, filled), before, valid)
