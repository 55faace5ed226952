"""Issue 2: the debug dumps of seed 001, in the seed's format.

`ember.config` reads the EMBER_* variables at import, so each dump runs a child Python with the
variable set. The child compiles the seed's own examples (`add`, `doloops`, the constant raise),
with `add` on lines 4-6 of its file as in the seed's annotation. Expected texts are the seed's,
with its variable names mapped to ember's (both number temporaries `$<label>.<n>`).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys

import pytest

from ember.compiler import CompileState, analyze_bytecode, generate_ir
from ember.ir import nodes as ir
from ember.ir.printer import dump_function
from ember.lowering.context import TargetOptions

SCRIPT = """\
import sys
from ember import jit, njit

@jit(nopython=True)
def add(a, b):
    return a + b


def doloops(n):
    acc = 0
    for i in range(n):
        acc += 1
        if n == 10:
            break
    return acc


def f(x):
    if x == 0:
        raise ValueError("x cannot be zero")


example = sys.argv[1]
if example == "add":
    print("result", add(1, 2))
elif example == "doloops":
    print("result", njit(doloops)(5))
elif example == "f":
    print("result", njit(f)(1))
"""

SEED_ADD_CFG = """\
CFG adjacency lists:
{0: []}
CFG dominators:
{0: set([0])}
CFG post-dominators:
{0: set([0])}
CFG back edges: []
CFG loops:
{}
CFG node-to-loops:
{0: []}
"""

SEED_ADD_IR = """\
label 0:
    a = arg(0, name=a)                       ['a']
    b = arg(1, name=b)                       ['b']
    $0.3 = a + b                             ['$0.3', 'a', 'b']
    del b                                    []
    del a                                    []
    $0.4 = cast(value=$0.3)                  ['$0.3', '$0.4']
    del $0.3                                 []
    return $0.4                              ['$0.4']"""

SEED_REWRITING = """\
REWRITING:
    del $0.3                                 []
    $12.1 = global(ValueError: <class 'ValueError'>) ['$12.1']
    $const12.2 = const(str, x cannot be zero) ['$const12.2']
    $12.3 = call $12.1($const12.2)           ['$12.1', '$12.3', '$const12.2']
    del $const12.2                           []
    del $12.1                                []
    raise $12.3                              ['$12.3']
____________________________________________________________
    del $0.3                                 []
    $12.1 = global(ValueError: <class 'ValueError'>) ['$12.1']
    $const12.2 = const(str, x cannot be zero) ['$const12.2']
    $12.3 = call $12.1($const12.2)           ['$12.1', '$12.3', '$const12.2']
    del $const12.2                           []
    del $12.1                                []
    raise <class 'ValueError'>('x cannot be zero') []"""

SEED_ANNOTATION = """\
-----------------------------------ANNOTATION-----------------------------------
# File: {file}
# --- LINE 4 ---

@jit(nopython=True)

# --- LINE 5 ---

def add(a, b):

    # --- LINE 6 ---
    # label 0
    #   a = arg(0, name=a)  :: int64
    #   b = arg(1, name=b)  :: int64
    #   $0.3 = a + b  :: int64
    #   del b
    #   del a
    #   $0.4 = cast(value=$0.3)  :: int64
    #   del $0.3
    #   return $0.4

    return a + b
"""

_TEMP = re.compile(r"\$[A-Za-z]*\d+\.\d+")


def rename_like(text: str, reference: str) -> str:
    """`text` with its temporaries renamed to `reference`'s, matched by order of appearance."""
    ours = list(dict.fromkeys(_TEMP.findall(text)))
    theirs = list(dict.fromkeys(_TEMP.findall(reference)))
    assert len(ours) == len(theirs), (ours, theirs)
    mapping = dict(zip(ours, theirs))
    return _TEMP.sub(lambda match: mapping[match.group(0)], text)


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("dumps") / "archex.py"
    path.write_text(SCRIPT)
    return path


@pytest.fixture(scope="module")
def run(script):
    @functools.cache
    def run_child(example: str, *variables: str) -> str:
        env = {**os.environ, **{name: "1" for name in variables}}
        for name in list(env):  # only the variables asked for
            if name.startswith("EMBER_") and name not in variables and name != "EMBER_VERIFY_IR":
                del env[name]
        done = subprocess.run(
            [sys.executable, str(script), example],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run_child


# ---------------------------------------------------------------------------- CFG


def test_cfg_dump_of_add_is_the_seeds(run):
    assert run("add", "EMBER_DUMP_CFG") == SEED_ADD_CFG + "result 3\n"


def test_cfg_dump_of_doloops_has_one_loop_and_one_back_edge(run):
    out = run("doloops", "EMBER_DUMP_CFG")
    headings = [line for line in out.splitlines() if line.startswith("CFG ")]
    assert [h.split(":")[0] for h in headings] == [
        "CFG adjacency lists",
        "CFG dominators",
        "CFG post-dominators",
        "CFG back edges",
        "CFG loops",
        "CFG node-to-loops",
    ]
    (back_edge,) = re.findall(r"CFG back edges: \[\((\d+), (\d+)\)\]", out)
    latch, header = map(int, back_edge)
    loops = re.findall(r"(\d+): Loop\(entries=set\(\[(.*?)\]\), exits=set\(\[(.*?)\]\), "
                       r"header=(\d+), body=set\(\[(.*?)\]\)\)", out)  # fmt: skip
    assert len(loops) == 1
    key, entries, exits, loop_header, body = loops[0]
    assert int(key) == int(loop_header) == header
    body_nodes = {int(n) for n in body.split(", ")}
    assert {header, latch} <= body_nodes
    assert len(entries.split(", ")) == 1 and len(exits.split(", ")) == 2  # break and loop end
    node_to_loops = out.split("CFG node-to-loops:\n")[1].split("\nresult")[0]
    in_loop = {int(n) for n, loops in re.findall(r"(\d+): \[([^\]]*)\]", node_to_loops) if loops}
    assert in_loop == body_nodes
    assert out.endswith("result 5\n")


# ---------------------------------------------------------------------------- IR


def test_ir_dump_of_add_is_the_seeds(run):
    out = run("add", "EMBER_DUMP_IR")
    banner, *rest = out.splitlines()
    assert banner == "IR DUMP: add".center(80, "-")
    dump = "\n".join(rest[:-1])
    assert rename_like(dump, SEED_ADD_IR) == SEED_ADD_IR
    assert rest[-1] == "result 3"


def test_rewriting_dump_of_a_constant_raise_is_the_seeds(run):
    out = run("f", "EMBER_DUMP_IR")
    rewriting = out[out.index("REWRITING:") :].split("\nresult")[0]
    assert rename_like(rewriting, SEED_REWRITING) == SEED_REWRITING
    assert out.endswith("result None\n")


def test_annotation_dump_is_the_seeds(run, script):
    out = run("add", "EMBER_DUMP_ANNOTATION")
    expected = SEED_ANNOTATION.format(file=script)
    assert rename_like(out.split("result 3")[0], expected) == expected + "\n"


def test_annotation_shows_types_of_a_loop(run):
    out = run("doloops", "EMBER_DUMP_ANNOTATION")
    assert "# --- LINE 11 ---" in out and "#   acc = $const" in out
    assert re.search(r"#   \$[\d.]+ = acc \+= \$const[\d.]+  :: int64", out)
    assert ":: range_state_int64" in out and ":: pair<int64, bool>" in out


# ---------------------------------------------------------------------------- LLVM, assembly


def test_llvm_dump_has_the_seeds_signature_and_stack_slots(run):
    out = run("add", "EMBER_DUMP_LLVM")
    assert out.startswith("LLVM DUMP __main__.add$1.int64.int64".center(80, "-"))
    assert re.search(
        r'define i32 @"__main__\.add\$1\.int64\.int64"\(ptr %"retptr", ptr %"excinfo", '
        r'ptr %"env", i64 %"arg\.a", i64 %"arg\.b"\)',
        out,
    )
    for slot in ('%"a" = alloca i64', '%"b" = alloca i64', 'store i64 %"arg.a", i64* %"a"'):
        assert slot in out
    assert re.search(r"add i64 %\"\.\d+\", %\"\.\d+\"", out)
    assert 'ptr %"retptr"' in out and "ret i32 0" in out


def test_optimized_dump_is_one_add_and_a_store(run):
    out = run("add", "EMBER_DUMP_OPTIMIZED")
    assert out.startswith("OPTIMIZED DUMP __main__.add$1.int64.int64".center(80, "-"))
    body = out.split("entry:")[1].split("}")[0]
    instructions = [line.strip() for line in body.strip().splitlines()]
    assert len(instructions) == 3, instructions
    assert re.fullmatch(r"%\.\d+ = add i64 %arg\.[ab], %arg\.[ab]", instructions[0])
    assert instructions[1].startswith("store i64 %.") and "ptr %retptr" in instructions[1]
    assert instructions[2] == "ret i32 0"
    assert "alloca" not in out


def test_assembly_dump_has_the_function(run):
    out = run("add", "EMBER_DUMP_ASSEMBLY")
    assert out.startswith("ASSEMBLY __main__.add$1.int64.int64".center(80, "-"))
    assert "__main__.add$1.int64.int64:" in out
    assert re.search(r"^\s+ret", out, re.MULTILINE)


def test_timing_prints_each_pass(run):
    out = run("add", "EMBER_TIMING")
    lines = out.splitlines()
    assert re.fullmatch(r"ember timing: add\(int64, int64\) -> int64 \d+\.\d\d ms", lines[0])
    passes = [line.split("  ")[1].strip() for line in lines[1:-1]]
    assert passes == [
        "bytecode analysis",
        "IR generation",
        "untyped rewrites",
        "type inference",
        "typed rewrites",
        "nopython lowering",
        "machine code",
    ]
    assert all(re.search(r"\d+\.\d{3} ms$", line) for line in lines[1:-1])


def test_no_dump_without_variables(run):
    assert run("add") == "result 3\n"


# ---------------------------------------------------------------------------- dels in-process


def _ir_of(py_func) -> ir.FunctionIR:
    state = CompileState(py_func, (), None, TargetOptions())
    analyze_bytecode(state)
    generate_ir(state)
    return state.func_ir


def _add(a, b):
    return a + b


def _raise_if_zero(x):
    if x == 0:
        raise ValueError("x cannot be zero")


def test_add_ir_deletes_after_last_use_as_the_seed_does():
    func_ir = _ir_of(_add)
    text = dump_function(func_ir)
    assert rename_like(text, SEED_ADD_IR) == SEED_ADD_IR
    body = [str(stmt) for stmt in func_ir.blocks[0].body]
    add_at = next(i for i, s in enumerate(body) if s.endswith("= a + b"))
    assert body[add_at + 1 : add_at + 3] == ["del b", "del a"]


def test_branch_condition_is_deleted_at_the_top_of_each_successor():
    func_ir = _ir_of(_raise_if_zero)
    entry = func_ir.blocks[func_ir.entry]
    condition = entry.terminator.cond.name
    for label in entry.successors():
        first = func_ir.blocks[label].body[0]
        assert isinstance(first, ir.Del) and first.name == condition


def test_every_variable_is_deleted_on_every_path():
    """No variable outlives the function (a branch condition included); a `del` of a variable
    already deleted on this path is harmless, as lowering empties a deleted variable."""

    def loops(n):
        total = 0
        for i in range(n):
            if i % 2:
                continue
            total += i
        return total

    func_ir = _ir_of(loops)

    def walk(label, alive, seen):
        block = func_ir.blocks[label]
        for stmt in block.body:
            if isinstance(stmt, ir.Del):
                alive = alive - {stmt.name}
            else:
                alive = alive | {v.name for v in stmt.targets()}
        if not block.successors():
            returned = {v.name for v in block.terminator.sources()}
            assert alive <= returned, (label, alive)
        for succ in block.successors():
            if (succ, frozenset(alive)) not in seen:
                seen.add((succ, frozenset(alive)))
                walk(succ, alive, seen)

    walk(func_ir.entry, frozenset(), set())
