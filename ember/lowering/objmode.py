"""Typing and lowering of the calls that replace `with objmode(...)` blocks
(ember/frontend/objmode_blocks.py): typed IR call -> C-API code that boxes the inputs, calls the
block's Python function and unboxes its declared outputs.

    gil = PyGILState_Ensure()
    args = box(each input)                          arrays share memory with the ndarrays made
    result = PyObject_Call(run_block, args)         run_block checks the outputs' types
    outputs = unbox(result)                         an output array keeps its ndarray alive
    PyGILState_Release(gil)
    on error: the pending exception is kept for the Python-side entry, which raises it
"""

from __future__ import annotations

import ctypes
import functools
import itertools
from collections.abc import Callable
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.codegen.symbols import external_global
from ember.errors import UnsupportedError
from ember.frontend.objmode_blocks import ObjModeBlock
from ember.lowering import callconv
from ember.lowering.boxing import BoxContext
from ember.lowering.objmode_arrays import box_array, unbox_array
from ember.lowering.objmode_containers import (
    box_container,
    is_container,
    is_reflected,
    unbox_container,
    write_back_container,
)
from ember.lowering.pyapi import PythonAPI
from ember.lowering.registry import registry as lowering_registry
from ember.typing.signature import Signature
from ember.typing.templates import FunctionTemplate
from ember.typing.templates import registry as typing_registry

_keepalive: list = []  # Python objects that generated code points at, for the process lifetime


def register_blocks(blocks: list[ObjModeBlock], owner: Any) -> None:
    """Make calls of each block of the function `owner` typeable and lowerable (once per
    block)."""
    for index, block in enumerate(blocks):
        if block.lowering is not None:
            continue
        for name, typ in block.outputs.items():
            _check_marshallable(typ, f"output '{name}'", block)
        block.lowering = _BlockRunner(block, _runner_symbol(owner, index, block))
        template = type("ObjModeBlockTemplate", (_ObjModeTemplate,), {"key": block, "block": block})
        typing_registry.register_global(block, template)
        specs = [types.Type] * len(block.inputs)
        lowering_registry.lower(block, *specs)(_block_lowering(block))


def _check_marshallable(typ: types.Type, what: str, block: ObjModeBlock) -> None:
    if not _marshallable(typ):
        raise UnsupportedError(
            f"the objmode block's {what} has type {typ}, which cannot cross between compiled "
            "code and Python; pass numbers, booleans, None, strings, NumPy arrays, lists, sets, "
            "typed Lists and Dicts, tuples of them or types with @box and @unbox",
            block.loc,
        )


def _marshallable(typ: types.Type) -> bool:
    if isinstance(typ, types.BaseTuple):
        return all(_marshallable(member) for member in typ.types)
    if isinstance(typ, types.Array):
        return isinstance(typ.dtype, (types.Number, types.Boolean))
    if isinstance(typ, types.Optional):
        return _marshallable(typ.type)
    if isinstance(typ, (types.Number, types.Boolean, types.NoneType, *_SHARED_KINDS)):
        return True
    if is_container(typ):  # (objmode_containers.py)
        return True
    return bool(lowering_registry.find_box(typ) and lowering_registry.find_unbox(typ))


def _result_type(block: ObjModeBlock) -> types.Type:
    if not block.outputs:
        return types.none
    return types.make_tuple(list(block.outputs.values()))


class _ObjModeTemplate(FunctionTemplate):
    block: ObjModeBlock

    def apply(self, args: tuple, kws: dict) -> Signature | None:
        if kws or len(args) != len(self.block.inputs):
            return None
        args = tuple(map(types.widened, args))  # ('a' crosses as a str)
        for name, typ in zip(self.block.inputs, args):
            _check_marshallable(typ, f"input '{name}'", self.block)
        return Signature(_result_type(self.block), tuple(args))


# ---------------------------------------------------------------------------- run time (Python)

# Compiled code reaches a block's runner by the symbol `ember.objmode.<module>:<qualname>:<n>`
# (its function's n-th block), so that the disk cache can keep it: a new process finds the
# function by name and extracts its blocks again. A name given to another function of the same
# name earlier in this process gets `#k` appended: valid only here (not cached).
RUNNER_PREFIX = "ember.objmode."
_runner_owners: dict[str, ObjModeBlock] = {}


def _runner_symbol(owner: Any, index: int, block: ObjModeBlock) -> str:
    base = f"{RUNNER_PREFIX}{owner.__module__}:{owner.__qualname__}:{index}"
    symbol = base
    for suffix in itertools.count(1):
        holder = _runner_owners.setdefault(symbol, block)
        if holder is block:
            return symbol
        symbol = f"{base}#{suffix}"
    raise AssertionError("unreachable")


def runner_found_by_name(symbol: str, owner: Any = None) -> bool:
    """Whether a new process can rebuild the runner named `symbol`: by its function's module
    and name (publish_block_runner), or, for a block of `owner` (the Python function whose code
    is cached, whatever its name: one defined inside another function, or made again by a
    factory), from `owner` itself when its cached code is loaded (publish_own_runners)."""
    if owner is not None and symbol.startswith(_own_prefix(owner)):
        return True
    return "#" not in symbol and "<" not in symbol


def _own_prefix(owner: Any) -> str:
    return f"{RUNNER_PREFIX}{owner.__module__}:{owner.__qualname__}:"


def publish_own_runners(symbols: list[str], owner: Any) -> str | None:
    """Before cached code of `owner` is loaded: publish the runners of its own objmode blocks
    under the symbols the code names (`...:<n>` or `...:<n>#k`); why not, when another
    function of the same name holds one of them in this process (the code is compiled again)."""
    prefix = _own_prefix(owner)
    wanted = [name for name in symbols if name.startswith(prefix)]
    if not wanted:
        return None
    from ember.codegen.symbols import publish
    from ember.frontend.objmode_blocks import extract_objmode_blocks

    blocks = extract_objmode_blocks(owner)[1]
    register_blocks(blocks, owner)
    for name in wanted:
        index = int(name.removeprefix(prefix).split("#")[0])
        if index >= len(blocks):
            return f"its objmode runner {name} names a block the function does not have"
        block = blocks[index]
        if _runner_owners.setdefault(name, block) is not block:
            return f"its objmode runner {name} belongs to another function of that name here"
        publish(name, id(block.lowering))  # (the runner may be published under another name)
    return None


def publish_block_runner(symbol: str) -> None:
    """Publish the runner named `symbol` in this process: extract the blocks of the function
    it names (importing its module)."""
    from ember.codegen.symbols import _find_by_name
    from ember.frontend.objmode_blocks import extract_objmode_blocks

    module_name, qualname, _ = symbol.removeprefix(RUNNER_PREFIX).rsplit(":", 2)
    owner = _find_by_name(module_name, qualname)
    owner = getattr(owner, "py_func", owner)  # a jitted function: its Python function
    register_blocks(extract_objmode_blocks(owner)[1], owner)


class _BlockRunner:
    """Calls the block's function and checks what it produced against the declarations."""

    def __init__(self, block: ObjModeBlock, symbol: str) -> None:
        from ember.codegen.symbols import publish

        self.block = block
        self.symbol = symbol
        self.checks = [(name, typ, _checker(typ)) for name, typ in block.outputs.items()]
        _keepalive.append(self)
        publish(symbol, id(self))

    def __call__(self, *inputs: Any) -> tuple:
        produced = tuple(
            _truncated(declared, value)
            for (_, declared, _), value in zip(self.checks, self.block.py_func(*inputs))
        )
        for (name, declared, accepts), value in zip(self.checks, produced):
            if not accepts(value):
                raise TypeError(
                    f"objmode block at {self.block.loc}: output '{name}' was declared as "
                    f"{declared} but the block made it {_describe(value)}"
                )
        return produced


def _truncated(declared: types.Type, value: Any) -> Any:
    """A finite float given for a declared integer becomes an int by truncation, as a float
    passed to an integer parameter of an explicit signature does (and as Numba's objmode
    outputs do); anything else is left for the check."""
    import math
    import numbers

    if isinstance(declared, types.BaseTuple) and isinstance(value, tuple):
        if len(value) == len(declared.types):
            return tuple(_truncated(typ, item) for typ, item in zip(declared.types, value))
        return value
    is_float = isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)
    if isinstance(declared, types.Integer) and is_float and math.isfinite(value):
        return int(value)
    return value


def _describe(value: Any) -> str:
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        return f"a {type(value).__name__} of {dtype} with {len(shape)} dimension(s)"
    return f"{value!r} (a {type(value).__name__})"


def _checker(typ: types.Type) -> Callable[[Any], bool]:
    """A predicate: may a Python value be converted to `typ` without losing its meaning?"""
    import numbers

    import numpy as np

    if isinstance(typ, types.Boolean):
        return lambda v: isinstance(v, (bool, np.bool_))
    if isinstance(typ, types.Integer):
        low, high = typ.minval, typ.maxval
        return lambda v: isinstance(v, (int, np.integer)) and low <= v <= high
    if isinstance(typ, types.Float):
        return lambda v: isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
    if isinstance(typ, types.Complex):
        return lambda v: isinstance(v, numbers.Complex) and not isinstance(v, (bool, np.bool_))
    if isinstance(typ, types.NoneType):
        return lambda v: v is None
    if isinstance(typ, types.Optional):
        inner = _checker(typ.type)
        return lambda v: v is None or inner(v)
    if isinstance(typ, types.BaseTuple):
        members = [_checker(member) for member in typ.types]
        return lambda v: (
            isinstance(v, tuple)
            and len(v) == len(members)
            and all(check(item) for check, item in zip(members, v))
        )
    if isinstance(typ, types.Array):
        return _array_checker(typ)
    if isinstance(typ, _SHARED_KINDS):
        return lambda v: _shared_type_of(v) == typ
    return lambda v: True  # a type with @box/@unbox: its unboxer checks the value


def _array_checker(typ: types.Array) -> Callable[[Any], bool]:
    import numpy as np

    dtype = np.dtype("bool" if isinstance(typ.dtype, types.Boolean) else typ.dtype.name)
    contiguity = {"C": "C_CONTIGUOUS", "F": "F_CONTIGUOUS"}.get(typ.layout)

    def accepts(value: Any) -> bool:
        if not isinstance(value, np.ndarray) or value.ndim != typ.ndim or value.dtype != dtype:
            return False
        flags = value.flags
        if contiguity is not None and not flags[contiguity]:
            return False
        return typ.readonly or flags.writeable

    return accepts


def _box_array_at(typ: types.Array, address: int) -> Any:
    """The ndarray for the array value stored at `address` (a new reference; the value's own
    reference stays with compiled code)."""
    from ember.runtime import boxing
    from ember.runtime.nrt import runtime

    memory = boxing.memory_ctype(typ).from_address(address)
    parent = ctypes.cast(memory.parent, ctypes.py_object).value if memory.parent else None
    if parent is not None and _same_view(parent, memory):
        return parent
    if memory.meminfo:
        runtime().incref(memory.meminfo)  # boxing.box takes over one reference
    return boxing.box(typ, memory, () if parent is None else (parent,))


# Values that cross as the native object they share with Python: a jitclass instance or a
# structref (the block sees and changes the same object; containers: objmode_containers.py)
_SHARED_KINDS = (types.ClassInstanceType, types.StructRef)


def _shared_type_of(value: Any) -> types.Type | None:
    from ember.dispatcher.typeof import typeof

    try:
        return typeof(value)
    except (TypeError, ValueError):
        return None


def _box_shared_at(typ: types.Type, address: int) -> Any:
    """The Python object for the shared value stored at `address` (a new reference; the
    value's own reference stays with compiled code)."""
    from ember.dispatcher import pycall

    return pycall.box_kept(typ, pycall._memory_ctype(typ).from_address(address))


def _unbox_shared_into(typ: types.Type, value: Any, address: int) -> None:
    """Store the native value of `value` (checked by the block runner) at `address`, holding a
    new reference to its object."""
    from ember.dispatcher import pycall
    from ember.runtime.nrt import runtime

    fields: list = []
    pycall._flatten(typ, value, fields)
    memory = pycall._memory_ctype(typ).from_address(address)
    for (name, _), field in zip(memory._fields_, fields):
        setattr(memory, name, field)
    runtime().incref(memory.meminfo)


def _same_view(parent: Any, memory: Any) -> bool:
    from ember.runtime.boxing import data_address

    return (
        tuple(parent.shape) == tuple(memory.shape)
        and tuple(parent.strides) == tuple(memory.strides)
        and data_address(parent) == (memory.data or 0)
    )


# ---------------------------------------------------------------------------- lowering


def _block_lowering(block: ObjModeBlock) -> Callable:
    def lower_block_call(context, builder: llvm.IRBuilder, sig: Signature, args: list):
        return _lower_block_call(block, context, builder, sig, args)

    return lower_block_call


def _lower_block_call(block, context, builder: llvm.IRBuilder, sig: Signature, args: list):
    pyapi = PythonAPI(context, builder, _keepalive)
    c = BoxContext(context, builder, pyapi)
    null = pyapi.get_null_object()
    gil = pyapi.gil_ensure()
    boxed = [box_value(c, typ, value) for typ, value in zip(sig.args, args)]
    runner = external_global(builder.module, block.lowering.symbol)
    result = pyapi.call_function_objargs(runner, boxed)
    failed = builder.icmp_unsigned("==", result, null)
    with builder.if_then(failed, likely=False):
        _decref_all(pyapi, boxed)
        _raise_pending(pyapi, builder, gil)
    _write_back_inputs(c, sig.args, args, boxed, gil)
    _decref_all(pyapi, boxed)
    if not block.outputs:
        pyapi.decref(result)
        pyapi.gil_release(gil)
        return context.get_dummy_value(types.none)
    native_value, is_error = unbox_value(c, sig.return_type, result)
    pyapi.decref(result)
    with builder.if_then(is_error, likely=False):
        _raise_pending(pyapi, builder, gil)
    pyapi.gil_release(gil)
    return native_value


def _decref_all(pyapi: PythonAPI, objects: list) -> None:
    for obj in objects:
        pyapi.decref(obj)


def _write_back_inputs(c: BoxContext, arg_types, args: list, boxed: list, gil) -> None:
    """Lists and sets passed in as copies get what the block made of them (Python's
    semantics: the block changed the caller's list)."""
    for typ, value, obj in zip(arg_types, args, boxed):
        if not is_reflected(typ):
            continue
        done = write_back_container(c.pyapi, c.builder, typ, value, obj)
        failed = c.builder.icmp_unsigned("==", done, c.pyapi.get_null_object())
        with c.builder.if_then(failed, likely=False):
            _decref_all(c.pyapi, boxed)
            _raise_pending(c.pyapi, c.builder, gil)
        c.pyapi.decref(done)


def _raise_pending(pyapi: PythonAPI, builder: llvm.IRBuilder, gil: llvm.Value) -> None:
    """Move the pending Python exception to the Python-side entry and raise it from here."""
    exc = pyapi.err_fetch_exception()
    keeper = pyapi.borrow_constant(callconv.keep_python_exception)
    pyapi.decref(pyapi.call_function_objargs(keeper, [exc]))
    pyapi.decref(exc)
    pyapi.gil_release(gil)
    exc_id = callconv.static_exceptions.register(callconv.PythonExceptionRaised, ())
    callconv.return_exception(builder, builder.function, exc_id)


def box_value(c: BoxContext, typ: types.Type, value: llvm.Value) -> llvm.Value:
    """A new reference to the Python object for `value` (NULL with an exception set)."""
    if isinstance(typ, types.Array):
        return box_array(c.pyapi, typ, value, c.pyapi.borrow_constant(_box_array_at))
    if is_container(typ):
        return box_container(c.pyapi, c.builder, typ, value)
    if isinstance(typ, types.BaseTuple) and _marshalled_here(typ):
        members = [
            box_value(c, member, c.builder.extract_value(value, index))
            for index, member in enumerate(typ.types)
        ]
        packer = c.pyapi.borrow_constant(_pack)
        obj = c.pyapi.call_function_objargs(packer, members)
        for member in members:
            c.pyapi.decref(member)
        return obj
    if isinstance(typ, _SHARED_KINDS):
        helper = c.pyapi.borrow_constant(functools.partial(_box_shared_at, typ))
        return _call_with_address(c, helper, [], typ, value)
    return c.box(typ, value)


def _call_with_address(c: BoxContext, helper, objargs: list, typ, value=None) -> tuple:
    """Call `helper(*objargs, address)` where `address` holds a native value of `typ` (stored
    there first if `value` is given); returns the call's result, or with no `value`, the
    pair (result, the slot)."""
    slot = c.builder.alloca(c.context.value_type(typ))
    if value is not None:
        c.builder.store(value, slot)
    address = c.pyapi.long_from_voidptr(slot)
    result = c.pyapi.call_function_objargs(helper, [*objargs, address])
    c.pyapi.decref(address)
    return result if value is not None else (result, slot)


def _pack(*items: Any) -> tuple:
    return items


def _marshalled_here(typ: types.Type) -> bool:
    """Whether `typ` is or holds a value marshalled here rather than by a @box/@unbox."""
    if isinstance(typ, types.BaseTuple):
        return any(_marshalled_here(member) for member in typ.types)
    return isinstance(typ, (types.Array, *_SHARED_KINDS)) or is_container(typ)


def unbox_value(c: BoxContext, typ: types.Type, obj: llvm.Value) -> tuple:
    """(native value, i1 is_error) for the Python object `obj` (borrowed); the value's
    references are new ones."""
    builder = c.builder
    if isinstance(typ, types.Array):
        return unbox_array(c.pyapi, typ, obj)
    if is_container(typ):
        return unbox_container(c.pyapi, builder, typ, obj)
    if isinstance(typ, types.BaseTuple) and _marshalled_here(typ):
        value = llvm.Constant(c.context.value_type(typ), llvm.Undefined)
        is_error = llvm.Constant(llvm.IntType(1), 0)
        for index, member in enumerate(typ.types):
            item, item_error = unbox_value(c, member, c.pyapi.tuple_getitem(obj, index))
            value = builder.insert_value(value, item, index)
            is_error = builder.or_(is_error, item_error)
        return value, is_error
    if isinstance(typ, _SHARED_KINDS):
        helper = c.pyapi.borrow_constant(functools.partial(_unbox_shared_into, typ))
        result, slot = _call_with_address(c, helper, [obj], typ)
        is_error = builder.icmp_unsigned("==", result, c.pyapi.get_null_object())
        with builder.if_then(builder.not_(is_error)):
            c.pyapi.decref(result)
        return builder.load(slot), is_error
    native = c.unbox(typ, obj)
    is_error = native.is_error if native.is_error is not None else llvm.Constant(llvm.IntType(1), 0)
    return native.value, is_error
