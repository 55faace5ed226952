"""`next(iterator)`, `next(iterator, default)` and `iter(iterator)` on the iterators of ranges,
arrays, lists, strings, tuples, dicts, enumerate and zip (generators have their own): the
iterator's (item, valid) step, then StopIteration or the default where it is exhausted."""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic, overload
from ember.library.builtins.ranges import keep_exhausted
from ember.lowering.registry import lower_builtin
from ember.typing.signature import Signature, signature
from ember.typing.templates import registry


def _is_iterator(typ: types.Type) -> bool:
    return hasattr(typ, "yield_type") and not isinstance(typ, types.Generator)


@intrinsic
def _step(typingctx: Any, iterator: types.Type) -> Any:
    """(the next item, whether there was one): the step a `for` loop takes. The pair owns a
    reference to its item (a `for` loop releases it), which the tuple takes over."""
    item_type = iterator.yield_type
    pair_type = types.Pair(item_type, types.boolean)

    def codegen(context, builder, sig: Signature, args: list):
        pair = context.call_implementation(builder, next, Signature(pair_type, (iterator,)), args)
        item, valid = builder.extract_value(pair, 0), builder.extract_value(pair, 1)
        if isinstance(iterator, types.RangeIteratorType):
            keep_exhausted(context, builder, iterator, args[0], item, valid)
        result = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
        return builder.insert_value(builder.insert_value(result, item, 0), valid, 1)

    return Signature(types.Tuple((item_type, types.boolean)), (iterator,)), codegen


@overload(next)
def _select_next(iterator, default=None):
    if not _is_iterator(iterator):
        return None
    if default is None or isinstance(default, types.Omitted):

        def advance(iterator, default=None):
            item, valid = _step(iterator)
            if not valid:
                raise StopIteration
            return item

        return advance

    def advance_or_default(iterator, default=None):
        item, valid = _step(iterator)
        return item if valid else default

    return advance_or_default


# Iterators whose iterator is themselves and has no implementation elsewhere (enumerate, zip
# and generators have theirs).
_SELF_ITERATING = (
    types.ArrayIterator,
    types.UniTupleIterator,
    types.RangeIteratorType,
    types.HashTableIterator,
    types.ListIterator,
    types.UnicodeIterator,
    types.BytesIterator,
)


@registry.typer(iter)
def _type_iter(args, kws):
    """An iterator is its own iterator (`for x in it` after `next(it)` goes on from there)."""
    if len(args) == 1 and not kws and isinstance(args[0], _SELF_ITERATING):
        return signature(args[0], args[0])
    return None


def _iterator_itself(context, builder, sig, args):
    return args[0]


for _iterator_class in _SELF_ITERATING:
    lower_builtin(iter, _iterator_class)(_iterator_itself)
