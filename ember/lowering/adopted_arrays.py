"""Arrays and records borrowed from Python (meminfo NULL, parent = the ndarray or NumPy record)
stored where they may outlive the call that received them (jitclass fields, list items, dict
entries): consumes the value about to be stored, produces it with a meminfo of its own that
holds a reference to the Python object."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.lowering import arrays as refs
from ember.lowering.pyapi import PythonAPI
from ember.runtime import nrt

ptr = refs.ptr


def store_new_reference(context, builder, typ: types.Type, item: llvm.Value, pointer) -> None:
    """Store a new reference to `item` (borrowed) at `pointer`, adopting borrowed arrays."""
    refs.incref(builder, typ, item)
    refs.store_value(builder, typ, own_borrowed_arrays(context, builder, typ, item), pointer)


def own_borrowed_arrays(context, builder, typ: types.Type, value: llvm.Value) -> llvm.Value:
    """`value` with each array borrowed from Python (meminfo NULL, parent set) given a meminfo
    that holds a reference to its ndarray, so that it may outlive the call that received it.
    A new meminfo starts with the one reference the caller is about to store."""
    if isinstance(typ, types.Array | types.Record):  # {meminfo, parent, ...} both
        return _own_array(context, builder, value)
    if isinstance(typ, types.BaseTuple):
        for index, member in enumerate(typ.types):
            if refs.needs_refcount(member):
                item = own_borrowed_arrays(
                    context, builder, member, builder.extract_value(value, index)
                )
                value = builder.insert_value(value, item, index)
    return value


def _own_array(context, builder, value: llvm.Value) -> llvm.Value:
    meminfo, parent = builder.extract_value(value, 0), builder.extract_value(value, 1)
    null = llvm.Constant(ptr, None)
    borrowed = builder.and_(
        builder.icmp_unsigned("==", meminfo, null), builder.icmp_unsigned("!=", parent, null)
    )
    before = builder.block
    with builder.if_then(borrowed, likely=False):
        made = nrt.emit_allocate(builder, refs.const(8))
        context.guard(
            builder, builder.icmp_unsigned("==", made, null), MemoryError, "out of memory"
        )
        builder.store(parent, nrt.emit_data_pointer(builder, made))
        pyapi = PythonAPI(context, builder, [])
        state = pyapi.gil_ensure()
        pyapi.incref(parent)
        pyapi.gil_release(state)
        nrt.emit_set_destructor(builder, made, _release_parent(builder.module))
        adopted = builder.insert_value(value, made, 0)
        owned_block = builder.block
    result = builder.phi(value.type)
    result.add_incoming(value, before)
    result.add_incoming(adopted, owned_block)
    return result


def _release_parent(module: llvm.Module) -> llvm.Function:
    """`void dtor(ptr meminfo)` of an adopted ndarray: drop the reference to it (with the GIL:
    the last reference may go in code that runs without it)."""
    name = "ember.adopted_array.release_parent"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    function = llvm.Function(module, llvm.FunctionType(llvm.VoidType(), [ptr]), name)
    function.linkage = "internal"
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    parent = builder.load(nrt.emit_data_pointer(builder, function.args[0]), typ=ptr)
    pyapi = PythonAPI(None, builder, [])
    state = pyapi.gil_ensure()
    pyapi.decref(parent)
    pyapi.gil_release(state)
    builder.ret_void()
    return function
