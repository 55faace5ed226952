"""Whether a module optimized with ordered float reductions (-force-ordered-reductions, see
ember/codegen/jit) vectorized a float sum over gathered items or over the results of math calls
that have no vector form: then its scalar loop is faster; and which of its loops did, to keep only
those scalar."""

from __future__ import annotations

import re
from dataclasses import dataclass

import llvmlite.binding as llvm_binding

_ORDERED_SUM = "llvm.vector.reduce.fadd."
_GATHER = "llvm.masked.gather."
# Float intrinsics the x86 code generator computes in vector registers; any other on a vector
# (llvm.sin.v8f64, llvm.exp.v16f32: ember links no vector math library) becomes a call to the
# scalar libm function per lane, each call clobbering every vector register. Measured, that
# loses on float64 lanes and wins on float32 ones (a log-sum-exp of float32 rows, whose sum of
# `math.exp` adds float64s: 0.89-0.93x Numba vectorized, 1.00x scalar), so only float64 counts.
_VECTOR_NATIVE = frozenset(
    ("sqrt", "fabs", "floor", "ceil", "trunc", "rint", "nearbyint", "roundeven", "fma",
     "fmuladd", "minnum", "maxnum", "minimum", "maximum", "copysign", "round")
)  # fmt: skip

# A sum in order adds its items one at a time whether the loop is vectorized or not; the vector
# loop only wins when the work per item is worth doing in vector registers (sixth_power_sum:
# 0.40 -> 0.21 ms, kmeans_assign 0.62 -> 0.33 ms). Items fetched by a gather (x[col[k]], or an
# index LLVM cannot prove non-negative, so each lane wraps on its own) cost a gather per vector
# and a long vector body for short rows: csr_matvec 0.21 ms scalar vs 0.49 ms vectorized,
# convolve_1d 0.78 vs 1.16 ms (perf19, ember alone). So do sums of math calls scalarized lane by
# lane: trapezoid_sin (`s += math.sin(i * h)`) vectorized 64 wide, spilling the vectors around
# each of 64 calls, 1.08-1.14x Numba's time, scalar 1.02-1.04x (perf21).


def sums_gathered_items(module: llvm_binding.ModuleRef) -> bool:
    """True when a block of `module` both adds vectors to a float sum in order (an
    `llvm.vector.reduce.fadd` without `reassoc`) and gathers vectors or calls a math function
    lane by lane: a loop vectorized at a loss."""
    declared = [f.name for f in module.functions if f.is_declaration]
    if not any(name.startswith(_ORDERED_SUM) for name in declared):
        return False
    if not any(_costly_in_vectors(name) for name in declared):
        return False
    return any(
        _costly_items_into_ordered_sum(block)
        for function in module.functions
        if not function.is_declaration
        for block in function.blocks
    )


def _costly_in_vectors(callee: str) -> bool:
    """A gather, or a float64 math intrinsic on a vector that is computed lane by lane."""
    if callee.startswith(_GATHER):
        return True
    parts = callee.split(".")  # llvm.sin.v8f64
    return (
        len(parts) == 3
        and parts[0] == "llvm"
        and parts[1] not in _VECTOR_NATIVE
        and parts[2].startswith("v")
        and parts[2].endswith("f64")
    )


def _costly_items_into_ordered_sum(block) -> bool:
    costly = ordered_sum = False
    for instruction in block.instructions:
        if instruction.opcode != "call":
            continue
        callee = list(instruction.operands)[-1].name
        if _costly_in_vectors(callee):
            costly = True
        elif callee.startswith(_ORDERED_SUM) and "reassoc" not in str(instruction):
            ordered_sum = True
    return costly and ordered_sum


# ---------------------------------------------------------------------------- per loop
#
# A module mixing a loop whose ordered sum vectorizes at a loss with one whose sum gains
# (`s += x[i] ** 6` beside `t += math.sin(x[i])`) keeps the gain: its loops are numbered (an
# `ember.loop` property of each back edge's loop ID, which LLVM carries to the vector, epilogue
# and remainder loops it makes), optimized in order once more to see which numbers lose, and
# optimized a last time with only those loops not vectorized.

_LOOP_TAG = "ember.loop"
_NO_VECTORS = '!{!"llvm.loop.vectorize.enable", i1 false}'
_LABEL = r'(?:"((?:[^"\\]|\\.)*)"|([-a-zA-Z$._0-9]+))'
_LABEL_LINE = re.compile(rf"^{_LABEL}:")
_LABEL_USE = re.compile(rf"label %{_LABEL}")
_METADATA_NUMBER = re.compile(r"!(\d+)")
_METADATA_LINE = re.compile(r"^!(\d+) = (?:distinct )?!\{(.*)\}\s*$")


@dataclass
class TaggedModule:
    """A module's IR text with its loops numbered, and each number's loop ID node."""

    text: str
    loop_ids: dict[int, int]

    def without_vectorization(self, numbers: set[int]) -> str:
        """The text with the loops of `numbers` marked not to be vectorized."""
        free = _next_metadata_number(self.text)
        lines = self.text.splitlines()
        wanted = {f"!{self.loop_ids[n]} = distinct": n for n in numbers}
        for index, line in enumerate(lines):
            head = line.split(" !{", 1)[0]
            if head in wanted:
                lines[index] = line.rstrip()[:-1] + f", !{free}}}"
        return "\n".join([*lines, f"!{free} = {_NO_VECTORS}", ""])


def tag_loops(text: str) -> TaggedModule:
    """`text` (a module's IR, unoptimized) with the branch closing each loop of each function
    given a loop ID holding an `ember.loop` number (branches with a loop ID of their own keep
    it, unnumbered)."""
    lines = text.splitlines()
    free = _next_metadata_number(text)
    loop_ids: dict[int, int] = {}
    appended: list[str] = []
    for latch_line in _back_edge_branches(lines):
        number = len(loop_ids)
        loop_id, tag = free, free + 1
        free += 2
        loop_ids[number] = loop_id
        lines[latch_line] = lines[latch_line].rstrip() + f", !llvm.loop !{loop_id}"
        appended += [f"!{loop_id} = distinct !{{!{loop_id}, !{tag}}}"]
        appended += [f'!{tag} = !{{!"{_LOOP_TAG}", i64 {number}}}']
    return TaggedModule("\n".join([*lines, *appended, ""]), loop_ids)


def losing_loops(module: llvm_binding.ModuleRef) -> set[int] | None:
    """The numbers of the tagged loops whose vectorized blocks add costly items to a float sum
    in order; None when such a block's loop carries no number (then every sum goes scalar)."""
    nodes = {
        int(match.group(1)): match.group(2)
        for line in str(module).splitlines()
        if (match := _METADATA_LINE.match(line))
    }
    losers: set[int] = set()
    for function in module.functions:
        for block in function.blocks if not function.is_declaration else ():
            if not _costly_items_into_ordered_sum(block):
                continue
            number = _loop_number(str(list(block.instructions)[-1]), nodes)
            if number is None:
                return None
            losers.add(number)
    return losers


def _loop_number(terminator: str, nodes: dict[int, str]) -> int | None:
    found = re.search(r"!llvm\.loop !(\d+)", terminator)
    if found is None:
        return None
    for operand in _METADATA_NUMBER.findall(nodes.get(int(found.group(1)), "")):
        tag = re.fullmatch(rf'!"{_LOOP_TAG}", i64 (\d+)', nodes.get(int(operand), ""))
        if tag:
            return int(tag.group(1))
    return None


def _next_metadata_number(text: str) -> int:
    return max((int(n) for n in _METADATA_NUMBER.findall(text)), default=-1) + 1


def _back_edge_branches(lines: list[str]) -> list[int]:
    """The indices of the `br` lines that close a loop (their block's edge to a block that
    dominates it), in every function of `lines`, except those with a loop ID already."""
    found: list[int] = []
    blocks: list[tuple[str, list[int]]] = []
    for index, line in enumerate(lines):
        if line.startswith("define "):
            blocks = [("", [])]  # (the entry block may have no label line)
        elif line.startswith("}") and blocks:
            found += _function_back_edges(lines, blocks)
            blocks = []
        elif blocks:
            label = _LABEL_LINE.match(line)
            if label:
                blocks.append((label.group(1) or label.group(2), []))
            elif line.strip():
                blocks[-1][1].append(index)
    return found


def _function_back_edges(lines: list[str], blocks: list[tuple[str, list[int]]]) -> list[int]:
    from ember.frontend.cfg import ControlFlowGraph

    if not blocks[0][1]:
        blocks = blocks[1:]
    number = {name: n for n, (name, _) in enumerate(blocks)}
    graph = ControlFlowGraph()
    for n in range(len(blocks)):
        graph.add_node(n)
    for n, (_, indices) in enumerate(blocks):
        for index in indices:
            for match in _LABEL_USE.finditer(lines[index]):
                target = number.get(match.group(1) or match.group(2))
                if target is not None:
                    graph.add_edge(n, target)
    graph.set_entry_point(0)
    graph.process()
    found = []
    for source, _ in graph.back_edges():
        last = blocks[source][1][-1]
        if lines[last].lstrip().startswith("br ") and "!llvm.loop" not in lines[last]:
            found.append(last)
    return sorted(set(found))
