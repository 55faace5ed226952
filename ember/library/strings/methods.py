"""`str` methods in compiled code as `@overload_method`s written in Python over the primitives
of ember/library/strings/core.py: split, join, strip, startswith/endswith, find/rfind/index/rindex/
count, replace, zfill, center/ljust/rjust. Case mappings and predicates live in
ember/library/strings/case.py."""

from __future__ import annotations

import functools

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic, overload, overload_method, register_jitable
from ember.library.containers.list_primitives import empty_list_for
from ember.library.strings.core import (
    _canonical,
    _copy,
    _get,
    _kind,
    _length,
    _new,
    _set,
    find_from,
    is_string,
    rfind_from,
    string,
    substring,
)
from ember.library.strings.unicode import SPACES
from ember.lowering import arrays as refs
from ember.lowering import lists
from ember.lowering import strings as primitives
from ember.typing.signature import signature

_ASCII_SPACES = (9, 10, 11, 12, 13, 28, 29, 30, 31, 32)
_WIDE_SPACES = tuple(code for code in SPACES if code >= 128)


def _is_none(typ) -> bool:
    return typ is None or isinstance(typ, types.NoneType)


def _is_int(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Boolean))


def _optional_int(typ) -> bool:
    return _is_none(typ) or _is_int(typ)


def require(accepted: bool, message: str) -> None:
    """Refuse a call whose argument types a method does not take, in Numba's words (which
    Numba-written tests match on); the surrounding error names the method and the types."""
    if not accepted:
        raise TypingError(message)


def require_type(typ, name: str, accepted: tuple | type) -> None:
    """Numba's check of one argument: '"start" must be (<class ...Integer>, <class
    ...NoneType>), not float64'; an omitted argument (its default) passes, an Optional is
    checked by the type it holds."""
    if typ is None or isinstance(typ, types.Omitted) or not isinstance(typ, types.Type):
        return
    held = types.unliteral(typ.type if isinstance(typ, types.Optional) else typ)
    classes = accepted if isinstance(accepted, tuple) else (accepted,)
    type_classes = tuple(c for c in classes if issubclass(c, types.Type))  # not int, bool
    require(isinstance(held, type_classes), f'"{name}" must be {accepted}, not {typ}')


_INDEX_TYPES = (types.Integer, types.NoneType)


@register_jitable
def is_space(code):
    """Whether the code point is whitespace (str.isspace), for every code point."""
    if code < 128:
        return code == 32 or 9 <= code <= 13 or 28 <= code <= 31
    for candidate in _WIDE_SPACES:
        if candidate == code:
            return True
    return False


# ---------------------------------------------------------------------------- bounds


def adjust_bounds(start, end, n):
    """CPython's ADJUST_INDICES for optional `start`/`end` (None: the whole string)."""
    raise NotImplementedError("adjust_bounds runs only in compiled code")


@overload(adjust_bounds)
def _adjust_bounds_overload(start, end, n):
    def clamp_end(end, n):
        if end > n:
            return n
        if end < 0:
            end += n
            return end if end > 0 else 0
        return end

    def clamp_start(start, n):
        if start < 0:
            start += n
            return start if start > 0 else 0
        return start

    clamp_end = register_jitable(clamp_end)
    clamp_start = register_jitable(clamp_start)
    if _is_none(start) and _is_none(end):
        return lambda start, end, n: (0, n)
    if _is_none(end):
        return lambda start, end, n: (clamp_start(start, n), n)
    if _is_none(start):
        return lambda start, end, n: (0, clamp_end(end, n))
    return lambda start, end, n: (clamp_start(start, n), clamp_end(end, n))


def _search_method(name: str):
    """find/rfind/index/rindex/count with optional start and end."""

    def overload_function(s, sub, start=None, end=None):
        if not is_string(s):
            return None
        if name == "count":
            require(is_string(sub), f"The substring must be a UnicodeType, not {type(sub)}")
            for bound in (start, end):
                held = bound.type if isinstance(bound, types.Optional) else bound
                require(
                    _optional_int(held) and not isinstance(held, types.Boolean),
                    "The slice indices must be an Integer or None",
                )
        else:
            require_type(sub, "substr", types.UnicodeType)
            require_type(start, "start", _INDEX_TYPES)
            require_type(end, "end", _INDEX_TYPES)
        if not (is_string(sub) and _optional_int(start) and _optional_int(end)):
            return None
        if name == "find":

            def impl(s, sub, start=None, end=None):
                low, high = adjust_bounds(start, end, _length(s))
                return find_from(s, sub, low, min(high, _length(s)))

        elif name == "rfind":

            def impl(s, sub, start=None, end=None):
                low, high = adjust_bounds(start, end, _length(s))
                return rfind_from(s, sub, low, high)

        elif name == "index":

            def impl(s, sub, start=None, end=None):
                low, high = adjust_bounds(start, end, _length(s))
                found = find_from(s, sub, low, high)
                if found < 0:
                    raise ValueError("substring not found")
                return found

        elif name == "rindex":

            def impl(s, sub, start=None, end=None):
                low, high = adjust_bounds(start, end, _length(s))
                found = rfind_from(s, sub, low, high)
                if found < 0:
                    raise ValueError("substring not found")
                return found

        else:

            def impl(s, sub, start=None, end=None):
                low, high = adjust_bounds(start, end, _length(s))
                if _length(sub) == 0:
                    return high - low + 1 if low <= high else 0
                found = 0
                position = find_from(s, sub, low, high)
                while position >= 0:
                    found += 1
                    position = find_from(s, sub, position + _length(sub), high)
                return found

        return impl

    overload_method(types.UnicodeType, name)(overload_function)


for _name in ("find", "rfind", "index", "rindex", "count"):
    _search_method(_name)


@register_jitable
def _matches_at(s, sub, position):
    for k in range(_length(sub)):
        if _get(s, position + k) != _get(sub, k):
            return False
    return True


def _affix_method(name: str):
    """startswith/endswith of a string or a tuple of strings, with optional start and end."""
    at_end = name == "endswith"

    @register_jitable
    def tail_match(s, sub, low, high):
        high -= _length(sub)
        if high < low:
            return False
        return _matches_at(s, sub, high if at_end else low)

    def overload_function(s, affix, start=None, end=None):
        if not is_string(s):
            return None
        for bound, bound_name in ((start, "start"), (end, "end")):
            require(
                _optional_int(bound.type if isinstance(bound, types.Optional) else bound),
                f"When specified, the arg '{bound_name}' must be an Integer or None",
            )
        if is_string(affix):

            def impl(s, affix, start=None, end=None):
                low, high = adjust_bounds(start, end, _length(s))
                return tail_match(s, affix, low, high)

            return impl
        if isinstance(affix, types.BaseTuple) and all(is_string(t) for t in affix.types):
            return _any_of_tuple(len(affix.types), tail_match)
        what = "prefix" if name == "startswith" else "suffix"
        raise TypingError(
            f"The arg '{what}' should be a string or a tuple of strings "
            f"(str.{name}() takes a str or a tuple of str, not {affix})"
        )

    overload_method(types.UnicodeType, name)(overload_function)


@functools.cache
def _any_of_tuple(count: int, tail_match):
    """`impl(s, affix, start, end)` testing each member of a tuple of `count` strings (which
    may be literals of different types, so the members are indexed by constants); one per
    count and method, as overload resolution asks for the same implementation each time."""
    tests = " or ".join(f"tail_match(s, affix[{k}], low, high)" for k in range(count))
    source = (
        "def impl(s, affix, start=None, end=None):\n"
        "    low, high = adjust_bounds(start, end, _length(s))\n"
        f"    return {tests or 'False'}\n"
    )
    namespace = {"tail_match": tail_match, "adjust_bounds": adjust_bounds, "_length": _length}
    exec(source, namespace)  # noqa: S102 - a fixed template over a count
    return namespace["impl"]


_affix_method("startswith")
_affix_method("endswith")


# ---------------------------------------------------------------------------- split and join


def _string_list(typ) -> bool:
    return isinstance(typ, types.List) and is_string(typ.dtype)


@intrinsic
def _append_view(typingctx, xs, s, start, stop):
    """`xs.append(s[start:stop])` for a 1-byte `s`: the view goes straight into the list
    (one reference count update per piece)."""
    if not _string_list(xs):
        return None

    def codegen(context, builder, sig, args):
        xs, value, start, stop = args
        list_type = sig.args[0]
        count = lists.length(builder, xs)
        lists.reserve(context, builder, list_type, xs, builder.add(count, refs.const(1)))
        pointer = lists.item_pointer(context, builder, list_type, xs, count)
        refs.store_item(builder, string, primitives.view(builder, value, start, stop), pointer)
        lists.set_length(builder, xs, builder.add(count, refs.const(1)))
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, string, types.int64, types.int64), codegen


def _each_item(context, builder, list_type, xs):
    """`for item in xs` over the list's storage, without reference counting (the list keeps
    its items alive): yields the item's value."""
    with refs.for_range(builder, lists.length(builder, xs)) as index:
        pointer = lists.item_pointer(context, builder, list_type, xs, index)
        yield index, refs.load_item(builder, list_type.dtype, pointer)


@intrinsic
def _joined_size(typingctx, xs):
    """(code points of all the items, widest kind among them) of a list of strings."""
    if not _string_list(xs):
        return None

    def codegen(context, builder, sig, args):
        total = refs.alloca_in_entry(builder, refs.i64, "join.total")
        width = refs.alloca_in_entry(builder, refs.i64, "join.kind")
        builder.store(refs.const(0), total)
        builder.store(refs.const(1), width)
        for _, item in _each_item(context, builder, sig.args[0], args[0]):
            grown = builder.add(builder.load(total, typ=refs.i64), primitives.length(builder, item))
            builder.store(grown, total)
            widest = builder.load(width, typ=refs.i64)
            item_kind = primitives.kind(builder, item)
            wider = builder.icmp_signed(">", item_kind, widest)
            builder.store(builder.select(wider, item_kind, widest), width)
        pair = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
        pair = builder.insert_value(pair, builder.load(total, typ=refs.i64), 0)
        return builder.insert_value(pair, builder.load(width, typ=refs.i64), 1)

    return signature(types.UniTuple(types.int64, 2), xs), codegen


@intrinsic
def _join_into(typingctx, out, sep, xs):
    """Copy the items of `xs` separated by `sep` into `out` (sized by `_joined_size`)."""
    if not _string_list(xs):
        return None

    def codegen(context, builder, sig, args):
        out, sep, xs = args
        position = refs.alloca_in_entry(builder, refs.i64, "join.position")
        builder.store(refs.const(0), position)
        sep_length = primitives.length(builder, sep)
        for index, item in _each_item(context, builder, sig.args[2], xs):
            at = builder.load(position, typ=refs.i64)
            with builder.if_then(builder.icmp_signed(">", index, refs.const(0))):
                primitives.copy(builder, out, at, sep, refs.const(0), sep_length)
            at = builder.load(position, typ=refs.i64)
            at = builder.select(
                builder.icmp_signed(">", index, refs.const(0)), builder.add(at, sep_length), at
            )
            item_length = primitives.length(builder, item)
            primitives.copy(builder, out, at, item, refs.const(0), item_length)
            builder.store(builder.add(at, item_length), position)
        return context.get_dummy_value(types.none)

    return signature(types.none, string, string, xs), codegen


@register_jitable
def _split_whitespace(s, sep=None, maxsplit=-1):
    out = empty_list_for(s)
    n = _length(s)
    narrow = _kind(s) == 1
    i = 0
    while True:
        while i < n and is_space(_get(s, i)):
            i += 1
        if i == n:
            break
        if maxsplit >= 0 and len(out) == maxsplit:
            out.append(substring(s, i, n))
            break
        j = i + 1
        while j < n and not is_space(_get(s, j)):
            j += 1
        if narrow:
            _append_view(out, s, i, j)
        else:
            out.append(substring(s, i, j))
        i = j
    return out


@register_jitable
def _split_separator(s, sep=None, maxsplit=-1):
    m = _length(sep)
    if m == 0:
        raise ValueError("empty separator")
    out = empty_list_for(s)
    n = _length(s)
    narrow = _kind(s) == 1
    i = 0
    while maxsplit < 0 or len(out) < maxsplit:
        j = find_from(s, sep, i, n)
        if j < 0:
            break
        if narrow:
            _append_view(out, s, i, j)
        else:
            out.append(substring(s, i, j))
        i = j + m
    out.append(substring(s, i, n))
    return out


@overload_method(types.UnicodeType, "split")
def string_split(s, sep=None, maxsplit=-1):
    if not (is_string(s) and (_is_int(maxsplit) or maxsplit == -1)):
        return None
    if _is_none(sep):
        return _split_whitespace  # (themselves, not lambdas calling them: a library fewer)
    if is_string(sep):
        return _split_separator
    if isinstance(sep, types.Optional) and is_string(sep.type):

        def split_optional(s, sep=None, maxsplit=-1):  # None or a str, known when it runs
            if sep is None:
                return _split_whitespace(s, None, maxsplit)
            return _split_separator(s, sep, maxsplit)

        return split_optional
    return None


@overload_method(types.UnicodeType, "join")
def string_join(sep, parts):
    if not is_string(sep):
        return None
    if _string_list(parts):

        def join_list(sep, parts):
            count = len(parts)
            if count == 0:
                return substring(sep, 0, 0)
            total, width = _joined_size(parts)
            if count > 1:
                total += _length(sep) * (count - 1)
                width = max(width, _kind(sep))
            out = _new(width, total)
            _join_into(out, sep, parts)
            return out

        return join_list
    if isinstance(parts, types.UniTuple) and is_string(parts.dtype):

        def join(sep, parts):
            count = len(parts)
            if count == 0:
                return substring(sep, 0, 0)
            total = _length(sep) * (count - 1)
            width = _kind(sep) if count > 1 else 1
            for part in parts:
                total += _length(part)
                width = max(width, _kind(part))
            out = _new(width, total)
            position = 0
            first = True
            for part in parts:
                if not first:
                    _copy(out, position, sep, 0, _length(sep))
                    position += _length(sep)
                first = False
                _copy(out, position, part, 0, _length(part))
                position += _length(part)
            return out

        return join
    if isinstance(parts, types.BaseTuple) and all(map(is_string, parts.types)):
        return _join_string_members(len(parts.types))  # ("a", "bc"): constants of two types
    if is_string(parts) or is_string(_yield_type(parts)):  # a str, generator, map, set...
        return lambda sep, parts: sep.join([part for part in parts])
    raise TypingError(
        f"str.join() takes an iterable of str, not {parts} (During: resolving callee type: "
        "BoundFunction((UnicodeType, 'join') for unicode_type))"  # what Numba's tests match
    )


@functools.cache
def _join_string_members(count: int):
    """`sep.join(parts)` for a tuple of `count` strings whose types differ (string constants
    of different text): the tuple rebuilt is a tuple of plain strings."""
    if count == 0:
        return lambda sep, parts: substring(sep, 0, 0)
    members = "".join(f"parts[{index}], " for index in range(count))
    namespace: dict = {}
    exec(f"def join(sep, parts):\n    return sep.join(({members}))\n", namespace)  # noqa: S102
    return namespace["join"]


def _yield_type(iterable: types.Type) -> types.Type | None:
    """The type of the items iterating over `iterable` gives (an iterator: its own)."""
    iterator = getattr(iterable, "iterator_type", iterable)
    return getattr(iterator, "yield_type", None)


# ---------------------------------------------------------------------------- strip


def _strip_method(name: str, left: bool, right: bool):
    @register_jitable
    def strippable(code, chars):
        for k in range(_length(chars)):
            if _get(chars, k) == code:
                return True
        return False

    @register_jitable
    def strip_spaces(s):
        low = 0
        high = _length(s)
        if left:
            while low < high and is_space(_get(s, low)):
                low += 1
        if right:
            while high > low and is_space(_get(s, high - 1)):
                high -= 1
        return substring(s, low, high)

    @register_jitable
    def strip_chars(s, chars):
        low = 0
        high = _length(s)
        if left:
            while low < high and strippable(_get(s, low), chars):
                low += 1
        if right:
            while high > low and strippable(_get(s, high - 1), chars):
                high -= 1
        return substring(s, low, high)

    def overload_function(s, chars=None):
        if not is_string(s):
            return None
        if _is_none(chars):
            return lambda s, chars=None: strip_spaces(s)
        if is_string(chars):
            return lambda s, chars=None: strip_chars(s, chars)
        if isinstance(chars, types.Optional) and is_string(chars.type):

            def impl_optional(s, chars=None):  # None or a str, known when it runs
                if chars is None:
                    return strip_spaces(s)
                return strip_chars(s, chars)

            return impl_optional
        raise TypingError(
            f"The arg must be a UnicodeType or None (str.{name}() takes None or a str, not {chars})"
        )

    overload_method(types.UnicodeType, name)(overload_function)


_strip_method("strip", True, True)
_strip_method("lstrip", True, False)
_strip_method("rstrip", False, True)


# ---------------------------------------------------------------------------- replace


@overload_method(types.UnicodeType, "replace")
def string_replace(s, old, new, count=-1):
    if not is_string(s):
        return None
    require(
        _is_int(count) or count == -1,
        f"Unsupported parameters. The parameters must be Integer. Given count: {count}",
    )
    for part in (old, new):
        require(is_string(part), f"The object must be a UnicodeType. Given: {part}")

    def replace(s, old, new, count=-1):
        n = _length(s)
        m = _length(old)
        limit = count if count >= 0 else n + 1
        # first pass: how many replacements
        found = 0
        if m == 0:
            found = min(n + 1, limit)
        else:
            position = find_from(s, old, 0, n)
            while position >= 0 and found < limit:
                found += 1
                position = find_from(s, old, position + m, n)
        if found == 0:
            return s
        width = max(_kind(s), _kind(new))
        out = _new(width, n + found * (_length(new) - m))
        source = 0
        target = 0
        for k in range(found):
            if m == 0:
                hit = k
            else:
                hit = find_from(s, old, source, n)
            _copy(out, target, s, source, hit - source)
            target += hit - source
            _copy(out, target, new, 0, _length(new))
            target += _length(new)
            source = hit + m
            if m == 0 and k < n:  # the character after this insertion point
                _copy(out, target, s, source, 1)
                target += 1
                source += 1
        _copy(out, target, s, source, n - source)
        return _canonical(out)

    return replace


# ---------------------------------------------------------------------------- padding


@register_jitable
def _padded(s, left, right, fill):
    n = _length(s)
    out = _new(max(_kind(s), _kind(fill)), left + n + right)
    code = _get(fill, 0)
    for k in range(left):
        _set(out, k, code)
    _copy(out, left, s, 0, n)
    for k in range(right):
        _set(out, left + n + k, code)
    return out


class FillCharacterError(TypeError, ValueError):
    """A fill character that is not one character: CPython raises a TypeError, Numba a
    ValueError; this is both, so code written for either catches it."""


def _pad_method(name: str):
    def overload_function(s, width, fillchar=" "):
        if not is_string(s):
            return None
        require(_is_int(width), "The width must be an Integer")
        require(fillchar == " " or is_string(fillchar), "The fillchar must be a UnicodeType")

        def impl(s, width, fillchar=" "):
            if _length(fillchar) != 1:
                raise FillCharacterError("The fill character must be exactly one character long")
            margin = width - _length(s)
            if margin <= 0:
                return s
            if name == "ljust":
                return _padded(s, 0, margin, fillchar)
            if name == "rjust":
                return _padded(s, margin, 0, fillchar)
            left = margin // 2 + (margin & width & 1)
            return _padded(s, left, margin - left, fillchar)

        return impl

    overload_method(types.UnicodeType, name)(overload_function)


for _name in ("center", "ljust", "rjust"):
    _pad_method(_name)


@overload_method(types.UnicodeType, "zfill")
def string_zfill(s, width):
    if not is_string(s):
        return None
    require(_is_int(width), "<width> must be an Integer")

    def zfill(s, width):
        n = _length(s)
        if n >= width:
            return s
        out = _padded(s, width - n, 0, "0")
        if n > 0:
            first = _get(s, 0)
            if first == 43 or first == 45:  # '+' or '-' moves in front of the zeros
                _set(out, 0, first)
                _set(out, width - n, 48)
        return out

    return zfill
