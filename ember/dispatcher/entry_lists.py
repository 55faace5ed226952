"""Reflected-list arguments in the native entry: a Python list is copied into a native list by
its list type's generated `unbox_exact` and written back by `reflect` after the call
(ember/dispatcher/reflected_lists.py). Typed lists (`ListType`) are instances, lent as they are."""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ember.dispatcher.entry_builder import EntryBuilder
from ember.dispatcher.object_layout import (
    _I32,
    _PTR,
    ReflectedListKind,
    _FunctionPointer,
    _object_constant,
)
from ember.runtime import nrt

_NULL = ir.Constant(_PTR, None)
_UNBOX = ir.FunctionType(_PTR, [_PTR])
_REFLECT = ir.FunctionType(_I32, [_PTR, _PTR])
_RELEASE = ir.FunctionType(ir.VoidType(), [_PTR])


@dataclass
class UnboxedList:
    """A Python list argument of the call being emitted: its object, the meminfo of its
    native copy (reflected and released after the call), the kind."""

    obj: ir.Value
    meminfo: ir.Value
    kind: ReflectedListKind


class ListArgumentCodegen(EntryBuilder):
    """Matches, unboxes and writes back list arguments for the entry's code generator."""

    def emit_match_list(self, obj: ir.Value, kind: ReflectedListKind, fail: ir.Block) -> None:
        """A Python list or set (its items are checked as it is copied); typed lists have a
        type of their own (`ListType`) and their own kind."""
        is_container = self.builder.icmp_unsigned(
            "==", self.ob_type(obj), _object_constant(kind.container)
        )
        self.continue_if(is_container, fail, "list_ok")

    def emit_unbox_list(
        self, obj: ir.Value, kind: ReflectedListKind, unboxed: list, other_items: ir.Block
    ) -> list[ir.Value]:
        """The meminfo of a native copy of a Python list argument. A list whose items are not
        of the list type goes to `other_items` (the next specialization) after the lists in
        `unboxed`, copied before it, are released; this one joins them."""
        b = self.builder
        result = self.alloca(_PTR, "list_meminfo")
        joined = self.new_block("list_unboxed")
        for earlier in unboxed:  # the same Python list passed twice: one native list, as Numba
            if earlier.kind != kind:
                continue
            shared = self.new_block("list_shared")
            not_shared = self.new_block("list_not_shared")
            b.cbranch(b.icmp_unsigned("==", obj, earlier.obj), shared, not_shared)
            with b.goto_block(shared):
                nrt.emit_incref(b, earlier.meminfo)  # each argument releases its reference
                b.store(earlier.meminfo, result)
                b.branch(joined)
            b.position_at_end(not_shared)
        copied = b.call(_FunctionPointer(_UNBOX, kind.unbox), [obj])
        b.store(copied, result)
        refused = self.new_block("list_items_differ")
        b.cbranch(b.icmp_unsigned("!=", copied, _NULL), joined, refused)
        with b.goto_block(refused):
            self._release(unboxed)
            b.branch(other_items)
        b.position_at_end(joined)
        meminfo = b.load(result)
        unboxed.append(UnboxedList(obj, meminfo, kind))
        return [meminfo]

    def emit_reflect_lists(self, unboxed: list) -> None:
        """Write the copied lists back (releasing them) after the call; return NULL with the
        exception set if one cannot be (out of memory: the call's result is then lost)."""
        if not unboxed:
            return
        b = self.builder
        failed = self.alloca(ir.IntType(1), "reflect_failed")
        b.store(ir.Constant(ir.IntType(1), 0), failed)
        for entry in unboxed:
            reflect = _FunctionPointer(_REFLECT, entry.kind.reflect)
            status = b.call(reflect, [entry.obj, entry.meminfo])
            with b.if_then(b.icmp_signed("!=", status, _I32(0)), likely=False):
                b.store(ir.Constant(ir.IntType(1), 1), failed)
        with b.if_then(b.load(failed), likely=False):
            b.ret(_NULL)

    def emit_box_maybe_copied_list(self, returned: ir.Value, box) -> ir.Value:
        """Box a returned list or set (meminfo `returned`): a Python list (set) argument copied
        for this call comes back as the caller's object itself, as Numba does (written back
        already; the returned reference to the native copy is dropped); any other by `box()`."""
        b = self.builder
        result = self.alloca(_PTR, "box.list")
        found = self.alloca(ir.IntType(1), "box.list_is_argument")
        b.store(ir.Constant(ir.IntType(1), 0), found)
        for entry in self.copied_lists:
            same = b.icmp_unsigned("==", returned, entry.meminfo)
            with b.if_then(b.and_(same, b.not_(b.load(found)))):
                b.call(_FunctionPointer(_RELEASE, entry.kind.release), [returned])
                self.incref_object(entry.obj)
                b.store(entry.obj, result)
                b.store(ir.Constant(ir.IntType(1), 1), found)
        with b.if_then(b.not_(b.load(found))):
            b.store(box(), result)
        return b.load(result)

    def _release(self, unboxed: list) -> None:
        b = self.builder
        for entry in unboxed:
            release = _FunctionPointer(_RELEASE, entry.kind.release)
            b.call(release, [entry.meminfo])
