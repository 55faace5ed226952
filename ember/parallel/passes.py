"""Stage 5b's entry: runs the parallel sub-passes over typed IR when `parallel=` is on, then
outlines and compiles each parfor's body (sub-pass 9: its parameters are already computed)."""

from __future__ import annotations

from ember import config
from ember.ir.printer import banner, dump_function
from ember.parallel.api import (
    numpy_prange,
    prange,
    reduction_prange,
    setitem_prange,
    stencil_prange,
)
from ember.parallel.diagnostics import ParallelReport

_NOT_BUILT = {
    "comprehension": "list comprehensions run serially (not converted to parfors)",
}
_SWITCHED_OFF = {
    "prange": "prange loops run as range",
    "numpy": "array expressions and NumPy allocations run serially",
    "reduction": "NumPy reductions run serially",
    "setitem": "slice assignments run serially",
    "stencil": "@stencil loops run serially",
}


def parallelize(state) -> None:
    options = state.options.parallel
    if options is None:
        return
    from ember.parallel import lowering  # registers the parfor statement lowerer
    from ember.parallel.dead_arrays import forward_and_drop_dead_arrays
    from ember.parallel.fusion import fuse_parfors
    from ember.parallel.gufunc import compile_gufunc
    from ember.parallel.numpy_to_parfor import convert_numpy_calls
    from ember.parallel.prange_to_parfor import convert_prange_loops

    report = ParallelReport(state.py_func.__qualname__, options.describe())
    state.parallel_report = report
    if options.stencil:
        report.callees += _stencils_called(state.func_ir, state.typing.typemap)
    report.notes += [f"note: {text}" for name, text in _NOT_BUILT.items() if getattr(options, name)]
    _debug_dump(state, "before parallel sub-passes")
    if convert_numpy_calls(state, options, report):
        _debug_dump(state, "after NumPy calls to parfor loops")
    switches = (
        (prange, options.prange),
        (stencil_prange, options.stencil),
        (numpy_prange, options.numpy),
        (reduction_prange, options.reduction),
        (setitem_prange, options.setitem),
    )
    markers = tuple(marker for marker, on in switches if on)
    off = [name for name in _SWITCHED_OFF if not getattr(options, name)]
    report.notes += [f"note: parallel={{'{name}': False}}: {_SWITCHED_OFF[name]}" for name in off]
    parfors = convert_prange_loops(state.func_ir, state.typing.typemap, report, markers)
    if options.fusion and len(parfors) > 1:
        parfors = fuse_parfors(state.func_ir, state.typing.typemap, parfors, report)
        _debug_dump(state, "after parfor fusion")
    elif len(parfors) > 1:
        report.notes.append("note: parallel={'fusion': False}: parfors are not fused")
    if options.fusion and parfors:
        dropped = forward_and_drop_dead_arrays(state.func_ir, state.typing.typemap, parfors)
        report.notes += [f"note: array {name} is only written: not allocated" for name in dropped]
    for parfor in parfors:
        ranges = parfor.lowering.get("ranges", ())
        if ranges and all(name in report.per_item for name in ranges):
            parfor.lowering["min_items"] = lowering.MIN_ITEMS_PER_CHUNK
        step = parfor.loop_nests[0].step
        has_step = not (isinstance(step, int) and step == 1)  # else range(lo, hi): vectorizes
        parfor.gufunc = compile_gufunc(
            parfor, state.func_ir, state.typing.typemap, _body_options(state, parfor), has_step
        )
        report.hoisted += [(parfor.id, name) for name in parfor.lowering.get("hoisted", ())]
    _debug_dump(state, "after prange to parfor")
    if config.PARALLEL_DIAGNOSTICS:
        print(report.format(level=min(max(config.PARALLEL_DIAGNOSTICS, 1), 4)))
    elif config.DEBUG_ARRAY_OPT_STATS:
        print(report.format(level=2))


# NumPy's own sums are pairwise, in no fixed order: the body of a parfor made only of these
# may reassociate its additions (LLVM then vectorizes it) without changing what it promises
_REASSOCIABLE = ("np.sum", "a.sum()", "np.mean", "a.mean()", "np.dot")


def _body_options(state, parfor):
    from dataclasses import replace

    options = state.options
    report = state.parallel_report
    origins = [report.origins.get(name, "prange") for name in parfor.lowering.get("ranges", ())]
    if options.fastmath is False and origins and all(o.startswith(_REASSOCIABLE) for o in origins):
        return replace(options, fastmath=frozenset({"reassoc"}))
    return options


def _stencils_called(func_ir, typemap) -> list[str]:
    """The @stencil functions this function calls: each is compiled with its options, so its
    loop is a parfor of its own (the diagnostics name them)."""
    from ember.ir import nodes
    from ember.stencils.stencilfunc import StencilFunc

    names = []
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, nodes.Assign) and isinstance(stmt.value, nodes.Call):
                key = getattr(typemap.get(stmt.value.func.name), "typing_key", None)
                if isinstance(key, StencilFunc):
                    names.append(f"@stencil {key.kernel_ws.__qualname__} (line {stmt.loc.line})")
    return names


def _debug_dump(state, title: str) -> None:
    if config.DEBUG_ARRAY_OPT:
        print(banner(f"{title}: {state.py_func.__qualname__}"))
        print(dump_function(state.func_ir))
