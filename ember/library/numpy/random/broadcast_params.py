"""np.random distributions with array parameters in compiled code: the parameters broadcast
together (or to `size`), every element is checked as NumPy checks it, then one draw per output
element in C order with that element's parameters, as NumPy's legacy functions draw."""

from __future__ import annotations

import functools
import re

from ember import types


def has_array(arg_types) -> bool:
    return any(isinstance(t, types.Array) for t in arg_types)


def numeric_parameters(arg_types) -> bool:
    """Numbers, or arrays of numbers (at least one parameter an array is has_array's test)."""
    kinds = (types.Integer, types.Float, types.Boolean)
    return all(
        isinstance(t.dtype if isinstance(t, types.Array) else types.unliteral(t), kinds)
        for t in arg_types
    )


def _per_element(expression: str, names: list[str]) -> str:
    """`expression` over the parameters' current elements (`<name>_k`)."""
    for name in names:
        expression = re.sub(rf"\b{name}\b", f"{name}_k", expression)
    return expression


@functools.cache
def _source(name: str, names: tuple, checks: tuple, draw: str, dtype: str, sized: bool) -> str:
    parameters = ", ".join([*names, "size"])
    first = f"np.shape({names[0]})"
    # local names end in "__": no parameter name (shape, size...) can clash with them
    shape = "size" if sized else functools.reduce(
        lambda shape, n: f"np.broadcast_shapes({shape}, np.shape({n}))", names[1:], first
    )  # fmt: skip
    lines = [f"def {name}_broadcast({parameters}):", f"    out_shape__ = {shape}"]
    lines += [f"    {n}_all = np.broadcast_to(np.asarray({n}), out_shape__)" for n in names]
    elements = [f"        {n}_k = {n}_all[index__]" for n in names]
    lines += ["    for index__ in np.ndindex(out_shape__):", *elements]
    for condition, message, error in checks:
        lines.append(f"        if {_per_element(condition, list(names))}:")
        lines.append(f"            raise {error}({message!r})")
    lines += [
        f"    out__ = np.empty(out_shape__, np.{dtype})",
        "    flat__ = out__.reshape(-1)",
        "    position__ = 0",
        "    for index__ in np.ndindex(out_shape__):",
        *elements,
        f"        flat__[position__] = {_per_element(draw, list(names))}",
        "        position__ += 1",
        "    return out__",
    ]
    return "\n".join(lines) + "\n"


def broadcast_impl(name, names, checks, draw, dtype, helpers: dict, sized: bool):
    """The implementation of `name(*names, size)` for array parameters: `checks` are
    (condition, message[, exception name]) over one element's parameters, `draw` an expression
    of them using `helpers`."""
    # NumPy words a check on an array "... contains NaNs" where a scalar's says "... is NaN"
    normalized = tuple(
        (c[0], c[1].replace(" is NaN", " contains NaNs"), c[2] if len(c) > 2 else "ValueError")
        for c in checks
    )
    source = _source(name, tuple(names), normalized, draw, dtype, sized)
    namespace = dict(helpers)
    exec(source, namespace)  # noqa: S102 - from the fixed tables of the distribution modules
    return namespace[f"{name}_broadcast"]
