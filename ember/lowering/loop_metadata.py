"""Loop metadata for lowering: properties of a loop (not vectorized, iterations independent)
attached to its back edge, and access groups; consumes LLVM IR being built."""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir as llvm

i1 = llvm.IntType(1)


def in_group(builder, group, emit: Callable):
    """Run `emit`, tagging the loads and stores it adds with the access group `group`."""
    block = builder.block
    start = len(block.instructions)
    result = emit()
    for instruction in block.instructions[start:]:
        if isinstance(instruction, (llvm.LoadInstr, llvm.StoreInstr)):
            instruction.set_metadata("llvm.access.group", group)
    return result


class AccessGroup(llvm.values.MDValue):
    """A new `distinct !{}` node, as LLVM requires of an access group (llvmlite's metadata
    nodes are uniqued by their operands, so each group compares only to itself)."""

    def __init__(self, module: llvm.Module) -> None:
        super().__init__(module, [], name=str(len(module.metadata)))

    def descr(self, buf: list) -> None:
        buf += ("distinct !{}", "\n")

    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__


def parallel_accesses(group: AccessGroup) -> list:
    return ["llvm.loop.parallel_accesses", group]


def no_vectorization() -> list:
    return ["llvm.loop.vectorize.enable", llvm.Constant(i1, 0)]


def loop_properties(module, back_edge, *properties: list) -> None:
    """Attach loop metadata (lists of a property name and values) to the loop closed by the
    branch `back_edge`."""
    nodes = [module.add_metadata(_as_metadata(module, p)) for p in properties]
    loop_id = llvm.values.MDValue(module, nodes, name=str(len(module.metadata)))
    loop_id.operands = (loop_id, *nodes)  # a loop's ID begins with itself
    back_edge.set_metadata("llvm.loop", loop_id)


def _as_metadata(module, values: list) -> list:
    return [llvm.MetaDataString(module, v) if isinstance(v, str) else v for v in values]
