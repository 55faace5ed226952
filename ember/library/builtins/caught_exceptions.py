"""An exception value of compiled code (`except E as e`, `e = E(...)`) as the Python object it
stands for: str(e), repr(e), print(e) and returning e give CPython's text and object, whoever
raised it (a `raise` of the function, a callee, the runtime: `1 // 0`, `d[k]`, or an objmode
block). The object is rebuilt under the GIL from the value's exception table entry and its
payload (ember/lowering/callconv.py), which stays the value's."""

from __future__ import annotations

import sys

from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic, overload
from ember.lowering import callconv
from ember.lowering.boxing import BoxContext
from ember.lowering.pyapi import PythonAPI
from ember.lowering.registry import box
from ember.typing.signature import signature

_KEEPALIVE: list = []  # the Python objects generated code points at, for the process


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


@intrinsic
def handled_exception(typingctx):
    """The exception the caller is handling, as an exception value (raised by the Python-side
    entry, traceback and all). An exception caught by compiled code is not visible here:
    only one Python code handles."""

    def codegen(context, builder, sig, args):
        pyapi = PythonAPI(context, builder, _KEEPALIVE)
        gil = pyapi.gil_ensure()
        pyapi.decref(pyapi.call_function_objargs(pyapi.borrow_constant(keep_handled_exception), []))
        pyapi.gil_release(gil)
        exc_id = callconv.static_exceptions.register(callconv.PythonExceptionRaised, ())
        value = llvm.Constant(context.get_value_type(sig.return_type), llvm.Undefined)
        value = builder.insert_value(value, llvm.Constant(llvm.PointerType(), None), 0)
        return builder.insert_value(value, llvm.Constant(llvm.IntType(32), exc_id), 1)

    return signature(types.ExceptionInstance(BaseException)), codegen
