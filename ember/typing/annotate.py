"""The EMBER_DUMP_ANNOTATION view: source lines interleaved with their typed IR (seed 001)."""

from __future__ import annotations

import inspect

from ember.ir import nodes as ir
from ember.ir.printer import banner
from ember.typing.infer import TypingResult


def annotate(func_ir: ir.FunctionIR, typing: TypingResult) -> str:
    """`# --- LINE n ---` sections, each with the IR of that line typed as `:: type`."""
    source_lines, first_line = source_of(func_ir)
    by_line = statements_by_line(func_ir)
    out = [banner("ANNOTATION"), f"# File: {func_ir.loc.filename}"]
    for offset, text in enumerate(source_lines):
        line = first_line + offset
        indent = text[: len(text) - len(text.lstrip())]
        out.append(f"{indent}# --- LINE {line} ---")
        for label, stmt in by_line.get(line, []):
            if label is not None:
                out.append(f"{indent}# label {label}")
            out.append(f"{indent}#   {typed_statement(stmt, typing)}")
        out.append("")
        out.append(text.rstrip("\n"))
        out.append("")
    return "\n".join(out)


def source_of(func_ir: ir.FunctionIR) -> tuple[list[str], int]:
    """The function's source lines and the number of the first (none when unavailable)."""
    try:
        return inspect.getsourcelines(func_ir.py_func)
    except (OSError, TypeError):
        return [], func_ir.loc.line


def statements_by_line(func_ir: ir.FunctionIR) -> dict[int, list]:
    """(block label when the statement opens its block, else None; statement) per line."""
    by_line: dict[int, list] = {}
    for label in sorted(func_ir.blocks):
        block = func_ir.blocks[label]
        for index, stmt in enumerate(block.body):
            by_line.setdefault(stmt.loc.line, []).append((label if index == 0 else None, stmt))
    return by_line


def typed_statement(stmt: ir.Stmt, typing: TypingResult) -> str:
    if isinstance(stmt, ir.Assign):
        return f"{stmt}  :: {typing.typemap.get(stmt.target.name, '?')}"
    return str(stmt)


def annotation_info(func_ir: ir.FunctionIR, typing: TypingResult) -> dict:
    """Numba's `get_annotation_info` data of one specialization: the source lines with their
    indents, and each line's typed statements."""
    source_lines, first_line = source_of(func_ir)
    by_line = statements_by_line(func_ir)
    numbers = range(first_line, first_line + len(source_lines))
    texts = [text.rstrip("\n") for text in source_lines]
    return {
        "filename": func_ir.loc.filename,
        "funcname": func_ir.py_func.__name__,
        "python_lines": list(zip(numbers, texts)),
        "python_indent": {n: len(t) - len(t.lstrip()) for n, t in zip(numbers, texts)},
        "python_tags": {n: "" for n in numbers},
        "ir_lines": {
            n: [(typed_statement(stmt, typing), "") for _, stmt in by_line.get(n, [])]
            for n in numbers
        },
    }
