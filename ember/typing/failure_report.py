"""Numba's report of a call no implementation takes, appended to ember's own message: consumes
the callee's key, the argument types, the typing context and the call's location; produces the
lines programs and users grep for ("No implementation of function Function(...) found for
signature", "Overload of function '...'", "No match.", "During: resolving callee type")."""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any

_EMBER_ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")
_MAX_LISTED = 1  # more candidates than this are one line, as Numba's "<numerous>"


def numba_report(context: Any, key: Any, arg_types: tuple, loc: Any) -> list[str]:
    """Three lines for calling `key` (a function, an operator, or `(type class, method name)`)
    with `arg_types` at `loc`: what Numba would say, then its two "During:" context lines."""
    callee = f"Function({key!r})" if not isinstance(key, tuple) else f"BoundFunction({key[1]})"
    name = _name(key)
    listing = ", ".join(str(t) for t in arg_types)
    said = f"No implementation of function {callee} found for signature: >>> {name}({listing})"
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
