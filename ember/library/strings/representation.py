"""`repr()` in compiled code of strings (CPython's quoting and escapes), numbers and booleans,
`str()`/`repr()` of complex numbers ('(1+2j)', CPython's text), and of lists, sets, tuples and dicts
of those (the members' reprs, as CPython writes them); `str(x)`/`repr(x)` of other types call
their `__str__`/`__repr__` methods (jitclasses, `@overload_method`), as CPython does."""

from __future__ import annotations

import inspect
import math

from ember import types
from ember.errors import TypingError
from ember.extending import overload, register_jitable
from ember.library.containers.list_primitives import empty_list_for
from ember.library.strings.convert import _float_repr
from ember.library.strings.core import _get, _length, _new, _set, is_string, substring
from ember.library.strings.unicode import FLAGS, PRINTABLE, unicode_property
from ember.misc.literal import literal_unroll
from ember.typing.signature import Signature
from ember.typing.templates import registry

_HEX_DIGITS = "0123456789abcdef"


@register_jitable
def _escaped_code(code):
    """`\\xNN`, `\\uNNNN` or `\\UNNNNNNNN` for a code point, as CPython's repr writes it."""
    if code <= 0xFF:
        letter, width = 120, 2  # x
    elif code <= 0xFFFF:
        letter, width = 117, 4  # u
    else:
        letter, width = 85, 8  # U
    out = _new(1, width + 2)
    _set(out, 0, 92)
    _set(out, 1, letter)
    for position in range(width + 1, 1, -1):
        _set(out, position, ord(_HEX_DIGITS[code & 15]))
        code >>= 4
    return out


@register_jitable
def _escape_width(code, quote):
    """How many characters stand for one code point inside the quotes: 1 (itself), 2 (a
    backslash pair), 4, 6 or 10 (`\\xNN`, `\\uNNNN`, `\\UNNNNNNNN`), as CPython's repr writes."""
    if code == quote or code == 92 or code == 9 or code == 10 or code == 13:
        return 2
    if code < 32 or code == 127:
        return 4
    if code < 127 or unicode_property(code, FLAGS) & PRINTABLE:
        return 1
    return 4 if code <= 0xFF else (6 if code <= 0xFFFF else 10)


@register_jitable
def _put_escaped(out, position, code, width):
    """The `width` characters standing for `code` (see `_escape_width`) written at `position`."""
    if width == 1:
        _set(out, position, code)
        return
    _set(out, position, 92)
    if width == 2:  # \t \n \r, or a backslash before the quote or backslash itself
        letter = 116 if code == 9 else (110 if code == 10 else (114 if code == 13 else code))
        _set(out, position + 1, letter)
        return
    _set(out, position + 1, 120 if width == 4 else (117 if width == 6 else 85))  # x u U
    for k in range(position + width - 1, position + 1, -1):
        digit = code & 15
        _set(out, k, digit + (48 if digit < 10 else 87))
        code >>= 4


@register_jitable
def _string_repr(s):
    """Two passes over the code points (the quote and the length, then the text) into one new
    string: no pieces joined, which keeps every error message built from a repr cheap to
    compile."""
    n = _length(s)
    has_single = has_double = False
    for index in range(n):
        code = _get(s, index)
        has_single |= code == 39
        has_double |= code == 34
    quote = 34 if has_single and not has_double else 39
    total = 2
    widest = quote
    for index in range(n):
        code = _get(s, index)
        width = _escape_width(code, quote)
        total += width
        if width == 1 and code > widest:
            widest = code
    out = _new(1 if widest < 0x100 else (2 if widest < 0x10000 else 4), total)
    _set(out, 0, quote)
    position = 1
    for index in range(n):
        code = _get(s, index)
        width = _escape_width(code, quote)
        _put_escaped(out, position, code, width)
        position += width
    _set(out, position, quote)
    return out


@register_jitable
def _complex_part(x, single):
    """A part of a complex number's text: the float's repr (NumPy's float32 digits for a
    complex64, as NumPy writes it) without a trailing '.0'."""
    text = _float_repr(float(x), single)
    if text.endswith(".0"):
        return text[:-2]
    return text


@register_jitable
def _complex_text(z, single=False):
    real, imag = z.real, z.imag
    if real == 0.0 and math.copysign(1.0, real) > 0.0:
        return _complex_part(imag, single) + "j"
    sign = "-" if math.copysign(1.0, imag) < 0.0 and not math.isnan(imag) else "+"
    return "(" + _complex_part(real, single) + sign + _complex_part(abs(imag), single) + "j)"


def _complex_text_of(x: types.Type):
    """The implementation writing a complex of type `x` (float32 digits for a complex64)."""
    if x.bitwidth == 64:
        return lambda x: _complex_text(x, True)
    return lambda x: _complex_text(x)


@overload(repr)
def builtin_repr(x):
    if is_string(x):
        return lambda x: _string_repr(x)
    if isinstance(types.unliteral(x), types.Complex):
        return _complex_text_of(types.unliteral(x))
    if isinstance(types.unliteral(x), (types.Integer, types.Float, types.Boolean)):
        return lambda x: str(x)
    if isinstance(x, types.NoneType):
        return lambda x: "None"
    return None


@register_jitable
def _ascii_escaped(text):
    """`text` with every code point from 128 up written as its escape (ascii() of a repr)."""
    parts = empty_list_for("")
    start = 0
    n = _length(text)
    for index in range(n):
        code = _get(text, index)
        if code >= 128:
            parts.append(substring(text, start, index))
            parts.append(_escaped_code(code))
            start = index + 1
    if start == 0:
        return text
    parts.append(substring(text, start, n))
    return "".join(parts)


@overload(ascii)
def builtin_ascii(x):
    """CPython's ascii(): the repr, non-ASCII characters escaped."""
    return lambda x: _ascii_escaped(repr(x))


@overload(str)
def complex_str(x):
    if isinstance(types.unliteral(x), types.Complex):
        return _complex_text_of(types.unliteral(x))
    if isinstance(x, types.NoneType):
        return lambda x: "None"
    return None


# ---------------------------------------------------------------------------- containers


def _has_repr(typ: types.Type) -> bool:
    """Whether compiled code can write the repr of a `typ` value (members of containers)."""
    typ = types.unliteral(typ)
    if is_string(typ) or isinstance(
        typ, (types.Number, types.Boolean, types.NoneType, types.Complex, types.BytesType)
    ):
        return True
    if isinstance(typ, (types.List, types.Set)):
        return _has_repr(typ.dtype)
    if isinstance(typ, types.DictType):
        return _has_repr(typ.key_type) and _has_repr(typ.value_type)
    if isinstance(typ, types.DictView):
        return _has_repr(typ.dict_type)
    if isinstance(typ, types.BaseTuple) and not isinstance(typ, types.LiteralStrKeyDict):
        return all(_has_repr(member) for member in typ.types)
    return False


def _container_text(x):
    """The repr of a list, set, tuple, dict or dict view whose members have one (None
    otherwise); a set
    iterates in CPython's order (ember/library/containers/set_tables.py), so its text is
    CPython's."""
    kinds = (types.List, types.Set, types.DictType, types.BaseTuple, types.DictView)
    if not _has_repr(x) or not isinstance(x, kinds):
        return None
    if isinstance(x, types.DictView):  # dict_keys([1, 2]), dict_items([(1, 'a')])
        opening = f"dict_{x.kind}("
        return lambda x: opening + repr(list(x)) + ")"
    if isinstance(x, types.List):
        return lambda x: "[" + ", ".join([repr(item) for item in x]) + "]"
    if isinstance(x, types.Set):
        return lambda x: "{" + ", ".join([repr(item) for item in x]) + "}" if len(x) else "set()"
    if isinstance(x, types.DictType):
        return lambda x: "{" + ", ".join([repr(k) + ": " + repr(v) for k, v in x.items()]) + "}"
    if len(x) == 0:
        return lambda x: "()"
    if len(x) == 1:
        return lambda x: "(" + repr(x[0]) + ",)"

    def tuple_text(x):
        parts = empty_list_for("")
        for item in literal_unroll(x):
            parts.append(repr(item))
        return "(" + ", ".join(parts) + ")"

    return tuple_text


@overload(repr)
def container_repr(x):
    return _container_text(x)


@overload(str)
def container_str(x):
    return _container_text(x)


# ---------------------------------------------------------------------------- dunder methods


def _has_method(typ: types.Type, name: str) -> bool:
    from ember.typing.context import TypingContext

    if isinstance(types.unliteral(typ), (types.Number, types.Boolean, types.NoneType)):
        return False  # ember's own text (above)
    context = TypingContext()
    method = context.resolve_getattr(typ, name)
    if not isinstance(method, types.BoundFunction):
        return False
    try:  # an attribute template may offer any name; the call tells whether it exists
        found = context.resolve_function_type(method, (), {})
    except TypingError:
        return False
    return found is not None and is_string(found.return_type)


@overload(str)
def str_by_method(x):
    """`str(x)`: `x.__str__()`, else `x.__repr__()`, when the type defines one."""
    if is_string(x):
        return None
    if _has_method(x, "__str__"):
        return lambda x: x.__str__()
    if _has_method(x, "__repr__"):
        return lambda x: x.__repr__()
    return None


@overload(repr)
def repr_by_method(x):
    if not is_string(x) and _has_method(x, "__repr__"):
        return lambda x: x.__repr__()
    return None


def _extension_type(typ: types.Type) -> bool:
    """A type an extension (user code) defines: ember's own types have their own text."""
    return not type(typ).__module__.startswith("ember.")


def _later_overload_takes(func, fallback, x: types.Type) -> bool:
    """Whether an `@overload(func)` registered after `fallback` (an extension's own) takes `x`."""
    templates = registry.functions.get(func, [])
    found = [getattr(t, "_overload_func", None) is fallback for t in templates]
    if True not in found:
        return False
    for template in templates[found.index(True) + 1 :]:
        overload_func = getattr(template, "_overload_func", None)
        if overload_func is None:
            continue
        try:
            if overload_func(x) is not None:
                return True
        except Exception:  # noqa: BLE001, S112 - it declines these types by failing
            continue
    return False


def _object_text(func, fallback, x: types.Type):
    """Numba's generic '<object type:...>' text of an extension type with neither `__str__`
    nor `__repr__`, unless an overload of the extension's own writes it."""
    if not _extension_type(x) or is_string(x) or _later_overload_takes(func, fallback, x):
        return None
    text = f"<object type:{x}>"
    return lambda x: text


@overload(str)
def str_fallback(x):
    """`str(x)` with nothing else to write it (registered after the dunder lookup)."""
    return _object_text(str, str_fallback, x)


@overload(repr)
def repr_fallback(x):
    return _object_text(repr, repr_fallback, x)


_OBJECT_KEYWORD = inspect.Signature(
    [inspect.Parameter("object", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
)


@registry.typer(str)
def _type_str_of_object(args, kws):
    """`str(object=x)`: typed as `str(x)`, whose implementation the call then lowers to (the
    signature's pysig places the keyword argument first)."""
    if args or set(kws) != {"object"}:
        return None
    from ember.typing.context import TypingContext

    context = TypingContext()
    found = context.resolve_function_type(context.resolve_value_type(str), (kws["object"],), {})
    if found is None:
        return None
    return Signature(found.return_type, tuple(found.args), pysig=_OBJECT_KEYWORD)
