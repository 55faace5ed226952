"""Conversions between strings and numbers in compiled code: `str(int)`, `str(float)` (CPython's
shortest round-trip `repr`), `str(bool)`, `int(str)`, `int(str, base)` and `float(str)` with
CPython's syntax (whitespace, signs, underscores between digits, inf/nan) and its ValueError
on bad input."""

from __future__ import annotations

import builtins
import math

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic, overload, register_jitable
from ember.library.strings.core import _get, _length, _new, _set, is_string, string, substring
from ember.library.strings.methods import is_space
from ember.library.strings.unicode import DECIMAL_VALUE, unicode_property
from ember.lowering import arrays as refs
from ember.lowering import strings as primitives
from ember.typing.signature import signature

_INT64_MIN_TEXT = "-9223372036854775808"


# ---------------------------------------------------------------------------- numbers -> str


@register_jitable
def _digit_count(magnitude):
    count = 1
    while magnitude >= 10:
        magnitude //= 10
        count += 1
    return count


@register_jitable
def _decimal_text(magnitude, negative):
    count = _digit_count(magnitude)
    total = count + (1 if negative else 0)
    out = _new(1, total)
    if negative:
        _set(out, 0, 45)
    for position in range(total - 1, total - count - 1, -1):
        _set(out, position, 48 + magnitude % 10)
        magnitude //= 10
    return out


@register_jitable
def unsigned_digits(magnitude, base, upper):
    """The digits of a uint64 in `base` (kept unsigned: uint64 mixed with int64 is a float)."""
    letters = 55 if upper else 87  # ord('A') - 10, ord('a') - 10
    radix = np.uint64(base)
    count = 1
    rest = magnitude
    while rest >= radix:
        rest //= radix
        count += 1
    out = _new(1, count)
    for position in range(count - 1, -1, -1):
        digit = np.int64(magnitude % radix)
        _set(out, position, digit + (48 if digit < 10 else letters))
        magnitude //= radix
    return out


@overload(str)
def number_str(x):
    if isinstance(x, types.Boolean):
        return lambda x: "True" if x else "False"
    if isinstance(x, types.Integer) and not x.signed:
        return lambda x: unsigned_digits(np.uint64(x), 10, False)
    if isinstance(x, types.Integer):

        def int_str(x):
            value = np.int64(x)  # a narrow -x wraps: -np.int8(-128) is -128
            if value == -9223372036854775807 - 1:
                return _INT64_MIN_TEXT
            if value < 0:
                return _decimal_text(-value, True)
            return _decimal_text(value, False)

        return int_str
    if isinstance(x, types.Float) and x.bitwidth == 32:  # NumPy's shortest float32 digits
        return lambda x: _float_repr(float(x), True)
    if isinstance(x, types.Float):
        return lambda x: _float_repr(float(x))
    return None


def _radix_function(name: str, spec: str):
    """`hex`, `oct`, `bin` of an integer: `format(x, "#x")` and so on (sign before the 0x)."""

    def overload_function(x):
        if isinstance(types.unliteral(x), (types.Integer, types.Boolean)):
            return lambda x: format(x, spec)
        return None

    overload(getattr(builtins, name))(overload_function)


for _name, _spec in (("hex", "#x"), ("oct", "#o"), ("bin", "#b")):
    _radix_function(_name, _spec)


def _declare(module: llvm.Module, name: str, fnty: llvm.FunctionType) -> llvm.Function:
    found = module.globals.get(name)
    return found if found is not None else llvm.Function(module, fnty, name)


@intrinsic
def _format_exponent(typingctx, x, precision):
    """C's `%.*e` of a double with `precision` digits after the point, as a string whose
    characters are followed by a NUL (so `_strtod` can read it back)."""

    def codegen(context, builder, sig, args):
        snprintf = _declare(
            builder.module,
            "snprintf",
            llvm.FunctionType(refs.i32, [refs.ptr, refs.i64, refs.ptr], var_arg=True),
        )
        pattern = primitives.constant(builder, "%.*e\0")
        buffer = refs.alloca_in_entry(builder, llvm.ArrayType(refs.i8, 40), "repr.buffer")
        width = builder.trunc(args[1], refs.i32)
        format_args = [buffer, refs.const(40), primitives.data(builder, pattern), width, args[0]]
        length = builder.sext(builder.call(snprintf, format_args), refs.i64)
        text = primitives.allocate(
            context, builder, refs.const(1), builder.add(length, refs.const(1))
        )
        refs.memcpy(
            builder, primitives.data(builder, text), buffer, builder.add(length, refs.const(1))
        )
        return builder.insert_value(text, length, 2)

    return signature(string, types.float64, types.int64), codegen


@register_jitable
def _bumped(text):
    """`text` ("d.ddde+xx") with its last mantissa digit one higher (carrying), NUL-ended."""
    mark = text.find("e")
    exponent = int(text[mark + 1 :])
    digits = text[0] + text[2:mark] if mark > 1 else text[0]
    n = len(digits)
    out = _new(1, n)
    carry = 1
    for k in range(n - 1, -1, -1):
        digit = _get(digits, k) - 48 + carry
        carry = 1 if digit == 10 else 0
        _set(out, k, 48 + (0 if digit == 10 else digit))
    if carry:  # 9.99 -> 10.00: one digit more in front, exponent up
        out = "1" + substring(out, 0, n - 1)
        exponent += 1
    mantissa = out[0] + "." + out[1:] if n > 1 else out
    sign = "e-" if exponent < 0 else "e+"
    return mantissa + sign + ("0" if abs(exponent) < 10 else "") + str(abs(exponent)) + "\0"


@register_jitable
def _reads_back(text, x, single):
    """Whether the NUL-ended `text` reads back as `x` (as a float32 when `single`)."""
    value = _strtod(text)
    if single:
        return np.float32(value) == np.float32(x)
    return value == x


@register_jitable
def _shortest_exponent_text(x, single):
    """The shortest `%.*e` spelling of a finite positive double (float32 when `single`) that
    reads back as the same number, the nearer one first (CPython's and NumPy's repr digits);
    at a power of two the nearest spelling may fall outside the narrower lower half-interval,
    the next one up then does."""
    for precision in range(17):
        text = _format_exponent(x, precision)
        if _reads_back(text, x, single):
            return text
        above = _bumped(text)
        if _reads_back(above, x, single):
            return substring(above, 0, len(above) - 1)
    return _format_exponent(x, 16)


@register_jitable
def _float_repr(x, single=False):
    if x != x:
        return "nan"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    negative = x < 0
    magnitude = -x if negative else x
    if magnitude == magnitude * 2.0:  # infinite
        return "-inf" if negative else "inf"
    text = _shortest_exponent_text(magnitude, single)
    # text is "d[.ddd]e[+-]xx": gather the digits and the decimal exponent
    mark = text.find("e")
    digits = text[0] + text[2:mark] if mark > 1 else text[0]
    exponent = int(text[mark + 1 :])
    point = exponent + 1  # digits[:point] . digits[point:]
    n = len(digits)
    sign = "-" if negative else ""
    if (magnitude < 1e-4 or magnitude >= 1e6) if single else (point <= -4 or point > 16):
        mantissa = digits[0] + "." + digits[1:] if n > 1 else digits
        shown = abs(exponent)
        return (
            sign
            + mantissa
            + ("e-" if exponent < 0 else "e+")
            + ("0" if shown < 10 else "")
            + str(shown)
        )
    if point <= 0:
        return sign + "0." + "0" * (-point) + digits
    if point >= n:
        return sign + digits + "0" * (point - n) + ".0"
    return sign + digits[:point] + "." + digits[point:]


# ---------------------------------------------------------------------------- str -> numbers


@register_jitable
def _digit_value(code):
    """The value of a decimal digit character, or -1 (Unicode digits as CPython reads them)."""
    if code < 128:
        return code - 48 if 48 <= code <= 57 else -1
    return unicode_property(code, DECIMAL_VALUE)


@register_jitable
def _trimmed(s):
    low = 0
    high = _length(s)
    while low < high and is_space(_get(s, low)):
        low += 1
    while high > low and is_space(_get(s, high - 1)):
        high -= 1
    return low, high


@register_jitable
def _letter_value(code):
    """A digit's value in bases up to 36 (letters either case), or 99."""
    value = _digit_value(code)
    if value >= 0:
        return value
    if 97 <= code <= 122:
        return code - 87
    if 65 <= code <= 90:
        return code - 55
    return 99


@register_jitable
def _invalid_int(s, base):
    """CPython's message, the string's repr cut to 200 characters as its `%.200R` does."""
    raise ValueError("invalid literal for int() with base " + str(base) + ": " + repr(s)[:200])


@register_jitable
def _parse_int(s, base):
    given_base = base
    low, high = _trimmed(s)
    negative = False
    if low < high and (_get(s, low) == 43 or _get(s, low) == 45):
        negative = _get(s, low) == 45
        low += 1
    if low + 1 < high and _get(s, low) == 48:
        prefix = _get(s, low + 1) | 32
        prefixed = (prefix == 120 and base in (0, 16)) or (prefix == 111 and base in (0, 8))
        prefixed = prefixed or (prefix == 98 and base in (0, 2))
        if prefixed:
            base = 16 if prefix == 120 else (8 if prefix == 111 else 2)
            low += 2
            if low < high and _get(s, low) == 95:  # 0x_ff
                low += 1
        elif base == 0:
            base = 10
            for k in range(low, high):  # "00" is fine, "012" is not
                if _get(s, k) != 48 and _get(s, k) != 95:
                    _invalid_int(s, given_base)
    if base == 0:
        base = 10
    if low >= high:
        _invalid_int(s, given_base)
    smallest = -9223372036854775807 - 1
    total = 0  # accumulated as a negative number, which reaches the smallest int64
    previous_digit = False
    for k in range(low, high):
        code = _get(s, k)
        if code == 95 and previous_digit and k + 1 < high:
            previous_digit = False
            continue
        value = _letter_value(code)
        if value >= base:
            _invalid_int(s, given_base)
        if total < (smallest + value + base - 1) // base:
            raise OverflowError("int() of this string does not fit in 64 bits")
        total = total * base - value
        previous_digit = True
    if not previous_digit:
        _invalid_int(s, given_base)
    if negative:
        return total
    if total == smallest:
        raise OverflowError("int() of this string does not fit in 64 bits")
    return -total


@overload(int)
def string_int(s, base=10):
    if is_string(s) and (base == 10 or isinstance(types.unliteral(base), types.Integer)):

        def impl(s, base=10):
            if base != 0 and (base < 2 or base > 36):
                raise ValueError("int() base must be >= 2 and <= 36, or 0")
            return _parse_int(s, base)

        return impl
    return None


@intrinsic
def _strtod(typingctx, text):
    """C `strtod` of a 1-byte string whose last character is NUL."""

    def codegen(context, builder, sig, args):
        strtod = _declare(
            builder.module,
            "strtod",
            llvm.FunctionType(llvm.DoubleType(), [refs.ptr, refs.ptr]),
        )
        return builder.call(
            strtod, [primitives.data(builder, args[0]), llvm.Constant(refs.ptr, None)]
        )

    return signature(types.float64, string), codegen


@register_jitable
def _digits_run(s, k, high):
    """The end of a run of digits (single underscores between them) from `k`, and the count
    of digits; -1 as the end when an underscore is misplaced."""
    count = 0
    while k < high:
        code = _get(s, k)
        if _digit_value(code) >= 0:
            count += 1
        elif code == 95 and count > 0 and k + 1 < high and _digit_value(_get(s, k + 1)) >= 0:
            pass
        else:
            break
        k += 1
    return k, count


@register_jitable
def _special_float(s, low, high):
    """inf, infinity or nan (any case) between low and high, else 0.0 with found False."""
    word = substring(s, low, high).lower()
    if word == "inf" or word == "infinity":
        return True, 1e308 * 10.0
    if word == "nan":
        return True, (1e308 * 10.0) * 0.0
    return False, 0.0


@register_jitable
def _invalid_float(s):
    raise ValueError("could not convert string to float: " + repr(s))


@register_jitable
def _parse_float(s):
    low, high = _trimmed(s)
    negative = False
    start = low
    if low < high and (_get(s, low) == 43 or _get(s, low) == 45):
        negative = _get(s, low) == 45
        low += 1
    special, value = _special_float(s, low, high) if high - low in (3, 8) else (False, 0.0)
    if special:
        return -value if negative else value
    k, whole = _digits_run(s, low, high)
    fraction = 0
    if k < high and _get(s, k) == 46:
        k, fraction = _digits_run(s, k + 1, high)
    if whole + fraction == 0:
        _invalid_float(s)
    if k < high and (_get(s, k) | 32) == 101:
        k += 1
        if k < high and (_get(s, k) == 43 or _get(s, k) == 45):
            k += 1
        k, exponent_digits = _digits_run(s, k, high)
        if exponent_digits == 0:
            _invalid_float(s)
    if k != high:
        _invalid_float(s)
    # the C library reads the ASCII form without underscores
    buffer = _new(1, high - start + 1)
    n = 0
    for position in range(start, high):
        code = _get(s, position)
        if code == 95:
            continue
        digit = _digit_value(code) if code >= 128 else -1
        _set(buffer, n, 48 + digit if digit >= 0 else code)
        n += 1
    _set(buffer, n, 0)
    return _strtod(buffer)


@overload(float)
def string_float(s):
    if is_string(s):
        return lambda s: _parse_float(s)
    return None
