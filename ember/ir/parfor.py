"""The parfor statement: a loop whose iterations may run in parallel, owning its loop nest,
init block and body blocks (an ordinary IR node: printer, verifier and liveness see it through
`sources()`, `targets()` and `nested_blocks()`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ember.ir.nodes import Block, Loc, Stmt, Var


@dataclass(eq=False)
class LoopNest:
    """One dimension of the iteration space: `index_variable` runs over the range value
    `range_var` (start, stop and step of a `prange(...)` call)."""

    index_variable: Var
    range_var: Var
    start: Any = 0  # what the source wrote, for the dump: a Var or a constant
    stop: Any = None
    step: Any = 1

    def __str__(self) -> str:
        return (
            f"LoopNest(index_variable={self.index_variable}, "
            f"range={self.start},{self.stop},{self.step})"
        )


@dataclass(eq=False)
class Reduction:
    """A variable combined across iterations: `kind` is '+', '*', '|', '&', '^', 'max' or
    'min'; `inplace` when the source updated it with an in-place operator (`acc += row`).

    Kind 'last' is a value the serial loop leaves from the last iteration that assigned it:
    `flag` names the companion '|' reduction telling whether a chunk assigned it; the chunks
    are taken in order, a later one replacing the value when its flag is set and, for the
    members of a conditional extreme (`if x < m: m = x; k = i`), when `compare` = (leader,
    operator) also holds between its leader's value and the value so far. `identity` None:
    each chunk starts from the variable's value before the loop."""

    var: Var
    result: Var  # the variable the parfor writes the final value to
    kind: str
    inplace: bool
    identity: Any
    flag: str | None = None
    compare: tuple[str, str] | None = None

    def __str__(self) -> str:
        if self.kind == "last":
            when = f" if {self.compare[0]} {self.compare[1]}" if self.compare else ""
            return f"{self.result} = last({self.var}{when})"
        return f"{self.result} = reduce({self.kind}, {self.var})"


@dataclass(eq=False)
class Parfor(Stmt):
    """`loop_body` is entered at `body_entry` with the index variables set; a jump to
    `continue_label` ends an iteration. `params` are read-only values from outside."""

    id: int
    loop_nests: list[LoopNest]
    init_block: Block
    loop_body: dict[int, Block]
    body_entry: int
    continue_label: int
    params: list[Var]
    reductions: list[Reduction]
    loc: Loc
    gufunc: Any = None  # the compiled body (set by the parfor pass)
    lowering: dict = field(default_factory=dict)

    @property
    def index_var(self) -> Var:
        return self.loop_nests[0].index_variable

    def sources(self) -> list[Var]:
        ranges = [nest.range_var for nest in self.loop_nests]
        return [*ranges, *self.params, *(r.var for r in self.reductions)]

    def targets(self) -> list[Var]:
        return [r.result for r in self.reductions]

    def nested_blocks(self) -> list[Block]:
        return [self.init_block, *(self.loop_body[label] for label in sorted(self.loop_body))]

    def dump_lines(self, indent: str, format_stmt) -> list[str]:
        lines = [
            f"---begin parfor {self.id}---",
            f"index_var =  {self.index_var}",
            *(str(nest) for nest in self.loop_nests),
            f"params = {', '.join(v.name for v in self.params)}",
        ]
        lines += [str(r) for r in self.reductions]
        lines.append("init block:")
        lines += [indent + format_stmt(s) for s in self.init_block.body]
        for label in sorted(self.loop_body):
            lines.append(f"label {label}:")
            lines += [indent + format_stmt(s) for s in self.loop_body[label].body]
        lines.append(f"----end parfor {self.id}----")
        return lines

    def __str__(self) -> str:
        return f"parfor {self.id}"
