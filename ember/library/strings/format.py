"""`format(value, spec)` in compiled code for ints, bools, floats and strings, with CPython's
format-spec mini-language ([[fill]align][sign][#][0][width][,|_][.precision][type]).

The spec must be a constant: it is parsed when compiling, and each spec compiles to its own
small implementation. Floats with e/f/g/% are written by C's snprintf, which spells them as
CPython does (the sign and nan handled here); a spec CPython refuses raises its ValueError.
"""

from __future__ import annotations

import _string
import ast
import functools
import inspect
import math
import re
import string
from dataclasses import dataclass

from llvmlite import ir as llvm

from ember import types
from ember.errors import LoweringError, UnsupportedError
from ember.extending import intrinsic, lower_builtin, lower_cast, overload, register_jitable
from ember.ir import displays
from ember.library.strings.convert import _float_repr, integer_text
from ember.library.strings.core import (
    _byte,
    _copy,
    _fill,
    _get,
    _kind,
    _length,
    _move,
    _new,
    _put,
    _set,
    is_string,
    substring,
)
from ember.library.strings.core import string as string_type
from ember.lowering import arrays as refs
from ember.lowering import strings as primitives
from ember.lowering.optional import python_type_name
from ember.typing.overload import Implementation
from ember.typing.signature import Signature, signature
from ember.typing.templates import registry

_SPEC = re.compile(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>\#)?(?P<zero>0)?"
    r"(?P<width>\d+)?(?P<group>[,_])?(?:\.(?P<precision>\d+))?(?P<type>[bcdeEfFgGnosxX%])?\Z",
    re.DOTALL,
)
_INT_TYPES = "bcdoxX"
_FLOAT_TYPES = "eEfFgG%"


@dataclass(frozen=True)
class Spec:
    """A parsed format spec, with CPython's defaults filled in for one kind of value."""

    fill: str
    align: str
    sign: str
    alternate: bool
    zero_grouped: bool  # '0' fill after the sign with grouping: the zeros are grouped too
    width: int
    grouping: str
    precision: int  # -1: none given
    type: str


@functools.cache
def _bad(message: str):
    def impl(value):
        raise ValueError(message)

    return impl


def parse_spec(text: str, kind: str) -> Spec | str:
    """The Spec of `text` for a value of `kind` ('int', 'float' or 'str'), or CPython's
    ValueError message when it refuses the spec."""
    found = _SPEC.match(text)
    if found is None:
        return "Invalid format specifier"
    part = found.groupdict()
    kind_name = {"int": "int", "float": "float", "str": "str"}[kind]
    code = part["type"] or ""
    allowed = {"int": _INT_TYPES + _FLOAT_TYPES + "n", "float": _FLOAT_TYPES + "n", "str": "s"}
    if code and code not in allowed[kind]:
        return f"Unknown format code '{code}' for object of type '{kind_name}'"
    if code == "n":
        # The locale's number format; compiled code has no locale, and CPython's own default
        # (LC_NUMERIC is "C" until a program calls locale.setlocale) writes 'n' as 'd' or 'g'.
        if part["group"]:
            return f"Cannot specify '{part['group']}' with 'n'."
        code = "d" if kind == "int" else "g"
    if kind == "int" and code and code in _FLOAT_TYPES:
        kind = "float"
    zero = part["zero"] is not None
    fill = part["fill"] or ("0" if zero and part["fill"] is None else " ")
    align = part["align"] or ("=" if zero and kind != "str" else ("<" if kind == "str" else ">"))
    if kind == "str":
        if part["sign"]:
            return "Sign not allowed in string format specifier"
        if part["alt"]:
            return "Alternate form (#) not allowed in string format specifier"
        if part["align"] == "=":
            return "'=' alignment not allowed in string format specifier"
    if part["group"] and (kind == "str" or code == "c"):
        return f"Cannot specify '{part['group']}' with '{code or 's'}'."
    if part["group"] == "," and code in "bBoxX" and code:
        return f"Cannot specify ',' with '{code}'."
    if part["precision"] is not None and kind == "int":
        return "Precision not allowed in integer format specifier"
    if code == "c" and part["sign"]:
        return "Sign not allowed with integer format specifier 'c'"
    return Spec(
        fill=fill,
        align=align,
        sign=part["sign"] or "-",
        alternate=part["alt"] is not None,
        zero_grouped=fill == "0" and align == "=" and part["group"] is not None,
        width=int(part["width"] or 0),
        grouping=part["group"] or "",
        precision=int(part["precision"]) if part["precision"] is not None else -1,
        type=code,
    )


# ---------------------------------------------------------------------------- pieces


def _declare(module: llvm.Module, name: str, fnty: llvm.FunctionType) -> llvm.Function:
    found = module.globals.get(name)
    return found if found is not None else llvm.Function(module, fnty, name)


def _snprintf_text(context, builder, pattern_text, values: list) -> llvm.Value:
    """The ASCII string snprintf(`pattern_text`, *values) writes (measured, then written)."""
    snprintf = _declare(
        builder.module,
        "snprintf",
        llvm.FunctionType(refs.i32, [refs.ptr, refs.i64, refs.ptr], var_arg=True),
    )
    c_pattern = primitives.data(builder, pattern_text)
    null = llvm.Constant(refs.ptr, None)
    length = builder.call(snprintf, [null, refs.const(0), c_pattern, *values])
    length = builder.sext(length, refs.i64)
    size = builder.add(length, refs.const(1))
    text = primitives.allocate(context, builder, refs.const(1), size)
    builder.call(snprintf, [primitives.data(builder, text), size, c_pattern, *values])
    return builder.insert_value(text, length, 2)


@intrinsic
def _c_format(typingctx, pattern, precision, x):
    """snprintf(`pattern`, precision, x) of a double as a string; `pattern` ends with a NUL."""

    def codegen(context, builder, sig, args):
        pattern_text, width, value = args
        return _snprintf_text(
            context, builder, pattern_text, [builder.trunc(width, refs.i32), value]
        )

    return signature(string_type, string_type, types.int64, types.float64), codegen


# The helpers below build their results with the string primitives (one allocation, no
# intermediate strings): they compile several times faster than the same code written with
# slicing and `+`, which matters because every format() call links them in.


@register_jitable
def _grouped(digits, zeros, separator, size):
    """`zeros` zeros then the ASCII `digits`, with `separator` between groups of `size` from
    the right."""
    n = zeros + _length(digits)
    if separator == "":
        size = n + 1
    total = n + (n - 1) // size if n > 0 else 0
    out = _new(1, total)
    mark = 44 if separator == "," else 95
    position = total
    for index in range(n - 1, -1, -1):
        position -= 1
        _set(out, position, _get(digits, index - zeros) if index >= zeros else 48)
        if (n - index) % size == 0 and index > 0:
            position -= 1
            _set(out, position, mark)
    return out


@register_jitable
def _layout(fill, left, sign, middle, body, right):
    """fill * left + sign + fill * middle + body + fill * right, in one allocation."""
    code = _get(fill, 0)
    width = max(_kind(sign), _kind(body), 1 if code < 0x100 else (2 if code < 0x10000 else 4))
    n_sign, n_body = _length(sign), _length(body)
    out = _new(width, left + n_sign + middle + n_body + right)
    position = 0
    for _ in range(left):
        _set(out, position, code)
        position += 1
    _copy(out, position, sign, 0, n_sign)
    position += n_sign
    for _ in range(middle):
        _set(out, position, code)
        position += 1
    _copy(out, position, body, 0, n_body)
    position += n_body
    for _ in range(right):
        _set(out, position, code)
        position += 1
    return out


@register_jitable
def _joined(a, b):
    return _layout(" ", 0, a, 0, b, 0)


@register_jitable
def _padded(sign, body, fill, align, width):
    """sign + body aligned in `width` with `fill` ('=' puts the padding after the sign)."""
    missing = max(width - _length(sign) - _length(body), 0)
    if align == "<":
        return _layout(fill, 0, sign, 0, body, missing)
    if align == ">":
        return _layout(fill, missing, sign, 0, body, 0)
    if align == "=":
        return _layout(fill, 0, sign, missing, body, 0)
    return _layout(fill, missing // 2, sign, 0, body, missing - missing // 2)


@register_jitable
def _zero_grouped(sign, digits, rest, separator, size, width):
    """CPython's '0' fill after the sign with grouping: leading zeros join the digits (and
    their groups) until the text is wide enough."""
    n = _length(digits)
    zeros = 0
    while _length(sign) + (n + zeros) + (n + zeros - 1) // size + _length(rest) < width:
        zeros += 1
    return _joined(_joined(sign, _grouped(digits, zeros, separator, size)), rest)


@register_jitable
def _find_code(text, code):
    for index in range(_length(text)):
        if _get(text, index) == code:
            return index
    return -1


@register_jitable
def _shortest_general(x, precision, alternate):
    """CPython's format of a finite x >= 0 with a precision and no type: 'g', but a fixed
    spelling keeps a digit after the point, so exponents from `precision - 1` on use 'e';
    `alternate` ('#'): C's '#' keeps the trailing zeros and the point."""
    if x == math.inf:
        return "inf"
    scientific = _c_format("%#.*e\0" if alternate else "%.*e\0", precision - 1, x)
    mark = _find_code(scientific, 101)  # 'e'
    n = _length(scientific)
    exponent = 0
    for index in range(mark + 2, n):
        exponent = exponent * 10 + _get(scientific, index) - 48
    if _get(scientific, mark + 1) == 45:  # '-'
        exponent = -exponent
    if -4 <= exponent < precision - 1:
        text = _c_format("%#.*g\0" if alternate else "%.*g\0", precision, x)
        return text if _find_code(text, 46) >= 0 else _joined(text, ".0")
    if alternate:
        return scientific
    end = mark
    if _find_code(scientific, 46) >= 0:  # drop the mantissa's trailing zeros and point
        while _get(scientific, end - 1) == 48:
            end -= 1
        if _get(scientific, end - 1) == 46:
            end -= 1
    return _joined(substring(scientific, 0, end), substring(scientific, mark, n))


# ---------------------------------------------------------------------------- ASCII fast path
# A number with an ASCII fill (nearly every spec) is written in one pass into one ASCII string,
# with byte loads and stores and code points for the options: a small function, so compiling a
# format of a number costs a fraction of the general path above (which switches on the kind of
# every string it reads or writes, and stays for the rare non-ASCII fill).


@register_jitable
def _ascii_number(
    text, integral, negative, sign, prefix, suffix, fill, align, width, separator, size,
    zero_grouped, min_digits,
):  # fmt: skip
    """The sign (`sign`: '+', ' ' or 0 for none when not `negative`), '0' and `prefix` (0 for
    none), the leading digits of the ASCII `text` (at least `min_digits`, zeros first) grouped
    by `size` with `separator` (0: none), the rest of `text`, `suffix` (0: none), padded to
    `width` with `fill` by `align` ('<', '>', '=' after the sign and prefix, '^'); options are
    code points; `integral`: all of `text` is digits. `zero_grouped`: CPython's '0' fill
    with grouping, zeros joining the digits."""
    n = _length(text)
    point = n if integral else 0  # an integer's hex digits count as digits
    while point < n and 48 <= _byte(text, point) <= 57:
        point += 1
    head_sign = 45 if negative else sign
    n_head = (1 if head_sign != 0 else 0) + (2 if prefix != 0 else 0)
    n_tail = n - point + (1 if suffix != 0 else 0)
    digits = max(point, min_digits)
    if separator == 0:
        size = digits + 1
    if zero_grouped and point > 0:
        while n_head + digits + (digits - 1) // size + n_tail < width:
            digits += 1
    body = n_head + digits + ((digits - 1) // size if digits > 0 else 0) + n_tail
    missing = max(width - body, 0)
    left = middle = 0
    if align == 62:  # '>'
        left = missing
    elif align == 61:  # '='
        middle = missing
    elif align == 94:  # '^'
        left = missing // 2
    out = _new(1, body + missing)
    i = _fill(out, 0, left, fill)
    if head_sign != 0:
        _put(out, i, head_sign)
        i += 1
    if prefix != 0:
        _put(out, i, 48)
        _put(out, i + 1, prefix)
        i += 2
    i = _fill(out, i, middle, fill)
    if separator == 0:
        i = _fill(out, i, digits - point, 48)
        i = _move(out, i, text, 0, point)
    else:
        for remaining in range(digits, 0, -1):
            _put(out, i, _byte(text, point - remaining) if remaining <= point else 48)
            i += 1
            if remaining > 1 and (remaining - 1) % size == 0:
                _put(out, i, separator)
                i += 1
    i = _move(out, i, text, point, n - point)
    if suffix != 0:
        _put(out, i, suffix)
        i += 1
    _fill(out, i, body + missing - i, fill)
    return out


def format_int_ascii(value, fill, align, sign, width, separator, zeros, base, upper, prefix, size):
    """An integer (no 'c') with an ASCII fill; the options are code points (0: none)."""
    text = integer_text(value, base, upper, False)
    return _ascii_number(
        text, True, value < 0, sign, prefix, 0, fill, align, width, separator, size, zeros, 0
    )


@register_jitable
def _float_ascii(negative, text, fill, align, sign, width, separator, zeros, suffix):
    return _ascii_number(
        text, False, negative, sign, 0, suffix, fill, align, width, separator, 3, zeros, 0
    )


@register_jitable
def _nan_text(pattern):
    conversion = _get(pattern, _length(pattern) - 2)  # the letter before the NUL
    return "NAN" if conversion == 69 or conversion == 70 or conversion == 71 else "nan"


# Three implementations (by C's conversion, CPython's general format with a precision, the
# repr) rather than one with a run-time switch: each compiles only the text it writes.


def format_float_ascii(value, fill, align, sign, width, separator, zeros, precision, pattern, kind):
    """format_float's kinds 0 (a C conversion) and 1 (percent), with an ASCII fill; the
    options are code points."""
    x = float(value) * (100.0 if kind == 1 else 1.0)
    negative = x < 0 or (x == 0.0 and math.copysign(1.0, x) < 0)
    text = _nan_text(pattern) if x != x else _c_format(pattern, precision, abs(x))
    suffix = 37 if kind == 1 else 0  # '%'
    return _float_ascii(negative, text, fill, align, sign, width, separator, zeros, suffix)


def format_float_ascii_general(
    value, fill, align, sign, width, separator, zeros, precision, alternate
):
    """A float with a precision and no type (format_float's kind 2), an ASCII fill."""
    x = float(value)
    negative = x < 0 or (x == 0.0 and math.copysign(1.0, x) < 0)
    text = "nan" if x != x else _shortest_general(abs(x), precision, alternate)
    return _float_ascii(negative, text, fill, align, sign, width, separator, zeros, 0)


@register_jitable
def _point_before_exponent(text):
    """The ASCII repr `text` with a point before its exponent if it has none ("1.e+16"): '#'
    with no type."""
    n = _length(text)
    mark = -1
    for k in range(n):
        if _byte(text, k) == 46:  # '.'
            return text
        if _byte(text, k) == 101:  # 'e'
            mark = k
    if mark < 0:
        return text
    out = _new(1, n + 1)
    _move(out, 0, text, 0, mark)
    _put(out, mark, 46)
    _move(out, mark + 1, text, mark, n - mark)
    return out


def format_float_ascii_repr(value, fill, align, sign, width, separator, zeros, alternate):
    """A float with no type nor precision (its repr), an ASCII fill."""
    x = float(value)
    negative = x < 0 or (x == 0.0 and math.copysign(1.0, x) < 0)
    text = "nan" if x != x else _float_repr(abs(x))  # (not str(): one library fewer)
    if alternate:
        text = _point_before_exponent(text)
    return _float_ascii(negative, text, fill, align, sign, width, separator, zeros, 0)


# ---------------------------------------------------------------------------- implementations
# One compiled implementation per kind of value, taking the parsed spec as arguments, so that a
# new spec costs no compilation: format(x, spec) passes the spec's parts as constants.


@register_jitable
def _finish_number(
    negative, sign, prefix, digits, rest, fill, align, width, separator, zeros, size
):
    """Grouping (by `size` digits), sign and padding of a number whose integer digits are
    `digits`."""
    head = _joined("-" if negative else sign, prefix)
    if zeros:
        return _zero_grouped(head, digits, rest, separator, size, width)
    if separator != "":
        digits = _grouped(digits, 0, separator, size)
    return _padded(head, _joined(digits, rest), fill, align, width)


def _integral(value):
    """An integer as it is (uint64 too); the float of a run-time spec's integer branch as int."""
    raise NotImplementedError("runs only in compiled code")


@overload(_integral)
def _integral_overload(value):
    if isinstance(value, (types.Integer, types.Boolean)):
        return lambda value: value
    return lambda value: int(value)


def format_int(value, fill, align, sign, width, separator, zeros, base, upper, prefix, char):
    if char:
        x = int(value)
        if x < 0 or x > 0x10FFFF:
            raise OverflowError("%c arg not in range(0x110000)")
        return _padded("", chr(x), fill, align, width)
    value = _integral(value)
    negative, digits = value < 0, integer_text(value, base, upper, False)
    size = 3 if base == 10 else 4
    return _finish_number(
        negative, sign, prefix, digits, "", fill, align, width, separator, zeros, size
    )


def format_float(value, fill, align, sign, width, separator, zeros, precision, pattern, kind):
    """`kind`: 0 a C conversion (`pattern`), 1 percent, 2 no type ('g' keeping a digit after the
    point); NaN is spelled from the pattern's case."""
    x = float(value)
    if kind == 1:
        x = x * 100.0
    negative = x < 0 or (x == 0.0 and math.copysign(1.0, x) < 0)
    magnitude = -x if negative else x
    if x != x:
        conversion = _get(pattern, _length(pattern) - 2)  # the letter before the NUL
        text = "NAN" if conversion == 69 or conversion == 70 or conversion == 71 else "nan"
    elif kind == 2:
        text = _shortest_general(magnitude, precision, _get(pattern, 1) == 35)  # '#'
    else:
        text = _c_format(pattern, precision, magnitude)
    if kind == 1:
        text = _joined(text, "%")
    return _finish_float(negative, text, sign, fill, align, width, separator, zeros)


def format_float_c(value, precision, pattern):
    """A float by a C conversion alone (no sign option, width, grouping nor '%'): C writes the
    sign, "-0.00" and "-inf" too, as CPython does; NaN is spelled from the pattern's case
    (C would write "-nan")."""
    x = float(value)
    if x != x:
        conversion = _get(pattern, _length(pattern) - 2)  # the letter before the NUL
        return "NAN" if conversion == 69 or conversion == 70 or conversion == 71 else "nan"
    return _c_format(pattern, precision, x)


def format_float_repr(value, fill, align, sign, width, separator, zeros, alternate):
    """A float with no type nor precision: its repr, aligned (apart: repr compiles slowly)."""
    x = float(value)
    negative = x < 0 or (x == 0.0 and math.copysign(1.0, x) < 0)
    text = str(-x if negative else x) if x == x else "nan"
    if alternate:
        text = _point_before_exponent(text)
    return _finish_float(negative, text, sign, fill, align, width, separator, zeros)


@register_jitable
def _finish_float(negative, text, sign, fill, align, width, separator, zeros):
    """Sign, grouping and padding of the text of |x| ("1234.5e+06", "inf")."""
    point = 0
    n = _length(text)
    while point < n and 48 <= _get(text, point) <= 57:
        point += 1
    digits, rest = substring(text, 0, point), substring(text, point, n)
    keep_zeros = zeros and point > 0  # inf and nan: no digits to group or pad with zeros
    return _finish_number(
        negative, sign, "", digits, rest, fill, align, width, separator, keep_zeros, 3
    )


def format_text(value, fill, align, width, precision):
    text = value if precision < 0 else substring(value, 0, min(precision, _length(value)))
    return _padded("", text, fill, align, width)


def format_plain(value):
    return str(value)


def format_float_plain(value):
    """`format(x, "")` of a float: the repr of the double (NumPy's float32 too)."""
    return str(float(value))


def _kind_of(value: types.Type) -> str | None:
    value = types.unliteral(value)
    if isinstance(value, (types.Integer, types.Boolean)):
        return "int"
    if isinstance(value, types.Float):
        return "float"
    if isinstance(value, types.Complex):
        return "complex"
    if is_string(value):
        return "str"
    return None


@functools.cache
def format_plan(kind: str, text: str) -> tuple:
    """(implementation, constant arguments after the value) of `format(value, text)`."""
    found = _SPEC.match(text)
    if kind == "complex" or (found is not None and found.group("z")):
        # complex numbers, and 'z' (rare): the run-time spec's implementation, given the text
        from ember.library.strings import format_runtime

        return format_runtime.implementation_of(kind), (text,)
    if text == "":
        return (format_float_plain if kind == "float" else format_plain), ()
    spec = parse_spec(text, kind)
    if isinstance(spec, str):
        return _bad(spec), ()
    sign = "" if spec.sign == "-" else spec.sign
    common = (spec.fill, spec.align)
    if kind == "str":
        return format_text, (*common, spec.width, spec.precision)
    number = (*common, sign, spec.width, spec.grouping, spec.zero_grouped)
    code = spec.type
    ascii_number = (  # the fast path's options as code points
        ord(spec.fill),
        ord(spec.align),
        ord(sign) if sign else 0,
        spec.width,
        ord(spec.grouping) if spec.grouping else 0,
        spec.zero_grouped,
    )
    fast = ord(spec.fill) < 0x80
    if kind == "float" or (code and code in _FLOAT_TYPES):
        precision = spec.precision if spec.precision >= 0 else (-1 if not code else 6)
        if not code and precision == 0:
            precision = 1  # CPython reads '.0' with no type as '.1'
        c_code = "f" if code == "%" else (code or "g")
        pattern = "%" + ("#" if spec.alternate else "") + ".*" + c_code + "\0"
        if code and code != "%" and not (sign or spec.width or spec.grouping):
            return format_float_c, (precision, pattern)  # the common '.2f': compiles in a third
        if not code and precision < 0:
            impl = format_float_ascii_repr if fast else format_float_repr
            return impl, (*(ascii_number if fast else number), spec.alternate)
        if not code and fast:
            return format_float_ascii_general, (*ascii_number, precision, spec.alternate)
        kind_code = 1 if code == "%" else (2 if not code else 0)
        impl = format_float_ascii if fast else format_float
        return impl, (*(ascii_number if fast else number), precision, pattern, kind_code)
    base = {"b": 2, "o": 8, "x": 16, "X": 16}.get(code, 10)
    if fast and code != "c":
        prefix = ord(code) if spec.alternate and base != 10 else 0
        size = 3 if base == 10 else 4
        return format_int_ascii, (*ascii_number, base, code == "X", prefix, size)
    prefix = ("0" + code) if spec.alternate and base != 10 else ""
    return format_int, (*number, base, code == "X", prefix, code == "c")


def _constant_type(value) -> types.Type:
    if isinstance(value, bool):
        return types.boolean
    return types.int64 if isinstance(value, int) else string_type


def _constant_value(context, builder, value) -> llvm.Value:
    if isinstance(value, bool):
        return llvm.Constant(llvm.IntType(1), int(value))
    if isinstance(value, int):
        return refs.const(value)
    return primitives.constant(builder, value)


@functools.cache
def _compiled(func) -> Implementation:
    """A generated implementation, compiled per argument types as an `@overload`'s is."""
    return Implementation(func)  # default options: its callees compile once (typing and lowering)


def _plan_call(value: types.Type, spec: types.Type) -> tuple:
    """(Implementation, its argument types, constants) of a typed format() call."""
    text = "" if spec is None else spec.literal_value
    func, constants = format_plan(_kind_of(value), text)
    arg_types = (types.unliteral(value), *map(_constant_type, constants))
    return _compiled(func), arg_types, constants


@registry.typer(format)
def _type_format(args, kws):
    if kws or not 1 <= len(args) <= 2 or _kind_of(args[0]) is None:
        return None
    spec = args[1] if len(args) == 2 else None
    if spec is not None and not isinstance(spec, types.StringLiteral):
        if not is_string(spec):
            return None
        from ember.library.strings.format_runtime import runtime_plan

        impl, arg_types = runtime_plan(args[0], spec)  # an f-string's nested {x:>{n}}
        return signature(impl.type_call(arg_types).return_type, *args)
    impl, arg_types, _ = _plan_call(args[0], spec)
    return signature(impl.type_call(arg_types).return_type, *args)


# values formatted by object.__format__: an empty spec gives their str()
_STR_FORMATTED = (types.List, types.BaseTuple, types.DictType, types.Set, types.NoneType)


@overload(format)
def format_of_other_values(value, spec=""):
    """`format(x)` / `'{}'.format(x)` of a value with no format mini-language (a list, a tuple,
    a dict, None...): its `str()`, as `object.__format__` gives; a spec is CPython's TypeError."""
    if not isinstance(types.unliteral(value), _STR_FORMATTED):
        return None
    empty = isinstance(spec, str) or (
        isinstance(spec, types.StringLiteral) and spec.literal_value == ""
    )
    if empty:
        return lambda value, spec="": str(value)
    if isinstance(spec, types.StringLiteral):
        message = f"unsupported format string passed to {python_type_name(value)}.__format__"

        def refused(value, spec=""):
            raise TypeError(message)

        return refused
    return None


@lower_builtin(format, types.Any)
@lower_builtin(format, types.Any, types.Any)
def _lower_format(context, builder, sig, args):
    if len(args) == 2 and not isinstance(sig.args[1], types.StringLiteral):
        from ember.library.strings.format_runtime import runtime_plan

        impl, arg_types = runtime_plan(sig.args[0], sig.args[1])
        values = [context.cast(builder, a, t, u) for a, t, u in zip(args, sig.args, arg_types)]
        return impl.call(context, builder, signature(sig.return_type, *arg_types), values)
    impl, arg_types, constants = _plan_call(sig.args[0], sig.args[1] if len(args) == 2 else None)
    value = context.cast(builder, args[0], sig.args[0], arg_types[0])
    values = [value, *(_constant_value(context, builder, c) for c in constants)]
    return impl.call(context, builder, signature(sig.return_type, *arg_types), values)


# ---------------------------------------------------------------------------- str.format

# A constant receiver keeps its StringLiteral type (and so its text) under this key.
_FORMAT_KEY = (types.StringLiteral, "format")


def _field_source(argument: str, conversion: str | None, spec: str) -> str:
    """The expression formatting one replacement field of the generated implementation; `spec`
    is the source of an expression giving the format spec."""
    if conversion == "a":
        raise UnsupportedError("str.format with !a is not supported")
    if conversion == "r":
        argument = f"_ember_repr({argument})"
    elif conversion is not None:
        argument = f"_ember_str({argument})"
    return f"_ember_format({argument}, {spec})"


_SWITCHED_NUMBERING = {
    False: "cannot switch from automatic field numbering to manual field specification",
    True: "cannot switch from manual field specification to automatic field numbering",
}


class _Refused(Exception):
    """A format string CPython refuses when it formats: `error(message)` at run time."""

    def __init__(self, error: type, message: str) -> None:
        super().__init__(message)
        self.error, self.message = error, message


class _Fields:
    """The replacement fields of one format string resolved to parameters, with CPython's checks
    (automatic '{}' or manual '{0}' numbering, never both; an index or name that exists)."""

    def __init__(self, positional: tuple, keywords: tuple) -> None:
        self.count = len(positional)
        self.names = {name for name, _ in keywords}
        self.automatic, self.manual = 0, False

    def parameter(self, field: str) -> str:
        """The source of the field's value: its parameter, then any `.attr` / `[key]` (a key of
        digits is an int, any other a str, as CPython reads them)."""
        try:
            head, parts = _string.formatter_field_name_split(field)
            accessors = "".join(
                f".{key}" if is_attribute else f"[{key!r}]" for is_attribute, key in parts
            )
        except ValueError as error:  # "Empty attribute in format string" and the like
            raise _Refused(ValueError, str(error)) from None
        return self._argument(str(head)) + accessors

    def _argument(self, field: str) -> str:
        if (field == "" and self.manual) or (field.isdigit() and self.automatic):
            raise _Refused(ValueError, _SWITCHED_NUMBERING[self.manual])
        if field == "":
            field, self.automatic = str(self.automatic), self.automatic + 1
        elif field.isdigit():
            self.manual = True
        if field.isdigit() and int(field) >= self.count:
            message = f"Replacement index {field} out of range for positional args tuple"
            raise _Refused(IndexError, message)
        if not field.isdigit() and field not in self.names:
            raise _Refused(KeyError, field)
        return f"_field_{field}"

    def spec_source(self, spec: str) -> str:
        """The source of the format spec: a constant, or text joined from the fields nested in
        it (`'{:>{w}}'`, one level deep as in CPython)."""
        if "{" not in spec:
            return repr(spec)
        pieces = []
        for literal, field, inner_spec, conversion in string.Formatter().parse(spec):
            if literal:
                pieces.append(repr(literal))
            if field is None:
                continue
            if inner_spec and "{" in inner_spec:
                raise _Refused(ValueError, "Max string recursion exceeded")
            inner = self.parameter(field)
            pieces.append(_field_source(inner, conversion, repr(inner_spec or "")))
        return " + ".join(pieces)


@functools.cache
def _format_method_impl(fmt: str, positional: tuple, keywords: tuple):
    """The implementation of `fmt.format(*positional, **keywords)` (the value types given),
    as Python source with one parameter per argument."""
    params = [f"_field_{k}" for k in range(len(positional))]
    params += [name for name, _ in keywords]
    aliases = [f"    _field_{name} = {name}\n" for name, _ in keywords]
    fields, pieces = _Fields(positional, keywords), []
    try:
        for literal, field, spec, conversion in string.Formatter().parse(fmt):
            if literal:
                pieces.append(repr(literal))
            if field is None:
                continue
            argument = fields.parameter(field)  # numbered before the fields in its spec
            pieces.append(_field_source(argument, conversion, fields.spec_source(spec or "")))
    except ValueError as error:  # a malformed format string
        return _raises(ValueError, str(error))
    except _Refused as refused:
        return _raises(refused.error, refused.message)
    source = (
        f"def impl({', '.join(params)}):\n"
        + "".join(aliases)
        + f"    return {' + '.join(pieces) or repr('')}\n"
    )
    namespace = {"_ember_format": format, "_ember_str": str, "_ember_repr": repr}
    exec(source, namespace)  # noqa: S102 - generated from the parsed constant format string
    return namespace["impl"]


def _raises(error: type, message: str):
    def impl(*args):
        raise error(message)

    return impl


def _format_call(args: tuple, kws: dict):
    receiver = args[0]
    positional = tuple(types.unliteral(t) for t in args[1:])
    keywords = tuple((name, types.unliteral(t)) for name, t in kws.items())
    return receiver, positional, keywords


@registry.typer((types.UnicodeType, "format"))
def _type_format_of_variable(args, kws):
    raise UnsupportedError(
        "str.format needs a constant format string in compiled code ('{}: {:.2f}'.format(...))"
    )


@registry.typer(_FORMAT_KEY)
def _type_format_method(args, kws):
    if not args or not is_string(args[0]):
        return None
    receiver, positional, keywords = _format_call(args, kws)
    impl = _compiled(_format_method_impl(receiver.literal_value, positional, keywords))
    values = (*positional, *(t for _, t in keywords))
    receiver_param = inspect.Parameter("_receiver", inspect.Parameter.POSITIONAL_ONLY)
    parameters = inspect.signature(impl.py_func).parameters.values()
    pysig = inspect.Signature([receiver_param, *parameters])
    # The receiver's type carries the call's shape (positional count, keyword names) to lowering.
    shape = types.StringLiteral(_encode_shape(receiver.literal_value, len(positional), keywords))
    return Signature(impl.type_call(values).return_type, (shape, *values), pysig=pysig)


_SHAPE_MARK = "\0ember.format\0"


def _encode_shape(fmt: str, count: int, keywords: tuple) -> str:
    return _SHAPE_MARK + repr((fmt, count, tuple(name for name, _ in keywords)))


def _decode_shape(text: str) -> tuple:
    return ast.literal_eval(text[len(_SHAPE_MARK) :])


@lower_cast(types.StringLiteral, types.StringLiteral)
def _literal_to_shape(context, builder, from_type, to_type, value):
    if not to_type.literal_value.startswith(_SHAPE_MARK):
        raise LoweringError(f"no conversion from {from_type} to {to_type}")
    return context.get_dummy_value(to_type)


@lower_builtin(_FORMAT_KEY, types.VarArg(types.Any))
def _lower_format_method(context, builder, sig, args):
    fmt, count, names = _decode_shape(sig.args[0].literal_value)
    positional = sig.args[1 : 1 + count]
    keywords = tuple(zip(names, sig.args[1 + count :]))
    impl = _compiled(_format_method_impl(fmt, positional, keywords))
    return impl.call(context, builder, Signature(sig.return_type, sig.args[1:]), args[1:])


@overload(displays.formatted_field)
def _formatted_field(value):
    """`{x}` in an f-string: `str(x)`, but the double's repr for a float (a float32 too) and
    CPython's complex text of a complex64 (NumPy formats its value as a complex)."""
    if isinstance(value, types.Float):
        return lambda value: str(float(value))
    if isinstance(value, types.Complex):
        return lambda value: str(complex(value))
    return lambda value: str(value)
