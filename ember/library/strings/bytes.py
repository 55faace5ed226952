"""`str.encode` and `bytes.decode` in compiled code ('utf-8', 'ascii', 'latin-1'; errors
'strict', 'ignore' or 'replace', with CPython's errors) and `bytes` values: `len`, indexing (an
int), slicing, iteration, comparisons, `+`, `*`, `in`; passed in from Python and returned to
Python as `bytes`. Their methods: ember/library/strings/bytes_methods.py.

A bytes value shares the string's data model: a kind-1 string whose code points are the bytes.
"""

from __future__ import annotations

import operator

from llvmlite import ir as llvm

from ember import types
from ember.errors import UnsupportedError
from ember.extending import (
    NativeValue,
    box,
    intrinsic,
    lower_builtin,
    lower_constant,
    overload,
    overload_method,
    register_jitable,
    unbox,
)
from ember.library.strings.core import (
    _get,
    _length,
    _new,
    _same_bytes,
    _set,
    is_string,
    next_code_point,
    string,
)
from ember.lowering import arrays as refs
from ember.lowering import cgutils, iterators
from ember.lowering import strings as primitives
from ember.lowering.models import OpaqueModel, register_model
from ember.typing.overload import NUMPY_ERRORS, as_type
from ember.typing.signature import signature
from ember.typing.templates import registry

BytesType, bytes_type = types.BytesType, types.bytes_type


@register_model(BytesType)
class BytesModel(primitives.StringModel):
    """A kind-1 string. An extension written for Numba's bytes (a 1-d uint8 array: meminfo,
    parent, nitems, itemsize, data, shape, strides) reaches the same values through a struct
    proxy (`cgutils.create_struct_proxy(bytes_type)`): `nitems` is the length, `itemsize` the
    kind (1); `parent` (null), `shape` and `strides` are computed, and writes to them dropped."""

    member_aliases = {"nitems": "length", "itemsize": "kind"}
    derived_members = {
        "parent": lambda builder, value: llvm.Constant(refs.ptr, None),
        "shape": lambda builder, value: cgutils.pack_array(
            builder, [primitives.length(builder, value)]
        ),
        "strides": lambda builder, value: cgutils.pack_array(builder, [refs.const(1)]),
    }


def _reinterpret(source: types.Type, target: types.Type):
    """An intrinsic viewing a value of `source` as `target` (the same storage, a new reference)."""

    def view(typingctx, value):
        def codegen(context, builder, sig, args):
            refs.incref(builder, source, args[0])
            return args[0]

        return signature(target, source), codegen

    return intrinsic(view)


_as_bytes = _reinterpret(string, bytes_type)
_as_text = _reinterpret(bytes_type, string)


@lower_constant(BytesType)
def bytes_constant(context, builder, typ, value):
    """`b'ab'` in code: the constant kind-1 string of its bytes (no runtime data)."""
    return primitives.constant(builder, bytes(value).decode("latin-1"))


@box(BytesType)
def box_bytes(typ, val, c):
    """A new `bytes` of the bytes (the native reference stays with the caller)."""
    builder = c.builder
    return c.pyapi.bytes_from_string_and_size(
        primitives.data(builder, val), primitives.length(builder, val)
    )


@unbox(BytesType)
def unbox_bytes(typ, obj, c):
    """Copy the bytes of a `bytes` argument into a runtime block (a kind-1 string), released
    after the call."""

    from ember.runtime import nrt

    builder = c.builder
    size = c.pyapi.bytes_size(obj)  # -1 with a TypeError set when obj is not bytes
    is_bytes = builder.icmp_signed(">=", size, size.type(0))
    size = builder.select(is_bytes, size, size.type(0))
    value, no_memory = primitives.allocate_or_fail(builder, size.type(1), size)
    with builder.if_else(no_memory, likely=False) as (failed, allocated):
        with failed:
            c.pyapi.err_set_string(MemoryError, "unable to allocate bytes")
        with allocated:
            with builder.if_then(is_bytes, likely=True):
                primitives.copy_bytes(builder, value, c.pyapi.bytes_as_string(obj))

    def cleanup():
        nrt.emit_decref(builder, builder.extract_value(value, 0))  # NULL-safe

    failed = builder.or_(builder.not_(is_bytes), no_memory)
    return NativeValue(value, is_error=failed, cleanup=cleanup)


# ---------------------------------------------------------------------------- encoding

_CODECS = {
    "utf-8": "utf-8", "utf8": "utf-8", "u8": "utf-8",
    "ascii": "ascii", "us-ascii": "ascii",
    "latin-1": "latin-1", "latin1": "latin-1", "iso-8859-1": "latin-1", "iso8859-1": "latin-1",
    "l1": "latin-1",
}  # fmt: skip
_ERRORS = ("strict", "ignore", "replace")


@register_jitable
def _utf8_size(code):
    if code < 0x80:
        return 1
    if code < 0x800:
        return 2
    if 0xD800 <= code < 0xE000:
        return 0  # a lone surrogate: not encodable
    return 3 if code < 0x10000 else 4


def _utf8_impl(errors: str):
    def encode_utf8(s, encoding="utf-8", errors="strict"):
        n = _length(s)
        size = 0
        for index in range(n):
            width = _utf8_size(_get(s, index))
            if width == 0:
                if strict:
                    raise UnicodeEncodeError("utf-8", s, index, index + 1, "surrogates not allowed")
                width = 1 if replace else 0
            size += width
        out = _new(1, size)
        position = 0
        for index in range(n):
            code = _get(s, index)
            width = _utf8_size(code)
            if width == 0:
                if replace:
                    _set(out, position, 63)
                    position += 1
                continue
            if width == 1:
                _set(out, position, code)
            else:
                lead = (0xC0, 0xE0, 0xF0)[width - 2]
                _set(out, position, lead | (code >> (6 * (width - 1))))
                for k in range(1, width):
                    _set(out, position + k, 0x80 | ((code >> (6 * (width - 1 - k))) & 0x3F))
            position += width
        return _as_bytes(out)

    strict, replace = errors == "strict", errors == "replace"
    return encode_utf8


def _single_byte_impl(codec: str, errors: str):
    limit = 128 if codec == "ascii" else 256
    reason = "ordinal not in range(128)" if codec == "ascii" else "ordinal not in range(256)"
    strict, replace = errors == "strict", errors == "replace"

    def encode_single(s, encoding="utf-8", errors="strict"):
        n = _length(s)
        size = 0
        for index in range(n):
            if _get(s, index) < limit:
                size += 1
            elif strict:
                raise UnicodeEncodeError(codec, s, index, index + 1, reason)
            elif replace:
                size += 1
        out = _new(1, size)
        position = 0
        for index in range(n):
            code = _get(s, index)
            if code < limit or replace:
                _set(out, position, code if code < limit else 63)
                position += 1
        return _as_bytes(out)

    return encode_single


def _constant(typ: types.Type, what: str, known, method: str = "str.encode") -> str:
    if not isinstance(typ, types.StringLiteral):
        raise UnsupportedError(f"{method}() needs a constant {what} in compiled code")
    value = known.get(typ.literal_value.lower().replace("_", "-"))
    if value is None:
        raise UnsupportedError(
            f"{method}() with {what} {typ.literal_value!r} is not supported in compiled code "
            f"(supported: {', '.join(sorted(set(known.values())))})"
        )
    return value


@overload_method(types.UnicodeType, "encode", jit_options=NUMPY_ERRORS)
def _select_encode(s, encoding="utf-8", errors="strict"):
    encoding = as_type(encoding)
    errors = as_type(errors)
    if not is_string(s):
        return None
    codec = _constant(encoding, "encoding", _CODECS)
    handling = _constant(errors, "errors", {name: name for name in _ERRORS})
    return _impl_for(codec, handling)


_IMPLS: dict = {}


def _impl_for(codec: str, errors: str):
    """One implementation per (codec, errors), so each compiles once."""
    key = (codec, errors)
    if key not in _IMPLS:
        _IMPLS[key] = _utf8_impl(errors) if codec == "utf-8" else _single_byte_impl(codec, errors)
    return _IMPLS[key]


# ---------------------------------------------------------------------------- decoding

_REPLACEMENT = 0xFFFD  # what 'replace' puts for each undecodable run
_INVALID, _TRUNCATED = -1, -2


@register_jitable
def _utf8_reason(text, i, code):
    """CPython's words for the invalid sequence at `i`."""
    if code == _TRUNCATED:
        return "unexpected end of data"
    if 0xC2 <= _get(text, i) <= 0xF4:
        return "invalid continuation byte"
    return "invalid start byte"


@register_jitable
def _utf8_sequence(text, i, n):
    """(code point, bytes taken) of the UTF-8 sequence at `i`. An invalid one gives
    _INVALID (or _TRUNCATED when the data ends inside it) and the length of its maximal
    invalid start, which CPython reports and replaces as one unit."""
    lead = _get(text, i)
    if lead < 0x80:
        return lead, 1
    if lead < 0xC2 or lead > 0xF4:
        return _INVALID, 1
    if lead < 0xE0:
        need, code, low, high = 1, lead & 0x1F, 0x80, 0xBF
    elif lead < 0xF0:  # no overlong forms (E0 80..9F) nor surrogates (ED A0..BF)
        need, code = 2, lead & 0x0F
        low, high = (0xA0 if lead == 0xE0 else 0x80), (0x9F if lead == 0xED else 0xBF)
    else:  # nothing overlong (F0 80..8F) nor beyond U+10FFFF (F4 90..)
        need, code = 3, lead & 0x07
        low, high = (0x90 if lead == 0xF0 else 0x80), (0x8F if lead == 0xF4 else 0xBF)
    for k in range(1, need + 1):
        if i + k >= n:
            return _TRUNCATED, k
        unit = _get(text, i + k)
        if unit < low or unit > high:
            return _INVALID, k
        code = (code << 6) | (unit & 0x3F)
        low, high = 0x80, 0xBF
    return code, need + 1


@register_jitable
def _decoded_kind(largest):
    return 1 if largest < 0x100 else (2 if largest < 0x10000 else 4)


def _utf8_decode_impl(errors: str):
    strict, replace = errors == "strict", errors == "replace"

    def decode_utf8(b, encoding="utf-8", errors="strict"):
        text = _as_text(b)
        n = _length(text)
        count = largest = i = 0
        while i < n:  # first pass: how many code points, and the widest
            code, taken = _utf8_sequence(text, i, n)
            if code < 0:
                if strict:
                    raise UnicodeDecodeError("utf-8", b, i, i + taken, _utf8_reason(text, i, code))
                code = _REPLACEMENT if replace else -1
            if code >= 0:
                count += 1
                largest = max(largest, code)
            i += taken
        out = _new(_decoded_kind(largest), count)
        position = i = 0
        while i < n:
            code, taken = _utf8_sequence(text, i, n)
            if code < 0 and replace:
                code = _REPLACEMENT
            if code >= 0:
                _set(out, position, code)
                position += 1
            i += taken
        return out

    return decode_utf8


def _ascii_decode_impl(errors: str):
    strict, replace = errors == "strict", errors == "replace"

    def decode_ascii(b, encoding="utf-8", errors="strict"):
        text = _as_text(b)
        n = _length(text)
        count = 0
        wide = False
        for index in range(n):
            if _get(text, index) < 128:
                count += 1
            elif strict:
                raise UnicodeDecodeError("ascii", b, index, index + 1, "ordinal not in range(128)")
            elif replace:
                count += 1
                wide = True
        out = _new(2 if wide else 1, count)
        position = 0
        for index in range(n):
            code = _get(text, index)
            if code < 128 or replace:
                _set(out, position, code if code < 128 else _REPLACEMENT)
                position += 1
        return out

    return decode_ascii


def _latin1_decode(b, encoding="utf-8", errors="strict"):
    return _as_text(b)[:]  # each byte is the code point of the same value


@overload_method(BytesType, "decode", jit_options=NUMPY_ERRORS)
def _select_decode(b, encoding="utf-8", errors="strict"):
    encoding = as_type(encoding)
    errors = as_type(errors)
    if not isinstance(b, BytesType):
        return None
    codec = _constant(encoding, "encoding", _CODECS, "bytes.decode")
    handling = _constant(errors, "errors", {name: name for name in _ERRORS}, "bytes.decode")
    key = ("decode", codec, handling)
    if key not in _IMPLS:
        if codec == "utf-8":
            _IMPLS[key] = _utf8_decode_impl(handling)
        elif codec == "ascii":
            _IMPLS[key] = _ascii_decode_impl(handling)
        else:
            _IMPLS[key] = _latin1_decode
    return _IMPLS[key]


# ---------------------------------------------------------------------------- bytes


def _is_bytes(typ: types.Type) -> bool:
    return isinstance(typ, BytesType)


@overload(hash)
def bytes_hash(b):
    """CPython's: a str of one byte per character hashes those bytes, as bytes do."""
    if _is_bytes(b):
        return lambda b: hash(_as_text(b))


@overload(len)
def bytes_len(b):
    if _is_bytes(b):
        return lambda b: _length(_as_text(b))


@overload(operator.getitem)
def bytes_getitem(b, index):
    if not _is_bytes(b):
        return None
    if isinstance(index, (types.Integer, types.Boolean)):

        def item(b, index):
            n = _length(_as_text(b))
            k = index + n if index < 0 else index
            if k < 0 or k >= n:
                raise IndexError("index out of range")
            return _get(_as_text(b), k)

        return item
    if isinstance(index, types.SliceType):
        return lambda b, index: _as_bytes(_as_text(b)[index])
    return None


@registry.typer(iter)
def _type_bytes_iter(args, kws):
    if len(args) == 1 and not kws and _is_bytes(args[0]):
        return signature(bytes_type.iterator_type, bytes_type)
    return None


@register_model(types.BytesIterator)
class BytesIteratorModel(OpaqueModel):
    """A pointer to {bytes, next index} in the entry block of the function that made it."""


@lower_builtin(iter, BytesType)
def bytes_iter(context, builder, sig, args):
    return iterators.owning_state(context, builder, bytes_type, args[0])


@lower_builtin(next, types.BytesIterator)
def bytes_iternext(context, builder, sig, args):
    """The next byte's value (an int) while the index is below the length."""
    return next_code_point(
        context, builder, sig, args[0], lambda code: builder.zext(code, refs.i64)
    )


def _bytes_comparison(negate: bool):
    def overload_function(a, b):
        if _is_bytes(a) and _is_bytes(b):
            return lambda a, b: _same_bytes(_as_text(a), _as_text(b)) != negate
        return None

    return overload_function


overload(operator.eq)(_bytes_comparison(False))
overload(operator.ne)(_bytes_comparison(True))


@overload(operator.add)
def bytes_concat(a, b):
    if _is_bytes(a) and _is_bytes(b):
        return lambda a, b: _as_bytes(_as_text(a) + _as_text(b))
    return None


@overload(operator.mul)
def bytes_repeat(a, b):
    if _is_bytes(a) and isinstance(b, (types.Integer, types.Boolean)):
        return lambda a, b: _as_bytes(_as_text(a) * b)
    if _is_bytes(b) and isinstance(a, (types.Integer, types.Boolean)):
        return lambda a, b: _as_bytes(_as_text(b) * a)
    return None


@overload(operator.contains)
def bytes_contains(b, item):
    """`x in b`: a byte value (CPython's ValueError outside 0..255) or a bytes run."""
    if not _is_bytes(b):
        return None
    if _is_bytes(item):
        return lambda b, item: _as_text(item) in _as_text(b)
    if isinstance(item, (types.Integer, types.Boolean)):

        def byte_in(b, item):
            if item < 0 or item > 255:
                raise ValueError("byte must be in range(0, 256)")
            return chr(item) in _as_text(b)

        return byte_in
    return None


def _bytes_order(compare):
    """`<`, `<=`, `>`, `>=`: byte by byte, as the code points of the same kind-1 text."""

    def overload_function(a, b):
        if _is_bytes(a) and _is_bytes(b):
            return lambda a, b: compare(_as_text(a), _as_text(b))
        return None

    return overload_function


for _compare in (operator.lt, operator.le, operator.gt, operator.ge):
    overload(_compare)(_bytes_order(_compare))
