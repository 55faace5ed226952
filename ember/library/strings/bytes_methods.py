"""`bytes` methods in compiled code, with CPython's results. Searching, splitting by a
separator, joining, padding and replacing run the `str` methods on the bytes viewed as a kind-1
string (ember/library/strings/bytes.py); case mappings, case and class predicates, whitespace
stripping and splitting, and splitlines follow bytes' ASCII rules (b'\\xe9'.upper() stays
b'\\xe9'); `bool`, `bytes(b)`, `hex()`, and the b'...' text of `repr`/`str`."""

from __future__ import annotations

import operator

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic, lower_cast, overload, overload_method, register_jitable
from ember.library.builtins.enumerate_zip import iterator_of
from ember.library.containers.dicts import class_method
from ember.library.containers.list_primitives import empty_list_for
from ember.library.strings.bytes import BytesType, _as_bytes, _as_text, bytes_type
from ember.library.strings.case import ALPHA, DECIMAL, LOWER, UPPER, _flags
from ember.library.strings.core import (
    _get,
    _length,
    _new,
    _set,
    deferred_text,
    is_string,
    string,
    substring,
)
from ember.library.strings.methods import _is_int, _is_none
from ember.lowering import arrays as refs
from ember.lowering import strings as primitives
from ember.typing.overload import as_type
from ember.typing.signature import signature

_text_list, _bytes_list = types.List(string), types.List(bytes_type)
# bytes.isspace() and bytes.split(): space, \t, \n, \v, \f, \r (str adds \x1c-\x1f, \x85, \xa0)
_ASCII_WHITESPACE = " \t\n\x0b\x0c\r"


def _is_bytes(typ) -> bool:
    return isinstance(typ, BytesType)


def _view_as(source: types.Type, target: types.Type):
    """An intrinsic viewing a value of `source` as `target`: one model, a new reference."""

    def view(typingctx, value):
        if value != source:
            return None

        def codegen(context, builder, sig, args):
            refs.incref(builder, source, args[0])
            return args[0]

        return signature(target, source), codegen

    return intrinsic(view)


# lists of str and of bytes share one model: the items are the same kind-1 strings
_as_bytes_list = _view_as(_text_list, _bytes_list)
_as_text_list = _view_as(_bytes_list, _text_list)


def _optional_bytes(typ) -> bool:
    return _is_none(typ) or _is_bytes(typ)


# ---------------------------------------------------------------------------- search


def _needle(sub):
    raise NotImplementedError("_needle runs only in compiled code")


@overload(_needle)
def _needle_overload(sub):
    """What `sub in b`-style methods look for: bytes, or one byte value (0..255)."""
    if _is_bytes(sub):
        return lambda sub: _as_text(sub)
    if _is_int(sub):

        def byte(sub):
            if sub < 0 or sub > 255:
                raise ValueError("byte must be in range(0, 256)")
            return chr(sub)

        return byte
    return None


def _searchable(b, sub, start, end) -> bool:
    def bound(typ):
        return _is_none(typ) or _is_int(typ)

    return _is_bytes(b) and (_is_bytes(sub) or _is_int(sub)) and bound(start) and bound(end)


@overload_method(BytesType, "find")
def bytes_find(b, sub, start=None, end=None):
    if _searchable(b, sub, start, end):
        return lambda b, sub, start=None, end=None: _as_text(b).find(_needle(sub), start, end)


@overload_method(BytesType, "rfind")
def bytes_rfind(b, sub, start=None, end=None):
    if _searchable(b, sub, start, end):
        return lambda b, sub, start=None, end=None: _as_text(b).rfind(_needle(sub), start, end)


@overload_method(BytesType, "count")
def bytes_count(b, sub, start=None, end=None):
    if _searchable(b, sub, start, end):
        return lambda b, sub, start=None, end=None: _as_text(b).count(_needle(sub), start, end)


@overload_method(BytesType, "index")
def bytes_index(b, sub, start=None, end=None):
    if _searchable(b, sub, start, end):

        def index(b, sub, start=None, end=None):
            found = _as_text(b).find(_needle(sub), start, end)
            if found < 0:
                raise ValueError("subsection not found")  # CPython's bytes wording
            return found

        return index


@overload_method(BytesType, "rindex")
def bytes_rindex(b, sub, start=None, end=None):
    if _searchable(b, sub, start, end):

        def rindex(b, sub, start=None, end=None):
            found = _as_text(b).rfind(_needle(sub), start, end)
            if found < 0:
                raise ValueError("subsection not found")
            return found

        return rindex


def _affix_method(name: str):
    """startswith/endswith of bytes or a tuple of bytes, with optional start and end."""
    at_end = name == "endswith"

    @register_jitable
    def matches(text, affix, start, end):
        if at_end:
            return text.endswith(affix, start, end)
        return text.startswith(affix, start, end)

    def overload_function(b, affix, start=None, end=None):
        if not (_is_bytes(b) and _searchable(b, bytes_type, start, end)):
            return None
        if _is_bytes(affix):
            return lambda b, affix, start=None, end=None: matches(
                _as_text(b), _as_text(affix), start, end
            )
        if isinstance(affix, types.UniTuple) and _is_bytes(affix.dtype):

            def any_of(b, affix, start=None, end=None):
                for one in affix:
                    if matches(_as_text(b), _as_text(one), start, end):
                        return True
                return False

            return any_of
        raise TypingError(f"bytes.{name}() takes bytes or a tuple of bytes, not {affix}")

    overload_method(BytesType, name)(overload_function)


_affix_method("startswith")
_affix_method("endswith")


# ---------------------------------------------------------------------------- split and join


@register_jitable
def _is_ascii_space(code):
    return code == 32 or 9 <= code <= 13


@register_jitable
def _split_ascii_whitespace(b, maxsplit):
    text = _as_text(b)
    out = empty_list_for(b)
    n = _length(text)
    i = 0
    while True:
        while i < n and _is_ascii_space(_get(text, i)):
            i += 1
        if i == n:
            break
        if maxsplit >= 0 and len(out) == maxsplit:
            out.append(_as_bytes(substring(text, i, n)))
            break
        j = i + 1
        while j < n and not _is_ascii_space(_get(text, j)):
            j += 1
        out.append(_as_bytes(substring(text, i, j)))
        i = j
    return out


@register_jitable
def _rsplit_ascii_whitespace(b, maxsplit):
    text = _as_text(b)
    out = empty_list_for(b)
    j = _length(text)
    while True:
        while j > 0 and _is_ascii_space(_get(text, j - 1)):
            j -= 1
        if j == 0:
            break
        if maxsplit >= 0 and len(out) == maxsplit:
            out.append(_as_bytes(substring(text, 0, j)))
            break
        i = j - 1
        while i > 0 and not _is_ascii_space(_get(text, i - 1)):
            i -= 1
        out.append(_as_bytes(substring(text, i, j)))
        j = i
    out.reverse()
    return out


def _split_method(name: str):
    from_right = name == "rsplit"

    def overload_function(b, sep=None, maxsplit=-1):
        if not (_is_bytes(b) and _optional_bytes(sep) and (_is_int(maxsplit) or maxsplit == -1)):
            return None
        if _is_none(sep):
            if from_right:
                return lambda b, sep=None, maxsplit=-1: _rsplit_ascii_whitespace(b, maxsplit)
            return lambda b, sep=None, maxsplit=-1: _split_ascii_whitespace(b, maxsplit)
        if from_right:
            return lambda b, sep=None, maxsplit=-1: _as_bytes_list(
                _as_text(b).rsplit(_as_text(sep), maxsplit)
            )
        return lambda b, sep=None, maxsplit=-1: _as_bytes_list(
            _as_text(b).split(_as_text(sep), maxsplit)
        )

    overload_method(BytesType, name)(overload_function)


_split_method("split")
_split_method("rsplit")


@overload_method(BytesType, "splitlines")
def bytes_splitlines(b, keepends=False):
    """Lines end at \\n, \\r or \\r\\n only (str also splits at \\v, \\f, \\x1c.. and \\x85)."""
    if not (_is_bytes(b) and (keepends is False or _is_int(keepends))):
        return None

    def splitlines(b, keepends=False):
        text = _as_text(b)
        out = empty_list_for(b)
        n = _length(text)
        i = 0
        while i < n:
            j = i
            while j < n and _get(text, j) != 10 and _get(text, j) != 13:
                j += 1
            end = j
            if j < n:
                j += 2 if _get(text, j) == 13 and j + 1 < n and _get(text, j + 1) == 10 else 1
            out.append(_as_bytes(substring(text, i, j if keepends else end)))
            i = j
        return out

    return splitlines


@overload_method(BytesType, "join")
def bytes_join(b, parts):
    if not _is_bytes(b):
        return None
    if parts == _bytes_list:
        return lambda b, parts: _as_bytes(_as_text(b).join(_as_text_list(parts)))
    iterator = getattr(parts, "iterator_type", parts)
    items = parts.dtype if isinstance(parts, types.UniTuple) else None
    if _is_bytes(items) or _is_bytes(getattr(iterator, "yield_type", None)):
        return lambda b, parts: _as_bytes(_as_text(b).join([_as_text(part) for part in parts]))
    raise TypingError(f"bytes.join() takes an iterable of bytes, not {parts}")


def _partition_method(name: str):
    from_right = name == "rpartition"

    def overload_function(b, sep):
        if not (_is_bytes(b) and _is_bytes(sep)):
            return None

        def partition(b, sep):
            text = _as_text(b)
            if from_right:
                head, middle, tail = text.rpartition(_as_text(sep))
            else:
                head, middle, tail = text.partition(_as_text(sep))
            return _as_bytes(head), _as_bytes(middle), _as_bytes(tail)

        return partition

    overload_method(BytesType, name)(overload_function)


_partition_method("partition")
_partition_method("rpartition")


# ---------------------------------------------------------------------------- strip, replace


def _strip_method(name: str):
    left, right = name != "rstrip", name != "lstrip"

    @register_jitable
    def stripped(b, chars):
        text = _as_text(b)
        if left and right:
            return _as_bytes(text.strip(chars))
        if left:
            return _as_bytes(text.lstrip(chars))
        return _as_bytes(text.rstrip(chars))

    def overload_function(b, chars=None):
        if not (_is_bytes(b) and _optional_bytes(chars)):
            return None
        if _is_none(chars):
            return lambda b, chars=None: stripped(b, _ASCII_WHITESPACE)
        return lambda b, chars=None: stripped(b, _as_text(chars))

    overload_method(BytesType, name)(overload_function)


for _name in ("strip", "lstrip", "rstrip"):
    _strip_method(_name)


@overload_method(BytesType, "replace")
def bytes_replace(b, old, new, count=-1):
    if _is_bytes(b) and _is_bytes(old) and _is_bytes(new) and (_is_int(count) or count == -1):
        return lambda b, old, new, count=-1: _as_bytes(
            _as_text(b).replace(_as_text(old), _as_text(new), count)
        )


@overload_method(BytesType, "removeprefix")
def bytes_removeprefix(b, prefix):
    if _is_bytes(b) and _is_bytes(prefix):
        return lambda b, prefix: _as_bytes(_as_text(b).removeprefix(_as_text(prefix)))


@overload_method(BytesType, "removesuffix")
def bytes_removesuffix(b, suffix):
    if _is_bytes(b) and _is_bytes(suffix):
        return lambda b, suffix: _as_bytes(_as_text(b).removesuffix(_as_text(suffix)))


# ---------------------------------------------------------------------------- padding


def _pad_method(name: str):
    message = f"{name}() argument 2 must be a byte string of length 1, not bytes"

    @register_jitable
    def padded(text, width, fill):
        if name == "center":
            return text.center(width, fill)
        if name == "ljust":
            return text.ljust(width, fill)
        return text.rjust(width, fill)

    def overload_function(b, width, fillchar=b" "):
        if not (_is_bytes(b) and _is_int(width) and _is_bytes(as_type(fillchar))):
            return None

        def impl(b, width, fillchar=b" "):
            if len(fillchar) != 1:
                raise TypeError(message)
            return _as_bytes(padded(_as_text(b), width, _as_text(fillchar)))

        return impl

    overload_method(BytesType, name)(overload_function)


for _name in ("center", "ljust", "rjust"):
    _pad_method(_name)


@overload_method(BytesType, "zfill")
def bytes_zfill(b, width):
    if _is_bytes(b) and _is_int(width):
        return lambda b, width: _as_bytes(_as_text(b).zfill(width))


@overload_method(BytesType, "expandtabs")
def bytes_expandtabs(b, tabsize=8):
    if _is_bytes(b) and (tabsize == 8 or _is_int(tabsize)):
        return lambda b, tabsize=8: _as_bytes(_as_text(b).expandtabs(tabsize))


# ---------------------------------------------------------------------------- ASCII case


@register_jitable
def _ascii_flags(code):
    """The str flags of an ASCII byte; a byte from 128 up is no letter, digit nor space."""
    return _flags(code) if code < 128 else 0


_UPPER_MODE, _LOWER_MODE, _SWAP_MODE, _TITLE_MODE, _CAPITALIZE_MODE = range(5)
_MODE_NAMES = ("upper", "lower", "swapcase", "title", "capitalize")


@register_jitable
def _map_ascii_case(b, mode):
    text = _as_text(b)
    n = _length(text)
    out = _new(1, n)
    previous_cased = False
    for index in range(n):
        code = _get(text, index)
        flags = _ascii_flags(code)
        if mode == _UPPER_MODE:
            upper = True
        elif mode == _LOWER_MODE:
            upper = False
        elif mode == _SWAP_MODE:
            upper = flags & LOWER != 0
        elif mode == _TITLE_MODE:
            upper = not previous_cased
        else:
            upper = index == 0
        if upper and flags & LOWER:
            code -= 32
        elif not upper and flags & UPPER:
            code += 32
        previous_cased = flags & (UPPER | LOWER) != 0
        _set(out, index, code)
    return _as_bytes(out)


def _case_method(mode: int):
    def overload_function(b):
        if _is_bytes(b):
            return lambda b: _map_ascii_case(b, mode)
        return None

    overload_method(BytesType, _MODE_NAMES[mode])(overload_function)


for _mode in range(len(_MODE_NAMES)):
    _case_method(_mode)


def _all_method(name: str, wanted: int):
    """`b.isX()`: non-empty and every byte an ASCII character with one of the `wanted` flags."""

    def overload_function(b):
        if not _is_bytes(b):
            return None

        def impl(b):
            text = _as_text(b)
            n = _length(text)
            for index in range(n):
                if _ascii_flags(_get(text, index)) & wanted == 0:
                    return False
            return n > 0

        return impl

    overload_method(BytesType, name)(overload_function)


_all_method("isalpha", ALPHA)
_all_method("isdigit", DECIMAL)
_all_method("isalnum", ALPHA | DECIMAL)


@overload_method(BytesType, "isspace")
def bytes_isspace(b):
    if _is_bytes(b):

        def isspace(b):
            text = _as_text(b)
            for index in range(_length(text)):
                if not _is_ascii_space(_get(text, index)):
                    return False
            return _length(text) > 0

        return isspace


def _cased_method(name: str, wanted: int, unwanted: int):
    def overload_function(b):
        if not _is_bytes(b):
            return None

        def impl(b):
            text = _as_text(b)
            cased = False
            for index in range(_length(text)):
                flags = _ascii_flags(_get(text, index))
                if flags & unwanted:
                    return False
                cased |= flags & wanted != 0
            return cased

        return impl

    overload_method(BytesType, name)(overload_function)


_cased_method("isupper", UPPER, LOWER)
_cased_method("islower", LOWER, UPPER)


@overload_method(BytesType, "istitle")
def bytes_istitle(b):
    if _is_bytes(b):

        def istitle(b):
            text = _as_text(b)
            cased = previous_cased = False
            for index in range(_length(text)):
                flags = _ascii_flags(_get(text, index))
                if flags & UPPER:
                    if previous_cased:
                        return False
                    previous_cased = cased = True
                elif flags & LOWER:
                    if not previous_cased:
                        return False
                    previous_cased = cased = True
                else:
                    previous_cased = False
            return cased

        return istitle


@overload_method(BytesType, "isascii")
def bytes_isascii(b):
    if _is_bytes(b):
        return lambda b: _as_text(b).isascii()


# ---------------------------------------------------------------------------- conversions


@overload(bool)
def bytes_bool(b):
    if _is_bytes(b):
        return lambda b: _length(_as_text(b)) > 0


@overload(operator.not_)
def bytes_not(b):
    if _is_bytes(b):
        return lambda b: _length(_as_text(b)) == 0


@lower_cast(BytesType, types.Boolean)
def bytes_truth(context, builder, from_type, to_type, value):
    """`if b:`: not empty."""
    return builder.icmp_signed("!=", primitives.length(builder, value), refs.const(0))


@overload(bytes)
def bytes_of_bytes(b):
    if _is_bytes(b):
        return lambda b: b
    return None


@overload(bytes)
def bytes_of_count_or_ints(source):
    """`bytes(n)`: n zero bytes; `bytes(ints)`: the bytes of an iterable of ints, each in
    range(256) (CPython's ValueErrors otherwise)."""
    if _is_int(source):

        def zeros(source):
            if source < 0:
                raise ValueError("negative count")
            out = _new(1, source)
            for index in range(source):
                _set(out, index, 0)
            return _as_bytes(out)

        return zeros
    iterator = iterator_of(source)
    if iterator is not None and _is_int(iterator.yield_type):

        def from_ints(source):
            codes = empty_list_for(0)
            for code in source:
                if code < 0 or code > 255:
                    raise ValueError("bytes must be in range(0, 256)")
                codes.append(code)
            out = _new(1, len(codes))
            for index in range(len(codes)):
                _set(out, index, codes[index])
            return _as_bytes(out)

        return from_ints
    return None


_HEX_DIGITS = "0123456789abcdef"


@overload_method(BytesType, "hex")
def bytes_hex(b):
    if _is_bytes(b):

        def hex_text(b):
            text = _as_text(b)
            n = _length(text)
            out = _new(1, 2 * n)
            for index in range(n):
                code = _get(text, index)
                _set(out, 2 * index, _get(_HEX_DIGITS, code >> 4))
                _set(out, 2 * index + 1, _get(_HEX_DIGITS, code & 15))
            return out

        return hex_text


def bytes_fromhex(text):
    """`bytes.fromhex(text)` as compiled code calls it."""
    return bytes.fromhex(text)


@overload(bytes_fromhex)
def _bytes_fromhex_overload(text):
    if is_string(text):
        return _from_hex


def _from_hex(text):
    """Two hex digits a byte; ASCII whitespace between the bytes is skipped (CPython's)."""
    n = _length(text)
    out = _new(1, n // 2)
    count = 0
    index = 0
    while index < n:
        code = _get(text, index)
        if code == 32 or 9 <= code <= 13:
            index += 1
            continue
        high = _hex_value(code)
        low = _hex_value(_get(text, index + 1)) if index + 1 < n else -1
        if high < 0 or low < 0:
            at = index if high < 0 else index + 1
            message = "non-hexadecimal number found in fromhex() arg at position {}"
            raise ValueError(deferred_text(message, at))
        _set(out, count, high * 16 + low)
        count += 1
        index += 2
    return _as_bytes(substring(out, 0, count))


@register_jitable
def _hex_value(code):
    """The value of a hex digit's code point, or -1."""
    if 48 <= code <= 57:
        return code - 48
    if 97 <= code <= 102:
        return code - 87
    if 65 <= code <= 70:
        return code - 55
    return -1


class_method(bytes, "fromhex", bytes_fromhex)


@register_jitable
def _bytes_escape(code, quote):
    """The text standing for one byte inside the quotes of a bytes repr."""
    if code == quote or code == 92:
        return "\\" + chr(code)
    if code == 9:
        return "\\t"
    if code == 10:
        return "\\n"
    if code == 13:
        return "\\r"
    if code < 32 or code >= 127:
        return "\\x" + _HEX_DIGITS[code >> 4] + _HEX_DIGITS[code & 15]
    return chr(code)


@register_jitable
def _bytes_repr(b):
    text = _as_text(b)
    n = _length(text)
    has_single = has_double = False
    for index in range(n):
        has_single |= _get(text, index) == 39
        has_double |= _get(text, index) == 34
    quote = 34 if has_single and not has_double else 39
    parts = ["b" + chr(quote)]
    for index in range(n):
        parts.append(_bytes_escape(_get(text, index), quote))
    parts.append(chr(quote))
    return "".join(parts)


@overload(repr)
def bytes_repr(b):
    """CPython's b'...' text (str() of bytes is the same)."""
    if _is_bytes(b):
        return lambda b: _bytes_repr(b)
    return None


@overload(str)
def bytes_str(b):
    if _is_bytes(b):
        return lambda b: _bytes_repr(b)
    return None
