"""`ember.objmode`: the context manager that marks a block of a jitted function to run as Python
(`with objmode(y='float64[:]'):`). In plain Python it does nothing; the compiler recognizes it
(ember/frontend/objmode_blocks.py) and calls the block through the interpreter."""

from __future__ import annotations

from typing import Any


class _ObjModeContext:
    """`objmode` itself and `objmode(name=type, ...)`: both are no-op context managers in
    Python; `outputs` holds the declared output types (type strings or ember types)."""

    def __init__(self, outputs: dict[str, Any] | None = None) -> None:
        self.outputs = dict(outputs or {})

    def __call__(self, *args: Any, **outputs: Any) -> _ObjModeContext:
        if args:
            raise TypeError(
                "objmode() takes only keyword arguments naming the block's outputs and their "
                "types, e.g. objmode(y='float64[:]', n='int64')"
            )
        return _ObjModeContext(outputs)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: Any) -> bool:
        return False

    def __repr__(self) -> str:
        return "ember.objmode"


objmode = _ObjModeContext()
objmode_context = objmode  # Numba's `numba.core.withcontexts.objmode_context`


class _TransparentContext:
    """A context manager whose block the compiler compiles in place, as if the `with` line
    were not there: Numba's `bypass_context` and `call_context` (its own with-lifting test
    contexts; the second lifts the block into a function, which gives the same results)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: Any) -> bool:
        return False

    def __repr__(self) -> str:
        return f"ember.misc.objmode.{self.name}"


bypass_context = _TransparentContext("bypass_context")
call_context = _TransparentContext("call_context")
