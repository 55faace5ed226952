"""Native CPython entry points for ember-compiled functions, generated without a C compiler.

Consumes specializations ``(arg_kinds, ret_kind, target)`` of the ember native calling convention
and produces an LLVM ``METH_FASTCALL | METH_KEYWORDS`` entry function plus the builtin wrapping it.
"""

from __future__ import annotations

import ctypes
import itertools
import re
import types
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import llvmlite.binding as llvm
from llvmlite import ir

__all__ = [
    "Kind",
    "PyLayout",
    "SimpleMCJIT",
    "build_entry_module",
    "compile_entry",
    "default_jit",
    "fast_path_supported",
    "flatten_arg_types",
    "make_pycfunction",
    "probe_layout",
    "return_memory_type",
]

from ember.dispatcher.native_arrays import ArrayCodegen
from ember.dispatcher.object_layout import (  # noqa: F401 - re-exported
    _CAPI_SIGNATURES,
    _F32,
    _F64,
    _FAST_PATH_SCALARS,
    _I8,
    _I32,
    _I64,
    _INT_KINDS,
    _LONGLONG,
    _NPY_C_CONTIGUOUS,
    _NPY_F_CONTIGUOUS,
    _NPY_WRITEABLE,
    _NUMPY_SCALAR_VALUE_OFFSET,
    _PTR,
    _PTR_SIZE,
    _SCALAR_KINDS,
    _SSIZE,
    METH_FASTCALL,
    METH_KEYWORDS,
    AddModule,
    ArrayKind,
    ConstantKind,
    InstanceKind,
    Kind,
    NumpyCAPI,
    NumpyLayout,
    OptionalKind,
    PyLayout,
    Specialization,
    _capi_address,
    _check_kind,
    _FunctionPointer,
    _object_constant,
    _read_ptr,
    _read_ssize,
    fast_path_supported,
    flatten_arg_types,
    native_function_type,
    numpy_capi,
    numpy_layout,
    numpy_scalar_type,
    probe_layout,
    return_memory_type,
)
from ember.lowering.callconv import EXCINFO_TYPE as _EXCINFO
from ember.runtime.nrt import HEADER_SIZE as _NRT_HEADER_SIZE

# --------------------------------------------------------------------------------------------
# Entry-function code generation
# --------------------------------------------------------------------------------------------


class _EntryCodegen(ArrayCodegen):
    """Emits the body of one fastcall entry function."""

    def __init__(
        self,
        module: ir.Module,
        function: ir.Function,
        layout: PyLayout,
        fallback: object,
        raise_exception: object,
        defaults: Sequence[object] = (),
        release_gil: bool = False,
        array_boxers: dict | None = None,
        capsule_destructor: int | None = None,
    ) -> None:
        self.array_boxers = array_boxers or {}
        self.capsule_destructor = (
            _FunctionPointer(ir.FunctionType(ir.VoidType(), [_PTR]), capsule_destructor)
            if capsule_destructor
            else None
        )
        self.defaults = tuple(defaults)
        self.release_gil = release_gil
        self.module = module
        self.function = function
        self.layout = layout
        self.fallback = fallback
        self.raise_exception = raise_exception
        self.self_arg, self.raw_args, self.raw_nargs, self.kwnames_arg = function.args
        # The arguments the specializations read: the raw ones, or keyword-folded ones.
        self.args_arg, self.nargs_arg = self.raw_args, self.raw_nargs
        entry = function.append_basic_block("entry")
        self.alloca_builder = ir.IRBuilder(entry)
        self.builder = ir.IRBuilder(function.append_basic_block("dispatch"))
        self._entry = entry
        self._capi: dict[str, _FunctionPointer] = {}
        self._overflow_slot: ir.Value | None = None
        self._exc_slot: ir.Value | None = None
        self.fallback_block = function.append_basic_block("fallback")
        self.raise_block = function.append_basic_block("raise")

    # -- small helpers ------------------------------------------------------------------------

    def capi(self, name: str) -> _FunctionPointer:
        if name not in self._capi:
            restype, argtypes = _CAPI_SIGNATURES[name]
            address = _capi_address(name)
            if not address:
                raise RuntimeError(f"C-API function {name} not found")
            self._capi[name] = _FunctionPointer(ir.FunctionType(restype, argtypes), address)
        return self._capi[name]

    def call_capi(self, name: str, args: list[ir.Value]) -> ir.Value:
        return self.builder.call(self.capi(name), args)

    def alloca(self, typ: ir.Type, name: str) -> ir.Value:
        self.alloca_builder.position_at_start(self._entry)
        return self.alloca_builder.alloca(typ, name=name)

    def field_ptr(self, obj: ir.Value, offset: int) -> ir.Value:
        if offset == 0:
            return obj
        return self.builder.gep(obj, [ir.Constant(_I64, offset)], source_etype=_I8, inbounds=True)

    def load_field(self, obj: ir.Value, offset: int, typ: ir.Type, align: int) -> ir.Value:
        return self.builder.load(self.field_ptr(obj, offset), typ=typ, align=align)

    def new_block(self, name: str) -> ir.Block:
        return self.function.append_basic_block(name)

    def continue_if(self, cond: ir.Value, fail: ir.Block, name: str) -> None:
        """Branch to ``fail`` unless ``cond``; continue emitting in a fresh block."""
        ok = self.new_block(name)
        self.builder.cbranch(cond, ok, fail)
        self.builder.position_at_end(ok)

    def incref_singleton(self, obj: ir.Value) -> None:
        """``Py_INCREF`` for None/True/False."""
        if self.layout.immortal_singletons:
            return
        if self.layout.inline_incref:
            ptr = self.field_ptr(obj, self.layout.refcnt_offset)
            count = self.builder.load(ptr, typ=_SSIZE, align=8)
            self.builder.store(self.builder.add(count, ir.Constant(_SSIZE, 1)), ptr, align=8)
        else:
            self.call_capi("Py_IncRef", [obj])

    # -- matching -----------------------------------------------------------------------------

    def ob_type(self, obj: ir.Value) -> ir.Value:
        return self.load_field(obj, self.layout.type_offset, _PTR, _PTR_SIZE)

    def emit_match(self, obj: ir.Value, kind: Kind, fail: ir.Block) -> None:
        """Emit exact-type checks of ``obj`` against ``kind``; branch to ``fail`` on mismatch."""
        b = self.builder
        if isinstance(kind, ArrayKind):
            self.emit_match_array(obj, kind, fail)
            return
        if isinstance(kind, ConstantKind):
            same = b.icmp_unsigned("==", obj, _object_constant(kind.value))
            self.continue_if(same, fail, "constant_ok")
            return
        if isinstance(kind, InstanceKind):
            same = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(kind.box_class))
            self.continue_if(same, fail, "instance_ok")
            return
        if isinstance(kind, tuple):
            is_tuple = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(tuple))
            self.continue_if(is_tuple, fail, "tuple.type_ok")
            size = self.load_field(obj, self.layout.var_size_offset, _SSIZE, 8)
            size_ok = b.icmp_signed("==", size, ir.Constant(_SSIZE, len(kind)))
            self.continue_if(size_ok, fail, "tuple.size_ok")
            for index, member in enumerate(kind):
                self.emit_match(self.tuple_item(obj, index), member, fail)
            return
        if kind == "bool":
            is_true = b.icmp_unsigned("==", obj, _object_constant(True))
            is_false = b.icmp_unsigned("==", obj, _object_constant(False))
            accepted = b.or_(is_true, is_false)
            numpy_bool = numpy_scalar_type("bool")
            if numpy_bool is not None:
                is_numpy = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(numpy_bool))
                accepted = b.or_(accepted, is_numpy)
            self.continue_if(accepted, fail, "bool_ok")
        elif kind == "none":
            self.continue_if(b.icmp_unsigned("==", obj, _object_constant(None)), fail, "none_ok")
        else:
            candidates = [{"int64": int, "float64": float, "complex128": complex}.get(kind)]
            candidates.append(numpy_scalar_type(kind))
            ob_type = self.ob_type(obj)
            same = ir.Constant(ir.IntType(1), 0)
            for pytype in filter(None, candidates):
                same = b.or_(same, b.icmp_unsigned("==", ob_type, _object_constant(pytype)))
            self.continue_if(same, fail, f"{kind}_ok")
            return

    def tuple_item(self, obj: ir.Value, index: int) -> ir.Value:
        offset = self.layout.tuple_items_offset + index * _PTR_SIZE
        return self.load_field(obj, offset, _PTR, _PTR_SIZE)

    # -- unboxing -----------------------------------------------------------------------------

    def emit_unbox(self, obj: ir.Value, kind: Kind, fail: ir.Block) -> list[ir.Value]:
        """Unbox an already-matched ``obj`` into flattened native values (``fail`` on overflow)."""
        if isinstance(kind, ConstantKind):
            return []
        if isinstance(kind, InstanceKind):  # borrowed: the box keeps its reference
            number = self.load_field(obj, kind.meminfo_offset, _PTR, _PTR_SIZE)
            meminfo = self.call_capi("PyLong_AsVoidPtr", [number])
            if not kind.data_pointer:
                return [meminfo]
            data = self.builder.gep(
                meminfo, [ir.Constant(_I64, _NRT_HEADER_SIZE)], source_etype=_I8, inbounds=True
            )
            return [meminfo, data]
        if isinstance(kind, ArrayKind):
            return self.emit_unbox_array(obj, kind)
        if isinstance(kind, tuple):
            values: list[ir.Value] = []
            for index, member in enumerate(kind):
                values.extend(self.emit_unbox(self.tuple_item(obj, index), member, fail))
            return values
        numpy_type = numpy_scalar_type(kind)
        if numpy_type is not None:
            return self.emit_unbox_numpy_or_python(obj, kind, numpy_type, fail)
        return self.emit_unbox_python(obj, kind, fail)

    def emit_unbox_numpy_or_python(
        self, obj: ir.Value, kind: str, numpy_type: type, fail: ir.Block
    ) -> list[ir.Value]:
        """Unbox a NumPy scalar of ``kind`` with one load, or a Python object of that kind."""
        b = self.builder
        numpy_block = self.new_block(f"{kind}.numpy")
        python_block = self.new_block(f"{kind}.python")
        join = self.new_block(f"{kind}.unboxed")
        is_numpy = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(numpy_type))
        b.cbranch(is_numpy, numpy_block, python_block)
        b.position_at_end(numpy_block)
        memory = return_memory_type(kind)
        value_ptr = self.field_ptr(obj, _NUMPY_SCALAR_VALUE_OFFSET)
        numpy_values = self.flatten_memory(kind, b.load(value_ptr, typ=memory))
        numpy_end = b.block
        b.branch(join)
        b.position_at_end(python_block)
        has_python_kind = kind in _FAST_PATH_SCALARS
        python_values = self.emit_unbox_python(obj, kind, fail) if has_python_kind else None
        python_end = b.block
        if python_values is None:
            b.branch(fail)
        else:
            b.branch(join)
        b.position_at_end(join)
        merged = []
        for index, numpy_value in enumerate(numpy_values):
            phi = b.phi(numpy_value.type)
            phi.add_incoming(numpy_value, numpy_end)
            if python_values is not None:
                phi.add_incoming(python_values[index], python_end)
            merged.append(phi)
        return merged

    def flatten_memory(self, kind: str, value: ir.Value) -> list[ir.Value]:
        """The flattened argument values of a scalar loaded in its memory layout."""
        b = self.builder
        if kind in ("complex64", "complex128"):
            return [b.extract_value(value, 0), b.extract_value(value, 1)]
        if kind == "bool":
            return [b.zext(b.icmp_unsigned("!=", value, _I8(0)), _I8)]
        return [value]

    def emit_unbox_python(self, obj: ir.Value, kind: Kind, fail: ir.Block) -> list[ir.Value]:
        """Unbox a plain Python int, float, complex, bool or None."""
        b = self.builder
        if kind == "int64":
            return [self.emit_unbox_int64(obj, fail)]
        if kind == "float64":
            return [self.load_field(obj, self.layout.float_value_offset, _F64, 8)]
        if kind == "complex128":
            offset = self.layout.complex_value_offset
            return [
                self.load_field(obj, offset, _F64, 8),
                self.load_field(obj, offset + 8, _F64, 8),
            ]
        if kind == "bool":
            return [b.zext(b.icmp_unsigned("==", obj, _object_constant(True)), _I8)]
        if kind == "none":
            return []
        raise AssertionError(f"kind {kind!r} is not on the fast path")

    def emit_unbox_int64(self, obj: ir.Value, fail: ir.Block) -> ir.Value:
        b = self.builder
        scheme = self.layout.long_scheme
        slow = self.new_block("int.slow")
        join = self.new_block("int.join")
        fast_value = None
        fast_block = None
        if scheme is not None:
            word = self.load_field(obj, self.layout.var_size_offset, _SSIZE, 8)
            if scheme == "ob_size":
                # 3.11: ob_size = sign * ndigits; compact when ob_size in {-1, 0, 1}.
                sign = word
                compact = b.icmp_unsigned("<=", b.add(word, ir.Constant(_SSIZE, 1)), _SSIZE(2))
            else:
                # 3.12+: lv_tag = ndigits << 3 | sign bits (0: +, 1: zero, 2: -).
                compact = b.icmp_unsigned("<", word, ir.Constant(_SSIZE, 2 << 3))
                sign = b.sub(ir.Constant(_SSIZE, 1), b.and_(word, ir.Constant(_SSIZE, 3)))
            fast = self.new_block("int.fast")
            b.cbranch(compact, fast, slow)
            b.position_at_end(fast)
            digit = self.load_field(obj, self.layout.long_digits_offset, _I32, 4)
            fast_value = b.mul(b.zext(digit, _I64), b.sext(sign, _I64) if _SSIZE != _I64 else sign)
            fast_block = b.block
            b.branch(join)
        else:
            b.branch(slow)
        b.position_at_end(slow)
        if self._overflow_slot is None:
            self._overflow_slot = self.alloca(ir.IntType(32), "overflow")
        b.store(ir.Constant(_I32, 0), self._overflow_slot)
        slow_value = self.call_capi("PyLong_AsLongLongAndOverflow", [obj, self._overflow_slot])
        slow_value = b.sext(slow_value, _I64) if _LONGLONG != _I64 else slow_value
        overflowed = b.icmp_signed("!=", b.load(self._overflow_slot, typ=_I32), _I32(0))
        slow_done = self.new_block("int.slow_ok")
        b.cbranch(overflowed, fail, slow_done)
        b.position_at_end(slow_done)
        b.branch(join)
        b.position_at_end(join)
        phi = b.phi(_I64, name="int.value")
        phi.add_incoming(slow_value, slow_done)
        if fast_value is not None:
            phi.add_incoming(fast_value, fast_block)
        return phi

    # -- boxing -------------------------------------------------------------------------------

    def emit_box(self, kind: Kind, ptr: ir.Value) -> ir.Value:
        """Box the native value of ``kind`` stored at ``ptr``; the result may be NULL (error)."""
        b = self.builder
        mem_type = return_memory_type(kind)
        if isinstance(kind, OptionalKind):
            return self.emit_box_optional(kind, ptr, mem_type)
        if isinstance(kind, ArrayKind):
            return self.emit_box_array(kind, ptr)
        if isinstance(kind, InstanceKind):
            return self.emit_box_instance(kind, ptr)
        if isinstance(kind, tuple):
            return self.emit_box_tuple(kind, ptr, mem_type)
        if kind in _INT_KINDS:
            bits, signed = _INT_KINDS[kind]
            value = b.load(ptr, typ=mem_type)
            if bits < 64:
                value = b.sext(value, _I64) if signed else b.zext(value, _I64)
            name = "PyLong_FromLongLong" if signed or bits < 64 else "PyLong_FromUnsignedLongLong"
            return self.call_capi(name, [value])
        if kind in ("float32", "float64"):
            value = b.load(ptr, typ=mem_type)
            if kind == "float32":
                value = b.fpext(value, _F64)
            return self.call_capi("PyFloat_FromDouble", [value])
        if kind in ("complex64", "complex128"):
            parts = []
            for index in range(2):
                part_ptr = b.gep(ptr, [_I32(0), _I32(index)], source_etype=mem_type, inbounds=True)
                part = b.load(part_ptr, typ=mem_type.elements[index])
                parts.append(b.fpext(part, _F64) if kind == "complex64" else part)
            return self.call_capi("PyComplex_FromDoubles", parts)
        if kind == "bool":
            flag = b.icmp_unsigned("!=", b.load(ptr, typ=_I8), _I8(0))
            result = b.select(flag, _object_constant(True), _object_constant(False))
            self.incref_singleton(result)
            return result
        if kind == "none":
            result = _object_constant(None)
            self.incref_singleton(result)
            return result
        raise AssertionError(f"unhandled kind {kind!r}")

    def emit_box_instance(self, kind: InstanceKind, ptr: ir.Value) -> ir.Value:
        """`box_class._boxer(meminfo)`: a new box takes over the returned reference."""
        b = self.builder
        number = self.call_capi("PyLong_FromVoidPtr", [b.load(ptr, typ=_PTR)])
        result = self.alloca(_PTR, "box.instance")
        b.store(number, result)  # NULL: the error is already set
        with b.if_then(b.icmp_unsigned("!=", number, ir.Constant(_PTR, None)), likely=True):
            boxer = _object_constant(kind.box_class._boxer)
            b.store(self.call_capi("PyObject_CallOneArg", [boxer, number]), result)
            self.call_capi("Py_DecRef", [number])
        return b.load(result)

    def emit_box_optional(
        self, kind: OptionalKind, ptr: ir.Value, mem_type: ir.LiteralStructType
    ) -> ir.Value:
        """None when the valid byte is 0, else the boxed value."""
        b = self.builder
        valid_ptr = b.gep(ptr, [_I32(0), _I32(1)], source_etype=mem_type, inbounds=True)
        valid = b.icmp_unsigned("!=", b.load(valid_ptr, typ=_I8), _I8(0))
        with b.if_else(valid) as (some, nothing):
            with some:
                data_ptr = b.gep(ptr, [_I32(0), _I32(0)], source_etype=mem_type, inbounds=True)
                boxed = self.emit_box(kind.inner, data_ptr)
                some_block = b.block
            with nothing:
                none = _object_constant(None)
                self.incref_singleton(none)
                none_block = b.block
        result = b.phi(_PTR, name="box.optional")
        result.add_incoming(boxed, some_block)
        result.add_incoming(none, none_block)
        return result

    def incref_object(self, obj: ir.Value) -> None:
        if self.layout.inline_incref:
            ptr = self.field_ptr(obj, self.layout.refcnt_offset)
            count = self.builder.load(ptr, typ=_SSIZE, align=8)
            self.builder.store(self.builder.add(count, ir.Constant(_SSIZE, 1)), ptr, align=8)
        else:
            self.call_capi("Py_IncRef", [obj])

    def emit_box_tuple(
        self, kind: tuple[Kind, ...], ptr: ir.Value, mem_type: ir.LiteralStructType
    ) -> ir.Value:
        b = self.builder
        null = ir.Constant(_PTR, None)
        done = self.new_block("box.tuple.done")
        incoming: list[tuple[ir.Value, ir.Block]] = []
        tup = self.call_capi("PyTuple_New", [ir.Constant(_SSIZE, len(kind))])
        incoming.append((null, b.block))
        self.continue_if(b.icmp_unsigned("!=", tup, null), done, "box.tuple.alloc_ok")
        cleanup = self.new_block("box.tuple.cleanup") if kind else None
        for index, member in enumerate(kind):
            member_ptr = b.gep(ptr, [_I32(0), _I32(index)], source_etype=mem_type, inbounds=True)
            item = self.emit_box(member, member_ptr)
            self.continue_if(b.icmp_unsigned("!=", item, null), cleanup, "box.tuple.item_ok")
            slot = self.field_ptr(tup, self.layout.tuple_items_offset + index * _PTR_SIZE)
            b.store(item, slot, align=_PTR_SIZE)  # PyTuple_SET_ITEM: steals the reference
        incoming.append((tup, b.block))
        b.branch(done)
        if cleanup is not None:
            # PyTuple_New NULL-initialises the items, so a partial tuple is safe to release.
            b.position_at_end(cleanup)
            self.call_capi("Py_DecRef", [tup])
            incoming.append((null, b.block))
            b.branch(done)
        b.position_at_end(done)
        phi = b.phi(_PTR, name="box.tuple")
        for value, block in incoming:
            phi.add_incoming(value, block)
        return phi

    # -- whole function -----------------------------------------------------------------------

    def emit_specialization(
        self, index: int, arg_kinds: Sequence[Kind], ret_kind: Kind, target: str | int
    ) -> None:
        """Emit the match/unbox/call/box sequence; on mismatch continue with the next block."""
        b = self.builder
        next_block = self.new_block(f"spec{index + 1}")
        count = len(arg_kinds)
        required = count - min(len(self.defaults), count)
        nargs = self.nargs_arg
        if required == count:
            nargs_ok = b.icmp_signed("==", nargs, ir.Constant(_SSIZE, count))
        else:
            nargs_ok = b.and_(
                b.icmp_signed(">=", nargs, ir.Constant(_SSIZE, required)),
                b.icmp_signed("<=", nargs, ir.Constant(_SSIZE, count)),
            )
        self.continue_if(nargs_ok, next_block, f"spec{index}.match")
        arg_objs = [self.argument_or_default(position, required) for position in range(count)]
        for obj, kind in zip(arg_objs, arg_kinds, strict=True):
            self.emit_match(obj, kind, next_block)
        flat: list[ir.Value] = []
        for obj, kind in zip(arg_objs, arg_kinds, strict=True):
            flat.extend(self.emit_unbox(obj, kind, self.fallback_block))

        fnty = native_function_type(arg_kinds)
        callee = self.resolve_target(target, fnty)
        ret_slot = self.alloca(return_memory_type(ret_kind), f"spec{index}.ret")
        if self._exc_slot is None:
            self._exc_slot = self.alloca(_EXCINFO, "excinfo")
        b.store(ir.Constant(_EXCINFO, None), self._exc_slot)  # no payload unless one is set
        thread_state = self.call_capi("PyEval_SaveThread", []) if self.release_gil else None
        status = b.call(callee, [ret_slot, self._exc_slot, ir.Constant(_PTR, None), *flat])
        if thread_state is not None:
            self.call_capi("PyEval_RestoreThread", [thread_state])
        self.continue_if(b.icmp_signed("==", status, _I32(0)), self.raise_block, f"spec{index}.ok")
        b.ret(self.emit_box(ret_kind, ret_slot))
        b.position_at_end(next_block)

    def emit_keyword_folding(self, param_names: Sequence[str]) -> None:
        """With keyword arguments, place them at their parameters' positions in a local array
        (matching names by identity: identifiers are interned) and fill omitted parameters
        with their defaults; anything unusual goes to the fallback."""
        b = self.builder
        count = len(param_names)
        null = ir.Constant(_PTR, None)
        self.alloca_builder.position_at_start(self._entry)
        folded = self.alloca_builder.alloca(_PTR, size=max(count, 1), name="folded")
        has_keywords = b.icmp_unsigned("!=", self.kwnames_arg, null)
        fold_block = self.new_block("kw.fold")
        done = self.new_block("kw.done")
        origin = b.block
        b.cbranch(has_keywords, fold_block, done)
        b.position_at_end(fold_block)
        too_many = b.icmp_signed(">", self.raw_nargs, ir.Constant(_SSIZE, count))
        self.continue_if(b.not_(too_many), self.fallback_block, "kw.count_ok")
        slots = [
            b.gep(folded, [ir.Constant(_I64, position)], source_etype=_PTR)
            for position in range(count)
        ]
        for position, slot in enumerate(slots):
            given = b.icmp_signed(">", self.raw_nargs, ir.Constant(_SSIZE, position))
            raw = b.gep(self.raw_args, [ir.Constant(_I64, position)], source_etype=_PTR)
            safe = b.select(given, raw, slots[position])  # never read past the raw arguments
            b.store(b.select(given, b.load(safe, typ=_PTR), null), slot)
        kw_count = self.load_field(self.kwnames_arg, self.layout.var_size_offset, _SSIZE, 8)
        for keyword in range(count):  # at most one keyword per parameter
            present = b.icmp_signed(">", kw_count, ir.Constant(_SSIZE, keyword))
            next_keyword = self.new_block(f"kw{keyword}.next")
            place = self.new_block(f"kw{keyword}.place")
            b.cbranch(present, place, next_keyword)
            b.position_at_end(place)
            name = self.tuple_item(self.kwnames_arg, keyword)
            index = b.add(self.raw_nargs, ir.Constant(_SSIZE, keyword))
            value = b.load(b.gep(self.raw_args, [index], source_etype=_PTR), typ=_PTR)
            placed = ir.Constant(ir.IntType(1), 0)
            for position, param in enumerate(param_names):
                matches = b.icmp_unsigned("==", name, _object_constant(param))
                free = b.icmp_unsigned("==", b.load(slots[position], typ=_PTR), null)
                take = b.and_(matches, free)
                b.store(b.select(take, value, b.load(slots[position], typ=_PTR)), slots[position])
                placed = b.or_(placed, take)
            self.continue_if(placed, self.fallback_block, f"kw{keyword}.placed")
            b.branch(next_keyword)
            b.position_at_end(next_keyword)
        too_many_keywords = b.icmp_signed(">", kw_count, ir.Constant(_SSIZE, count))
        self.continue_if(b.not_(too_many_keywords), self.fallback_block, "kw.all_placed")
        required = count - min(len(self.defaults), count)
        for position, slot in enumerate(slots):
            current = b.load(slot, typ=_PTR)
            missing = b.icmp_unsigned("==", current, null)
            if position < required:
                self.continue_if(b.not_(missing), self.fallback_block, f"kw.has{position}")
            else:
                default = _object_constant(self.defaults[position - required])
                b.store(b.select(missing, default, current), slot)
        folded_end = b.block
        b.branch(done)
        b.position_at_end(done)
        args = b.phi(_PTR, name="call.args")
        args.add_incoming(self.raw_args, origin)
        args.add_incoming(folded, folded_end)
        nargs = b.phi(_SSIZE, name="call.nargs")
        nargs.add_incoming(self.raw_nargs, origin)
        nargs.add_incoming(ir.Constant(_SSIZE, count), folded_end)
        self.args_arg, self.nargs_arg = args, nargs

    def argument_or_default(self, position: int, required: int) -> ir.Value:
        """args[position], or the parameter's default object when the call omitted it."""
        b = self.builder
        slot = b.gep(self.args_arg, [ir.Constant(_I64, position)], source_etype=_PTR)
        if position < required:
            return b.load(slot, typ=_PTR, align=_PTR_SIZE)
        default = _object_constant(self.defaults[position - required])
        given = self.new_block(f"arg{position}.given")
        join = self.new_block(f"arg{position}.join")
        origin = b.block
        passed = b.icmp_signed(">", self.nargs_arg, ir.Constant(_SSIZE, position))
        b.cbranch(passed, given, join)
        b.position_at_end(given)
        loaded = b.load(slot, typ=_PTR, align=_PTR_SIZE)
        b.branch(join)
        b.position_at_end(join)
        value = b.phi(_PTR, name=f"arg{position}")
        value.add_incoming(loaded, given)
        value.add_incoming(default, origin)
        return value

    def resolve_target(self, target: str | int, fnty: ir.FunctionType) -> ir.Value:
        if isinstance(target, int):
            return _FunctionPointer(fnty, target)
        existing = self.module.globals.get(target)
        if existing is None:
            return ir.Function(self.module, fnty, name=target)
        if not isinstance(existing, ir.Function) or existing.function_type != fnty:
            raise TypeError(f"target {target!r} already declared with a different signature")
        return existing

    def emit_fallback(self) -> None:
        b = self.builder
        b.position_at_end(self.fallback_block)
        result = self.call_capi(
            "PyObject_Vectorcall",
            [_object_constant(self.fallback), self.raw_args, self.raw_nargs, self.kwnames_arg],
        )
        b.ret(result)

    def emit_raise(self) -> None:
        b = self.builder
        null = ir.Constant(_PTR, None)
        b.position_at_end(self.raise_block)
        if self._exc_slot is None:  # no specializations: the block is unreachable
            b.unreachable()
            return
        # raise_exception reads the id and payload from the record's address
        record_address = b.ptrtoint(self._exc_slot, _LONGLONG)
        id_obj = self.call_capi("PyLong_FromLongLong", [record_address])
        fail = self.new_block("raise.fail")
        self.continue_if(b.icmp_unsigned("!=", id_obj, null), fail, "raise.call")
        result = self.call_capi(
            "PyObject_CallOneArg", [_object_constant(self.raise_exception), id_obj]
        )
        self.call_capi("Py_DecRef", [id_obj])
        self.continue_if(b.icmp_unsigned("!=", result, null), fail, "raise.returned")
        # raise_exception returned normally: turn that into a SystemError.
        self.call_capi("Py_DecRef", [result])
        message = _cstring(self.module, "ember: raise_exception() returned without raising")
        self.call_capi("PyErr_SetString", [_object_constant(SystemError), message])
        b.branch(fail)
        b.position_at_end(fail)
        b.ret(null)


def _cstring(module: ir.Module, text: str) -> ir.GlobalVariable:
    data = bytearray(text.encode("utf-8") + b"\0")
    const = ir.Constant(ir.ArrayType(_I8, len(data)), data)
    var = ir.GlobalVariable(module, const.type, name=module.get_unique_name("ember.str"))
    var.linkage = "private"
    var.global_constant = True
    var.unnamed_addr = True
    var.initializer = const
    return var


_symbol_counter = itertools.count()


def _symbol_name(name: str, unique: bool = False) -> str:
    """``ember.entry.<name>``, with a process-wide serial number if ``unique``."""
    base = "ember.entry." + (re.sub(r"[^A-Za-z0-9_.]", "_", name) or "anon")
    return f"{base}.{next(_symbol_counter)}" if unique else base


def build_entry_module(
    name: str,
    specializations: Sequence[Specialization],
    fallback: Callable[..., Any],
    raise_exception: Callable[[int], Any],
    *,
    layout: PyLayout | None = None,
    defaults: Sequence[object] = (),
    release_gil: bool = False,
    param_names: Sequence[str] | None = None,
    array_boxers: dict | None = None,
    capsule_destructor: int | None = None,
) -> tuple[ir.Module, str]:
    """Build an LLVM module holding a ``METH_FASTCALL | METH_KEYWORDS`` entry function.

    The entry is ``PyObject *entry(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
    PyObject *kwnames)``. With no keyword arguments it tries ``specializations`` in order,
    selecting the first whose arity and exact argument types (see :func:`fast_path_supported`)
    match; it unboxes the arguments, calls ``target`` in the ember native convention and
    boxes the result, or calls ``raise_exception(excinfo_address)`` when the target returns
    status 1.
    Keyword arguments, unmatched arguments and ints outside int64 go to
    ``fallback(*args, **kwargs)`` through ``PyObject_Vectorcall``.

    ``target`` is either a symbol name (declared external in the module, to be resolved by
    the JIT) or an absolute function address (embedded as a constant). The addresses of
    ``fallback``, ``raise_exception`` and the C-API are embedded too, so the caller must keep
    ``fallback`` and ``raise_exception`` alive as long as the compiled code may run.

    Returns the module and the entry function's symbol name, which is unique in the process
    (``ember.entry.<name>.<serial>``) so many entries can share one JIT engine.
    """
    layout = layout or probe_layout()
    symbol = _symbol_name(name, unique=True)
    module = ir.Module(name=symbol)
    module.triple = llvm.get_process_triple()
    fnty = ir.FunctionType(_PTR, [_PTR, _PTR, _SSIZE, _PTR])
    function = ir.Function(module, fnty, name=symbol)
    for arg, arg_name in zip(function.args, ("self", "args", "nargs", "kwnames"), strict=True):
        arg.name = arg_name
    codegen = _EntryCodegen(
        module,
        function,
        layout,
        fallback,
        raise_exception,
        defaults,
        release_gil,
        array_boxers,
        capsule_destructor,
    )

    b = codegen.builder
    # Keyword arguments are never on the fast path.
    if param_names is None:
        no_kwnames = b.icmp_unsigned("==", codegen.kwnames_arg, ir.Constant(_PTR, None))
        codegen.continue_if(no_kwnames, codegen.fallback_block, "spec0")
    else:
        codegen.emit_keyword_folding(param_names)
    for index, (arg_kinds, ret_kind, target) in enumerate(specializations):
        for kind in arg_kinds:
            _check_kind(kind)
        _check_kind(ret_kind)
        if not all(fast_path_supported(kind) for kind in arg_kinds):
            continue
        codegen.emit_specialization(index, list(arg_kinds), ret_kind, target)
    b.branch(codegen.fallback_block)
    codegen.emit_fallback()
    codegen.emit_raise()
    codegen.alloca_builder.position_at_end(codegen._entry)
    codegen.alloca_builder.branch(function.blocks[1])
    _emit_tp_call(module, function, layout, fallback)
    _emit_vectorcall(module, function)
    return module, symbol


def tp_call_symbol(entry_symbol: str) -> str:
    """The symbol of the `tp_call` wrapper emitted next to an entry."""
    return entry_symbol + ".tp_call"


def vectorcall_symbol(entry_symbol: str) -> str:
    """The symbol of the vectorcall wrapper emitted next to an entry."""
    return entry_symbol + ".vectorcall"


def _emit_vectorcall(module: ir.Module, entry: ir.Function) -> None:
    """`PyObject *vectorcall(callable, args, nargsf, kwnames)`: strips the
    PY_VECTORCALL_ARGUMENTS_OFFSET bit from nargsf and calls the fastcall entry."""
    fnty = ir.FunctionType(_PTR, [_PTR, _PTR, _SSIZE, _PTR])
    function = ir.Function(module, fnty, name=vectorcall_symbol(entry.name))
    callable_obj, args, nargsf, kwnames = function.args
    b = ir.IRBuilder(function.append_basic_block("entry"))
    nargs = b.and_(nargsf, ir.Constant(_SSIZE, (1 << 63) - 1))
    b.ret(b.call(entry, [callable_obj, args, nargs, kwnames]))


def _emit_tp_call(module: ir.Module, entry: ir.Function, layout: PyLayout, fallback: object):
    """`PyObject *tp_call(self, args_tuple, kwargs)`: the entry behind a type's call slot.

    Without keyword arguments the tuple's item array is handed to the fastcall entry as is;
    with them, the call goes to `fallback(*args, **kwargs)`.
    """
    fnty = ir.FunctionType(_PTR, [_PTR, _PTR, _PTR])
    function = ir.Function(module, fnty, name=tp_call_symbol(entry.name))
    self_obj, args_tuple, kwargs = function.args
    b = ir.IRBuilder(function.append_basic_block("entry"))
    with_kwargs = function.append_basic_block("kwargs")
    positional = function.append_basic_block("positional")
    no_dict = b.icmp_unsigned("==", kwargs, ir.Constant(_PTR, None))
    check_size = function.append_basic_block("kwargs.size")
    b.cbranch(no_dict, positional, check_size)
    b.position_at_end(check_size)
    size_fn = _FunctionPointer(ir.FunctionType(_SSIZE, [_PTR]), _capi_address("PyDict_Size"))
    empty = b.icmp_signed("==", b.call(size_fn, [kwargs]), ir.Constant(_SSIZE, 0))
    b.cbranch(empty, positional, with_kwargs)
    b.position_at_end(with_kwargs)
    call_fn = _FunctionPointer(
        ir.FunctionType(_PTR, [_PTR, _PTR, _PTR]), _capi_address("PyObject_Call")
    )
    b.ret(b.call(call_fn, [_object_constant(fallback), args_tuple, kwargs]))
    b.position_at_end(positional)
    nargs = b.load(
        b.gep(args_tuple, [ir.Constant(_I64, layout.var_size_offset)], source_etype=_I8),
        typ=_SSIZE,
        align=8,
    )
    items = b.gep(args_tuple, [ir.Constant(_I64, layout.tuple_items_offset)], source_etype=_I8)
    b.ret(b.call(entry, [self_obj, items, nargs, ir.Constant(_PTR, None)]))


# --------------------------------------------------------------------------------------------
# Exposing the compiled entry as a builtin
# --------------------------------------------------------------------------------------------


class _PyMethodDef(ctypes.Structure):
    _fields_ = [
        ("ml_name", ctypes.c_char_p),
        ("ml_meth", ctypes.c_void_p),
        ("ml_flags", ctypes.c_int),
        ("ml_doc", ctypes.c_char_p),
    ]


_PyCFunction_NewEx = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.py_object, ctypes.py_object
)(("PyCFunction_NewEx", ctypes.pythonapi))


def make_pycfunction(
    entry_address: int,
    name: str,
    keepalive: list,
    *,
    doc: str | None = None,
    flags: int = METH_FASTCALL | METH_KEYWORDS,
) -> Callable[..., Any]:
    """Wrap the native entry at ``entry_address`` in a real builtin function.

    A ``PyMethodDef`` is allocated in ctypes memory and appended to ``keepalive``. The builtin's
    ``__self__`` is a module object whose ``keepalive`` attribute holds that list, so everything
    in it (the method def, the JIT engine, objects whose addresses the code embeds) lives as
    long as the builtin; a module as ``self`` also makes it print as ``<built-in function>``.
    """
    if not entry_address:
        raise ValueError("null entry address")
    name_bytes = name.encode("utf-8")
    doc_bytes = doc.encode("utf-8") if doc is not None else None
    method_def = _PyMethodDef(name_bytes, entry_address, flags, doc_bytes)
    keepalive.extend([method_def, name_bytes, doc_bytes])
    owner = types.ModuleType(_symbol_name(name), "Owner of a native ember entry point.")
    owner.keepalive = keepalive  # type: ignore[attr-defined]
    return _PyCFunction_NewEx(ctypes.addressof(method_def), owner, None)


# --------------------------------------------------------------------------------------------
# Default JIT and one-call compilation
# --------------------------------------------------------------------------------------------


class SimpleMCJIT:
    """Minimal MCJIT engine implementing the ``add_module`` protocol (used by the tests)."""

    def __init__(self, opt_level: int = 3) -> None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple()
        self.target_machine = target.create_target_machine(opt=opt_level, jit=True)
        self.opt_level = opt_level
        self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), self.target_machine)

    def add_module(self, llvm_ir: str) -> Callable[[str], int]:
        """Parse, verify, optimise and JIT ``llvm_ir``; return a ``symbol -> address`` lookup."""
        mod = llvm.parse_assembly(llvm_ir)
        mod.triple = self.target_machine.triple
        mod.data_layout = str(self.target_machine.target_data)
        mod.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=self.opt_level)
        pb = llvm.create_pass_builder(self.target_machine, pto)
        pb.getModulePassManager().run(mod, pb)
        self.engine.add_module(mod)
        self.engine.finalize_object()
        engine = self.engine

        def lookup(symbol: str) -> int:
            address = engine.get_function_address(symbol)
            if not address:
                raise KeyError(symbol)
            return address

        return lookup


@cache
def default_jit() -> SimpleMCJIT:
    """Process-wide :class:`SimpleMCJIT`, created on first use."""
    return SimpleMCJIT()


def compile_entry(
    name: str,
    specializations: Sequence[Specialization],
    fallback: Callable[..., Any],
    raise_exception: Callable[[int], Any],
    add_module: AddModule | None = None,
    *,
    doc: str | None = None,
    keepalive: list | None = None,
) -> Callable[..., Any]:
    """Build, JIT-compile and wrap an entry function; returns the builtin.

    ``add_module(ir_text) -> lookup(symbol) -> address`` compiles the module (defaults to
    :func:`default_jit`); the lookup and ``keepalive`` (e.g. the owner of the targets' code)
    are kept alive by the returned builtin, together with ``fallback`` and ``raise_exception``.
    """
    module, symbol = build_entry_module(name, specializations, fallback, raise_exception)
    if add_module is None:
        add_module = default_jit().add_module
    lookup = add_module(str(module))
    address = lookup(symbol)
    refs = [*(keepalive or []), fallback, raise_exception, lookup]
    return make_pycfunction(address, name, refs, doc=doc)
