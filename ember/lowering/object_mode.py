"""Stage 6b, object mode: a function's bytecode -> an LLVM function in which every value is a
`PyObject*` and every operation a C-API call (`@jit(forceobj=True)`).

    PyObject *f(PyObject *args)     args: a tuple of the parameters, in co_varnames order

The CPython value stack becomes an array of slots whose depth at each instruction is known when
compiling (dis.stack_effect), locals become slots too; both hold owned references. A NULL from
the C-API jumps to the instruction's error path: it adds a traceback entry for the source line,
releases the live slots and either enters the `except` handler of the exception table or returns
NULL. Globals and builtins are looked up at run time (NameError when missing).
"""

from __future__ import annotations

import ctypes
import dis
import itertools
from types import CodeType, FunctionType
from typing import Any

from llvmlite import ir as llvm

from ember.codegen.symbols import ascii_symbol
from ember.errors import UnsupportedError
from ember.ir.nodes import Loc
from ember.lowering.callconv import alloca_in_entry
from ember.lowering.object_mode_ops import _INT, _NULL, _PTR, _SIZE, _SSIZE, ObjectModeOps
from ember.lowering.pyapi import _SIGNATURES, _FunctionPointer, _object_pointer

_VOID = llvm.VoidType()

_CAPI: dict[str, tuple[llvm.Type, list[llvm.Type]]] = {  # beyond pyapi.py's
    **_SIGNATURES,
    "PyErr_GetHandledException": (_PTR, []),
    "PyErr_SetHandledException": (_VOID, [_PTR]),
    "_PyTraceback_Add": (_VOID, [_PTR, _PTR, _INT]),
    "PyDict_GetItemWithError": (_PTR, [_PTR, _PTR]),
    "PyDict_SetItem": (_INT, [_PTR, _PTR, _PTR]),
    "PyDict_DelItem": (_INT, [_PTR, _PTR]),
    "PyCell_New": (_PTR, [_PTR]),
    "PyCell_Get": (_PTR, [_PTR]),
    "PyCell_Set": (_INT, [_PTR, _PTR]),
    "PyObject_GetAttr": (_PTR, [_PTR, _PTR]),
    "PyObject_SetAttr": (_INT, [_PTR, _PTR, _PTR]),
    "PyObject_GetItem": (_PTR, [_PTR, _PTR]),
    "PyObject_SetItem": (_INT, [_PTR, _PTR, _PTR]),
    "PyObject_DelItem": (_INT, [_PTR, _PTR]),
    "PyObject_RichCompare": (_PTR, [_PTR, _PTR, _INT]),
    "PyObject_Not": (_INT, [_PTR]),
    "PyObject_GetIter": (_PTR, [_PTR]),
    "PyIter_Next": (_PTR, [_PTR]),
    "PySequence_Contains": (_INT, [_PTR, _PTR]),
    "PyObject_Vectorcall": (_PTR, [_PTR, _PTR, _SIZE, _PTR]),
    "PyNumber_Negative": (_PTR, [_PTR]),
    "PyNumber_Positive": (_PTR, [_PTR]),
    "PyNumber_Invert": (_PTR, [_PTR]),
    "PyList_New": (_PTR, [_SSIZE]),
    "PyList_SetItem": (_INT, [_PTR, _SSIZE, _PTR]),
    "PyList_Append": (_INT, [_PTR, _PTR]),
    "PySet_Add": (_INT, [_PTR, _PTR]),
    "PyDict_New": (_PTR, []),
    "PySlice_New": (_PTR, [_PTR, _PTR, _PTR]),
    "PyLong_FromSsize_t": (_PTR, [_SSIZE]),
    "PyErr_Restore": (_VOID, [_PTR, _PTR, _PTR]),
    "PyErr_GivenExceptionMatches": (_INT, [_PTR, _PTR]),
    "PyErr_SetObject": (_VOID, [_PTR, _PTR]),
    "PyObject_Type": (_PTR, [_PTR]),
    "PyException_GetTraceback": (_PTR, [_PTR]),
    "PySequence_Tuple": (_PTR, [_PTR]),
}

_BINARY = {  # dis._nb_ops name -> C-API function (the power functions take a third argument)
    "ADD": "Add",
    "AND": "And",
    "FLOOR_DIVIDE": "FloorDivide",
    "LSHIFT": "Lshift",
    "MATRIX_MULTIPLY": "MatrixMultiply",
    "MULTIPLY": "Multiply",
    "REMAINDER": "Remainder",
    "OR": "Or",
    "POWER": "Power",
    "RSHIFT": "Rshift",
    "SUBTRACT": "Subtract",
    "TRUE_DIVIDE": "TrueDivide",
    "XOR": "Xor",
}


def _binary_function(arg: int) -> str:
    name = dis._nb_ops[arg][0].removeprefix("NB_")
    inplace = name.startswith("INPLACE_")
    return f"PyNumber_{'InPlace' if inplace else ''}{_BINARY[name.removeprefix('INPLACE_')]}"


for _name in {_binary_function(arg) for arg in range(len(dis._nb_ops))}:
    _CAPI[_name] = (_PTR, [_PTR, _PTR, _PTR] if _name.endswith("Power") else [_PTR, _PTR])

_JUMPS = {
    "JUMP_FORWARD",
    "JUMP_BACKWARD",
    "JUMP_BACKWARD_NO_INTERRUPT",
}
_CONDITIONAL = {name for name in dis.opmap if name.startswith("POP_JUMP_")} | {
    "JUMP_IF_TRUE_OR_POP",
    "JUMP_IF_FALSE_OR_POP",
    "FOR_ITER",
}
_EXITS = {"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"}
_SKIPPED = {"NOP", "RESUME", "PRECALL", "CACHE", "EXTENDED_ARG"}
_serial = itertools.count()
_CONSTRUCTS = {  # opname -> what the user wrote, for the error message
    "CHECK_EG_MATCH": "'except*' (exception groups)",
    "PREP_RERAISE_STAR": "'except*' (exception groups)",
    "DELETE_DEREF": "'del' of a variable an inner function uses",
    "BEFORE_ASYNC_WITH": "'async with'",
}


class ObjectModeFunction(ObjectModeOps):
    """Translates one function's bytecode; `module` and `symbol` are the result and `keepalive`
    holds the Python objects the code points at."""

    def __init__(self, py_func: FunctionType) -> None:
        self.py_func = py_func
        self.code: CodeType = py_func.__code__
        if self.code.co_flags & (0x20 | 0x80 | 0x100 | 0x200):
            raise UnsupportedError(
                "generators and coroutines are not supported in object mode",
                Loc(self.code.co_filename, self.code.co_firstlineno),
            )
        self.instructions = [i for i in dis.get_instructions(self.code) if i.opname != "CACHE"]
        self.by_offset = {inst.offset: inst for inst in self.instructions}
        self.next_offset = {
            a.offset: b.offset for a, b in zip(self.instructions, self.instructions[1:])
        }
        self.handlers = list(dis.Bytecode(self.code).exception_entries)
        self.depths = self._stack_depths()
        self.keepalive: list[Any] = [py_func]
        self.symbol = ascii_symbol(f"ember.objmode.{self.code.co_name}.{next(_serial)}")
        self.module = llvm.Module(name=self.symbol)
        self.names = list(dict.fromkeys(self.code.co_varnames + self.code.co_cellvars))
        self.names += [n for n in self.code.co_freevars if n not in self.names]
        self._strings: dict[str, llvm.GlobalVariable] = {}
        self._lines: dict[int, int] = {}

    # ------------------------------------------------------------------ analysis

    def _successors(self, inst) -> list[tuple[int, bool]]:
        """(offset, taken-jump?) of the instructions that may run next."""
        if inst.opname in _EXITS:
            return []
        if inst.opname in _JUMPS:
            return [(inst.argval, True)]
        following = (
            [(self.next_offset[inst.offset], False)] if inst.offset in self.next_offset else []
        )
        if inst.opname in _CONDITIONAL:
            return [(inst.argval, True), *following]
        return following

    def _stack_depths(self) -> dict[int, int]:
        depths: dict[int, int] = {}
        pending = [(self.instructions[0].offset, 0)]
        for entry in self.handlers:
            pending.append((entry.target, entry.depth + int(entry.lasti) + 1))
        while pending:
            offset, depth = pending.pop()
            if offset in depths:
                continue
            depths[offset] = depth
            inst = self.by_offset[offset]
            for target, jump in self._successors(inst):
                effect = _stack_effect(inst, jump)
                pending.append((target, depth + effect))
        return depths

    def _leaders(self) -> set[int]:
        leaders = {self.instructions[0].offset}
        leaders.update(entry.target for entry in self.handlers)
        for inst in self.instructions:
            successors = self._successors(inst)
            if inst.opname in _JUMPS | _CONDITIONAL | _EXITS:
                leaders.update(offset for offset, _ in successors)
                if inst.offset in self.next_offset:
                    leaders.add(self.next_offset[inst.offset])
        return leaders

    # ------------------------------------------------------------------ entry

    def build(self) -> None:
        from ember.codegen.jit import engine

        jit = engine()
        self.module.triple = jit.triple
        self.module.data_layout = jit.data_layout
        function = llvm.Function(self.module, llvm.FunctionType(_PTR, [_PTR]), self.symbol)
        self.function = function
        entry = function.append_basic_block("entry")
        builder = self.builder = llvm.IRBuilder(entry)
        max_depth = max(self.depths.values(), default=0) + 2
        self.stack = builder.alloca(llvm.ArrayType(_PTR, max_depth), name="stack")
        self.slots = {name: builder.alloca(_PTR, name=f"local.{name}") for name in self.names}
        for slot in self.slots.values():
            builder.store(_NULL, slot)
        self._bind_arguments(function.args[0])
        self._bind_closure()
        self.blocks = {
            offset: function.append_basic_block(f"op{offset}")
            for offset in sorted(self._leaders())
            if offset in self.depths
        }
        self.fail_block = self._make_fail_block()
        builder.branch(self.blocks[self.instructions[0].offset])
        self._emit_instructions()

    def _bind_arguments(self, args: llvm.Value) -> None:
        code = self.code
        count = code.co_argcount + code.co_kwonlyargcount
        count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
        for index, name in enumerate(code.co_varnames[:count]):
            item = self.capi("PyTuple_GetItem", args, _SSIZE(index))
            self.incref(item)
            self.builder.store(item, self.slots[name])

    def _bind_closure(self) -> None:
        for name, cell in zip(self.code.co_freevars, self.py_func.__closure__ or ()):
            self.builder.store(self.new_ref(cell), self.slots[name])

    def _make_fail_block(self) -> llvm.Block:
        saved = self.builder.block
        block = self.function.append_basic_block("fail")
        self.builder.position_at_end(block)
        self._release_locals()
        self.builder.ret(_NULL)
        self.builder.position_at_end(saved)
        return block

    def _release_locals(self) -> None:
        for slot in self.slots.values():
            self.decref(self.builder.load(slot))

    # ------------------------------------------------------------------ emission

    def _emit_instructions(self) -> None:
        builder = self.builder
        for inst in self.instructions:
            if inst.offset not in self.depths:
                continue  # unreachable
            if inst.offset in self.blocks:
                if not builder.block.is_terminated:
                    builder.branch(self.blocks[inst.offset])
                builder.position_at_end(self.blocks[inst.offset])
            elif builder.block.is_terminated:
                continue
            self.inst = inst
            self.depth = self.depths[inst.offset]
            if inst.positions is not None and inst.positions.lineno is not None:
                self._lines[inst.offset] = inst.positions.lineno
            self.line = self._line_of(inst)
            if inst.opname in _SKIPPED:
                continue
            handler = getattr(self, f"op_{inst.opname}", None)
            if handler is None:
                construct = _CONSTRUCTS.get(inst.opname, f"bytecode {inst.opname}")
                raise UnsupportedError(
                    f"{construct} is not supported in object mode yet",
                    Loc(self.code.co_filename, self.line),
                )
            handler(inst)
            if not builder.block.is_terminated and inst.offset in self.next_offset:
                following = self.next_offset[inst.offset]
                if following in self.blocks:
                    builder.branch(self.blocks[following])

    def _line_of(self, inst) -> int:
        for offset in range(inst.offset, -1, -2):
            if offset in self._lines:
                return self._lines[offset]
        return self.code.co_firstlineno

    # ------------------------------------------------------------------ stack

    def slot(self, depth: int) -> llvm.Value:
        return self.builder.gep(self.stack, [_SSIZE(0), _SSIZE(depth)])

    def push(self, value: llvm.Value) -> None:
        self.builder.store(value, self.slot(self.depth))
        self.depth += 1

    def pop(self) -> llvm.Value:
        self.depth -= 1
        return self.builder.load(self.slot(self.depth), typ=_PTR)

    def peek(self, n: int = 1) -> llvm.Value:
        return self.builder.load(self.slot(self.depth - n), typ=_PTR)

    def poke(self, n: int, value: llvm.Value) -> None:
        self.builder.store(value, self.slot(self.depth - n))

    # ------------------------------------------------------------------ C-API

    def capi(self, name: str, *args: llvm.Value) -> llvm.Value:
        restype, argtypes = _CAPI[name]
        address = ctypes.cast(getattr(ctypes.pythonapi, name), ctypes.c_void_p).value
        callee = _FunctionPointer(llvm.FunctionType(restype, argtypes), address)
        return self.builder.call(callee, list(args))

    def incref(self, obj: llvm.Value) -> None:
        self.capi("Py_IncRef", obj)

    def decref(self, obj: llvm.Value) -> None:
        self.capi("Py_DecRef", obj)  # NULL is allowed

    def constant(self, obj: Any) -> llvm.Value:
        """A borrowed reference to `obj`, kept alive by the compiled function."""
        self.keepalive.append(obj)
        return _object_pointer(obj)

    def new_ref(self, obj: Any) -> llvm.Value:
        pointer = self.constant(obj)
        self.incref(pointer)
        return pointer

    def cstring(self, text: str) -> llvm.GlobalVariable:
        found = self._strings.get(text)
        if found is None:
            data = bytearray(text.encode("utf-8") + b"\0")
            const = llvm.Constant(llvm.ArrayType(llvm.IntType(8), len(data)), data)
            found = llvm.GlobalVariable(self.module, const.type, f"str.{len(self._strings)}")
            found.linkage = "private"
            found.global_constant = True
            found.initializer = const
            self._strings[text] = found
        return found

    def call_helper(self, helper: Any, *args: llvm.Value) -> llvm.Value:
        """`helper(*args)` (a Python function of object_mode_helpers): a new reference or
        NULL; the arguments stay owned by the caller."""
        array = self.pointer_array(args)
        return self.capi(
            "PyObject_Vectorcall", self.constant(helper), array, _SIZE(len(args)), _NULL
        )

    def pointer_array(self, values: list[llvm.Value] | tuple) -> llvm.Value:
        """A `PyObject *[]` in the entry block holding `values` (borrowed)."""
        array_type = llvm.ArrayType(_PTR, max(len(values), 1))
        array = alloca_in_entry(self.builder, array_type)
        for index, value in enumerate(values):
            item = self.builder.gep(array, [_SSIZE(0), _SSIZE(index)])
            self.builder.store(value, item)
        return array

    # ------------------------------------------------------------------ errors

    def check(self, value: llvm.Value, error_when: str = "null", from_helper=False) -> None:
        """Go to the error path when `value` is NULL ("null"), negative ("negative") or a
        true i1 ("true"); a helper's own traceback frames are dropped (`from_helper`)."""
        builder = self.builder
        if error_when == "null":
            failed = builder.icmp_unsigned("==", value, _NULL)
        elif error_when == "negative":
            failed = builder.icmp_signed("<", value, value.type(0))
        else:
            failed = value
        ok = self.function.append_basic_block()
        builder.cbranch(failed, self._error_block(strip=from_helper), ok)
        builder.position_at_end(ok)

    def _error_block(self, traceback: bool = True, strip: bool = False) -> llvm.Block:
        """A block that records the source line, releases the stack above the handler's depth
        and enters the handler (or leaves the function)."""
        builder = self.builder
        saved = builder.block
        block = self.function.append_basic_block(f"error{self.inst.offset}")
        builder.position_at_end(block)
        if strip:
            slots = [alloca_in_entry(builder, _PTR) for _ in range(3)]
            self.capi("PyErr_Fetch", *slots)
            exc_type, value, tb = (builder.load(slot, typ=_PTR) for slot in slots)
            self.decref(tb)
            self.capi("PyErr_Restore", exc_type, value, _NULL)
        if traceback:
            self.capi(
                "_PyTraceback_Add",
                self.cstring(self.code.co_name),
                self.cstring(self.code.co_filename),
                _INT(self.line),
            )
        self.raise_pending(builder)
        builder.position_at_end(saved)
        return block

    def raise_pending(self, builder: llvm.IRBuilder) -> None:
        """With an exception pending at the current depth: unwind to its handler."""
        entry = self._handler_entry(self.inst.offset)
        floor = entry.depth if entry is not None else 0
        for depth in range(floor, self.depth):
            self.decref(builder.load(self.slot(depth), typ=_PTR))
        if entry is None:
            builder.branch(self.fail_block)
            return
        depth = entry.depth
        if entry.lasti:
            lasti = self.capi("PyLong_FromSsize_t", _SSIZE(self.inst.offset))
            builder.store(lasti, self.slot(depth))
            depth += 1
        builder.store(self._fetch_exception(), self.slot(depth))
        builder.branch(self.blocks[entry.target])

    def _fetch_exception(self) -> llvm.Value:
        slots = [alloca_in_entry(self.builder, _PTR) for _ in range(3)]
        self.capi("PyErr_Fetch", *slots)
        self.capi("PyErr_NormalizeException", *slots)
        exc_type, value, traceback = (self.builder.load(slot, typ=_PTR) for slot in slots)
        with self.builder.if_then(self.builder.icmp_unsigned("!=", traceback, _NULL)):
            self.capi("PyException_SetTraceback", value, traceback)
        self.decref(exc_type)
        self.decref(traceback)
        return value

    def _handler_entry(self, offset: int):
        for entry in self.handlers:
            if entry.start <= offset < entry.end:
                return entry
        return None

    def set_error(self, exc_class: type, message: str) -> None:
        self.capi("PyErr_SetString", self.constant(exc_class), self.cstring(message))

    # ------------------------------------------------------------------ finishing

    def finalize(self) -> int:
        from ember.codegen.jit import engine

        self.build()
        jit = engine()
        compiled = jit.parse(str(self.module))
        compiled.verify()
        jit.optimize(compiled)
        jit.add_module(compiled)
        return jit.address_of(self.symbol)


def _stack_effect(inst, jump: bool) -> int:
    if inst.opname in _SKIPPED:
        return 0  # PRECALL's share of a call's effect is counted at CALL
    if inst.opname == "CALL":
        return -(inst.arg + 1)
    arg = inst.arg if inst.opcode >= dis.HAVE_ARGUMENT else None
    return dis.stack_effect(inst.opcode, arg, jump=jump)


def compile_object_mode(py_func: FunctionType):
    """(native address, keepalive list, LLVM IR text) of `py_func` compiled in object mode."""
    translator = ObjectModeFunction(py_func)
    address = translator.finalize()
    return address, translator.keepalive, str(translator.module)
