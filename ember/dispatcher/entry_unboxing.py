"""Argument matching and unboxing of the native entry: consumes the Python objects of a call
and a specialization's argument kinds, produces type checks and flattened native values."""

from __future__ import annotations

import ctypes

from llvmlite import ir

from ember.dispatcher import datetime_entry, entry_buffers, entry_records, entry_slices
from ember.dispatcher.datetime_entry import DatetimeKind
from ember.dispatcher.entry_buffers import ByteArrayKind, MemoryViewKind
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
        matcher = _MATCHERS.get(type(kind))
        if matcher is not None:
            matcher(self, obj, kind, fail)
        elif isinstance(kind, tuple):
            self.emit_match_tuple(obj, kind, fail)
        elif kind == "bool":
            self.emit_match_bool(obj, fail)
        elif kind == "none":
            same = self.builder.icmp_unsigned("==", obj, _object_constant(None))
            self.continue_if(same, fail, "none_ok")
        else:
            self.emit_match_number(obj, kind, fail)

    def emit_match_constant(self, obj: ir.Value, kind: ConstantKind, fail: ir.Block) -> None:
        b = self.builder
        cell = ir.Constant(_I64, ctypes.addressof(kind.cell)).inttoptr(_PTR)
        self.continue_if(b.icmp_unsigned("==", obj, b.load(cell, typ=_PTR)), fail, "constant_ok")

    def emit_match_enum(self, obj: ir.Value, kind: EnumKind, fail: ir.Block) -> None:
        same = self.builder.icmp_unsigned(
            "==", self.ob_type(obj), _object_constant(kind.enum_class)
        )
        self.continue_if(same, fail, "enum_ok")

    def emit_match_instance(self, obj: ir.Value, kind: InstanceKind, fail: ir.Block) -> None:
        b = self.builder
        same = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(kind.box_class))
        self.continue_if(same, fail, "instance_ok")
        if kind.tag is not None:
            tag = self.load_field(obj, kind.tag_offset, _PTR, _PTR_SIZE)
            same = b.icmp_unsigned("==", tag, _object_constant(kind.tag))
            self.continue_if(same, fail, "instance_tag_ok")

    def emit_match_tuple(self, obj: ir.Value, kind: tuple, fail: ir.Block) -> None:
        """An exact tuple (or the namedtuple class) of the kind's length, each item matched."""
        b = self.builder
        exact = kind.named if isinstance(kind, NamedTupleKind) else tuple
        is_tuple = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(exact))
        self.continue_if(is_tuple, fail, "tuple.type_ok")
        size = self.load_field(obj, self.layout.var_size_offset, _SSIZE, 8)
        size_ok = b.icmp_signed("==", size, ir.Constant(_SSIZE, len(kind)))
        self.continue_if(size_ok, fail, "tuple.size_ok")
        for index, member in enumerate(kind):
            self.emit_match(self.tuple_item(obj, index), member, fail)

    def emit_match_bool(self, obj: ir.Value, fail: ir.Block) -> None:
        """True, False or a NumPy bool."""
        b = self.builder
        is_true = b.icmp_unsigned("==", obj, _object_constant(True))
        accepted = b.or_(is_true, b.icmp_unsigned("==", obj, _object_constant(False)))
        numpy_bool = numpy_scalar_type("bool")
        if numpy_bool is not None:
            is_numpy = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(numpy_bool))
            accepted = b.or_(accepted, is_numpy)
        self.continue_if(accepted, fail, "bool_ok")

    def emit_match_number(self, obj: ir.Value, kind: str, fail: ir.Block) -> None:
        """The Python number class typed as `kind` (int, float, complex) or its NumPy scalar."""
        b = self.builder
        candidates = [{"int64": int, "float64": float, "complex128": complex}.get(kind)]
        candidates.append(numpy_scalar_type(kind))
        ob_type = self.ob_type(obj)
        same = ir.Constant(ir.IntType(1), 0)
        for pytype in filter(None, candidates):
            same = b.or_(same, b.icmp_unsigned("==", ob_type, _object_constant(pytype)))
        self.continue_if(same, fail, f"{kind}_ok")

    def emit_unbox(self, obj: ir.Value, kind: Kind, fail: ir.Block) -> list[ir.Value]:
        """Unbox an already-matched ``obj`` into flattened native values (``fail`` on overflow)."""
        unboxer = _UNBOXERS.get(type(kind))
        if unboxer is not None:
            return unboxer(self, obj, kind, fail)
        if isinstance(kind, tuple):
            values: list[ir.Value] = []
            for index, member in enumerate(kind):
                values.extend(self.emit_unbox(self.tuple_item(obj, index), member, fail))
            return values
        numpy_type = numpy_scalar_type(kind)
        if numpy_type is not None:
            return self.emit_unbox_numpy_or_python(obj, kind, numpy_type, fail)
        return self.emit_unbox_python(obj, kind, fail)

    def emit_unbox_instance(self, obj: ir.Value, kind: InstanceKind) -> list[ir.Value]:
        """Borrowed: the box keeps its reference."""
        number = self.load_field(obj, kind.meminfo_offset, _PTR, _PTR_SIZE)
        meminfo = self.call_capi("PyLong_AsVoidPtr", [number])
        if not kind.data_pointer:
            return [meminfo]
        data = self.builder.gep(
            meminfo, [ir.Constant(_I64, _NRT_HEADER_SIZE)], source_etype=_I8, inbounds=True
        )
        return [meminfo, data]

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


def _match_exact_scalar(entry, obj, kind: ExactScalarKind, fail) -> None:
    """A Python number or a NumPy scalar of 64 bits, matched by its exact class."""
    same = entry.builder.icmp_unsigned(
        "==", entry.ob_type(obj), _object_constant(kind.python_class())
    )
    entry.continue_if(same, fail, f"{kind.name}_exact")


def _unbox_exact_scalar(entry, obj, kind: ExactScalarKind, fail) -> list:
    """Its class matched already: one way to unbox."""
    if kind.numpy:
        return entry.load_scalar(kind.name, entry.field_ptr(obj, _NUMPY_SCALAR_VALUE_OFFSET))
    return entry.emit_unbox_python(obj, kind.name, fail)


def _own(name: str):
    """A table entry calling the entry's own method `name(obj, kind, fail)`."""
    return lambda entry, obj, kind, fail: getattr(entry, name)(obj, kind, fail)


# Per kind class: how an argument of it is matched, and unboxed once matched (each called as
# `(entry, obj, kind, fail)`); kinds spelled as strings (numbers, bool, None) and plain tuples
# are handled by ArgumentUnboxing itself.
_MATCHERS = {
    ArrayKind: _own("emit_match_array"),
    ReflectedListKind: _own("emit_match_list"),
    StringKind: _own("emit_match_string"),
    ConstantKind: _own("emit_match_constant"),
    EnumKind: _own("emit_match_enum"),
    InstanceKind: _own("emit_match_instance"),
    NamedTupleKind: _own("emit_match_tuple"),
    DatetimeKind: datetime_entry.emit_match,
    SliceKind: entry_slices.emit_match,
    RecordKind: entry_records.emit_match,
    ByteArrayKind: entry_buffers.emit_match,
    MemoryViewKind: entry_buffers.emit_match_memoryview,
    ExactScalarKind: _match_exact_scalar,
}
_UNBOXERS = {
    ArrayKind: lambda entry, obj, kind, fail: entry.emit_unbox_array(obj, kind),
    StringKind: lambda entry, obj, kind, fail: [entry.defer_string(obj, kind)],  # copied last
    ConstantKind: lambda entry, obj, kind, fail: [],
    EnumKind: lambda entry, obj, kind, fail: [entry.emit_enum_value(obj, kind)],
    InstanceKind: lambda entry, obj, kind, fail: entry.emit_unbox_instance(obj, kind),
    DatetimeKind: datetime_entry.emit_unbox,
    SliceKind: entry_slices.emit_unbox,
    RecordKind: entry_records.emit_unbox,
    ByteArrayKind: entry_buffers.emit_unbox,
    MemoryViewKind: entry_buffers.emit_unbox_memoryview,
    ExactScalarKind: _unbox_exact_scalar,
}
