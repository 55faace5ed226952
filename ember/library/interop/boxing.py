"""`@box` / `@unbox` for ember's own scalar types, None and tuples.

The dispatcher marshals these itself (its generated fast entry and ctypes path); these
implementations serve the boxing wrapper of ember/lowering/boxing.py, when a signature mixes
them with a user type, e.g. `f(interval, 2.5) -> (float64, Interval)`.
"""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.lowering import cgutils
from ember.lowering.boxing import NativeValue
from ember.lowering.registry import box, unbox


def _pending_error(c) -> llvm.Value:
    null = c.pyapi.get_null_object()
    return c.builder.icmp_unsigned("!=", c.pyapi.err_occurred(), null)


@unbox(types.Boolean)
def unbox_boolean(typ, obj, c):
    truth = c.pyapi.object_istrue(obj)
    is_error = c.builder.icmp_signed("<", truth, llvm.Constant(truth.type, 0))
    value = c.builder.icmp_signed(">", truth, llvm.Constant(truth.type, 0))
    return NativeValue(value, is_error=is_error)


@box(types.Boolean)
def box_boolean(typ, val, c):
    return c.pyapi.bool_from_bool(val)


@unbox(types.Integer)
def unbox_integer(typ, obj, c):
    if typ.signed:
        wide = c.pyapi.long_as_longlong(obj)
    else:
        wide = _as_unsigned(c, obj)
    value = c.context.cast(c.builder, wide, types.integer_type(64, typ.signed), typ)
    return NativeValue(value, is_error=_pending_error(c))


def _as_unsigned(c, obj) -> llvm.Value:
    """An unsigned 64-bit value of any integer-like object: PyLong_AsUnsignedLongLong takes
    only Python ints (not np.uint32), so the object passes through int() first."""
    builder = c.builder
    as_int = c.pyapi.number_long(obj)
    slot = cgutils.alloca_once_value(builder, llvm.Constant(llvm.IntType(64), 0))
    with builder.if_then(builder.not_(cgutils.is_null(builder, as_int)), likely=True):
        builder.store(c.pyapi.long_as_ulonglong(as_int), slot)
        c.pyapi.decref(as_int)
    return builder.load(slot)


@box(types.Integer)
def box_integer(typ, val, c):
    wide = c.context.cast(c.builder, val, typ, types.integer_type(64, typ.signed))
    if typ.signed:
        return c.pyapi.long_from_longlong(wide)
    return c.pyapi.long_from_ulonglong(wide)


@unbox(types.Float)
def unbox_float(typ, obj, c):
    double = c.pyapi.float_as_double(obj)
    value = c.context.cast(c.builder, double, types.float64, typ)
    return NativeValue(value, is_error=_pending_error(c))


@box(types.Float)
def box_float(typ, val, c):
    return c.pyapi.float_from_double(c.context.cast(c.builder, val, typ, types.float64))


@unbox(types.Complex)
def unbox_complex(typ, obj, c):
    real = c.pyapi.complex_real_as_double(obj)
    imag = c.pyapi.complex_imag_as_double(obj)
    value = llvm.Constant(c.context.value_type(types.complex128), llvm.Undefined)
    value = c.builder.insert_value(c.builder.insert_value(value, real, 0), imag, 1)
    value = c.context.cast(c.builder, value, types.complex128, typ)
    return NativeValue(value, is_error=_pending_error(c))


@box(types.Complex)
def box_complex(typ, val, c):
    wide = c.context.cast(c.builder, val, typ, types.complex128)
    parts = [c.builder.extract_value(wide, index) for index in (0, 1)]
    return c.pyapi.complex_from_doubles(*parts)


@unbox(types.NoneType)
def unbox_none(typ, obj, c):
    return NativeValue(c.context.get_dummy_value(typ))


@box(types.NoneType)
def box_none(typ, val, c):
    return c.pyapi.make_none()


@unbox(types.StringLiteral)
def unbox_string_literal(typ, obj, c):
    """A constant string's value is its type (an extension's struct member typed by a literal,
    e.g. a tuple of field names): no runtime data to read."""
    return NativeValue(c.context.get_dummy_value(typ))


@box(types.StringLiteral)
def box_string_literal(typ, val, c):
    return c.pyapi.unserialize(c.pyapi.serialize_object(typ.literal_value))


@unbox(types.BaseTuple)
def unbox_tuple(typ, obj, c):
    value = llvm.Constant(c.context.value_type(typ), llvm.Undefined)
    is_error = llvm.Constant(llvm.IntType(1), 0)
    cleanups = []  # the members' (bytes in a tuple release their copies after the call)
    for index, member in enumerate(typ.types):
        native = c.unbox(member, c.pyapi.tuple_getitem(obj, index))
        value = c.builder.insert_value(value, native.value, index)
        if native.is_error is not None:
            is_error = c.builder.or_(is_error, native.is_error)
        if native.cleanup is not None:
            cleanups.append(native.cleanup)

    def cleanup():
        for member_cleanup in cleanups:
            member_cleanup()

    return NativeValue(value, is_error=is_error, cleanup=cleanup if cleanups else None)


@box(types.BaseTuple)
def box_tuple(typ, val, c):
    """A new tuple; NULL if a member fails to box (then the partial tuple is released)."""
    builder, pyapi = c.builder, c.pyapi
    result = pyapi.tuple_new(len(typ))
    failed = builder.icmp_unsigned("==", result, pyapi.get_null_object())
    for index, member in enumerate(typ.types):
        item = c.box(member, builder.extract_value(val, index))
        item_failed = builder.icmp_unsigned("==", item, pyapi.get_null_object())
        store = builder.not_(builder.or_(failed, item_failed))
        with builder.if_then(store):
            pyapi.tuple_setitem(result, index, item)  # steals the reference
        with builder.if_then(builder.and_(builder.not_(store), builder.not_(item_failed))):
            pyapi.decref(item)  # boxed, but the tuple is being abandoned
        failed = builder.or_(failed, item_failed)
    with builder.if_then(failed, likely=False):
        pyapi.decref(result)
    return builder.select(failed, pyapi.get_null_object(), result)


def box_by_calling(callable_object, tuple_type, val, c):
    """`callable_object(*members)` of a native value laid out as `tuple_type` (a namedtuple, a
    Polynomial): the members boxed as a tuple, then the call; NULL if either fails."""
    builder, pyapi = c.builder, c.pyapi
    plain = box_tuple(tuple_type, val, c)
    null = pyapi.get_null_object()
    result = builder.alloca(null.type)
    builder.store(null, result)
    with builder.if_then(builder.icmp_unsigned("!=", plain, null), likely=True):
        builder.store(pyapi.call(pyapi.borrow_constant(callable_object), plain), result)
        pyapi.decref(plain)
    return builder.load(result)


def compact_str_fields(builder, obj) -> tuple:
    """(is compact i1, kind i64, data pointer, length i64) of a `str` object, read from
    CPython's compact layout (ember/runtime/string_boxing.py verifies it)."""
    from ember.runtime import string_boxing as layout

    i64 = llvm.IntType(64)

    def field(offset, field_type):
        address = builder.gep(obj, [llvm.Constant(i64, offset)], source_etype=llvm.IntType(8))
        return builder.load(address, typ=field_type)

    state = builder.zext(field(layout.STATE_OFFSET, llvm.IntType(32)), i64)
    kind = builder.and_(builder.lshr(state, llvm.Constant(i64, 2)), llvm.Constant(i64, 7))
    compact = builder.trunc(builder.lshr(state, llvm.Constant(i64, 5)), llvm.IntType(1))
    is_ascii = builder.trunc(builder.lshr(state, llvm.Constant(i64, 6)), llvm.IntType(1))
    offset = builder.select(
        is_ascii,
        llvm.Constant(i64, layout.ASCII_DATA_OFFSET),
        llvm.Constant(i64, layout.COMPACT_DATA_OFFSET),
    )
    source = builder.gep(obj, [offset], source_etype=llvm.IntType(8))
    return compact, kind, source, field(layout.LENGTH_OFFSET, i64)


@unbox(types.UnicodeType)
def unbox_string(typ, obj, c):
    """Copy the characters of a compact `str` (CPython's own kind) into a runtime block,
    released after the call (ember/runtime/string_boxing.py reads the same layout)."""
    from ember.lowering import strings
    from ember.runtime import string_boxing as layout

    builder = c.builder
    i64 = llvm.IntType(64)
    if not layout.layout_verified():
        c.pyapi.err_set_string(TypeError, "this Python's str layout is unknown to ember")
        failed = llvm.Constant(llvm.IntType(1), 1)
        return NativeValue(strings.constant(builder, ""), is_error=failed)
    compact, kind, source, length = compact_str_fields(builder, obj)
    with builder.if_then(builder.not_(compact), likely=False):
        c.pyapi.err_set_string(TypeError, "ember needs a compact str (a str subclass is not)")
    # a non-compact str is unboxed as the empty string with the error pending
    length = builder.select(compact, length, llvm.Constant(i64, 0))
    value, no_memory = strings.allocate_or_fail(builder, kind, length)
    with builder.if_else(no_memory, likely=False) as (failed, allocated):
        with failed:
            c.pyapi.err_set_string(MemoryError, "unable to allocate a string")
        with allocated:
            strings.copy_bytes(builder, value, source)

    def cleanup():
        from ember.runtime import nrt

        nrt.emit_decref(builder, builder.extract_value(value, 0))  # NULL-safe

    failed = builder.or_(builder.not_(compact), no_memory)
    return NativeValue(value, is_error=failed, cleanup=cleanup)


@box(types.UnicodeType)
def box_string(typ, val, c):
    """A new `str` of the characters (the native reference stays with the caller)."""
    from ember.lowering import strings

    builder = c.builder
    kind = builder.trunc(strings.kind(builder, val), llvm.IntType(32))
    obj = c.pyapi.unicode_from_kind_and_data(
        kind, strings.data(builder, val), strings.length(builder, val)
    )
    return obj
