"""`format(value, spec)` in compiled code for ints, bools, floats and strings, with CPython's
format-spec mini-language ([[fill]align][sign][#][0][width][,|_][.precision][type]).

The spec must be a constant: it is parsed when compiling, and each spec compiles to its own
small implementation. Floats with e/f/g/% are written by C's snprintf, which spells them as
CPython does (the sign and nan handled here); a spec CPython refuses raises its ValueError.
"""

from __future__ import annotations

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
from ember.extending import intrinsic, lower_builtin, lower_cast, register_jitable
from ember.library.numpy_support import implement, py_impl
from ember.library.strings import is_string
from ember.library.strings import string as string_type
from ember.lowering import arrays as refs
from ember.lowering import strings as primitives
from ember.typing.signature import Signature, signature
from ember.typing.templates import registry

_SPEC = re.compile(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<alt>\#)?(?P<zero>0)?(?P<width>\d+)?"
    r"(?P<group>[,_])?(?:\.(?P<precision>\d+))?(?P<type>[bcdeEfFgGnosxX%])?\Z",
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


def _bad(message: str):
    def impl(value, spec=""):
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
        raise UnsupportedError("the locale-aware format type 'n' is not supported in compiled code")
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


@intrinsic
def _c_format(typingctx, pattern, precision, x):
    """snprintf(`pattern`, precision, x) of a double as a string; `pattern` ends with a NUL."""

    def codegen(context, builder, sig, args):
        pattern_text, width, value = args
        snprintf = _declare(
            builder.module,
            "snprintf",
            llvm.FunctionType(refs.i32, [refs.ptr, refs.i64, refs.ptr], var_arg=True),
        )
        c_pattern = primitives.data(builder, pattern_text)
        width = builder.trunc(width, refs.i32)
        null = llvm.Constant(refs.ptr, None)
        length = builder.call(snprintf, [null, refs.const(0), c_pattern, width, value])
        length = builder.sext(length, refs.i64)
        text = primitives.allocate(context, builder, refs.const(1), builder.add(length, refs.const(1)))
        size = builder.add(length, refs.const(1))
        builder.call(snprintf, [primitives.data(builder, text), size, c_pattern, width, value])
        return builder.insert_value(text, length, 2)

    return signature(string_type, string_type, types.int64, types.float64), codegen


@register_jitable
def _radix_text(x, base, upper):
    """The digits of |x| in `base` (2, 8 or 16), int64's minimum too."""
    digits = "0123456789ABCDEF" if upper else "0123456789abcdef"
    negative = x < 0
    out = ""
    while True:
        digit = x % base
        if negative and digit != 0:
            digit = base - digit
        out = digits[digit] + out
        x = x // base
        if negative and digit != 0:
            x += 1
        if x == 0:
            break
    return out


@register_jitable
def _grouped(digits, separator, size):
    """`digits` with `separator` between groups of `size` from the right."""
    n = len(digits)
    if n <= size:
        return digits
    first = n % size if n % size else size
    out = digits[:first]
    for start in range(first, n, size):
        out += separator + digits[start : start + size]
    return out


@register_jitable
def _padded(sign, body, fill, align, width):
    """sign + body aligned in `width` with `fill` ('=' puts the padding after the sign)."""
    missing = width - len(sign) - len(body)
    if missing <= 0:
        return sign + body
    if align == "<":
        return sign + body + fill * missing
    if align == ">":
        return fill * missing + sign + body
    if align == "=":
        return sign + fill * missing + body
    left = missing // 2
    return fill * left + sign + body + fill * (missing - left)


@register_jitable
def _zero_grouped(sign, digits, rest, separator, size, width):
    """CPython's '0' flag with grouping: leading zeros join the digits until wide enough."""
    grouped = _grouped(digits, separator, size)
    while len(sign) + len(grouped) + len(rest) < width:
        digits = "0" + digits
        grouped = _grouped(digits, separator, size)
    return sign + grouped + rest


@register_jitable
def _shortest_general(x, precision):
    """CPython's format of a finite x >= 0 with a precision and no type: 'g', but a fixed
    spelling keeps a digit after the point, so exponents from `precision - 1` on use 'e'."""
    if x == math.inf:
        return "inf"
    scientific = _c_format("%.*e\0", precision - 1, x)
    mark = scientific.find("e")
    exponent = int(scientific[mark + 1 :])
    if -4 <= exponent < precision - 1:
        text = _c_format("%.*g\0", precision, x)
        return text if text.find(".") >= 0 else text + ".0"
    mantissa = scientific[:mark]
    if mantissa.find(".") >= 0:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return mantissa + scientific[mark:]


# ---------------------------------------------------------------------------- implementations


def _sign_text(sign: str):
    @register_jitable
    def sign_of(negative):
        if negative:
            return "-"
        return "+" if sign == "+" else (" " if sign == " " else "")

    return sign_of


def _finish(spec: Spec, group_size: int):
    """`finish(negative, prefix, digits, rest)`: grouping, sign and padding of a number whose
    integer digits are `digits`."""
    sign_of = _sign_text(spec.sign)
    separator, fill, align, width = spec.grouping, spec.fill, spec.align, spec.width
    zero_grouped = spec.zero_grouped

    @register_jitable
    def finish(negative, prefix, digits, rest):
        sign = sign_of(negative) + prefix
        if zero_grouped:
            return _zero_grouped(sign, digits, rest, separator, group_size, width)
        if separator != "":
            digits = _grouped(digits, separator, group_size)
        return _padded(sign, digits + rest, fill, align, width)

    return finish


def _int_impl(spec: Spec):
    code = spec.type or "d"
    finish = _finish(spec, 3 if code == "d" else 4)
    base = {"b": 2, "o": 8, "x": 16, "X": 16}.get(code, 10)
    prefix = ("0" + code) if spec.alternate and base != 10 else ""
    upper = code == "X"
    fill, align, width = spec.fill, spec.align, spec.width

    if code == "c":

        def char_impl(value, spec=""):
            x = int(value)
            if x < 0 or x > 0x10FFFF:
                raise OverflowError("%c arg not in range(0x110000)")
            return _padded("", chr(x), fill, align, width)

        return char_impl

    def impl(value, spec=""):
        x = int(value)
        if base == 10:
            digits = str(x)
            if x < 0:
                digits = digits[1:]
        else:
            digits = _radix_text(x, base, upper)
        return finish(x < 0, prefix, digits, "")

    return impl


def _float_impl(spec: Spec):
    code = spec.type
    finish = _finish(spec, 3)
    percent = code == "%"
    c_code = "f" if percent else (code or "g")
    precision = spec.precision if spec.precision >= 0 else (-1 if not code else 6)
    if not code and precision == 0:
        precision = 1  # CPython reads '.0' with no type as '.1'
    pattern = "%" + ("#" if spec.alternate else "") + ".*" + c_code + "\0"
    repr_like = not code  # no type: repr, or 'g' keeping a digit after the point
    upper = code in ("E", "F", "G")

    def impl(value, spec=""):
        x = float(value)
        if percent:
            x = x * 100.0
        negative = x < 0 or (x == 0.0 and math.copysign(1.0, x) < 0)
        magnitude = -x if negative else x
        if x != x:
            text = "NAN" if upper else "nan"
        elif repr_like and precision < 0:
            text = str(magnitude)
        elif repr_like:
            text = _shortest_general(magnitude, precision)
        else:
            text = _c_format(pattern, precision, magnitude)
        if percent:
            text += "%"
        point = 0
        while point < len(text) and "0" <= text[point] <= "9":
            point += 1
        return finish(negative, "", text[:point], text[point:])

    return impl


def _str_impl(spec: Spec):
    precision, fill, align, width = spec.precision, spec.fill, spec.align, spec.width

    def impl(value, spec=""):
        text = value if precision < 0 else value[:precision]
        return _padded("", text, fill, align, width)

    return impl


def _kind_of(value: types.Type) -> str | None:
    value = types.unliteral(value)
    if isinstance(value, (types.Integer, types.Boolean)):
        return "int"
    if isinstance(value, types.Float):
        return "float"
    if is_string(value):
        return "str"
    return None


@functools.cache
def format_impl(kind: str, text: str):
    """The implementation of `format(value, text)` for a value of `kind` (one per spec)."""
    if text == "":
        return lambda value, spec="": str(value)
    spec = parse_spec(text, kind)
    if isinstance(spec, str):
        return _bad(spec)
    if kind == "str":
        return _str_impl(spec)
    if kind == "float" or (spec.type and spec.type in _FLOAT_TYPES):
        return _float_impl(spec)
    return _int_impl(spec)


@implement(format, "value, format_spec=''")
def _select_format(value, format_spec):
    kind = _kind_of(value)
    if kind is None:
        return None
    if not isinstance(format_spec, types.StringLiteral):
        raise UnsupportedError(
            "format(value, spec) needs a constant spec in compiled code (such as '.2f')"
        )
    return format_impl(kind, format_spec.literal_value)


# ---------------------------------------------------------------------------- str.format

# A constant receiver keeps its StringLiteral type (and so its text) under this key.
_FORMAT_KEY = (types.StringLiteral, "format")


def _field_source(field: str, conversion: str | None, spec: str, value_types: dict) -> str:
    """The expression formatting one replacement field of the generated implementation."""
    if "{" in spec:
        raise UnsupportedError("str.format with nested fields in a spec ('{:{w}}') is not supported")
    if "." in field or "[" in field:
        raise UnsupportedError(f"str.format field '{field}' with attributes or indexing")
    value = value_types[field]
    if conversion in ("r", "a") and is_string(value):
        raise UnsupportedError("str.format with !r or !a of a string is not supported")
    argument = f"_field_{field}"
    if conversion is not None:
        argument = f"_ember_str({argument})"
    return f"_ember_format({argument}, {spec!r})"


@functools.cache
def _format_method_impl(fmt: str, positional: tuple, keywords: tuple):
    """The implementation of `fmt.format(*positional, **keywords)` (the value types given),
    as Python source with one parameter per argument."""
    names = [str(k) for k in range(len(positional))] + [name for name, _ in keywords]
    value_types = dict(zip(names, [*positional, *(t for _, t in keywords)]))
    params = [f"_field_{k}" for k in range(len(positional))]
    params += [name for name, _ in keywords]
    aliases = [f"    _field_{name} = {name}\n" for name, _ in keywords]
    pieces, automatic = [], 0
    try:
        parsed = list(string.Formatter().parse(fmt))
    except ValueError as error:
        return _bad(str(error))
    for literal, field, spec, conversion in parsed:
        if literal:
            pieces.append(repr(literal))
        if field is None:
            continue
        if field == "":
            field, automatic = str(automatic), automatic + 1
        if field.isdigit() and int(field) >= len(positional):
            return _raises(IndexError, f"Replacement index {field} out of range for positional args tuple")
        if field not in value_types:
            return _raises(KeyError, field)
        pieces.append(_field_source(field, conversion, spec or "", value_types))
    source = (
        f"def impl({', '.join(params)}):\n"
        + "".join(aliases)
        + f"    return {' + '.join(pieces) or repr('')}\n"
    )
    namespace = {"_ember_format": format, "_ember_str": str}
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
    impl = py_impl(_format_method_impl(receiver.literal_value, positional, keywords))
    values = (*positional, *(t for _, t in keywords))
    receiver_param = inspect.Parameter("_receiver", inspect.Parameter.POSITIONAL_ONLY)
    parameters = inspect.signature(impl.py_func).parameters.values()
    pysig = inspect.Signature([receiver_param, *parameters])
    # The receiver's type carries the call's shape (positional count, keyword names) to lowering.
    shape = types.StringLiteral(_encode_shape(receiver.literal_value, len(positional), keywords))
    return Signature(impl.return_type(values), (shape, *values), pysig=pysig)


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
    impl = py_impl(_format_method_impl(fmt, positional, keywords))
    return impl(context, builder, Signature(sig.return_type, sig.args[1:]), args[1:])
