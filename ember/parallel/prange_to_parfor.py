"""Sub-pass 4: prange loops to parfors. Consumes typed IR; replaces each legal prange loop
(outermost first) by one `Parfor` statement in its preheader and records why the others stay
serial.

Before:                                    After:
    label 0: $r = call $prange(n)              label 0: $r = call $prange(n)
             $it = getiter($r) ...                      ---begin parfor 0--- ... ---end---
             jump 38                                    s = $parfor.s
    label 38: header; label 40: body                    jump 66
    label 66: exit                             label 66: exit
"""

from __future__ import annotations

import itertools
import warnings

from ember import types
from ember.errors import EmberPerformanceWarning, NumbaParallelSafetyWarning
from ember.ir import nodes as ir
from ember.ir.liveness import insert_dels, live_variables, strip_dels
from ember.ir.parfor import LoopNest, Parfor, Reduction
from ember.parallel import reductions as red
from ember.parallel.api import prange, stencil_prange
from ember.parallel.diagnostics import ParallelReport
from ember.parallel.legality import LoopAnalysis, NotParallel, analyze
from ember.parallel.loops import PrangeLoop, find_prange_loops

_parfor_ids = itertools.count()
_flag_ids = itertools.count()


def convert_prange_loops(
    func_ir: ir.FunctionIR, typemap: dict, report: ParallelReport, markers: tuple
) -> list:
    """Convert every legal loop over one of `markers`; returns the new Parfor statements."""
    converted = []
    while True:
        live_in, _ = live_variables(func_ir)
        loops = [
            loop
            for loop in find_prange_loops(func_ir, typemap, markers)
            if loop.header not in report.serial_headers
        ]
        if not loops:
            break
        loop = loops[0]
        try:
            analysis = analyze(func_ir, typemap, loop, live_in)
            _check_range(loop, typemap)
        except NotParallel as reason:
            report.serial(loop.header, loop.loc, str(reason))
            if _origin(loop, typemap, report) == "prange":
                _warn_serial(loop.loc, str(reason))
            continue
        # the prange loops inside get their ids first (Numba converts inner loops first)
        nested = [(next(_parfor_ids), loc) for loc in _nested_pranges(func_ir, typemap, loop)]
        parfor = _replace_loop(func_ir, typemap, loop, analysis)
        _warn_last_values(loop.loc, analysis.last_values)
        report.converted(parfor, loop.loc, _origin(loop, typemap, report), analysis.trusted)
        for inner_id, loc in nested:
            report.nested(parfor.id, inner_id, loc)
        parfor.lowering["ranges"] = [loop.range_var.name]  # what it was made from
        converted.append(parfor)
    if converted:
        strip_dels(func_ir)
        insert_dels(func_ir)
    return converted


def _nested_pranges(func_ir: ir.FunctionIR, typemap: dict, loop: PrangeLoop) -> list:
    """Where the body of `loop` calls prange: those loops run serially inside each chunk (as
    range loops; the outlined body compiles without parallel=)."""
    found = []
    for label in loop.body:
        for stmt in func_ir.blocks[label].body:
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call):
                key = getattr(typemap.get(stmt.value.func.name), "typing_key", None)
                if key is prange:
                    found.append(stmt.loc)
    return found


def _warn_serial(loc: ir.Loc, reason: str) -> None:
    """The user asked for a parallel loop: say why it runs serially (Numba's
    NumbaPerformanceWarning for the loops it leaves serial, which ember's alias is)."""
    warnings.warn_explicit(
        f"prange loop will not be executed in parallel: {reason}; it runs serially",
        EmberPerformanceWarning,
        loc.filename,
        loc.line,
    )


def _warn_last_values(loc: ir.Loc, groups: list) -> None:
    """Numba's NumbaParallelSafetyWarning for a variable assigned in the loop and read after
    it (its users filter on it), saying what ember gives: the serial loop's value."""
    for group in groups:
        if group.compare is not None:
            continue  # a running extreme: a reduction
        (name,) = group.members
        if name.startswith("$"):
            continue
        warnings.warn_explicit(
            f"Variable {name} used in parallel loop may be written to simultaneously by "
            "multiple workers and may result in non-deterministic or unintended results. "
            f"(ember keeps it defined: after the loop {name} holds the value of the last "
            "iteration that assigned it, as the serial loop leaves it.)",
            NumbaParallelSafetyWarning,
            loc.filename,
            loc.line,
        )


def _origin(loop: PrangeLoop, typemap: dict, report: ParallelReport) -> str:
    """What the diagnostics call the loop: its NumPy call, 'stencil' or 'prange'."""
    if loop.range_var.name in report.origins:
        return report.origins[loop.range_var.name]
    marker = getattr(typemap.get(loop.range_call.func.name), "typing_key", None)
    return "stencil" if marker is stencil_prange else "prange"


def _check_range(loop: PrangeLoop, typemap: dict) -> None:
    dtype = typemap[loop.range_var.name].dtype
    if not (isinstance(dtype, types.Integer) and dtype.signed):
        raise NotParallel(f"prange over {dtype} bounds runs serially (only signed integers)")


def _replace_loop(func_ir, typemap: dict, loop: PrangeLoop, analysis: LoopAnalysis) -> Parfor:
    loc = loop.loc
    index_var = ir.Var(f"$parfor_index.{next(_parfor_ids)}", loc)
    typemap[index_var.name] = typemap[loop.range_var.name].dtype
    body = {}
    for label in loop.body:
        block = func_ir.blocks.pop(label)
        statements = []
        for stmt in block.body:
            if isinstance(stmt, ir.Del) or id(stmt) in analysis.dropped:
                continue
            if (
                isinstance(stmt, ir.Assign)
                and isinstance(stmt.value, ir.Var)
                and stmt.value.name in loop.index_sources
            ):
                stmt = ir.Assign(stmt.target, index_var, stmt.loc)
            statements.append(stmt)
        body[label] = ir.Block(label, block.loc, statements)
        func_ir.exception_handlers.pop(label, None)  # (a try around the loop: see legality)
    del func_ir.blocks[loop.header]
    func_ir.exception_handlers.pop(loop.header, None)

    reductions = []
    for name, kind, inplace in analysis.reductions:
        result = ir.Var(f"$parfor.{name}", loc)
        typemap[result.name] = typemap[name]
        identity = red.identity(typemap[name], kind)
        reductions.append(Reduction(ir.Var(name, loc), result, kind, inplace, identity))
    flags = _mark_last_values(body, typemap, analysis.last_values, loc)
    for group, flag in zip(analysis.last_values, flags):
        for name in group.members:
            result = ir.Var(f"$parfor.{name}", loc)
            typemap[result.name] = typemap[name]
            leads = group.compare is not None and name == group.compare[0]
            start = red.identity(typemap[name], group.extreme) if leads else None
            last = Reduction(ir.Var(name, loc), result, "last", False, start, flag, group.compare)
            reductions.append(last)
        reductions.append(Reduction(ir.Var(flag, loc), ir.Var(f"$parfor.{flag}", loc), "|",
                                    False, False))  # fmt: skip
        typemap[f"$parfor.{flag}"] = types.boolean
    args = loop.range_call.args
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    nest = LoopNest(index_var, loop.range_var, start, stop, step)
    parfor = Parfor(
        id=int(index_var.name.rsplit(".", 1)[1]),
        loop_nests=[nest],
        init_block=ir.Block(-1, loc, []),  # a prange's bounds are computed before it
        loop_body=body,
        body_entry=loop.body_entry,
        continue_label=loop.header,
        params=[ir.Var(name, loc) for name in analysis.params],
        reductions=reductions,
        loc=loc,
    )
    preheader = func_ir.blocks[loop.preheader]
    kept = [s for s in preheader.body[:-1] if not _starts_iteration(s, loop)]
    kept += [ir.Assign(ir.Var(flag, loc), ir.Const(False, loc), loc) for flag in flags]
    copies = [ir.Assign(ir.Var(r.var.name, loc), r.result, loc) for r in reductions]
    # the header's copies of values passing through (enclosing loops' iterators) run once more
    copies += [ir.Assign(c.target, c.value, c.loc) for c in loop.header_copies]
    preheader.body = [*kept, parfor, *copies, ir.Jump(loop.exit, loc)]
    return parfor


def _mark_last_values(body: dict, typemap: dict, groups: list, loc: ir.Loc) -> list[str]:
    """A flag per group of last values, set after each assignment of its first member (the
    chunk assigned them: its values replace the earlier chunks')."""
    flags = []
    for group in groups:
        flag = f"$parfor.assigned.{next(_flag_ids)}"
        typemap[flag] = types.boolean
        for block in body.values():
            marked = []
            for stmt in block.body:
                marked.append(stmt)
                if group.members[0] in {v.name for v in stmt.targets()}:
                    marked.append(ir.Assign(ir.Var(flag, loc), ir.Const(True, loc), loc))
            block.body = marked
        flags.append(flag)
    return flags


def _starts_iteration(stmt: ir.Stmt, loop: PrangeLoop) -> bool:
    """`$it = getiter($r)` and `$phi = $it` in the preheader."""
    if not isinstance(stmt, ir.Assign):
        return False
    if isinstance(stmt.value, ir.GetIter) and stmt.value.value.name == loop.range_var.name:
        return True
    return stmt.target.name in loop.iterator_vars
