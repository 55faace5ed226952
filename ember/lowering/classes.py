"""jitclass instances and structrefs (`types.ManagedStruct`) in LLVM: the data model
{meminfo, data}, the payload struct of fields behind the meminfo, allocation with a destructor
that releases the fields, and field loads and stores with their reference counts.

An instance owns one reference to each field that owns memory (arrays, lists, tuples of them,
other instances). The payload starts zeroed, so a field never assigned releases nothing.
An array borrowed from Python (meminfo NULL) that is stored in a field is first given a
meminfo of its own holding a reference to the ndarray, so the instance keeps it alive.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from llvmlite import ir as llvm

from ember import types
from ember.ir import nodes as ir
from ember.lowering import arrays as refs
from ember.lowering.adopted_arrays import store_new_reference
from ember.lowering.models import MeminfoStructModel, model_of, register_model
from ember.runtime import nrt

ptr = refs.ptr
i64 = refs.i64


@register_model(types.ManagedStruct)
class InstanceModel(MeminfoStructModel):
    """{meminfo, data}: `data` (= the meminfo's payload) is kept to spare a computation per
    field access; only `meminfo` counts references."""

    def __init__(self, fe_type: types.ManagedStruct) -> None:
        super().__init__(
            fe_type, [("meminfo", types.meminfo_pointer), ("data", types.data_pointer)]
        )


def payload_type(instance_type: types.ManagedStruct) -> llvm.LiteralStructType:
    """The LLVM struct of the fields, in the order of the spec."""
    return llvm.LiteralStructType([model_of(t).data_type for t in instance_type.struct.values()])


def field_index(instance_type: types.ManagedStruct, name: str) -> int:
    return list(instance_type.struct).index(name)


def _payload_bytes(builder: llvm.IRBuilder, payload: llvm.Type) -> llvm.Value:
    one = builder.gep(llvm.Constant(ptr, None), [refs.const(1)], source_etype=payload)
    return builder.ptrtoint(one, i64)


def field_pointer(builder, instance_type: types.ManagedStruct, value, name: str):
    data = builder.extract_value(value, 1)
    index = field_index(instance_type, name)
    return builder.gep(
        data,
        [refs.i32_(0), refs.i32_(index)],
        inbounds=True,
        source_etype=payload_type(instance_type),
    )


def load_field(builder, instance_type: types.ManagedStruct, value, name: str) -> llvm.Value:
    """Field `name` as a new reference."""
    field_type = instance_type.struct[name]
    item = refs.load_value(builder, field_type, field_pointer(builder, instance_type, value, name))
    refs.incref(builder, field_type, item)
    return item


def store_field(context, builder, instance_type, value, name: str, item: llvm.Value) -> None:
    """`instance.name = item` (`item` borrowed): the instance takes a reference to the new
    value and releases the old one (in that order: the two may be the same)."""
    field_type = instance_type.struct[name]
    pointer = field_pointer(builder, instance_type, value, name)
    old = refs.load_value(builder, field_type, pointer)
    store_new_reference(context, builder, field_type, item, pointer)
    refs.decref(builder, field_type, old)


def allocate(context, builder, instance_type: types.ManagedStruct) -> llvm.Value:
    """A new instance with zeroed fields: a new reference."""
    payload = payload_type(instance_type)
    size = _payload_bytes(builder, payload)
    meminfo = nrt.emit_allocate(builder, size)
    failed = builder.icmp_unsigned("==", meminfo, llvm.Constant(ptr, None))
    context.guard(builder, failed, MemoryError, f"unable to allocate a {instance_type}")
    nrt.emit_set_destructor(builder, meminfo, _destructor(builder.module, instance_type))
    data = nrt.emit_data_pointer(builder, meminfo)
    refs.memset_zero(builder, data, size)
    value = llvm.Constant(model_of(instance_type).value_type, llvm.Undefined)
    value = builder.insert_value(value, meminfo, 0)
    return builder.insert_value(value, data, 1)


def _destructor(module: llvm.Module, instance_type: types.ManagedStruct) -> llvm.Function:
    """`void dtor(ptr meminfo)`: release every field that owns memory."""
    name = f"ember.struct.destructor.{instance_type.mangling}"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    function = llvm.Function(module, llvm.FunctionType(llvm.VoidType(), [ptr]), name)
    function.linkage = "internal"
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    meminfo = function.args[0]
    value = llvm.Constant(model_of(instance_type).value_type, llvm.Undefined)
    value = builder.insert_value(value, meminfo, 0)
    value = builder.insert_value(value, nrt.emit_data_pointer(builder, meminfo), 1)
    for field_name, field_type in instance_type.struct.items():
        if refs.needs_refcount(field_type):
            pointer = field_pointer(builder, instance_type, value, field_name)
            refs.decref(builder, field_type, refs.load_value(builder, field_type, pointer))
    builder.ret_void()
    return function


# ---------------------------------------------------------------------------- borrowed reads


def read_field(builder, instance_type: types.ManagedStruct, value, name: str) -> llvm.Value:
    """Field `name` without a new reference (see `borrowed_field_reads`)."""
    pointer = field_pointer(builder, instance_type, value, name)
    return refs.load_value(builder, instance_type.struct[name], pointer)


def borrowed_field_reads(func_ir, typemap: dict) -> frozenset[str]:
    """Temporaries `$a = obj.field` (an array, list or instance field) whose uses before their
    `del` in the same block cannot replace the field: they may borrow the instance's reference
    instead of counting their own (atomic operations, costly in hot loops: `self.data[i]`).

    Conservative: between the read and its `del`, only reads of fields, indexing of arrays and
    tuples, array attributes, arithmetic on numbers, copies and stores of numbers into arrays
    may run; anything that may call user code (a call, an operator on an instance, `obj.x =
    ...`) or rebind or release `obj` keeps the counted reference."""

    assignments: dict[str, int] = {}
    candidates = []
    for block in func_ir.blocks.values():
        for index, stmt in enumerate(block.body):
            if not isinstance(stmt, ir.Assign):
                continue
            name = stmt.target.name
            assignments[name] = assignments.get(name, 0) + 1
            value = stmt.value
            if isinstance(value, ir.GetAttr) and _is_field(typemap, value):
                # a record field is read with its check for being unassigned (library/objects/)
                if refs.needs_refcount(typemap[name]) and not isinstance(
                    typemap[name], types.Record
                ):
                    following = itertools.islice(block.body, index + 1, None)
                    candidates.append((name, value.value.name, following))
    return frozenset(
        name
        for name, receiver, following in candidates
        if assignments[name] == 1 and _fields_unchanged(following, name, receiver, typemap)
    )


def _is_field(typemap: dict, value) -> bool:
    receiver_type = typemap.get(value.value.name)
    return isinstance(receiver_type, types.ManagedStruct) and (value.attr in receiver_type.struct)


_PLAIN = (types.Number, types.Boolean, types.Array, types.BaseTuple, types.NoneType)


def _fields_unchanged(following: Iterable, name: str, receiver: str, typemap: dict) -> bool:
    for stmt in following:
        if isinstance(stmt, ir.Del):
            if stmt.name in (name, receiver):
                return stmt.name == name
            continue
        if isinstance(stmt, ir.SetItem):
            target, item = typemap.get(stmt.target.name), typemap.get(stmt.value.name)
            if isinstance(target, types.Array) and isinstance(item, (types.Number, types.Boolean)):
                continue
            return False
        if not isinstance(stmt, ir.Assign) or stmt.target.name == receiver:
            return False
        if not _pure(stmt.value, typemap):
            return False
    return False  # alive past the block: counted as any other value


def _pure(value, typemap: dict) -> bool:
    """Whether evaluating `value` runs no user code and replaces no field."""
    if isinstance(value, (ir.Var, ir.Const)):
        return True
    if isinstance(value, ir.GetAttr):
        return _is_field(typemap, value) or isinstance(typemap.get(value.value.name), types.Array)
    if isinstance(value, (ir.GetItem, ir.StaticGetItem, ir.BinOp, ir.UnaryOp)):
        return all(isinstance(typemap.get(var.name), _PLAIN) for var in value.sources())
    return False
