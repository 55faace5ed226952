"""Conversions between strings and numbers in compiled code: `str(int)`, `str(float)` (CPython's
shortest round-trip `repr`), `str(bool)`, `int(str)`, `int(str, base)` and `float(str)` with
CPython's syntax (whitespace, signs, underscores between digits, inf/nan) and its ValueError
on bad input."""

from __future__ import annotations

import builtins
import math

from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic, overload, register_jitable
from ember.library.strings.core import (
    _byte,
    _copy,
    _get,
    _length,
    _new,
    _put,
    _set,
    deferred_text,
    is_string,
    string,
)
from ember.library.strings.methods import is_space
from ember.library.strings.unicode import DECIMAL_VALUE, unicode_property
from ember.lowering import arrays as refs
from ember.lowering import cgutils
from ember.lowering import strings as primitives
from ember.typing.signature import signature

# ---------------------------------------------------------------------------- numbers -> str


@register_jitable
def _digit_count(magnitude):
    count = 1
    while magnitude >= 10:
        magnitude //= 10
        count += 1
    return count


@intrinsic
def integer_text(typingctx, x, base, upper, signed_text):
    """The digits of an integer in `base` (2 to 16; letters upper case when `upper`) as an ASCII
    string, '-' first when `signed_text` and x < 0, else those of |x| (int64's minimum too):
    written backwards into a stack buffer by a loop of a few instructions, then copied once."""
    if not isinstance(x, (types.Integer, types.Boolean)):
        return None
    signed = getattr(x, "signed", False)  # a bool is not

    def codegen(context, builder, sig, args):
        value, base_value, upper_value, with_sign = args
        if value.type.width < 64:
            value = (builder.sext if signed else builder.zext)(value, refs.i64)
        negative = llvm.Constant(llvm.IntType(1), 0)
        if signed:
            negative = builder.icmp_signed("<", value, refs.const(0))
            value = builder.select(negative, builder.neg(value), value)
        buffer = cgutils.alloca_once(builder, refs.i8, 65)  # 64 binary digits and a sign
        letters = builder.select(upper_value, refs.const(55), refs.const(87))
        before = builder.block
        loop = builder.append_basic_block("digits")
        done = builder.append_basic_block("digits.done")
        builder.branch(loop)
        builder.position_at_end(loop)
        rest = builder.phi(refs.i64)
        position = builder.phi(refs.i64)
        rest.add_incoming(value, before)
        position.add_incoming(refs.const(65), before)
        digit = builder.urem(rest, base_value)
        small = builder.icmp_unsigned("<", digit, refs.const(10))
        code = builder.add(digit, builder.select(small, refs.const(48), letters))
        at = builder.sub(position, refs.const(1))
        address = builder.gep(buffer, [at], source_etype=refs.i8)
        builder.store(builder.trunc(code, refs.i8), address)
        quotient = builder.udiv(rest, base_value)
        rest.add_incoming(quotient, loop)
        position.add_incoming(at, loop)
        builder.cbranch(builder.icmp_unsigned("!=", quotient, refs.const(0)), loop, done)
        builder.position_at_end(done)
        minus = builder.and_(negative, builder.trunc(with_sign, llvm.IntType(1)))
        start = builder.sub(at, builder.zext(minus, refs.i64))
        sign_at = builder.gep(buffer, [start], source_etype=refs.i8)
        with builder.if_then(minus):
            builder.store(llvm.Constant(refs.i8, 45), sign_at)
        length = builder.sub(refs.const(65), start)
        text = primitives.allocate(context, builder, refs.const(1), length)
        refs.memcpy(builder, primitives.data(builder, text), sign_at, length)
        return text

    return signature(string, x, types.int64, types.boolean, types.boolean), codegen


@overload(str)
def number_str(x):
    if isinstance(x, types.Boolean):
        return lambda x: "True" if x else "False"
    if isinstance(x, types.Integer):
        return lambda x: integer_text(x, 10, False, True)
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
def _print_exponent(typingctx, buffer, x, precision):
    """C's `%.*e` of a double with `precision` digits after the point, written NUL-ended into
    `buffer` (a 1-byte string of `_SCRATCH` characters); the number of characters."""

    def codegen(context, builder, sig, args):
        snprintf = _declare(
            builder.module,
            "snprintf",
            llvm.FunctionType(refs.i32, [refs.ptr, refs.i64, refs.ptr], var_arg=True),
        )
        pattern = primitives.constant(builder, "%.*e\0")
        width = builder.trunc(args[2], refs.i32)
        data, size = primitives.data(builder, args[0]), refs.const(_SCRATCH)
        format_args = [data, size, primitives.data(builder, pattern), width, args[1]]
        return builder.sext(builder.call(snprintf, format_args), refs.i64)

    return signature(types.int64, string, types.float64, types.int64), codegen


@intrinsic
def _double_bits(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], refs.i64)

    return signature(types.int64, types.float64), codegen


# Room for C's longest `%.16e` ("d.dddddddddddddddde-308") and its NUL.
_SCRATCH = 40
_MANTISSA_BITS = (1 << 52) - 1


@intrinsic
def _single_rounded(typingctx, x):
    """`x` rounded to float32 and back (np.float32 without importing NumPy for strings)."""

    def codegen(context, builder, sig, args):
        return builder.fpext(builder.fptrunc(args[0], llvm.FloatType()), llvm.DoubleType())

    return signature(types.float64, types.float64), codegen


@register_jitable
def _reads_back(buffer, x, single):
    """Whether the NUL-ended text in `buffer` reads back as `x` (as a float32 when `single`)."""
    value = _strtod(buffer)
    if single:
        return _single_rounded(value) == _single_rounded(x)
    return value == x


@register_jitable
def _scientific_parts(buffer):
    """(the mantissa's digits as an integer, how many, the decimal exponent) of the
    "d[.ddd]e[+-]xx" text in `buffer`."""
    digits = _get(buffer, 0) - 48
    count = 1
    k = 1
    if _get(buffer, 1) == 46:  # '.'
        k = 2
        while _get(buffer, k) != 101:  # 'e'
            digits = digits * 10 + _get(buffer, k) - 48
            count += 1
            k += 1
    negative = _get(buffer, k + 1) == 45
    k += 2
    exponent = 0
    while _get(buffer, k) != 0:
        exponent = exponent * 10 + _get(buffer, k) - 48
        k += 1
    return digits, count, -exponent if negative else exponent


@register_jitable
def _put_integer(buffer, position, value):
    """The decimal digits of `value` >= 0 written from `position`; the position after them."""
    end = position + _digit_count(value)
    for k in range(end - 1, position - 1, -1):
        _set(buffer, k, 48 + value % 10)
        value //= 10
    return end


@register_jitable
def _reads_back_as_integer(buffer, x, single, digits, scale):
    """Whether `digits` * 10**`scale` reads back as `x` (written "DDDe-SS" into `buffer`)."""
    position = _put_integer(buffer, 0, digits)
    _set(buffer, position, 101)
    if scale < 0:
        _set(buffer, position + 1, 45)
        position += 1
    end = _put_integer(buffer, position + 1, abs(scale))
    _set(buffer, end, 0)
    return _reads_back(buffer, x, single)


@register_jitable
def _shortest_digits(x, single, buffer):
    """(digits, how many, decimal exponent of the first) of the shortest decimal that reads
    back as the finite x > 0 (a float32 when `single`), the nearest one among equally short
    ones: CPython's repr digits (NumPy's for float32)."""
    if _double_bits(x) & _MANTISSA_BITS:
        # Not a power of two: its rounding interval is symmetric, so the nearest spelling at
        # each precision is the only one to try, and once one reads back every longer one
        # does: a binary search finds the shortest.
        low, high = 0, 16
        while low < high:
            middle = (low + high) // 2
            _print_exponent(buffer, x, middle)
            if _reads_back(buffer, x, single):
                high = middle
            else:
                low = middle + 1
        _print_exponent(buffer, x, low)
        return _scientific_parts(buffer)
    # A power of two: the interval below is half the one above, where the nearest spelling may
    # fall outside while the next one up is inside.
    for precision in range(16):
        _print_exponent(buffer, x, precision)
        digits, count, exponent = _scientific_parts(buffer)
        if _reads_back(buffer, x, single):
            return digits, count, exponent
        if _reads_back_as_integer(buffer, x, single, digits + 1, exponent - count + 1):
            if _digit_count(digits + 1) > count:  # 9.99 -> 10.0: an exponent higher
                return (digits + 1) // 10, count, exponent + 1
            return digits + 1, count, exponent
    _print_exponent(buffer, x, 16)
    return _scientific_parts(buffer)


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
    buffer = _new(1, _SCRATCH)
    digits, count, exponent = _shortest_digits(magnitude, single, buffer)
    while count > 1 and digits % 10 == 0:
        digits //= 10
        count -= 1
    _put_integer(buffer, 0, digits)  # the digits' characters, from buffer[0]
    point = exponent + 1  # digits[:point] . digits[point:]
    sign = 1 if negative else 0
    if (magnitude < 1e-4 or magnitude >= 1e6) if single else (point <= -4 or point > 16):
        shown = abs(exponent)
        shown_count = max(_digit_count(shown), 2)
        fraction = count - 1 + (1 if count > 1 else 0)  # ".ddd", or nothing
        out = _new(1, sign + 1 + fraction + 2 + shown_count)
        _set(out, sign, _get(buffer, 0))
        if count > 1:
            _set(out, sign + 1, 46)
            _copy(out, sign + 2, buffer, 1, count - 1)
        position = sign + 1 + fraction
        _set(out, position, 101)
        _set(out, position + 1, 45 if exponent < 0 else 43)
        _set(out, position + 2, 48)  # the exponent's leading zero, overwritten from 10 on
        _put_integer(out, position + 2 + shown_count - _digit_count(shown), shown)
    elif point <= 0:  # 0.000ddd
        out = _new(1, sign + 2 - point + count)
        for k in range(sign, sign + 2 - point):
            _set(out, k, 48)
        _set(out, sign + 1, 46)
        _copy(out, sign + 2 - point, buffer, 0, count)
    elif point >= count:  # ddd000.0
        out = _new(1, sign + point + 2)
        _copy(out, sign, buffer, 0, count)
        for k in range(sign + count, sign + point + 2):
            _set(out, k, 48)
        _set(out, sign + point, 46)
    else:  # ddd.ddd
        out = _new(1, sign + count + 1)
        _copy(out, sign, buffer, 0, point)
        _set(out, sign + point, 46)
        _copy(out, sign + point + 1, buffer, point, count - point)
    if negative:
        _set(out, 0, 45)
    return out


# ---------------------------------------------------------------------------- str -> numbers


@register_jitable
def _digit_value(code):
    """The value of a decimal digit character, or -1 (Unicode digits as CPython reads them)."""
    if code < 128:
        return code - 48 if 48 <= code <= 57 else -1
    return unicode_property(code, DECIMAL_VALUE)


@register_jitable
def _letter_value(code):
    """An ASCII digit's value in bases up to 36 (letters either case), or 99."""
    if 48 <= code <= 57:
        return code - 48
    if 97 <= code <= 122:
        return code - 87
    if 65 <= code <= 90:
        return code - 55
    return 99


@register_jitable(_llvm_inline="never")  # one raise for every place it raises
def _invalid_int(s, base):
    """CPython's message, the string's repr cut to 200 characters as its `%.200R` does
    (written by Python when raised: no compiled repr)."""
    raise ValueError(deferred_text("invalid literal for int() with base {}: {!r:.200}", base, s))


@register_jitable
def _ascii_trimmed(text, n):
    """The bounds of the first `n` characters of the ASCII `text` without C's whitespace."""
    low, high = 0, n
    while low < high and _ascii_space(_byte(text, low)):
        low += 1
    while high > low and _ascii_space(_byte(text, high - 1)):
        high -= 1
    return low, high


@register_jitable
def _parse_int(s, base=10):
    """int(s, base) read from the ASCII copy of `s` that float() reads (byte loads: no switch
    on the string's kind for each character)."""
    if base != 0 and (base < 2 or base > 36):
        raise ValueError("int() base must be >= 2 and <= 36, or 0")
    given_base = base
    text = _ascii_float_text(s)
    low, high = _ascii_trimmed(text, _length(s))
    negative = False
    if low < high and (_byte(text, low) == 43 or _byte(text, low) == 45):
        negative = _byte(text, low) == 45
        low += 1
    if low + 1 < high and _byte(text, low) == 48:
        prefix = _byte(text, low + 1) | 32
        prefixed = (prefix == 120 and base in (0, 16)) or (prefix == 111 and base in (0, 8))
        prefixed = prefixed or (prefix == 98 and base in (0, 2))
        if prefixed:
            base = 16 if prefix == 120 else (8 if prefix == 111 else 2)
            low += 2
            if low < high and _byte(text, low) == 95:  # 0x_ff
                low += 1
        elif base == 0:
            base = 10
            for k in range(low, high):  # "00" is fine, "012" is not
                if _byte(text, k) != 48 and _byte(text, k) != 95:
                    _invalid_int(s, given_base)
    if base == 0:
        base = 10
    if low >= high:
        _invalid_int(s, given_base)
    smallest = -9223372036854775807 - 1
    total = 0  # accumulated as a negative number, which reaches the smallest int64
    previous_digit = False
    for k in range(low, high):
        code = _byte(text, k)
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
        return _parse_int  # itself, not a function calling it: one library fewer
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


# float(str) reads an ASCII copy of the text with byte loads: one switch on the string's kind
# (in the copy), not one per character read, keeps the compiled parser small.


@register_jitable
def _ascii_float_text(s):
    """`s` as ASCII for float(), a NUL after it: Unicode decimal digits as ASCII digits,
    Unicode whitespace as ' ', any other non-ASCII character as 1 (valid nowhere)."""
    n = _length(s)
    out = _new(1, n + 1)
    for k in range(n):
        code = _get(s, k)
        if code >= 128:
            digit = _digit_value(code)
            code = 48 + digit if digit >= 0 else (32 if is_space(code) else 1)
        _put(out, k, code)
    _put(out, n, 0)
    return out


@register_jitable
def _ascii_space(code):
    """C's isspace, as CPython's int() and float() strip ASCII text (not the separators
    0x1c-0x1f, which str.isspace counts)."""
    return code == 32 or 9 <= code <= 13


@register_jitable
def _is_ascii_digit(code):
    return 48 <= code <= 57


@register_jitable
def _digits_run(text, k, high):
    """The end of a run of digits (single underscores between them) from `k` in the ASCII
    `text`, and the count of digits."""
    count = 0
    while k < high:
        code = _byte(text, k)
        if _is_ascii_digit(code):
            count += 1
        elif not (
            code == 95 and count > 0 and k + 1 < high and _is_ascii_digit(_byte(text, k + 1))
        ):
            break
        k += 1
    return k, count


@register_jitable
def _spells(text, low, high, word):
    """Whether text[low:high] is the ASCII `word` in any case (CPython's float() compares
    ASCII letters only: other characters never spell inf or nan)."""
    if high - low != _length(word):
        return False
    for k in range(high - low):
        if _byte(text, low + k) | 32 != _byte(word, k):
            return False
    return True


@register_jitable(_llvm_inline="never")  # one raise for every place it raises
def _invalid_float(s):
    raise ValueError(deferred_text("could not convert string to float: {!r}", s))


@register_jitable
def _float_syntax_end(text, low, high):
    """Where CPython's float syntax (digits with underscores, '.', exponent) read from `low`
    ends, or -1 when it is malformed."""
    k, whole = _digits_run(text, low, high)
    fraction = 0
    if k < high and _byte(text, k) == 46:
        k, fraction = _digits_run(text, k + 1, high)
    if whole + fraction == 0:
        return -1
    if k < high and (_byte(text, k) | 32) == 101:
        k += 1
        if k < high and (_byte(text, k) == 43 or _byte(text, k) == 45):
            k += 1
        k, exponent_digits = _digits_run(text, k, high)
        if exponent_digits == 0:
            return -1
    return k


@register_jitable
def _parse_float(s):
    text = _ascii_float_text(s)
    low, high = _ascii_trimmed(text, _length(s))
    start = low
    negative = False
    if low < high and (_byte(text, low) == 43 or _byte(text, low) == 45):
        negative = _byte(text, low) == 45
        low += 1
    if _spells(text, low, high, "inf") or _spells(text, low, high, "infinity"):
        return -math.inf if negative else math.inf
    if _spells(text, low, high, "nan"):
        return -math.nan if negative else math.nan
    if _float_syntax_end(text, low, high) != high:
        _invalid_float(s)
    # the C library reads the text without underscores, moved to the front, NUL-ended
    n = 0
    for position in range(start, high):
        code = _byte(text, position)
        if code != 95:
            _put(text, n, code)
            n += 1
    _put(text, n, 0)
    return _strtod(text)


@overload(float)
def string_float(s):
    if is_string(s):
        return _parse_float  # itself, not a lambda calling it: one library fewer to optimize
    return None
