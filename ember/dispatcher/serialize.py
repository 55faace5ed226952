"""Pickling jitted functions by value (code, referenced globals, defaults, closure), so they
run where their module cannot be imported: another process, or a Dask worker.

The receiving side needs the same Python version (code objects travel through `marshal`) and
ember; it recompiles on first call.
"""

from __future__ import annotations

import builtins
import importlib
import marshal
import types as pytypes
from typing import Any

_SELF = ("self",)


def _referenced_names(code: pytypes.CodeType) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, pytypes.CodeType):
            names |= _referenced_names(constant)
    return names


def function_state(func: pytypes.FunctionType, own_dispatcher: Any) -> tuple:
    """Everything needed to rebuild `func` elsewhere; modules travel by name."""
    captured: dict[str, tuple] = {}
    for name in sorted(_referenced_names(func.__code__)):
        if name not in func.__globals__:
            continue  # a builtin, or not defined yet
        value = func.__globals__[name]
        if value is own_dispatcher:
            captured[name] = _SELF  # recursion: rebuilt as the new dispatcher itself
        elif isinstance(value, pytypes.ModuleType):
            captured[name] = ("module", value.__name__)
        else:
            captured[name] = ("value", value)
    closure = tuple(cell.cell_contents for cell in func.__closure__ or ())
    return (
        func.__module__,
        func.__name__,
        func.__qualname__,
        marshal.dumps(func.__code__),
        captured,
        func.__defaults__,
        closure,
    )


def rebuild_function(state: tuple) -> tuple[pytypes.FunctionType, list[str]]:
    """The function, and the global names that must be bound to its new dispatcher."""
    module, name, qualname, code_bytes, captured, defaults, closure = state
    namespace: dict[str, Any] = {"__builtins__": builtins, "__name__": module}
    self_names = []
    for global_name, spec in captured.items():
        if spec == _SELF:
            self_names.append(global_name)
        elif spec[0] == "module":
            namespace[global_name] = importlib.import_module(spec[1])
        else:
            namespace[global_name] = spec[1]
    cells = tuple(pytypes.CellType(value) for value in closure) or None
    func = pytypes.FunctionType(marshal.loads(code_bytes), namespace, name, defaults, cells)
    func.__qualname__ = qualname
    return func, self_names
