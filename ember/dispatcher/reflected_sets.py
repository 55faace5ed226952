"""Generated native code for Python sets passed to compiled code (Numba's reflected sets), for
the native entry: per set type, `unbox_exact(set) -> meminfo` copies the set's items through its
list type's converter (reflected_lists.py) into a native set built by compiled `set(list)`, and
`reflect(set, meminfo)` gives the Python set the native set's items when they differ."""

from __future__ import annotations

import functools
import itertools
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.dispatcher.entry_boxing import ResultBoxing
from ember.dispatcher.entry_strings import StringArgumentCodegen
from ember.dispatcher.object_layout import _I32, _PTR, _FunctionPointer
from ember.dispatcher.reflected_lists import _ListCodegen, _new_function, converters
from ember.runtime import nrt

_NULL = llvm.Constant(_PTR, None)
_serial = itertools.count()
_PY_EQ = 2


class _SetCodegen(_ListCodegen, ResultBoxing, StringArgumentCodegen):
    """Emits one function of a reflected set type (boxing as the native entry boxes sets)."""

    copied_lists: list = []


def _set_of(items):
    return set(items)


class SetConverters:
    """The addresses of `unbox_exact`, `reflect` and `release` of one set type (the roles of
    a list type's converters, so the entry passes both alike: entry_lists.py)."""

    def __init__(self, set_type: types.Set) -> None:
        from ember.codegen.jit import engine
        from ember.decorators import njit
        from ember.dispatcher.fast_entry import value_kind

        list_type = types.List(set_type.dtype, reflected=True)
        self.keepalive: list[Any] = [converters(list_type)]
        built = njit(_set_of).compile((list_type,))
        self.keepalive.append(built)
        jit = engine()
        module = llvm.Module(name=f"ember.reflected_set.{next(_serial)}")
        module.triple, module.data_layout = jit.triple, jit.data_layout
        symbols = {
            "unbox_exact": self._emit_unbox(module, built.address),
            "reflect": self._emit_reflect(module, value_kind(set_type.dtype)),
            "release": self.keepalive[0].addresses["release"],
        }
        compiled = jit.parse(str(module))
        compiled.verify()
        jit.optimize(compiled)
        jit.add_module(compiled)
        self.addresses = {
            role: symbol if isinstance(symbol, int) else jit.address_of(symbol)
            for role, symbol in symbols.items()
        }

    def _emit_unbox(self, module: llvm.Module, set_of_list: int) -> str:
        """`ptr unbox_exact(PyObject *set)`: a new native set's meminfo, or NULL (no exception)
        for an empty set or items typeof would type otherwise."""
        function = _new_function(module, llvm.FunctionType(_PTR, [_PTR]), "unbox_exact")
        gen = _SetCodegen(module, function, _NULL, self.keepalive)
        b = gen.builder
        items = gen.call_capi("PySequence_List", [function.args[0]])
        with b.if_then(b.icmp_unsigned("==", items, _NULL), likely=False):
            gen.call_capi("PyErr_Clear", [])  # out of memory: the Python path raises it
            b.ret(_NULL)
        unbox_list = _FunctionPointer(llvm.FunctionType(_PTR, [_PTR]), self._list("unbox_exact"))
        native_list = b.call(unbox_list, [items])
        gen.call_capi("Py_DecRef", [items])
        with b.if_then(b.icmp_unsigned("==", native_list, _NULL)):
            b.ret(_NULL)
        result = gen.alloca(_PTR, "set_meminfo")
        b.store(_NULL, result)
        excinfo = gen.alloca(llvm.ArrayType(llvm.IntType(8), 64), "excinfo")
        native_set = llvm.FunctionType(_I32, [_PTR, _PTR, _PTR, _PTR])
        status = b.call(
            _FunctionPointer(native_set, set_of_list), [result, excinfo, _NULL, native_list]
        )
        nrt.emit_decref(b, native_list)
        with b.if_then(b.icmp_signed("!=", status, _I32(0)), likely=False):
            b.ret(_NULL)  # out of memory: the Python path raises it
        b.ret(b.load(result))
        gen.finish_entry_block()
        return function.name

    def _emit_reflect(self, module: llvm.Module, item_kind: Any) -> str:
        """`int reflect(PyObject *set, ptr meminfo)`: the Python set takes the native set's
        items if they differ (0, or -1 with an exception); the native set is released."""
        function = _new_function(module, llvm.FunctionType(_I32, [_PTR, _PTR]), "reflect")
        failure = _I32(-1)
        gen = _SetCodegen(module, function, failure, self.keepalive)
        b = gen.builder
        py_set, meminfo = function.args
        native_items = gen.emit_box_set(item_kind, meminfo)  # releases the native set
        with b.if_then(b.icmp_unsigned("==", native_items, _NULL), likely=False):
            b.ret(failure)
        same = gen.call_capi("PyObject_RichCompareBool", [native_items, py_set, _I32(_PY_EQ)])
        status = gen.alloca(_I32, "status")
        b.store(b.select(b.icmp_signed("<", same, _I32(0)), failure, _I32(0)), status)
        with b.if_then(b.icmp_signed("==", same, _I32(0))):
            gen.call_capi("PySet_Clear", [py_set])
            updated = gen.call_capi("PyNumber_InPlaceOr", [py_set, native_items])
            with b.if_then(b.icmp_unsigned("==", updated, _NULL), likely=False):
                b.store(failure, status)
            with b.if_then(b.icmp_unsigned("!=", updated, _NULL), likely=True):
                gen.call_capi("Py_DecRef", [updated])
        gen.call_capi("Py_DecRef", [native_items])
        b.ret(b.load(status))
        gen.finish_entry_block()
        return function.name

    def _list(self, role: str) -> int:
        return self.keepalive[0].addresses[role]


@functools.cache
def set_converters(set_type: types.Set) -> SetConverters:
    """The converters of `set_type`, compiled at the first Python set of that type."""
    return SetConverters(set_type)
