"""`format(value, spec)` with a spec known only when the code runs (an f-string's nested
`{x:>{width}}`, `{x:.{digits}f}`): the spec is parsed in compiled code into the parts
ember/library/strings/format.py's implementations take, with CPython's ValueErrors; complex
numbers are always formatted here (their spec is rare and its parts are floats')."""

from __future__ import annotations

import math

from ember import types
from ember.extending import register_jitable
from ember.library.strings import format as formatting
from ember.library.strings.core import _get, _length, substring
from ember.typing.overload import Implementation

# the implementations a constant spec selects, compiled here for any spec
_text = register_jitable(formatting.format_text)
_int = register_jitable(formatting.format_int)
_float = register_jitable(formatting.format_float)
_float_repr = register_jitable(formatting.format_float_repr)


@register_jitable
def _digits_at(spec, i):
    """(the number written from `i`, where it ends); -1 when no digit is there."""
    n = _length(spec)
    value, j = 0, i
    while j < n and 48 <= _get(spec, j) <= 57:
        value = value * 10 + _get(spec, j) - 48
        j += 1
    return (value if j > i else -1), j


@register_jitable
def _parts(spec):
    """(fill, align, sign, alternate, zero, width, grouping, precision, type) of a spec as
    written ("" or -1 where absent); ValueError("Invalid format specifier") otherwise."""
    n = _length(spec)
    fill, align, i = "", "", 0
    if n >= 2 and substring(spec, 1, 2) in "<>=^":
        fill, align, i = substring(spec, 0, 1), substring(spec, 1, 2), 2
    elif n >= 1 and substring(spec, 0, 1) in "<>=^":
        align, i = substring(spec, 0, 1), 1
    sign = ""
    if i < n and substring(spec, i, i + 1) in "+- ":
        sign, i = substring(spec, i, i + 1), i + 1
    alternate = i < n and _get(spec, i) == 35  # '#'
    i += 1 if alternate else 0
    zero = i < n and _get(spec, i) == 48  # '0'
    width, i = _digits_at(spec, i)
    grouping = ""
    if i < n and substring(spec, i, i + 1) in ",_":
        grouping, i = substring(spec, i, i + 1), i + 1
    precision = -1
    if i < n and _get(spec, i) == 46:  # '.'
        precision, i = _digits_at(spec, i + 1)
        if precision < 0:
            raise ValueError("Format specifier missing precision")
    code = ""
    if i < n:
        code, i = substring(spec, i, i + 1), i + 1
    if i != n:
        raise ValueError("Invalid format specifier")
    return fill, align, sign, alternate, zero, max(width, 0), grouping, precision, code


@register_jitable
def _defaults(fill, align, zero, numeric):
    """CPython's fill and alignment when the spec leaves them out ('0' pads after the sign)."""
    if fill == "":
        fill = "0" if zero else " "
    if align == "":
        align = "=" if zero and numeric else (">" if numeric else "<")
    return fill, align


@register_jitable
def _check_grouping(grouping, code):
    """CPython's refusal of a grouping option with a type that does not group digits."""
    if grouping == "" or code == "":
        return
    allowed = "deEfFgG%" + ("boxX" if grouping == "_" else "")
    if code not in allowed:
        raise ValueError("Cannot specify '" + grouping + "' with '" + code + "'.")


@register_jitable
def format_text_at_runtime(value, spec):
    fill, align, sign, alternate, zero, width, grouping, precision, code = _parts(spec)
    _check_grouping(grouping, "s" if code == "" else code)
    if code != "" and code != "s":
        raise ValueError("Unknown format code '" + code + "' for object of type 'str'")
    if sign != "":
        raise ValueError("Sign not allowed in string format specifier")
    if alternate:
        raise ValueError("Alternate form (#) not allowed in string format specifier")
    if align == "=":
        raise ValueError("'=' alignment not allowed in string format specifier")
    fill, align = _defaults(fill, align, zero, False)
    return _text(value, fill, align, width, precision)


@register_jitable
def _float_parts(value, fill, align, sign, width, grouping, precision, code, alternate):
    grouped_zeros = fill == "0" and align == "=" and grouping != ""
    if code == "" and precision < 0:
        return _float_repr(value, fill, align, sign, width, grouping, grouped_zeros, alternate)
    if precision < 0:
        precision = 6
    if code == "" and precision == 0:
        precision = 1  # CPython reads '.0' with no type as '.1'
    letter = "f" if code == "%" else (code if code != "" else "g")
    pattern = "%" + ("#" if alternate else "") + ".*" + letter + "\0"
    kind = 1 if code == "%" else (2 if code == "" else 0)
    return _float(
        value, fill, align, sign, width, grouping, grouped_zeros, precision, pattern, kind
    )


@register_jitable
def _number_spec(spec, integral):
    """The parts of a number's spec, checked (CPython's ValueErrors), with its defaults."""
    fill, align, sign, alternate, zero, width, grouping, precision, code = _parts(spec)
    if code == "n":  # the locale's format; "C"'s (format.py parse_spec) is 'd' or 'g'
        if grouping != "":
            raise ValueError("Cannot specify '" + grouping + "' with 'n'.")
        code = "d" if integral else "g"
    _check_grouping(grouping, code)
    float_code = code != "" and code in "eEfFgG%"
    if code != "" and not (float_code or (integral and code in "bcdoxX")):
        kind_name = "int" if integral else "float"
        raise ValueError(
            "Unknown format code '" + code + "' for object of type '" + kind_name + "'"
        )
    fill, align = _defaults(fill, align, zero, True)
    sign = "" if sign == "-" else sign
    return fill, align, sign, alternate, width, grouping, precision, code, float_code


@register_jitable
def format_float_at_runtime(value, spec):
    fill, align, sign, alternate, width, grouping, precision, code, _ = _number_spec(spec, False)
    return _float_parts(value, fill, align, sign, width, grouping, precision, code, alternate)


@register_jitable
def format_int_at_runtime(value, spec):
    """An int's spec; a float type ('e', 'f', '%'...) formats `float(value)`, as CPython."""
    fill, align, sign, alternate, width, grouping, precision, code, float_code = _number_spec(
        spec, True
    )
    if float_code:
        return _float_parts(
            float(value), fill, align, sign, width, grouping, precision, code, alternate
        )
    if precision >= 0:
        raise ValueError("Precision not allowed in integer format specifier")
    if code == "c" and sign != "":
        raise ValueError("Sign not allowed with integer format specifier 'c'")
    base = 2 if code == "b" else (8 if code == "o" else (16 if code == "x" or code == "X" else 10))
    prefix = "0" + code if alternate and base != 10 else ""
    grouped_zeros = fill == "0" and align == "=" and grouping != ""
    return _int(
        value, fill, align, sign, width, grouping, grouped_zeros, base, code == "X", prefix,
        code == "c",
    )  # fmt: skip


@register_jitable
def _complex_part(x, sign, grouping, precision, code, alternate):
    """One part of a formatted complex, unpadded; with no type, the float's repr ('r') or
    'g' at the given precision, never a '.0' added (CPython's format_complex_internal)."""
    if code != "" or precision >= 0:
        letter = code if code != "" else "g"
        return _float_parts(x, " ", ">", sign, 0, grouping, precision, letter, alternate)
    text = _float_repr(x, " ", ">", sign, 0, grouping, False, False)
    return text[:-2] if text.endswith(".0") else text


@register_jitable
def format_complex_at_runtime(value, spec):
    """`format(z, spec)`: each part as a float of the spec's type (the imaginary part always
    signed), then the whole padded; with no type, `str(z)`'s parentheses and a real part of
    +0 left out."""
    fill, align, sign, alternate, zero, width, grouping, precision, code = _parts(spec)
    _check_grouping(grouping, code)
    if code != "" and code not in "eEfFgG":
        raise ValueError("Unknown format code '" + code + "' for object of type 'complex'")
    if fill == "0" or (zero and fill == ""):
        raise ValueError("Zero padding is not allowed in complex format specifier")
    if align == "=":
        raise ValueError("'=' alignment flag is not allowed in complex format specifier")
    sign = "" if sign == "-" else sign
    real, imag = value.real, value.imag
    skip_real = code == "" and real == 0.0 and math.copysign(1.0, real) > 0.0
    body = _complex_part(imag, sign if skip_real else "+", grouping, precision, code, alternate)
    if not skip_real:
        body = _complex_part(real, sign, grouping, precision, code, alternate) + body
    body = body + "j"
    if code == "" and not skip_real:
        body = "(" + body + ")"
    return _text(body, " " if fill == "" else fill, ">" if align == "" else align, width, -1)


def _format_text(value, spec):
    return format_text_at_runtime(value, spec)


def _format_int(value, spec):
    return format_int_at_runtime(value, spec)


def _format_bool(value, spec):
    if _length(spec) == 0:  # bool's own text; any spec formats it as the int 0 or 1
        return "True" if value else "False"
    return format_int_at_runtime(value, spec)


def _format_float(value, spec):
    return format_float_at_runtime(value, spec)


def _format_complex(value, spec):
    return format_complex_at_runtime(value, spec)


_IMPLEMENTATIONS = {
    kind: Implementation(func)
    for kind, func in (
        ("str", _format_text),
        ("int", _format_int),
        ("bool", _format_bool),
        ("float", _format_float),
        ("complex", _format_complex),
    )
}


def runtime_plan(value: types.Type, spec: types.Type) -> tuple:
    """(Implementation, argument types) of format(value, spec) with a run-time `spec`."""
    kind = formatting._kind_of(value)
    if isinstance(types.unliteral(value), types.Boolean):
        kind = "bool"
    return _IMPLEMENTATIONS[kind], (types.unliteral(value), spec)
