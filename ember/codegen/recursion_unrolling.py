"""Stage 7: unrolls direct self-recursion in an optimized module, as GCC does at -O3: a copy of
each small self-recursive function is inlined into it, so `fib` makes a quarter of its calls.

Consumes an optimized LLVM module; produces the module re-optimized with the copies inlined.
"""

from __future__ import annotations

import re

import llvmlite.binding as llvm_binding

# Each round doubles a function's recursion depth per call (and its code): two rounds make
# fib(27) 1.8x faster; a third adds 13% for twice the code again.
ROUNDS = 2
# A function larger than this after optimization keeps its calls: its call overhead is a small
# share of its time, and each round doubles its size and the module's re-optimization time.
MAX_INSTRUCTIONS = 120

_SYMBOL = r'@("(?:[^"\\]|\\.)*"|[-\w$.]+)'
_LINKAGE = re.compile(
    r"^define\s+(?:(?:private|internal|external|linkonce|linkonce_odr|weak|weak_odr|"
    r"available_externally)\s+)?"
)
_COMDAT = re.compile(r"\s+comdat(?:\(\$[^)]*\))?")
_NOT_INLINABLE = {"noinline", "optnone"}


def unroll_self_recursion(jit, module: llvm_binding.ModuleRef) -> llvm_binding.ModuleRef:
    """`module`, or a re-optimized module in which each small self-recursive function
    has had a copy of itself inlined, `ROUNDS` times while it stays small."""
    for _ in range(ROUNDS):
        candidates = [f for f in module.functions if _small_and_self_recursive(f)]
        if not candidates:
            return module
        text = str(module)
        for function in candidates:
            definition = str(function)
            text = text.replace(definition, _with_inlined_copy(definition), 1)
        module = jit.parse(text)
        jit.optimize(module)
    return module


def _small_and_self_recursive(function: llvm_binding.ValueRef) -> bool:
    if function.is_declaration:
        return False
    attributes = {word for group in function.attributes for word in group.decode().split()}
    if _NOT_INLINABLE & attributes:
        return False
    name = function.name  # (each property read is a call into LLVM: read once)
    calls_itself, count = False, 0
    for block in function.blocks:
        for instruction in block.instructions:
            count += 1
            if count > MAX_INSTRUCTIONS:  # (stop early: walking a huge function is not free)
                return False
            calls_itself = calls_itself or _calls(instruction, name)
    return calls_itself


def _calls(instruction: llvm_binding.ValueRef, name: str) -> bool:
    if instruction.opcode != "call":
        return False
    *_, callee = instruction.operands
    return callee.name == name


def _with_inlined_copy(definition: str) -> str:
    """The function's text calling an always-inlined copy of itself, and the copy, which calls
    the function: inlining the copy puts two levels of the recursion in each call."""
    comment, define_line, body = _split_definition(definition)
    if "!dbg" in define_line:  # a debug subprogram belongs to one function: leave it alone
        return definition
    symbol = re.search(_SYMBOL + r"\(", define_line).group(1)
    copy = symbol[:-1] + '.unrolled"' if symbol.startswith('"') else f'"{symbol}.unrolled"'
    calls_to_copy = body.replace(f"@{symbol}(", f"@{copy}(")
    copy_line = _COMDAT.sub("", _LINKAGE.sub("define internal ", define_line, count=1))
    copy_line = copy_line.replace(f"@{symbol}(", f"@{copy}(", 1)
    copy_line = copy_line[: copy_line.rindex("{")].rstrip() + " alwaysinline {"
    return f"{comment}{define_line}\n{calls_to_copy}\n{copy_line}\n{body}"


def _split_definition(definition: str) -> tuple[str, str, str]:
    """(comment lines before `define`, the `define` line, the rest)."""
    start = definition.index("define ")
    line_end = definition.index("\n", start)
    return definition[:start], definition[start:line_end], definition[line_end + 1 :]
