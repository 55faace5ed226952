"""Argument matching and unboxing of the native entry: consumes the Python objects of a call
and a specialization's argument kinds, produces type checks and flattened native values."""

from __future__ import annotations

import ctypes

from llvmlite import ir

from ember.dispatcher import datetime_entry, entry_buffers, entry_records, entry_slices
from ember.dispatcher.datetime_entry import DatetimeKind
from ember.dispatcher.entry_buffers import ByteArrayKind
from ember.dispatcher.entry_builder import EntryBuilder
from ember.dispatcher.entry_records import RecordKind
from ember.dispatcher.entry_slices import SliceKind
from ember.dispatcher.object_layout import (
    _F64,
    _FAST_PATH_SCALARS,
    _I8,
    _I32,
    _I64,
    _LONGLONG,
    _NUMPY_SCALAR_VALUE_OFFSET,
    _PTR,
    _PTR_SIZE,
    _SSIZE,
    ArrayKind,
    ConstantKind,
    EnumKind,
    ExactScalarKind,
    InstanceKind,
    Kind,
    NamedTupleKind,
    ReflectedListKind,
    StringKind,
    _object_constant,
    flatten_arg_types,
    numpy_scalar_type,
    return_memory_type,
)
from ember.runtime.nrt import HEADER_SIZE as _NRT_HEADER_SIZE


class ArgumentUnboxing(EntryBuilder):
    """Matches each argument object against its kind and unboxes it (arrays: native_arrays,
    lists: entry_lists)."""

    def emit_match(self, obj: ir.Value, kind: Kind, fail: ir.Block) -> None:
        """Emit exact-type checks of ``obj`` against ``kind``; branch to ``fail`` on mismatch."""
        b = self.builder
        if isinstance(kind, ExactScalarKind):
            same = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(kind.python_class()))
            self.continue_if(same, fail, f"{kind.name}_exact")
            return
        if isinstance(kind, ArrayKind):
            self.emit_match_array(obj, kind, fail)
            return
        if isinstance(kind, ReflectedListKind):
            self.emit_match_list(obj, kind, fail)
            return
        if isinstance(kind, StringKind):
            self.emit_match_string(obj, kind, fail)
            return
        if isinstance(kind, DatetimeKind):
            datetime_entry.emit_match(self, obj, kind, fail)
            return
        if isinstance(kind, SliceKind):
            entry_slices.emit_match(self, obj, kind, fail)
            return
        if isinstance(kind, RecordKind):
            entry_records.emit_match(self, obj, kind, fail)
            return
        if isinstance(kind, ByteArrayKind):
            entry_buffers.emit_match(self, obj, fail)
            return
        if isinstance(kind, ConstantKind):
            cell = ir.Constant(_I64, ctypes.addressof(kind.cell)).inttoptr(_PTR)
            same = b.icmp_unsigned("==", obj, b.load(cell, typ=_PTR))
            self.continue_if(same, fail, "constant_ok")
            return
        if isinstance(kind, EnumKind):
            same = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(kind.enum_class))
            self.continue_if(same, fail, "enum_ok")
            return
        if isinstance(kind, InstanceKind):
            same = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(kind.box_class))
            self.continue_if(same, fail, "instance_ok")
            if kind.tag is not None:
                tag = self.load_field(obj, kind.tag_offset, _PTR, _PTR_SIZE)
                same = b.icmp_unsigned("==", tag, _object_constant(kind.tag))
                self.continue_if(same, fail, "instance_tag_ok")
            return
        if isinstance(kind, tuple):
            exact = kind.named if isinstance(kind, NamedTupleKind) else tuple
            is_tuple = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(exact))
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

    def emit_unbox(self, obj: ir.Value, kind: Kind, fail: ir.Block) -> list[ir.Value]:
        """Unbox an already-matched ``obj`` into flattened native values (``fail`` on overflow)."""
        if isinstance(kind, ExactScalarKind):  # its class matched already: one way to unbox
            if kind.numpy:
                return self.load_scalar(kind.name, self.field_ptr(obj, _NUMPY_SCALAR_VALUE_OFFSET))
            return self.emit_unbox_python(obj, kind.name, fail)
        if isinstance(kind, ConstantKind):
            return []
        if isinstance(kind, EnumKind):
            return [self.emit_enum_value(obj, kind)]
        if isinstance(kind, InstanceKind):  # borrowed: the box keeps its reference
            number = self.load_field(obj, kind.meminfo_offset, _PTR, _PTR_SIZE)
            meminfo = self.call_capi("PyLong_AsVoidPtr", [number])
            if not kind.data_pointer:
                return [meminfo]
            data = self.builder.gep(
                meminfo, [ir.Constant(_I64, _NRT_HEADER_SIZE)], source_etype=_I8, inbounds=True
            )
            return [meminfo, data]
        if isinstance(kind, StringKind):  # copied after the unboxing that may fail
            return [self.defer_string(obj, kind)]
        if isinstance(kind, ArrayKind):
            return self.emit_unbox_array(obj, kind)
        if isinstance(kind, DatetimeKind):
            return datetime_entry.emit_unbox(self, obj)
        if isinstance(kind, SliceKind):
            return entry_slices.emit_unbox(self, obj, kind, fail)
        if isinstance(kind, RecordKind):
            return entry_records.emit_unbox(self, obj)
        if isinstance(kind, ByteArrayKind):
            return entry_buffers.emit_unbox(self, obj)
        if isinstance(kind, tuple):
            values: list[ir.Value] = []
            for index, member in enumerate(kind):
                values.extend(self.emit_unbox(self.tuple_item(obj, index), member, fail))
            return values
        numpy_type = numpy_scalar_type(kind)
        if numpy_type is not None:
            return self.emit_unbox_numpy_or_python(obj, kind, numpy_type, fail)
        return self.emit_unbox_python(obj, kind, fail)

    def emit_enum_value(self, obj: ir.Value, kind: EnumKind) -> ir.Value:
        """The value of the (already matched) member `obj`: a select per member by identity."""
        b = self.builder
        [value_type] = flatten_arg_types(kind.value_kind)
        members = kind.members
        value = ir.Constant(value_type, members[0][1])
        for member, member_value in members[1:]:
            same = b.icmp_unsigned("==", obj, _object_constant(member))
            value = b.select(same, ir.Constant(value_type, member_value), value)
        return value

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
        numpy_values = self.load_scalar(kind, self.field_ptr(obj, _NUMPY_SCALAR_VALUE_OFFSET))
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

    def load_scalar(self, kind: str, ptr: ir.Value) -> list[ir.Value]:
        """The flattened argument values of a scalar stored at ``ptr`` in its memory layout.
        A complex is loaded part by part: LLVM's fast instruction selector takes no
        whole-struct load."""
        b = self.builder
        memory = return_memory_type(kind)
        if kind in ("complex64", "complex128"):
            part = memory.elements[0]
            size = 4 if kind == "complex64" else 8
            return [b.load(self.field_ptr(ptr, offset), typ=part) for offset in (0, size)]
        value = b.load(ptr, typ=memory)
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
