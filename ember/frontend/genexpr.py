"""Generator expressions and inner generator functions: the code object of `(f(x) for x in
xs)` (or of a `def` that yields, inside a jitted function) becomes a jitted generator function
whose parameters are its own (the iterator, for an expression) followed by the variables it
closes over, so it is an ordinary call of a generator (consumed by `for`, `sum`, `next`...).
The closed-over values are passed when the generator is made (CPython reads them as it runs).

    before: g = make_function(<genexpr>, closure=(k,)); r = call g($iter)
    after:  g = global(<genexpr of f>);                 r = call g($iter, k)
"""

from __future__ import annotations

import dis
import inspect
import types as pytypes
import weakref
from typing import Any

from ember.errors import UnsupportedError

_CELL_OPS_AS_LOCAL = {"LOAD_DEREF": "LOAD_FAST", "STORE_DEREF": "STORE_FAST",
                      "DELETE_DEREF": "DELETE_FAST", "LOAD_CLOSURE": "LOAD_FAST"}  # fmt: skip
_LOCAL_OPS = {dis.opmap[name] for name in ("LOAD_FAST", "STORE_FAST", "DELETE_FAST")}
_BY_GLOBALS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def generator_of(code: pytypes.CodeType, py_func: Any, loc) -> Any:
    """The jitted generator function for a generator's `code` inside `py_func` (made once per
    code object): its parameters (`.0`, the iterator, for an expression), then
    `code.co_freevars`."""
    made = _BY_GLOBALS.setdefault(py_func, {})
    if code not in made:
        from ember.decorators import njit

        function = pytypes.FunctionType(_with_free_variables_as_parameters(code, loc),
                                        py_func.__globals__, code.co_name)  # fmt: skip
        made[code] = njit(function)
    return made[code]


def inner_function_of(
    code: pytypes.CodeType, py_func: Any, cells: tuple, defaults: tuple | None = None
) -> Any:
    """The jitted function for an inner function's `code` inside `py_func`, its free
    variables the `cells` (holding other jitted functions or constants), made once per code
    object: an inner generator calls it, or the function is used as a value."""
    made = _BY_GLOBALS.setdefault(py_func, {})
    key = (code, "closed")  # generator_of's function of the same code takes its cells as parameters
    if key not in made:
        from ember.decorators import njit

        function = pytypes.FunctionType(code, py_func.__globals__, code.co_name, defaults, cells)
        made[key] = njit(function)
    return made[key]


def closure_function_of(
    code: pytypes.CodeType, py_func: Any, defaults: tuple | None, itself: str | None = None
) -> Any:
    """The jitted function for an inner function used as a value that closes over run-time
    values (made once per code object): the variables it closes over are its first
    parameters, its own follow (a closure value passes the captured values first). A
    recursive one names itself `itself`: that stays a free variable, read as the closure
    value over its own captured parameters (RecursiveClosure). None when that cannot express
    it: it defines functions itself or assigns an enclosing variable."""
    writes = {instr.argval for instr in dis.get_instructions(code) if instr.opname == "STORE_DEREF"}
    if code.co_cellvars or writes & set(code.co_freevars):
        return None
    made = _BY_GLOBALS.setdefault(py_func, {})
    key = (code, "closure", defaults, itself)
    if key not in made:
        from ember.decorators import njit

        try:
            lifted = _with_free_variables_as_parameters(code, None, free_first=True, keep=itself)
        except UnsupportedError:  # too large to renumber its variables
            return None
        cells = None
        if itself is not None:
            marker = RecursiveClosure(tuple(n for n in code.co_freevars if n != itself))
            cells = (pytypes.CellType(marker),)
        function = pytypes.FunctionType(lifted, py_func.__globals__, code.co_name, defaults, cells)
        made[key] = njit(function)
        if itself is not None:
            marker.function = made[key]
    return made[key]


class RecursiveClosure:
    """What a recursive closure function (closure_function_of) finds in its own name: the
    interpreter makes it the closure value of `function` over the parameters `captured`."""

    def __init__(self, captured: tuple[str, ...]) -> None:
        self.captured = captured
        self.function: Any = None


def _with_free_variables_as_parameters(
    code: pytypes.CodeType, loc, free_first: bool = False, keep: str | None = None
) -> pytypes.CodeType:
    """`code` with its free variables (but `keep`, which stays the one free variable) as
    parameters: after its own (`free_first`: before them)."""
    if not free_first:
        _check_generator_shape(code, loc)
    free = code.co_freevars
    lifted = tuple(name for name in free if name != keep)
    n_locals, n_free, n_params = len(code.co_varnames), len(lifted), code.co_argcount
    first = 0 if free_first else n_params  # where the free variables go among the locals

    def new_local(index: int) -> int:
        return index if index < first else index + n_free

    def new_cell(index: int) -> int:  # cells are numbered after the locals
        return first + lifted.index(free[index - n_locals])

    kept_cell = n_locals + n_free  # `keep`: the one cell, after the new locals
    raw = bytearray(code.co_code)
    for offset in range(0, len(raw), 2):
        opcode, arg = raw[offset], raw[offset + 1]
        name = dis.opname[opcode]
        if name == "EXTENDED_ARG":
            raise UnsupportedError("a generator expression this large is not supported", loc)
        if name == "COPY_FREE_VARS":
            raw[offset : offset + 2] = bytes([dis.opmap["NOP"], 0] if keep is None else [opcode, 1])
        elif name in _CELL_OPS_AS_LOCAL and keep is not None and free[arg - n_locals] == keep:
            raw[offset + 1] = kept_cell
        elif name in _CELL_OPS_AS_LOCAL:
            raw[offset : offset + 2] = bytes([dis.opmap[_CELL_OPS_AS_LOCAL[name]], new_cell(arg)])
        elif opcode in _LOCAL_OPS:
            raw[offset + 1] = new_local(arg)
    varnames = (*code.co_varnames[:first], *lifted, *code.co_varnames[first:])
    if len(varnames) > 255:
        raise UnsupportedError("a generator expression this large is not supported", loc)
    positional_only = code.co_posonlyargcount + n_free if code.co_posonlyargcount else 0
    return code.replace(
        co_code=bytes(raw),
        co_varnames=varnames,
        co_argcount=n_params + n_free,
        co_posonlyargcount=positional_only,
        co_nlocals=len(varnames),
        co_freevars=() if keep is None else (keep,),
    )


def _check_generator_shape(code: pytypes.CodeType, loc) -> None:
    """What passing the closed-over values as parameters cannot express."""
    what = "generator expression" if code.co_name == "<genexpr>" else f"generator {code.co_name}"
    if code.co_cellvars:
        raise UnsupportedError(
            f"a {what} that defines a function (lambda) is not supported in nopython mode; "
            "write the loop out",
            loc,
        )
    flags = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
    if code.co_flags & flags or code.co_kwonlyargcount or code.co_posonlyargcount:
        raise UnsupportedError(
            f"the inner {what} takes *args, **kwargs or keyword-only parameters, which nopython "
            "mode does not support for inner generators; use plain parameters",
            loc,
        )
    writes = {instr.argval for instr in dis.get_instructions(code) if instr.opname == "STORE_DEREF"}
    if writes & set(code.co_freevars):
        raise UnsupportedError(
            f"the inner {what} assigns the enclosing variable(s) {', '.join(sorted(writes))} "
            "(nonlocal); nopython mode passes them in by value: return the values instead",
            loc,
        )


def yields_once_per_item(code: pytypes.CodeType) -> bool:
    """Whether the generator expression `code` yields exactly once for each item of its
    iterator: one `for` clause, no `if` clause (jumps inside the yielded expression, such as
    `a if c else b` or `and`/`or`, stay between the loop's head and the yield)."""
    if code.co_name != "<genexpr>":
        return False
    instructions = list(dis.get_instructions(code))
    loops = [i for i in instructions if i.opname == "FOR_ITER"]
    yields = [i for i in instructions if i.opname == "YIELD_VALUE"]
    if len(loops) != 1 or len(yields) != 1:
        return False
    head, yielded = loops[0].offset, yields[0].offset
    jumps = set(dis.hasjrel) | set(dis.hasjabs)
    for instr in instructions:
        if instr.opcode not in jumps or instr is loops[0]:
            continue
        if head < instr.offset < yielded:
            if not head < instr.argval <= yielded:  # an `if` clause skips the yield
                return False
        elif instr.argval != head:  # after the yield only the jump back to the loop's head
            return False
    return True
