"""Generators returned to Python: an iterator object whose `__next__` resumes the compiled body
(ember/lowering/generators.py). Items that are numbers go through a small generated builtin
(resume, box, StopIteration), which is also the type's `next()` slot: no Python code per item;
other items through ctypes, boxed as the ctypes call path boxes results."""

from __future__ import annotations

import ctypes
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.dispatcher.object_layout import _capi_address, _FunctionPointer
from ember.errors import UnsupportedError
from ember.lowering.callconv import (
    EXCINFO_TYPE,
    STATUS_EXCEPTION,
    STATUS_OK,
    ExcInfoRecord,
    raise_static_exception,
)
from ember.lowering.generators import (
    CLOSE,
    RELEASE,
    RESUME_TYPE,
    STATUS_STOP,
    compiled_container_reader,
    compiled_result_reader,
    compiled_resume,
    reflected_arguments,
)
from ember.runtime import nrt

_RESUME_PROTOTYPE = ctypes.CFUNCTYPE(
    ctypes.c_int32,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_int8,
)
_resumers: dict[types.Generator, Any] = {}


def _resumer(gen_type: types.Generator) -> Any:
    found = _resumers.get(gen_type)
    if found is None:
        library, symbol = compiled_resume(gen_type)
        found = _resumers[gen_type] = _RESUME_PROTOTYPE(library.address_of(symbol))
    return found


def _raise_compiled(exc_id: int, payload: int) -> None:
    """Raise the exception the generator's body raised (id and payload from its record)."""
    record = ExcInfoRecord(exc_id, payload)
    raise_static_exception(ctypes.addressof(record))


def _steps(gen_type: types.Generator, inputs: tuple, write_back: Any = None) -> Any:
    """`step(state address)`: the next item, or StopIteration, or the body's exception."""
    found = _native_steps.get(gen_type)
    return found[0] if found is not None else _ctypes_step(gen_type, inputs, write_back)


def _generator_class(gen_type: types.Generator) -> type:
    """The class of the generator's Python objects: for items that are numbers, one whose
    `next()` is generated code (`for v in gen(...)` runs no Python frame per item)."""
    if (
        gen_type in _native_steps
        or _native_boxer(gen_type.yield_type) is None
        or gen_type.return_type is not types.none  # (StopIteration carries it: ctypes path)
    ):
        return _native_steps.get(gen_type, (None, CompiledGenerator))[1]
    from ember.dispatcher.call_slots import install_iternext

    step, iternext = _build_native_step(gen_type)
    cls = type(CompiledGenerator.__name__, (CompiledGenerator,), {"__slots__": ()})
    if not install_iternext(cls, iternext):
        cls = CompiledGenerator
    _native_steps[gen_type] = (step, cls)
    return cls


def _ctypes_step(gen_type: types.Generator, inputs: tuple, write_back: Any = None) -> Any:
    from ember.dispatcher.pycall import _box, _memory_ctype

    resume = _resumer(gen_type)
    item_type = gen_type.yield_type
    item = _holder(_memory_ctype(item_type))
    excinfo = ExcInfoRecord()
    addresses = (ctypes.addressof(item), ctypes.addressof(excinfo))
    returned = _returned_value_reader(gen_type, inputs)

    def step(state: int) -> Any:
        status = resume(*addresses, None, state, 0)
        if status == STATUS_OK:
            return _box(item_type, item.v, inputs)
        if write_back is not None:  # (once it ended: a write-back per item would be O(n))
            write_back()
        if status == STATUS_STOP:
            raise StopIteration(*returned(state))
        _raise_compiled(excinfo.exc_id, excinfo.payload or 0)

    return step


def _memory_ctype_of(typ: types.Type) -> Any:
    from ember.dispatcher.pycall import _memory_ctype

    return _memory_ctype(typ)


def _holder(ctype: Any) -> Any:
    """Memory for one value whose field `v` reads as Python values (numbers as int/float)."""
    return type("holder", (ctypes.Structure,), {"_fields_": [("v", ctype)]})()


def _reflection(gen_type: types.Generator, inputs: tuple, state: int) -> Any:
    """`write_back()`: the Python lists and sets passed to the generator at `state` take what
    its body did to them (as after a call); None when it was given none. It holds a reference to
    each native container: they outlive the generator's end, which releases its arguments."""
    from ember.dispatcher.reflection import reflector

    passed = [
        (index, reflector(gen_type.arg_types[index]))
        for index in reflected_arguments(gen_type)
        if index < len(inputs) and type(inputs[index]) in (list, set)
    ]
    if not passed:
        return None
    library, symbol = compiled_container_reader(gen_type)
    container = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32)(
        library.address_of(symbol)
    )
    held = _HeldContainers()
    for index, passing in passed:
        meminfo = container(state, index)
        nrt.runtime().incref(meminfo)
        held.append((inputs[index], passing, meminfo))

    def write_back() -> None:
        for python_object, passing, meminfo in held:
            nrt.runtime().incref(meminfo)  # write_back takes over one reference
            passing.write_back(meminfo, python_object)

    return write_back


class _HeldContainers(list):
    """(Python object, reflector, meminfo) of a generator's reflected arguments; releases
    its references to the native containers when the generator object goes."""

    def __del__(self) -> None:
        for _, _, meminfo in self:
            nrt.runtime().decref(meminfo)


def _returned_value_reader(gen_type: types.Generator, inputs: tuple) -> Any:
    """`read(state)`: () or (the value the ended generator returned,) for StopIteration."""
    from ember.dispatcher.pycall import _box, _memory_ctype

    return_type = gen_type.return_type
    if return_type is types.none:
        return lambda state: ()
    library, symbol = compiled_result_reader(gen_type)
    reader = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(library.address_of(symbol))
    value_ctype = _memory_ctype(return_type)

    def read(state: int) -> tuple:
        holder = _holder(value_ctype)
        reader(ctypes.addressof(holder), state)
        return (_box(return_type, holder.v, inputs),)

    return read


# ---------------------------------------------------------------------------- generated steps

_native_steps: dict[types.Generator, tuple] = {}  # generator type -> (step, class)
_METH_O = 0x0008
_OBJECT = llvm.PointerType()
_i32, _i64 = llvm.IntType(32), llvm.IntType(64)


def _native_boxer(item_type: types.Type) -> tuple | None:
    """(C-API function, its argument type, how to widen the item) for a number, or None."""
    if isinstance(item_type, types.Boolean):
        return "PyBool_FromLong", _i64, "zext"
    if isinstance(item_type, types.Integer):
        if item_type.signed:
            return "PyLong_FromLongLong", _i64, "sext"
        return "PyLong_FromUnsignedLongLong", _i64, "zext"
    if isinstance(item_type, types.Float):
        return "PyFloat_FromDouble", llvm.DoubleType(), "fpext"
    return None


def _capi(name: str, result: llvm.Type, *args: llvm.Type) -> _FunctionPointer:
    return _FunctionPointer(llvm.FunctionType(result, list(args)), _capi_address(name))


def _build_native_step(gen_type: types.Generator) -> Any:
    """A builtin `step(state)` (METH_O): resume the generator once and box the item."""
    from ember.dispatcher.native_entry import default_jit, make_pycfunction
    from ember.lowering.models import model_of

    library, symbol = compiled_resume(gen_type)
    module = llvm.Module(name=f"{symbol}.step")
    function = llvm.Function(module, llvm.FunctionType(_OBJECT, [_OBJECT, _OBJECT]), "step")
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    item_model = model_of(gen_type.yield_type)
    item = builder.alloca(item_model.data_type)
    exc_id = builder.alloca(EXCINFO_TYPE)
    state = builder.call(_capi("PyLong_AsVoidPtr", _OBJECT, _OBJECT), [function.args[1]])
    resume = _FunctionPointer(RESUME_TYPE, library.address_of(symbol))
    null = llvm.Constant(_OBJECT, None)
    status = builder.call(resume, [item, exc_id, null, state, llvm.Constant(llvm.IntType(8), 0)])
    yielded = builder.icmp_signed("==", status, llvm.Constant(_i32, STATUS_OK))
    with builder.if_then(yielded, likely=True):
        name, arg_type, widen = _native_boxer(gen_type.yield_type)
        value = item_model.from_data(builder, builder.load(item, typ=item_model.data_type))
        if value.type != arg_type:
            value = getattr(builder, widen)(value, arg_type)
        builder.ret(builder.call(_capi(name, _OBJECT, arg_type), [value]))
    raised = builder.icmp_signed("==", status, llvm.Constant(_i32, STATUS_EXCEPTION))
    with builder.if_then(raised, likely=False):
        record = builder.load(exc_id, typ=EXCINFO_TYPE)
        exc_object = builder.call(_capi("PyTuple_New", _OBJECT, _i64), [llvm.Constant(_i64, 2)])
        set_item = _capi("PyTuple_SetItem", _i32, _OBJECT, _i64, _OBJECT)
        from_long = _capi("PyLong_FromLongLong", _OBJECT, _i64)
        exc_number = builder.sext(builder.extract_value(record, 0), _i64)
        payload = builder.ptrtoint(builder.extract_value(record, 1), _i64)
        for index, part in enumerate((exc_number, payload)):  # SetItem takes the reference
            item_object = builder.call(from_long, [part])
            builder.call(set_item, [exc_object, llvm.Constant(_i64, index), item_object])
        call = _capi("PyObject_Call", _OBJECT, _OBJECT, _OBJECT, _OBJECT)
        builder.call(call, [_object_address(_raise_compiled), exc_object, null])  # (it raises)
        builder.call(_capi("Py_DecRef", llvm.VoidType(), _OBJECT), [exc_object])
        builder.ret(null)
    stop = ctypes.c_void_p.in_dll(ctypes.pythonapi, "PyExc_StopIteration").value
    set_none = _capi("PyErr_SetNone", llvm.VoidType(), _OBJECT)
    builder.call(set_none, [llvm.Constant(_i64, stop).inttoptr(_OBJECT)])
    builder.ret(null)
    _emit_iternext(module, function)
    lookup = default_jit().add_module(str(module))
    step = make_pycfunction(lookup("step"), "step", [lookup, library], flags=_METH_O)
    return step, lookup("iternext")


def _emit_iternext(module: llvm.Module, step: llvm.Function) -> None:
    """`PyObject *iternext(PyObject *self)`: the step of the generator object's state."""
    function = llvm.Function(module, llvm.FunctionType(_OBJECT, [_OBJECT]), "iternext")
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    offset = llvm.Constant(_i64, _state_slot_offset())
    slot = builder.gep(function.args[0], [offset], source_etype=llvm.IntType(8))
    state = builder.load(slot, typ=_OBJECT)
    builder.ret(builder.call(step, [llvm.Constant(_OBJECT, None), state]))


def _state_slot_offset() -> int:
    """Where a generator object holds its state address (read from a probe object)."""
    from ember.dispatcher.call_slots import slot_offset

    probe = CompiledGenerator.__new__(CompiledGenerator)
    probe._meminfo = 0  # (owns no state: nothing to release when dropped)
    probe._state = object()
    offset = slot_offset(probe, "_state")
    if offset is None:
        raise RuntimeError("cannot find the state slot of ember's generator objects")
    return offset


def _object_address(obj: object) -> llvm.Constant:
    return llvm.Constant(_i64, id(obj)).inttoptr(_OBJECT)  # obj lives as long as this module


class CompiledGenerator:
    """A running jitted generator (Numba's generator object): iterate it, or call `next()`.

    It owns the runtime block of the generator's state; dropping it closes the generator and
    releases whatever the suspended body held. `inputs` (the call's arguments) stay alive as
    long as the generator, since the state may borrow their arrays. Python lists and sets it
    was given take what the body did to them when it ends (items through the ctypes step),
    is closed, or is dropped: not after each item, which would cost O(len) per item.
    """

    __slots__ = ("_gen_type", "_meminfo", "_state", "_step", "_inputs", "_write_back")

    def __init__(self, gen_type: types.Generator, meminfo: int, inputs: tuple) -> None:
        self._gen_type = gen_type
        self._meminfo = meminfo  # the reference the compiled function returned
        self._state = nrt.data_address(meminfo)
        self._write_back = _reflection(gen_type, inputs, self._state)
        self._step = _steps(gen_type, inputs, self._write_back)
        self._inputs = inputs

    def __iter__(self) -> CompiledGenerator:
        return self

    def __next__(self) -> Any:
        return self._step(self._state)

    def close(self) -> None:
        """End the generator now, as Python's: suspended inside a `try`, it resumes raising
        GeneratorExit (its `finally` runs); then it releases what its body holds."""
        item = _holder(_memory_ctype_of(self._gen_type.yield_type))
        excinfo = ExcInfoRecord()
        resume = _resumer(self._gen_type)
        addresses = (ctypes.addressof(item), ctypes.addressof(excinfo), None, self._state)
        status = resume(*addresses, CLOSE)
        if self._write_back is not None:
            self._write_back()
        if status == STATUS_OK:  # it yielded again: release it
            resume(*addresses, RELEASE)
            raise RuntimeError("generator ignored GeneratorExit")
        if status == STATUS_EXCEPTION:
            try:
                _raise_compiled(excinfo.exc_id, excinfo.payload or 0)
            except GeneratorExit:
                pass

    def send(self, value: Any) -> Any:
        from ember.library.objects.generators import UNSUPPORTED_METHODS

        raise UnsupportedError(UNSUPPORTED_METHODS["send"])

    def throw(self, *args: Any) -> Any:
        from ember.library.objects.generators import UNSUPPORTED_METHODS

        raise UnsupportedError(UNSUPPORTED_METHODS["throw"])

    def __del__(self) -> None:
        meminfo, self._meminfo = self._meminfo, 0
        if meminfo:
            nrt.runtime().decref(meminfo)  # (the last reference: closes it)
            if self._write_back is not None:
                self._write_back()

    def __repr__(self) -> str:
        return f"<ember generator object {self._gen_type.gen_func.__qualname__}>"


def box_generator(gen_type: types.Generator, memory: Any, inputs: tuple) -> CompiledGenerator:
    """The Python object of a generator a compiled function returned (takes its reference)."""
    return _generator_class(gen_type)(gen_type, memory.meminfo, inputs)


_native_boxers: dict[types.Generator, Any] = {}


def native_boxer(gen_type: types.Generator) -> Any:
    """`box(meminfo, *arguments)`, which the native call entry calls with a generator's state
    block and the call's arguments (kept alive by the generator object)."""
    found = _native_boxers.get(gen_type)
    if found is None:

        def box(meminfo: int, *inputs: Any) -> CompiledGenerator:
            return _generator_class(gen_type)(gen_type, meminfo, inputs)

        found = _native_boxers[gen_type] = box
    return found
