"""Lists, typed Lists, sets and typed Dicts across an objmode block: native container (its
meminfo) <-> Python object, through ember's own boxing (the dispatcher's) called from the
generated code.

Into the block, a list becomes a new Python list of its items and a set a new set; after the
block, what the block made of that list (set) becomes the native container's contents, in place,
so that changes are seen by every holder of it, as in Python. A typed List or Dict is shared
(the block sees and makes changes to the same native container). Out of the block, a Python list
or set is copied into a new native one of the declared type; a typed List or Dict is shared.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.runtime import nrt


def is_container(typ: types.Type) -> bool:
    """Whether `typ` is a container this module marshals."""
    if isinstance(typ, types.List):
        return not isinstance(typ, types.LiteralList)
    return isinstance(typ, (types.Set, types.DictType))


def box_container(pyapi: Any, builder: llvm.IRBuilder, typ: types.Type, value) -> llvm.Value:
    """A new reference to the Python object of native container `value` (NULL with an
    exception set); the value keeps its own reference."""
    meminfo = builder.extract_value(value, 0)
    address = pyapi.long_from_ulonglong(builder.ptrtoint(meminfo, llvm.IntType(64)))
    boxer = pyapi.borrow_constant(box_container_at)
    obj = pyapi.call_function_objargs(boxer, [pyapi.borrow_constant(typ), address])
    pyapi.decref(address)
    return obj


def is_reflected(typ: types.Type) -> bool:
    """Whether `typ` is a list or set that crosses as a copy, written back after the block. A
    list of lists (sets) cannot be rebuilt from Python (as when passed to a jitted function):
    what the block does to it stays in the block."""
    if not isinstance(typ, (types.List, types.Set)) or isinstance(typ, types.ListType):
        return False
    return is_container(typ) and not isinstance(typ.dtype, (types.List, types.Set))


def write_back_container(pyapi: Any, builder: llvm.IRBuilder, typ, value, obj) -> llvm.Value:
    """Give native container `value` the contents of the Python object `obj` it was boxed as;
    returns the helper's result (NULL with an exception set)."""
    meminfo = builder.extract_value(value, 0)
    address = pyapi.long_from_ulonglong(builder.ptrtoint(meminfo, llvm.IntType(64)))
    writer = pyapi.borrow_constant(refill_from_object)
    result = pyapi.call_function_objargs(writer, [pyapi.borrow_constant(typ), obj, address])
    pyapi.decref(address)
    return result


def unbox_container(pyapi: Any, builder: llvm.IRBuilder, typ: types.Type, obj) -> tuple:
    """(native container holding a new reference, i1 is_error) for the Python object `obj`."""
    unboxer = pyapi.borrow_constant(meminfo_of_object)
    address = pyapi.call_function_objargs(unboxer, [pyapi.borrow_constant(typ), obj])
    is_error = builder.icmp_unsigned("==", address, pyapi.get_null_object())
    slot = builder.alloca(llvm.IntType(64))
    builder.store(llvm.Constant(llvm.IntType(64), 0), slot)
    with builder.if_then(builder.not_(is_error)):
        builder.store(pyapi.long_as_ulonglong(address), slot)
        pyapi.decref(address)
    meminfo = builder.inttoptr(builder.load(slot), llvm.PointerType())
    value_type = pyapi.context.value_type(typ)
    return builder.insert_value(llvm.Constant(value_type, llvm.Undefined), meminfo, 0), is_error


def unbox_argument(pyapi: Any, builder: llvm.IRBuilder, typ: types.Type, obj) -> tuple:
    """(native container, i1 is_error, cleanup) for a call's argument `obj`: a typed List or
    Dict is lent; a Python list or set is copied, and the cleanup (emitted after the call)
    writes the callee's changes back into it, as the dispatcher's own path does."""
    value, is_error = unbox_container(pyapi, builder, typ, obj)
    meminfo = builder.extract_value(value, 0)

    def cleanup() -> None:
        with builder.if_then(builder.not_(is_error)):
            if isinstance(typ, types.ListType | types.DictType):
                nrt.emit_decref(builder, meminfo)
                return
            address = pyapi.long_from_ulonglong(builder.ptrtoint(meminfo, llvm.IntType(64)))
            writer = pyapi.borrow_constant(write_back_at)
            done = pyapi.call_function_objargs(writer, [pyapi.borrow_constant(typ), obj, address])
            pyapi.decref(address)
            pyapi.decref(done)  # NULL-safe; a failed write-back leaves its exception pending

    return value, is_error, cleanup


# ---------------------------------------------------------------------------- run time (Python)


def write_back_at(typ: types.List | types.Set, obj: Any, meminfo: int) -> None:
    """Give the Python list or set `obj` what its native copy holds now; releases the copy."""
    from ember.dispatcher.reflection import reflector

    reflector(typ).write_back(meminfo, obj)


def box_container_at(typ: types.Type, meminfo: int) -> Any:
    """The Python object of a native container (borrowed from compiled code). The reference
    the object takes is added here, not in the generated code: LLVM-level reference pruning
    would pair an incref there with the variable's decref and drop both, as it cannot see
    the reference handed over through an integer."""
    from ember.dispatcher.pycall import box_list
    from ember.runtime.nrt import runtime
    from ember.typed import accessors
    from ember.typed.typedlist import List

    runtime().incref(meminfo)  # the object's own reference, which boxing takes over

    if isinstance(typ, types.ListType):
        return List._from_meminfo(typ, meminfo)
    if isinstance(typ, types.List):
        return box_list(typ, meminfo, (), None)
    return accessors.box(typ, meminfo)  # a set: a Python set; a dict: a typed Dict


def meminfo_of_object(typ: types.Type, obj: Any) -> int:
    """A new reference to a native container of type `typ` holding what `obj` holds (the very
    native container of a typed List or Dict of that type)."""
    from ember.runtime.nrt import runtime

    shared = _typed_container_of(typ, obj)
    if shared is not None:
        runtime().incref(shared._meminfo)
        return shared._meminfo
    if isinstance(typ, types.DictType):
        raise TypeError(f"expected a typed Dict of type {typ}, got {_described(obj)}")
    if isinstance(typ, types.Set) and not isinstance(obj, (set, frozenset)):
        raise TypeError(f"expected a set for {typ}, got {_described(obj)}")
    if isinstance(typ, types.List) and not isinstance(obj, list):
        raise TypeError(f"expected a list for {typ}, got {_described(obj)}")
    from ember.dispatcher.reflection import reflector

    return reflector(typ).to_native(obj)


def refill_from_object(typ: types.Type, obj: Any, meminfo: int) -> None:
    """Make the native list (set) `meminfo` hold what `obj` holds: a new native container is
    built from `obj`, the two headers are exchanged and the new one (now holding the old
    contents) is released. The header is all a holder of the meminfo reads."""
    import ctypes

    from ember.lowering import dicts, lists
    from ember.runtime.nrt import data_address, runtime

    header = lists.HeaderMemory if isinstance(typ, types.List) else dicts.HeaderMemory
    fresh = meminfo_of_object(typ, obj)
    old, new = (header.from_address(data_address(m)) for m in (meminfo, fresh))
    saved = header.from_buffer_copy(old)
    ctypes.memmove(ctypes.addressof(old), ctypes.addressof(new), ctypes.sizeof(header))
    ctypes.memmove(ctypes.addressof(new), ctypes.addressof(saved), ctypes.sizeof(header))
    runtime().decref(fresh)


def _typed_container_of(typ: types.Type, obj: Any) -> Any:
    """`obj` when it is a typed List (Dict) of `typ`'s item types (an untyped empty one is
    given that type), else None."""
    from ember.typed.typeddict import Dict
    from ember.typed.typedlist import List

    if isinstance(typ, types.ListType) and isinstance(obj, List):
        if obj._list_type is None:
            obj._adopt_type(typ)
        return obj if obj._list_type.dtype == typ.dtype else None
    if isinstance(typ, types.DictType) and isinstance(obj, Dict):
        if obj._dict_type is None:
            obj._adopt_type(typ)
        same = (obj._dict_type.key_type, obj._dict_type.value_type) == (
            typ.key_type,
            typ.value_type,
        )
        return obj if same else None
    return None


def _described(obj: Any) -> str:
    return f"{obj!r:.60} (a {type(obj).__name__})"
