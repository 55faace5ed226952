"""First-class functions (`types.FunctionType(sig)`): a C function address passed as a value
and called from compiled code. A `@cfunc` is one already; a jitted function gets a C entry
for the signature (as `@cfunc` builds) when it is passed where a FunctionType is declared,
from Python (unboxing) or from compiled code (a cast to a constant address).

An exception raised in a @cfunc is reported as unraisable (it returns zero), as in C. One
raised in a jitted function called this way reaches the caller, as Numba's does: its C entry
holds the exception for this thread and counts it in `ember.first_class.failures`; each call
site reads the count after the call and, when it is not zero, takes the exception and
raises it.
"""

from __future__ import annotations

import ctypes
import functools
import threading
import weakref
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.codegen.symbols import external_global, publish
from ember.lowering import callconv
from ember.lowering.boxing import NativeValue
from ember.lowering.models import OpaqueModel, register_model
from ember.lowering.registry import box, lower_cast, lower_constant, unbox
from ember.typing.signature import Signature

register_model(types.FunctionType)(OpaqueModel)

_c_entries: dict[tuple, Any] = {}  # (dispatcher, return type, args) -> its CFunc-like entry
# address -> the Python object it was made from, so that a function value returned to Python
# is that object again (as Numba's keeps it beside the address)
_objects_by_address: dict[int, Any] = {}


def c_entry_address(function: Any, sig: Signature) -> int:
    """The address of a C function with signature `sig` running `function` (see
    `_entry_address`), remembered so that boxing the address gives `function` back."""
    address = _entry_address(function, sig)
    _objects_by_address.setdefault(address, function)
    return address


def function_at(address: int) -> Any:
    """The Python object a first-class function value was made from."""
    found = _objects_by_address.get(address)
    if isinstance(found, weakref.ref):  # a C function object, which may have been freed
        found = found()
    if found is None:
        raise MemoryError(f"first-class function at {address:#x}: parent object not set")
    return found


def _entry_address(function: Any, sig: Signature) -> int:
    """The address of a C function with signature `sig` running `function`: a @cfunc of that
    signature, a jitted function (compiled for it), a ctypes function pointer, or an object
    with Numba's `__wrapper_address__()`."""
    from ember.dispatcher.cfunc import CFunc
    from ember.dispatcher.dispatcher import Dispatcher

    if isinstance(function, CFunc):
        if (function._signature.return_type, function._signature.args) != (
            sig.return_type,
            tuple(sig.args),
        ):
            raise TypeError(
                f"@cfunc {function.__name__} has signature {function._signature}, not {sig}"
            )
        return function.address
    if isinstance(function, Dispatcher):
        return _jitted_entry(function, sig).address
    if isinstance(function, ctypes._CFuncPtr):
        return ctypes.cast(function, ctypes.c_void_p).value
    from ember.library.interop import cffi_functions

    if cffi_functions.is_cffi_func(function):
        return cffi_functions.get_pointer(function)
    wrapper_address = getattr(function, "__wrapper_address__", None)
    if wrapper_address is not None:
        address = wrapper_address()
        if not isinstance(address, int) or address <= 0:  # calling it would crash the process
            raise ValueError(
                f"wrapper address of {function!r} instance must be a positive integer but "
                f"received {address!r}"
            )
        return address
    raise TypeError(
        f"cannot pass a {type(function).__name__} as {types.FunctionType(sig)}: pass a "
        "@cfunc, a jitted function, a ctypes function pointer or a cffi function"
    )


def _jitted_entry(dispatcher: Any, sig: Signature) -> Any:
    """A C entry (built as @cfunc builds one) for the dispatcher's specialization of `sig`."""
    from ember.dispatcher.cfunc import CFunc

    key = (dispatcher, sig.return_type, tuple(sig.args))
    found = _c_entries.get(key)
    if found is None:
        found = _c_entries[key] = CFunc(
            dispatcher.py_func, sig, {}, dispatcher=dispatcher, propagate=True
        )
    return found


@unbox(types.FunctionType)
def _unbox_function(typ: types.FunctionType, obj: llvm.Value, c: Any) -> NativeValue:
    """Any object `c_entry_address` accepts, through a Python call giving its address."""
    pyapi = c.pyapi
    helper = pyapi.borrow_constant(_address_reader(typ))
    address = pyapi.call_function_objargs(helper, [obj])
    failed = c.builder.icmp_unsigned("==", address, pyapi.get_null_object())
    pointer = c.builder.alloca(llvm.PointerType())
    c.builder.store(llvm.Constant(llvm.PointerType(), None), pointer)
    with c.builder.if_then(c.builder.not_(failed)):
        c.builder.store(pyapi.long_as_voidptr(address), pointer)
        pyapi.decref(address)
    return NativeValue(c.builder.load(pointer), is_error=failed)


def _address_reader(typ: types.FunctionType) -> Any:
    """obj -> its address: an ExternalFunctionPointer's own `get_pointer` (an extension's
    typeof may give its objects that type), else `c_entry_address`."""
    if isinstance(typ, types.ExternalFunctionPointer):
        return functools.partial(_external_address, typ.get_pointer)
    return functools.partial(c_entry_address, sig=typ.signature)


def _external_address(get_pointer: Any, function: Any) -> int:
    """The address `get_pointer` reads off a C function object, remembered so that boxing the
    address gives the object back (the latest one passed, when several share the address)."""
    address = get_pointer(function)
    if not isinstance(address, int) or address <= 0:  # calling it would crash the process
        raise ValueError(f"the address of {function!r} must be a positive integer, not {address!r}")
    try:  # weakly: a callback made for one call must be freed after it
        _objects_by_address[address] = weakref.ref(function)
    except TypeError:  # an object without weak references
        _objects_by_address[address] = function
    return address


@lower_cast(types.DispatcherType, types.FunctionType)
def _jitted_as_function(context, builder, from_type, to_type, value):
    """A jitted function passed where a FunctionType is declared: its C entry's address."""
    address = c_entry_address(from_type.dispatcher, to_type.signature)  # cached: stays alive
    return llvm.Constant(llvm.IntType(64), address).inttoptr(llvm.PointerType())


@lower_cast(types.DispatcherChoice, types.FunctionType)
def _chosen_as_function(context, builder, from_type, to_type, value):
    """The C entry's address of the jitted function the index chooses."""
    address = llvm.Constant(llvm.IntType(64), 0)
    for position, dispatcher in enumerate(from_type.dispatchers):
        entry = llvm.Constant(llvm.IntType(64), c_entry_address(dispatcher, to_type.signature))
        is_this = builder.icmp_unsigned("==", value, llvm.Constant(value.type, position))
        address = builder.select(is_this, entry, address)
    return builder.inttoptr(address, llvm.PointerType())


@box(types.FunctionType)
def _box_function(typ: types.FunctionType, value: llvm.Value, c: Any) -> llvm.Value:
    """The @cfunc, jitted function or other object the address was made from."""
    address = c.pyapi.long_from_voidptr(value)
    obj = c.pyapi.call_function_objargs(c.pyapi.borrow_constant(function_at), [address])
    c.pyapi.decref(address)
    return obj


class _Callee:
    """An opaque pointer value as a callee: `IRBuilder.call` reads `function_type` off its
    callee, which a `ptr` value cannot provide."""

    def __init__(self, pointer: llvm.Value, function_type: llvm.FunctionType) -> None:
        self.pointer = pointer
        self.type = pointer.type
        self.function_type = function_type

    def get_reference(self) -> str:
        return self.pointer.get_reference()


@lower_constant(types.FunctionType)
def _function_constant(context, builder, ty: types.FunctionType, pyval: Any) -> llvm.Value:
    """A global @cfunc (or jitted function typed as a FunctionType): its C entry's address. A
    C function known by name (`types.ExternalFunction`) is declared: the JIT resolves it, in
    cached code too."""
    if isinstance(ty, types.ExternalFunction):
        existing = builder.module.globals.get(ty.symbol)
        if existing is not None:
            return existing
        return llvm.Function(builder.module, c_function_type(context, ty.signature), ty.symbol)
    address = llvm.Constant(llvm.IntType(64), _address_reader(ty)(pyval))
    return address.inttoptr(llvm.PointerType())


def _c_parameter_type(context, typ: types.Type) -> llvm.Type:
    """How a C function takes a parameter: a Python object (`py_object`) as a `PyObject *`."""
    return llvm.PointerType() if typ is types.ffi_forced_object else context.value_type(typ)


def c_function_type(context, sig: Any) -> llvm.FunctionType:
    """The LLVM type of a C function of signature `sig` (returning void for `none`)."""
    result = (
        llvm.VoidType() if sig.return_type is types.none else context.value_type(sig.return_type)
    )
    return llvm.FunctionType(result, [_c_parameter_type(context, a) for a in sig.args])


def call_external_function(lowerer, fnty: types.ExternalFunctionPointer, expr, sig: Signature):
    """A call of a C function object (ctypes, cffi); arguments the C function takes as Python
    objects (`py_object`) are boxed, holding the GIL for the call, and released after it."""
    context, builder = lowerer.context, lowerer.builder
    pointer = lowerer.load(expr.func)
    forced = [typ is types.ffi_forced_object for typ in sig.args]
    if not any(forced):
        args = [lowerer.load_as(var, typ) for var, typ in zip(expr.args, sig.args)]
        return call_function_pointer(context, builder, fnty, pointer, args)
    from ember.lowering.boxing import BoxContext
    from ember.lowering.pyapi import PythonAPI

    pyapi = PythonAPI(context, builder, _KEEPALIVE)
    c = BoxContext(context, builder, pyapi)
    gil = pyapi.gil_ensure()
    args, boxed = [], []
    for var, typ, is_object in zip(expr.args, sig.args, forced):
        if is_object:
            boxed.append(c.box(lowerer.typemap[var.name], lowerer.load(var)))
            args.append(boxed[-1])
        else:
            args.append(lowerer.load_as(var, typ))
    result = call_function_pointer(context, builder, fnty, pointer, args)
    for obj in boxed:
        pyapi.decref(obj)
    pyapi.gil_release(gil)
    return result


_KEEPALIVE: list = []  # Python objects compiled calls of C functions refer to


def call_function_pointer(context, builder, fnty: types.FunctionType, pointer, args: list):
    """Call the C function at `pointer` with native `args` of `fnty`'s argument types; an
    exception the callee holds (a jitted function's) is raised from here. A C function object
    (ctypes, cffi) is C code, which holds none: its calls skip the check."""
    sig = fnty.signature
    value = builder.call(_Callee(pointer, c_function_type(context, sig)), list(args))
    if not isinstance(fnty, types.ExternalFunctionPointer):
        _raise_held_failure(context, builder)
    return context.get_dummy_value(types.none) if sig.return_type is types.none else value


# ---------------------------------------------------------------- exceptions of jitted callees

FAILURES_SYMBOL = "ember.first_class.failures"
_failure_count = ctypes.c_int64(0)  # exceptions held, over all threads (changed with the GIL)
# by native thread id: a parallel region's worker thread gets a new Python thread state at
# each PyGILState_Ensure, which a threading.local would not survive
_held: dict[int, BaseException] = {}


def publish_symbol(symbol: str = FAILURES_SYMBOL) -> str:
    publish(symbol, ctypes.addressof(_failure_count))
    return symbol


def hold_failure(exc: BaseException) -> None:
    """Called by a jitted function's C entry (with the GIL) with the exception it raised."""
    thread = threading.get_ident()
    if thread not in _held:
        _failure_count.value += 1
    _held[thread] = exc


def take_failure() -> bool:
    """Whether this thread holds an exception; if so it passes to ember's Python-exception
    slot, for the calling function to raise."""
    exc = _held.pop(threading.get_ident(), None)
    if exc is None:
        return False  # another thread's
    _failure_count.value -= 1
    callconv.keep_python_exception(exc)
    return True


def _raise_held_failure(context, builder) -> None:
    from ember.lowering.pyapi import PythonAPI

    counter = external_global(builder.module, publish_symbol(), llvm.IntType(64))
    held = builder.icmp_signed("!=", builder.load(counter), llvm.Constant(llvm.IntType(64), 0))
    with builder.if_then(held, likely=False):
        pyapi = PythonAPI(context, builder, [])
        gil = pyapi.gil_ensure()
        taken = pyapi.call_function_objargs(pyapi.borrow_constant(take_failure), [])
        is_mine = builder.icmp_unsigned("==", taken, pyapi.borrow_constant(True))
        pyapi.decref(taken)
        pyapi.gil_release(gil)
        with builder.if_then(is_mine, likely=False):
            exc_id = callconv.static_exceptions.register(callconv.PythonExceptionRaised, ())
            callconv.return_exception(builder, builder.function, exc_id)
