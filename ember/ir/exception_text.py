"""The function `str(e)` / `print(e)` of a caught exception calls in the IR
(ember/rewrites/exception_text.py), given `e.args`; compiled by
ember/library/builtins/exception_text.py."""

from __future__ import annotations


def exception_text(args: tuple, key_error: bool) -> str:
    """What str() of an exception with these arguments gives (a KeyError's differs)."""
    return str((KeyError if key_error else BaseException)(*args))
