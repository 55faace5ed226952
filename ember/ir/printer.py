"""The one text form of the IR (seed 001's EMBER_DUMP_IR format), also used by golden tests."""

from __future__ import annotations

from ember.ir.nodes import Block, FunctionIR, Stmt


def format_stmt(stmt: Stmt) -> str:
    """`$0.3 = a + b` padded to 40 columns, then the sorted names of the variables it touches."""
    names = sorted({var.name for var in stmt.sources() + stmt.targets()})
    return f"{stmt!s:<40} {names}"


def format_block_body(block: Block, indent: str = "    ") -> list[str]:
    lines: list[str] = []
    for stmt in block.body:
        if hasattr(stmt, "dump_lines"):  # a region statement (parfor) prints its own blocks
            lines += stmt.dump_lines(indent, format_stmt)
        else:
            lines.append(indent + format_stmt(stmt))
    return lines


def dump_function(func_ir: FunctionIR) -> str:
    lines: list[str] = []
    for label in sorted(func_ir.blocks):
        lines.append(f"label {label}:")
        lines.extend(format_block_body(func_ir.blocks[label]))
    return "\n".join(lines)


def banner(title: str, width: int = 80, fill: str = "-") -> str:
    """`-----TITLE-----` centered in `width` columns, as Numba's dumps head their sections."""
    return title.center(width, fill)
