"""`dump_refcount(value)` (Numba's `numba.core.unsafe.refcount`): print the type of `value` and
the reference count of each array it holds (for debugging leaks from compiled code);
`get_refcount(value)`: the reference count of an array, list, set, dict or string."""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.lowering.pyapi import PythonAPI
from ember.typing.intrinsics import intrinsic
from ember.typing.signature import Signature

_KEEPALIVE: list = []  # the Python objects compiled dump_refcount calls refer to
_I64 = llvm.IntType(64)


def _array_meminfos(builder: llvm.IRBuilder, typ: types.Type, value: llvm.Value) -> list:
    """The meminfo pointers of the arrays in `value` (an array, or tuples nesting arrays)."""
    if isinstance(typ, types.Array):
        return [builder.extract_value(value, 0)]  # an array's first member is its meminfo
    if isinstance(typ, types.BaseTuple):
        found = []
        for index, member in enumerate(typ.types):
            found += _array_meminfos(builder, member, builder.extract_value(value, index))
        return found
    return []


def _refcount_or_minus_one(builder: llvm.IRBuilder, meminfo: llvm.Value) -> llvm.Value:
    """The count a meminfo starts with, or -1 for an array Python owns (NULL meminfo)."""
    is_null = builder.icmp_unsigned("==", meminfo, llvm.Constant(meminfo.type, None))
    with builder.if_else(is_null) as (borrowed, owned):
        with borrowed:
            none_block = builder.block
        with owned:
            count = builder.load(builder.bitcast(meminfo, _I64.as_pointer()), typ=_I64)
            owned_block = builder.block
    result = builder.phi(_I64)
    result.add_incoming(llvm.Constant(_I64, -1), none_block)
    result.add_incoming(count, owned_block)
    return result


def _show(typ: types.Type, counts: tuple) -> None:
    print(f"dump refct of {typ}")
    for index, count in enumerate(counts):
        owner = "borrowed from Python" if count < 0 else f"refct {count}"
        print(f"  array {index}: {owner}")


@intrinsic
def dump_refcount(typingctx: Any, value: types.Type) -> Any:
    """Print `dump refct of <type>` and the reference count of each array in `value`."""

    def codegen(context, builder, sig: Signature, args: list) -> llvm.Value:
        (typ,) = sig.args
        meminfos = _array_meminfos(builder, typ, args[0])
        counts = [_refcount_or_minus_one(builder, meminfo) for meminfo in meminfos]
        pyapi = PythonAPI(context, builder, _KEEPALIVE)
        gil = pyapi.gil_ensure()
        boxed = pyapi.tuple_new(len(counts))
        for index, count in enumerate(counts):
            pyapi.tuple_setitem(boxed, index, pyapi.long_from_longlong(count))
        shown = pyapi.call_function_objargs(
            pyapi.borrow_constant(_show), [pyapi.borrow_constant(typ), boxed]
        )
        pyapi.decref(shown)
        pyapi.decref(boxed)
        pyapi.err_clear()  # as print(): a closed stdout must not leave an error pending
        pyapi.gil_release(gil)
        return context.get_dummy_value(types.none)

    return Signature(types.none, (value,)), codegen


#: Values whose first member is the meminfo owning them.
_COUNTED = (types.Array, types.List, types.HashTable, types.UnicodeType)


@intrinsic
def get_refcount(typingctx: Any, value: types.Type) -> Any:
    """The reference count of `value`'s memory (-1 for memory Python or the module owns: an
    array from Python, a constant string)."""
    if not isinstance(types.unliteral(value), _COUNTED):
        return None

    def codegen(context, builder, sig: Signature, args: list) -> llvm.Value:
        return _refcount_or_minus_one(builder, builder.extract_value(args[0], 0))

    return Signature(types.intp, (value,)), codegen
