"""The functions a dict or set display calls in the IR: `{k1: v1, k2: v2}` becomes
`d = dict_display(k1, v1, k2, v2)` (an empty dict of the members' common types) followed by
`d[k1] = v1; d[k2] = v2`, and `{a, b}` becomes `s = set_display(a, b)` then `s.add(a)`...
(typed and lowered in ember/library/containers/dicts.py and sets.py). An f-string's plain
`{x}` calls `formatted_field(x)` (ember/library/strings/format.py)."""

from __future__ import annotations

from typing import Any


def dict_display(*keys_and_values: Any) -> dict:
    """An empty dict (its members are stored by the statements that follow)."""
    return {}


def set_display(*items: Any) -> set:
    """An empty set (its items are added by the calls that follow)."""
    return set()


def constant_set_display(*items: Any) -> set:
    """An empty set sized as CPython sizes a display of three or more constants (a set
    updated by a constant frozenset); its items, in the frozenset's order, are added by the
    calls that follow."""
    return set()


def formatted_field(value: Any) -> str:
    """`{value}` in an f-string: `format(value, "")`."""
    return format(value, "")
