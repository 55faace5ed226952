"""`literal_unroll(t)`: in a jitted `for x in literal_unroll(t)` loop over a tuple, the loop body
is compiled once per member (so members may have different types); Python sees `t` itself."""

from __future__ import annotations

from typing import Any


def literal_unroll(container: Any) -> Any:
    """Mark a loop over `container` for unrolling (ember/rewrites/literal_unroll.py)."""
    return container
