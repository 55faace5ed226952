"""The opcode handlers of object mode (ember/lowering/object_mode.py): one method per CPython
3.11 opcode, each popping owned references, calling the C-API (or a helper of
object_mode_helpers.py) and pushing a new reference."""

from __future__ import annotations

import builtins
import ctypes
from functools import partialmethod

from llvmlite import ir as llvm

from ember.errors import UnsupportedError
from ember.ir.nodes import Loc
from ember.lowering import object_mode_helpers as helpers
from ember.lowering.callconv import alloca_in_entry

_PTR = llvm.PointerType()
_I1 = llvm.IntType(1)
_INT = llvm.IntType(ctypes.sizeof(ctypes.c_int) * 8)
_SSIZE = llvm.IntType(ctypes.sizeof(ctypes.c_ssize_t) * 8)
_SIZE = llvm.IntType(ctypes.sizeof(ctypes.c_size_t) * 8)
_NULL = llvm.Constant(_PTR, None)
_VECTORCALL_ARGUMENTS_OFFSET = 1 << (ctypes.sizeof(ctypes.c_size_t) * 8 - 1)


class ObjectModeOps:
    """Mixin of ObjectModeFunction: `self.builder`, the stack (`push`/`pop`/`peek`/`poke`),
    `capi`, `call_helper`, `check`, `constant`, `new_ref` come from there."""

    kw_names: tuple = ()

    # ------------------------------------------------------------------ helpers

    def _helper_result(self, helper, *args: llvm.Value, release: tuple = ()) -> llvm.Value:
        """Call `helper`, release `release`, check the result (a helper's own traceback
        frames are dropped: the error is reported at the user's line)."""
        result = self.call_helper(helper, *args)
        for obj in release:
            self.decref(obj)
        self.check(result, from_helper=True)
        return result

    def _bool(self, bit: llvm.Value) -> llvm.Value:
        result = self.builder.select(bit, self.constant(True), self.constant(False))
        self.incref(result)
        return result

    def _unsupported(self, what: str) -> None:
        raise UnsupportedError(
            f"{what} is not supported in object mode yet", Loc(self.code.co_filename, self.line)
        )

    # ------------------------------------------------------------------ stack

    def op_POP_TOP(self, inst) -> None:
        self.decref(self.pop())

    def op_PUSH_NULL(self, inst) -> None:
        self.push(_NULL)

    def op_COPY(self, inst) -> None:
        value = self.peek(inst.arg)
        self.incref(value)
        self.push(value)

    def op_SWAP(self, inst) -> None:
        top, other = self.peek(1), self.peek(inst.arg)
        self.poke(1, other)
        self.poke(inst.arg, top)

    def op_COPY_FREE_VARS(self, inst) -> None:
        """The closure's cells were stored in their slots on entry."""

    # ------------------------------------------------------------------ names

    def op_LOAD_CONST(self, inst) -> None:
        self.push(self.new_ref(inst.argval))

    def op_LOAD_FAST(self, inst) -> None:
        value = self.builder.load(self.slots[inst.argval], typ=_PTR)
        self._check_bound(value, inst.argval)
        self.incref(value)
        self.push(value)

    op_LOAD_FAST_CHECK = op_LOAD_FAST

    def _check_bound(self, value: llvm.Value, name: str) -> None:
        with self.builder.if_then(self.builder.icmp_unsigned("==", value, _NULL), likely=False):
            self.set_error(
                UnboundLocalError,
                f"cannot access local variable '{name}' where it is not associated with a value",
            )
            self.builder.branch(self._error_block())
        # if_then left a terminated block: continue in the block it made after it

    def op_STORE_FAST(self, inst) -> None:
        slot = self.slots[inst.argval]
        old = self.builder.load(slot, typ=_PTR)
        self.builder.store(self.pop(), slot)
        self.decref(old)

    def op_DELETE_FAST(self, inst) -> None:
        slot = self.slots[inst.argval]
        old = self.builder.load(slot, typ=_PTR)
        self._check_bound(old, inst.argval)
        self.builder.store(_NULL, slot)
        self.decref(old)

    def op_LOAD_GLOBAL(self, inst) -> None:
        if inst.arg & 1:
            self.push(_NULL)
        name = self.constant(inst.argval)
        found = self.capi("PyDict_GetItemWithError", self.constant(self.py_func.__globals__), name)
        result = llvm_slot = alloca_in_entry(self.builder, _PTR)
        self.builder.store(found, llvm_slot)
        missing = self.builder.icmp_unsigned("==", found, _NULL)
        with self.builder.if_then(missing, likely=False):
            self.check(self.builder.icmp_unsigned("!=", self.capi("PyErr_Occurred"), _NULL), "true")
            builtin = self.capi("PyDict_GetItemWithError", self.constant(_builtins_of(self)), name)
            self.builder.store(builtin, llvm_slot)
            with self.builder.if_then(self.builder.icmp_unsigned("==", builtin, _NULL)):
                self.check(
                    self.builder.icmp_unsigned("!=", self.capi("PyErr_Occurred"), _NULL), "true"
                )
                self.set_error(NameError, f"name '{inst.argval}' is not defined")
                self.builder.branch(self._error_block())
        value = self.builder.load(result, typ=_PTR)
        self.incref(value)
        self.push(value)

    def op_STORE_GLOBAL(self, inst) -> None:
        value = self.pop()
        globals_ = self.constant(self.py_func.__globals__)
        status = self.capi("PyDict_SetItem", globals_, self.constant(inst.argval), value)
        self.decref(value)
        self.check(status, "negative")

    def op_LOAD_DEREF(self, inst) -> None:
        cell = self.builder.load(self.slots[inst.argval], typ=_PTR)
        value = self.capi("PyCell_Get", cell)
        with self.builder.if_then(self.builder.icmp_unsigned("==", value, _NULL), likely=False):
            self.set_error(
                NameError,
                f"cannot access free variable '{inst.argval}' where it is not associated with "
                "a value in enclosing scope",
            )
            self.builder.branch(self._error_block())
        self.push(value)

    def op_STORE_DEREF(self, inst) -> None:
        value = self.pop()
        cell = self.builder.load(self.slots[inst.argval], typ=_PTR)
        status = self.capi("PyCell_Set", cell, value)
        self.decref(value)
        self.check(status, "negative")

    def op_MAKE_CELL(self, inst) -> None:
        slot = self.slots[inst.argval]
        old = self.builder.load(slot, typ=_PTR)
        cell = self.capi("PyCell_New", old)
        self.decref(old)
        self.builder.store(cell, slot)
        self.check(cell)

    def op_LOAD_CLOSURE(self, inst) -> None:
        cell = self.builder.load(self.slots[inst.argval], typ=_PTR)
        self.incref(cell)
        self.push(cell)

    # ------------------------------------------------------------------ attributes, items

    def op_LOAD_ATTR(self, inst) -> None:
        obj = self.pop()
        value = self.capi("PyObject_GetAttr", obj, self.constant(inst.argval))
        self.decref(obj)
        self.check(value)
        self.push(value)

    def op_LOAD_METHOD(self, inst) -> None:
        self.op_LOAD_ATTR(inst)
        attr = self.pop()
        self.push(_NULL)
        self.push(attr)

    def op_STORE_ATTR(self, inst) -> None:
        obj, value = self.pop(), self.pop()
        status = self.capi("PyObject_SetAttr", obj, self.constant(inst.argval), value)
        self.decref(obj)
        self.decref(value)
        self.check(status, "negative")

    def op_DELETE_ATTR(self, inst) -> None:
        obj = self.pop()
        status = self.capi("PyObject_SetAttr", obj, self.constant(inst.argval), _NULL)
        self.decref(obj)
        self.check(status, "negative")

    def op_BINARY_SUBSCR(self, inst) -> None:
        index, container = self.pop(), self.pop()
        value = self.capi("PyObject_GetItem", container, index)
        self.decref(index)
        self.decref(container)
        self.check(value)
        self.push(value)

    def op_STORE_SUBSCR(self, inst) -> None:
        index, container, value = self.pop(), self.pop(), self.pop()
        status = self.capi("PyObject_SetItem", container, index, value)
        for obj in (index, container, value):
            self.decref(obj)
        self.check(status, "negative")

    def op_DELETE_SUBSCR(self, inst) -> None:
        index, container = self.pop(), self.pop()
        status = self.capi("PyObject_DelItem", container, index)
        self.decref(index)
        self.decref(container)
        self.check(status, "negative")

    def op_BUILD_SLICE(self, inst) -> None:
        step = self.pop() if inst.arg == 3 else _NULL
        stop, start = self.pop(), self.pop()
        value = self.capi("PySlice_New", start, stop, step)
        for obj in (start, stop, step):
            self.decref(obj)
        self.check(value)
        self.push(value)

    # ------------------------------------------------------------------ operators

    def op_BINARY_OP(self, inst) -> None:
        from ember.lowering.object_mode import _binary_function

        rhs, lhs = self.pop(), self.pop()
        name = _binary_function(inst.arg)
        extra = [self.constant(None)] if name.endswith("Power") else []
        value = self.capi(name, lhs, rhs, *extra)
        self.decref(lhs)
        self.decref(rhs)
        self.check(value)
        self.push(value)

    def op_COMPARE_OP(self, inst) -> None:
        rhs, lhs = self.pop(), self.pop()
        value = self.capi("PyObject_RichCompare", lhs, rhs, _INT(inst.arg))
        self.decref(lhs)
        self.decref(rhs)
        self.check(value)
        self.push(value)

    def op_IS_OP(self, inst) -> None:
        rhs, lhs = self.pop(), self.pop()
        same = self.builder.icmp_unsigned("==" if not inst.arg else "!=", lhs, rhs)
        self.decref(lhs)
        self.decref(rhs)
        self.push(self._bool(same))

    def op_CONTAINS_OP(self, inst) -> None:
        container, item = self.pop(), self.pop()
        found = self.capi("PySequence_Contains", container, item)
        self.decref(container)
        self.decref(item)
        self.check(found, "negative")
        self.push(
            self._bool(self.builder.icmp_signed("==" if not inst.arg else "!=", found, _INT(1)))
        )

    def _unary(self, name: str) -> None:
        operand = self.pop()
        value = self.capi(name, operand)
        self.decref(operand)
        self.check(value)
        self.push(value)

    def _unary_op(self, inst, name: str) -> None:
        self._unary(name)

    op_UNARY_NEGATIVE = partialmethod(_unary_op, name="PyNumber_Negative")
    op_UNARY_POSITIVE = partialmethod(_unary_op, name="PyNumber_Positive")
    op_UNARY_INVERT = partialmethod(_unary_op, name="PyNumber_Invert")
    op_GET_ITER = partialmethod(_unary_op, name="PyObject_GetIter")

    def op_UNARY_NOT(self, inst) -> None:
        operand = self.pop()
        truth = self.capi("PyObject_Not", operand)
        self.decref(operand)
        self.check(truth, "negative")
        self.push(self._bool(self.builder.icmp_signed("==", truth, _INT(1))))

    # ------------------------------------------------------------------ calls

    def op_KW_NAMES(self, inst) -> None:
        self.kw_names = self.code.co_consts[inst.arg]

    def op_CALL(self, inst) -> None:
        """Stack: [NULL or method, callable or self, args...]; keywords named by KW_NAMES."""
        builder = self.builder
        argc = inst.arg
        base = self.depth - argc - 2
        first = builder.load(self.slot(base), typ=_PTR)
        second = builder.load(self.slot(base + 1), typ=_PTR)
        is_method = builder.icmp_unsigned("!=", first, _NULL)
        callee = builder.select(is_method, first, second)
        args = builder.select(is_method, self.slot(base + 1), self.slot(base + 2))
        positional = argc - len(self.kw_names)
        nargs = builder.add(_SIZE(positional), builder.zext(is_method, _SIZE))
        kwnames = self.constant(self.kw_names) if self.kw_names else _NULL
        self.kw_names = ()
        value = self.capi("PyObject_Vectorcall", callee, args, nargs, kwnames)
        for depth in range(base, base + argc + 2):
            self.decref(builder.load(self.slot(depth), typ=_PTR))
        self.depth = base
        self.check(value)
        self.push(value)

    def op_CALL_FUNCTION_EX(self, inst) -> None:
        kwargs = self.pop() if inst.arg & 1 else self.constant(None)
        args, func = self.pop(), self.pop()
        null = self.pop()
        value = self.call_helper(helpers.call_ex, func, args, kwargs)
        for obj in (func, args, null):
            self.decref(obj)
        if inst.arg & 1:
            self.decref(kwargs)
        self.check(value)
        self.push(value)

    def op_MAKE_FUNCTION(self, inst) -> None:
        code = self.pop()
        parts = {}
        for flag, name in ((0x08, "closure"), (0x04, "annotations"), (0x02, "kw"), (0x01, "d")):
            parts[name] = self.pop() if inst.arg & flag else None
        args = [
            code,
            self.constant(self.py_func.__globals__),
            *(parts[name] or self.constant(None) for name in ("closure", "d", "kw")),
            parts["annotations"] or self.constant(None),
        ]
        owned = [code, *(value for value in parts.values() if value is not None)]
        self.push(self._helper_result(helpers.make_function, *args, release=tuple(owned)))

    # ------------------------------------------------------------------ containers

    def _build_sequence(self, count: int, new: str, set_item: str) -> None:
        container = self.capi(new, _SSIZE(count))
        self.check(container)
        items = [self.pop() for _ in range(count)][::-1]
        for index, item in enumerate(items):
            self.capi(set_item, container, _SSIZE(index), item)  # steals the item
        self.push(container)

    def op_BUILD_TUPLE(self, inst) -> None:
        self._build_sequence(inst.arg, "PyTuple_New", "PyTuple_SetItem")

    def op_BUILD_LIST(self, inst) -> None:
        self._build_sequence(inst.arg, "PyList_New", "PyList_SetItem")

    def _build_with_helper(self, helper, count: int) -> None:
        items = [self.pop() for _ in range(count)][::-1]
        self.push(self._helper_result(helper, *items, release=tuple(items)))

    def op_BUILD_SET(self, inst) -> None:
        self._build_with_helper(helpers.make_set, inst.arg)

    def op_BUILD_MAP(self, inst) -> None:
        self._build_with_helper(helpers.make_dict, 2 * inst.arg)

    def op_BUILD_CONST_KEY_MAP(self, inst) -> None:
        self._build_with_helper(helpers.const_key_map, inst.arg + 1)

    def op_BUILD_STRING(self, inst) -> None:
        self._build_with_helper(helpers.join_strings, inst.arg)

    def op_LIST_TO_TUPLE(self, inst) -> None:
        self._build_with_helper(helpers.to_tuple, 1)

    def _update(self, helper, inst) -> None:
        value = self.pop()
        done = self._helper_result(helper, self.peek(inst.arg), value, release=(value,))
        self.decref(done)

    def op_LIST_EXTEND(self, inst) -> None:
        self._update(helpers.list_extend, inst)

    def op_SET_UPDATE(self, inst) -> None:
        self._update(helpers.set_update, inst)

    def op_DICT_UPDATE(self, inst) -> None:
        self._update(helpers.dict_update, inst)

    def op_DICT_MERGE(self, inst) -> None:
        self._update(helpers.dict_merge, inst)

    def op_LIST_APPEND(self, inst) -> None:
        value = self.pop()
        status = self.capi("PyList_Append", self.peek(inst.arg), value)
        self.decref(value)
        self.check(status, "negative")

    def op_SET_ADD(self, inst) -> None:
        value = self.pop()
        status = self.capi("PySet_Add", self.peek(inst.arg), value)
        self.decref(value)
        self.check(status, "negative")

    def op_MAP_ADD(self, inst) -> None:
        value, key = self.pop(), self.pop()
        status = self.capi("PyDict_SetItem", self.peek(inst.arg), key, value)
        self.decref(key)
        self.decref(value)
        self.check(status, "negative")

    def op_FORMAT_VALUE(self, inst) -> None:
        spec = self.pop() if inst.arg & 0x04 else self.constant("")
        value = self.pop()
        conversion = self.constant(inst.arg & 0x03)
        owned = (value, spec) if inst.arg & 0x04 else (value,)
        result = self._helper_result(helpers.format_value, value, conversion, spec, release=owned)
        self.push(result)

    def op_UNPACK_SEQUENCE(self, inst) -> None:
        self._push_unpacked(helpers.unpack, inst.arg, [self.constant(inst.arg)])

    def op_UNPACK_EX(self, inst) -> None:
        before, after = inst.arg & 0xFF, inst.arg >> 8
        counts = [self.constant(before), self.constant(after)]
        self._push_unpacked(helpers.unpack_ex, before + after + 1, counts)

    def _push_unpacked(self, helper, count: int, extra: list) -> None:
        value = self.pop()
        items = self._helper_result(helper, value, *extra, release=(value,))
        for index in reversed(range(count)):
            item = self.capi("PyTuple_GetItem", items, _SSIZE(index))
            self.incref(item)
            self.push(item)
        self.decref(items)

    # ------------------------------------------------------------------ iteration and jumps

    def op_FOR_ITER(self, inst) -> None:
        builder = self.builder
        item = self.capi("PyIter_Next", self.peek())
        done = builder.icmp_unsigned("==", item, _NULL)
        with builder.if_then(done, likely=False):
            self.check(builder.icmp_unsigned("!=", self.capi("PyErr_Occurred"), _NULL), "true")
            self.decref(self.pop())
            builder.branch(self.blocks[inst.argval])
            self.depth += 1
        self.push(item)

    def _jump(self, inst) -> None:
        self.builder.branch(self.blocks[inst.argval])

    op_JUMP_FORWARD = op_JUMP_BACKWARD = op_JUMP_BACKWARD_NO_INTERRUPT = _jump

    def _pop_jump_if(self, inst, when_true: bool) -> None:
        value = self.pop()
        truth = self.capi("PyObject_IsTrue", value)
        self.decref(value)
        self.check(truth, "negative")
        taken = self.builder.icmp_signed("==" if when_true else "!=", truth, _INT(1))
        self._branch(inst, taken)

    def _branch(self, inst, taken: llvm.Value) -> None:
        following = self.blocks[self.next_offset[inst.offset]]
        self.builder.cbranch(taken, self.blocks[inst.argval], following)

    op_POP_JUMP_FORWARD_IF_TRUE = partialmethod(_pop_jump_if, when_true=True)
    op_POP_JUMP_FORWARD_IF_FALSE = partialmethod(_pop_jump_if, when_true=False)

    op_POP_JUMP_BACKWARD_IF_TRUE = op_POP_JUMP_FORWARD_IF_TRUE
    op_POP_JUMP_BACKWARD_IF_FALSE = op_POP_JUMP_FORWARD_IF_FALSE

    def _pop_jump_if_none(self, inst, when_none: bool) -> None:
        value = self.pop()
        is_none = self.builder.icmp_unsigned("==", value, self.constant(None))
        self.decref(value)
        self._branch(inst, is_none if when_none else self.builder.not_(is_none))

    op_POP_JUMP_FORWARD_IF_NONE = partialmethod(_pop_jump_if_none, when_none=True)
    op_POP_JUMP_FORWARD_IF_NOT_NONE = partialmethod(_pop_jump_if_none, when_none=False)

    op_POP_JUMP_BACKWARD_IF_NONE = op_POP_JUMP_FORWARD_IF_NONE
    op_POP_JUMP_BACKWARD_IF_NOT_NONE = op_POP_JUMP_FORWARD_IF_NOT_NONE

    def _jump_or_pop(self, inst, when_true: bool) -> None:
        truth = self.capi("PyObject_IsTrue", self.peek())
        self.check(truth, "negative")
        taken = self.builder.icmp_signed("==" if when_true else "!=", truth, _INT(1))
        keep = self.function.append_basic_block()
        self.builder.cbranch(taken, self.blocks[inst.argval], keep)
        self.builder.position_at_end(keep)
        self.decref(self.pop())

    op_JUMP_IF_TRUE_OR_POP = partialmethod(_jump_or_pop, when_true=True)
    op_JUMP_IF_FALSE_OR_POP = partialmethod(_jump_or_pop, when_true=False)

    def op_RETURN_VALUE(self, inst) -> None:
        value = self.pop()
        for depth in range(self.depth):
            self.decref(self.builder.load(self.slot(depth), typ=_PTR))
        self._release_locals()
        self.builder.ret(value)

    # ------------------------------------------------------------------ exceptions

    def op_RAISE_VARARGS(self, inst) -> None:
        if inst.arg == 0:
            self._reraise_handled()
            return
        cause = self.pop() if inst.arg == 2 else self.constant(None)
        exc = self.pop()
        has_cause = self.constant(inst.arg == 2)
        instance = self.call_helper(helpers.exception_to_raise, exc, cause, has_cause)
        self.decref(exc)
        if inst.arg == 2:
            self.decref(cause)
        self.check(instance, from_helper=True)
        exc_type = self.capi("PyObject_Type", instance)
        self.capi("PyErr_SetObject", exc_type, instance)
        self.decref(exc_type)
        self.decref(instance)
        self.builder.branch(self._error_block())

    def _reraise_handled(self) -> None:
        exc = self.capi("PyErr_GetHandledException")
        none = self.constant(None)
        missing = self.builder.or_(
            self.builder.icmp_unsigned("==", exc, _NULL),
            self.builder.icmp_unsigned("==", exc, none),
        )
        with self.builder.if_then(missing, likely=False):
            self.set_error(RuntimeError, "No active exception to reraise")
            self.builder.branch(self._error_block())
        self._restore(exc)
        self.builder.branch(self._error_block(traceback=False))

    def _restore(self, exc: llvm.Value) -> None:
        """Make `exc` (a reference this function gives up) the pending exception."""
        exc_type = self.capi("PyObject_Type", exc)
        self.capi("PyErr_Restore", exc_type, exc, self.capi("PyException_GetTraceback", exc))

    def op_RERAISE(self, inst) -> None:
        exc = self.pop()
        if inst.arg:
            self.decref(self.pop())
        self._restore(exc)
        self.builder.branch(self._error_block(traceback=False))

    def op_PUSH_EXC_INFO(self, inst) -> None:
        exc = self.pop()
        previous = self.capi("PyErr_GetHandledException")
        none = self.new_ref(None)
        self.push(
            self.builder.select(self.builder.icmp_unsigned("==", previous, _NULL), none, previous)
        )
        with self.builder.if_then(self.builder.icmp_unsigned("!=", previous, _NULL)):
            self.decref(none)
        self.capi("PyErr_SetHandledException", exc)
        self.push(exc)

    def op_POP_EXCEPT(self, inst) -> None:
        previous = self.pop()
        is_none = self.builder.icmp_unsigned("==", previous, self.constant(None))
        self.capi("PyErr_SetHandledException", self.builder.select(is_none, _NULL, previous))
        self.decref(previous)

    def op_CHECK_EXC_MATCH(self, inst) -> None:
        classes = self.pop()
        matches = self.capi("PyErr_GivenExceptionMatches", self.peek(), classes)
        self.decref(classes)
        self.push(self._bool(self.builder.icmp_signed("!=", matches, _INT(0))))

    def op_LOAD_ASSERTION_ERROR(self, inst) -> None:
        self.push(self.new_ref(AssertionError))

    def op_BEFORE_WITH(self, inst) -> None:
        manager = self.pop()
        pair = self._helper_result(helpers.before_with, manager, release=(manager,))
        for index in range(2):
            item = self.capi("PyTuple_GetItem", pair, _SSIZE(index))
            self.incref(item)
            self.push(item)
        self.decref(pair)

    def op_WITH_EXCEPT_START(self, inst) -> None:
        exit_func, exc = self.peek(4), self.peek(1)
        value = self.call_helper(helpers.with_exit, exit_func, exc)
        self.check(value)
        self.push(value)

    # ------------------------------------------------------------------ `match`

    def op_GET_LEN(self, inst) -> None:
        self.push(self._helper_result(len, self.peek()))

    def op_MATCH_MAPPING(self, inst) -> None:
        self.push(self._helper_result(helpers.is_mapping, self.peek()))

    def op_MATCH_SEQUENCE(self, inst) -> None:
        self.push(self._helper_result(helpers.is_sequence, self.peek()))

    def op_MATCH_KEYS(self, inst) -> None:
        self.push(self._helper_result(helpers.match_keys, self.peek(2), self.peek(1)))

    def op_MATCH_CLASS(self, inst) -> None:
        names, cls, subject = self.pop(), self.pop(), self.pop()
        args = (subject, cls, self.constant(inst.arg), names)
        self.push(self._helper_result(helpers.match_class, *args, release=(names, cls, subject)))

    def op_DELETE_GLOBAL(self, inst) -> None:
        globals_ = self.constant(self.py_func.__globals__)
        status = self.capi("PyDict_DelItem", globals_, self.constant(inst.argval))
        self.check(status, "negative")

    # ------------------------------------------------------------------ imports, classes

    def op_IMPORT_NAME(self, inst) -> None:
        fromlist, level = self.pop(), self.pop()
        args = [
            self.constant(inst.argval),
            fromlist,
            level,
            self.constant(self.py_func.__globals__),
        ]
        value = self.call_helper(helpers.import_name, *args)
        self.decref(fromlist)
        self.decref(level)
        self.check(value)
        self.push(value)

    def op_IMPORT_FROM(self, inst) -> None:
        name = self.constant(inst.argval)
        self.push(self._helper_result(helpers.import_from, self.peek(), name))

    def op_LOAD_BUILD_CLASS(self, inst) -> None:
        self.push(self.new_ref(builtins.__build_class__))

    def op_RETURN_GENERATOR(self, inst) -> None:
        self._unsupported("a generator function")


def _builtins_of(translator) -> dict:
    found = translator.py_func.__builtins__
    return found if isinstance(found, dict) else vars(found)
