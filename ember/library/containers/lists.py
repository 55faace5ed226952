"""Lists in compiled code: `list()`, methods, indexing, slicing, operators and iteration.
The primitives (ember/lowering/lists.py) are intrinsics here; every operation on top of them
is an `@overload` written in Python.

Reference counts of items that own memory (a list of lists) follow one rule: a slot of the
list holds one reference. `_store_new` fills an empty slot with a new reference, `_take`
empties a slot and hands its reference to the caller, `_load` reads a new reference.
"""

from __future__ import annotations

import operator

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic, lower_builtin, lower_cast, overload, overload_method
from ember.library.builtins import key_functions
from ember.library.builtins.enumerate_zip import iterator_of
from ember.library.builtins.slices import slice_bounds
from ember.library.containers.hashtables import carried_by_exceptions
from ember.lowering import arrays as refs
from ember.lowering import iterators
from ember.lowering import lists as primitives
from ember.lowering.adopted_arrays import store_new_reference
from ember.typing.conversions import can_convert, storable, unify_pair, warn_if_unsafe
from ember.typing.overload import register_jitable
from ember.typing.signature import signature
from ember.typing.templates import registry


def _is_list(typ: types.Type) -> bool:
    return isinstance(typ, types.List) and typ.is_precise


def _fits(list_type: types.Type, item: types.Type, operation: str = "") -> bool:
    """Whether `item` can be stored in the list without losing information; a TypingError
    that says so (after `operation`, Numba's words for it) when it cannot."""
    kind = storable(item, list_type.dtype)
    if kind is None:
        raise TypingError(
            f"{operation}cannot store a {types.unliteral(item)} in a {list_type}: a list keeps "
            "the item type it was made with (make it of the wider type, e.g. [1.0] for floats)"
        )
    warn_if_unsafe(kind, item, list_type.dtype)
    return True


def _index(typ: types.Type) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Boolean))


# ---------------------------------------------------------------------------- primitives


@intrinsic
def _length(typingctx, xs):
    if isinstance(xs, types.List):
        return signature(types.int64, xs), lambda c, b, sig, args: primitives.length(b, args[0])


@intrinsic
def _check_mutable(typingctx, xs):
    """ValueError when a typed list was made immutable (`_make_immutable`); no code for
    other lists, which cannot be."""

    def codegen(context, builder, sig, args):
        if isinstance(sig.args[0], types.ListType):
            frozen = primitives.is_frozen(builder, args[0])
            context.guard(builder, frozen, ValueError, "list is immutable")
        return context.get_dummy_value(types.none)

    return signature(types.none, xs), codegen


@intrinsic
def _set_length(typingctx, xs, size):
    def codegen(context, builder, sig, args):
        primitives.set_length(builder, args[0], args[1])
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64), codegen


@intrinsic
def _shrink_to(typingctx, xs, size):
    """The length becomes `size` (no more than it was), and the storage shrinks to fit."""

    def codegen(context, builder, sig, args):
        primitives.shrink_to(context, builder, sig.args[0], args[0], args[1])
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64), codegen


@intrinsic
def _new_list(typingctx, prototype, capacity):
    """An empty list of the items of `prototype` (a list, or anything iterable) with room for
    `capacity` items."""
    if isinstance(prototype, types.List):
        list_type = prototype
    else:
        iterator = iterator_of(prototype)
        if iterator is None:
            return None
        list_type = types.List(types.unliteral(iterator.yield_type))

    def codegen(context, builder, sig, args):
        return primitives.allocate(context, builder, sig.return_type, args[1])

    return signature(list_type, prototype, types.int64), codegen


@intrinsic
def empty_list_for(typingctx, item):
    """An empty list for items of `item`'s type (`item` is not stored): `[item]` then
    `.pop()` without compiling `pop`."""
    list_type = types.List(types.unliteral(item))

    def codegen(context, builder, sig, args):
        return primitives.allocate(context, builder, list_type, refs.const(0))

    return signature(list_type, item), codegen


@intrinsic
def _reserve(typingctx, xs, needed):
    def codegen(context, builder, sig, args):
        primitives.reserve(context, builder, sig.args[0], args[0], args[1])
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64), codegen


@intrinsic
def _load(typingctx, xs, index):
    def codegen(context, builder, sig, args):
        return primitives.load_item(context, builder, sig.args[0], args[0], args[1])

    return signature(xs.dtype, xs, types.int64), codegen


@intrinsic
def _take(typingctx, xs, index):
    def codegen(context, builder, sig, args):
        pointer = primitives.item_pointer(context, builder, sig.args[0], args[0], args[1])
        return refs.load_value(builder, sig.args[0].dtype, pointer)

    return signature(xs.dtype, xs, types.int64), codegen


@intrinsic
def _store_new(typingctx, xs, index, item):
    def codegen(context, builder, sig, args):
        xs_type, _, dtype = sig.args
        pointer = primitives.item_pointer(context, builder, xs_type, args[0], args[1])
        store_new_reference(context, builder, dtype, args[2], pointer)
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64, xs.dtype), codegen


@intrinsic
def _move(typingctx, xs, source, target, count):
    def codegen(context, builder, sig, args):
        primitives.move_items(context, builder, sig.args[0], *args)
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64, types.int64, types.int64), codegen


@intrinsic
def _slice_indices(typingctx, index, length):
    """Python's `index.indices(length)` as (start, count, step)."""

    def codegen(context, builder, sig, args):
        result = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
        for position, bound in enumerate(slice_bounds(builder, args[0], args[1])):
            result = builder.insert_value(result, bound, position)
        return result

    return signature(types.UniTuple(types.int64, 3), index, types.int64), codegen


@intrinsic
def _release(typingctx, xs, index):
    """Drop the reference slot `index` holds (nothing for items that own no memory)."""

    def codegen(context, builder, sig, args):
        pointer = primitives.item_pointer(context, builder, sig.args[0], args[0], args[1])
        dtype = sig.args[0].dtype
        refs.decref(builder, dtype, refs.load_value(builder, dtype, pointer))
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64), codegen


# ---------------------------------------------------------------------------- conversions


@lower_cast(types.List, types.List)
def list_to_list(context, builder, from_type, to_type, value):
    """Lists of one item type (reflected, typed or neither) share their representation; an
    empty `[]` of undefined items converts too: its storage holds nothing yet, and its
    destructor must become the one for the items it will hold."""
    if from_type.dtype == to_type.dtype:
        return value
    return primitives.settle_item_type(context, builder, value, to_type)


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


def _refuse_bad_index(index: types.Type, message: str) -> None:
    """A TypingError saying what CPython's TypeError says for an index that can never be one
    (a string or a float), rather than "no implementation"."""
    plain = types.unliteral(index)
    if isinstance(plain, (types.UnicodeType, types.Float, types.Complex)):
        raise TypingError(f"{message}, not {plain}")


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
    if not (_is_list(values) and _fits(xs, values.dtype)):
        return None

    def setslice(xs, index, values):
        _check_mutable(xs)
        values = values[:]  # `xs[:] = xs` reads the items before they move
        n = _length(xs)
        start, count, step = _slice_indices(index, n)
        m = len(values)
        if step != 1 and m != count:
            raise ValueError(  # Python's words, then Numba's
                "attempt to assign sequence of wrong size to extended slice (cannot resize "
                "extended list slice with step != 1; length mismatch for extended slice and "
                "sequence)"
            )
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


# ---------------------------------------------------------------------------- growing and shrinking


@overload_method(types.List, "append")
def list_append(xs, item):
    if not _is_list(xs):
        return None
    call = f"Invalid use of BoundFunction(list.append for {xs}) with ({types.unliteral(item)}): "
    if _fits(xs, item, call):

        def append(xs, item):
            _check_mutable(xs)
            n = _length(xs)
            _reserve(xs, n + 1)
            _store_new(xs, n, item)
            _set_length(xs, n + 1)

        return append


@overload_method(types.List, "extend")
def list_extend(xs, other):
    if _is_list(xs) and iterator_of(other) is None:
        raise TypingError(f"extend argument must be iterable, not {types.unliteral(other)}")
    if _is_list(xs) and iterator_of(other) is not None:
        if not _fits(xs, iterator_of(other).yield_type):
            return None

        def extend(xs, other):
            _check_mutable(xs)
            for item in other:
                xs.append(item)

        def extend_from_list(xs, other):
            _check_mutable(xs)
            count = _length(other)  # once: `xs.extend(xs)` doubles xs, as in Python
            _reserve(xs, _length(xs) + count)
            for index in range(count):
                xs.append(_load(other, index))

        return extend_from_list if _is_list(other) else extend


@overload_method(types.List, "insert")
def list_insert(xs, index, item):
    if _is_list(xs):
        _refuse_bad_index(index, "list insert indices must be integers")
    if _is_list(xs) and _index(index) and _fits(xs, item):

        def insert(xs, index, item):
            _check_mutable(xs)
            n = _length(xs)
            if index < 0:
                index = max(index + n, 0)
            index = min(index, n)
            _reserve(xs, n + 1)
            _move(xs, index, index + 1, n - index)
            _store_new(xs, index, item)
            _set_length(xs, n + 1)

        return insert


@overload_method(types.List, "pop")
def list_pop(xs, index=None):
    if _is_list(xs) and index is not None:
        _refuse_bad_index(index, "argument for pop must be an integer")
    if _is_list(xs) and (index is None or _index(index)):

        def pop(xs, index=-1):
            _check_mutable(xs)
            n = _length(xs)
            if n == 0:
                raise IndexError("pop from empty list")
            if index < 0:
                index += n
            if index < 0 or index >= n:
                raise IndexError("pop index out of range")
            item = _take(xs, index)
            _move(xs, index + 1, index, n - index - 1)
            _shrink_to(xs, n - 1)
            return item

        return pop


@overload_method(types.List, "clear")
def list_clear(xs):
    if _is_list(xs):

        def clear(xs):
            _check_mutable(xs)
            for index in range(_length(xs)):
                _release(xs, index)
            _shrink_to(xs, 0)

        return clear


@overload_method(types.List, "copy")
def list_copy(xs):
    if _is_list(xs):
        return lambda xs: xs[:]


@overload_method(types.List, "reverse")
def list_reverse(xs):
    if _is_list(xs):

        def reverse(xs):
            _check_mutable(xs)
            low = 0
            high = _length(xs) - 1
            while low < high:
                first = _take(xs, low)
                last = _take(xs, high)
                _store_new(xs, low, last)  # the variables' references go when they do
                _store_new(xs, high, first)
                low += 1
                high -= 1

        return reverse


# ---------------------------------------------------------------------------- searching


@overload(operator.contains)
def list_contains(xs, item):
    if _is_list(xs) and can_convert(types.unliteral(item), xs.dtype) is not None:

        def contains(xs, item):
            for candidate in xs:
                if candidate == item:
                    return True
            return False

        return contains


_MAX_INDEX = (1 << 63) - 1


@overload_method(types.List, "index")
def list_index(xs, item, start=0, end=_MAX_INDEX):
    """(CPython's list.index takes no keywords; Numba's typed list names its bounds `start`
    and `end` in compiled code.)"""
    if not _is_list(xs):
        return None
    for name, bound in (("start", start), ("end", end)):
        if not _is_int(bound):  # Numba's words, for its typed and its reflected lists
            if isinstance(xs, types.ListType):
                raise TypingError(f"{name} argument for index must be an integer")
            reflected_name = "stop" if name == "end" else name
            raise TypingError(f'arg "{reflected_name}" must be an Integer.')

    def index(xs, item, start=0, end=_MAX_INDEX):
        length = _length(xs)
        for position in range(_clamp_index(start, length), _clamp_index(end, length)):
            if _load(xs, position) == item:
                return position
        not_in_list(item)
        return -1  # (not reached)

    return index


class NotInList(ValueError):
    """Made by compiled code that raises it with the item: CPython 3.11's
    `ValueError("3 is not in list")` (a plain ValueError, with the item's repr)."""

    def __new__(cls, item):
        return ValueError(f"{item!r} is not in list")


def not_in_list(item):
    raise NotInList(item)


@overload(not_in_list)
def _not_in_list_overload(item):
    if carried_by_exceptions(item):
        return not_in_list

    def raise_without_item(item):
        raise ValueError("list.index(x): x not in list")

    return raise_without_item


def _is_int(typ) -> bool:
    return isinstance(typ, int) or isinstance(types.unliteral(typ), (types.Integer, types.Boolean))


@register_jitable
def _clamp_index(position, length):
    """A start or stop of list.index as CPython clamps it: negative from the end, into
    [0, length]."""
    if position < 0:
        return max(position + length, 0)
    return min(position, length)


@overload_method(types.List, "remove")
def list_remove(xs, item):
    if _is_list(xs):

        def remove(xs, item):
            for position in range(_length(xs)):
                if _load(xs, position) == item:
                    xs.pop(position)  # the popped item's reference is released here
                    return
            raise ValueError("list.remove(x): x not in list")

        return remove


@overload_method(types.List, "count")
def list_count(xs, item):
    if _is_list(xs):

        def count(xs, item):
            found = 0
            for candidate in xs:
                if candidate == item:
                    found += 1
            return found

        return count


# ---------------------------------------------------------------------------- operators


@intrinsic
def _new_sum_list(typingctx, xs, ys, capacity):
    """An empty list for `xs + ys` with room for `capacity` items: of the items both convert
    to (`[1] + [2.0]` holds floats, as Python's would), typed when both lists are typed."""
    item_type = unify_pair(xs.dtype, ys.dtype)
    if item_type is None:
        return None
    both_typed = isinstance(xs, types.ListType) and isinstance(ys, types.ListType)
    list_type = types.ListType(item_type) if both_typed else types.List(item_type)

    def codegen(context, builder, sig, args):
        return primitives.allocate(context, builder, sig.return_type, args[2])

    return signature(list_type, xs, ys, types.int64), codegen


@overload(operator.add)
def list_add(xs, ys):
    if _is_list(xs) and _is_list(ys) and unify_pair(xs.dtype, ys.dtype) is not None:

        def add(xs, ys):
            out = _new_sum_list(xs, ys, len(xs) + len(ys))
            out.extend(xs)
            out.extend(ys)
            return out

        return add


@overload(operator.iadd)
def list_iadd(xs, ys):
    if _is_list(xs) and iterator_of(ys) is not None:

        def iadd(xs, ys):
            xs.extend(ys)
            return xs

        return iadd


_MAX_ITEMS = 2**63 - 1


@overload(operator.mul)
def list_mul(xs, times):
    if _is_list(xs) and _index(times):

        def mul(xs, times):
            n = len(xs)
            if times > 0 and n > _MAX_ITEMS // times:
                raise MemoryError("list repeated too many times")
            out = _new_list(xs, max(n * times, 0))
            for _ in range(times):
                for index in range(n):
                    out.append(_load(xs, index))
            return out

        return mul
    if _index(xs) and _is_list(times):
        return lambda xs, times: times * xs


@overload(operator.imul)
def list_imul(xs, times):
    """`xs *= times` repeats the list in place (another name for it sees the change)."""
    if _is_list(xs) and _index(times):

        def imul(xs, times):
            n = len(xs)
            if times <= 0:
                xs.clear()
                return xs
            if n > _MAX_ITEMS // times:
                raise MemoryError("list repeated too many times")
            _reserve(xs, n * times)  # all at once: a size beyond memory fails before any copy
            for _ in range(times - 1):
                for index in range(n):
                    xs.append(_load(xs, index))
            return xs

        return imul


@overload(operator.eq)
def list_eq(xs, ys):
    if _is_list(xs) and _is_list(ys):

        def eq(xs, ys):
            if len(xs) != len(ys):
                return False
            for index in range(len(xs)):
                if not _load(xs, index) == _load(ys, index):
                    return False
            return True

        return eq


@overload(operator.ne)
def list_ne(xs, ys):
    if _is_list(xs) and _is_list(ys):
        return lambda xs, ys: not xs == ys


@intrinsic
def _same_container(typingctx, xs, ys):
    """Whether two lists (or two sets, or two dicts) are one: the same meminfo, which their
    values hold first."""

    def codegen(context, builder, sig, args):
        left, right = (builder.extract_value(value, 0) for value in args)
        return builder.icmp_unsigned("==", left, right)

    return signature(types.boolean, xs, ys), codegen


def _comparable_containers(xs: types.Type, ys: types.Type) -> bool:
    kinds = (types.List, types.Set, types.DictType)
    return any(isinstance(xs, kind) and isinstance(ys, kind) for kind in kinds) and (
        xs.is_precise and ys.is_precise
    )


@overload(operator.is_)
def container_is(xs, ys):
    if _comparable_containers(xs, ys):
        return lambda xs, ys: _same_container(xs, ys)


@overload(operator.is_not)
def container_is_not(xs, ys):
    if _comparable_containers(xs, ys):
        return lambda xs, ys: not _same_container(xs, ys)


for _fn in (operator.lt, operator.le, operator.gt, operator.ge):

    @overload(_fn)
    def list_order(xs, ys, _fn=_fn):
        """Lexicographic, as tuples: the first unequal items decide, else the lengths."""
        if not (_is_list(xs) and _is_list(ys)):
            return None
        if isinstance(xs.dtype, types.NoneType) and isinstance(ys.dtype, types.NoneType):
            return lambda xs, ys: _fn(len(xs), len(ys))  # the items are all equal

        def order(xs, ys):
            common = min(len(xs), len(ys))
            for index in range(common):
                left, right = _load(xs, index), _load(ys, index)
                if not left == right:
                    return _fn(left, right)
            return _fn(len(xs), len(ys))

        return order


# ---------------------------------------------------------------------------- reductions


@overload(sum)
def list_sum(xs):
    if _is_list(xs) and isinstance(xs.dtype, types.Number):

        def total(xs):
            result = 0
            for item in xs:
                result += item
            return result

        return total


def _extreme(xs, better_than):
    if not (_is_list(xs) and _sortable(xs.dtype)):  # numbers, strings, tuples of those
        return None
    name = "min" if better_than is operator.lt else "max"
    message = f"{name}() arg is an empty sequence"

    def extreme(xs):
        if len(xs) == 0:
            raise ValueError(message)
        best = _load(xs, 0)
        for index in range(1, len(xs)):
            item = _load(xs, index)
            if better_than(item, best):
                best = item
        return best

    return extreme


@overload(min)
def list_min(xs):
    return _extreme(xs, operator.lt)


@overload(max)
def list_max(xs):
    return _extreme(xs, operator.gt)


def _sortable(item: types.Type) -> bool:
    """Items `<` orders: numbers, booleans, datetimes, strings, and tuples and lists of those
    (compared item by item, as CPython)."""
    if isinstance(item, types.BaseTuple):
        return all(_sortable(member) for member in item)
    if isinstance(item, types.List):
        return _sortable(item.dtype)
    scalars = (types.Number, types.Boolean, types.NPDatetime, types.NPTimedelta, types.UnicodeType)
    return isinstance(item, scalars)


@overload_method(types.List, "sort")
def list_sort(xs, key=None, reverse=False):
    if not _is_list(xs):
        return None
    if not (key is None or isinstance(key, types.NoneType)):
        return key_functions.sort_by_key  # a jitted or builtin key function
    if _sortable(xs.dtype):
        return _sort_maybe_reversed
    return None


def _sort_maybe_reversed(xs, key=None, reverse=False):
    _check_mutable(xs)
    if reverse:  # a stable descending order: equal items keep their order
        xs.reverse()
        _stable_sort(xs)
        xs.reverse()
    else:
        _stable_sort(xs)


_RUN = 16  # items per insertion-sorted run before the merges


@intrinsic
def _store_raw(typingctx, xs, index, item):
    """Store `item` at `index` (below the length) counting no reference: a sort only moves
    items, so the count of each stays as it is once every one is back in place once."""

    def codegen(context, builder, sig, args):
        pointer = primitives.item_pointer(context, builder, sig.args[0], args[0], args[1])
        refs.store_value(builder, sig.args[0].dtype, args[2], pointer)
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64, xs.dtype), codegen


@intrinsic
def _raw_twin(typingctx, xs):
    """A new list of the items of `xs` (not empty) whose references it does not count: a
    sort's scratch space, to be emptied by `_forget` before it dies."""

    def codegen(context, builder, sig, args):
        list_type = sig.args[0]
        count = primitives.length(builder, args[0])
        twin = primitives.allocate(context, builder, list_type, count)
        primitives.move_items_between(context, builder, list_type, args[0], twin, count)
        primitives.set_length(builder, twin, count)
        return twin

    return signature(xs, xs), codegen


@intrinsic
def _forget(typingctx, xs):
    """Empty `xs` without releasing its items (a `_raw_twin`)."""

    def codegen(context, builder, sig, args):
        primitives.set_length(builder, args[0], refs.const(0))
        return context.get_dummy_value(types.none)

    return signature(types.none, xs), codegen


@register_jitable
def _stable_sort(xs):
    """Stable, like Python's: insertion-sorted runs, then bottom-up merges through a scratch
    list; only `<` compares, and an item moves before an equal one never. Items move without
    counting references (nothing `<` does on sortable items raises midway)."""
    n = len(xs)
    for low in range(0, n, _RUN):
        high = min(low + _RUN, n)
        for i in range(low + 1, high):
            item = _load(xs, i)
            j = i - 1
            while j >= low and item < _load(xs, j):
                _store_raw(xs, j + 1, _load(xs, j))
                j -= 1
            _store_raw(xs, j + 1, item)
    if n <= _RUN:
        return
    source = xs
    target = _raw_twin(xs)
    scratch = target
    in_place = True
    width = _RUN
    while width < n:
        for low in range(0, n, 2 * width):
            middle = min(low + width, n)
            high = min(low + 2 * width, n)
            i, j, k = low, middle, low
            # while both runs last, a select rather than a branch on the data (which
            # mispredicts on unordered items); the left item wins ties: stable
            while i < middle and j < high:
                left = _load(source, i)
                right = _load(source, j)
                take_right = right < left
                _store_raw(target, k, right if take_right else left)
                j += take_right
                i += 1 - take_right
                k += 1
            while i < middle:
                _store_raw(target, k, _load(source, i))
                i += 1
                k += 1
            while j < high:
                _store_raw(target, k, _load(source, j))
                j += 1
                k += 1
        source, target = target, source
        in_place = not in_place
        width *= 2
    if not in_place:
        for k in range(n):
            _store_raw(xs, k, _load(source, k))
    _forget(scratch)
