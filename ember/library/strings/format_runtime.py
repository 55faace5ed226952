"""`format(value, spec)` with a spec known only when the code runs (an f-string's nested
`{x:>{width}}`, `{x:.{digits}f}`): the spec is parsed in compiled code into code points and
numbers, checked with CPython's ValueErrors, and numbers are written by the ASCII paths of
ember/library/strings/format.py (a fill beyond ASCII is put in afterwards); complex numbers
are always formatted here (their spec is rare and its parts are floats')."""

from __future__ import annotations

import math

from ember import types
from ember.extending import register_jitable
from ember.library.strings import format as formatting
from ember.library.strings.core import _byte, _get, _length, _new, _put, _set, deferred_text
from ember.typing.overload import Implementation

# the ASCII number paths a constant spec selects, compiled here for any spec
_int_ascii = register_jitable(formatting.format_int_ascii)
_float_c = register_jitable(formatting.format_float_ascii)
_float_general = register_jitable(formatting.format_float_ascii_general)
_float_repr = register_jitable(formatting.format_float_ascii_repr)
_text = register_jitable(formatting.format_text)

# code points of the spec's options
_NONE = -1  # no fill given (a NUL fill is a fill)
_LEFT, _RIGHT, _AFTER_SIGN, _CENTER = ord("<"), ord(">"), ord("="), ord("^")
_PLUS, _MINUS, _SPACE = ord("+"), ord("-"), ord(" ")
_HASH, _ZERO, _POINT, _COMMA, _UNDERSCORE = ord("#"), ord("0"), ord("."), ord(","), ord("_")
_PERCENT = ord("%")


@register_jitable
def _is_align(code):
    return code == _LEFT or code == _RIGHT or code == _AFTER_SIGN or code == _CENTER


@register_jitable
def _is_float_code(code):
    """e E f F g G %"""
    return (
        code == 101
        or code == 69
        or code == 102
        or code == 70
        or code == 103
        or code == 71
        or (code == _PERCENT)
    )


@register_jitable
def _int_base(code):
    """The base of an integer type code (b o x X d), 0 for another code."""
    if code == 98:  # 'b'
        return 2
    if code == 111:  # 'o'
        return 8
    if code == 120 or code == 88:  # 'x' 'X'
        return 16
    return 10 if code == 100 else 0  # 'd'


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
    """(fill, align, sign, coerce_zero, alternate, zero, width, grouping, precision, type) of a
    spec as written, options as code points (fill -1, the others 0 where absent; width 0,
    precision -1); CPython's ValueError for a spec it cannot read."""
    n = _length(spec)
    fill, align, i = _NONE, 0, 0
    if n >= 2 and _is_align(_get(spec, 1)):
        fill, align, i = _get(spec, 0), _get(spec, 1), 2
    elif n >= 1 and _is_align(_get(spec, 0)):
        align, i = _get(spec, 0), 1
    sign = _get(spec, i) if i < n else 0
    if sign == _PLUS or sign == _MINUS or sign == _SPACE:
        i += 1
    else:
        sign = 0
    coerce_zero = i < n and _get(spec, i) == 122  # 'z'
    i += 1 if coerce_zero else 0
    alternate = i < n and _get(spec, i) == _HASH
    i += 1 if alternate else 0
    zero = i < n and _get(spec, i) == _ZERO
    width, i = _digits_at(spec, i)
    grouping = _get(spec, i) if i < n else 0
    if grouping == _COMMA or grouping == _UNDERSCORE:
        i += 1
        if i < n and _get(spec, i) == _COMMA + _UNDERSCORE - grouping:  # the other one
            raise ValueError("Cannot specify both ',' and '_'.")
    else:
        grouping = 0
    precision = -1
    if i < n and _get(spec, i) == _POINT:
        precision, i = _digits_at(spec, i + 1)
        if precision < 0:
            raise ValueError("Format specifier missing precision")
    code = 0
    if i < n:
        code, i = _get(spec, i), i + 1
    if i != n:
        raise ValueError("Invalid format specifier")
    return fill, align, sign, coerce_zero, alternate, zero, max(width, 0), grouping, precision, code


@register_jitable
def _check_grouping(grouping, code):
    """CPython's refusal of a grouping option with a type that does not group digits."""
    if grouping == 0 or code == 0 or _is_float_code(code) or code == 100:  # 'd'
        return
    if grouping == _UNDERSCORE and _int_base(code) != 0:
        return
    if 32 < code < 128:  # CPython writes other codes in hex
        raise ValueError(deferred_text("Cannot specify '{:c}' with '{:c}'.", grouping, code))
    raise ValueError(deferred_text("Cannot specify '{:c}' with '\\x{:x}'.", grouping, code))


@register_jitable
def _unknown_code(code, kind_name):
    if 32 < code < 128:  # CPython writes other codes in hex
        raise ValueError(
            deferred_text("Unknown format code '{:c}' for object of type '{}'", code, kind_name)
        )
    raise ValueError(
        deferred_text("Unknown format code '\\x{:x}' for object of type '{}'", code, kind_name)
    )


@register_jitable
def _fill_and_align(fill, align, zero, numeric):
    """CPython's fill and alignment when the spec leaves them out ('0' pads after the sign)."""
    if fill == _NONE:
        fill = _ZERO if zero else _SPACE
    if align == 0:
        align = _AFTER_SIGN if zero and numeric else (_RIGHT if numeric else _LEFT)
    return fill, align


@register_jitable
def _char(code):
    """The one-character string of a code point."""
    out = _new(1 if code < 0x100 else (2 if code < 0x10000 else 4), 1)
    _set(out, 0, code)
    return out


@register_jitable
def _padded_text(text, fill, align, width, precision):
    """`text` (its first `precision` characters when >= 0) aligned in `width`; options are
    code points."""
    align_text = "<" if align == _LEFT else (">" if align == _RIGHT else "^")
    return _text(text, _char(fill), align_text, width, precision)


@register_jitable
def _refilled(text, fill):
    """The ASCII number `text` written with NUL where its fill goes, with the fill `fill`
    beyond ASCII there instead (its digits, sign and letters are never NUL)."""
    n = _length(text)
    out = _new(2 if fill < 0x10000 else 4, n)
    for index in range(n):
        code = _byte(text, index)
        _set(out, index, fill if code == 0 else code)
    return out


@register_jitable
def format_text_at_runtime(value, spec):
    fill, align, sign, coerce_zero, alternate, zero, width, grouping, precision, code = _parts(spec)
    _check_grouping(grouping, 115 if code == 0 else code)  # 's'
    if code != 0 and code != 115:
        _unknown_code(code, "str")
    if sign == _SPACE:
        raise ValueError("Space not allowed in string format specifier")
    if sign != 0:
        raise ValueError("Sign not allowed in string format specifier")
    if coerce_zero:
        raise ValueError("Negative zero coercion (z) not allowed in string format specifier")
    if alternate:
        raise ValueError("Alternate form (#) not allowed in string format specifier")
    if align == _AFTER_SIGN:
        raise ValueError("'=' alignment not allowed in string format specifier")
    fill, align = _fill_and_align(fill, align, zero, False)
    return _padded_text(value, fill, align, width, precision)


@register_jitable
def _coerced_zero(x, precision, code):
    """'z': +0.0 for an `x` < 0 that the spec writes as a zero ('f', 'F', '%' round it), else
    `x` (other types write every non-zero digit)."""
    if not (x < 0.0 or (x == 0.0 and math.copysign(1.0, x) < 0.0)):
        return x
    if x == 0.0:
        return 0.0
    if code == 102 or code == 70 or code == _PERCENT:  # 'f' 'F' '%'
        scale = 100.0 if code == _PERCENT else 1.0
        text = formatting._c_format("%.*f\0", 6 if precision < 0 else precision, -x * scale)
        for index in range(_length(text)):
            if 49 <= _byte(text, index) <= 57:  # a digit '1' to '9'
                return x
        return 0.0
    return x


@register_jitable
def _c_pattern(alternate, letter):
    """C's "%.*<letter>" (with '#' when `alternate`), NUL-terminated for snprintf."""
    out = _new(1, 6 if alternate else 5)
    _put(out, 0, _PERCENT)
    i = 1
    if alternate:
        _put(out, 1, _HASH)
        i = 2
    _put(out, i, _POINT)
    _put(out, i + 1, 42)  # '*'
    _put(out, i + 2, letter)
    _put(out, i + 3, 0)
    return out


@register_jitable
def _float_text(x, fill, align, sign, width, grouping, precision, code, alternate):
    """A float by its spec's parts (code points), fill ASCII (a NUL stands for a wider one)."""
    if code != 0:
        return _typed_float_text(x, fill, align, sign, width, grouping, precision, code, alternate)
    zeros = fill == _ZERO and align == _AFTER_SIGN and grouping != 0
    if precision < 0:
        return _float_repr(x, fill, align, sign, width, grouping, zeros, alternate)
    precision = max(precision, 1)  # CPython reads '.0' with no type as '.1'
    return _float_general(x, fill, align, sign, width, grouping, zeros, precision, alternate)


@register_jitable
def _typed_float_text(x, fill, align, sign, width, grouping, precision, code, alternate):
    """_float_text of a spec with a float type ('e', 'f', '%'...): C's conversion alone (an
    int's float spec compiles no repr)."""
    zeros = fill == _ZERO and align == _AFTER_SIGN and grouping != 0
    if precision < 0:
        precision = 6
    pattern = _c_pattern(alternate, 102 if code == _PERCENT else code)  # '%' writes 'f'
    kind = 1 if code == _PERCENT else 0
    return _float_c(x, fill, align, sign, width, grouping, zeros, precision, pattern, kind)


@register_jitable
def _float_parts(x, fill, align, sign, width, grouping, precision, code, alternate):
    """_float_text with any fill."""
    ascii_fill = fill if fill < 0x80 else 0
    text = _float_text(x, ascii_fill, align, sign, width, grouping, precision, code, alternate)
    return text if fill < 0x80 else _refilled(text, fill)


@register_jitable
def _number_spec(spec, integral):
    """The parts of a number's spec, checked (CPython's ValueErrors), with its defaults."""
    fill, align, sign, coerce_zero, alternate, zero, width, grouping, precision, code = _parts(spec)
    if code == 110:  # 'n': the locale's format; "C"'s (format.py parse_spec) is 'd' or 'g'
        if grouping != 0:
            raise ValueError(deferred_text("Cannot specify '{:c}' with 'n'.", grouping))
        code = 100 if integral else 103
    _check_grouping(grouping, code)
    if code != 0 and not _is_float_code(code):
        if not integral:
            _unknown_code(code, "float")
        if _int_base(code) == 0 and code != 99:  # 'c'
            _unknown_code(code, "int")
    fill, align = _fill_and_align(fill, align, zero, True)
    return fill, align, sign, coerce_zero, alternate, width, grouping, precision, code


@register_jitable
def format_float_at_runtime(value, spec):
    fill, align, sign, coerce_zero, alternate, width, grouping, precision, code = _number_spec(
        spec, False
    )
    if coerce_zero:
        value = _coerced_zero(value, precision, code)
    sign = 0 if sign == _MINUS else sign
    return _float_parts(value, fill, align, sign, width, grouping, precision, code, alternate)


@register_jitable
def _char_at_runtime(value, fill, align, width, sign, alternate):
    """An int's 'c' spec: the character of that code point."""
    if sign != 0:  # even '-'
        raise ValueError("Sign not allowed with integer format specifier 'c'")
    if alternate:
        raise ValueError("Alternate form (#) not allowed with integer format specifier 'c'")
    x = int(value)
    if x < 0 or x > 0x10FFFF:
        raise OverflowError("%c arg not in range(0x110000)")
    return _padded_text(_char(x), fill, _RIGHT if align == _AFTER_SIGN else align, width, -1)


@register_jitable
def format_int_at_runtime(value, spec):
    """An int's spec; a float type ('e', 'f', '%'...) formats `float(value)`, as CPython."""
    fill, align, sign, coerce_zero, alternate, width, grouping, precision, code = _number_spec(
        spec, True
    )
    ascii_fill = fill if fill < 0x80 else 0
    if _is_float_code(code):
        x = _coerced_zero(float(value), precision, code) if coerce_zero else float(value)
        sign = 0 if sign == _MINUS else sign
        text = _typed_float_text(
            x, ascii_fill, align, sign, width, grouping, precision, code, alternate
        )
    else:
        if precision >= 0:
            raise ValueError("Precision not allowed in integer format specifier")
        if coerce_zero:
            raise ValueError("Negative zero coercion (z) not allowed in integer format specifier")
        if code == 99:  # 'c'
            return _char_at_runtime(value, fill, align, width, sign, alternate)
        sign = 0 if sign == _MINUS else sign
        base = _int_base(code) if code != 0 else 10
        prefix = code if alternate and base != 10 else 0
        zeros = fill == _ZERO and align == _AFTER_SIGN and grouping != 0
        size = 3 if base == 10 else 4
        upper = code == 88  # 'X'
        text = _int_ascii(
            value, ascii_fill, align, sign, width, grouping, zeros, base, upper, prefix, size
        )
    return text if fill < 0x80 else _refilled(text, fill)


@register_jitable
def _complex_part(x, sign, grouping, precision, code, alternate):
    """One part of a formatted complex, unpadded; with no type, the float's repr ('r') or
    'g' at the given precision, never a '.0' added, '#' keeping a point (CPython's
    format_complex_internal)."""
    if code != 0 or precision >= 0:
        letter = code if code != 0 else 103  # 'g'
        return _float_text(x, _SPACE, _RIGHT, sign, 0, grouping, precision, letter, alternate)
    text = _float_repr(x, _SPACE, _RIGHT, sign, 0, grouping, False, False)
    if text.endswith(".0"):
        text = text[:-2]
    if alternate and x - x == 0.0:  # finite: a point before the exponent or at the end
        text = _with_point(text)
    return text


@register_jitable
def _with_point(text):
    """The ASCII number `text` with a point before its exponent or at its end if it has none."""
    n = _length(text)
    end = n
    for index in range(n):
        code = _byte(text, index)
        if code == _POINT:
            return text
        if code == 101:  # 'e'
            end = index
            break
    return text[:end] + "." + text[end:]


@register_jitable
def format_complex_at_runtime(value, spec):
    """`format(z, spec)`: each part as a float of the spec's type (the imaginary part always
    signed), then the whole padded; with no type, `str(z)`'s parentheses and a real part of
    +0 left out."""
    fill, align, sign, coerce_zero, alternate, zero, width, grouping, precision, code = _parts(spec)
    if code == 110:  # 'n': 'g' in the C locale
        if grouping != 0:
            raise ValueError(deferred_text("Cannot specify '{:c}' with 'n'.", grouping))
        code = 103
    _check_grouping(grouping, code)
    if code != 0 and (code == _PERCENT or not _is_float_code(code)):
        _unknown_code(code, "complex")
    if fill == _ZERO or (zero and fill == _NONE):
        raise ValueError("Zero padding is not allowed in complex format specifier")
    if align == _AFTER_SIGN:
        raise ValueError("'=' alignment flag is not allowed in complex format specifier")
    sign = 0 if sign == _MINUS else sign
    real, imag = value.real, value.imag
    skip_real = code == 0 and real == 0.0 and math.copysign(1.0, real) > 0.0
    if coerce_zero:  # (a real part of -0 is still written)
        real, imag = _coerced_zero(real, precision, code), _coerced_zero(imag, precision, code)
    body = _complex_part(imag, sign if skip_real else _PLUS, grouping, precision, code, alternate)
    if not skip_real:
        body = _complex_part(real, sign, grouping, precision, code, alternate) + body
    body = body + "j"
    if code == 0 and not skip_real:
        body = "(" + body + ")"
    fill = _SPACE if fill == _NONE else fill
    return _padded_text(body, fill, _RIGHT if align == 0 else align, width, -1)


def _format_bool(value, spec):
    if _length(spec) == 0:  # bool's own text; any spec formats it as the int 0 or 1
        return "True" if value else "False"
    return format_int_at_runtime(value, spec)


_IMPLEMENTATIONS = {
    kind: Implementation(func)
    for kind, func in (
        ("str", format_text_at_runtime),
        ("int", format_int_at_runtime),
        ("bool", _format_bool),
        ("float", format_float_at_runtime),
        ("complex", format_complex_at_runtime),
    )
}


def implementation_of(kind: str):
    """The function formatting a value of `kind` ('str', 'int', 'float', 'complex')."""
    return _IMPLEMENTATIONS[kind].py_func


def runtime_plan(value: types.Type, spec: types.Type) -> tuple:
    """(Implementation, argument types) of format(value, spec) with a run-time `spec`."""
    kind = formatting._kind_of(value)
    if isinstance(types.unliteral(value), types.Boolean):
        kind = "bool"
    return _IMPLEMENTATIONS[kind], (types.unliteral(value), spec)
