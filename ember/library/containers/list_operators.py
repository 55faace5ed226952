"""List operators in compiled code: `+`, `+=`, `*`, `*=`, comparisons, `is` (of lists, sets
and dicts) and `sum`."""

from __future__ import annotations

import operator

from ember import types
from ember.extending import intrinsic, overload
from ember.library.builtins.enumerate_zip import iterator_of
from ember.library.containers.list_primitives import (
    _index,
    _is_list,
    _load,
    _new_list,
    _reserve,
)
from ember.lowering import lists as primitives
from ember.typing.conversions import unify_pair
from ember.typing.signature import signature

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
