"""Control-flow graph analysis: consumes basic-block nodes and edges, produces dominators,
post-dominators, back edges, loops and node-to-loops (stage 1 of seed 001).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

# pprint's default line width; a dict whose one-line form is wider is printed one entry per line.
_DUMP_WIDTH = 80


@dataclass(frozen=True)
class Loop:
    """A natural loop: its header, body, entering nodes and exit nodes.

    ``entries`` are the nodes outside the loop with an edge into the header; ``exits`` are the
    nodes outside the loop that are successors of loop nodes.
    """

    header: int
    body: frozenset[int]
    entries: frozenset[int]
    exits: frozenset[int]

    def __repr__(self) -> str:
        """Return the seed's form, ``Loop(entries=set([...]), exits=..., header=.., body=...)``."""
        return (
            f"Loop(entries={_set_repr(self.entries)}, exits={_set_repr(self.exits)}, "
            f"header={self.header}, body={_set_repr(self.body)})"
        )


class ControlFlowGraph:
    """A control-flow graph over integer node ids (bytecode offsets of basic blocks).

    Build it with :meth:`add_node`, :meth:`add_edge` and :meth:`set_entry_point`, then call
    :meth:`process`; the analysis queries are available afterwards.
    """

    def __init__(self) -> None:
        """Create an empty graph."""
        self._succs: dict[int, list[int]] = {}
        self._preds: dict[int, list[int]] = {}
        self._entry: int | None = None
        self._processed = False
        self._doms_cache: dict[int, frozenset[int]] | None = None
        self._post_doms_cache: dict[int, frozenset[int]] | None = None
        self._idoms: dict[int, int] = {}
        self._back_edges: list[tuple[int, int]] = []
        self._loops: dict[int, Loop] = {}
        self._in_loops: dict[int, list[int]] = {}
        self._topo_order: list[int] = []

    # -- construction -----------------------------------------------------------------------

    def add_node(self, node: int) -> None:
        """Add ``node`` to the graph; adding an existing node does nothing."""
        if node not in self._succs:
            self._succs[node] = []
            self._preds[node] = []
            self._processed = False

    def add_edge(self, src: int, dst: int) -> None:
        """Add the edge ``src -> dst``; both nodes must already exist. Duplicates are ignored."""
        for node in (src, dst):
            if node not in self._succs:
                raise ValueError(f"cannot add edge {src} -> {dst}: node {node} is not in the graph")
        if dst not in self._succs[src]:
            self._succs[src].append(dst)
            self._preds[dst].append(src)
            self._processed = False

    def set_entry_point(self, node: int) -> None:
        """Make ``node`` (which must exist) the entry of the graph."""
        if node not in self._succs:
            raise ValueError(f"entry point {node} is not in the graph")
        self._entry = node
        self._processed = False

    def process(self) -> None:
        """Remove nodes unreachable from the entry, then compute every analysis."""
        if self._entry is None:
            raise ValueError("no entry point set")
        self._remove_unreachable()
        self._topo_order = _reverse_post_order(self._entry, self.successors)
        self._idoms = _immediate_dominators(self._topo_order, self._preds)
        dominates = _dominance_test(self._topo_order, self._idoms)
        self._back_edges = sorted(
            (src, dst) for src in self._succs for dst in self._succs[src] if dominates(dst, src)
        )
        self._loops = self._find_loops()
        self._in_loops = self._find_in_loops()
        # Full (post-)dominator sets take quadratic space on long chains of blocks: they are
        # made when asked for (dumps, tests), never by the compiler itself.
        self._doms_cache = self._post_doms_cache = None
        self._processed = True

    @property
    def _doms(self) -> dict[int, frozenset[int]]:
        if self._doms_cache is None:
            self._doms_cache = _dominator_sets(self._topo_order, self._idoms)
        return self._doms_cache

    @property
    def _post_doms(self) -> dict[int, frozenset[int]]:
        if self._post_doms_cache is None:
            self._post_doms_cache = self._find_post_dominators()
        return self._post_doms_cache

    # -- structure queries -----------------------------------------------------------------

    def successors(self, node: int) -> list[int]:
        """Return the successors of ``node``, sorted."""
        return sorted(self._succs[node])

    def predecessors(self, node: int) -> list[int]:
        """Return the predecessors of ``node``, sorted."""
        return sorted(self._preds[node])

    def nodes(self) -> list[int]:
        """Return all nodes, sorted."""
        return sorted(self._succs)

    # -- analysis results ------------------------------------------------------------------

    def dominators(self) -> dict[int, frozenset[int]]:
        """Return each node's dominators (the node itself included)."""
        self._check_processed()
        return dict(self._doms)

    def post_dominators(self) -> dict[int, frozenset[int]]:
        """Return each node's post-dominators (the node itself included).

        They are computed with respect to a virtual exit that joins every node without
        successors; the nodes of a loop that never exits are joined to it as well, so that
        every node has a path to the exit.
        """
        self._check_processed()
        return dict(self._post_doms)

    def immediate_dominators(self) -> dict[int, int]:
        """Return each node's immediate dominator; the entry maps to itself."""
        self._check_processed()
        return dict(self._idoms)

    def back_edges(self) -> list[tuple[int, int]]:
        """Return the edges ``(src, dst)`` where ``dst`` dominates ``src``, sorted."""
        self._check_processed()
        return list(self._back_edges)

    def loops(self) -> dict[int, Loop]:
        """Return the natural loops keyed by header; back edges sharing a header merge."""
        self._check_processed()
        return dict(self._loops)

    def node_to_loops(self) -> dict[int, list[int]]:
        """Return, for each node, the headers of the loops containing it, innermost first."""
        self._check_processed()
        return {node: list(headers) for node, headers in self._in_loops.items()}

    def topological_order(self) -> list[int]:
        """Return the nodes in reverse post-order from the entry (successors visited sorted)."""
        self._check_processed()
        return list(self._topo_order)

    def dump(self) -> str:
        """Return the analysis results in the format of seed 001 (``EMBER_DUMP_CFG``)."""
        self._check_processed()
        nodes = self.nodes()
        lines = [
            "CFG adjacency lists:",
            _format_dict({n: _list_repr(self._succs[n]) for n in nodes}),
            "CFG dominators:",
            _format_dict({n: _set_repr(self._doms[n]) for n in nodes}),
            "CFG post-dominators:",
            _format_dict({n: _set_repr(self._post_doms[n]) for n in nodes}),
            f"CFG back edges: {self._back_edges!r}",
            "CFG loops:",
            _format_dict({h: repr(loop) for h, loop in self._loops.items()}),
            "CFG node-to-loops:",
            _format_dict({n: _list_repr(self._in_loops[n]) for n in nodes}),
        ]
        return "\n".join(lines) + "\n"

    # -- internals -------------------------------------------------------------------------

    def _check_processed(self) -> None:
        if not self._processed:
            raise RuntimeError("ControlFlowGraph.process() must be called first")

    def _remove_unreachable(self) -> None:
        assert self._entry is not None
        reachable = set(_reverse_post_order(self._entry, self.successors))
        for node in [n for n in self._succs if n not in reachable]:
            del self._succs[node]
            del self._preds[node]
        for node in self._succs:
            self._preds[node] = [p for p in self._preds[node] if p in reachable]

    def _find_loops(self) -> dict[int, Loop]:
        sources_by_header: dict[int, list[int]] = {}
        for src, header in self._back_edges:
            sources_by_header.setdefault(header, []).append(src)
        loops: dict[int, Loop] = {}
        for header in sorted(sources_by_header):
            body = {header}
            stack = list(sources_by_header[header])
            while stack:
                node = stack.pop()
                if node not in body:
                    body.add(node)
                    stack.extend(self._preds[node])
            entries = frozenset(p for p in self._preds[header] if p not in body)
            exits = frozenset(s for n in body for s in self._succs[n] if s not in body)
            loops[header] = Loop(header, frozenset(body), entries, exits)
        return loops

    def _find_in_loops(self) -> dict[int, list[int]]:
        # A natural loop nested in another has a strictly smaller body, so sorting by body
        # size puts the innermost loop first.
        by_size = sorted(self._loops.values(), key=lambda loop: (len(loop.body), loop.header))
        in_loops: dict[int, list[int]] = {node: [] for node in self.nodes()}
        for loop in by_size:
            for node in loop.body:
                in_loops[node].append(loop.header)
        return in_loops

    def _find_post_dominators(self) -> dict[int, frozenset[int]]:
        # Reverse the graph and add a virtual exit whose "successors" (in the reversed graph)
        # are every node without successors and every node of a loop that never exits.
        exit_node = object()
        rsuccs: dict[object, list[object]] = {n: list(self._preds[n]) for n in self._succs}
        rpreds: dict[object, list[object]] = {n: list(self._succs[n]) for n in self._succs}
        joined = [n for n in self._succs if not self._succs[n]]
        for loop in self._loops.values():
            if not loop.exits:
                joined.extend(loop.body)
        rsuccs[exit_node] = []
        rpreds[exit_node] = []
        already_joined: set[int] = set()

        def join(node: int) -> None:
            if node not in already_joined:
                already_joined.add(node)
                rsuccs[exit_node].append(node)
                rpreds[node].append(exit_node)

        for node in joined:
            join(node)
        # An irreducible cycle without an exit has no back edge, so it is not a loop: join
        # its nodes that are still cut off from the exit, deepest first, one at a time.
        reached = set(_reverse_post_order(exit_node, rsuccs.__getitem__))
        for node in reversed(self._topo_order):
            if node not in reached:
                join(node)
                reached.update(_reverse_post_order(node, rsuccs.__getitem__))
        order = _reverse_post_order(exit_node, rsuccs.__getitem__)
        post_doms = _dominator_sets(order, _immediate_dominators(order, rpreds), False)
        return {n: post_doms[n] for n in self.nodes()}


def graph_of_blocks(func_ir) -> ControlFlowGraph:
    """The processed graph of a function IR's blocks (by label), for the passes that look for
    loops or dominators after the IR is built."""
    graph = ControlFlowGraph()
    for label in func_ir.blocks:
        graph.add_node(label)
    for label in func_ir.blocks:
        for successor in func_ir.successors(label):
            graph.add_edge(label, successor)
    graph.set_entry_point(func_ir.entry)
    graph.process()
    return graph


def _reverse_post_order(entry: object, successors: Callable[[object], Iterable[object]]) -> list:
    """Return the nodes reachable from ``entry`` in reverse post-order (iterative DFS)."""
    visited = {entry}
    post_order: list = []
    stack = [(entry, iter(successors(entry)))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(successors(child))))
                break
        else:
            stack.pop()
            post_order.append(node)
    post_order.reverse()
    return post_order


def _immediate_dominators(rpo: list, preds: Mapping[object, list]) -> dict:
    """Compute immediate dominators over ``rpo`` (entry first); the entry maps to itself.

    Iterative dataflow on RPO indices (Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
    Algorithm"); predecessors not in ``rpo`` (unreachable) are ignored.
    """
    index = {node: i for i, node in enumerate(rpo)}
    pred_indices = [[index[p] for p in preds[node] if p in index] for node in rpo]
    idom = [-1] * len(rpo)
    idom[0] = 0

    def intersect(a: int, b: int) -> int:
        while a != b:
            while a > b:
                a = idom[a]
            while b > a:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for i in range(1, len(rpo)):
            new = -1
            for p in pred_indices[i]:
                if idom[p] != -1:
                    new = p if new == -1 else intersect(p, new)
            if new != idom[i]:
                idom[i] = new
                changed = True
    return {node: rpo[idom[i]] for i, node in enumerate(rpo)}


def _dominance_test(rpo: list, idoms: Mapping) -> Callable[[object, object], bool]:
    """`dominates(a, b)` in constant time: a dominates b when b's interval of a depth-first
    walk of the dominator tree lies inside a's."""
    children: dict = {node: [] for node in rpo}
    for node in rpo[1:]:
        children[idoms[node]].append(node)
    enter, leave, clock = {}, {}, 0
    stack = [(rpo[0], False)]
    while stack:
        node, done = stack.pop()
        clock += 1
        if done:
            leave[node] = clock
            continue
        enter[node] = clock
        stack.append((node, True))
        stack.extend((child, False) for child in children[node])

    def dominates(a, b) -> bool:
        return enter[a] <= enter[b] and leave[b] <= leave[a]

    return dominates


def _dominator_sets(rpo: list, idoms: Mapping, include_root: bool = True) -> dict:
    """Expand immediate dominators into full dominator sets (each node included).

    With ``include_root=False`` the root (a virtual exit) is left out of every set.
    """
    doms = {rpo[0]: frozenset([rpo[0]] if include_root else [])}
    for node in rpo[1:]:
        doms[node] = doms[idoms[node]] | {node}
    return doms


def _set_repr(items: Iterable[int]) -> str:
    """Format a set in the seed's old style: ``set([1, 2])`` with sorted members."""
    return f"set({sorted(items)!r})"


def _list_repr(items: Iterable[int]) -> str:
    return repr(list(items))


def _format_dict(entries: Mapping[int, str]) -> str:
    """Format ``{key: value-repr}`` sorted by key, as pprint would.

    One line when it fits in 80 columns or has at most one entry, otherwise one entry per line.
    """
    items = [f"{key!r}: {entries[key]}" for key in sorted(entries)]
    one_line = "{" + ", ".join(items) + "}"
    if len(items) <= 1 or len(one_line) <= _DUMP_WIDTH:
        return one_line
    return "{" + ",\n ".join(items) + "}"
