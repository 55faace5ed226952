"""An exception value of compiled code (`except E as e`, `e = E(...)`) as the Python object it
stands for: str(e), repr(e), print(e) and returning e give CPython's text and object, whoever
raised it (a `raise` of the function, a callee, the runtime: `1 // 0`, `d[k]`, or an objmode
block). The object is rebuilt under the GIL from the value's exception table entry and its
payload (ember/lowering/callconv.py), which stays the value's."""

from __future__ import annotations

import ctypes
import sys

from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic, overload
from ember.lowering import callconv
from ember.lowering.boxing import BoxContext
from ember.lowering.pyapi import PythonAPI
from ember.lowering.registry import box
from ember.runtime import nrt
from ember.typing.signature import signature

_KEEPALIVE: list = []  # the Python objects generated code points at, for the process
_i32 = llvm.IntType(32)
_ptr = llvm.PointerType()


def python_exception(exc_id: int, payload: int) -> BaseException:
    """The exception of table entry `exc_id` with its run-time arguments read from the
    payload meminfo at `payload` (0 for none); the payload is only read."""
    exc_class = callconv.static_exceptions.entry(exc_id)[0]
    if exc_class is callconv.PythonExceptionRaised:
        return callconv.peek_python_exception()
    make, args = callconv.static_exceptions.parts(exc_id, payload)
    return make if isinstance(make, BaseException) else make(*args)


@box(types.ExceptionInstance)
def box_exception(typ, value, c):
    builder, pyapi = c.builder, c.pyapi
    exc_id = pyapi.long_from_longlong(builder.sext(builder.extract_value(value, 1), pyapi.longlong))
    payload = pyapi.long_from_voidptr(builder.extract_value(value, 0))
    maker = pyapi.borrow_constant(python_exception)
    obj = pyapi.call_function_objargs(maker, [exc_id, payload])
    pyapi.decref(exc_id)
    pyapi.decref(payload)
    return obj


def _text_codegen(show: str):
    """Lowering of str() or repr() (`show`) of an exception value: a native string. Should
    the exception's own __init__ or __str__ fail, a RuntimeError says so (a static entry: an
    entry for Python exceptions would make every later `except` clause in the process
    uncacheable)."""

    def codegen(context, builder, sig, args):
        pyapi = PythonAPI(context, builder, _KEEPALIVE)
        c = BoxContext(context, builder, pyapi)
        null = pyapi.get_null_object()
        gil = pyapi.gil_ensure()

        def fail_if(is_error):
            with builder.if_then(is_error, likely=False):
                pyapi.err_clear()
                pyapi.gil_release(gil)
                context.raise_error(
                    builder, RuntimeError, f"{show}() of the caught exception raised an error"
                )

        obj = box_exception(sig.args[0], args[0], c)
        fail_if(builder.icmp_unsigned("==", obj, null))
        text = getattr(pyapi, f"object_{show}")(obj)
        pyapi.decref(obj)
        fail_if(builder.icmp_unsigned("==", text, null))
        native = c.unbox(types.unicode_type, text)
        pyapi.decref(text)
        if native.is_error is not None:
            fail_if(native.is_error)
        pyapi.gil_release(gil)
        return native.value

    return codegen


def caught_attribute(context, builder, value, attr: str, result_type: types.Type):
    """`e.code` of a caught exception: the attribute of the Python exception it stands for
    (rebuilt under the GIL), as `result_type` (typing/exceptions.py chose it from the
    exceptions the handler may catch). An exception without it raises AttributeError; one
    whose value is of another type, TypeError."""
    pyapi = PythonAPI(context, builder, _KEEPALIVE)
    c = BoxContext(context, builder, pyapi)
    null = pyapi.get_null_object()
    gil = pyapi.gil_ensure()

    def fail_if(is_error, exc_class, message, *owned):
        with builder.if_then(is_error, likely=False):
            pyapi.err_clear()
            for obj in owned:
                pyapi.decref(obj)
            pyapi.gil_release(gil)
            context.raise_error(builder, exc_class, message)

    obj = box_exception(None, value, c)
    fail_if(builder.icmp_unsigned("==", obj, null), RuntimeError, _REBUILD_FAILED)
    found = pyapi.object_getattr_string(obj, attr)
    missing = f"the caught exception has no attribute '{attr}'"
    fail_if(builder.icmp_unsigned("==", found, null), AttributeError, missing, obj)
    pyapi.decref(obj)
    native = c.unbox(result_type, found)
    if native.is_error is not None:
        wrong = f"'.{attr}' of the caught exception is not a {result_type} (as compiled)"
        fail_if(native.is_error, TypeError, wrong, found)
    pyapi.decref(found)
    pyapi.gil_release(gil)
    return native.value


_REBUILD_FAILED = "the caught exception could not be made (its __init__ raised an error)"


@intrinsic
def _exception_str(typingctx, exc):
    return signature(types.unicode_type, exc), _text_codegen("str")


@intrinsic
def _exception_repr(typingctx, exc):
    return signature(types.unicode_type, exc), _text_codegen("repr")


@overload(str)
def str_of_exception(obj):
    if isinstance(obj, types.ExceptionInstance):
        return lambda obj: _exception_str(obj)
    return None


@overload(repr)
def repr_of_exception(obj):
    if isinstance(obj, types.ExceptionInstance):
        return lambda obj: _exception_repr(obj)
    return None


# ---------------------------------------------------------------------------- the caller's one


def keep_handled_exception() -> None:
    """Hold the exception the calling Python code is handling (a bare `raise` outside any
    `except` of the compiled function), or CPython's error when it handles none."""
    exc = sys.exc_info()[1]
    if exc is None:
        exc = RuntimeError("No active exception to reraise")
    callconv.keep_python_exception(exc)


# Compiled `except` handlers publish the exception they handle, as CPython's sys.exc_info():
# a record {id, payload, the record it hides} in the handler's frame, found through a pthread
# key (a thread's handled exception is its own). The handler counts a reference of the
# payload while its record is published; leaving it publishes the hidden record again.
_KEY_SYMBOL = "ember.handled_exception_key"
_handled_key = ctypes.c_uint32(0)  # the pthread key + 1: 0 means "not made yet"
_RECORD = llvm.LiteralStructType([_i32, _ptr, _ptr])


def publish_symbol(name: str = _KEY_SYMBOL) -> str:
    """Publish the key's address (made on first use) for compiled code."""
    from ember.codegen.symbols import publish
    from ember.parallel.threading_layer import _new_pthread_key

    if _handled_key.value == 0:
        _handled_key.value = _new_pthread_key() + 1
    publish(name, ctypes.addressof(_handled_key))
    return name


def _key(builder: llvm.IRBuilder) -> llvm.Value:
    from ember.codegen.symbols import external_global

    slot = external_global(builder.module, publish_symbol(), _i32)
    return builder.sub(builder.load(slot, typ=_i32), llvm.Constant(_i32, 1))


def _published_record(builder: llvm.IRBuilder) -> llvm.Value:
    """The record of the exception the innermost running compiled handler handles, or NULL."""
    from ember.parallel.threading_layer import _declare

    getspecific = _declare(builder.module, "pthread_getspecific", _ptr, [_i32])
    return builder.call(getspecific, [_key(builder)])


def _publish_record(builder: llvm.IRBuilder, record: llvm.Value) -> None:
    from ember.parallel.threading_layer import _declare

    setspecific = _declare(builder.module, "pthread_setspecific", _i32, [_i32, _ptr])
    builder.call(setspecific, [_key(builder), record])


@intrinsic
def publish_handled(typingctx, exc):
    """Enter a handler of `exc` (PUSH_EXC_INFO): publish it, hiding the record published."""

    def codegen(context, builder, sig, args):
        exc_id, payload = (builder.extract_value(args[0], i) for i in (1, 0))
        record = callconv.alloca_in_entry(builder, _RECORD)
        fields = llvm.Constant(_RECORD, llvm.Undefined)
        for index, field in enumerate((exc_id, payload, _published_record(builder))):
            fields = builder.insert_value(fields, field, index)
        builder.store(fields, record)
        nrt.emit_incref(builder, payload)
        _publish_record(builder, record)
        return context.get_dummy_value(types.none)

    if not isinstance(exc, types.ExceptionInstance):
        return None
    return signature(types.none, exc), codegen


@intrinsic
def restore_handled(typingctx):
    """Leave a handler (POP_EXCEPT): release its payload, publish the record it hid."""

    def codegen(context, builder, sig, args):
        record = _published_record(builder)
        with builder.if_then(builder.icmp_unsigned("!=", record, llvm.Constant(_ptr, None))):
            fields = builder.load(record, typ=_RECORD)
            nrt.emit_decref(builder, builder.extract_value(fields, 1))
            _publish_record(builder, builder.extract_value(fields, 2))
        return context.get_dummy_value(types.none)

    return signature(types.none), codegen


@intrinsic
def handled_exception(typingctx):
    """The exception being handled where a bare `raise` outside every `except` of its
    function stands: the one a compiled handler up the call chain handles (its record), else
    the one the calling Python code handles (raised by the Python-side entry, traceback and
    all)."""

    def codegen(context, builder, sig, args):
        value_type = context.get_value_type(sig.return_type)
        slot = callconv.alloca_in_entry(builder, value_type)
        record = _published_record(builder)
        compiled = builder.icmp_unsigned("!=", record, llvm.Constant(_ptr, None))
        with builder.if_else(compiled) as (from_compiled, from_python):
            with from_compiled:
                fields = builder.load(record, typ=_RECORD)
                exc_id, payload = (builder.extract_value(fields, i) for i in (0, 1))
                nrt.emit_incref(builder, payload)
                builder.store(_exception_value(builder, value_type, payload, exc_id), slot)
            with from_python:
                pyapi = PythonAPI(context, builder, _KEEPALIVE)
                gil = pyapi.gil_ensure()
                keeper = pyapi.borrow_constant(keep_handled_exception)
                pyapi.decref(pyapi.call_function_objargs(keeper, []))
                pyapi.gil_release(gil)
                exc_id = callconv.static_exceptions.register(callconv.PythonExceptionRaised, ())
                null = llvm.Constant(_ptr, None)
                value = _exception_value(builder, value_type, null, llvm.Constant(_i32, exc_id))
                builder.store(value, slot)
        return builder.load(slot, typ=value_type)

    return signature(types.ExceptionInstance(BaseException)), codegen


def _exception_value(builder, value_type, payload, exc_id) -> llvm.Value:
    value = builder.insert_value(llvm.Constant(value_type, llvm.Undefined), payload, 0)
    return builder.insert_value(value, exc_id, 1)
