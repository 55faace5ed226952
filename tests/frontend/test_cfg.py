"""Tests for ember.frontend.cfg: dominators, post-dominators, loops and the seed's CFG dump."""

from __future__ import annotations

import pprint
from pathlib import Path

import pytest

try:
    from ember.frontend import cfg as cfg_module
except ImportError:  # the package's __init__ files may not exist yet
    import importlib.util
    import sys

    _PATH = Path(__file__).resolve().parents[2] / "ember" / "frontend" / "cfg.py"
    _SPEC = importlib.util.spec_from_file_location("ember_frontend_cfg_under_test", _PATH)
    assert _SPEC is not None and _SPEC.loader is not None
    cfg_module = importlib.util.module_from_spec(_SPEC)
    sys.modules[_SPEC.name] = cfg_module
    _SPEC.loader.exec_module(cfg_module)

ControlFlowGraph = cfg_module.ControlFlowGraph
Loop = cfg_module.Loop

fs = frozenset


def build(edges: dict[int, list[int]], entry: int = 0) -> ControlFlowGraph:
    """Build and process a graph from an adjacency mapping (successors in insertion order)."""
    graph = ControlFlowGraph()
    for node in edges:
        graph.add_node(node)
    for src, dsts in edges.items():
        for dst in dsts:
            graph.add_edge(src, dst)
    graph.set_entry_point(entry)
    graph.process()
    return graph


DOLOOPS = {0: [6], 6: [19], 19: [54, 22], 22: [19, 47], 47: [55], 54: [55], 55: []}

DOLOOPS_DUMP = """\
CFG adjacency lists:
{0: [6], 6: [19], 19: [54, 22], 22: [19, 47], 47: [55], 54: [55], 55: []}
CFG dominators:
{0: set([0]),
 6: set([0, 6]),
 19: set([0, 6, 19]),
 22: set([0, 6, 19, 22]),
 47: set([0, 6, 19, 22, 47]),
 54: set([0, 6, 19, 54]),
 55: set([0, 6, 19, 55])}
CFG post-dominators:
{0: set([0, 6, 19, 55]),
 6: set([6, 19, 55]),
 19: set([19, 55]),
 22: set([22, 55]),
 47: set([47, 55]),
 54: set([54, 55]),
 55: set([55])}
CFG back edges: [(22, 19)]
CFG loops:
{19: Loop(entries=set([6]), exits=set([47, 54]), header=19, body=set([19, 22]))}
CFG node-to-loops:
{0: [], 6: [], 19: [19], 22: [19], 47: [], 54: [], 55: []}
"""


class TestDoloops:
    """The seed's `doloops` example: a for loop with a break."""

    def test_structure(self) -> None:
        graph = build(DOLOOPS)
        assert graph.nodes() == [0, 6, 19, 22, 47, 54, 55]
        assert graph.successors(19) == [22, 54]
        assert graph.predecessors(19) == [6, 22]
        assert graph.predecessors(55) == [47, 54]

    def test_dominators(self) -> None:
        assert build(DOLOOPS).dominators() == {
            0: fs({0}),
            6: fs({0, 6}),
            19: fs({0, 6, 19}),
            22: fs({0, 6, 19, 22}),
            47: fs({0, 6, 19, 22, 47}),
            54: fs({0, 6, 19, 54}),
            55: fs({0, 6, 19, 55}),
        }

    def test_post_dominators(self) -> None:
        assert build(DOLOOPS).post_dominators() == {
            0: fs({0, 6, 19, 55}),
            6: fs({6, 19, 55}),
            19: fs({19, 55}),
            22: fs({22, 55}),
            47: fs({47, 55}),
            54: fs({54, 55}),
            55: fs({55}),
        }

    def test_immediate_dominators(self) -> None:
        assert build(DOLOOPS).immediate_dominators() == {
            0: 0,
            6: 0,
            19: 6,
            22: 19,
            47: 22,
            54: 19,
            55: 19,
        }

    def test_back_edges_and_loops(self) -> None:
        graph = build(DOLOOPS)
        assert graph.back_edges() == [(22, 19)]
        assert graph.loops() == {
            19: Loop(header=19, body=fs({19, 22}), entries=fs({6}), exits=fs({47, 54}))
        }
        assert graph.node_to_loops() == {
            0: [],
            6: [],
            19: [19],
            22: [19],
            47: [],
            54: [],
            55: [],
        }

    def test_topological_order(self) -> None:
        # DFS visits successors sorted: 0, 6, 19, then 22 (-> 47 -> 55) before 54.
        assert build(DOLOOPS).topological_order() == [0, 6, 19, 54, 22, 47, 55]

    def test_dump_matches_seed(self) -> None:
        assert build(DOLOOPS).dump() == DOLOOPS_DUMP


def test_single_node() -> None:
    graph = build({0: []})
    assert graph.nodes() == [0]
    assert graph.dominators() == {0: fs({0})}
    assert graph.post_dominators() == {0: fs({0})}
    assert graph.immediate_dominators() == {0: 0}
    assert graph.back_edges() == []
    assert graph.loops() == {}
    assert graph.node_to_loops() == {0: []}
    assert graph.topological_order() == [0]
    assert graph.dump() == (
        "CFG adjacency lists:\n"
        "{0: []}\n"
        "CFG dominators:\n"
        "{0: set([0])}\n"
        "CFG post-dominators:\n"
        "{0: set([0])}\n"
        "CFG back edges: []\n"
        "CFG loops:\n"
        "{}\n"
        "CFG node-to-loops:\n"
        "{0: []}\n"
    )


def test_diamond_has_no_loops() -> None:
    graph = build({0: [1, 2], 1: [3], 2: [3], 3: []})
    assert graph.dominators() == {0: fs({0}), 1: fs({0, 1}), 2: fs({0, 2}), 3: fs({0, 3})}
    assert graph.post_dominators() == {
        0: fs({0, 3}),
        1: fs({1, 3}),
        2: fs({2, 3}),
        3: fs({3}),
    }
    assert graph.immediate_dominators() == {0: 0, 1: 0, 2: 0, 3: 0}
    assert graph.back_edges() == []
    assert graph.loops() == {}
    assert graph.node_to_loops() == {0: [], 1: [], 2: [], 3: []}
    assert graph.topological_order() == [0, 2, 1, 3]
    # Dicts short enough for one 80-column line stay on one line, as pprint prints them.
    assert graph.dump() == (
        "CFG adjacency lists:\n"
        "{0: [1, 2], 1: [3], 2: [3], 3: []}\n"
        "CFG dominators:\n"
        "{0: set([0]), 1: set([0, 1]), 2: set([0, 2]), 3: set([0, 3])}\n"
        "CFG post-dominators:\n"
        "{0: set([0, 3]), 1: set([1, 3]), 2: set([2, 3]), 3: set([3])}\n"
        "CFG back edges: []\n"
        "CFG loops:\n"
        "{}\n"
        "CFG node-to-loops:\n"
        "{0: [], 1: [], 2: [], 3: []}\n"
    )


def test_nested_loops_innermost_first() -> None:
    # 1 is the outer header (back edge 4 -> 1), 2 the inner one (back edge 3 -> 2).
    graph = build({0: [1], 1: [2], 2: [3], 3: [2, 4], 4: [1, 5], 5: []})
    assert graph.back_edges() == [(3, 2), (4, 1)]
    assert graph.loops() == {
        1: Loop(header=1, body=fs({1, 2, 3, 4}), entries=fs({0}), exits=fs({5})),
        2: Loop(header=2, body=fs({2, 3}), entries=fs({1}), exits=fs({4})),
    }
    assert graph.node_to_loops() == {0: [], 1: [1], 2: [2, 1], 3: [2, 1], 4: [1], 5: []}
    assert graph.dominators()[5] == fs({0, 1, 2, 3, 4, 5})
    assert graph.post_dominators() == {
        0: fs({0, 1, 2, 3, 4, 5}),
        1: fs({1, 2, 3, 4, 5}),
        2: fs({2, 3, 4, 5}),
        3: fs({3, 4, 5}),
        4: fs({4, 5}),
        5: fs({5}),
    }
    assert graph.immediate_dominators() == {0: 0, 1: 0, 2: 1, 3: 2, 4: 3, 5: 4}


def test_unreachable_nodes_are_removed() -> None:
    # 3 and 4 are unreachable; 3 -> 1 must disappear from 1's predecessors.
    graph = build({0: [1], 1: [2], 2: [], 3: [1, 4], 4: [3]})
    assert graph.nodes() == [0, 1, 2]
    assert graph.predecessors(1) == [0]
    assert graph.dominators() == {0: fs({0}), 1: fs({0, 1}), 2: fs({0, 1, 2})}
    assert graph.post_dominators() == {0: fs({0, 1, 2}), 1: fs({1, 2}), 2: fs({2})}
    assert graph.back_edges() == []
    assert graph.loops() == {}
    assert graph.node_to_loops() == {0: [], 1: [], 2: []}


def test_two_back_edges_to_one_header_merge() -> None:
    # A loop with a `continue`: both 2 -> 1 and 3 -> 1 are back edges to header 1.
    graph = build({0: [1], 1: [2, 3], 2: [1], 3: [1, 4], 4: []})
    assert graph.back_edges() == [(2, 1), (3, 1)]
    assert graph.loops() == {
        1: Loop(header=1, body=fs({1, 2, 3}), entries=fs({0}), exits=fs({4})),
    }
    assert graph.node_to_loops() == {0: [], 1: [1], 2: [1], 3: [1], 4: []}
    assert graph.post_dominators()[1] == fs({1, 3, 4})


def test_self_loop() -> None:
    graph = build({0: [1], 1: [1, 2], 2: []})
    assert graph.successors(1) == [1, 2]
    assert graph.predecessors(1) == [0, 1]
    assert graph.dominators() == {0: fs({0}), 1: fs({0, 1}), 2: fs({0, 1, 2})}
    assert graph.post_dominators() == {0: fs({0, 1, 2}), 1: fs({1, 2}), 2: fs({2})}
    assert graph.back_edges() == [(1, 1)]
    assert graph.loops() == {1: Loop(header=1, body=fs({1}), entries=fs({0}), exits=fs({2}))}
    assert graph.node_to_loops() == {0: [], 1: [1], 2: []}


def test_infinite_loop_post_dominators() -> None:
    # `while True:` without a break: the loop body is joined to the virtual exit.
    graph = build({0: [1], 1: [2], 2: [1]})
    assert graph.loops() == {1: Loop(header=1, body=fs({1, 2}), entries=fs({0}), exits=fs())}
    assert graph.post_dominators() == {0: fs({0, 1}), 1: fs({1}), 2: fs({2})}


def test_irreducible_cycle_without_exit() -> None:
    # Neither 1 nor 2 dominates the other: no back edge, no loop, but post-dominators exist.
    graph = build({0: [1, 2], 1: [2], 2: [1]})
    assert graph.back_edges() == []
    assert graph.loops() == {}
    assert graph.post_dominators() == {0: fs({0, 2}), 1: fs({1, 2}), 2: fs({2})}


def test_non_zero_entry_and_duplicate_edges() -> None:
    graph = ControlFlowGraph()
    for node in (10, 20):
        graph.add_node(node)
    graph.add_edge(10, 20)
    graph.add_edge(10, 20)
    graph.set_entry_point(10)
    graph.process()
    assert graph.successors(10) == [20]
    assert graph.predecessors(20) == [10]
    assert graph.immediate_dominators() == {10: 10, 20: 10}


def test_errors() -> None:
    graph = ControlFlowGraph()
    graph.add_node(0)
    with pytest.raises(ValueError):
        graph.add_edge(0, 1)
    with pytest.raises(ValueError):
        graph.set_entry_point(1)
    with pytest.raises(ValueError):
        graph.process()
    with pytest.raises(RuntimeError):
        graph.dominators()


class _Raw:
    """An object whose repr is a given string, to compare the dump with pprint itself."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


@pytest.mark.parametrize(
    "edges",
    [
        DOLOOPS,
        {0: []},
        {0: [1, 2], 1: [3], 2: [3], 3: []},
        {0: [1], 1: [2], 2: [3], 3: [2, 4], 4: [1, 5], 5: []},
    ],
)
def test_dump_agrees_with_pprint(edges: dict[int, list[int]]) -> None:
    graph = build(edges)

    def set_repr(items: frozenset[int]) -> _Raw:
        return _Raw(f"set({sorted(items)})")

    doms = {n: set_repr(d) for n, d in graph.dominators().items()}
    post_doms = {n: set_repr(d) for n, d in graph.post_dominators().items()}
    loops = {h: _Raw(repr(loop)) for h, loop in graph.loops().items()}
    expected = (
        "CFG adjacency lists:\n"
        f"{pprint.pformat(edges)}\n"
        "CFG dominators:\n"
        f"{pprint.pformat(doms)}\n"
        "CFG post-dominators:\n"
        f"{pprint.pformat(post_doms)}\n"
        f"CFG back edges: {graph.back_edges()}\n"
        "CFG loops:\n"
        f"{pprint.pformat(loops)}\n"
        "CFG node-to-loops:\n"
        f"{pprint.pformat(graph.node_to_loops())}\n"
    )
    assert graph.dump() == expected
