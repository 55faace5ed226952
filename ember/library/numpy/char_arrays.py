"""NumPy string arrays in compiled code: elements of '<U3' (`UnicodeCharSeq`) and 'S3'
(`CharSeq`) arrays and record fields read as a `str` / `bytes` with trailing NULs stripped, as
NumPy gives them; `s[i] = 'xy'` stores truncated and NUL-padded; `s == 'x'`, `'x' in s`."""

from __future__ import annotations

import operator

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic, overload, register_jitable
from ember.library.strings.bytes import _as_text
from ember.library.strings.core import _get, _length
from ember.lowering import arrays as arr
from ember.lowering import strings as primitives
from ember.lowering.models import PrimitiveModel, register_model
from ember.lowering.registry import lower_cast
from ember.typing.signature import signature


@register_model(types.UnicodeCharSeq)
@register_model(types.CharSeq)
class CharSeqModel(PrimitiveModel):
    """A pointer to the element's bytes in registers; in an array (or a container), the bytes
    (what `gep` steps over)."""

    def __init__(self, fe_type: types.Type) -> None:
        super().__init__(fe_type, arr.ptr)

    @property
    def data_type(self):
        return llvm.ArrayType(arr.i8, self.fe_type.size)


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


def _emit_scan(builder, seq: types.Type, pointer) -> tuple:
    """(length without trailing NULs, largest code point) of an element, in one pass."""
    unit = _unit(seq)
    length_slot = arr.alloca_in_entry(builder, arr.i64, "chars.length")
    largest_slot = arr.alloca_in_entry(builder, arr.i64, "chars.largest")
    builder.store(arr.const(0), length_slot)
    builder.store(arr.const(0), largest_slot)
    with arr.for_range(builder, arr.const(seq.count)) as index:
        address = builder.gep(pointer, [index], inbounds=True, source_etype=unit)
        code = builder.zext(builder.load(address, typ=unit), arr.i64)
        nonzero = builder.icmp_unsigned("!=", code, arr.const(0))
        length = builder.load(length_slot, typ=arr.i64)
        after = builder.add(index, arr.const(1))
        builder.store(builder.select(nonzero, after, length), length_slot)
        largest = builder.load(largest_slot, typ=arr.i64)
        bigger = builder.icmp_unsigned(">", code, largest)
        builder.store(builder.select(bigger, code, largest), largest_slot)
    return builder.load(length_slot, typ=arr.i64), builder.load(largest_slot, typ=arr.i64)


@intrinsic
def _stripped_length(typingctx, seq):
    """An element's length without its trailing NULs."""
    if not isinstance(seq, _CHAR_SEQS):
        return None

    def codegen(context, builder, sig, args):
        return _emit_scan(builder, sig.args[0], args[0])[0]

    return signature(types.int64, seq), codegen


def _emit_string(context, builder, seq: types.Type, pointer):
    """A new string of an element's characters, in the narrowest kind that holds them."""
    length, largest = _emit_scan(builder, seq, pointer)
    below = builder.icmp_unsigned
    width = builder.select(
        below("<", largest, arr.const(0x100)),
        arr.const(1),
        builder.select(below("<", largest, arr.const(0x10000)), arr.const(2), arr.const(4)),
    )
    text = primitives.allocate(context, builder, width, length)
    primitives.copy_code_units(builder, text, pointer, _unit(seq), length)
    return text


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
    return _emit_string(context, builder, from_type, value)


@lower_cast(types.CharSeq, types.BytesType)
def char_seq_to_bytes(context, builder, from_type, to_type, value):
    """Bytes share the string's model: a kind-1 string of the element's bytes."""
    return _emit_string(context, builder, from_type, value)


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
    """NumPy encodes a str stored into an 'S' array as ASCII; beyond, a UnicodeError (NumPy's
    UnicodeEncodeError is one)."""
    return _filled_element(context, builder, from_type, to_type, value, _fill_from_ascii)


# ---------------------------------------------------------------------------- whole arrays


@intrinsic
def _element(typingctx, array, index):
    """The element at an in-range index tuple, unconverted (a reference to its bytes)."""
    if not _is_text_array(array):
        return None

    def codegen(context, builder, sig, args):
        array_type = sig.args[0]
        fields = arr.unpack(builder, array_type, args[0])
        indices = [builder.extract_value(args[1], k) for k in range(array_type.ndim)]
        return arr.element_pointer(builder, array_type, fields, indices)

    return signature(array.dtype, array, index), codegen


@register_jitable
def _same_text(seq, text):
    """Whether an element reads as `text`, without making a string of it."""
    n = _stripped_length(seq)
    if n != _length(text):
        return False
    for k in range(n):
        if _code_at(seq, k) != _get(text, k):
            return False
    return True


@intrinsic
def _characters_of(typingctx, value):
    """A str or bytes as a string of its characters (bytes share the string's model)."""
    value = types.unliteral(value)
    if value not in (types.unicode_type, types.bytes_type):
        return None

    def codegen(context, builder, sig, args):
        arr.incref(builder, sig.args[0], args[0])
        return args[0]

    return signature(types.unicode_type, value), codegen


@register_jitable
def _element_equals(array, index, value):
    return _same_text(_element(array, index), _characters_of(value))


def _is_text_array(typ: types.Type) -> bool:
    return isinstance(typ, types.Array) and isinstance(typ.dtype, _CHAR_SEQS)


def _element_of(array: types.Type, value: types.Type) -> bool:
    """Whether `value` is a single str (bytes) to compare with every element of `array`."""
    return _is_text_array(array) and types.unliteral(value) == array.dtype.value_type


def _same_kind(a: types.Type, b: types.Type) -> bool:
    return _is_text_array(a) and _is_text_array(b) and type(a.dtype) is type(b.dtype)


def _elementwise(equal: bool):
    """`s == 'x'`-style comparisons of a string array: a boolean array of NumPy's shape (two
    arrays must have one shape; NumPy's broadcasting of string arrays is not supported)."""

    def typer(a, b):
        if _element_of(a, b):
            return lambda a, b: _against_value(a, b, equal)
        if _element_of(b, a):
            return lambda a, b: _against_value(b, a, equal)
        if _same_kind(a, b):
            if a.ndim != b.ndim:
                raise TypingError(
                    "string arrays compared element-wise must have one shape (broadcasting "
                    f"string arrays is not supported): {a} and {b}"
                )
            return lambda a, b: _against_array(a, b, equal)
        return None

    return typer


@register_jitable
def _against_value(array, value, equal):
    out = np.empty(array.shape, np.bool_)
    for index in np.ndindex(array.shape):
        out[index] = _element_equals(array, index, value) == equal
    return out


@register_jitable
def _against_array(a, b, equal):
    if a.shape != b.shape:
        raise ValueError("string arrays compared element-wise must have one shape")
    out = np.empty(a.shape, np.bool_)
    for index in np.ndindex(a.shape):
        out[index] = (a[index] == b[index]) == equal
    return out


overload(operator.eq)(_elementwise(True))
overload(operator.ne)(_elementwise(False))


@overload(operator.contains)
def _text_array_contains(array, value):
    """`'x' in s`: whether any element equals it."""
    if not _element_of(array, value):
        return None

    def contains(array, value):
        for index in np.ndindex(array.shape):
            if _element_equals(array, index, value):
                return True
        return False

    return contains


@intrinsic
def _read_as_string(typingctx, value):
    """The str (bytes) a fixed-length str (bytes) reads as."""
    text_type = types.unicode_type if isinstance(value, types.UnicodeCharSeq) else types.bytes_type

    def codegen(context, builder, sig, args):
        return _emit_string(context, builder, sig.args[0], args[0])

    if isinstance(value, (types.UnicodeCharSeq, types.CharSeq)):
        return signature(text_type, value), codegen
    return None


@overload(hash)
def char_seq_hash(value):
    """A fixed-length str (bytes) hashes as the str (bytes) it reads as, so it keys a dict
    as that text does."""
    if isinstance(value, (types.UnicodeCharSeq, types.CharSeq)):
        return lambda value: hash(_read_as_string(value))
    return None


@overload(operator.eq)
def char_seq_eq(a, b):
    """Two fixed-length strs (bytes) are equal when the texts they read as are."""
    kinds = (types.UnicodeCharSeq, types.CharSeq)
    if isinstance(a, kinds) and isinstance(b, kinds) and type(a) is type(b):
        return lambda a, b: _read_as_string(a) == _read_as_string(b)
    return None
