"""The native calling convention: `i32 fn(ptr retptr, ptr excinfo, ptr env, flattened args...)`.

Status 0 means the result is at `retptr`; status 1 means an exception was raised and
`*(i32*)excinfo` holds its id in the process-wide static exception table below.
"""

from __future__ import annotations

import threading

from llvmlite import ir as llvm

from ember.lowering.models import model_of
from ember.typing.signature import Signature

STATUS_OK = 0
STATUS_EXCEPTION = 1

_status_type = llvm.IntType(32)
_exception_id_type = llvm.IntType(32)
_pointer = llvm.PointerType()


class StaticExceptions:
    """Exceptions whose class and arguments are compile-time constants, by integer id."""

    def __init__(self) -> None:
        self._ids: dict[tuple, int] = {}
        self._entries: list[tuple[type, tuple]] = [(SystemError, ("no exception",))]
        self._lock = threading.Lock()

    def register(self, exc_class: type, exc_args: tuple) -> int:
        key = (exc_class, exc_args)
        with self._lock:
            found = self._ids.get(key)
            if found is None:
                found = len(self._entries)
                self._entries.append(key)
                self._ids[key] = found
            return found

    def build(self, exc_id: int) -> BaseException:
        exc_class, exc_args = self._entries[exc_id]
        return exc_class(*exc_args)


static_exceptions = StaticExceptions()


def raise_static_exception(exc_id: int) -> None:
    """Raise the exception compiled code reported (called by the Python-side entry)."""
    raise static_exceptions.build(exc_id)


def function_type(sig: Signature) -> llvm.FunctionType:
    flat_args = [t for arg in sig.args for t in model_of(arg).argument_types()]
    return llvm.FunctionType(_status_type, [_pointer, _pointer, _pointer, *flat_args])


def decode_arguments(builder: llvm.IRBuilder, sig: Signature, func: llvm.Function) -> list:
    """The typed argument values of `func`, rebuilt from its flattened LLVM arguments."""
    flat = list(func.args[3:])
    values = []
    for arg_type in sig.args:
        model = model_of(arg_type)
        count = len(model.argument_types())
        values.append(model.from_arguments(builder, flat[:count]))
        flat = flat[count:]
    return values


def return_value(builder: llvm.IRBuilder, sig: Signature, func: llvm.Function, value) -> None:
    model = model_of(sig.return_type)
    builder.store(model.as_data(builder, value), func.args[0])
    builder.ret(llvm.Constant(_status_type, STATUS_OK))


def return_exception(builder: llvm.IRBuilder, func: llvm.Function, exc_id: int) -> None:
    builder.store(llvm.Constant(_exception_id_type, exc_id), func.args[1])
    builder.ret(llvm.Constant(_status_type, STATUS_EXCEPTION))


def call(
    builder: llvm.IRBuilder,
    callee: llvm.Function,
    sig: Signature,
    args: list,
    excinfo: llvm.Value,
) -> tuple[llvm.Value, llvm.Value]:
    """Call `callee`; returns (is_error i1, result value). The caller's excinfo is reused."""
    ret_model = model_of(sig.return_type)
    retptr = alloca_in_entry(builder, ret_model.data_type)
    flat = []
    for arg_type, value in zip(sig.args, args):
        flat.extend(model_of(arg_type).as_arguments(builder, value))
    null_env = llvm.Constant(_pointer, None)
    status = builder.call(callee, [retptr, excinfo, null_env, *flat])
    is_error = builder.icmp_signed("!=", status, llvm.Constant(_status_type, STATUS_OK))
    result = ret_model.from_data(builder, builder.load(retptr))
    return is_error, result


def alloca_in_entry(builder: llvm.IRBuilder, typ: llvm.Type, name: str = "") -> llvm.Value:
    """An alloca in the function's entry block, so mem2reg can promote it."""
    function = builder.function
    entry = function.entry_basic_block
    saved = builder.block
    if entry.instructions and entry.is_terminated:
        builder.position_before(entry.instructions[-1])
    else:
        builder.position_at_end(entry)
    slot = builder.alloca(typ, name=name)
    builder.position_at_end(saved)
    return slot
