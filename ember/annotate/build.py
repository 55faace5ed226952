"""What each source line of one compiled specialization became, for the annotated view.

Consumes a dispatcher and one of its signatures: compiles that specialization again with
debug locations (nothing is installed: the dispatcher's own code is unchanged), collecting the
loop vectorizer's remarks. Produces a FunctionView: per line its kind (llvm_lines.KINDS), typed
IR, optimized LLVM and loop notes; the variables' types; each loop's fate.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field

from ember.annotate.llvm_lines import code_by_line, heavier
from ember.codegen.remarks import Remark, vectorizer_remarks
from ember.compiler import CompileResult, CompileState, run_pipeline
from ember.ir import nodes as ir
from ember.typing.annotate import source_of, statements_by_line, typed_statement


@dataclass
class LoopView:
    """A loop of the source: vectorized or not (LLVM's remarks), and under parallel=True
    whether it became a parfor."""

    line: int
    vectorized: bool = False
    remarks: list[str] = field(default_factory=list)
    parallel: str = ""  # "parfor #1", or why it stayed serial; "" when not parallel=True
    in_callee: bool = False  # a loop of library code the line calls (`b[:] = 1.0`)

    @property
    def summary(self) -> str:
        vector = "vectorized" if self.vectorized else "not vectorized"
        return f"{vector}; {self.parallel}" if self.parallel else vector


@dataclass
class LineView:
    number: int
    text: str
    kind: str | None  # None: no code on this line
    typed_ir: list[str] = field(default_factory=list)
    llvm: list[str] = field(default_factory=list)
    loop: LoopView | None = None


@dataclass
class FunctionView:
    qualname: str
    signature: str
    filename: str
    lines: list[LineView]
    variables: list[tuple[str, str]]
    loops: list[LoopView]

    def line(self, number: int) -> LineView:
        return next(line for line in self.lines if line.number == number)


def function_view(dispatcher, arg_types: tuple) -> FunctionView:
    """The view of `dispatcher`'s specialization for `arg_types` (compiled if needed)."""
    from ember.dispatcher.dispatcher import compile_lock

    result = dispatcher.compile(arg_types)
    options = dataclasses.replace(dispatcher.options, debug=True)
    state = CompileState(dispatcher.py_func, tuple(arg_types), None, options, dispatcher)
    state.reported = False  # a second compilation for this view: not a compile_report row
    with compile_lock, vectorizer_remarks() as remarks:
        annotated = run_pipeline(state)
    return _view(annotated, result, remarks)


def _view(annotated: CompileResult, result: CompileResult, remarks: list[Remark]) -> FunctionView:
    func_ir, typing = annotated.func_ir, annotated.typing
    kernels = _kernels(annotated)
    loops = _loops([kernel[0] for kernel in kernels], remarks, annotated.parallel_report)
    source, first = source_of(func_ir)
    lines = [
        LineView(first + offset, text.rstrip("\n"), None) for offset, text in enumerate(source)
    ]
    by_number = {line.number: line for line in lines}
    for kernel in kernels:
        _add_kernel(by_number, *kernel)
    for line in lines:
        line.loop = loops.get(line.number)
    args = ", ".join(str(t) for t in result.signature.args)
    return FunctionView(
        func_ir.qualname,
        f"({args}) -> {result.signature.return_type}",
        func_ir.loc.filename,
        lines,
        _variables(func_ir, typing),
        sorted(loops.values(), key=lambda loop: loop.line),
    )


def _kernels(annotated: CompileResult) -> list[tuple]:
    """(func_ir, typing, optimized IR, symbol) of the function and of the outlined body of
    each of its parfors (compiled separately, with the same debug locations)."""
    kernels = [
        (annotated.func_ir, annotated.typing, annotated.library.optimized_ir, annotated.symbol)
    ]
    for _, stmt in annotated.func_ir.statements():
        gufunc = getattr(stmt, "gufunc", None)
        if getattr(gufunc, "library", None) is not None:
            kernels.append(
                (gufunc.func_ir, gufunc.typing, gufunc.library.optimized_ir, gufunc.symbol)
            )
    return kernels


def _add_kernel(lines: dict[int, LineView], func_ir, typing, optimized_ir, symbol) -> None:
    code = code_by_line(optimized_ir, symbol)
    for number, statements in statements_by_line(func_ir).items():
        if number in lines:
            lines[number].typed_ir += [typed_statement(stmt, typing) for _, stmt in statements]
            lines[number].kind = heavier(lines[number].kind or "native", "native")
    for number, instructions in code.instructions.items():
        if number in lines:
            lines[number].llvm += instructions
            lines[number].kind = heavier(lines[number].kind or "native", code.kinds[number])
    for number in _objmode_lines(func_ir):
        if number in lines:
            lines[number].kind = "python"
            lines[number].typed_ir.append("(runs as Python: inside `with objmode()`)")


def _objmode_lines(func_ir: ir.FunctionIR) -> set[int]:
    """The lines of the `with objmode()` blocks the function calls (their bodies run as
    Python functions, so they have no typed IR or LLVM)."""
    from ember.frontend.objmode_blocks import ObjModeBlock

    found = set()
    for _, stmt in func_ir.statements():
        value = getattr(getattr(stmt, "value", None), "value", None)
        if isinstance(value, ObjModeBlock):
            found.update(line for _, _, line in value.py_func.__code__.co_lines() if line)
    return found


def _variables(func_ir: ir.FunctionIR, typing) -> list[tuple[str, str]]:
    """The source's variables (not the compiler's `$` temporaries) and their types; a
    variable split in webs (`x.1`: ember/rewrites/variable_webs.py) is shown under its own
    name with every type it takes."""
    found: dict[str, list[str]] = {}
    for name in (*func_ir.arg_names, *sorted(typing.typemap)):
        if name.startswith("$") or name not in typing.typemap:
            continue
        base = func_ir.user_name(name)
        shown = str(typing.typemap[name])
        if shown not in found.setdefault(base, []):
            found[base].append(shown)
    return [(name, " | ".join(shown)) for name, shown in found.items()]


def _loops(func_irs: list, remarks: list[Remark], report) -> dict[int, LoopView]:
    """Loops by header line, from the back edges of the function's IR and of its parfors'
    bodies (labels are bytecode offsets: a jump to an earlier label closes a loop) and from
    the parallel report; LLVM's remarks go to the innermost loop whose lines hold them, or,
    for a loop of library code a line calls (`b[:] = 1.0`), to a loop entry of that line."""
    loops: dict[int, LoopView] = {}
    spans: dict[int, tuple[int, int]] = {}
    for func_ir in func_irs:
        for header, lines in _loop_lines(func_ir):
            loops.setdefault(header, LoopView(header))
            low, high = spans.get(header, (header, header))
            spans[header] = (min(low, *lines), max(high, *lines))
    for record in report.loops if report is not None else ():
        loop = loops.setdefault(record.loc.line, LoopView(record.loc.line))
        loop.parallel = (
            f"parfor #{record.parfor_id}"
            if record.parfor_id is not None
            else f"stays serial: {record.reason}"
        )
    filename = os.path.basename(func_irs[0].loc.filename)
    for remark in remarks:
        if os.path.basename(remark.filename) != filename:
            continue
        holding = [start for start, (low, high) in spans.items() if low <= remark.line <= high]
        line = min(holding, key=lambda start: spans[start][1] - spans[start][0], default=None)
        if line is None:
            line = remark.line
            loops.setdefault(line, LoopView(line, in_callee=True))
        loop = loops[line]
        loop.vectorized = loop.vectorized or remark.vectorized
        if remark.message not in loop.remarks:
            loop.remarks.append(remark.message)
    for loop in loops.values():  # "loop not vectorized" says less than its reasons
        if len(loop.remarks) > 1 and "loop not vectorized" in loop.remarks:
            loop.remarks.remove("loop not vectorized")
    return loops


def _loop_lines(func_ir: ir.FunctionIR) -> list[tuple[int, list[int]]]:
    """(header line, lines of its blocks) of each loop closed by a back edge."""
    found = []
    for label, block in func_ir.blocks.items():
        for target in block.successors():
            if target <= label and func_ir.blocks[target].body:
                header = func_ir.blocks[target].body[0].loc.line
                lines = [
                    stmt.loc.line
                    for inner, body in func_ir.blocks.items()
                    if target <= inner <= label
                    for stmt in body.body
                    if stmt.loc.filename == func_ir.loc.filename
                ]
                found.append((header, lines))
    return found
