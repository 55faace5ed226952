"""Boxing and unboxing between Python objects and native values (seed 004's `@box`/`@unbox`).

`@unbox(MyType) def unbox_my(typ, obj, c)` turns a borrowed `PyObject*` into a `NativeValue`;
`@box(MyType) def box_my(typ, val, c)` turns a native value into a new reference (NULL with a
Python exception set on failure). `c` carries `context`, `builder`, `pyapi` (C-API calls under
Numba's names, see pyapi.py) and `box`/`unbox` for nested values.

Where they run: a call from Python whose signature involves a type with a registered unboxer or
boxer (other than ember's numbers, booleans, None and tuples, which the dispatcher handles itself)
goes through a native *wrapper* generated here, once per specialization:

    PyObject *wrapper(PyObject *args_tuple)
        unbox each argument with its @unbox          (error -> return NULL)
        call the specialization (native convention)  (exception id -> raise it, return NULL)
        box the result with its @box

The dispatcher's Python path calls the wrapper through ctypes (`make_boxing_invoker`); the
generated fast entry does not know user types, so such calls always take that path.
"""

from __future__ import annotations

import ctypes
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.lowering import arrays as refs
from ember.lowering import callconv, typed_pointers
from ember.lowering.models import model_of
from ember.lowering.objmode_containers import box_container, is_container, unbox_argument
from ember.lowering.pyapi import PythonAPI, _FunctionPointer
from ember.lowering.registry import registry
from ember.typing.signature import Signature

_PTR = llvm.PointerType()
_I32 = llvm.IntType(32)


@dataclass
class NativeValue:
    """What an unboxer returns: the native `value`, an optional i1 `is_error` (a Python
    exception is then pending) and an optional `cleanup()` emitted after the call."""

    value: llvm.Value
    is_error: llvm.Value | None = None
    cleanup: Callable[[], None] | None = None


class BoxContext:
    """The `c` argument of box and unbox implementations."""

    def __init__(self, context: Any, builder: llvm.IRBuilder, pyapi: PythonAPI) -> None:
        self.context = context
        self.builder = builder
        self.pyapi = pyapi
        # Numba's environment of the boxed values: ember needs none; extension code passes
        # it on to `pyapi.from_native_value(typ, value, c.env_manager)`
        self.env_manager = None
        # the wrapper's tuple of Python arguments (borrowed), None outside a wrapper: boxing
        # an array that lies in an extension's argument keeps that argument alive
        self.arguments: llvm.Value | None = None

    def box(self, typ: types.Type, value: llvm.Value) -> llvm.Value:
        impl = registry.find_box(typ)
        if impl is None and is_container(typ):  # as the dispatcher boxes it
            return box_container(self.pyapi, self.builder, typ, value)
        if impl is None:
            raise TypeError(f"cannot convert native {typ} to Python object: no @box for it")
        return impl(typ, value, self)

    def unbox(self, typ: types.Type, obj: llvm.Value) -> NativeValue:
        impl = registry.find_unbox(typ)
        if impl is None and is_container(typ):  # lent, or copied and written back
            return NativeValue(*unbox_argument(self.pyapi, self.builder, typ, obj))
        if impl is None:
            raise TypeError(f"can't unbox {typ} type: no @unbox for it")
        native = impl(typ, obj, self)
        if not isinstance(native, NativeValue):
            raise TypeError(f"the @unbox of {typ} returned {native!r}, not a NativeValue")
        return native


# ------------------------------------------------------------------ which calls need a wrapper

_DISPATCHER_KINDS = (
    types.Boolean,
    types.Integer,  # ember's own number kinds: an extension's Number subclass has its @unbox
    types.Float,
    types.Complex,
    types.NoneType,
    types.UnicodeType,
    types.BytesType,  # the dispatcher's path marshals bytes (and any result with them)
    types.Array,
)
# A jitted function passed in is a Dummy argument: the dispatcher's own path passes nothing.
_ARGUMENT_KINDS = (*_DISPATCHER_KINDS, types.DispatcherType, types.SliceType)


def _user_boxed(typ: types.Type, find: Callable, handled: tuple = _DISPATCHER_KINDS) -> bool:
    """Whether `typ` (or a tuple member) is a type the dispatcher cannot marshal itself but a
    registered box/unbox can."""
    if isinstance(typ, types.BaseTuple):
        return any(_user_boxed(member, find, handled) for member in typ.types)
    if isinstance(typ, types.Optional):
        return _user_boxed(typ.type, find, handled)
    if isinstance(typ, handled):
        return False
    return find(typ) is not None


def compile_time_only(typ: types.Type) -> bool:
    """Values of `typ` exist only while compiling (a module, a function): no Python value."""
    if isinstance(typ, types.BaseTuple):
        return any(compile_time_only(member) for member in typ.types)
    if not isinstance(typ, types.Dummy) or isinstance(typ, types.DispatcherType | types.DType):
        return False
    return registry.find_box(typ) is None  # an extension's @box gives it a Python value


def needs_boxing(sig: Signature) -> bool:
    """Whether calls of `sig` from Python must go through a generated boxing wrapper."""
    unboxed = any(_user_boxed(arg, registry.find_unbox, _ARGUMENT_KINDS) for arg in sig.args)
    return unboxed or _user_boxed(sig.return_type, registry.find_box)


# ------------------------------------------------------------------ the wrapper

_serial = itertools.count()


def build_wrapper(sig: Signature, address: int, keepalive: list) -> tuple[llvm.Module, str]:
    """An LLVM module defining `PyObject *<symbol>(PyObject *args_tuple)` (see module doc)."""
    from ember.codegen.jit import engine
    from ember.lowering.context import CPUContext

    jit = engine()
    symbol = f"ember.boxing_wrapper.{next(_serial)}"
    module = llvm.Module(name=symbol)
    module.triple = jit.triple
    module.data_layout = jit.data_layout
    function = llvm.Function(module, llvm.FunctionType(_PTR, [_PTR]), symbol)
    builder = typed_pointers.IRBuilder(function.append_basic_block("entry"))
    pyapi = PythonAPI(CPUContext(), builder, keepalive)
    c = BoxContext(pyapi.context, builder, pyapi)
    c.arguments = function.args[0]
    fail = function.append_basic_block("fail")

    values, cleanups = [], []
    for index, arg_type in enumerate(sig.args):
        obj = pyapi.tuple_getitem(function.args[0], index)
        native = c.unbox(arg_type, obj)
        values.append(native.value)
        if native.cleanup is not None:
            cleanups.append(native.cleanup)
        if native.is_error is not None:
            unboxed = function.append_basic_block(f"arg{index}.ok")
            builder.cbranch(native.is_error, fail, unboxed)
            builder.position_at_end(unboxed)

    status, excinfo, result = _call_native(builder, sig, address, values)
    for cleanup in cleanups:
        cleanup()
    raised = builder.icmp_signed("!=", status, _I32(callconv.STATUS_OK))
    with builder.if_then(raised, likely=False):
        # Build the exception from its record in Python (callconv.raise_static_exception).
        id_obj = pyapi.long_from_longlong(builder.ptrtoint(excinfo, pyapi.longlong))
        raiser = pyapi.borrow_constant(callconv.raise_static_exception)
        pyapi.decref(pyapi.call_function_objargs(raiser, [id_obj]))
        pyapi.decref(id_obj)
        builder.ret(pyapi.get_null_object())
    boxed = c.box(sig.return_type, result)
    _require_pending_error_on_null(pyapi, boxed, f"the @box of {sig.return_type}")
    refs.decref(builder, sig.return_type, result)  # boxing copied what it needed
    builder.ret(boxed)

    builder.position_at_end(fail)
    pending = builder.icmp_unsigned("!=", pyapi.err_occurred(), pyapi.get_null_object())
    with builder.if_then(builder.not_(pending)):
        pyapi.err_set_string(TypeError, f"cannot convert the arguments to {sig}")
    builder.ret(pyapi.get_null_object())
    return module, symbol


_item_boxers: dict = {}


def extension_boxed(typ: types.Type) -> bool:
    """Whether values of `typ` cross between Python and compiled code only through an
    extension's registered @box and @unbox (not one of the types ember marshals itself)."""
    if isinstance(typ, (*_ARGUMENT_KINDS, types.BaseTuple, types.Optional)):
        return False
    return registry.find_unbox(typ) is not None and registry.find_box(typ) is not None


def user_boxed_item(typ: types.Type) -> bool:
    """Whether items of `typ` stored in a container need a registered @box (a list of an
    extension's type, or of tuples holding one)."""
    return _user_boxed(typ, registry.find_box)


def item_boxer(typ: types.Type) -> Callable[[int, int], Any]:
    """`box(items_address, index)`: the Python object of item `index` of a native array of
    `typ` values (a list's storage), through the type's @box; the item keeps its reference."""
    found = _item_boxers.get(typ)
    if found is None:
        found = _item_boxers[typ] = _compile_item_boxer(typ)
    return found


def _compile_item_boxer(typ: types.Type) -> Callable[[int, int], Any]:
    from ember.codegen.jit import engine
    from ember.lowering.context import CPUContext

    jit = engine()
    symbol = f"ember.item_boxer.{next(_serial)}"
    module = llvm.Module(name=symbol)
    module.triple = jit.triple
    module.data_layout = jit.data_layout
    i64 = llvm.IntType(64)
    function = llvm.Function(module, llvm.FunctionType(_PTR, [_PTR, i64]), symbol)
    builder = typed_pointers.IRBuilder(function.append_basic_block("entry"))
    keepalive: list = []
    pyapi = PythonAPI(CPUContext(), builder, keepalive)
    model = model_of(typ)
    items, index = function.args
    pointer = builder.gep(items, [index], inbounds=True, source_etype=model.data_type)
    value = model.from_data(builder, builder.load(pointer, typ=model.data_type))
    boxed = BoxContext(pyapi.context, builder, pyapi).box(typ, value)
    _require_pending_error_on_null(pyapi, boxed, f"the @box of {typ}")
    builder.ret(boxed)
    compiled = jit.parse(str(module))
    compiled.verify()
    jit.optimize(compiled)
    jit.add_module(compiled)
    native = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_int64)
    boxer = native(jit.address_of(symbol))
    boxer.keepalive = keepalive  # objects the code points at
    return boxer


def _require_pending_error_on_null(pyapi: PythonAPI, obj: llvm.Value, what: str) -> None:
    """A NULL result must come with a Python exception; set SystemError naming `what` if a
    faulty box forgot to (returning NULL silently would crash the interpreter)."""
    builder = pyapi.builder
    silent = builder.and_(
        builder.icmp_unsigned("==", obj, pyapi.get_null_object()),
        builder.icmp_unsigned("==", pyapi.err_occurred(), pyapi.get_null_object()),
    )
    with builder.if_then(silent, likely=False):
        pyapi.err_set_string(SystemError, f"{what} returned NULL without setting an exception")


def _call_native(builder, sig: Signature, address: int, values: list) -> tuple:
    """Call the specialization at `address`: (status i32, excinfo record pointer, result)."""
    callee = _FunctionPointer(callconv.function_type(sig), address)
    return_model = model_of(sig.return_type)
    retptr = callconv.alloca_in_entry(builder, return_model.data_type, "retptr")
    excinfo = callconv.alloca_in_entry(builder, callconv.EXCINFO_TYPE, "excinfo")
    builder.store(llvm.Constant(callconv.EXCINFO_TYPE, None), excinfo)
    flat = []
    for arg_type, value in zip(sig.args, values):
        flat.extend(model_of(arg_type).as_arguments(builder, value))
    status = builder.call(callee, [retptr, excinfo, llvm.Constant(_PTR, None), *flat])
    result = return_model.from_data(builder, builder.load(retptr, typ=return_model.data_type))
    return status, excinfo, result


def make_boxing_invoker(sig: Signature, address: int) -> Callable[..., Any]:
    """A Python callable running the specialization at `address` through a boxing wrapper."""
    from ember.codegen.jit import engine

    keepalive: list = []
    module, symbol = build_wrapper(sig, address, keepalive)
    jit = engine()
    compiled = jit.parse(str(module))
    compiled.verify()
    jit.optimize(compiled)
    jit.add_module(compiled)
    native = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object)(jit.address_of(symbol))

    def invoke(*values: Any) -> Any:
        return native(values)

    invoke.keepalive = keepalive  # objects the wrapper's code points at
    return invoke
