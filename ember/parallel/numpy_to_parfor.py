"""Sub-passes 2 and 5 (NumPy canonicalization, NumPy calls / reductions / setitem to parfor):
consumes typed IR; replaces each NumPy reduction (`np.sum(a)`, `a.sum()`, prod, mean, min,
max, 1-d `np.dot`), filled allocation (`np.zeros`, `np.ones`, `np.full`, `np.arange(n)`) and
slice or mask assignment (`a[lo:hi] = x`, `a[mask] = v`) by the inlined loop of its template
(`templates.py`), then types the function again. The prange-to-parfor sub-pass turns the
templates' marked loops into parfors.

A conversion that would change any variable's type (or fails to type) is undone: that call
stays serial, with the reason in the diagnostics.

    before:  $s = call $np_sum(a)
    after:   $sum.3.acc = call $T(0) ... for $i in reduction_prange(len(a)): acc += a[$i] ...
             $s = $sum.3.acc
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ember import types
from ember.frontend.bytecode import ByteCode
from ember.frontend.inline_renaming import Renamer
from ember.frontend.interpreter import build_ir
from ember.ir import nodes as ir
from ember.ir.liveness import insert_dels, strip_dels
from ember.library.numpy.support import numpy_dtype
from ember.parallel import random_streams as rs
from ember.parallel import reductions as red
from ember.parallel import templates as tpl
from ember.parallel.api import prange, stencil_prange
from ember.parallel.arrayexpr_to_parfor import ArrayExpressions
from ember.parallel.loops import find_prange_loops

_counter = itertools.count()

_REDUCTIONS = {np.sum: "sum", np.prod: "prod", np.mean: "mean", np.min: "min", np.max: "max",
               np.amin: "min", np.amax: "max"}  # fmt: skip
_METHODS = {"sum", "prod", "mean", "min", "max"}
_ALLOCATIONS = {np.zeros: 0, np.ones: 1, np.full: None}
_TEMPLATES = {
    "sum": (tpl.sum_1d, tpl.sum_nd), "prod": (tpl.prod_1d, tpl.prod_nd),
    "mean": (tpl.mean_1d, tpl.mean_nd), "min": (tpl.extreme_blocks_1d, tpl.extreme_nd),
    "max": (tpl.extreme_blocks_1d, tpl.extreme_nd),
}  # fmt: skip
# float sums of an array passed in go by blocks of 4096, as min and max do (so they fuse)
_SUM_BLOCKS = {"sum": tpl.sum_blocks_1d, "mean": tpl.mean_blocks_1d}
# min / max: (builtin, its check, np reduction, np ufunc) bound to the extreme templates
_EXTREMES = {
    "min": (min, tpl.require_items_for_min, np.min, np.minimum),
    "max": (max, tpl.require_items_for_max, np.max, np.maximum),
}


@dataclass
class Site:
    """One statement to replace: `template` bound to `arguments` (Var or Expr per parameter),
    after `prelude` statements; its value goes to `result`."""

    stmt: ir.Stmt
    template: Any
    arguments: dict
    result: ir.Var
    describe: str
    prelude: list = field(default_factory=list)
    per_item: bool = False  # each iteration of its loop does one item (cheap): see lowering
    removed: list = field(default_factory=list)  # statements it absorbs (an expression's parts)


def convert_numpy_calls(state, options, report) -> bool:
    """Inline the templates of every convertible statement; True if the IR changed."""
    if state.py_func.__code__.co_flags & 0x20:  # generators keep their NumPy calls serial
        return False
    func_ir, typemap = state.func_ir, state.typing.typemap
    serial: list[str] = []
    sites = find_sites(func_ir, typemap, options, serial)
    report.notes += serial
    while sites:
        saved = {label: (block, list(block.body)) for label, block in func_ir.blocks.items()}
        origins, per_item = {}, set()
        for site in sites:
            _inline(func_ir, site, origins, per_item)
        strip_dels(func_ir)
        insert_dels(func_ir)
        try:
            typing = _retype(state)
        except Exception as error:  # noqa: BLE001 - any failure keeps the calls serial
            _restore(func_ir, saved)
            failed = _sites_at(sites, getattr(error, "loc", None))
            last_line = (str(error).strip().splitlines() or [type(error).__name__])[-1]
            for site in failed:
                report.notes.append(f"note: {site.describe} kept serial ({last_line})")
            sites = [s for s in sites if s not in failed]
            continue
        changed = _changed_types(typemap, typing.typemap, sites)
        if not changed:
            state.typing = typing
            report.origins.update(origins)
            report.per_item |= per_item
            return True
        _restore(func_ir, saved)
        for site in changed:
            report.notes.append(f"note: {site.describe} kept serial (its type would change)")
        sites = [s for s in sites if s not in changed]
    return False


def _sites_at(sites: list, loc) -> list:
    """The sites on the line a typing error names (inlined statements carry their call's
    line); all of them when it names none."""
    line = getattr(loc, "line", None)
    found = [s for s in sites if s.stmt.loc.line == line]
    return found or list(sites)


def _changed_types(before: dict, after: dict, sites: list) -> list:
    """The sites whose result changed type; all of them if some other variable did."""
    bad = [
        s
        for s in sites
        if s.result.name in before and _differ(after.get(s.result.name), before[s.result.name])
    ]
    if bad:
        return bad
    # a variable gone was a part of an array expression (absorbed by its site)
    if any(name in after and _differ(after[name], typ) for name, typ in before.items()):
        return list(sites)
    return []


def _differ(first, second) -> bool:
    """Different types, not counting a NumPy scalar's mark (the inlined loop's sum of items
    is np.float64 where the call's result was float64: the same value)."""
    return types.plain_number(first) != types.plain_number(second)


def _retype(state):
    from ember.typing.context import TypingContext
    from ember.typing.infer import TypeInferer

    inferer = TypeInferer(TypingContext(), state.func_ir, state.arg_types, state.declared_return)
    return inferer.infer()


def _restore(func_ir: ir.FunctionIR, saved: dict) -> None:
    func_ir.blocks.clear()
    for label, (block, body) in saved.items():
        block.body = body
        func_ir.blocks[label] = block


# ---------------------------------------------------------------------------- finding sites


class Serial(str):
    """Why a recognised NumPy call or assignment is left serial (a site function's answer)."""


def find_sites(func_ir: ir.FunctionIR, typemap: dict, options, serial: list) -> list[Site]:
    """The statements to replace; `serial` receives a note for each one recognised but left
    serial."""
    in_prange = {
        label
        for loop in find_prange_loops(func_ir, typemap, (prange, stencil_prange))
        for label in loop.body
    }
    definitions = {
        stmt.target.name: stmt.value
        for _, stmt in func_ir.statements()
        if isinstance(stmt, ir.Assign)
    }
    sites = []
    expressions = ArrayExpressions(func_ir, typemap) if options.numpy else None
    for label, block in func_ir.blocks.items():
        if label in in_prange:  # inside a prange body: the enclosing loop is the parallel one
            continue
        if expressions is not None:
            sites += expressions.sites(block)
        for stmt in block.body:
            site = None
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call):
                site = _call_site(stmt, typemap, definitions, options)
            elif isinstance(stmt, ir.SetItem) and options.setitem:
                site = _setitem_site(stmt, typemap)
            if isinstance(site, Serial):
                serial.append(f"note: line {stmt.loc.line}: {site}")
            elif site is not None:
                sites.append(site)
    return sites


def _call_site(stmt: ir.Assign, typemap: dict, definitions: dict, options) -> Site | None:
    call = stmt.value
    fnty = typemap.get(call.func.name)
    result_type = typemap.get(stmt.target.name)
    if options.reduction:
        found = _receiver_and_name(call, fnty, definitions)
        if found is not None:
            array, name, rest = found
            made_here = _made_here(array, definitions, typemap)
            site = _arg_extreme_site(stmt, name, array, rest, typemap, result_type, made_here)
            site = site or _axis_site(stmt, name, array, rest, typemap, definitions, result_type)
            if site is not None:  # a Site or the reason it stays serial
                return site
    if call.kws and not isinstance(fnty, types.Function):
        return None
    if isinstance(fnty, types.BoundFunction) and fnty.attr in _METHODS and not call.args:
        owner = definitions.get(call.func.name)
        on_array = isinstance(owner, ir.GetAttr) and isinstance(fnty.this, types.Array)
        if options.reduction and on_array:
            made_here = _made_here(owner.value, definitions, typemap)
            return _reduction(
                stmt, fnty.attr, owner.value, fnty.this, result_type, made_here, method=True
            )
        return None
    if not isinstance(fnty, types.Function):
        return None
    key = fnty.typing_key
    argtypes = [typemap.get(a.name) for a in call.args]
    if options.reduction and key in _REDUCTIONS and len(call.args) == 1 and not call.kws:
        if isinstance(argtypes[0], types.Array):
            made_here = _made_here(call.args[0], definitions, typemap)
            return _reduction(
                stmt, _REDUCTIONS[key], call.args[0], argtypes[0], result_type, made_here
            )
    if options.reduction and key is np.dot and len(call.args) == 2 and not call.kws:
        return _dot(stmt, argtypes, result_type)
    if options.numpy and key in _ALLOCATIONS:
        return _allocation(stmt, key, typemap, result_type)
    if options.numpy and key is np.arange and len(call.args) == 1 and not call.kws:
        if isinstance(argtypes[0], types.Integer) and _plain_result(result_type, 1):
            arguments = {"stop": call.args[0], "T": _scalar_class(result_type.dtype, stmt.loc)}
            return Site(stmt, tpl.arange_1, arguments, stmt.target, "np.arange", per_item=True)
    if options.numpy and key is np.arange and len(call.args) in (2, 3) and not call.kws:
        return _arange(stmt, argtypes, result_type)
    if options.numpy and key is np.linspace:
        return _linspace(stmt, typemap, result_type)
    if options.numpy and key in _RANDOM:
        return _random(stmt, key, typemap, result_type)
    if options.numpy and _draws_an_array(key, result_type):
        return Serial(f"np.random.{key.__name__} runs serially (parallel draws: "
                      f"{', '.join(sorted(f.__name__ for f in _RANDOM))})")  # fmt: skip
    return None


_ARG_EXTREMES = {np.argmin: "argmin", np.argmax: "argmax"}
_AXIS_REDUCTIONS = {**_REDUCTIONS, **{v: k for k, v in _ARG_EXTREMES.items()}}
_ARG_BLOCK = 4096  # items per iteration of an argmin / argmax
_MASK_BLOCK = 4096  # mask items per iteration of a[mask] = array
_ROW_BLOCK = 256  # rows per iteration of a reduction along axis 0


def _receiver_and_name(call: ir.Call, fnty, definitions: dict):
    """(array, reduction name, the other arguments as {'axis': var}) for `np.f(a, ...)` and
    `a.f(...)` with f a reduction, argmin or argmax; None otherwise."""
    if isinstance(fnty, types.BoundFunction) and isinstance(fnty.this, types.Array):
        owner = definitions.get(call.func.name)
        name = fnty.attr
        if not isinstance(owner, ir.GetAttr) or name not in _METHODS | {"argmin", "argmax"}:
            return None
        array, positional = owner.value, call.args
    elif isinstance(fnty, types.Function):
        key = fnty.typing_key
        name = _REDUCTIONS.get(key) or _ARG_EXTREMES.get(key)
        if name is None or not call.args:
            return None
        array, positional = call.args[0], call.args[1:]
    else:
        return None
    if len(positional) > 1 or any(k != "axis" for k, _ in call.kws):
        return None
    rest = dict(call.kws)
    if positional:
        rest["axis"] = positional[0]
    return array, name, rest


def _arg_extreme_site(stmt, name, array, rest, typemap, result_type, made_here) -> Site | None:
    """np.argmin / np.argmax (or the methods) of an array without axis: item by item when the
    array is made here (to fuse with the loop filling it), else by blocks of items."""
    array_type = typemap.get(array.name)
    if name not in ("argmin", "argmax") or rest or not isinstance(array_type, types.Array):
        return None
    if array_type.ndim == 0 or not _ordered(array_type.dtype):
        return None
    if not isinstance(result_type, types.Integer):
        return None
    loc = stmt.loc
    prelude, flat = [], array
    if array_type.ndim > 1:
        tag = next(_counter)
        method, flat = ir.Var(f"$arg.{tag}.ravel", loc), ir.Var(f"$arg.{tag}.flat", loc)
        prelude = [
            ir.Assign(method, ir.GetAttr(array, "ravel", loc), loc),
            ir.Assign(flat, ir.Call(method, [], [], loc), loc),
        ]
    function = getattr(np, name)
    if made_here and array_type.ndim == 1:
        finish = getattr(tpl, f"{name}_of_pair")
        arguments = {
            "flat": flat,
            "T": _scalar_class(array_type.dtype, loc),
            "init": _const(_identity_bound(array_type.dtype, name[3:]), stmt),
            "pick": ir.Global(f"next_{name[3:]}_pair", red.pair_pick(name), loc),
            "finish": ir.Global(finish.py_func.__name__, finish, loc),
        }
        describe = f"np.{name}"
        return Site(stmt, tpl.arg_extreme_items, arguments, stmt.target, describe, per_item=True)
    arguments = {
        "flat": flat,
        "block": _const(_ARG_BLOCK, stmt),
        "arg_of": ir.Global(name, function, loc),
    }
    return Site(stmt, tpl.arg_extreme, arguments, stmt.target, f"np.{name}", prelude)


def _axis_site(stmt, name, array, rest, typemap, definitions, result_type) -> Site | None:
    """`np.sum(a, axis=k)` (prod, mean, min, max; methods too) of a 2-d array, k constant:
    parallel over the axis kept."""
    array_type = typemap.get(array.name)
    if "axis" not in rest or name in ("argmin", "argmax"):
        return None
    if not isinstance(array_type, types.Array) or isinstance(rest["axis"], types.NoneType):
        return None
    what = f"np.{name}(..., axis=...)"
    ndim = array_type.ndim
    if ndim not in (2, 3):
        return Serial(f"{what} of a {ndim}-d array runs serially (only 2-d and 3-d are parallel)")
    if not (_plain_result(result_type, ndim - 1) and _ordered(array_type.dtype)):
        return Serial(f"{what} of {array_type.dtype} items runs serially")
    axis = _constant(rest["axis"], definitions)
    if not isinstance(axis, int) or isinstance(axis, bool) or not -ndim <= axis < ndim:
        return Serial(f"{what} runs serially: parallel needs a constant axis ({-ndim}..{ndim - 1})")
    loc = stmt.loc
    arguments = {"a": array, "T": _scalar_class(result_type.dtype, loc)}
    describe = f"np.{name}(axis={axis})"
    if ndim == 3:
        return _axis_site_3d(stmt, name, axis % 3, arguments, describe)
    if axis % 2 == 1:
        arguments["reduce"] = ir.Global(name, getattr(np, name), loc)
        if name not in _EXTREMES:
            return Site(stmt, tpl.reduce_rows, arguments, stmt.target, describe)
        require = _EXTREMES[name][1]
        arguments["require"] = ir.Global(require.py_func.__name__, require, loc)
        return Site(stmt, tpl.extreme_rows, arguments, stmt.target, describe)
    finish = getattr(tpl, f"{name}_partials")
    reduce = getattr(tpl, f"{'sum' if name == 'mean' else name}_of_rows")
    arguments.update(
        block=_const(_ROW_BLOCK, stmt),
        reduce=ir.Global(reduce.py_func.__name__, reduce, loc),
        finish=ir.Global(finish.py_func.__name__, finish, loc),
    )
    return Site(stmt, tpl.reduce_row_blocks, arguments, stmt.target, describe)


_AXIS_TEMPLATES_3D = (tpl.reduce_first_axis, tpl.reduce_middle_axis, tpl.reduce_last_axis)


def _axis_site_3d(stmt, name: str, axis: int, arguments: dict, describe: str) -> Site:
    """`np.<name>(a, axis=k)` of a 3-d array: parallel over the axes kept (the first of them,
    or both for the last axis), the serial function reducing each line or slab."""
    loc = stmt.loc
    arguments["reduce"] = ir.Global(name, getattr(np, name), loc)
    check = _EXTREMES[name][1] if name in _EXTREMES else tpl.no_check
    arguments["require"] = ir.Global(check.py_func.__name__, check, loc)
    return Site(stmt, _AXIS_TEMPLATES_3D[axis], arguments, stmt.target, describe)


def _constant(var: ir.Var, definitions: dict):
    """The constant a variable holds (through copies), else None."""
    value = definitions.get(var.name)
    seen = set()
    while isinstance(value, ir.Var) and value.name not in seen:
        seen.add(value.name)
        value = definitions.get(value.name)
    return value.value if isinstance(value, ir.Const) else None


def _ordered(dtype) -> bool:
    return isinstance(dtype, (types.Integer, types.Float)) and not isinstance(dtype, types.Boolean)


def _made_here(var: ir.Var, definitions: dict, typemap: dict) -> bool:
    """Whether the array is made in this function (an allocation, an array expression)
    rather than passed in or viewed: then a loop filling it may fuse with its reduction."""
    seen = set()
    value = definitions.get(var.name)
    while isinstance(value, ir.Var) and value.name not in seen:
        seen.add(value.name)
        value = definitions.get(value.name)
    if isinstance(value, (ir.BinOp, ir.UnaryOp)):
        return True
    if isinstance(value, ir.Call):
        key = getattr(typemap.get(value.func.name), "typing_key", None)
        return key in (np.zeros, np.ones, np.full, np.empty, np.arange)
    return False


def _numeric(typ) -> bool:
    return isinstance(typ, (types.Integer, types.Float, types.Complex)) and not isinstance(
        typ, types.Boolean
    )


def _reduction(
    stmt, name: str, array: ir.Var, array_type, result_type, made_here: bool, method=False
):
    dtype = array_type.dtype
    if array_type.ndim == 0 or not isinstance(result_type, types.Number):
        return None
    ordered = isinstance(dtype, (types.Integer, types.Float)) and not isinstance(
        dtype, types.Boolean
    )
    if name in ("min", "max"):
        if not ordered or result_type != dtype:
            return None
        init = _identity_bound(dtype, name)
    elif name == "sum" and isinstance(dtype, types.Boolean):
        init = 0
    elif not _numeric(dtype):
        return None
    else:
        init = 1 if name == "prod" else 0
    template = _TEMPLATES[name][0 if array_type.ndim == 1 else 1]
    arguments = {"a": array, "T": _scalar_class(result_type, stmt.loc), "init": _const(init, stmt)}
    if name in _EXTREMES:
        pick, require, row_extreme, combine = (
            ir.Global(getattr(f, "__name__", "f"), f, stmt.loc) for f in _EXTREMES[name]
        )
        arguments.update(require=require)
        if isinstance(dtype, types.Integer) and array_type.ndim == 1:
            template = tpl.extreme_int_1d  # no NaN: an element loop (it vectorizes and fuses)
            arguments.update(pick=pick)
        elif array_type.ndim == 1 and made_here:
            template = tpl.extreme_1d  # an element loop, to fuse with the loop filling it
            arguments.update(pick=pick)
        else:
            arguments.update(row_extreme=row_extreme, combine=combine)
    elif name in _SUM_BLOCKS and isinstance(dtype, types.Float) and array_type.ndim == 1:
        if not made_here:  # in the block loop of np.min / np.max of it too: one pass, fused
            template = _SUM_BLOCKS[name]
            arguments.update(block_sum=ir.Global("block_sum", tpl.block_sum, stmt.loc))
    describe = f"a.{name}() (as np.{name})" if method else f"np.{name}"
    blocks = (tpl.extreme_blocks_1d, *_SUM_BLOCKS.values())
    per_item = array_type.ndim == 1 and template not in blocks
    return Site(stmt, template, arguments, stmt.target, describe, per_item=per_item)


def _identity_bound(dtype, name: str):
    if isinstance(dtype, types.Float):
        return np.inf if name == "min" else -np.inf
    info = np.iinfo(numpy_dtype(dtype))
    return int(info.max if name == "min" else info.min)


def _dot(stmt, argtypes, result_type) -> Site | None:
    if not all(isinstance(t, types.Array) and t.ndim == 1 for t in argtypes):
        return None
    if not all(isinstance(t.dtype, (types.Integer, types.Float)) for t in argtypes):
        return None
    if not isinstance(result_type, (types.Integer, types.Float)):
        return None
    a, b = stmt.value.args
    arguments = {"a": a, "b": b, "T": _scalar_class(result_type, stmt.loc), "init": _const(0, stmt)}
    return Site(stmt, tpl.dot_1d, arguments, stmt.target, "np.dot", per_item=True)


def _allocation(stmt, key, typemap: dict, result_type) -> Site | None:
    call, loc = stmt.value, stmt.loc
    params = ("shape", "fill_value", "dtype") if key is np.full else ("shape", "dtype")
    given = dict(zip(params, call.args))
    given.update(call.kws)
    if len(call.args) > len(params) or set(given) - set(params) or "shape" not in given:
        return None
    if not (_plain_result(result_type, None) and _numeric(result_type.dtype)):
        return None
    value = given.get("fill_value")
    if key is np.full and not _numeric(typemap.get(value.name)):
        return None
    tag = next(_counter)
    empty, dtype, out = (ir.Var(f"$alloc.{tag}.{n}", loc) for n in ("empty", "dtype", "out"))
    prelude = [
        ir.Assign(empty, ir.Global("empty", np.empty, loc), loc),
        ir.Assign(dtype, _scalar_class(result_type.dtype, loc), loc),
        ir.Assign(out, ir.Call(empty, [given["shape"], dtype], [], loc), loc),
    ]
    fill_value = value if key is np.full else _const(_ALLOCATIONS[key], stmt)
    arguments = {"out": out, "value": fill_value}
    name = {np.zeros: "zeros", np.ones: "ones", np.full: "full"}[key]
    per_item = result_type.ndim == 1
    return Site(stmt, tpl.fill, arguments, stmt.target, f"np.{name}", prelude, per_item)


def _arange(stmt, argtypes, result_type) -> Site | None:
    """np.arange(start, stop[, step]) of numbers (no dtype)."""
    if not _plain_result(result_type, 1) or not all(_ordered(t) for t in argtypes):
        return None
    call, loc = stmt.value, stmt.loc
    integers = all(isinstance(t, types.Integer) for t in argtypes)
    length = tpl.int_arange_length if integers else tpl.float_arange_length
    step = call.args[2] if len(call.args) == 3 else _const(1, stmt)
    arguments = {
        "start": call.args[0],
        "stop": call.args[1],
        "step": step,
        "T": _scalar_class(result_type.dtype, loc),
        "length": ir.Global(length.py_func.__name__, length, loc),
    }
    return Site(stmt, tpl.arange_3, arguments, stmt.target, "np.arange", per_item=True)


def _linspace(stmt, typemap: dict, result_type) -> Site | None:
    call = stmt.value
    params = ("start", "stop", "num", "endpoint")
    given = dict(zip(params, call.args))
    given.update(call.kws)
    if len(call.args) > len(params) or set(given) - set(params) or len(given) < 2:
        return None
    if not _plain_result(result_type, 1) or result_type.dtype != types.float64:
        return None
    arguments = {
        "start": given["start"],
        "stop": given["stop"],
        "num": given.get("num", _const(50, stmt)),
        "endpoint": given.get("endpoint", _const(True, stmt)),
    }
    return Site(stmt, tpl.linspace, arguments, stmt.target, "np.linspace", per_item=True)


# np.random function -> (distribution, its parameters; None: dimensions as rand(d0, d1))
_RANDOM = {
    np.random.random: ("uniform", ("size",)), np.random.random_sample: ("uniform", ("size",)),
    np.random.standard_normal: ("normal", ("size",)),
    np.random.uniform: ("uniform", ("low", "high", "size")),
    np.random.normal: ("normal", ("loc", "scale", "size")),
    np.random.rand: ("uniform", None), np.random.randn: ("normal", None),
    np.random.standard_exponential: ("exponential", ("size",)),
    np.random.exponential: ("exponential", ("scale", "size")),
    np.random.lognormal: ("lognormal", ("mean", "sigma", "size")),
    np.random.randint: ("randint", ("low", "high", "size")),
}  # fmt: skip
# distribution -> (chunk filler, serial filler, argument check, the first two arguments'
# defaults, the items' dtype)
_DISTRIBUTIONS = {
    "uniform": (rs.uniform_chunk, rs.uniform_serial, rs.no_check, (0.0, 1.0), types.float64),
    "normal": (rs.normal_chunk, rs.normal_serial, rs.no_check, (0.0, 1.0), types.float64),
    "exponential": (
        rs.exponential_chunk, rs.exponential_serial, rs.check_scale, (1.0, 0.0), types.float64
    ),
    "lognormal": (
        rs.lognormal_chunk, rs.lognormal_serial, rs.check_sigma, (0.0, 1.0), types.float64
    ),
    "randint": (rs.randint_chunk, rs.randint_serial, rs.check_bounds, (0, None), types.int64),
}  # fmt: skip


def _draws_an_array(key, result_type) -> bool:
    module = getattr(key, "__module__", "") or ""
    return module.startswith("numpy.random") and isinstance(result_type, types.Array)


def _random(stmt, key, typemap: dict, result_type) -> Site | None:
    """A sized draw (`np.random.random(n)`, `uniform(a, b, (n, m))`, `rand(n, m)`) filled
    chunk by chunk, each chunk from its own generator (`random_streams.py`)."""
    call, loc = stmt.value, stmt.loc
    kind, params = _RANDOM[key]
    fill_chunk, fill_serial, check, defaults, dtype = _DISTRIBUTIONS[kind]
    if not (_plain_result(result_type, None) and result_type.dtype == dtype):
        return None
    prelude = []
    if params is None:  # rand(d0, d1, ...): the dimensions are the shape
        if call.kws or not call.args:
            return None
        size = ir.Var(f"$random.{next(_counter)}.shape", loc)
        prelude.append(ir.Assign(size, ir.BuildTuple(list(call.args), loc), loc))
        given = {"size": size}
    else:
        given = dict(zip(params, call.args))
        given.update(call.kws)
        if len(call.args) > len(params) or set(given) - set(params):
            return None
        size = given.get("size")
        if size is None or isinstance(typemap.get(size.name), types.NoneType):
            return None
    first, second = ([p for p in params or () if p != "size"] + [None, None])[:2]
    a, b = given.get(first), given.get(second)
    if kind == "randint":
        if b is None or isinstance(typemap.get(b.name), types.NoneType):
            a, b = None, a  # randint(high, size=n): [0, high)
        if not all(isinstance(typemap.get(v.name), types.Integer) for v in (a, b) if v):
            return None
    arguments = {
        "size": given["size"],
        "a": a if a is not None else _const(defaults[0], stmt),
        "b": b if b is not None else _const(defaults[1] or 0.0, stmt),
        "chunk": _const(rs.CHUNK, stmt),
        "fill_chunk": ir.Global(fill_chunk.py_func.__name__, fill_chunk, loc),
        "fill_serial": ir.Global(fill_serial.py_func.__name__, fill_serial, loc),
        "check": ir.Global(check.py_func.__name__, check, loc),
        "T": _scalar_class(dtype, loc),
    }
    name = f"np.random.{key.__name__}"
    return Site(stmt, tpl.random_fill, arguments, stmt.target, name, prelude)


def _plain_result(typ, ndim) -> bool:
    return isinstance(typ, types.Array) and typ.layout == "C" and ndim in (None, typ.ndim)


def _setitem_site(stmt: ir.SetItem, typemap: dict) -> Site | None:
    target, index, value = (typemap.get(v.name) for v in (stmt.target, stmt.index, stmt.value))
    if not isinstance(target, types.Array) or target.ndim == 0 or target.readonly:
        return None
    if not _numeric(target.dtype):
        return None
    loc = stmt.loc
    one_d = target.ndim == 1
    result = ir.Var(f"$setitem.{next(_counter)}", loc)
    if isinstance(index, types.SliceType):
        if _numeric(value) and _fits(value, target.dtype):
            arguments = {"a": stmt.target, "index": stmt.index, "value": stmt.value}
            return Site(
                stmt, tpl.setitem_scalar, arguments, result, "a[slice] = scalar", per_item=one_d
            )
        if isinstance(value, types.Array) and value.ndim == target.ndim and _numeric(value.dtype):
            if _fits(value.dtype, target.dtype):
                arguments = {"a": stmt.target, "index": stmt.index, "b": stmt.value}
                return Site(
                    stmt, tpl.setitem_array, arguments, result, "a[slice] = array", per_item=one_d
                )
        return None
    mask = isinstance(index, types.Array) and isinstance(index.dtype, types.Boolean)
    if mask and index.ndim == target.ndim and _numeric(value) and _fits(value, target.dtype):
        template = tpl.setitem_mask_1d if target.ndim == 1 else tpl.setitem_mask_nd
        arguments = {"a": stmt.target, "mask": stmt.index, "value": stmt.value}
        return Site(stmt, template, arguments, result, "a[mask] = scalar", per_item=one_d)
    if mask and isinstance(value, types.Array):
        return _setitem_mask_array(stmt, target, index, value, result)
    if isinstance(index, types.Array) and isinstance(index.dtype, types.Integer):
        return Serial("a[index array] = ... runs serially (an index may repeat: two iterations "
                      "would write one element)")  # fmt: skip
    return None


def _setitem_mask_array(stmt, target, mask, value, result) -> Site | Serial:
    """a[mask] = b: b's items go in order to the True places (a compaction, in blocks)."""
    if not (target.ndim == 1 and mask.ndim == 1 and value.ndim == 1):
        return Serial("a[mask] = array runs serially unless a, mask and the array are 1-d")
    if target.layout != "C":
        return Serial("a[mask] = array runs serially on a non-contiguous array")
    if not (_numeric(value.dtype) and _fits(value.dtype, target.dtype)):
        return Serial(f"a[mask] = array of {value.dtype} items runs serially")
    arguments = {
        "a": stmt.target,
        "mask": stmt.index,
        "b": stmt.value,
        "block": _const(_MASK_BLOCK, stmt),
    }
    return Site(stmt, tpl.setitem_mask_array, arguments, result, "a[mask] = array")


def _fits(value, dtype) -> bool:
    """A value NumPy would store in `dtype` without a complex-to-real error."""
    return not (isinstance(value, types.Complex) and not isinstance(dtype, types.Complex))


def _scalar_class(dtype, loc: ir.Loc) -> ir.Global:
    scalar = numpy_dtype(dtype).type
    return ir.Global(scalar.__name__, scalar, loc)


def _const(value, stmt) -> ir.Const:
    return ir.Const(value, stmt.loc)


# ---------------------------------------------------------------------------- inlining


def _template_ir(template) -> ir.FunctionIR:
    bytecode = ByteCode(template)
    return build_ir(bytecode, bytecode.control_flow_graph())


def _inline(func_ir: ir.FunctionIR, site: Site, origins: dict, per_item: set) -> None:
    for part in site.removed:
        owner, at = _locate(func_ir, part)
        del owner.body[at]
    block, index = _locate(func_ir, site.stmt)
    loc = site.stmt.loc
    callee = _template_ir(site.template)
    tag = f"{site.template.__name__}.{next(_counter)}"
    base = max(func_ir.blocks) + 1
    continuation = base + max(callee.blocks) + 1
    renamer = Renamer(tag, {}, base, set(callee.blocks))
    for label, callee_block in callee.blocks.items():
        copied = ir.Block(base + label, loc)
        for stmt in callee_block.body:
            for new in renamer.statement(stmt, site.arguments, site.result, continuation):
                _relocate(new, loc)
                copied.body.append(new)
                _note_origin(new, site, origins, per_item)
        func_ir.blocks[copied.label] = copied
    rest = ir.Block(continuation, loc, block.body[index + 1 :])
    func_ir.blocks[continuation] = rest
    block.body[index:] = [*site.prelude, ir.Jump(base + callee.entry, loc)]


def _locate(func_ir: ir.FunctionIR, stmt: ir.Stmt) -> tuple[ir.Block, int]:
    for block in func_ir.blocks.values():
        for index, candidate in enumerate(block.body):
            if candidate is stmt:
                return block, index
    raise AssertionError(f"statement not found: {stmt}")


def _relocate(stmt: ir.Stmt, loc: ir.Loc) -> None:
    """Inlined statements point at the call's line (diagnostics and errors name the user's
    source, not the template's)."""
    stmt.loc = loc
    value = getattr(stmt, "value", None)
    if isinstance(value, ir.Expr):
        value.loc = loc


def _note_origin(stmt: ir.Stmt, site: Site, origins: dict, per_item: set) -> None:
    """The template's marker call: its range variable names the loop in the diagnostics."""
    if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call):
        origins[stmt.target.name] = site.describe
        if site.per_item:
            per_item.add(stmt.target.name)
