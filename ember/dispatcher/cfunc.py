"""`@cfunc(signature)`: a compiled function behind a plain C entry point (Numba's `cfunc`), for
C libraries and SciPy's LowLevelCallable (`scipy.integrate.quad(f.ctypes, a, b)`).

The specialization is compiled as for `@njit` with the explicit signature; a small wrapper is
generated in LLVM IR with the C signature: it calls the specialization with ember's convention
and returns its result. An exception raised inside cannot cross C code: the wrapper reports it
as an unraisable exception (PyErr_WriteUnraisable, taking the GIL) and returns zero.
"""

from __future__ import annotations

import ctypes
import functools
import itertools
from collections.abc import Callable
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.codegen.symbols import ascii_symbol
from ember.dispatcher.typeof import typeof_impl
from ember.lowering import callconv
from ember.typing.signature import Signature

_serial = itertools.count()
_I32 = llvm.IntType(32)

_CTYPES = {
    types.boolean: ctypes.c_bool,
    types.int8: ctypes.c_int8, types.int16: ctypes.c_int16, types.int32: ctypes.c_int32,
    types.int64: ctypes.c_int64, types.uint8: ctypes.c_uint8, types.uint16: ctypes.c_uint16,
    types.uint32: ctypes.c_uint32, types.uint64: ctypes.c_uint64,
    types.float32: ctypes.c_float, types.float64: ctypes.c_double, types.none: None,
}  # fmt: skip


_C_NAMES = {
    types.boolean: "_Bool",
    types.int8: "int8_t", types.int16: "int16_t", types.int32: "int32_t",
    types.int64: "int64_t", types.uint8: "uint8_t", types.uint16: "uint16_t",
    types.uint32: "uint32_t", types.uint64: "uint64_t",
    types.float32: "float", types.float64: "double", types.none: "void",
}  # fmt: skip


def _has_ctype(typ: types.Type) -> bool:
    return typ in _CTYPES or typ == types.voidptr or isinstance(typ, types.CPointer)


def _ctype(typ: types.Type) -> Any:
    """The ctypes type of a C argument or result: numbers, and pointers (typed when the
    pointee is a number, as `POINTER(c_double)` for `CPointer(float64)`)."""
    if isinstance(typ, types.CPointer):
        pointee = _CTYPES.get(typ.dtype)
        return ctypes.POINTER(pointee) if pointee is not None else ctypes.c_void_p
    return ctypes.c_void_p if typ == types.voidptr else _CTYPES[typ]


class CFunc:
    """The result of `@cfunc`: `.address`, `.ctypes`, `.native_name`, `.inspect_llvm()`;
    calling it calls the Python function, as Numba's does."""

    def __init__(
        self,
        py_func: Callable,
        sig: Signature,
        options: dict,
        dispatcher: Any = None,
        propagate: bool = False,
    ) -> None:
        """`dispatcher`: an existing jitted function of `py_func` to compile `sig` with (a
        jitted function passed as a first-class function); otherwise one is made.
        `propagate`: an exception is held for the compiled caller (ember/lowering/
        function_pointers.py) instead of being reported as unraisable."""
        from ember.decorators import njit

        if options.get("forceobj") or options.get("nopython") is False:
            raise NotImplementedError("@cfunc compiles in nopython mode only (no forceobj)")
        if sig.return_type is None:
            raise TypeError("@cfunc needs a signature with a return type")
        self._pyfunc = py_func
        self._signature = sig
        functools.update_wrapper(self, py_func)  # __name__, __qualname__, __doc__, __wrapped__
        self._dispatcher = dispatcher if dispatcher is not None else njit(**options)(py_func)
        self._compiled = _specialization(self._dispatcher, sig)
        self._keepalive: list = []
        self.native_name = ascii_symbol(f"cfunc.{py_func.__qualname__}.{next(_serial)}")
        self._llvm = _wrapper_module(
            self._compiled, self.native_name, self._keepalive, py_func, propagate
        )
        self.address = _install(self._llvm, self.native_name)
        self.cache_hits = 0

    @functools.cached_property
    def ctypes(self) -> Any:
        """The C function as a ctypes function pointer (numbers, booleans and pointers; other
        arguments, such as arrays, are passed as ember's native structs, which only compiled
        code calling through a FunctionType can give)."""
        sig = self._signature
        unsupported = [t for t in (*sig.args, sig.return_type) if not _has_ctype(t)]
        if unsupported:
            raise TypeError(
                f"@cfunc {self.__name__}: {unsupported[0]} has no C equivalent for ctypes "
                "(ctypes calls take numbers, booleans and pointers: CPointer(dtype), voidptr; "
                "void results)"
            )
        prototype = ctypes.CFUNCTYPE(_ctype(sig.return_type), *map(_ctype, sig.args))
        return prototype(self.address)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._pyfunc(*args, **kwargs)

    @property
    def _sig(self) -> Signature:
        """Numba's name for the signature (`types.FunctionType(f._sig)`)."""
        return self._signature

    @property
    def cffi(self) -> Any:
        """The C function pointer as a cffi object (for cffi-wrapped C libraries)."""
        import cffi

        ffi = cffi.FFI()
        result = _C_NAMES[self._signature.return_type]
        args = ", ".join(_C_NAMES.get(arg, "void *") for arg in self._signature.args)
        return ffi.cast(f"{result}(*)({args or 'void'})", self.address)

    def inspect_llvm(self) -> str:
        """The LLVM IR of the compiled function and of its C wrapper."""
        return self._dispatcher.inspect_llvm(self._signature.args) + "\n" + self._llvm

    def __repr__(self) -> str:
        return f"<ember.cfunc {self._pyfunc.__qualname__} {self._signature}>"


def _specialization(dispatcher: Any, sig: Signature) -> Any:
    """The dispatcher's specialization for `sig`'s argument types (a declared one if it has
    them: a dispatcher with explicit signatures compiles no others)."""
    found = dispatcher.overloads.get(tuple(sig.args))
    if found is not None and found.signature.return_type == sig.return_type:
        return dispatcher.compile(tuple(sig.args))
    return dispatcher.compile(sig)


@typeof_impl.register(CFunc)
def _typeof_cfunc(value: CFunc) -> types.FunctionType:
    """A @cfunc passed to a jitted function: a first-class function of its signature."""
    return types.FunctionType(value._signature)


def cfunc(sig: Any, **options: Any) -> Callable[[Callable], CFunc]:
    """`@cfunc("float64(float64, float64)")`: compile now and expose a C function pointer."""
    from ember.decorators import _parse_signature

    parsed = _parse_signature(sig)

    def decorate(py_func: Callable) -> CFunc:
        return CFunc(py_func, parsed, options)

    return decorate


def _wrapper_module(
    compiled: Any, name: str, keepalive: list, py_func: Callable, propagate: bool
) -> str:
    from ember.codegen.jit import engine
    from ember.lowering.boxing import _call_native
    from ember.lowering.context import CPUContext
    from ember.lowering.pyapi import PythonAPI

    sig = compiled.signature
    jit = engine()
    module = llvm.Module(name=name)
    module.triple = jit.triple
    module.data_layout = jit.data_layout
    context = CPUContext()
    result_type = (
        llvm.VoidType() if sig.return_type is types.none else context.value_type(sig.return_type)
    )
    arg_types = [context.value_type(a) for a in sig.args]
    function = llvm.Function(module, llvm.FunctionType(result_type, arg_types), name)
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    status, excinfo, result = _call_native(builder, sig, compiled.address, list(function.args))
    failed = builder.icmp_signed("!=", status, _I32(callconv.STATUS_OK))
    with builder.if_then(failed, likely=False):
        pyapi = PythonAPI(context, builder, keepalive)
        gil = pyapi.gil_ensure()
        # raise_static_exception reads the exception record at this address
        id_obj = pyapi.long_from_longlong(builder.ptrtoint(excinfo, pyapi.longlong))
        raiser = pyapi.borrow_constant(callconv.raise_static_exception)
        raised = pyapi.call_function_objargs(raiser, [id_obj])  # NULL, the exception set
        pyapi.decref(id_obj)
        with builder.if_then(builder.icmp_unsigned("==", raised, pyapi.get_null_object())):
            if propagate:
                from ember.lowering.function_pointers import hold_failure

                exc = pyapi.err_fetch_exception()
                pyapi.decref(
                    pyapi.call_function_objargs(pyapi.borrow_constant(hold_failure), [exc])
                )
                pyapi.decref(exc)
            else:
                pyapi.write_unraisable(py_func)  # "Exception ignored in: <function ...>"
        pyapi.gil_release(gil)
    if sig.return_type is types.none:
        builder.ret_void()
    else:
        # the value type, as C returns it (a bool is `zeroext i1`, as clang returns _Bool)
        builder.ret(builder.select(failed, llvm.Constant(result_type, None), result))
    return str(module)


def _install(llvm_ir: str, name: str) -> int:
    from ember.codegen.jit import engine

    jit = engine()
    compiled = jit.parse(llvm_ir)
    compiled.verify()
    jit.optimize(compiled)
    jit.add_module(compiled)
    return jit.address_of(name)
