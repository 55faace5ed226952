"""The text of a failed typing: consumes the callee, the argument types, the typing context and
the call's location; produces ember's one-line cause after the lines programs and users grep for
in Numba's reports ("No implementation of function Function(...) found for signature",
"Overload of function '...'", "No match.", "During: resolving callee type")."""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any

from ember import types
from ember.ir import nodes as ir
from ember.types.functions import _header_lead

_EMBER_ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")
_MAX_LISTED = 1  # more candidates than this are one line, as Numba's "<numerous>"


_NAMESPACE_BUILTINS = {
    "globals": "compiled code keeps no namespace dictionaries; read a global by its name, or "
    "pass the values as arguments",
    "locals": "compiled code keeps no namespace dictionaries (its variables are typed values); "
    "build a dict or tuple of the values you need",
    "vars": "compiled code keeps no namespace dictionaries; pass the values as arguments",
    "dir": "compiled code cannot list names; call it outside the jitted function",
    "eval": "compiled code cannot compile source text; evaluate it outside the jitted function",
    "exec": "compiled code cannot compile source text; run it outside the jitted function",
}


def untyped_global_message(what: str, value: Any) -> str:
    """Why a global of no ember type cannot be used: the introspection builtins (globals(),
    locals(), eval()...) say what to do instead."""
    name = getattr(value, "__name__", None)
    if getattr(value, "__module__", None) == "builtins" and name in _NAMESPACE_BUILTINS:
        why = f"{name}() is not supported in nopython mode: {_NAMESPACE_BUILTINS[name]}"
    else:
        why = f"cannot use a value of Python type {type(value).__name__} in nopython mode"
    return f"Untyped global name '{what}': {why}"


def numba_report(context: Any, key: Any, arg_types: tuple, loc: Any) -> list[str]:
    """Three lines for calling `key` (a function, an operator, or `(type class, method name)`)
    with `arg_types` at `loc`: what Numba would say, then its two "During:" context lines."""
    callee = f"Function({key!r})" if not isinstance(key, tuple) else f"BoundFunction({key[1]})"
    name = _name(key)
    listing = ", ".join(str(t) for t in arg_types)
    said = f"{_header_lead} {callee} found for signature: >>> {name}({listing})"
    templates = list(context.templates_for(key))
    if len(templates) > _MAX_LISTED:
        said += f"; Overload of function '{name}': File: <numerous>: No match."
    elif templates:
        said += f"; {_template_source(templates[0], name)}: No match."
    lines = [said, f"During: resolving callee type: {callee}"]
    if loc is not None:
        lines.append(f"During: typing of call at {loc}")
    return lines


def _name(key: Any) -> str:
    if isinstance(key, tuple):
        return str(key[1])
    return getattr(key, "__name__", None) or str(key)


def _template_source(template: Any, name: str) -> str:
    """`Overload of function 'name': File: path: Line n.`: an @overload's own function (a
    method's overload function gives its name), else the template's class."""
    source = getattr(template, "_overload_func", None)
    if source is not None and isinstance(getattr(type(template), "key", None), tuple):
        name = source.__name__
    where = source or type(template)
    try:
        path = inspect.getsourcefile(where)
        line = inspect.getsourcelines(where)[1]
    except (TypeError, OSError):
        return f"Overload of function '{name}': File: unknown"
    if path.startswith(_EMBER_ROOT):
        return f"Overload of function '{name}': File: <ember's library>"
    return f"Overload of function '{name}': File: {_package_relative(path)}: Line {line}"


def _package_relative(path: str | None) -> str:
    """`path` from its package's root (numba/tests/x.py), as Numba prints template files."""
    if not path:
        return "unknown"
    roots = [p for p in sys.path if p and path.startswith(os.path.join(os.path.abspath(p), ""))]
    if not roots:
        return path
    return os.path.relpath(path, max(roots, key=len))


# Numba's words for a list of undefined items, which code written for Numba may look for
PRECISE_LIST_NOTE = (
    "For Numba to be able to compile a list, the list must have a known and precise type "
    "that can be inferred from the other variables."
)

RECURSION_HINT = (
    "Cannot type a recursive call (cannot type infer runaway recursion): the function needs a "
    "return path that does not recurse, placed before the recursive call."
)


def unsupported_library_function(value_type: types.Type, attr: str, message: str) -> str:
    """Numba's words first for a NumPy function ember does not compile."""
    pymod = getattr(value_type, "pymod", None)
    name = getattr(pymod, "__name__", "")
    if isinstance(value_type, types.Module) and name.split(".")[0] == "numpy":
        if callable(getattr(pymod, attr, None)):
            return (
                f"Use of unsupported NumPy function '{name}.{attr}' or unsupported use of the "
                f"function.\n{message}: ember does not compile {name}.{attr}"
            )
    return message


def declined_attribute_overloads(context: Any, value_type: types.Type, attr: str) -> str:
    """Lines naming each `@overload_attribute` of `attr` that declined `value_type` (returned
    None), in Numba's words ("Overload of function 'name': File: ...: No match.")."""
    lines = []
    receiver = getattr(value_type, "literal_type", value_type)
    for template in context._templates_of(receiver):
        overload_func = getattr(template, "_overload_func", None)
        if getattr(template, "_attr", None) != attr or overload_func is None:
            continue
        code = overload_func.__code__
        lines.append(
            f"\nOverload of function '{overload_func.__name__}': File: "
            f"{code.co_filename}:{code.co_firstlineno}: No match (it returned None for "
            f"{receiver})."
        )
    return "".join(lines)


def restricted_function_report(fnty: types.Type, arg_types: tuple) -> list[str]:
    """Numba's lines for a function of one fixed signature (a ctypes/cffi function, a @cfunc,
    a first-class function) called with other arguments: the signature it accepts."""
    if not isinstance(fnty, types.FunctionType):
        return []
    accepted = fnty.signature
    listing = ", ".join(str(t) for t in arg_types)
    trailing = "," if len(accepted.args) == 1 else ""  # a Python tuple's spelling
    cases = f"({', '.join(str(t) for t in accepted.args)}{trailing}) -> {accepted.return_type}"
    return [
        "Type Restricted Function in function 'unknown': File: unknown: Line unknown. With "
        f"argument(s): '({listing})': No match for registered cases: * {cases}"
    ]


def callee_key(fnty: types.Type) -> Any:
    """The key whose templates a call of `fnty` asks (None: no templates to report)."""
    if isinstance(fnty, types.Function):
        return fnty.typing_key
    if isinstance(fnty, types.BoundFunction):
        return (type(fnty.this), fnty.attr)
    return None


def describe_callee(fnty: types.Type) -> str:
    if isinstance(fnty, types.Function):
        key = fnty.typing_key
        module = getattr(key, "__module__", None)
        name = getattr(key, "__qualname__", repr(key))
        return f"function {module}.{name}" if module not in (None, "builtins") else name
    if isinstance(fnty, types.DispatcherType):
        return f"jitted function {fnty.dispatcher.py_func.__qualname__}"
    if isinstance(fnty, types.BoundFunction):
        return f"method {fnty.attr} of {fnty.this}"
    if isinstance(fnty, types.FunctionType):  # a C function: its type names its signature
        return f"function {fnty}"
    return f"a value of type {fnty}"


def no_implementation(
    what: str, operands: list, arg_types: tuple, func_ir: ir.FunctionIR, report: Any = ()
) -> str:
    """The variables and their types, Numba's `report` lines (what users grep for), then the
    one-line cause."""
    named = list(
        dict.fromkeys(  # each variable once, in order (f(n, n) names 'n' once)
            f"'{func_ir.user_name(var.name)}' is {typ}"
            for var, typ in zip(operands, arg_types)
            if not var.name.startswith("$")
        )
    )
    listing = ", ".join(str(t) for t in arg_types)
    lines = [f"  {', '.join(named)}"] if named else []
    lines.extend(report)
    lines.append(f"No implementation of {what} for argument types ({listing})")
    return "\n".join(lines)
