"""Tuples in compiled code: indexing, iteration, membership, comparison, concatenation,
repetition, unpacking of 1-d arrays and `literal_unroll` (typing and lowering).

Constant indexes and constant slices are typed and lowered by the inferer and the lowerer
themselves (`StaticGetItem`); this module serves every other tuple operation.
"""

from __future__ import annotations

import operator

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.ir import nodes as ir
from ember.lowering import arrays as refs
from ember.lowering import iterators
from ember.lowering.models import OpaqueModel, register_model
from ember.lowering.registry import lower_builtin
from ember.misc.literal import literal_unroll
from ember.typing.arith import comparable, comparison_operands
from ember.typing.signature import signature
from ember.typing.templates import registry

# ---------------------------------------------------------------------------- indexing


@registry.typer(operator.getitem)
def _type_tuple_getitem(args, kws):
    constant = _constant_member(*args)
    if constant is not None:  # an index typed Literal[int] (an argument called with a constant)
        return signature(args[0].types[constant], *args)
    container, index = (types.unliteral(a) for a in args)
    if isinstance(container, types.UniTuple) and isinstance(index, types.Integer):
        return signature(container.dtype, container, types.int64)
    as_uni = _of_one_type(container)
    if as_uni is not None and isinstance(index, types.Integer):  # `("a", "b")[i]`
        return signature(as_uni.dtype, as_uni, types.int64)
    if isinstance(container, types.LiteralList):
        raise TypingError(types.LiteralList.getitem_error)
    if isinstance(container, types.BaseTuple) and isinstance(index, types.Integer):
        raise TypingError(
            f"a tuple of different types ({container}) can only be indexed by a constant: "
            "write t[0], t[-1], or loop with ember.literal_unroll(t)"
        )
    if isinstance(container, types.BaseTuple) and isinstance(index, types.SliceType):
        raise TypingError(
            "a tuple can only be sliced with constant bounds (t[1:], t[::-1]): "
            "the length of the result must be known while compiling"
        )
    return None


def _of_one_type(container: types.Type) -> types.UniTuple | None:
    """A tuple of literals of one type (`("a", "b")`, a global constant) as a homogeneous
    tuple of that type, which a run-time index or a loop can select from."""
    if not isinstance(container, types.BaseTuple) or not len(container):
        return None
    plain = {types.unliteral(member) for member in container.types}
    return types.UniTuple(plain.pop(), len(container)) if len(plain) == 1 else None


def _constant_member(container: types.Type, index: types.Type) -> int | None:
    """The member a Literal[int] index selects in a tuple (counted from the start), or None
    when the index is not a literal; an IndexError when it is out of range."""
    if not (isinstance(container, types.BaseTuple) and isinstance(index, types.IntegerLiteral)):
        return None
    position = index.literal_value
    count = len(container.types)
    if not -count <= position < count:
        raise IndexError(f"tuple index {position} out of range for {container}")
    return position % count


@lower_builtin(operator.getitem, types.BaseTuple, types.IntegerLiteral)
def tuple_getitem_literal(context, builder, sig, args):
    """A Literal[int] index: the member itself, as a constant index selects it (borrowed from
    the tuple, as every tuple item)."""
    return builder.extract_value(args[0], _constant_member(*sig.args))


@lower_builtin(operator.getitem, types.UniTuple, types.Integer)
def tuple_getitem(context, builder, sig, args):
    """A run-time index into a homogeneous tuple (negative counts from the end)."""
    container, index = args
    count = llvm.Constant(index.type, len(sig.args[0]))
    negative = builder.icmp_signed("<", index, llvm.Constant(index.type, 0))
    index = builder.select(negative, builder.add(index, count), index)
    out_of_range = builder.icmp_unsigned(">=", index, count)
    context.guard(builder, out_of_range, IndexError, "tuple index out of range")
    return _item_at(context, builder, sig.args[0], container, index)


def _item_at(context, builder, tuple_type: types.UniTuple, container, index):
    """Member `index` (in range) of a homogeneous tuple: spill it and load the member."""
    element_type = context.value_type(tuple_type.dtype)
    array_type = llvm.ArrayType(element_type, len(tuple_type))
    storage = refs.alloca_in_entry(builder, array_type)
    for position in range(len(tuple_type)):
        slot = builder.gep(storage, [refs.i32_(0), refs.i32_(position)], source_etype=array_type)
        builder.store(builder.extract_value(container, position), slot)
    item = builder.gep(storage, [refs.i32_(0), index], source_etype=array_type)
    return builder.load(item, typ=element_type)


# ---------------------------------------------------------------------------- iteration


register_model(types.UniTupleIterator)(OpaqueModel)


@registry.typer(iter)
def _type_tuple_iter(args, kws):
    if len(args) != 1 or kws or not isinstance(args[0], types.BaseTuple):
        return None
    tup = args[0]
    if isinstance(tup, types.LiteralStrKeyDict):  # its keys: containers/literal_containers.py
        return None
    if isinstance(tup, types.UniTuple):
        return signature(types.UniTupleIterator(tup), tup)
    if len(tup) == 0:
        raise TypingError("cannot iterate over an empty tuple: its items have no type")
    as_uni = _of_one_type(tup)
    if as_uni is not None:  # literals of one type (`("a", "ab")`): a tuple of that type
        return signature(types.UniTupleIterator(as_uni), as_uni)
    functions = _one_function_type(tup.types)
    if functions is not None:  # jitted and first-class functions: called through one type
        as_uni = types.UniTuple(functions, len(tup))
        return signature(types.UniTupleIterator(as_uni), as_uni)
    raise TypingError(
        f"cannot iterate over a tuple of different types ({tup}) with a plain loop (no "
        "getiter for it): write "
        "`for x in ember.literal_unroll(t)` to compile the loop body once per member"
    )


def _one_function_type(members: tuple) -> types.Type | None:
    """The type jitted functions and first-class functions of one signature merge into (a
    run-time choice, or the FunctionType), else None."""
    from ember.types.functions import unify_functions

    merged = members[0]
    for member in members[1:]:
        merged = unify_functions(merged, member)
        if merged is None:
            return None
    return merged


@lower_builtin(iter, types.UniTuple)
def tuple_iter(context, builder, sig, args):
    return iterators.owning_state(context, builder, sig.args[0], args[0])


@lower_builtin(next, types.UniTupleIterator)
def tuple_iternext(context, builder, sig, args):
    tuple_type = sig.args[0].tuple_type
    tuple_llvm = context.value_type(tuple_type)
    state_type = llvm.LiteralStructType([tuple_llvm, refs.i64])
    state = args[0]
    container = builder.load(
        builder.gep(state, [refs.i32_(0), refs.i32_(0)], source_etype=state_type), typ=tuple_llvm
    )
    index_slot = builder.gep(state, [refs.i32_(0), refs.i32_(1)], source_etype=state_type)
    index = builder.load(index_slot, typ=refs.i64)
    valid = builder.icmp_signed("<", index, refs.const(len(tuple_type)))
    before = builder.block
    with builder.if_then(valid, likely=True):
        builder.store(builder.add(index, refs.const(1), flags=("nsw",)), index_slot)
        item = _item_at(context, builder, tuple_type, container, index)
        refs.incref(builder, tuple_type.dtype, item)  # the pair holds its own reference
        filled = builder.block
    return iterators.iternext_pair(context, builder, sig, (item, filled), before, valid)


@overload(literal_unroll)
def literal_unroll_impl(container):
    """Outside a `for` loop (where the unroll pass rewrites it), the container itself."""

    def identity(container):
        return container

    return identity


@overload(sum)
def tuple_sum(iterable, start=0):
    """sum() of a tuple of numbers from `start`: an int for ints, as Python (members may
    differ in type)."""
    if not isinstance(iterable, types.BaseTuple):
        return None
    if not (isinstance(start, int) or isinstance(types.unliteral(start), types.Number)):
        return None

    def sum_impl(iterable, start=0):
        total = start
        for x in literal_unroll(iterable):
            total += x
        return total

    return sum_impl


@overload(tuple)
def tuple_of_tuple(iterable=()):
    if isinstance(iterable, types.BaseTuple):
        return lambda iterable=(): iterable
    if not isinstance(iterable, types.Type) or isinstance(iterable, types.Omitted):
        return lambda iterable=(): ()  # `tuple()`
    count = _generator_item_count(iterable)
    if count is None and isinstance(iterable, (types.ZipType, types.EnumerateType)):
        count = _iterator_length(iterable)  # `tuple(zip(*rows))` of tuples
    if count is not None:  # `tuple(f(x) for x in t)` of a tuple t: one item per member
        return _take_items(count)
    if isinstance(iterable, (types.List, types.Array, types.IteratorType, types.RangeType)):
        raise TypingError(
            f"tuple() of {iterable}: its length is known only when the code runs, and a "
            "tuple's length is part of its type; use a list (list(...)), or build a tuple of "
            "known length (t = (xs[0], xs[1]))"
        )
    return None


def _generator_item_count(gen_type) -> int | None:
    """How many items the generator expression `gen_type` yields when that follows from the
    types: one per item of a tuple (or of enumerate/zip over tuples) it maps, no `if`."""
    from ember.frontend.genexpr import yields_once_per_item

    if not isinstance(gen_type, types.Generator) or not gen_type.arg_types:
        return None
    code = getattr(getattr(gen_type.gen_func, "py_func", gen_type.gen_func), "__code__", None)
    if code is None or not yields_once_per_item(code):
        return None
    return _iterator_length(gen_type.arg_types[0])


def _iterator_length(iterator) -> int | None:
    """The number of items a fresh iterator of this type gives, when its type says."""
    if isinstance(iterator, types.UniTupleIterator):
        return iterator.tuple_type.count
    if isinstance(iterator, types.BaseTuple) and not iterator.types:  # `()` itself
        return 0
    if isinstance(iterator, types.EnumerateType):
        return _iterator_length(iterator.inner)
    if isinstance(iterator, types.ZipType):
        lengths = [_iterator_length(inner) for inner in iterator.inners]
        return None if not lengths or None in lengths else min(lengths)
    return None


def _take_items(count: int):
    """`tuple(gen)` of a generator known to yield `count` items: `count` calls of next()."""
    items = "".join("next(iterable), " for _ in range(count))
    namespace: dict = {}
    exec(f"def take(iterable=()):\n    return ({items})\n", namespace)  # noqa: S102
    return namespace["take"]


def may_equal(member, value):
    """`member == value`, or False where their types cannot compare (as CPython finds 'a' != 1)."""


@overload(may_equal)
def may_equal_impl(member, value):
    if comparable(operator.eq, member, value):
        return lambda member, value: member == value
    return lambda member, value: False


@overload_method(types.BaseTuple, "index")
def tuple_index(t, value):
    def index_impl(t, value):
        position = 0
        for x in literal_unroll(t):
            if may_equal(x, value):
                return position
            position += 1
        raise ValueError("tuple.index(x): x not in tuple")

    return index_impl


@overload_method(types.BaseTuple, "count")
def tuple_count(t, value):
    def count_impl(t, value):
        found = 0
        for x in literal_unroll(t):
            if may_equal(x, value):
                found += 1
        return found

    return count_impl


# ---------------------------------------------------------------------------- membership


@lower_builtin(operator.contains, types.BaseTuple, types.Type)
def tuple_contains(context, builder, sig, args):
    if isinstance(sig.args[1], types.Optional):  # a None item is in no tuple: objects/optional.py
        from ember.library.objects.optional import optional_membership

        return optional_membership(context, builder, sig, args)
    container, item = args
    found = llvm.Constant(llvm.IntType(1), 0)
    for position, member in enumerate(sig.args[0].types):
        value = builder.extract_value(container, position)
        equal = _member_compare(context, builder, operator.eq, (member, sig.args[1]), (value, item))
        found = builder.or_(found, equal)
    return found


# ---------------------------------------------------------------------------- comparison


for _fn in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):

    @lower_builtin(_fn, types.BaseTuple, types.BaseTuple)
    def _tuple_compare(context, builder, sig, args, _fn=_fn):
        return _lexicographic(context, builder, sig.args, args, _fn)


def _lexicographic(context, builder, operand_types, args, fn):
    """Python tuple comparison: the first unequal members decide, else the lengths."""
    left_type, right_type = operand_types
    if fn in (operator.eq, operator.ne) and len(left_type) != len(right_type):
        return llvm.Constant(llvm.IntType(1), int(fn is operator.ne))
    result = llvm.Constant(llvm.IntType(1), int(fn(len(left_type), len(right_type))))
    decided = llvm.Constant(llvm.IntType(1), 0)
    for position, pair_types in enumerate(zip(left_type.types, right_type.types)):
        pair = (builder.extract_value(args[0], position), builder.extract_value(args[1], position))
        equal = _member_compare(context, builder, operator.eq, pair_types, pair)
        outcome = _member_compare(context, builder, fn, pair_types, pair)
        decides_here = builder.and_(builder.not_(decided), builder.not_(equal))
        result = builder.select(decides_here, outcome, result)
        decided = builder.or_(decided, decides_here)
    return result


def _equal(a, b):
    return a == b


def _not_equal(a, b):
    return a != b


def _less(a, b):
    return a < b


def _less_equal(a, b):
    return a <= b


def _greater(a, b):
    return a > b


def _greater_equal(a, b):
    return a >= b


_PYTHON_COMPARISONS = {
    operator.eq: _equal,
    operator.ne: _not_equal,
    operator.lt: _less,
    operator.le: _less_equal,
    operator.gt: _greater,
    operator.ge: _greater_equal,
}


def _member_compare(context, builder, fn, pair_types, pair):
    """`fn(a, b)` for two members: numbers in their common type, tuples lexicographically."""
    a_type, b_type = (types.unliteral(t) for t in pair_types)
    if isinstance(a_type, types.BaseTuple) and isinstance(b_type, types.BaseTuple):
        return _lexicographic(context, builder, (a_type, b_type), pair, fn)
    if not all(isinstance(t, (types.Number, types.Boolean)) for t in (a_type, b_type)):
        # strings and other objects: their comparison is an @overload, compiled for the pair
        bool_sig = signature(types.boolean, *pair_types)
        return context.compile_internal(builder, _PYTHON_COMPARISONS[fn], bool_sig, list(pair))
    a_common, b_common = comparison_operands(a_type, b_type)
    a = context.cast(builder, pair[0], pair_types[0], a_common)
    b = context.cast(builder, pair[1], pair_types[1], b_common)
    bool_sig = signature(types.boolean, a_common, b_common)
    return context.call_implementation(builder, fn, bool_sig, [a, b])


# ---------------------------------------------------------------------------- + and *


@registry.typer(operator.add)
def _type_concatenate(args, kws):
    left, right = (types.unliteral(a) for a in args)
    if isinstance(left, types.LiteralContainer) or isinstance(right, types.LiteralContainer):
        return _type_literal_concatenate(left, right)
    if isinstance(left, types.BaseTuple) and isinstance(right, types.BaseTuple):
        return signature(types.make_tuple(left.types + right.types), left, right)
    if isinstance(left, types.BaseTuple) and isinstance(right, (types.List, types.Set)):
        # `(*xs,)` of a list arrives here as `() + xs`; Numba's words first
        raise TypingError(
            f"No implementation of function tuple({right}): a list's length is not known "
            "while compiling, so `(*xs,)` and `t + xs` need a tuple (or use an array)"
        )
    return None


def _type_literal_concatenate(left: types.Type, right: types.Type):
    """A literal list joins only a literal list (CPython: list + tuple is a TypeError)."""
    if isinstance(left, types.LiteralList) and isinstance(right, types.LiteralList):
        joined = types.LiteralList(left.member_types + right.member_types)
        return signature(joined, left, right)
    raise TypingError(
        f"cannot concatenate {left} and {right}: a literal list (or dict) "
        "joins only another literal list"
    )


@lower_builtin(operator.add, types.BaseTuple, types.BaseTuple)
def tuple_concatenate(context, builder, sig, args):
    members = [
        (builder.extract_value(value, position), member)
        for value, typ in zip(args, sig.args)
        for position, member in enumerate(typ.types)
    ]
    return _pack(context, builder, sig.return_type, members)


@registry.typer(operator.mul)
def _type_repeat(args, kws):
    """`t * n` and `n * t`: the length of the result needs `n` while compiling."""
    if not any(isinstance(types.unliteral(a), types.BaseTuple) for a in args):
        return None
    tup, count = args if isinstance(types.unliteral(args[0]), types.BaseTuple) else args[::-1]
    if not isinstance(types.unliteral(count), types.Integer):
        return None
    if not isinstance(count, types.IntegerLiteral):
        raise TypingError(
            "a tuple can only be repeated by a constant count (t * 2): the length of the "
            "result must be known while compiling"
        )
    if isinstance(tup, types.LiteralStrKeyDict):
        raise TypingError(f"a dict cannot be repeated ({tup})")
    if isinstance(tup, types.LiteralList):
        result = types.LiteralList(tup.member_types * max(count.literal_value, 0))
    else:
        result = types.make_tuple(tup.types * max(count.literal_value, 0))
    operands = [tup, types.int64] if args[0] is tup else [types.int64, tup]
    return signature(result, *operands)


@lower_builtin(operator.mul, types.BaseTuple, types.Integer)
@lower_builtin(operator.mul, types.Integer, types.BaseTuple)
def tuple_repeat(context, builder, sig, args):
    position = 0 if isinstance(sig.args[0], types.BaseTuple) else 1
    tup, tuple_type = args[position], sig.args[position]
    members = [
        (builder.extract_value(tup, index), member) for index, member in enumerate(tuple_type.types)
    ]
    repeats = len(sig.return_type) // len(tuple_type) if len(tuple_type) else 0
    return _pack(context, builder, sig.return_type, members * repeats)


def _pack(context, builder, tuple_type, members):
    """A new tuple of borrowed (value, type) members: each member gains a reference."""
    result = llvm.Constant(context.value_type(tuple_type), llvm.Undefined)
    for position, (value, member) in enumerate(members):
        refs.incref(builder, member, value)
        result = builder.insert_value(result, value, position)
    return result


# ---------------------------------------------------------------------------- unpacking


@registry.typer(ir.ExhaustIter)
def _type_unpack(args, kws):
    """`a, b = arr`: an array of run-time length unpacks along its first axis into a tuple of
    its items (1-d) or of views of its rows (n-d), as iterating over it yields."""
    source, count = args
    if isinstance(source, types.Array):
        if source.ndim == 0:
            raise TypingError("cannot unpack a 0-d array (it is not iterable)")
        item = source.dtype if source.ndim == 1 else types.ArrayIterator(source).yield_type
        return signature(types.UniTuple(item, count.literal_value), source)
    return None


@lower_builtin(ir.ExhaustIter, types.Array)
def unpack_array(context, builder, sig, args):
    """Check the length as CPython does (its messages), then load each item (or view)."""
    array_type = sig.args[0]
    fields = refs.unpack(builder, array_type, args[0])
    length, count = fields.shape[0], len(sig.return_type)
    too_many = builder.icmp_signed(">", length, refs.const(count))
    context.guard(builder, too_many, ValueError, f"too many values to unpack (expected {count})")
    for got in range(count):
        short = builder.icmp_signed("==", length, refs.const(got))
        message = f"not enough values to unpack (expected {count}, got {got})"
        context.guard(builder, short, ValueError, message)
    if array_type.ndim > 1:
        from ember.library.numpy.arrays import item_at  # (containers load before numpy)

        result = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
        for index in range(count):  # each view is a new reference, which the tuple takes
            view = item_at(context, builder, array_type, fields, refs.const(index))
            result = builder.insert_value(result, view, index)
        return result
    members = []
    for index in range(count):
        pointer = refs.element_pointer(builder, array_type, fields, [refs.const(index)])
        members.append((refs.load_item(builder, array_type.dtype, pointer), array_type.dtype))
    return _pack(context, builder, sig.return_type, members)
