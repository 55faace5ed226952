"""More `str` methods in compiled code: rsplit, splitlines, partition/rpartition,
removeprefix/removesuffix, istitle, translate (with a dict), str.maketrans, isprintable,
isidentifier, expandtabs; and a clear UnsupportedError, naming the method, for the `str`
methods ember does not compile."""

from __future__ import annotations

from ember import types
from ember.errors import UnsupportedError
from ember.extending import intrinsic, overload, overload_method, register_jitable
from ember.library.containers.dicts import class_method
from ember.library.containers.list_primitives import empty_list_for
from ember.library.strings.case import LOWER, TITLE, UPPER, _flags
from ember.library.strings.core import _get, _length, find_from, is_string, rfind_from, substring
from ember.library.strings.methods import (
    _is_int,
    _is_none,
    _matches_at,
    is_space,
    require_type,
)
from ember.library.strings.unicode import (
    FLAGS,
    IDENTIFIER_CONTINUE,
    IDENTIFIER_START,
    PRINTABLE,
    unicode_property,
)
from ember.lowering import arrays as refs
from ember.typed import Dict
from ember.typing.conversions import unify_pair
from ember.typing.signature import signature

# str.splitlines' line boundaries besides \n and \r
_LINE_BREAKS = (0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029)


@register_jitable
def _rsplit_whitespace(s, maxsplit):
    out = empty_list_for(s)
    j = _length(s)
    while True:
        while j > 0 and is_space(_get(s, j - 1)):
            j -= 1
        if j == 0:
            break
        if maxsplit >= 0 and len(out) == maxsplit:
            out.append(substring(s, 0, j))
            break
        i = j - 1
        while i > 0 and not is_space(_get(s, i - 1)):
            i -= 1
        out.append(substring(s, i, j))
        j = i
    out.reverse()
    return out


@register_jitable
def _rsplit_separator(s, sep, maxsplit):
    m = _length(sep)
    if m == 0:
        raise ValueError("empty separator")
    out = empty_list_for(s)
    j = _length(s)
    while maxsplit < 0 or len(out) < maxsplit:
        i = rfind_from(s, sep, 0, j)
        if i < 0:
            break
        out.append(substring(s, i + m, j))
        j = i
    out.append(substring(s, 0, j))
    out.reverse()
    return out


@overload_method(types.UnicodeType, "rsplit")
def string_rsplit(s, sep=None, maxsplit=-1):
    if not is_string(s):
        return None
    require_type(maxsplit, "maxsplit", (types.Integer, int))
    if not (_is_int(maxsplit) or maxsplit == -1):
        return None
    if _is_none(sep):
        return lambda s, sep=None, maxsplit=-1: _rsplit_whitespace(s, maxsplit)
    if is_string(sep):
        return lambda s, sep=None, maxsplit=-1: _rsplit_separator(s, sep, maxsplit)
    if isinstance(sep, types.Optional) and is_string(sep.type):

        def rsplit_optional(s, sep=None, maxsplit=-1):  # None or a str, known when it runs
            if sep is None:
                return _rsplit_whitespace(s, maxsplit)
            return _rsplit_separator(s, sep, maxsplit)

        return rsplit_optional
    return None


@register_jitable
def _is_line_break(code):
    if code == 10 or code == 13:
        return True
    for candidate in _LINE_BREAKS:
        if candidate == code:
            return True
    return False


@overload_method(types.UnicodeType, "splitlines")
def string_splitlines(s, keepends=False):
    # CPython takes any int as the flag (`splitlines(1)`), as Numba does
    flag_types = (types.Boolean, types.Integer)
    if not is_string(s):
        return None
    require_type(keepends, "keepends", (types.Integer, int, types.Boolean, bool))
    if not (keepends is False or isinstance(keepends, flag_types)):
        return None

    def splitlines(s, keepends=False):
        out = empty_list_for(s)
        n = _length(s)
        i = 0
        while i < n:
            j = i
            while j < n and not _is_line_break(_get(s, j)):
                j += 1
            end = j
            if j < n:
                j += 2 if _get(s, j) == 13 and j + 1 < n and _get(s, j + 1) == 10 else 1
            out.append(substring(s, i, j if keepends else end))
            i = j
        return out

    return splitlines


def _partition_method(name: str):
    from_right = name == "rpartition"

    def overload_function(s, sep):
        if not is_string(s):
            return None
        require_type(sep, "sep", (types.UnicodeType, types.UnicodeCharSeq))
        if not is_string(sep):
            return None

        def impl(s, sep):
            if _length(sep) == 0:
                raise ValueError("empty separator")
            n = _length(s)
            at = rfind_from(s, sep, 0, n) if from_right else find_from(s, sep, 0, n)
            if at < 0:
                if from_right:
                    return substring(s, 0, 0), substring(s, 0, 0), s
                return s, substring(s, 0, 0), substring(s, 0, 0)
            end = at + _length(sep)
            return substring(s, 0, at), substring(s, at, end), substring(s, end, n)

        return impl

    overload_method(types.UnicodeType, name)(overload_function)


_partition_method("partition")
_partition_method("rpartition")


@overload_method(types.UnicodeType, "removeprefix")
def string_removeprefix(s, prefix):
    if is_string(s) and is_string(prefix):

        def removeprefix(s, prefix):
            m = _length(prefix)
            if m <= _length(s) and _matches_at(s, prefix, 0):
                return substring(s, m, _length(s))
            return s

        return removeprefix


@overload_method(types.UnicodeType, "removesuffix")
def string_removesuffix(s, suffix):
    if is_string(s) and is_string(suffix):

        def removesuffix(s, suffix):
            m = _length(suffix)
            n = _length(s)
            if 0 < m <= n and _matches_at(s, suffix, n - m):
                return substring(s, 0, n - m)
            return s

        return removesuffix


@overload_method(types.UnicodeType, "istitle")
def string_istitle(s):
    if is_string(s):

        def istitle(s):
            cased = False
            previous_cased = False
            for index in range(_length(s)):
                flags = _flags(_get(s, index))
                if flags & (UPPER | TITLE):
                    if previous_cased:
                        return False
                    previous_cased = True
                    cased = True
                elif flags & LOWER:
                    if not previous_cased:
                        return False
                    previous_cased = True
                    cased = True
                else:
                    previous_cased = False
            return cased

        return istitle


def _translation_value(typ: types.Type) -> bool:
    """A translate table's values: strings, code points, or either or None (Optional)."""
    if isinstance(typ, types.Optional):
        typ = typ.type
    return is_string(typ) or isinstance(typ, (types.Integer, types.NoneType))


@register_jitable
def _replacement(value):
    """What a translate table's value puts in the text (None: nothing)."""
    if value is None:
        return ""
    return _as_text(value)


@overload_method(types.UnicodeType, "translate")
def string_translate(s, table):
    if not is_string(s):
        return None
    if not (
        isinstance(table, types.DictType)
        and isinstance(table.key_type, types.Integer)
        and _translation_value(table.value_type)
    ):
        raise UnsupportedError(
            "str.translate() in compiled code takes a dict of code points to strings, code "
            f"points or None, not {table}"
        )

    def translate(s, table):
        parts = []
        start = 0
        n = _length(s)
        for index in range(n):
            code = _get(s, index)
            if code in table:
                if start < index:
                    parts.append(substring(s, start, index))
                parts.append(_replacement(table[code]))
                start = index + 1
        if start == 0:
            return s
        if start < n:
            parts.append(substring(s, start, n))
        return "".join(parts)

    return translate


def string_maketrans(x, y=None, z=None):
    """`str.maketrans(...)` as compiled code calls it."""
    return str.maketrans(x, *[a for a in (y, z) if a is not None])


@overload(string_maketrans)
def _maketrans_overload(x, y=None, z=None):
    if is_string(x) and is_string(y) and (_is_none(z) or is_string(z)):
        return _maketrans_with_deletions if is_string(z) else _maketrans_of_pairs
    if isinstance(x, types.DictType) and _is_none(y) and _is_none(z):
        if isinstance(x.key_type, types.Integer) and _translation_value(x.value_type):
            return lambda x, y=None, z=None: {key: value for key, value in x.items()}
        if is_string(x.key_type) and _translation_value(x.value_type):
            return _maketrans_of_characters
    if isinstance(x, types.LiteralStrKeyDict) and _is_none(y) and _is_none(z):
        found = _maketrans_of_literal_dict(x)
        if found is not None:
            return found
    raise UnsupportedError(
        "str.maketrans() in compiled code takes two strings of equal length (and a third of "
        "characters to delete), or a dict of characters or code points to strings, code "
        f"points or None; not ({x}, {y}, {z})"
    )


_LONG_KEY = "string keys in translate table must be of length 1"


def _maketrans_of_pairs(x, y=None, z=None):
    if _length(x) != _length(y):
        raise ValueError("the first two maketrans arguments must have equal length")
    table = {}
    for index in range(_length(x)):
        table[_get(x, index)] = _get(y, index)
    return table


_CODE_OR_NONE = types.Optional(types.int64)


def _maketrans_with_deletions(x, y=None, z=None):
    if _length(x) != _length(y):
        raise ValueError("the first two maketrans arguments must have equal length")
    table = Dict.empty(types.int64, _CODE_OR_NONE)
    for index in range(_length(x)):
        table[_get(x, index)] = _get(y, index)
    for index in range(_length(z)):
        table[_get(z, index)] = None
    return table


def _maketrans_of_characters(x, y=None, z=None):
    table = {}
    for key, value in x.items():
        if _length(key) != 1:
            raise ValueError(_LONG_KEY)
        table[_get(key, 0)] = value
    return table


def _maketrans_of_literal_dict(x: types.LiteralStrKeyDict):
    """`str.maketrans({"a": "xy", "b": None})`: a display whose values differ in type (strings
    and None, or code points and None), unrolled over its constant keys into one dict."""
    value_type = None
    for member in x.types:
        plain = types.unliteral(member)
        value_type = plain if value_type is None else unify_pair(value_type, plain)
    if value_type is None or not _translation_value(value_type):
        return None
    lines = ["def maketrans(x, y=None, z=None):", "    table = Dict.empty(types.int64, VALUE)"]
    for key in x.fields:
        if len(key) != 1:
            lines.append(
                '    raise ValueError("string keys in translate table must be of length 1")'
            )
            break
        lines.append(f"    table[{ord(key)}] = x[{key!r}]")
    lines.append("    return table")
    namespace = {"Dict": Dict, "types": types, "VALUE": value_type}
    exec("\n".join(lines), namespace)  # noqa: S102 - generated from the display's keys
    return namespace["maketrans"]


class_method(str, "maketrans", string_maketrans)


@overload_method(types.UnicodeType, "maketrans")
def _maketrans_method(s, x, y=None, z=None):
    if is_string(s):
        return lambda s, x, y=None, z=None: string_maketrans(x, y, z)


@intrinsic
def _present(typingctx, value):
    """The value of an Optional known not to be None."""
    if isinstance(value, types.Optional):

        def codegen(context, builder, sig, args):
            inner = context.cast(builder, args[0], sig.args[0], sig.return_type)
            refs.incref(builder, sig.return_type, inner)  # the caller's own reference
            return inner

        return signature(value.type, value), codegen


def _as_text(value):
    """A translate table's string value, or the character of its code point."""


@overload(_as_text)
def _as_text_overload(value):
    if isinstance(value, types.Integer):
        return lambda value: _code_point_text(value)
    if isinstance(value, types.NoneType):
        return lambda value: ""
    if isinstance(value, types.Optional):

        def text_or_nothing(value):
            if value is None:
                return ""
            return _as_text(_present(value))

        return text_or_nothing
    return lambda value: value


@register_jitable
def _code_point_text(value):
    if value < 0 or value > 0x10FFFF:
        raise ValueError("character mapping must be in range(0x110000)")
    return chr(value)


# ---------------------------------------------------------------------------- isprintable,
# isidentifier, expandtabs


@register_jitable
def _property_flags(code):
    """The Unicode flags of a code point (ASCII answered without the table)."""
    if code < 128:
        printable = PRINTABLE if 32 <= code < 127 else 0
        if code == 95 or 65 <= code <= 90 or 97 <= code <= 122:
            return printable | IDENTIFIER_START | IDENTIFIER_CONTINUE
        if 48 <= code <= 57:
            return printable | IDENTIFIER_CONTINUE
        return printable
    return unicode_property(code, FLAGS)


@overload_method(types.UnicodeType, "isprintable")
def string_isprintable(s):
    if is_string(s):

        def isprintable(s):
            for index in range(_length(s)):
                if not _property_flags(_get(s, index)) & PRINTABLE:
                    return False
            return True

        return isprintable


@overload_method(types.UnicodeType, "isidentifier")
def string_isidentifier(s):
    if is_string(s):

        def isidentifier(s):
            n = _length(s)
            if n == 0 or not _property_flags(_get(s, 0)) & IDENTIFIER_START:
                return False
            for index in range(1, n):
                if not _property_flags(_get(s, index)) & IDENTIFIER_CONTINUE:
                    return False
            return True

        return isidentifier


@overload_method(types.UnicodeType, "expandtabs")
def string_expandtabs(s, tabsize=8):
    if not is_string(s):
        return None
    require_type(tabsize, "tabsize", (types.Integer, int))
    if not (isinstance(tabsize, int) or _is_int(tabsize)):
        return None

    def expandtabs(s, tabsize=8):
        parts = []
        column = 0
        start = 0
        n = _length(s)
        for index in range(n):
            code = _get(s, index)
            if code == 9:  # a tab: spaces up to the next multiple of tabsize
                parts.append(substring(s, start, index))
                if tabsize > 0:
                    spaces = tabsize - column % tabsize
                    parts.append(" " * spaces)
                    column += spaces
                start = index + 1
            elif code == 10 or code == 13:
                column = 0
            else:
                column += 1
        if start == 0:
            return s
        parts.append(substring(s, start, n))
        return "".join(parts)

    return expandtabs


_NOT_COMPILED = ("format_map",)


def _refuse(name: str):
    def overload_function(s, *args, **kwargs):
        raise UnsupportedError(
            f"str.{name}() is not supported in compiled code: call it in Python before or "
            "after the jitted function"
        )

    overload_method(types.UnicodeType, name)(overload_function)


for _name in _NOT_COMPILED:
    _refuse(_name)
