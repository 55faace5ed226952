"""Records (elements of structured arrays) in compiled code: `r.x`, `r['x']`, `r.x = v`,
`a[i].x = v`, `a[i] = a[j]`, and `a['x']` or `a.x` as a strided view of one field; nested
records (`r.p.x`) and sub-array fields (`r.v[1] = 2.0`, a view of the record's bytes).

A record value is {meminfo, parent, data}: a pointer to its bytes inside an array (writes go
to the array, as in NumPy and Numba) and the meminfo keeping that memory alive (NULL for memory
borrowed from Python, `parent`, or that outlives the record)."""

from __future__ import annotations

import functools
import operator

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.errors import LoweringError, TypingError
from ember.extending import overload
from ember.library.numpy import indexing  # noqa: F401 - first, so a['x'] below takes precedence
from ember.lowering import arrays as arr
from ember.lowering.models import MeminfoStructModel, register_model
from ember.lowering.registry import (
    lower_builtin,
    lower_cast,
    lower_constant,
    lower_getattr_generic,
    lower_setattr_generic,
)
from ember.runtime import nrt
from ember.typing.conversions import can_convert
from ember.typing.signature import Signature
from ember.typing.templates import AttributeTemplate, registry


@register_model(types.Record)
class RecordModel(MeminfoStructModel):
    """{meminfo, parent, data} in registers and in containers (a reference, counted; parent:
    `arr.record_view`); in an array, the record's bytes (`arr.element_type`)."""

    def __init__(self, fe_type: types.Record) -> None:
        members = [
            ("meminfo", types.meminfo_pointer),
            ("parent", types.pyobject_pointer),
            ("data", types.data_pointer),
        ]
        super().__init__(fe_type, members)


@lower_constant(types.Record)
def _record_constant(context, builder, typ: types.Record, value) -> llvm.Value:
    """A global record (`np.record` / `np.void`): a copy of its bytes in a new block, made at
    each read, so writes to it change this copy only (as in Numba) and the copy can be
    returned or stored like any record that owns its memory."""
    data = bytearray(np.asarray(value).tobytes())
    if len(data) != typ.size:
        raise LoweringError(f"a record constant of {len(data)} bytes is not a {typ}")
    block = nrt.emit_allocate_small(builder, arr.const(max(len(data), 1)))
    copy = nrt.emit_small_data_pointer(builder, block)
    builder.store(llvm.Constant(llvm.ArrayType(arr.i8, len(data)), data), copy)
    return arr.record_view(builder, typ, block, copy)


def _field_type(record: types.Record, field: str) -> types.Type:
    found = record.fields.get(field)
    if found is None:
        raise TypingError(
            f"Field '{field}' was not found in record with fields {tuple(record.fields)}"
        )
    return found.type


def _value_type(field_type: types.Type) -> types.Type:
    """What reading a field gives: a sub-array field reads as a C-ordered array view."""
    if isinstance(field_type, types.NestedArray):
        return types.Array(field_type.dtype, field_type.ndim, "C")
    return types.element_value_type(field_type)


def _assignable(record: types.Record, field: str, value: types.Type) -> types.Type:
    field_type = _field_type(record, field)
    if isinstance(field_type, types.NestedArray):  # copied in, broadcast as NumPy does
        value = types.unliteral(value)
        if not isinstance(value, (types.Array, types.Number, types.Boolean)):
            raise TypingError(
                f"cannot store a value of type {value} in sub-array record field '{field}' "
                f"({field_type}): assign an array or a number"
            )
        return value
    if can_convert(types.unliteral(value), field_type) is None:
        raise TypingError(
            f"cannot store a value of type {value} in record field '{field}' ({field_type})"
        )
    return field_type


def _field_pointer(builder, record: types.Record, pointer, field: str):
    return arr.offset_pointer(builder, pointer, arr.const(record.offset(field)))


def _load_field(context, builder, record: types.Record, value, field: str):
    field_type = _field_type(record, field)
    field_pointer = _field_pointer(builder, record, arr.record_data(builder, value), field)
    if isinstance(field_type, types.NestedArray):  # the record's memory stays alive
        meminfo = builder.extract_value(value, 0)
        nrt.emit_incref(builder, meminfo)
        return _nested_view(builder, field_type, field_pointer, meminfo)
    if isinstance(field_type, types.Record):  # a nested record: a view of the same memory
        return arr.record_in_record(builder, field_type, value, field_pointer)
    item = arr.load_item(builder, field_type, field_pointer)
    return context.cast(builder, item, field_type, types.element_value_type(field_type))


def _c_strides(element: types.Type, shape: tuple) -> list[int]:
    strides, step = [], arr.itemsize_of(element)
    for extent in reversed(shape):
        strides.insert(0, step)
        step *= extent
    return strides


def _nested_view(builder, nested: types.NestedArray, pointer, meminfo=None):
    """The array view of a sub-array field's bytes, sharing the record's `meminfo` (NULL: it
    owns no memory)."""
    nitems = int(np.prod(nested.shape))
    view = arr.ArrayFields(
        llvm.Constant(arr.ptr, None) if meminfo is None else meminfo,
        llvm.Constant(arr.ptr, None),
        arr.const(nitems),
        arr.const(arr.itemsize_of(nested.dtype)),
        pointer,
        [arr.const(extent) for extent in nested.shape],
        [arr.const(stride) for stride in _c_strides(nested.dtype, nested.shape)],
    )
    return arr.pack(builder, _value_type(nested), view)


def _copy_into(view, value):
    view[...] = value


def _store_field(context, builder, record, record_value, field, value, value_type) -> None:
    field_type = record.typeof(field)
    pointer = arr.record_data(builder, record_value)
    if isinstance(field_type, types.NestedArray):
        view = _nested_view(builder, field_type, _field_pointer(builder, record, pointer, field))
        view_type = _value_type(field_type)
        sig = Signature(types.none, (view_type, value_type))
        context.compile_internal(builder, _copy_into, sig, [view, value])
        return
    converted = context.cast(builder, value, value_type, field_type)
    arr.store_item(builder, field_type, converted, _field_pointer(builder, record, pointer, field))


@lower_cast(types.Record, types.Record)
def record_as_its_subtype(context, builder, from_type, to_type, value):
    """Record subtyping (`Record.can_convert_to`): the same bytes, read through fewer fields."""
    return value


# ---------------------------------------------------------------------------- r.x and r.x = v


@registry.register_attr
class RecordAttributes(AttributeTemplate):
    key = types.Record

    def generic_resolve(self, value_type: types.Record, attr: str) -> types.Type | None:
        if attr.startswith("__"):
            return None
        return _value_type(_field_type(value_type, attr))

    def resolve_setattr(self, target: types.Record, attr: str, value: types.Type) -> Signature:
        return Signature(types.none, (target, _assignable(target, attr, value)))


@lower_getattr_generic(types.Record)
def record_getattr(context, builder, typ, value, attr: str):
    return _load_field(context, builder, typ, value, attr)


@lower_setattr_generic(types.Record)
def record_setattr(context, builder, sig, args, attr: str):
    record, field_type = sig.args
    _store_field(context, builder, record, args[0], attr, args[1], field_type)
    return context.get_dummy_value(types.none)


# ---------------------------------------------------------------------------- r['x'], a['x']


def _literal_field(name: types.Type, target: types.Type = None) -> str | None:
    """The field a constant index names: a string, or (of a record) a position."""
    if isinstance(name, types.StringLiteral):
        return name.literal_value
    if isinstance(name, types.IntegerLiteral) and isinstance(target, types.Record):
        names = [member[0] for member in target.members]  # not the titles
        if not -len(names) <= name.literal_value < len(names):
            raise TypingError(
                f"Requested index {name.literal_value} is out of range: the record has "
                f"{len(names)} fields {tuple(names)}"
            )
        return names[name.literal_value]
    return None


def _array_of_records(typ: types.Type) -> bool:
    return isinstance(typ, types.Array) and isinstance(typ.dtype, types.Record)


def _field_view_type(array: types.Array, field: str) -> types.Array:
    field_type = _field_type(array.dtype, field)
    if isinstance(field_type, types.NestedArray):  # NumPy appends the sub-array's dimensions
        ndim = array.ndim + field_type.ndim
        return types.Array(field_type.dtype, ndim, "A", readonly=array.readonly)
    return types.Array(field_type, array.ndim, "A", readonly=array.readonly)


@registry.register_attr
class RecordArrayAttributes(AttributeTemplate):
    """`a.x` on an array of records: the field's view, as `a['x']` (ndarray's own attributes,
    `a.shape`, `a.sum`, win over a field of that name, as in NumPy)."""

    key = types.Array

    def generic_resolve(self, array: types.Array, attr: str) -> types.Type | None:
        if not _array_of_records(array) or hasattr(np.ndarray, attr):
            return None
        return _field_view_type(array, attr)


@registry.typer(operator.getitem)
def _type_getitem(args, kws):
    if len(args) != 2 or kws:
        return None
    target, name = args
    field = _literal_field(name, target)
    if field is None:
        return None
    if isinstance(target, types.Record):
        return Signature(_value_type(_field_type(target, field)), (target, name))
    if _array_of_records(target):
        return Signature(_field_view_type(target, field), (target, name))
    return None


@registry.typer(operator.setitem)
def _type_setitem(args, kws):
    if len(args) != 3 or kws:
        return None
    record, name, value = args
    if _array_of_records(record) and _literal_field(name) is not None:
        return _type_field_assignment(record, name, value)
    if not isinstance(record, types.Record):
        return None
    field = _literal_field(name, record)
    if field is None:
        return None
    field_type = _assignable(record, field, value)
    return Signature(types.none, (record, name, field_type))


def _type_field_assignment(array: types.Array, name: types.Type, value: types.Type):
    """`a['x'] = values`: every element's field, broadcast as NumPy does."""
    _field_view_type(array, name.literal_value)  # the field exists
    value = types.unliteral(value)
    if array.readonly or not isinstance(value, (types.Array, types.Number, types.Boolean)):
        return None
    return Signature(types.none, (array, name, value))


@lower_builtin(operator.setitem, types.Array, types.StringLiteral, types.Any)
def field_assignment(context, builder, sig, args):
    array, name, value_type = sig.args
    view_type = _field_view_type(array, name.literal_value)
    view = _field_view(builder, array, args[0], name.literal_value, view_type)
    copy_sig = Signature(types.none, (view_type, value_type))
    context.compile_internal(builder, _copy_into, copy_sig, [view, args[2]])
    arr.decref(builder, view_type, view)
    return context.get_dummy_value(types.none)


@lower_builtin(operator.getitem, types.Record, types.StringLiteral)
@lower_builtin(operator.getitem, types.Record, types.IntegerLiteral)
def record_getitem(context, builder, sig, args):
    record, name = sig.args
    return _load_field(context, builder, record, args[0], _literal_field(name, record))


@lower_builtin(operator.setitem, types.Record, types.StringLiteral, types.Any)
@lower_builtin(operator.setitem, types.Record, types.IntegerLiteral, types.Any)
def record_setitem(context, builder, sig, args):
    record, name, field_type = sig.args
    field = _literal_field(name, record)
    _store_field(context, builder, record, args[0], field, args[2], field_type)
    return context.get_dummy_value(types.none)


@lower_builtin(operator.getitem, types.Array, types.StringLiteral)
def field_view_by_name(context, builder, sig, args):
    array, name = sig.args
    return _field_view(builder, array, args[0], name.literal_value, sig.return_type)


@lower_getattr_generic(types.Array)
def field_view_by_attribute(context, builder, typ, value, attr: str):
    if not (_array_of_records(typ) and attr in typ.dtype.fields):
        raise LoweringError(f"no implementation of attribute '{attr}' of {typ}")
    return _field_view(builder, typ, value, attr, _field_view_type(typ, attr))


def _field_view(builder, array: types.Array, value, field: str, view_type: types.Array):
    """One field of every element: a view sharing the array's memory and strides (a sub-array
    field adds its own C-ordered dimensions after the array's)."""
    fields = arr.unpack(builder, array, value)
    field_type = array.dtype.typeof(field)
    shape, strides = list(fields.shape), list(fields.strides)
    nitems = fields.nitems
    if isinstance(field_type, types.NestedArray):
        shape += [arr.const(extent) for extent in field_type.shape]
        strides += [arr.const(s) for s in _c_strides(field_type.dtype, field_type.shape)]
        nitems = builder.mul(nitems, arr.const(int(np.prod(field_type.shape))))
    view = arr.ArrayFields(
        fields.meminfo,
        fields.parent,
        nitems,
        arr.const(arr.itemsize_of(view_type.dtype)),
        arr.offset_pointer(builder, fields.data, arr.const(array.dtype.offset(field))),
        shape,
        strides,
    )
    arr.nrt_incref_fields(builder, view)
    return arr.pack(builder, view_type, view)


# ---------------------------------------------------------------------------- r1 == r2


def _record_field_names(record: types.Record) -> tuple[str, ...]:
    return tuple(name for name, _, _ in record.members)


def _defined(source: str, name: str):
    """The function `name` that `source` (generated from a record's field names) defines."""
    namespace: dict = {}
    exec(compile(source, f"<ember {name}>", "exec"), namespace)  # noqa: S102 - field names only
    return namespace[name]


@functools.cache
def _record_equality(left: types.Record, right: types.Record):
    """`r1 == r2` of records with the same field names: NumPy's comparison of void scalars,
    field by field (a sub-array field is equal when all its items are)."""
    tests = []
    for name in _record_field_names(left):
        pair = f"a[{name!r}] == b[{name!r}]"
        nested = isinstance(left.typeof(name), types.NestedArray)
        tests.append(f"({pair}).all()" if nested else f"({pair})")
    source = f"def record_eq(a, b):\n    return {' and '.join(tests) or 'True'}\n"
    return _defined(source, "record_eq")


@overload(operator.eq)
def record_eq(a, b):
    if not (isinstance(a, types.Record) and isinstance(b, types.Record)):
        return None
    if _record_field_names(a) != _record_field_names(b):
        raise TypingError(f"cannot compare records of different fields: {a} and {b}")
    return _record_equality(a, b)


@overload(operator.ne)
def record_ne(a, b):
    if isinstance(a, types.Record) and isinstance(b, types.Record):
        return lambda a, b: not (a == b)
    return None


# ---------------------------------------------------------------------------- a[i] = (x, n)


@functools.cache
def _record_from_tuple(record: types.Record):
    """`a[i] = (1.5, 2)`: NumPy stores the tuple's items in the fields, in order."""
    stores = [f"    r[{name!r}] = t[{k}]" for k, name in enumerate(_record_field_names(record))]
    source = "def store_tuple(a, i, t):\n    r = a[i]\n" + "\n".join(stores) + "\n"
    return _defined(source, "store_tuple")


@overload(operator.setitem)
def record_array_setitem_tuple(a, i, t):
    if not (_array_of_records(a) and isinstance(types.unliteral(i), types.Integer)):
        return None
    if not isinstance(t, types.BaseTuple):
        return None
    names = _record_field_names(a.dtype)
    if len(t) != len(names):
        raise TypingError(
            f"cannot store a tuple of {len(t)} items in a record of {len(names)} fields "
            f"({', '.join(names)})"
        )
    return _record_from_tuple(a.dtype)


# ---------------------------------------------------------------------------- bool(r)


@functools.cache
def _record_truth(record: types.Record):
    """NumPy's truth of a void scalar: some field is nonzero (a sub-array field: some item)."""
    tests = []
    for name in _record_field_names(record):
        nested = isinstance(record.typeof(name), types.NestedArray)
        tests.append(f"r[{name!r}].any()" if nested else f"bool(r[{name!r}])")
    source = f"def record_truth(r):\n    return {' or '.join(tests) or 'False'}\n"
    return _defined(source, "record_truth")


@lower_cast(types.Record, types.Boolean)
def record_truth(context, builder, from_type, to_type, value):
    sig = Signature(types.boolean, (from_type,))
    return context.compile_internal(builder, _record_truth(from_type), sig, [value])
