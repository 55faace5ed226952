"""NumPy string arrays in compiled code: elements of '<U3' (`UnicodeCharSeq`) and 'S3'
(`CharSeq`) arrays and record fields read as a `str` / `bytes` with trailing NULs stripped, as
NumPy gives them, and `s[i] = 'xy'` stores the text truncated to the item size, NUL-padded."""

from __future__ import annotations

import operator

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic, overload, register_jitable
from ember.library.numpy.records import RecordModel
from ember.library.strings.bytes import _as_bytes, _as_text
from ember.library.strings.core import _get, _length, _new, _set
from ember.lowering import arrays as arr
from ember.lowering.models import register_model
from ember.lowering.registry import lower_cast
from ember.typing.signature import signature

# in registers a pointer to the element's bytes (as a record's), in an array its bytes
register_model(types.UnicodeCharSeq)(RecordModel)
register_model(types.CharSeq)(RecordModel)

_CHAR_SEQS = (types.UnicodeCharSeq, types.CharSeq)


def _unit(seq: types.Type) -> llvm.IntType:
    return llvm.IntType(8 * seq.unit_bytes)


@intrinsic
def _capacity(typingctx, seq):
    """The number of characters an element holds (its dtype's count)."""
    if not isinstance(seq, _CHAR_SEQS):
        return None
    count = seq.count
    return signature(types.int64, seq), lambda context, builder, sig, args: arr.const(count)


@intrinsic
def _code_at(typingctx, seq, index):
    """The code point (or byte) at `index` of an element (unchecked)."""
    if not isinstance(seq, _CHAR_SEQS):
        return None

    def codegen(context, builder, sig, args):
        unit = _unit(sig.args[0])
        address = builder.gep(args[0], [args[1]], inbounds=True, source_etype=unit)
        return builder.zext(builder.load(address, typ=unit), arr.i64)

    return signature(types.int64, seq, types.int64), codegen


@intrinsic
def _put_code(typingctx, seq, index, code):
    """Store a code point (or byte) at `index` of an element (unchecked)."""
    if not isinstance(seq, _CHAR_SEQS):
        return None

    def codegen(context, builder, sig, args):
        unit = _unit(sig.args[0])
        address = builder.gep(args[0], [args[1]], inbounds=True, source_etype=unit)
        builder.store(builder.trunc(args[2], unit), address)
        return context.get_dummy_value(types.none)

    return signature(types.none, seq, types.int64, types.int64), codegen


@register_jitable
def _stripped_length(seq):
    n = _capacity(seq)
    while n > 0 and _code_at(seq, n - 1) == 0:
        n -= 1
    return n


def _to_text(seq):
    n = _stripped_length(seq)
    largest = 0
    for k in range(n):
        largest = max(largest, _code_at(seq, k))
    out = _new(1 if largest < 0x100 else (2 if largest < 0x10000 else 4), n)
    for k in range(n):
        _set(out, k, _code_at(seq, k))
    return out


def _to_bytes(seq):
    n = _stripped_length(seq)
    out = _new(1, n)
    for k in range(n):
        _set(out, k, _code_at(seq, k))
    return _as_bytes(out)


@register_jitable
def _fill_from_text(seq, text):
    n = min(_length(text), _capacity(seq))
    for k in range(n):
        _put_code(seq, k, _get(text, k))
    for k in range(n, _capacity(seq)):
        _put_code(seq, k, 0)


def _fill_from_bytes(seq, data):
    _fill_from_text(seq, _as_text(data))


def _fill_from_ascii(seq, text):
    for k in range(min(_length(text), _capacity(seq))):
        if _get(text, k) > 127:
            raise UnicodeError(
                "'ascii' codec can't encode a character of a str stored into an 'S' array"
            )
    _fill_from_text(seq, text)


@lower_cast(types.UnicodeCharSeq, types.UnicodeType)
def char_seq_to_text(context, builder, from_type, to_type, value):
    return context.compile_internal(builder, _to_text, signature(to_type, from_type), [value])


@lower_cast(types.CharSeq, types.BytesType)
def char_seq_to_bytes(context, builder, from_type, to_type, value):
    return context.compile_internal(builder, _to_bytes, signature(to_type, from_type), [value])


def _filled_element(context, builder, from_type, to_type, value, fill):
    """An element's bytes made from a string, in a stack slot a store then copies from."""
    slot = arr.alloca_in_entry(builder, llvm.ArrayType(arr.i8, max(to_type.size, 1)), "chars")
    context.compile_internal(
        builder, fill, signature(types.none, to_type, from_type), [slot, value]
    )
    return slot


@lower_cast(types.UnicodeType, types.UnicodeCharSeq)
def text_to_char_seq(context, builder, from_type, to_type, value):
    return _filled_element(context, builder, from_type, to_type, value, _fill_from_text)


@lower_cast(types.BytesType, types.CharSeq)
def bytes_to_char_seq(context, builder, from_type, to_type, value):
    return _filled_element(context, builder, from_type, to_type, value, _fill_from_bytes)


@lower_cast(types.UnicodeType, types.CharSeq)
def ascii_text_to_char_seq(context, builder, from_type, to_type, value):
    """NumPy encodes a str stored into an 'S' array as ASCII (UnicodeEncodeError beyond)."""
    return _filled_element(context, builder, from_type, to_type, value, _fill_from_ascii)


# ---------------------------------------------------------------------------- whole arrays


def _is_text_array(typ: types.Type) -> bool:
    return isinstance(typ, types.Array) and isinstance(typ.dtype, _CHAR_SEQS)


def _element_of(array: types.Type, value: types.Type) -> bool:
    """Whether `value` is a single str (bytes) to compare with every element of `array`."""
    return _is_text_array(array) and types.unliteral(value) == array.dtype.value_type


def _same_kind(a: types.Type, b: types.Type) -> bool:
    return _is_text_array(a) and _is_text_array(b) and type(a.dtype) is type(b.dtype)


def _elementwise(compare):
    """`s == 'x'`-style comparisons of a string array: a boolean array of NumPy's shape (two
    arrays must have one shape; NumPy's broadcasting of string arrays is not supported)."""

    def typer(a, b):
        if _element_of(a, b):
            return lambda a, b: _against_value(a, b, compare)
        if _element_of(b, a):
            return lambda a, b: _against_value(b, a, compare)
        if _same_kind(a, b):
            if a.ndim != b.ndim:
                raise TypingError(
                    "string arrays compared element-wise must have one shape (broadcasting "
                    f"string arrays is not supported): {a} and {b}"
                )
            return lambda a, b: _against_array(a, b, compare)
        return None

    return typer


@register_jitable
def _against_value(array, value, compare):
    out = np.empty(array.shape, np.bool_)
    for index in np.ndindex(array.shape):
        out[index] = compare(array[index], value)
    return out


@register_jitable
def _against_array(a, b, compare):
    if a.shape != b.shape:
        raise ValueError("string arrays compared element-wise must have one shape")
    out = np.empty(a.shape, np.bool_)
    for index in np.ndindex(a.shape):
        out[index] = compare(a[index], b[index])
    return out


@register_jitable
def _equal(x, y):
    return x == y


@register_jitable
def _not_equal(x, y):
    return x != y


overload(operator.eq)(_elementwise(_equal))
overload(operator.ne)(_elementwise(_not_equal))


@overload(operator.contains)
def _text_array_contains(array, value):
    """`'x' in s`: whether any element equals it."""
    if not _element_of(array, value):
        return None

    def contains(array, value):
        for index in np.ndindex(array.shape):
            if array[index] == value:
                return True
        return False

    return contains
