"""Stencils made inside jitted code: `stencil(inner_def_or_lambda, **options)` (or `@stencil`
on an inner `def`) becomes, before inner functions are inlined, a constant StencilFunc built
at compile time from the inner function's code, so calls of it compile as a global one's do."""

from __future__ import annotations

import operator
from types import FunctionType, ModuleType
from typing import Any

from ember.ir import nodes as ir

_UNKNOWN = object()  # a value not known at compile time


def make_inner_stencils(func_ir: ir.FunctionIR, func_globals: dict[str, Any]) -> None:
    """Replace each `stencil(<inner function>, constant options...)` of `func_ir` by the
    StencilFunc it makes; other calls of `stencil` are left for typing to report."""
    from ember.stencils.stencilfunc import stencil

    definitions = _single_definitions(func_ir)
    replaced_callees: set[str] = set()
    for _, stmt in func_ir.statements():
        if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call)):
            continue
        call = stmt.value
        if call.vararg is not None or len(call.args) != 1:
            continue
        options = _stencil_options(call.func, definitions, func_globals, stencil)
        if options is None:
            continue
        kernel = _definition(call.args[0], definitions)
        if not isinstance(kernel, ir.MakeFunction) or kernel.defaults:
            continue
        options = [*options, *call.kws]
        bounds = _run_time_bounds(options, definitions, func_globals)
        offsets = _run_time_offsets(options, definitions, func_globals)
        given = [
            (k, v)
            for k, v in options
            if not (bounds and k == "neighborhood") and not (offsets and k == "index_offsets")
        ]
        keywords = _constants(given, definitions, func_globals)
        if keywords is None or kernel.closure:
            raise _not_compile_time(kernel, options, definitions, func_globals)
        py_func = FunctionType(kernel.code, func_globals, kernel.code.co_name)
        py_func.__qualname__ = kernel.code.co_qualname
        made = stencil(py_func, **keywords)
        made.parameter_constants = _constant_arguments(
            func_ir, stmt.target.name, kernel.code, definitions, func_globals
        )
        if bounds:
            made.take_neighborhood_when_run(len(bounds) // 2)
        if offsets:
            made.take_index_offsets_when_run(len(offsets))
        if bounds or offsets:
            _pass_bounds(func_ir, stmt.target.name, [*(bounds or ()), *offsets], definitions)
        stmt.value = ir.Global(f"stencil.{kernel.code.co_name}", made, stmt.loc)
        replaced_callees.add(call.func.name)
    _remove_unread_lookups(func_ir, replaced_callees)


def _run_time_bounds(keywords: list, definitions: dict, func_globals: dict) -> list | None:
    """The variables (low0, high0, low1, ...) of `neighborhood=((low0, high0), ...)` when some
    are not constants (Numba runs such a stencil in its parallel path); None otherwise."""
    given = dict(keywords).get("neighborhood")
    if given is None or _value(given, definitions, func_globals) is not _UNKNOWN:
        return None
    pairs = _definition(given, definitions)
    if not isinstance(pairs, ir.BuildTuple) or not pairs.items:
        return None
    bounds = []
    for pair in pairs.items:
        pair = _definition(pair, definitions)
        if not isinstance(pair, ir.BuildTuple) or len(pair.items) != 2:
            return None
        bounds += pair.items
    return bounds


def _run_time_offsets(keywords: list, definitions: dict, func_globals: dict) -> list:
    """The variables of `index_offsets=(d0, ...)` when some are not constants; [] otherwise."""
    given = dict(keywords).get("index_offsets")
    if given is None or _value(given, definitions, func_globals) is not _UNKNOWN:
        return []
    items = _definition(given, definitions)
    return list(items.items) if isinstance(items, ir.BuildTuple) and items.items else []


def _pass_bounds(func_ir: ir.FunctionIR, made: str, bounds: list, definitions: dict) -> None:
    """Append the neighborhood's bounds (and run-time index offsets) to the arguments of the
    calls of the stencil."""
    target = _definition(ir.Var(made, bounds[0].loc), definitions)
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call):
            if _definition(stmt.value.func, definitions) is target:
                stmt.value.args = [*stmt.value.args, *bounds]


def _not_compile_time(kernel: ir.MakeFunction, options: list, definitions, func_globals):
    """The error for a stencil made in jitted code from values known only when it runs (the
    stencil is built while compiling, from its kernel and options)."""
    from ember.errors import UnsupportedError
    from ember.stencils.stencilfunc import check_option_names

    check_option_names(k for k, _ in options)  # an unknown option: that error first
    name = kernel.code.co_name
    if kernel.closure:
        captured = ", ".join(kernel.code.co_freevars)
        return UnsupportedError(
            f"stencil kernel {name} made inside a jitted function uses the enclosing "
            f"function's variables ({captured}): pass them to the stencil as arguments"
        )
    unknown = [k for k, var in options if _value(var, definitions, func_globals) is _UNKNOWN]
    verb = "is" if len(unknown) == 1 else "are"
    return UnsupportedError(
        f"stencil({name}, ...) inside a jitted function needs compile-time constant options, "
        f"but {', '.join(f'{k}=' for k in unknown)} {verb} computed at run time: write constants "
        "(e.g. neighborhood=((-2, 2),)), or index the kernel with constant offsets and leave "
        "out neighborhood= (it is then inferred)"
    )


def _constant_arguments(func_ir, made: str, code, definitions: dict, func_globals) -> dict:
    """{parameter: integer} for the arguments that are integer constants at the only call of
    the stencil held in `made` (Numba infers the neighborhood of `a[-c]` from `c = 1` so)."""
    calls = [
        stmt.value
        for _, stmt in func_ir.statements()
        if isinstance(stmt, ir.Assign)
        and isinstance(stmt.value, ir.Call)
        and _definition(stmt.value.func, definitions)
        is _definition(ir.Var(made, stmt.loc), definitions)
    ]
    if len(calls) != 1 or calls[0].vararg is not None:
        return {}
    params = code.co_varnames[: code.co_argcount]
    constants = {}
    for name, var in zip(params, calls[0].args):
        value = _value(var, definitions, func_globals)
        if isinstance(value, int) and not isinstance(value, bool):
            constants[name] = value
    return constants


def _remove_unread_lookups(func_ir: ir.FunctionIR, names: set[str]) -> None:
    """Drop the assignments nothing reads any more among `names` and the variables their
    values read (`stencil`, `module.stencil`, `stencil(**options)`): typing would refuse the
    `stencil` function itself as a value."""
    pending = set(names)
    while pending:
        read = {var.name for _, stmt in func_ir.statements() for var in stmt.sources()}
        unread = pending - read
        pending = set()
        for block in func_ir.blocks.values():
            kept = []
            for stmt in block.body:
                if isinstance(stmt, ir.Assign) and stmt.target.name in unread:
                    pending.update(var.name for var in stmt.sources())
                    continue
                kept.append(stmt)
            block.body = kept


def _single_definitions(func_ir: ir.FunctionIR) -> dict[str, ir.Expr | ir.Var]:
    """The value of each variable assigned exactly once."""
    values: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign):
            name = stmt.target.name
            counts[name] = counts.get(name, 0) + 1
            values[name] = stmt.value
    return {name: value for name, value in values.items() if counts[name] == 1}


def _definition(var: ir.Var, definitions: dict) -> Any:
    """The expression `var` holds, through copies (None when assigned more than once)."""
    seen = set()
    value: Any = var
    while isinstance(value, ir.Var) and value.name not in seen:
        seen.add(value.name)
        value = definitions.get(value.name)
    return value


def _value(var: ir.Var, definitions: dict, func_globals: dict) -> Any:
    """The compile-time value of `var`: a global, a module attribute, a constant, or a tuple
    of those; _UNKNOWN otherwise."""
    expr = _definition(var, definitions)
    if isinstance(expr, (ir.Global, ir.FreeVar)) and hasattr(expr, "value"):
        return expr.value
    if isinstance(expr, ir.Const):
        return expr.value
    if isinstance(expr, ir.GetAttr):
        owner = _value(expr.value, definitions, func_globals)
        if isinstance(owner, ModuleType):
            return getattr(owner, expr.attr, _UNKNOWN)
        return _UNKNOWN
    if isinstance(expr, ir.BuildTuple):
        items = [_value(item, definitions, func_globals) for item in expr.items]
        return _UNKNOWN if any(item is _UNKNOWN for item in items) else tuple(items)
    if isinstance(expr, ir.UnaryOp) and expr.fn is operator.neg:
        operand = _value(expr.value, definitions, func_globals)
        return -operand if isinstance(operand, (int, float)) else _UNKNOWN
    return _UNKNOWN


def _constants(keywords: list, definitions: dict, func_globals: dict) -> dict | None:
    values = {name: _value(var, definitions, func_globals) for name, var in keywords}
    return None if any(value is _UNKNOWN for value in values.values()) else values


def _stencil_options(callee: ir.Var, definitions, func_globals, stencil) -> list | None:
    """[] when `callee` is `stencil` itself, the (name, variable) options of
    `stencil(**options)` when it is that call's result (a decorator with options), None
    otherwise."""
    if _value(callee, definitions, func_globals) is stencil:
        return []
    made = _definition(callee, definitions)
    if not isinstance(made, ir.Call) or made.vararg is not None or made.args:
        return None
    if _value(made.func, definitions, func_globals) is not stencil:
        return None
    return list(made.kws)
