"""Strings in compiled code: the primitives of ember/lowering/strings.py as intrinsics, and the
core operations on top of them as `@overload`s written in Python: `len`, indexing, slicing,
iteration, `in`, comparisons, `+`, `*`, `hash`, `ord`/`chr`.

Every string the library makes is in its canonical (narrowest) kind, which `==` and `hash`
rely on: `_new` strings are filled and then passed through `_canonical` when their widest code
point is not known in advance.
"""

from __future__ import annotations

import operator

from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic, lower_builtin, lower_cast, overload, register_jitable
from ember.library.containers.list_primitives import _refuse_bad_index, _slice_indices
from ember.lowering import arrays as refs
from ember.lowering import iterators
from ember.lowering import strings as primitives
from ember.lowering.models import OpaqueModel, register_model
from ember.typing.signature import signature
from ember.typing.templates import registry

string = types.unicode_type


def is_string(typ: types.Type) -> bool:
    """Whether `typ` is a string (a literal one too)."""
    return isinstance(types.unliteral(typ), types.UnicodeType)


def _index(typ: types.Type) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Boolean))


# ---------------------------------------------------------------------------- primitives


@intrinsic
def _length(typingctx, s):
    return signature(types.int64, string), lambda c, b, sig, args: primitives.length(b, args[0])


@intrinsic
def _kind(typingctx, s):
    return signature(types.int64, string), lambda c, b, sig, args: primitives.kind(b, args[0])


@intrinsic
def _get(typingctx, s, index):
    """The code point at `index` (unchecked)."""

    def codegen(context, builder, sig, args):
        return builder.zext(primitives.code_point(builder, args[0], args[1]), refs.i64)

    return signature(types.int64, string, types.int64), codegen


@intrinsic
def _set(typingctx, s, index, code):
    """Store a code point into a string that `_new` made (unchecked)."""

    def codegen(context, builder, sig, args):
        target, index, code = args
        width, base = primitives.kind(builder, target), primitives.data(builder, target)
        primitives.store_code_point(builder, width, base, index, builder.trunc(code, refs.i32))
        return context.get_dummy_value(types.none)

    return signature(types.none, string, types.int64, types.int64), codegen


@intrinsic
def _byte(typingctx, s, index):
    """The code point at `index` of an ASCII (kind 1) string, unchecked: no switch on the kind."""

    def codegen(context, builder, sig, args):
        address = builder.gep(primitives.data(builder, args[0]), [args[1]], source_etype=refs.i8)
        return builder.zext(builder.load(address, typ=refs.i8), refs.i64)

    return signature(types.int64, string, types.int64), codegen


@intrinsic
def _put(typingctx, s, index, code):
    """Store an ASCII code into a kind 1 string that `_new(1, n)` made (unchecked)."""

    def codegen(context, builder, sig, args):
        target, index, code = args
        address = builder.gep(primitives.data(builder, target), [index], source_etype=refs.i8)
        builder.store(builder.trunc(code, refs.i8), address)
        return context.get_dummy_value(types.none)

    return signature(types.none, string, types.int64, types.int64), codegen


@intrinsic
def _fill(typingctx, s, start, count, code):
    """Store the ASCII `code` `count` times from `start` of a kind 1 string that `_new(1, n)`
    made (one memset: no loop for LLVM to vectorize); the position after them."""

    def codegen(context, builder, sig, args):
        target, start, count, code = args
        address = builder.gep(primitives.data(builder, target), [start], source_etype=refs.i8)
        refs._memory_intrinsic(
            builder, "llvm.memset.p0.i64", [refs.ptr, refs.i8, refs.i64, llvm.IntType(1)]
        )(address, builder.trunc(code, refs.i8), count, llvm.Constant(llvm.IntType(1), 0))
        return builder.add(start, count)

    return signature(types.int64, string, types.int64, types.int64, types.int64), codegen


@intrinsic
def _move(typingctx, target, start, source, source_start, count):
    """Copy `count` characters of the ASCII `source` from `source_start` into a kind 1 string
    that `_new(1, n)` made, from `start` (one memcpy); the position after them."""

    def codegen(context, builder, sig, args):
        target, start, source, source_start, count = args
        to = builder.gep(primitives.data(builder, target), [start], source_etype=refs.i8)
        origin = builder.gep(primitives.data(builder, source), [source_start], source_etype=refs.i8)
        refs.memcpy(builder, to, origin, count)
        return builder.add(start, count)

    return signature(types.int64, string, types.int64, string, types.int64, types.int64), codegen


@intrinsic
def _new(typingctx, width, count):
    """A new string of `count` code points of kind `width`, to be filled with `_set`."""

    def codegen(context, builder, sig, args):
        return primitives.allocate(context, builder, args[0], args[1])

    return signature(string, types.int64, types.int64), codegen


@intrinsic
def _copy(typingctx, target, target_start, source, source_start, count):
    """Copy `count` code points of `source` into a string that `_new` made."""

    def codegen(context, builder, sig, args):
        primitives.copy(builder, *args)
        return context.get_dummy_value(types.none)

    return signature(types.none, string, types.int64, string, types.int64, types.int64), codegen


@intrinsic
def _max_code_point(typingctx, s):
    def codegen(context, builder, sig, args):
        return builder.zext(primitives.max_code_point(builder, args[0]), refs.i64)

    return signature(types.int64, string), codegen


@intrinsic
def _same_bytes(typingctx, a, b):
    """Whether two strings hold the same kind, length and characters (that is, are equal)."""

    def codegen(context, builder, sig, args):
        a, b = args
        same_shape = builder.and_(
            builder.icmp_signed("==", primitives.kind(builder, a), primitives.kind(builder, b)),
            builder.icmp_signed("==", primitives.length(builder, a), primitives.length(builder, b)),
        )
        result = refs.alloca_in_entry(builder, refs.i1, "str.eq")
        builder.store(same_shape, result)
        with builder.if_then(same_shape):
            nbytes = builder.mul(primitives.length(builder, a), primitives.kind(builder, a))
            order = primitives.compare_bytes(
                builder, primitives.data(builder, a), primitives.data(builder, b), nbytes
            )
            builder.store(builder.icmp_signed("==", order, refs.i32_(0)), result)
        return builder.load(result, typ=refs.i1)

    return signature(types.boolean, string, string), codegen


@intrinsic
def _hash(typingctx, s):
    return signature(types.int64, string), lambda c, b, sig, args: primitives.string_hash(
        b, args[0]
    )


@intrinsic
def _char(typingctx, code):
    """The one-character string of a code point (latin-1 ones without allocating)."""

    def codegen(context, builder, sig, args):
        return char_string(context, builder, builder.trunc(args[0], refs.i32))

    return signature(string, types.int64), codegen


def char_string(context, builder, code: llvm.Value) -> llvm.Value:
    """The one-character string of the i32 `code`: latin-1 characters point into a constant
    table of the 256 of them (no meminfo); wider ones are allocated."""
    module = builder.module
    table = module.globals.get("ember.str.latin1")
    if table is None:
        table_type = llvm.ArrayType(refs.i8, 256)
        table = llvm.GlobalVariable(module, table_type, "ember.str.latin1")
        table.initializer = llvm.Constant(table_type, bytearray(range(256)))
        table.global_constant = True
        table.linkage = "internal"
    latin = builder.icmp_unsigned("<", code, refs.i32_(256))
    before = builder.block
    with builder.if_else(latin, likely=True) as (small, wide):
        with small:
            address = builder.gep(table, [refs.i32_(0), code], source_etype=table.value_type)
            null = llvm.Constant(refs.ptr, None)
            shared = primitives.assemble(builder, null, address, refs.const(1), refs.const(1))
            small_block = builder.block
        with wide:
            width = primitives.kind_of_code_point(builder, code)
            made = primitives.allocate(context, builder, width, refs.const(1))
            primitives.store_code_point(
                builder, width, primitives.data(builder, made), refs.const(0), code
            )
            wide_block = builder.block
    del before
    result = builder.phi(primitives.STRING)
    result.add_incoming(shared, small_block)
    result.add_incoming(made, wide_block)
    return result


def _canonical(s):
    """`s` in its narrowest kind (the library's strings must be canonical)."""
    raise NotImplementedError("_canonical runs only in compiled code")


@overload(_canonical)
def _canonical_overload(s):
    def canonical(s):
        width = _kind(s)
        if width == 1:
            return s
        largest = _max_code_point(s)
        needed = 1 if largest < 0x100 else (2 if largest < 0x10000 else 4)
        if needed == width:
            return s
        n = _length(s)
        out = _new(needed, n)
        _copy(out, 0, s, 0, n)
        return out

    return canonical


@intrinsic
def _view(typingctx, s, start, stop):
    """`s[start:stop]` sharing the characters (and the reference count) of `s`."""

    def codegen(context, builder, sig, args):
        return primitives.view(builder, *args)

    return signature(string, string, types.int64, types.int64), codegen


def substring(s, start, stop):
    """`s[start:stop]` for 0 <= start <= stop <= len(s) (called from compiled code only).

    A substring of a 1-byte string is a view that shares its characters: no copy, no
    allocation (the whole text stays alive while any piece of it does, as with NumPy views).
    Wider strings are copied, so that the piece takes its own narrowest kind."""
    raise NotImplementedError("substring runs only in compiled code")


@overload(substring)
def _substring_overload(s, start, stop):
    def impl(s, start, stop):
        if start == 0 and stop == _length(s):
            return s
        if _kind(s) == 1:
            return _view(s, start, stop)
        count = stop - start
        out = _new(_kind(s), count)
        _copy(out, 0, s, start, count)
        return _canonical(out)

    return impl


# ---------------------------------------------------------------------------- conversions


@lower_builtin(str, types.UnicodeType)
def str_of_string(context, builder, sig, args):
    refs.incref(builder, sig.args[0], args[0])
    return args[0]


@registry.typer(str)
def _type_str(args, kws):
    if len(args) == 1 and not kws and is_string(args[0]):
        return signature(string, string)
    return None


@overload(str)
def string_of_nothing(*args):
    if args:
        return None
    return lambda *args: ""  # str() is the empty string


@overload(bool)
def string_bool(s):
    if is_string(s):
        return lambda s: _length(s) != 0


@lower_cast(types.UnicodeType, types.Boolean)
def string_truth(context, builder, from_type, to_type, value):
    """`if s:`: not empty."""
    return builder.icmp_signed("!=", primitives.length(builder, value), refs.const(0))


@intrinsic(prefer_literal=True)
def deferred_text(typingctx, template, *members):
    """A message `template.format(*members)` written by Python only if the exception carrying
    it is raised (types.DeferredText): `raise ValueError(deferred_text("bad: {!r}", s))` costs
    no compiled `repr`. Members: strings, bytes, numbers, booleans."""
    if not isinstance(template, types.StringLiteral):
        return None
    kept = tuple(types.unliteral(member) for member in members)
    allowed = (types.UnicodeType, types.BytesType, types.Integer, types.Float, types.Boolean)
    if not all(isinstance(member, allowed) for member in kept):
        return None
    result = types.DeferredText(kept, template.literal_value)

    def codegen(context, builder, sig, args):
        value = llvm.Constant(context.value_type(result), llvm.Undefined)
        for k, (given, member, arg) in enumerate(zip(sig.args[1:], kept, args[1:])):
            arg = context.cast(builder, arg, given, member)
            refs.incref(builder, member, arg)  # the message owns its strings
            value = builder.insert_value(value, arg, k)
        return value

    return signature(result, template, *members), codegen


# ---------------------------------------------------------------------------- size and items


@overload(len)
def string_len(s):
    if is_string(s):
        return lambda s: _length(s)


@overload(operator.getitem)
def string_getitem(s, index):
    if not is_string(s):
        return None
    _refuse_bad_index(index, "string indices must be integers")
    if _index(index):

        def getitem(s, index):
            n = _length(s)
            if index < 0:
                index += n
            if index < 0 or index >= n:
                raise IndexError("string index out of range")
            return _char(_get(s, index))

        return getitem
    if isinstance(index, types.SliceType):

        def getslice(s, index):
            start, count, step = _slice_indices(index, _length(s))
            if step == 1:
                return substring(s, start, start + count)
            out = _new(_kind(s), count)
            for k in range(count):
                _set(out, k, _get(s, start + k * step))
            return _canonical(out)

        return getslice


@registry.typer(iter)
def _type_iter(args, kws):
    if len(args) == 1 and not kws and is_string(args[0]):
        return signature(string.iterator_type, string)
    return None


@register_model(types.UnicodeIterator)
class UnicodeIteratorModel(OpaqueModel):
    """A pointer to {string, next index} in the entry block of the function that made it."""


@lower_builtin(iter, types.UnicodeType)
def string_iter(context, builder, sig, args):
    return iterators.owning_state(context, builder, string, args[0])


@lower_builtin(next, types.UnicodeIterator)
def string_iternext(context, builder, sig, args):
    return next_code_point(
        context, builder, sig, args[0], lambda code: char_string(context, builder, code)
    )


def next_code_point(context, builder, sig, state, item_of):
    """`next` of an iterator over a string's code points (or a bytes value's bytes): the
    state is {string, next index}; `item_of(code)` makes the item from the code point."""
    state_type = llvm.LiteralStructType([primitives.STRING, refs.i64])
    value = builder.load(
        builder.gep(state, [refs.i32_(0), refs.i32_(0)], source_etype=state_type),
        typ=primitives.STRING,
    )
    index_slot = builder.gep(state, [refs.i32_(0), refs.i32_(1)], source_etype=state_type)
    index = builder.load(index_slot, typ=refs.i64)
    valid = builder.icmp_signed("<", index, primitives.length(builder, value))
    before = builder.block
    with builder.if_then(valid, likely=True):
        builder.store(builder.add(index, refs.const(1)), index_slot)
        item = item_of(primitives.code_point(builder, value, index))
        filled = builder.block
    return iterators.iternext_pair(context, builder, sig, (item, filled), before, valid)


# ---------------------------------------------------------------------------- searching


def find_from(s, sub, start, end):
    """The first index in `s[start:end]` (bounds already clamped) where `sub` starts, or -1."""
    raise NotImplementedError("find_from runs only in compiled code")


@overload(find_from)
def _find_from_overload(s, sub, start, end):
    def impl(s, sub, start, end):
        m = _length(sub)
        if m == 0:
            return start if start <= end else -1
        if m == 1:
            first = _get(sub, 0)
            for i in range(start, end):
                if _get(s, i) == first:
                    return i
            return -1
        if _kind(sub) > _kind(s):
            return -1  # a wider character than any in s
        first = _get(sub, 0)
        for i in range(start, end - m + 1):
            if _get(s, i) == first:
                k = 1
                while k < m and _get(s, i + k) == _get(sub, k):
                    k += 1
                if k == m:
                    return i
        return -1

    return impl


def rfind_from(s, sub, start, end):
    """The last index in `s[start:end]` (bounds already clamped) where `sub` starts, or -1."""
    raise NotImplementedError("rfind_from runs only in compiled code")


@overload(rfind_from)
def _rfind_from_overload(s, sub, start, end):
    def impl(s, sub, start, end):
        m = _length(sub)
        if m == 0:
            return end if start <= end else -1
        for i in range(end - m, start - 1, -1):
            k = 0
            while k < m and _get(s, i + k) == _get(sub, k):
                k += 1
            if k == m:
                return i
        return -1

    return impl


@overload(operator.contains)
def string_contains(s, sub):
    if is_string(s) and is_string(sub):
        return lambda s, sub: find_from(s, sub, 0, _length(s)) >= 0


# ---------------------------------------------------------------------------- comparisons


def compare(a, b):
    """-1, 0 or 1 as `a` sorts before, with or after `b` (by code points, as CPython)."""
    raise NotImplementedError("compare runs only in compiled code")


@intrinsic
def _compare_narrow(typingctx, a, b):
    """compare() of two 1-byte strings: memcmp of the common length (bytes compare as
    unsigned, the code points' order), then the shorter first."""

    def codegen(context, builder, sig, args):
        a, b = args
        la, lb = primitives.length(builder, a), primitives.length(builder, b)
        common = builder.select(builder.icmp_signed("<", la, lb), la, lb)
        order = primitives.compare_bytes(
            builder, primitives.data(builder, a), primitives.data(builder, b), common
        )
        by_length = builder.sub(
            builder.zext(builder.icmp_signed(">", la, lb), refs.i64),
            builder.zext(builder.icmp_signed("<", la, lb), refs.i64),
        )
        by_bytes = builder.sub(
            builder.zext(builder.icmp_signed(">", order, refs.i32_(0)), refs.i64),
            builder.zext(builder.icmp_signed("<", order, refs.i32_(0)), refs.i64),
        )
        return builder.select(builder.icmp_signed("==", order, refs.i32_(0)), by_length, by_bytes)

    return signature(types.int64, string, string), codegen


@register_jitable(_llvm_inline="never")  # one copy of the loop, whatever calls compare
def _compare_wide(a, b):
    la = _length(a)
    lb = _length(b)
    for i in range(min(la, lb)):
        ca = _get(a, i)
        cb = _get(b, i)
        if ca != cb:
            return -1 if ca < cb else 1
    return -1 if la < lb else (1 if la > lb else 0)


@overload(compare)
def _compare_overload(a, b):
    def impl(a, b):
        if _kind(a) == 1 and _kind(b) == 1:
            return _compare_narrow(a, b)
        return _compare_wide(a, b)

    return impl


def _comparison(test):
    def overload_function(a, b):
        if is_string(a) and is_string(b):
            return lambda a, b: test(compare(a, b), 0)
        return None

    return overload_function


@overload(operator.eq)
def string_eq(a, b):
    if is_string(a) and is_string(b):
        return lambda a, b: _same_bytes(a, b)


@overload(operator.ne)
def string_ne(a, b):
    if is_string(a) and is_string(b):
        return lambda a, b: not _same_bytes(a, b)


_NEVER_STRINGS = (types.Number, types.NoneType, types.BaseTuple, types.List, types.HashTable)


def _string_and_other(a: types.Type, b: types.Type) -> bool:
    """A string and a value of a type that never equals one (`"a" == 1` is False)."""
    return (is_string(a) and isinstance(b, _NEVER_STRINGS)) or (
        is_string(b) and isinstance(a, _NEVER_STRINGS)
    )


@overload(operator.eq)
def string_eq_other(a, b):
    if _string_and_other(a, b):
        return lambda a, b: False


@overload(operator.ne)
def string_ne_other(a, b):
    if _string_and_other(a, b):
        return lambda a, b: True


for _operator in (operator.lt, operator.le, operator.gt, operator.ge):
    overload(_operator)(_comparison(_operator))


@overload(hash)
def string_hash(s):
    if is_string(s):
        return lambda s: _hash(s)


# ---------------------------------------------------------------------------- + and *


@overload(operator.add)
def string_add(a, b):
    if is_string(a) and is_string(b):

        def add(a, b):
            la = _length(a)
            lb = _length(b)
            out = _new(max(_kind(a), _kind(b)), la + lb)
            _copy(out, 0, a, 0, la)
            _copy(out, la, b, 0, lb)
            return out

        return add


@overload(operator.iadd)
def string_iadd(a, b):
    if is_string(a) and is_string(b):
        return lambda a, b: a + b


@overload(operator.mul)
def string_mul(s, times):
    if is_string(s) and _index(times):

        def mul(s, times):
            n = _length(s)
            count = max(times, 0)
            out = _new(_kind(s), n * count)
            for k in range(count):
                _copy(out, k * n, s, 0, n)
            return out

        return mul
    if _index(s) and is_string(times):
        return lambda s, times: times * s


@overload(operator.imul)
def string_imul(s, times):
    if is_string(s) and _index(times):
        return lambda s, times: s * times


# ---------------------------------------------------------------------------- ord and chr


@overload(ord)
def string_ord(c):
    if is_string(c):

        def impl(c):
            if _length(c) != 1:
                message = "ord() expected a character, but string of length {} found"
                raise TypeError(deferred_text(message, _length(c)))
            return _get(c, 0)

        return impl


@overload(chr)
def string_chr(code):
    if _index(code):

        def impl(code):
            if code < 0 or code > 0x10FFFF:
                raise ValueError("chr() arg not in range(0x110000)")
            return _char(code)

        return impl
