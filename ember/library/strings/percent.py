"""`fmt % args` (printf-style formatting) of a constant `str` in compiled code: %s %r %a %c,
%d %i %u %o %x %X, %e %E %f %F %g %G and %%, with flags (-, +, space, #, 0), width, precision
(either may be a '*' argument) and `%(key)s` keys of a dict; CPython's text and its
TypeError/ValueError for a wrong argument count or type. The format is parsed when compiling;
each format compiles its own function."""

from __future__ import annotations

import functools
import operator
import re

from ember import types
from ember.extending import lower_builtin, register_jitable
from ember.library.strings.convert import integer_text
from ember.library.strings.core import _copy, _kind, _length, _new, is_string, substring
from ember.library.strings.format import _ascii_number
from ember.lowering.optional import python_type_name
from ember.typing.overload import Implementation
from ember.typing.signature import signature
from ember.typing.templates import registry

_DIRECTIVE = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d*))?"
    r"[hlL]?(?P<type>.?)",
    re.DOTALL,
)
_INT_BASES = {"d": 10, "i": 10, "u": 10, "o": 8, "x": 16, "X": 16}
_FLOAT_CODES = "eEfFgG"


# ---------------------------------------------------------------------------- runtime pieces


@register_jitable
def _pct_int(value, base, upper, prefix, sign, zero, left, width, precision):
    """One integer directive: sign, prefix, digits (at least `precision`), padded to `width`
    with spaces, or zeros after the sign and prefix (flag '0'); `prefix` and `sign` are code
    points (0: none)."""
    fill, align = (32, 60) if left else ((48, 61) if zero else (32, 62))
    text = integer_text(value, base, upper, False)
    return _ascii_number(
        text, True, value < 0, sign, prefix, 0, fill, align, width, 0, 3, False, precision
    )


@register_jitable
def _pct_text(text, left, width, precision):
    """A text directive (%s %r %a %c): cut to `precision` characters, padded to `width`."""
    if 0 <= precision < _length(text):
        text = substring(text, 0, precision)
    missing = width - _length(text)
    if missing <= 0:
        return text
    return text + " " * missing if left else " " * missing + text


@register_jitable
def _pct_float_spec(left, zero, sign, width, precision, code):
    """The format() spec of a float directive whose width or precision was a '*' argument."""
    spec = "<" if left else ""
    spec += sign
    if zero and not left:
        spec += "0"
    if width:
        spec += str(width)
    return spec + "." + str(6 if precision < 0 else precision) + code


@register_jitable
def _concat(pieces):
    """The strings of the tuple `pieces` joined, in one allocation (a chain of `+` makes each
    intermediate string, and compiles slower)."""
    total = 0
    kind = 1
    for piece in pieces:
        total += _length(piece)
        kind = max(kind, _kind(piece))
    out = _new(kind, total)
    position = 0
    for piece in pieces:
        _copy(out, position, piece, 0, _length(piece))
        position += _length(piece)
    return out


@register_jitable
def _pct_char_of_int(code):
    if code < 0 or code > 0x10FFFF:
        raise OverflowError("%c arg not in range(0x110000)")
    return chr(code)


@register_jitable
def _pct_char_of_text(text):
    if _length(text) != 1:
        raise TypeError("%c requires int or char")
    return text


# ---------------------------------------------------------------------------- planning


class _Refused(Exception):
    """A directive CPython would refuse for this argument: (exception class, message)."""


def _is_real(typ: types.Type) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Boolean, types.Float))


def _is_integral(typ: types.Type) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Boolean))


def _directive_source(match: re.Match, value: str, typ: types.Type, starred: dict[str, str]) -> str:
    """The expression writing one directive of `value` (source text) of type `typ`; a '*'
    width or precision is the source text `starred` holds for it: a negative width
    left-justifies, a negative precision is 0 (CPython's rules)."""
    flags, code = match["flags"], match["type"]
    left, zero = "-" in flags, "0" in flags
    width = int(match["width"] or 0) if match["width"] != "*" else starred["width"]
    precision = -1 if match["precision"] is None else match["precision"] or 0
    if precision == "*":
        precision = f"max({starred['precision']}, 0)"
    elif not isinstance(precision, int):
        precision = int(precision)
    if match["width"] == "*":
        left = f"({left} or {width} < 0)"
        width = f"abs({width})"
    if not code:
        raise _Refused(ValueError, "incomplete format")
    if code in _INT_BASES:
        if not _is_real(typ) or (code in "oxX" and not _is_integral(typ)):
            needed = "a real number" if code in "diu" else "an integer"
            raise _Refused(TypeError, f"%{code} format: {needed} is required, not "
                           f"{python_type_name(typ)}")  # fmt: skip
        number = value if _is_integral(typ) else f"int({value})"
        sign = ord("+") if "+" in flags else (ord(" ") if " " in flags else 0)
        prefix = ord(code) if "#" in flags and code in "oxX" else 0
        if not flags and width == 0 and precision == -1 and code in "diu":
            return f"integer_text({number}, 10, False, True)"
        base = _INT_BASES[code]
        return (
            f"_pct_int({number}, {base}, {code == 'X'}, {prefix}, {sign}, {zero}, {left}, "
            f"{width}, {precision})"
        )
    if code in _FLOAT_CODES:
        if not _is_real(typ):
            raise _Refused(TypeError, f"must be real number, not {python_type_name(typ)}")
        sign = "+" if "+" in flags else (" " if " " in flags else "")
        sign += "#" if "#" in flags else ""
        if starred:  # the spec is written when the numbers are known
            return (
                f"format(float({value}), _pct_float_spec({left}, {zero}, {sign!r}, {width}, "
                f"{precision}, {code!r}))"
            )
        spec = ("<" if left else "") + sign
        spec += ("0" if zero and not left else "") + (str(width) if width else "")
        spec += f".{6 if precision < 0 else precision}{code}"
        return f"format(float({value}), {spec!r})"
    if code == "c":
        if _is_integral(typ):
            text = f"_pct_char_of_int({value})"
        elif is_string(typ):
            text = f"_pct_char_of_text({value})"
        else:
            raise _Refused(TypeError, "%c requires int or char")
    elif code in "sra":
        text = f"{ {'s': 'str', 'r': 'repr', 'a': 'ascii'}[code] }({value})"
    else:
        index = match.start("type")
        raise _Refused(
            ValueError, f"unsupported format character {code!r} ({ord(code):#x}) at index {index}"
        )
    if width == 0 and precision == -1:
        return text
    return f"_pct_text({text}, {left}, {width}, {precision})"


def _argument_sources(args: types.Type) -> tuple[list[str], list[types.Type]]:
    if isinstance(args, types.BaseTuple) and not isinstance(args, types.LiteralContainer):
        return [f"args[{k}]" for k in range(len(args))], list(args.types)
    return ["args"], [args]


def _plan(fmt: str, args: types.Type) -> str:
    """The source of `impl(fmt, args)` for this format and argument type."""
    keyed = any(match["key"] is not None for match in _DIRECTIVE.finditer(fmt))
    by_key = keyed and isinstance(types.unliteral(args), types.DictType)
    values, value_types = ([], []) if by_key else _argument_sources(args)
    pieces: list[str] = []
    position = used = 0
    try:
        for match in _DIRECTIVE.finditer(fmt):
            if fmt[position : match.start()]:
                pieces.append(repr(fmt[position : match.start()]))
            position = match.end()
            if match["type"] == "%" and not (match["key"] or match["width"] or match["flags"]):
                pieces.append("'%'")
                continue
            starred = {}
            for part in ("width", "precision"):
                if match[part] == "*":
                    if by_key:
                        raise _Refused(TypeError, "* wants int")
                    if used >= len(values):
                        raise _Refused(TypeError, "not enough arguments for format string")
                    if not _is_integral(value_types[used]):
                        raise _Refused(TypeError, "* wants int")
                    starred[part] = values[used]
                    used += 1
            if match["key"] is not None:
                if not by_key:
                    raise _Refused(TypeError, "format requires a mapping")
                value, typ = f"args[{match['key']!r}]", args.value_type
            else:
                if used >= len(values):
                    raise _Refused(TypeError, "not enough arguments for format string")
                value, typ = values[used], value_types[used]
                used += 1
            pieces.append(_directive_source(match, value, typ, starred))
        if used < len(values) and not by_key:
            raise _Refused(TypeError, "not all arguments converted during string formatting")
    except _Refused as refused:
        error, message = refused.args
        return f"def impl(fmt, args):\n    raise {error.__name__}({message!r})\n"
    if fmt[position:]:
        pieces.append(repr(fmt[position:]))
    if len(pieces) < 2:
        return f"def impl(fmt, args):\n    return {''.join(pieces) or repr('')}\n"
    return f"def impl(fmt, args):\n    return _concat(({', '.join(pieces)}))\n"


@functools.cache
def _compiled_plan(fmt: str, args: types.Type) -> Implementation:
    namespace = {
        "_pct_int": _pct_int,
        "_pct_text": _pct_text,
        "_pct_float_spec": _pct_float_spec,
        "_pct_char_of_int": _pct_char_of_int,
        "_pct_char_of_text": _pct_char_of_text,
        "_concat": _concat,
        "integer_text": integer_text,
    }
    exec(_plan(fmt, args), namespace)  # noqa: S102 - generated from a parsed constant format
    return Implementation(namespace["impl"])


# A typer, not an @overload: an overload's first attempt widens the format to unicode_type.
@registry.typer(operator.mod)
def _type_percent(args, kws):
    if kws or len(args) != 2 or not isinstance(args[0], types.StringLiteral):
        return None
    fmt, values = args
    implementation = _compiled_plan(fmt.literal_value, values)
    return signature(implementation.type_call(args).return_type, *args)


@lower_builtin(operator.mod, types.StringLiteral, types.Any)
def _lower_percent(context, builder, sig, args):
    implementation = _compiled_plan(sig.args[0].literal_value, sig.args[1])
    return implementation.call(context, builder, sig, args)
