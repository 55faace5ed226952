"""Generator expressions: the code object of `(f(x) for x in xs)` becomes a jitted generator
function whose parameters are the iterator and the variables the expression closes over, so a
generator expression is an ordinary call of a generator (consumed by `for`, `sum`, `next`...).

    before: g = make_function(<genexpr>, closure=(k,)); r = call g($iter)
    after:  g = global(<genexpr of f>);                 r = call g($iter, k)
"""

from __future__ import annotations

import dis
import types as pytypes
import weakref
from typing import Any

from ember.errors import UnsupportedError

_CELL_OPS_AS_LOCAL = {"LOAD_DEREF": "LOAD_FAST", "STORE_DEREF": "STORE_FAST",
                      "DELETE_DEREF": "DELETE_FAST", "LOAD_CLOSURE": "LOAD_FAST"}  # fmt: skip
_LOCAL_OPS = {dis.opmap[name] for name in ("LOAD_FAST", "STORE_FAST", "DELETE_FAST")}
_BY_GLOBALS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def generator_of(code: pytypes.CodeType, py_func: Any, loc) -> Any:
    """The jitted generator function for a generator expression's `code` inside `py_func`
    (made once per code object): parameters `.0` (the iterator), then `code.co_freevars`."""
    made = _BY_GLOBALS.setdefault(py_func, {})
    if code not in made:
        from ember.decorators import njit

        function = pytypes.FunctionType(_with_free_variables_as_parameters(code, loc),
                                        py_func.__globals__, "genexpr")  # fmt: skip
        made[code] = njit(function)
    return made[code]


def _with_free_variables_as_parameters(code: pytypes.CodeType, loc) -> pytypes.CodeType:
    if code.co_cellvars:
        raise UnsupportedError(
            "a generator expression that defines a function (lambda) is not supported in "
            "nopython mode; write the loop out",
            loc,
        )
    free = code.co_freevars
    n_locals, n_free = len(code.co_varnames), len(free)

    def new_local(index: int) -> int:  # `.0` stays first, the free variables come next
        return index if index == 0 else index + n_free

    def new_cell(index: int) -> int:  # cells are numbered after the locals
        return 1 + (index - n_locals)

    raw = bytearray(code.co_code)
    for offset in range(0, len(raw), 2):
        opcode, arg = raw[offset], raw[offset + 1]
        name = dis.opname[opcode]
        if name == "EXTENDED_ARG":
            raise UnsupportedError("a generator expression this large is not supported", loc)
        if name == "COPY_FREE_VARS":
            raw[offset : offset + 2] = bytes([dis.opmap["NOP"], 0])
        elif name in _CELL_OPS_AS_LOCAL:
            raw[offset : offset + 2] = bytes([dis.opmap[_CELL_OPS_AS_LOCAL[name]], new_cell(arg)])
        elif opcode in _LOCAL_OPS:
            raw[offset + 1] = new_local(arg)
    varnames = (code.co_varnames[0], *free, *code.co_varnames[1:])
    if len(varnames) > 255:
        raise UnsupportedError("a generator expression this large is not supported", loc)
    return code.replace(
        co_code=bytes(raw),
        co_varnames=varnames,
        co_argcount=1 + n_free,
        co_nlocals=len(varnames),
        co_freevars=(),
        co_name="genexpr",
    )
