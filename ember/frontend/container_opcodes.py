"""The interpreter's opcodes that build containers and index them: slices, f-strings, tuples,
lists, dicts and sets (displays, comprehensions, unpacking and spreads), subscripts and
attribute stores; mixed into the interpreter's builder (ember/frontend/interpreter.py)."""

from __future__ import annotations

import operator
from typing import Any

from ember.errors import UnsupportedBytecodeError, UnsupportedError
from ember.frontend.bytecode import Instruction
from ember.ir import displays, starred
from ember.ir import nodes as ir

SPREAD_LIST_MESSAGE = (
    "unpacking into a list display ([*a, *b]) is not supported in nopython mode; "
    "build the list with append or extend"
)


class _SpreadAcrossBlocks(UnsupportedError, UnsupportedBytecodeError):
    """A spread into a display made in another block: Numba's UnsupportedBytecodeError too."""


def _only_read_as_a_sequence(instructions: list[Instruction], index: int) -> bool:
    """Whether instructions[index] loads a local that its next instruction spreads (LIST_EXTEND,
    CALL_FUNCTION_EX) or iterates, or that is the one argument of `len`."""
    load = instructions[index]
    if load.opname != "LOAD_FAST" or index + 1 >= len(instructions):
        return False
    following = instructions[index + 1]
    if following.opname in ("LIST_EXTEND", "CALL_FUNCTION_EX", "GET_ITER"):
        return True
    previous = instructions[index - 1]
    return (
        previous.opname == "LOAD_GLOBAL"
        and previous.argval == "len"
        and following.opname in ("PRECALL", "CALL")
        and following.arg == 1
    )


class ContainerOpcodes:
    """The builder's container opcodes (they use its stack, `_temp`, `_assign`, `_push_expr`,
    `_const`)."""

    def op_BUILD_SLICE(self, inst: Instruction) -> None:
        """`a:b` and `a:b:c` in an index: a call of the builtin `slice`."""
        items = self.stack[len(self.stack) - inst.arg :]
        del self.stack[len(self.stack) - inst.arg :]
        func = self._temp()
        self._assign(func, ir.Global("slice", slice, inst.loc))
        result = self._push_expr(ir.Call(func, items, [], inst.loc))
        if all(item.name in self.constants for item in items):  # t[1:] of a tuple needs it
            self.constants[result.name] = slice(*(self.constants[item.name] for item in items))

    def op_FORMAT_VALUE(self, inst: Instruction) -> None:
        """`{x}` in an f-string is `format(x, "")`, `{x!s}` is `str(x)`, `{x!r}` is `repr(x)`,
        `{x:spec}` is `format(x, spec)` (`format(str(x), spec)` with !s, `format(repr(x), spec)`
        with !r); `{x!a}` is `ascii(x)`."""
        conversion = inst.arg & 0x03
        spec = self.stack.pop() if inst.arg & 0x04 else None
        value = self.stack.pop()
        if conversion == 2:
            converter = self._push_expr(ir.Global("repr", repr, inst.loc))
        elif conversion == 3:
            converter = self._push_expr(ir.Global("ascii", ascii, inst.loc))
        elif conversion == 0 and spec is None:  # format(x, ""): str(x), but for float32
            converter = self._push_expr(
                ir.Global("formatted_field", displays.formatted_field, inst.loc)
            )
        else:
            converter = self._push_expr(ir.Global("str", str, inst.loc))
        self.stack.pop()
        if spec is None:
            self._push_expr(ir.Call(converter, [value], [], inst.loc))
            return
        if conversion in (1, 2, 3):
            value = self._push_expr(ir.Call(converter, [value], [], inst.loc))
            self.stack.pop()
        formatter = self._push_expr(ir.Global("format", format, inst.loc))
        self.stack.pop()
        self._push_expr(ir.Call(formatter, [value, spec], [], inst.loc))

    def op_BUILD_STRING(self, inst: Instruction) -> None:
        """The pieces of an f-string, concatenated."""
        pieces = self.stack[len(self.stack) - inst.arg :] if inst.arg else []
        del self.stack[len(self.stack) - inst.arg :]
        if not pieces:
            self._const("")
            return
        result = pieces[0]
        for piece in pieces[1:]:
            result = self._push_expr(ir.BinOp(operator.add, result, piece, inst.loc))
            self.stack.pop()
        self.stack.append(result)

    def op_BUILD_TUPLE(self, inst: Instruction) -> None:
        items = self.stack[len(self.stack) - inst.arg :] if inst.arg else []
        del self.stack[len(self.stack) - inst.arg :]
        self._push_expr(ir.BuildTuple(items, inst.loc))

    def op_UNPACK_SEQUENCE(self, inst: Instruction) -> None:
        source = self.stack.pop()
        exhausted = self._temp()
        self._assign(exhausted, ir.ExhaustIter(source, inst.arg, inst.loc))
        items = []
        for index in range(inst.arg):
            item = self._temp()
            self._assign(item, ir.StaticGetItem(exhausted, index, None, inst.loc))
            items.append(item)
        self.stack.extend(reversed(items))

    def op_UNPACK_EX(self, inst: Instruction) -> None:
        """`a, *rest, z = seq`: one call makes (a, rest, z) (ember/ir/starred.py)."""
        source = self.stack.pop()
        before, after = inst.arg & 0xFF, inst.arg >> 8
        counts = [self._const(before), self._const(after)]
        del self.stack[-2:]
        if self._starred_name_only_spread(inst, before, after):
            unpack = starred.unpack_starred_spread  # `(last, *init)` of a tuple: types
        else:
            unpack = starred.unpack_starred
        unpacked = self._call_global(unpack.__name__, unpack, [source, *counts])
        self.stack.pop()
        items = []
        for index in range(before + 1 + after):
            item = self._temp()
            self._assign(item, ir.StaticGetItem(unpacked, index, None, inst.loc))
            items.append(item)
        self.stack.extend(reversed(items))

    def _starred_name_only_spread(self, inst: Instruction, before: int, after: int) -> bool:
        """Whether the starred name of `a, *rest, z = seq` (stored right after it) is a local
        assigned there only and only ever spread (`(z, *rest)`, `f(*rest)`), iterated or
        measured (`len(rest)`): it may then be a tuple rather than CPython's list, as nothing
        can tell them apart."""
        instructions = self.bytecode.instructions
        at = instructions.index(inst)
        stores = instructions[at + 1 : at + 2 + before + after]
        if len(stores) != before + 1 + after or any(i.opname != "STORE_FAST" for i in stores):
            return False
        name = stores[before].argval
        if name in self.code.co_cellvars:
            return False
        return all(
            _only_read_as_a_sequence(instructions, index)
            for index, other in enumerate(instructions)
            if other.argval == name and other is not stores[before]
        )

    def op_MATCH_SEQUENCE(self, inst: Instruction) -> None:
        """`case (x, y):` first tests whether the subject (kept below) is a sequence; typing
        decides it (rewrites/prune_none.py drops the other branch when the subject's type is
        known before typing)."""
        self._call_global("match_sequence", starred.match_sequence, [self.stack[-1]])

    def op_MATCH_MAPPING(self, inst: Instruction) -> None:
        """`case {"k": v}:` first tests whether the subject (kept below) is a mapping."""
        self._call_global("match_mapping", starred.match_mapping, [self.stack[-1]])

    def op_MATCH_KEYS(self, inst: Instruction) -> None:
        """The values of a mapping pattern's keys (constants) in the subject, or None when
        one is missing; subject and keys stay."""
        from ember.library.builtins.starred import keys_matcher

        keys = self.constants.get(self.stack[-1].name)
        if not isinstance(keys, tuple):
            raise UnsupportedError(
                "a mapping pattern whose keys are not literals (case {NAME.attr: v}) is not "
                "supported in nopython mode; write the keys as literals, or test `k in d`",
                inst.loc,
            )
        self._call_global("match_keys", keys_matcher(keys), [self.stack[-2]])

    def op_MATCH_CLASS(self, inst: Instruction) -> None:
        """`case Point(x, y=0):`: the attributes the sub-patterns match (a tuple), or None
        when the subject is not a Point (decided by its type: rewrites/prune_none.py)."""
        from ember.library.builtins.starred import class_matcher

        names, cls, subject = self.stack.pop(), self.stack.pop(), self.stack.pop()
        found = self._block_constant(cls)
        if not isinstance(found, type):
            raise UnsupportedError(
                "a class pattern's class must be a global class (case Point(...)) in nopython mode",
                inst.loc,
            )
        try:
            matcher = class_matcher(found, self.constants[names.name], inst.arg)
        except TypeError as error:  # more positional sub-patterns than the class accepts
            raise UnsupportedError(f"TypeError: {error}", inst.loc) from None
        self._call_global("match_class", matcher, [subject])

    def _block_constant(self, var: ir.Var) -> Any:
        """The object a global, a free variable or `module.name` of one assigned to `var` in
        this block stands for (None when it is none of them)."""
        for stmt in reversed(self.block.body):
            if isinstance(stmt, ir.Assign) and stmt.target.name == var.name:
                value = stmt.value
                if isinstance(value, (ir.Global, ir.FreeVar)):
                    return value.value
                if isinstance(value, ir.GetAttr):
                    owner = self._block_constant(value.value)
                    return getattr(owner, value.attr, None)
                return None
        return None

    def op_GET_LEN(self, inst: Instruction) -> None:
        """A sequence pattern's length test: len() of the subject, which stays."""
        self._call_global("len", len, [self.stack[-1]])

    def op_BINARY_SUBSCR(self, inst: Instruction) -> None:
        index = self.stack.pop()
        value = self.stack.pop()
        if index.name in self.constants and isinstance(self.constants[index.name], (int, slice)):
            constant = self.constants[index.name]
            self._push_expr(ir.StaticGetItem(value, constant, index, inst.loc))
        else:
            self._push_expr(ir.GetItem(value, index, inst.loc))

    def op_STORE_SUBSCR(self, inst: Instruction) -> None:
        index = self.stack.pop()
        target = self.stack.pop()
        value = self.stack.pop()
        self.block.append(ir.SetItem(target, index, value, inst.loc))

    def op_STORE_ATTR(self, inst: Instruction) -> None:
        target = self.stack.pop()
        value = self.stack.pop()
        self.block.append(ir.SetAttr(target, inst.argval, value, inst.loc))

    def op_DELETE_ATTR(self, inst: Instruction) -> None:
        self.block.append(ir.DelAttr(self.stack.pop(), inst.argval, inst.loc))

    def op_BUILD_LIST(self, inst: Instruction) -> None:
        items = self.stack[len(self.stack) - inst.arg :] if inst.arg else []
        del self.stack[len(self.stack) - inst.arg :]
        self._push_expr(ir.BuildList(items, inst.loc))

    def op_LIST_APPEND(self, inst: Instruction) -> None:
        """A list comprehension's `xs.append(item)`; the list sits `arg` deep in the stack."""
        item = self.stack.pop()
        segments = self.spread_lists.get(self.stack[-inst.arg].name)
        if segments is not None:  # the `b` of `f(*t, b)`
            segments.append(("items", [item]))
            return
        built = self._display_assignment(self.stack[-inst.arg])
        if built is not None:  # `f(x, x, ..., *t)` with many x: CPython appends them one by one
            self.block.body.remove(built)  # moved below the item it now holds
            self._assign(built.target, ir.BuildList([*built.value.items, item], inst.loc))
            return
        method = self._temp("append")
        self._assign(method, ir.GetAttr(self.stack[-inst.arg], "append", inst.loc))
        self._assign(self._temp(), ir.Call(method, [item], [], inst.loc))

    def op_LIST_EXTEND(self, inst: Instruction) -> None:
        """CPython builds a display of three or more constants as `[]` extended by a constant
        tuple: rebuild it as one display of those constants."""
        extension = self.stack.pop()
        target = self.stack[-inst.arg]
        constants = self.constants.get(getattr(extension, "name", None))
        built = self._display_assignment(target)
        if target.name in self.spread_lists or (
            not isinstance(constants, tuple) and built is not None
        ):
            self._spread_into(target, built, extension)
            return
        if built is None:  # the display was made in an earlier block (`(*(a if c else b),)`)
            raise _SpreadAcrossBlocks(
                f"op_LIST_EXTEND at the start of a block: {SPREAD_LIST_MESSAGE}", inst.loc
            )
        self.block.body.remove(built)  # moved below the constants it now holds
        items = list(built.value.items)
        for value in constants:
            item = self._temp("const")
            self._assign(item, ir.Const(value, inst.loc))
            items.append(item)
        self._assign(built.target, ir.BuildList(items, inst.loc))

    def _spread_into(self, target: ir.Var, built: ir.Assign | None, extension: ir.Var) -> None:
        """`*t` into a list display: remembered as segments (the display's items, then each
        spread value or item) until LIST_TO_TUPLE makes them one tuple, as `f(a, *t)` and
        `(a, *t)` do; a list display left with them at the block's end is refused."""
        segments = self.spread_lists.get(target.name)
        if segments is None:
            self.block.body.remove(built)
            segments = self.spread_lists[target.name] = [("items", list(built.value.items))]
        segments.append(("spread", extension))

    def build_spread_lists(self) -> None:
        """At the block's end, the list displays with spreads left (`[a, *t]`, not the items of
        a call or tuple): each built as `[a] + list(t)` just before its first use."""
        for name, segments in self.spread_lists.items():
            statements = self._spread_list_statements(ir.Var(name, self.inst.loc), segments)
            users = [
                index
                for index, stmt in enumerate(self.block.body)
                if any(var.name == name for var in stmt.list_vars())
            ]
            at = users[0] if users else len(self.block.body) - 1
            self.block.body[at:at] = statements
        self.spread_lists = {}

    def _spread_list_statements(self, target: ir.Var, segments: list) -> list:
        """Statements assigning `target` the concatenation of the segments as lists."""
        loc = self.inst.loc
        statements, parts = [], []
        for kind, value in segments:
            part = self._temp("spread")
            if kind == "items":
                if not value and (parts or len(segments) > 1):
                    continue
                statements.append(ir.Assign(part, ir.BuildList(value, loc), loc))
            else:
                func = self._temp()
                statements.append(ir.Assign(func, ir.Global("list", list, loc), loc))
                statements.append(ir.Assign(part, ir.Call(func, [value], [], loc), loc))
            parts.append(part)
        result = parts[0]
        for part in parts[1:]:
            joined = self._temp("spread")
            statements.append(ir.Assign(joined, ir.BinOp(operator.add, result, part, loc), loc))
            result = joined
        statements.append(ir.Assign(target, result, loc))
        return statements

    def op_LIST_TO_TUPLE(self, inst: Instruction) -> None:
        """The tuple of a spread list: its item runs as tuples, concatenated (`+` on tuples)."""
        listed = self.stack.pop()
        segments = self.spread_lists.pop(listed.name, None)
        if segments is None:
            built = self._display_assignment(listed)
            if built is None:  # appended to in other blocks: `f(a1, ..., b if c else d, ...)`
                raise UnsupportedError(
                    "a call of more than 30 arguments with an if-expression among them is not "
                    "supported in nopython mode; compute that argument first",
                    inst.loc,
                )
            self.block.body.remove(built)  # `f(a1, ..., a40)`: CPython lists the arguments
            self._push_expr(ir.BuildTuple(built.value.items, inst.loc))
            return
        parts = []
        for kind, value in segments:
            if kind == "spread":
                parts.append(value)
            elif value or not parts:  # `()` first: `(*xs,)` of a list must not stay a list
                parts.append(self._push_expr(ir.BuildTuple(value, inst.loc)))
                self.stack.pop()
        result = parts[0]
        for part in parts[1:]:
            result = self._push_expr(ir.BinOp(operator.add, result, part, inst.loc))
            self.stack.pop()
        self.stack.append(result)

    def _display_assignment(self, var: Any) -> ir.Assign | None:
        """The statement of this block that assigns a list display to `var`, if any."""
        for stmt in self.block.body:
            if (
                isinstance(stmt, ir.Assign)
                and stmt.target.name == getattr(var, "name", None)
                and isinstance(stmt.value, ir.BuildList)
            ):
                return stmt
        return None

    def _call_global(self, name: str, value: Any, args: list, push: bool = True) -> ir.Var:
        func = self._temp()
        self._assign(func, ir.Global(name, value, self.inst.loc))
        call = ir.Call(func, args, [], self.inst.loc)
        if push:
            return self._push_expr(call)
        result = self._temp()
        self._assign(result, call)
        return result

    def _fill_dict(self, display: ir.Var, pairs: list, fills_display: bool = True) -> None:
        for key, value in pairs:
            self.block.append(ir.SetItem(display, key, value, self.inst.loc, fills_display))

    def _add_to_set(self, display: ir.Var, items: list) -> None:
        for item in items:
            method = self._temp("add")
            self._assign(method, ir.GetAttr(display, "add", self.inst.loc))
            self._assign(self._temp(), ir.Call(method, [item], [], self.inst.loc))

    def op_BUILD_MAP(self, inst: Instruction) -> None:
        items = self.stack[len(self.stack) - 2 * inst.arg :] if inst.arg else []
        del self.stack[len(self.stack) - 2 * inst.arg :]
        display = self._call_global("dict_display", displays.dict_display, items)
        self._fill_dict(display, list(zip(items[::2], items[1::2])))
        self.map_displays[display.name] = list(zip(items[::2], items[1::2]))

    def op_BUILD_CONST_KEY_MAP(self, inst: Instruction) -> None:
        names = self.stack.pop()
        values = self.stack[len(self.stack) - inst.arg :]
        del self.stack[len(self.stack) - inst.arg :]
        keys = []
        for key in self.constants[names.name]:
            keys.append(self._const(key))
            self.stack.pop()
        items = [member for pair in zip(keys, values) for member in pair]
        display = self._call_global("dict_display", displays.dict_display, items)
        self._fill_dict(display, list(zip(keys, values)))
        self.map_displays[display.name] = list(zip(keys, values))

    def op_DICT_UPDATE(self, inst: Instruction) -> None:
        """`{**a, ...}`: the display under construction (`arg` deep) is updated from `a`."""
        source = self.stack.pop()
        target = self.stack[-inst.arg]
        if source.name in self.map_displays and target.name in self.map_displays:
            # a long display: CPython builds runs of up to 16 constant keys and merges them
            self._extend_map_display(target, self.drop_map_display(source))
            return
        self.map_displays.pop(target.name, None)  # no longer a display of known pairs
        method = self._temp("update")
        self._assign(method, ir.GetAttr(self.stack[-inst.arg], "update", inst.loc))
        self._assign(self._temp(), ir.Call(method, [source], [], inst.loc))

    def op_MAP_ADD(self, inst: Instruction) -> None:
        """A dict comprehension's `d[key] = value`; the dict sits `arg` deep in the stack."""
        value = self.stack.pop()
        key = self.stack.pop()
        target = self.stack[-inst.arg]
        pairs = self.map_displays.get(target.name)
        if pairs is None:
            self._fill_dict(target, [(key, value)], fills_display=False)
            return
        # a display of more than 16 items: CPython adds them one by one to `{}`; rebuilt as
        # one display so it types as the short display of the same items would
        self._extend_map_display(target, [(key, value)])

    def _extend_map_display(self, display: ir.Var, pairs: list) -> None:
        """Rebuild the dict display `display` of this block with more (key, value) pairs."""
        pairs = self.drop_map_display(display) + pairs
        func = self._temp()
        self._assign(func, ir.Global("dict_display", displays.dict_display, self.inst.loc))
        items = [member for pair in pairs for member in pair]
        self._assign(display, ir.Call(func, items, [], self.inst.loc))
        self._fill_dict(display, pairs)
        self.map_displays[display.name] = pairs

    def drop_map_display(self, display: ir.Var) -> list:
        """Remove the statements of this block that build the dict display `display`; its
        (key, value) pairs."""
        for stmt in list(self.block.body):
            if isinstance(stmt, ir.SetItem) and stmt.target.name == display.name:
                self.block.body.remove(stmt)
            elif isinstance(stmt, ir.Assign) and stmt.target.name == display.name:
                self.block.body.remove(stmt)
                self._drop_definition(stmt.value.func)
        return self.map_displays.pop(display.name)

    def op_BUILD_SET(self, inst: Instruction) -> None:
        items = self.stack[len(self.stack) - inst.arg :] if inst.arg else []
        del self.stack[len(self.stack) - inst.arg :]
        display = self._call_global("set_display", displays.set_display, items)
        self._add_to_set(display, items)

    def op_SET_ADD(self, inst: Instruction) -> None:
        """A set comprehension's `s.add(item)`; the set sits `arg` deep in the stack."""
        item = self.stack.pop()
        self._add_to_set(self.stack[-inst.arg], [item])

    def op_SET_UPDATE(self, inst: Instruction) -> None:
        """CPython builds a display of three or more constants as `set()` updated by a constant
        frozenset: rebuild it as one display of those constants."""
        extension = self.stack.pop()
        target = self.stack[-inst.arg]
        constants = self.constants.get(getattr(extension, "name", None))
        if not isinstance(constants, frozenset):
            self._spread_into_set(target, extension)
            return
        items = []
        for value in constants:
            items.append(self._const(value))
            self.stack.pop()
        replaced = (target.name, extension.name)  # `set()` and the frozenset give way to
        for stmt in list(self.block.body):  # a display of the constants' type
            if isinstance(stmt, ir.Assign) and stmt.target.name in replaced:
                self.block.body.remove(stmt)
        func = self._temp()
        display = displays.constant_set_display
        self._assign(func, ir.Global("constant_set_display", display, inst.loc))
        self._assign(target, ir.Call(func, items, [], inst.loc))
        self._add_to_set(target, items)

    def _spread_into_set(self, target: ir.Var, extension: ir.Var) -> None:
        """`{*a, *b}`: an empty display spread into becomes `set(a)` (typed by a's items);
        later spreads (and spreads into a display with items) update it."""
        made = next(
            (
                stmt
                for stmt in self.block.body
                if isinstance(stmt, ir.Assign)
                and stmt.target.name == target.name
                and isinstance(stmt.value, ir.Call)
                and not stmt.value.args
            ),
            None,
        )
        if made is not None and self._is_set_display(made.value.func):
            func = self._temp()
            self._assign(func, ir.Global("set", set, self.inst.loc))
            self.block.body.remove(made)  # `set_display()` gives way to `set(a)`
            self._assign(target, ir.Call(func, [extension], [], self.inst.loc))
            return
        method = self._temp("update")
        self._assign(method, ir.GetAttr(target, "update", self.inst.loc))
        self._assign(self._temp(), ir.Call(method, [extension], [], self.inst.loc))

    def _is_set_display(self, func: ir.Var) -> bool:
        return any(
            isinstance(stmt, ir.Assign)
            and stmt.target.name == func.name
            and isinstance(stmt.value, ir.Global)
            and stmt.value.value is displays.set_display
            for stmt in self.block.body
        )

    def set_of_constant_frozenset(self, value, iterated: bool = False):
        """`value`, or in place of a frozenset constant (CPython compiles `x in {1, 2}` and
        `for x in {1, 2}` to one; compiled code has no frozensets) a set display of its items,
        or when `iterated` a tuple of them in the frozenset's own order."""
        constants = self.constants.get(getattr(value, "name", None))
        if not isinstance(constants, frozenset):
            return value
        for stmt in list(self.block.body):
            if isinstance(stmt, ir.Assign) and stmt.target.name == value.name:
                self.block.body.remove(stmt)
        if iterated:
            items = self._const(tuple(constants))
            self.stack.pop()
            return items
        items = [self._const(item) for item in constants]
        del self.stack[len(self.stack) - len(items) :]
        display = self._call_global(
            "constant_set_display", displays.constant_set_display, items, push=False
        )
        self._add_to_set(display, items)
        return display

    def op_DELETE_SUBSCR(self, inst: Instruction) -> None:
        index = self.stack.pop()
        target = self.stack.pop()
        self._call_global("delitem", operator.delitem, [target, index], push=False)
