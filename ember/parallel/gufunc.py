"""Outlines a parfor's body into its own function over one chunk of the iteration space (the
seed's gufunc), typed and compiled like any jitted function:

    def parfor_body(lo, hi, [step,] *params, *reduction_starts):
        r = reduction_start                    # arrays: r = zeros_like(r) (a private copy)
        for i in range(lo, hi[, step]):
            <the loop body>
        return (r, ...)
"""

from __future__ import annotations

import copy
import itertools
import operator

from ember import types
from ember.ir import nodes as ir
from ember.ir.liveness import insert_dels, live_variables
from ember.ir.parfor import Parfor
from ember.parallel import reductions as red
from ember.parallel.api import get_parallel_chunksize, worker_parallel_chunksize
from ember.parallel.hoisting import hoist_allocations

_LO, _HI, _STEP = "$parfor.lo", "$parfor.hi", "$parfor.step"
_counter = itertools.count()


def build_gufunc_ir(parfor: Parfor, func_ir: ir.FunctionIR, typemap: dict, has_step: bool):
    """(FunctionIR of the outlined body, its argument types)."""
    loc = parfor.loc
    var = lambda name: ir.Var(name, loc)  # noqa: E731
    header = parfor.continue_label
    exit_label = max(*parfor.loop_body, header) + 1
    entry_label = min(min(parfor.loop_body), header) - 1
    bounds = [_LO, _HI, _STEP] if has_step else [_LO, _HI]
    arg_names = [
        *bounds,
        *(p.name for p in parfor.params),
        *(r.var.name for r in parfor.reductions),
    ]
    arg_types = [types.int64] * len(bounds)
    arg_types += [typemap[p.name] for p in parfor.params]
    arg_types += [typemap[r.var.name] for r in parfor.reductions]

    entry = ir.Block(entry_label, loc)
    for index, name in enumerate(arg_names):
        entry.append(ir.Assign(var(name), ir.Arg(index, name, loc), loc))
    for reduction in parfor.reductions:
        if isinstance(typemap[reduction.var.name], types.Array) and reduction.kind != "last":
            helper = var(f"$parfor.init.{reduction.var.name}")
            init = ir.Global(
                "init", red.init_helper(typemap[reduction.var.name], reduction.kind), loc
            )
            entry.append(ir.Assign(helper, init, loc))
            call = ir.Call(helper, [reduction.var], [], loc)
            entry.append(ir.Assign(var(reduction.var.name), call, loc))
    exit_block = _exit_block(parfor, exit_label, loc)
    loop = {header: _header_block(parfor, header, exit_label, loc)}
    for label, block in parfor.loop_body.items():
        body = [_in_worker(s, typemap) for s in block.body if not isinstance(s, ir.Del)]
        loop[label] = ir.Block(label, block.loc, body)
    blocks = {entry_label: entry, exit_label: exit_block, **loop}
    live_in, _ = live_variables(ir.FunctionIR(blocks, (), func_ir.py_func, loc, entry=header))
    prologue, hoisted = hoist_allocations(loop, parfor.body_entry, typemap, live_in[header])
    entry.body += prologue
    parfor.lowering["hoisted"] = hoisted
    if has_step:
        entry.body += _start_iteration(bounds, header, loc)
        return _finished(blocks, arg_names, arg_types, func_ir, entry_label, loc)
    # Where the chunk starts at index >= 0, LLVM proves that no index needs wrapping around
    # (a[i] with i < 0), which doubles the speed of a[i]: the loop runs behind a test lo >= 0.
    # A range whose start is a constant >= 0 always passes it (its other way is the exit);
    # any other range gets a second copy of the loop for chunks starting below 0.
    natural = exit_label + 1
    blocks[natural] = ir.Block(natural, loc, _start_iteration(bounds, header, loc))
    other = exit_label
    if not _starts_non_negative(parfor, func_ir):
        shift = exit_label + 2 - min(loop)
        blocks.update({label + shift: _relabeled(b, loop, shift) for label, b in loop.items()})
        other = exit_label + shift + 2
        blocks[other] = ir.Block(other, loc, _start_iteration(bounds, header + shift, loc))
    zero, test = var("$parfor.zero"), var("$parfor.natural")
    entry.append(ir.Assign(zero, ir.Const(0, loc), loc))
    entry.append(ir.Assign(test, ir.BinOp(operator.ge, var(_LO), zero, loc), loc))
    entry.append(ir.Branch(test, natural, other, loc))
    return _finished(blocks, arg_names, arg_types, func_ir, entry_label, loc)


def _in_worker(stmt: ir.Stmt, typemap: dict) -> ir.Stmt:
    """The statement as the outlined body runs it: `get_parallel_chunksize` reads 0 there (as
    in Numba, whose workers run with the hint reset)."""
    if not isinstance(stmt, ir.Assign):
        return stmt
    key = getattr(typemap.get(stmt.target.name), "typing_key", None)
    if key is not get_parallel_chunksize:
        return stmt
    reset = ir.Global("worker_parallel_chunksize", worker_parallel_chunksize, stmt.loc)
    return ir.Assign(stmt.target, reset, stmt.loc)


def _finished(blocks, arg_names, arg_types, func_ir, entry_label, loc):
    outlined = ir.FunctionIR(blocks, tuple(arg_names), func_ir.py_func, loc, entry=entry_label)
    outlined.user_names = func_ir.user_names  # `locals=` declarations reach every web
    insert_dels(outlined)
    return outlined, tuple(arg_types)


def _starts_non_negative(parfor: Parfor, func_ir: ir.FunctionIR) -> bool:
    """Whether the parfor's range starts at a constant >= 0 (its chunks then start there too)."""
    start = parfor.loop_nests[0].start
    if isinstance(start, ir.Var):
        values = [
            stmt.value
            for block in func_ir.blocks.values()
            for stmt in block.body
            if isinstance(stmt, ir.Assign) and stmt.target.name == start.name
        ]
        start = values[0].value if len(values) == 1 and isinstance(values[0], ir.Const) else None
    return isinstance(start, int) and not isinstance(start, bool) and start >= 0


def _start_iteration(bounds: list[str], header: int, loc: ir.Loc) -> list[ir.Stmt]:
    """`$parfor.it = getiter(range(lo, hi[, step]))`, then the loop header."""
    var = lambda name: ir.Var(name, loc)  # noqa: E731
    range_fn, range_value = var("$parfor.range"), var("$parfor.r")
    call = ir.Call(range_fn, [var(name) for name in bounds], [], loc)
    return [
        ir.Assign(range_fn, ir.Global("range", range, loc), loc),
        ir.Assign(range_value, call, loc),
        ir.Assign(var("$parfor.it"), ir.GetIter(range_value, loc), loc),
        ir.Jump(header, loc),
    ]


def _header_block(parfor: Parfor, header: int, exit_label: int, loc: ir.Loc) -> ir.Block:
    """The next index of the chunk into the parfor's index variable, or leave the loop."""
    var = lambda name: ir.Var(name, loc)  # noqa: E731
    pair, valid = var("$parfor.pair"), var("$parfor.valid")
    block = ir.Block(header, loc)
    block.append(ir.Assign(pair, ir.IterNext(var("$parfor.it"), loc), loc))
    block.append(ir.Assign(parfor.index_var, ir.PairFirst(pair, loc), loc))
    block.append(ir.Assign(valid, ir.PairSecond(pair, loc), loc))
    block.append(ir.Branch(valid, parfor.body_entry, exit_label, loc))
    return block


def _exit_block(parfor: Parfor, label: int, loc: ir.Loc) -> ir.Block:
    """`return (r1, r2, ...)`: the chunk's partial reductions."""
    results, returned = ir.Var("$parfor.results", loc), ir.Var("$parfor.ret", loc)
    block = ir.Block(label, loc)
    block.append(ir.Assign(results, ir.BuildTuple([r.var for r in parfor.reductions], loc), loc))
    block.append(ir.Assign(returned, ir.Cast(results, loc), loc))
    block.append(ir.Return(returned, loc))
    return block


def _relabeled(block: ir.Block, loop: dict, shift: int) -> ir.Block:
    """A copy of `block` (statements copied, so rewrites of one copy leave the other alone)
    whose jumps into `loop` go to the shifted labels."""
    moved = lambda label: label + shift if label in loop else label  # noqa: E731
    body = []
    for stmt in block.body:
        stmt = copy.copy(stmt)
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr):
            stmt.value = copy.copy(stmt.value)
        if isinstance(stmt, ir.Jump):
            stmt.target = moved(stmt.target)
        elif isinstance(stmt, ir.Branch):
            stmt.truebr, stmt.falsebr = moved(stmt.truebr), moved(stmt.falsebr)
        body.append(stmt)
    return ir.Block(block.label + shift, block.loc, body)


def compile_gufunc(parfor: Parfor, func_ir, typemap: dict, options, has_step: bool):
    """Compile the outlined body (serially: a prange nested inside runs as range)."""
    from dataclasses import replace

    from ember.compiler import PIPELINE, CompileState, _symbol_name

    outlined, arg_types = build_gufunc_ir(parfor, func_ir, typemap, has_step)
    state = CompileState(func_ir.py_func, arg_types, None, replace(options, parallel=None))
    state.func_ir = outlined
    state.symbol = _symbol_name(func_ir.py_func, arg_types) + f".parfor{next(_counter)}"
    skipped = {"bytecode analysis", "IR generation", "untyped rewrites"}
    for name, run_pass in PIPELINE:
        if name not in skipped:
            run_pass(state)
    return state
