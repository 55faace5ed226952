"""Generated straight-line functions of N `if/else` blocks, for compile-time scaling.

`block_function(n)` returns a Python function `f(a, x)` (a: a float64 array of at least
`ARRAY_LENGTH` items, x: a float) made of `n` repeated blocks, each a few float operations, one
array read and one `if/else`: the shape of generated code, unrolled loops and long physics kernels.
"""

from __future__ import annotations

ARRAY_LENGTH = 8


def block_source(n: int, name: str = "generated") -> str:
    """The source of a function of `n` blocks; constants vary per block so no two are alike."""
    lines = [f"def {name}(a, x):", "    s = 0.0"]
    for k in range(n):
        c1 = 0.5 + (k % 7) * 0.125
        c2 = 0.25 + (k % 5) * 0.0625
        c3 = 1.0 + (k % 3) * 0.5
        lines += [
            f"    t = a[{k % ARRAY_LENGTH}] * {c1} + x",
            f"    if t > s * {c2}:",
            f"        s = s * 0.75 + t * {c3} - {k % 11}.0",
            "    else:",
            f"        s = s * {c2} - t * 0.5 + {c1}",
        ]
    lines.append("    return s")
    return "\n".join(lines) + "\n"


def block_function(n: int, name: str = "generated"):
    """A fresh Python function of `n` blocks (a new code object on every call)."""
    namespace: dict = {}
    exec(compile(block_source(n, name), f"<{name} of {n} blocks>", "exec"), namespace)
    return namespace[name]
