"""Result boxing of the native entry: consumes a native return value in memory and its kind,
produces the Python object (NULL with the error set when allocation fails)."""

from __future__ import annotations

from llvmlite import ir

from ember import types
from ember.dispatcher import datetime_entry, entry_records
from ember.dispatcher.datetime_entry import DatetimeKind
from ember.dispatcher.entry_builder import EntryBuilder
from ember.dispatcher.entry_records import RecordKind
from ember.dispatcher.object_layout import (
    _F64,
    _I8,
    _I32,
    _I64,
    _INT_KINDS,
    _PTR,
    _PTR_SIZE,
    _SCALAR_KINDS,
    _SSIZE,
    ArrayKind,
    GeneratorKind,
    InstanceKind,
    Kind,
    NamedTupleKind,
    OptionalKind,
    SetKind,
    StringKind,
    _object_constant,
    return_memory_type,
)
from ember.runtime import nrt


def _native_list_item_kind(list_type: object) -> Kind | None:
    """The item kind of a reflected list the entry boxes natively: numbers, strings, arrays,
    such lists and tuples of them; else None."""
    from ember.dispatcher.fast_entry import value_kind

    if not isinstance(list_type, types.List) or isinstance(list_type, types.ListType):
        return None
    kind = value_kind(list_type.dtype)
    return kind if kind is not None and _numbers_and_arrays(kind) else None


def _jitclass_slots(kind: InstanceKind) -> tuple[int, int] | None:
    """The `_meminfo` and `_data` slot offsets of a jitclass's boxes, which the entry fills
    itself; None for other boxes (typed containers, structref proxies)."""
    from ember.jitclasses.box import JitClassBox, slot_offset

    if not kind.data_pointer or kind.boxer is not None or kind.tag is not None:
        return None
    if not issubclass(kind.box_class, JitClassBox):
        return None
    if getattr(kind.box_class, "_boxer", None) != kind.box_class._from_native:
        return None
    meminfo, data = slot_offset("_meminfo"), slot_offset("_data")
    return None if meminfo is None or data is None else (meminfo, data)


def _numbers_and_arrays(kind: Kind) -> bool:
    if isinstance(kind, tuple):
        return bool(kind) and all(_numbers_and_arrays(member) for member in kind)
    if isinstance(kind, ArrayKind | StringKind):
        return True
    if isinstance(kind, InstanceKind):  # a list of lists
        return _native_list_item_kind(getattr(kind.box_class, "_ember_type_", None)) is not None
    return isinstance(kind, str) and kind in _SCALAR_KINDS and kind != "none"


class ResultBoxing(EntryBuilder):
    """Boxes a specialization's result (arrays: native_arrays)."""

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
        if isinstance(kind, DatetimeKind):
            return datetime_entry.emit_box(self, kind, ptr)
        if isinstance(kind, StringKind):
            return self.emit_box_string(kind, ptr)
        if isinstance(kind, tuple):
            return self.emit_box_tuple(kind, ptr, mem_type)
        if isinstance(kind, SetKind):
            returned = b.load(ptr, typ=_PTR)
            box = lambda: self.emit_box_set(kind.item, returned)  # noqa: E731
            return self.emit_box_maybe_copied_list(returned, box) if self.copied_lists else box()
        if isinstance(kind, GeneratorKind):
            return self.emit_box_generator(kind, b.load(ptr, typ=_PTR))
        if isinstance(kind, RecordKind):
            return entry_records.emit_box(self, kind, ptr)
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
                part_ptr = self.member_ptr(ptr, mem_type, index)
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
        """`box_class._boxer(meminfo)` (or the kind's own boxer): a new box takes over the
        returned reference; a list argument returned is the caller's list (entry_lists)."""
        if kind.data_pointer or not self.copied_lists:
            return self._emit_new_box(kind, ptr)
        returned = self.builder.load(ptr, typ=_PTR)
        return self.emit_box_maybe_copied_list(returned, lambda: self._emit_new_box(kind, ptr))

    def _emit_new_box(self, kind: InstanceKind, ptr: ir.Value) -> ir.Value:
        b = self.builder
        item_kind = _native_list_item_kind(getattr(kind.box_class, "_ember_type_", None))
        if item_kind is not None:
            return self.emit_box_list(item_kind, b.load(ptr, typ=_PTR))
        jitclass_slots = _jitclass_slots(kind)
        if jitclass_slots is not None:
            return self._emit_new_jitclass_box(
                kind.box_class, jitclass_slots, b.load(ptr, typ=_PTR)
            )
        number = self.call_capi("PyLong_FromVoidPtr", [b.load(ptr, typ=_PTR)])
        result = self.alloca(_PTR, "box.instance")
        b.store(number, result)  # NULL: the error is already set
        with b.if_then(b.icmp_unsigned("!=", number, ir.Constant(_PTR, None)), likely=True):
            boxer = _object_constant(kind.boxer or kind.box_class._boxer)
            b.store(self.call_capi("PyObject_CallOneArg", [boxer, number]), result)
            self.call_capi("Py_DecRef", [number])
        return b.load(result)

    def _emit_new_jitclass_box(
        self, box_class: type, slots: tuple[int, int], meminfo: ir.Value
    ) -> ir.Value:
        """A jitclass box made as `JitClassBox._from_native` makes it, without running Python
        code: an instance of the class whose `_meminfo` and `_data` slots hold the addresses as
        ints (NULL on error: the box, if made, is released and releases the meminfo)."""
        b = self.builder
        null = ir.Constant(_PTR, None)
        result = self.alloca(_PTR, "box.jitclass")
        box = self.call_capi("PyType_GenericAlloc", [_object_constant(box_class), _SSIZE(0)])
        b.store(box, result)
        with b.if_then(b.icmp_unsigned("!=", box, null), likely=True):
            data = b.gep(meminfo, [ir.Constant(_I64, nrt.HEADER_SIZE)], source_etype=_I8)
            filled = ir.Constant(ir.IntType(1), 1)
            for offset, address in zip(slots, (meminfo, data), strict=True):
                number = self.call_capi("PyLong_FromVoidPtr", [address])
                b.store(number, self.field_ptr(box, offset))
                filled = b.and_(filled, b.icmp_unsigned("!=", number, null))
            with b.if_then(b.not_(filled), likely=False):
                self.call_capi("Py_DecRef", [box])
                b.store(null, result)
        return b.load(result)

    def emit_box_generator(self, kind: GeneratorKind, meminfo: ir.Value) -> ir.Value:
        """`kind.boxer(meminfo, *arguments)`: the generator object takes over the state's
        reference and holds the call's arguments (NULL with the error set on failure)."""
        b = self.builder
        null = ir.Constant(_PTR, None)
        arguments = self.argument_objects
        result = self.alloca(_PTR, "box.generator")
        address = self.call_capi("PyLong_FromVoidPtr", [meminfo])
        b.store(address, result)
        with b.if_then(b.icmp_unsigned("!=", address, null), likely=True):
            self.alloca_builder.position_at_start(self._entry)
            vector = self.alloca_builder.alloca(_PTR, size=len(arguments) + 1, name="box.gen.args")
            for index, value in enumerate([address, *arguments]):
                b.store(value, b.gep(vector, [ir.Constant(_I64, index)], source_etype=_PTR))
            count = ir.Constant(_SSIZE, len(arguments) + 1)
            boxer = _object_constant(kind.boxer)
            b.store(self.call_capi("PyObject_Vectorcall", [boxer, vector, count, null]), result)
            self.call_capi("Py_DecRef", [address])
        return b.load(result)

    def emit_box_list(self, item_kind: Kind, meminfo: ir.Value) -> ir.Value:
        """A Python list of a returned list of numbers, arrays or tuples of them, item by item
        (the Python boxer: 5-100 us); takes over the native list's reference (the layout of
        ember/lowering/lists.py). Each boxed array, string or inner list takes a reference of
        its own."""
        b = self.builder
        null = ir.Constant(_PTR, None)
        header = self.load_field(meminfo, 8, _PTR, _PTR_SIZE)
        size = self.load_field(header, 0, _I64, 8)
        items = self._block_data(self.load_field(header, 16, _PTR, _PTR_SIZE), "box.list.items")
        made = self.call_capi("PyList_New", [size])

        def add_item(index: ir.Value, failed: ir.Block) -> None:
            item_ptr = b.gep(items, [index], source_etype=return_memory_type(item_kind))
            self._incref_references(item_kind, item_ptr)
            item = self.emit_box(item_kind, item_ptr)
            self.continue_if(b.icmp_unsigned("!=", item, null), failed, "box.list.item_ok")
            self.call_capi("PyList_SetItem", [made, index, item])  # steals the item

        result = self._emit_filled("list", made, size, add_item)
        self.call_nrt(nrt.DECREF, meminfo)
        return result

    def emit_box_set(self, item_kind: Kind, meminfo: ir.Value) -> ir.Value:
        """A Python set of a returned set's live items, in its insertion order (the table of
        ember/lowering/dicts.py: entries {i64 hash, item}, hash -1 for a deleted one); takes
        over the native set's reference."""
        b = self.builder
        null = ir.Constant(_PTR, None)
        header = self.load_field(meminfo, 8, _PTR, _PTR_SIZE)
        used = self.load_field(header, 8, _I64, 8)
        entries = self._block_data(self.load_field(header, 32, _PTR, _PTR_SIZE), "box.set.entries")
        made = self.call_capi("PySet_New", [null])
        entry_type = ir.LiteralStructType([_I64, return_memory_type(item_kind)])

        def add_item(index: ir.Value, failed: ir.Block) -> None:
            entry = b.gep(entries, [index], source_etype=entry_type)
            hash_value = b.load(self.member_ptr(entry, entry_type, 0), typ=_I64)
            live, following = self.new_block("box.set.live"), self.new_block("box.set.next")
            b.cbranch(b.icmp_signed("==", hash_value, ir.Constant(_I64, -1)), following, live)
            b.position_at_end(live)
            item_ptr = self.member_ptr(entry, entry_type, 1)
            self._incref_references(item_kind, item_ptr)
            item = self.emit_box(item_kind, item_ptr)
            self.continue_if(b.icmp_unsigned("!=", item, null), failed, "box.set.item_ok")
            status = self.call_capi("PySet_Add", [made, item])
            self.call_capi("Py_DecRef", [item])
            self.continue_if(b.icmp_signed("==", status, _I32(0)), failed, "box.set.added")
            b.branch(following)
            b.position_at_end(following)

        result = self._emit_filled("set", made, used, add_item)
        self.call_nrt(nrt.DECREF, meminfo)
        return result

    def _block_data(self, meminfo: ir.Value, name: str) -> ir.Value:
        """The data of a runtime block that may not exist (NULL meminfo: NULL data)."""
        b = self.builder
        null = ir.Constant(_PTR, None)
        data = self.alloca(_PTR, name)
        b.store(null, data)
        with b.if_then(b.icmp_unsigned("!=", meminfo, null)):
            b.store(self.load_field(meminfo, 8, _PTR, _PTR_SIZE), data)
        return b.load(data)

    def _emit_filled(self, name: str, made: ir.Value, count: ir.Value, add_item) -> ir.Value:
        """`made`, a new list or set (NULL if allocating it failed), after `add_item(index,
        failed)` ran for each index below `count`; it may branch to `failed` (then `made` is
        released, its unset items being NULL, and the result is NULL) and otherwise goes on in
        the block it leaves."""
        b = self.builder
        null = ir.Constant(_PTR, None)
        done = self.new_block(f"box.{name}.done")
        boxed: list[tuple[ir.Value, ir.Block]] = [(null, b.block)]
        self.continue_if(b.icmp_unsigned("!=", made, null), done, f"box.{name}.made")
        start = b.block
        loop, body = self.new_block(f"box.{name}.loop"), self.new_block(f"box.{name}.body")
        failed, filled = self.new_block(f"box.{name}.failed"), self.new_block(f"box.{name}.filled")
        b.branch(loop)
        b.position_at_end(loop)
        index = b.phi(_I64, name=f"box.{name}.index")
        index.add_incoming(ir.Constant(_I64, 0), start)
        b.cbranch(b.icmp_signed("<", index, count), body, filled)
        b.position_at_end(body)
        add_item(index, failed)
        index.add_incoming(b.add(index, ir.Constant(_I64, 1)), b.block)
        b.branch(loop)
        b.position_at_end(failed)
        self.call_capi("Py_DecRef", [made])
        boxed.append((null, b.block))
        b.branch(done)
        b.position_at_end(filled)
        boxed.append((made, b.block))
        b.branch(done)
        b.position_at_end(done)
        result = b.phi(_PTR, name=f"box.{name}")
        for value, block in boxed:
            result.add_incoming(value, block)
        return result

    def _incref_references(self, kind: Kind, ptr: ir.Value) -> None:
        """A reference for each array, string or list of a value stored at `ptr` (boxing one
        takes it over); each starts with its meminfo (NULL for a constant string)."""
        if isinstance(kind, ArrayKind | InstanceKind | StringKind):
            self.call_nrt(nrt.INCREF, self.load_field(ptr, 0, _PTR, _PTR_SIZE))
        elif isinstance(kind, tuple):
            mem_type = return_memory_type(kind)
            for index, member in enumerate(kind):
                member_ptr = self.member_ptr(ptr, mem_type, index)
                self._incref_references(member, member_ptr)

    def emit_box_optional(
        self, kind: OptionalKind, ptr: ir.Value, mem_type: ir.LiteralStructType
    ) -> ir.Value:
        """None when the valid byte is 0, else the boxed value."""
        b = self.builder
        valid_ptr = self.member_ptr(ptr, mem_type, 1)
        valid = b.icmp_unsigned("!=", b.load(valid_ptr, typ=_I8), _I8(0))
        with b.if_else(valid) as (some, nothing):
            with some:
                data_ptr = self.member_ptr(ptr, mem_type, 0)
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

    def emit_box_tuple(
        self, kind: tuple[Kind, ...], ptr: ir.Value, mem_type: ir.LiteralStructType
    ) -> ir.Value:
        """A tuple of the boxed members; one array returned twice is one ndarray, as on the
        Python path (runtime/boxing.py's memo)."""
        return self._emit_box_members(kind, ptr, mem_type, _ArrayMemo(self, ptr, kind))

    def _emit_box_members(
        self,
        kind: tuple[Kind, ...],
        ptr: ir.Value,
        mem_type: ir.LiteralStructType,
        memo: _ArrayMemo,
        path: tuple[int, ...] = (),
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
            member_ptr = self.member_ptr(ptr, mem_type, index)
            member_path = (*path, index)
            if isinstance(member, tuple):
                member_type = return_memory_type(member)
                item = self._emit_box_members(member, member_ptr, member_type, memo, member_path)
            elif isinstance(member, ArrayKind):
                item = memo.emit_box_array(member, member_ptr, member_path)
            else:
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
        return self._emit_named(kind.named, phi) if isinstance(kind, NamedTupleKind) else phi

    def _emit_named(self, named: type, members: ir.Value) -> ir.Value:
        """`named(*members)` (NULL on error or when `members` is NULL), as the Python path
        makes a namedtuple; takes over the reference to the tuple of members."""
        b = self.builder
        null = ir.Constant(_PTR, None)
        result = self.alloca(_PTR, "box.named")
        b.store(null, result)
        with b.if_then(b.icmp_unsigned("!=", members, null), likely=True):
            made = self.call_capi("PyObject_Call", [_object_constant(named), members, null])
            b.store(made, result)
            self.call_capi("Py_DecRef", [members])
        return b.load(result)


class _ArrayMemo:
    """The arrays a tuple result has boxed so far: a later member of the same kind over the
    same runtime memory, data, shape and strides is the earlier member's ndarray again (its
    own meminfo reference dropped). Members are found again from the result's address by
    their path, and their ndarrays kept in entry slots, so nested tuples' blocks need not
    dominate the later members."""

    def __init__(self, boxing: ResultBoxing, result_ptr: ir.Value, kind: tuple) -> None:
        self.boxing = boxing
        self.result_ptr = result_ptr
        self.result_kind = kind
        self.boxed: list[tuple[ArrayKind, tuple[int, ...], ir.Value]] = []

    def emit_box_array(self, kind: ArrayKind, ptr: ir.Value, path: tuple[int, ...]) -> ir.Value:
        boxing, b = self.boxing, self.boxing.builder
        null = ir.Constant(_PTR, None)
        done = boxing.new_block("box.once.done")
        incoming: list[tuple[ir.Value, ir.Block]] = []
        meminfo = boxing.load_field(ptr, 0, _PTR, _PTR_SIZE)
        for earlier_kind, earlier_path, earlier_slot in self.boxed:
            if earlier_kind != kind:
                continue
            earlier_ptr = self._member_ptr(earlier_path)
            earlier = b.load(earlier_slot)
            same = b.icmp_unsigned("!=", meminfo, null)  # an argument returned is itself
            offsets = [0, 32, *range(40, 40 + 16 * kind.ndim, 8)]
            same = b.and_(same, self._same_words(ptr, earlier_ptr, offsets))
            repeat, other = boxing.new_block("box.once.repeat"), boxing.new_block("box.once.other")
            b.cbranch(same, repeat, other)
            b.position_at_end(repeat)
            boxing.incref_object(earlier)
            boxing.call_nrt(nrt.DECREF, meminfo)
            incoming.append((earlier, b.block))
            b.branch(done)
            b.position_at_end(other)
        item = boxing.emit_box_array(kind, ptr)
        incoming.append((item, b.block))
        b.branch(done)
        b.position_at_end(done)
        result = b.phi(_PTR, name="box.once")
        for value, block in incoming:
            result.add_incoming(value, block)
        if self._repeats(kind):
            slot = boxing.alloca(_PTR, "box.once.slot")
            b.store(result, slot)
            self.boxed.append((kind, path, slot))
        return result

    def _repeats(self, kind: ArrayKind) -> bool:
        """Whether the result holds more than one array of this kind (else no slot is kept)."""

        def count(member: Kind) -> int:
            if isinstance(member, tuple):
                return sum(count(inner) for inner in member)
            return int(member == kind)

        return count(self.result_kind) > 1

    def _member_ptr(self, path: tuple[int, ...]) -> ir.Value:
        ptr, kind = self.result_ptr, self.result_kind
        for index in path:
            ptr = self.boxing.member_ptr(ptr, return_memory_type(kind), index)
            kind = kind[index]
        return ptr

    def _same_words(self, ptr: ir.Value, other: ir.Value, offsets: list[int]) -> ir.Value:
        """Whether the 8-byte words at `offsets` of two native values are equal."""
        b, load = self.boxing.builder, self.boxing.load_field
        same = ir.Constant(ir.IntType(1), 1)
        for offset in offsets:
            equal = b.icmp_unsigned("==", load(ptr, offset, _I64, 8), load(other, offset, _I64, 8))
            same = b.and_(same, equal)
        return same
