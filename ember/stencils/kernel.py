"""Reads a stencil kernel: its definition as an AST, its parameters and every relative index
(constant offsets or expressions), then infers the neighborhood from those indices or checks
them against the one given to `@stencil(neighborhood=...)`."""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from numbers import Integral

from ember.errors import StencilError

Neighborhood = tuple[tuple[int, int], ...]  # (lowest, highest) relative offset per dimension


@dataclass(frozen=True)
class RelativeIndex:
    """One `name[...]` of a relatively indexed parameter: the offset of each index component,
    None where the component is not a constant integer."""

    array: str
    offsets: tuple[int | None, ...]
    text: str  # the source of the subscript, for messages

    @property
    def is_constant(self) -> bool:
        return None not in self.offsets


@dataclass(frozen=True)
class Kernel:
    """What code generation needs from the kernel function, independent of argument types."""

    func: Callable
    definition: ast.FunctionDef  # without its decorators
    params: tuple[str, ...]
    standard_indexing: frozenset[str]
    indices: tuple[RelativeIndex, ...]
    identifiers: frozenset[str]  # every name the kernel uses: generated names avoid them

    @property
    def name(self) -> str:
        return self.definition.name

    def is_relative(self, name: str) -> bool:
        return name in self.params and name not in self.standard_indexing


def read_kernel(
    func: Callable,
    standard_indexing: Iterable[str],
    known_params: dict[str, int] | None = None,
    index_offsets: tuple[int, ...] = (),
) -> Kernel:
    """Parse `func`'s source and collect its relative indices, each shifted by
    `index_offsets` (one offset per dimension); StencilError for a kernel that cannot be a
    stencil (no source, *args, an unknown `standard_indexing` name)."""
    definition = _parse_definition(func)
    arguments = definition.args
    if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.posonlyargs:
        raise StencilError(
            f"stencil kernel {definition.name}() must take plain positional parameters "
            "(no *args, **kwargs, keyword-only or positional-only ones)"
        )
    params = tuple(arg.arg for arg in arguments.args)
    if "out" in params:
        raise StencilError(
            f"stencil kernel {definition.name}() has a parameter named 'out', which is the "
            "keyword of the output array: rename the parameter"
        )
    standard = frozenset(standard_indexing)
    unknown = sorted(standard - set(params))
    if unknown:
        raise StencilError(
            f"standard_indexing names {', '.join(map(repr, unknown))}, which "
            f"{'is' if len(unknown) == 1 else 'are'} not a parameter of the stencil kernel "
            f"{definition.name}{tuple(params)}: list parameter names only"
        )
    if params and params[0] in standard:
        raise StencilError(
            "The first argument to a stencil kernel must use relative indexing, not standard "
            f"indexing: {params[0]!r} is listed in standard_indexing"
        )
    relative = {name for name in params if name not in standard}
    _refuse_stores(definition, set(params))
    if index_offsets:
        _OffsetIndices(relative, index_offsets, definition.name).visit(definition)
    subscripts = [
        node
        for node in ast.walk(definition)
        if isinstance(node, ast.Subscript) and subscripted_name(node) in relative
    ]
    subscripts.sort(key=lambda node: (node.lineno, node.col_offset))  # errors name the first
    stored = {
        n.id
        for n in ast.walk(definition)
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
    }
    # parameters the caller passes as integer constants (a stencil made in jitted code) count
    # as constants in relative indices unless the kernel rebinds them, as Numba's do
    constants = {k: v for k, v in (known_params or {}).items() if k in params and k not in stored}
    constants.update(_constant_names(definition))
    indices = tuple(_relative_index(node, constants) for node in subscripts)
    identifiers = frozenset(
        node.id if isinstance(node, ast.Name) else node.arg
        for node in ast.walk(definition)
        if isinstance(node, (ast.Name, ast.arg))
    )
    return Kernel(func, definition, params, standard, indices, identifiers)


class _OffsetIndices(ast.NodeTransformer):
    """`index_offsets=(d0, d1)`: every relative index `a[k0, k1]` reads `a[k0 + d0, k1 + d1]`
    (Numba's option; the neighborhood, when inferred, is that of the shifted indices)."""

    def __init__(self, arrays: set[str], offsets: tuple[int, ...], kernel: str) -> None:
        self.arrays, self.offsets, self.kernel = arrays, offsets, kernel

    def visit_Subscript(self, node: ast.Subscript) -> ast.Subscript:
        self.generic_visit(node)
        if subscripted_name(node) not in self.arrays:
            return node
        components = index_components(node)
        if len(components) != len(self.offsets):
            raise StencilError(
                f"index_offsets={self.offsets} gives {len(self.offsets)} offset(s), but "
                f"{ast.unparse(node)} in stencil kernel {self.kernel}() has "
                f"{len(components)} index component(s): give one offset per dimension"
            )
        moved = [_plus(c, offset) for c, offset in zip(components, self.offsets)]
        node.slice = moved[0] if len(moved) == 1 else ast.Tuple(moved, ast.Load())
        return node


def _plus(component: ast.expr, offset: int) -> ast.expr:
    if offset == 0 or component is None:
        return component
    if isinstance(component, ast.Slice):
        return ast.Slice(_plus(component.lower, offset), _plus(component.upper, offset))
    return ast.BinOp(component, ast.Add(), ast.Constant(offset))


def _parse_definition(func: Callable) -> ast.FunctionDef:
    if getattr(func, "__name__", None) == "<lambda>":
        return _lambda_definition(func)
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        raise StencilError(
            f"cannot read the source of the stencil kernel {func!r}: define it with `def` in "
            "a file or a notebook cell"
        ) from None
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            node.decorator_list = []
            return node
    raise StencilError(f"the stencil kernel {func!r} must be a function defined with `def`")


def _refuse_stores(definition: ast.FunctionDef, params: set[str]) -> None:
    """A kernel computes one output element: writing into an input array is refused, as by
    Numba (the result would depend on the order the elements are computed in)."""
    for node in ast.walk(definition):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Store)
            and subscripted_name(node) in params
        ):
            raise StencilError(
                "Assignments to arrays passed to stencil kernels is not allowed: "
                f"{ast.unparse(node)} = ... in {definition.name}()"
            )


def _lambda_definition(func: Callable) -> ast.FunctionDef:
    """`def lambda_kernel(params): return body` for a lambda, found in its file's source by
    its line and parameters (the lines inspect gives for it need not parse alone)."""
    code = func.__code__
    params = list(code.co_varnames[: code.co_argcount])
    try:
        tree = ast.parse(textwrap.dedent("".join(inspect.findsource(func)[0])))
    except (OSError, TypeError, SyntaxError):
        raise StencilError(f"cannot read the source of the stencil kernel {func!r}") from None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Lambda)
            and node.lineno == code.co_firstlineno
            and [arg.arg for arg in node.args.args] == params
        ):
            body = [ast.Return(node.body, lineno=node.lineno, col_offset=node.col_offset)]
            definition = ast.FunctionDef(
                name="lambda_kernel", args=node.args, body=body, decorator_list=[], lineno=1
            )
            return ast.fix_missing_locations(definition)
    raise StencilError(f"cannot find the source of the stencil kernel {func!r}")


def subscripted_name(node: ast.Subscript) -> str | None:
    """`a` for `a[...]`, None when the subscripted value is not a plain name."""
    return node.value.id if isinstance(node.value, ast.Name) else None


def index_components(node: ast.Subscript) -> list[ast.expr]:
    """The index expressions of `a[i, j]` (one for `a[i]`)."""
    if isinstance(node.slice, ast.Tuple):
        return list(node.slice.elts)
    return [node.slice]


def _constant_names(definition: ast.FunctionDef) -> dict[str, int]:
    """Local names bound once, by `name = <integer constant expression>` (`t = 1`, or
    `u = t - 1` after it), and never rebound: Numba propagates them into relative indices."""
    bindings: dict[str, int] = {}
    for node in ast.walk(definition):
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, (ast.For, ast.comprehension)):
            targets = [node.target]
        elif isinstance(node, (ast.NamedExpr, ast.withitem)):
            targets = [node.target if isinstance(node, ast.NamedExpr) else node.optional_vars]
        for target in targets:
            for name in ast.walk(target) if target is not None else ():
                if isinstance(name, ast.Name):
                    bindings[name.id] = bindings.get(name.id, 0) + 1
    constants: dict[str, int] = {}
    for node in definition.body:  # in order, so a constant may use the ones before it
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and bindings.get(node.targets[0].id) == 1
        ):
            value = constant_integer(node.value, constants)
            if value is not None:
                constants[node.targets[0].id] = value
    return constants


def _relative_index(node: ast.Subscript, constants: dict[str, int]) -> RelativeIndex:
    components = index_components(node)
    if not all(map(is_relative_slice, filter(_is_slice, components))):
        raise StencilError(
            f"stencil kernel index {ast.unparse(node)} contains a slice without both bounds "
            "or with a step: relative slices are written `a[-1:2]` (list the array in "
            "standard_indexing to slice it normally)"
        )
    # a relative slice has no single offset: like a variable index, it needs neighborhood=
    offsets = tuple(
        None if _is_slice(component) else constant_integer(component, constants)
        for component in components
    )
    return RelativeIndex(subscripted_name(node), offsets, ast.unparse(node))


def _is_slice(component: ast.expr) -> bool:
    return isinstance(component, ast.Slice)


def is_relative_slice(component: ast.Slice) -> bool:
    """`lo:hi` relative to the current point (Numba's form): both bounds, no step."""
    return component.lower is not None and component.upper is not None and component.step is None


def constant_integer(node: ast.expr, constants: dict[str, int] | None = None) -> int | None:
    """The value of an integer constant expression (`1`, `-1`, `2 - 1`, or a name in
    `constants`), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name) and constants and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = constant_integer(node.operand, constants)
        if operand is None:
            return None
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left, right = (
            constant_integer(node.left, constants),
            constant_integer(node.right, constants),
        )
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add):
            return left + right
        return left - right if isinstance(node.op, ast.Sub) else left * right
    return None


# ------------------------------------------------------------------ neighborhood


def check_neighborhood_option(neighborhood: object) -> Neighborhood | None:
    """The `neighborhood=` option as a tuple of (low, high) integer pairs; StencilError if it is
    not one."""
    if neighborhood is None:
        return None
    if _is_pairs_of_integers(neighborhood):
        pairs = tuple((int(low), int(high)) for low, high in neighborhood)
        if pairs and all(low <= high for low, high in pairs):
            return pairs
    raise StencilError(
        "neighborhood must give one (low, high) pair of integers with low <= high per "
        f"dimension of the input, e.g. ((-1, 1), (-1, 1)) for 2-d; got {neighborhood!r}"
    )


def _is_pairs_of_integers(value: object) -> bool:
    if not isinstance(value, (tuple, list)):
        return False
    return all(
        isinstance(pair, (tuple, list))
        and len(pair) == 2
        and all(isinstance(bound, Integral) and not isinstance(bound, bool) for bound in pair)
        for pair in value
    )


def neighborhood_for(
    kernel: Kernel, arrays: Iterable[str], ndim: int, given: Neighborhood | None
) -> Neighborhood:
    """The neighborhood of the kernel over `ndim`-dimensional input `arrays` (the relatively
    indexed parameters that are arrays): `given` after checking every constant index against
    it, else the smallest box holding offset 0 and every index, which must then be constant."""
    arrays = set(arrays)
    indices = [index for index in kernel.indices if index.array in arrays]
    for index in indices:
        if len(index.offsets) != ndim:
            raise StencilError(
                f"stencil kernel index {index.text} has {len(index.offsets)} component(s) but "
                f"the input arrays have {ndim} dimension(s): index every dimension relatively"
            )
    if given is not None and is_run_time(given):
        _check_dimensions(kernel, given, ndim)
        return given  # known when the stencil runs: the indices are checked then by bounds
    if given is not None:
        _check_given(kernel, given, indices, ndim)
        return given
    if not indices:
        raise StencilError(
            f"Stencil kernel with no accesses to relatively indexed arrays: {kernel.name}() "
            "must read its input with relative indices (a[-1], a[0, 1], ...)"
        )
    bounds = [[0, 0] for _ in range(ndim)]
    for index in indices:
        if not index.is_constant:
            raise StencilError(
                "stencil kernel index is not constant, 'neighborhood' option required: "
                f"{index.text} is not constant, and ember infers the neighborhood from constant "
                "indices only; pass neighborhood=((low, high), ...) to @stencil to index with "
                "variables"
            )
        for bound, offset in zip(bounds, index.offsets):
            bound[0], bound[1] = min(bound[0], offset), max(bound[1], offset)
    return tuple((low, high) for low, high in bounds)


def run_time_neighborhood(ndim: int) -> tuple:
    """The neighborhood of a stencil made in jitted code whose bounds are variables: each
    pair (None, None), the bounds being extra arguments of the generated function."""
    return ((None, None),) * ndim


def is_run_time(neighborhood) -> bool:
    return bool(neighborhood) and neighborhood[0][0] is None


def _check_dimensions(kernel: Kernel, given, ndim: int) -> None:
    if len(given) != ndim:
        raise StencilError(
            f"the neighborhood of stencil {kernel.name} has {len(given)} dimension(s) but the "
            f"input arrays have {ndim}: give one (low, high) pair per dimension"
        )


def _check_given(
    kernel: Kernel, given: Neighborhood, indices: list[RelativeIndex], ndim: int
) -> None:
    _check_dimensions(kernel, given, ndim)
    for index in indices:
        outside = [
            offset is not None and not low <= offset <= high
            for offset, (low, high) in zip(index.offsets, given)
        ]
        if any(outside):
            raise StencilError(
                f"stencil kernel index {index.text} lies outside the given neighborhood "
                f"{given}: widen the neighborhood or change the index"
            )
