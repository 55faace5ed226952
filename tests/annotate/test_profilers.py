"""Profilers and debuggers see jitted code: `EMBER_PERF_MAP=1` perf map entries at the real
addresses (and `perf report` naming the function), `EMBER_DEBUGINFO=1` line tables that gdb
uses to stop on a Python line."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ember.codegen.elf_object import ElfObject

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    import numpy as np
    from ember import njit
    @njit
    def hot_loop(n):
        s = 0.0
        for i in range(n):
            s += np.sin(i * 0.5) * np.cos(i * 0.25)
        return s
    hot_loop(3)
    hot_loop(int(sys.argv[1]))
    (result,) = hot_loop.overloads.values()
    print(json.dumps({"symbol": result.symbol, "address": result.address, "pid": os.getpid()}))
    """
)
LOOP_LINE = 9  # `s += ...`: where gdb must stop


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("profilers") / "hot.py"
    path.write_text(SCRIPT)
    return path


def _run(command: list[str], **variables: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": ROOT, **variables}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def _perf_map(pid: int) -> list[tuple[int, int, str]]:
    with open(f"/tmp/perf-{pid}.map") as lines:
        entries = [line.rstrip("\n").split(" ", 2) for line in lines]
    _remove_profiler_files(pid)
    return [(int(start, 16), int(size, 16), name) for start, size, name in entries]


def _remove_profiler_files(pid: int) -> None:
    for path in [
        f"/tmp/perf-{pid}.map",
        f"/tmp/jit-{pid}.dump",
        *glob.glob(f"/tmp/jitted-{pid}-*"),
    ]:
        if os.path.exists(path):
            os.unlink(path)


def test_perf_map_lists_every_jitted_function_at_its_address(script):
    # (the native call entry at the second call, so that the map lists it too)
    done = _run(
        [sys.executable, str(script), "10"], EMBER_PERF_MAP="1", EMBER_CALLS_BEFORE_ENTRY="1"
    )
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.splitlines()[-1])
    entries = _perf_map(facts["pid"])
    by_name = {name: (start, size) for start, size, name in entries}
    start, size = by_name[facts["symbol"]]
    assert start == facts["address"]
    assert 16 < size < 65536
    assert "ember_nrt_allocate" not in by_name or by_name["ember_nrt_allocate"][1] > 0
    assert any(name.startswith("ember.entry.hot_loop") for name in by_name)  # the call entry
    spans = sorted((start, start + size) for start, size, _ in entries)
    assert all(end <= after for (_, end), (after, _) in zip(spans, spans[1:]))  # no overlap


def test_no_perf_map_unless_asked(script):
    done = _run([sys.executable, str(script), "10"])
    assert done.returncode == 0, done.stderr
    pid = json.loads(done.stdout)["pid"]
    assert not os.path.exists(f"/tmp/perf-{pid}.map")
    assert not os.path.exists(f"/tmp/jit-{pid}.dump")


def test_elf_symbol_sizes_agree_with_readelf():
    if shutil.which("readelf") is None:
        pytest.skip("readelf is not installed (Debian: apt-get install binutils)")
    from ember import njit
    from ember.codegen.jit import engine

    function = njit(lambda x: x * 2.5 + 1.0)
    function(1.0)
    (result,) = function.overloads.values()
    elf = engine().target_machine.emit_object(result.library._linkable.clone())
    ours = {s.name: s.size for s in ElfObject(elf).function_symbols()}
    path = f"/tmp/ember-test-{os.getpid()}.o"
    with open(path, "wb") as out:
        out.write(elf)
    listing = subprocess.run(["readelf", "-sW", path], capture_output=True, text=True).stdout
    os.unlink(path)
    theirs = {
        fields[7]: int(fields[2], 0 if fields[2].startswith("0x") else 10)
        for fields in (line.split() for line in listing.splitlines())
        if len(fields) >= 8 and fields[3] == "FUNC" and fields[6] != "UND"
    }
    assert ours == theirs and result.symbol in ours


def _perf_can_record() -> str | None:
    if shutil.which("perf") is None:
        return "perf is not installed (Debian: apt-get install linux-perf)"
    probe = subprocess.run(
        ["perf", "record", "-q", "-o", os.devnull, "--", "true"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        return f"perf cannot record here: {probe.stderr.strip()[:200]}"
    return None


def test_perf_report_names_the_jitted_function_and_annotates_its_lines(script, tmp_path):
    reason = _perf_can_record()
    if reason:
        pytest.skip(reason)
    data, injected = tmp_path / "perf.data", tmp_path / "perf.jit.data"
    command = ["perf", "record", "-q", "-k", "1", "-o", str(data), "--"]
    done = _run([*command, sys.executable, str(script), "8000000"], EMBER_PERF_MAP="1",
                EMBER_DEBUGINFO="1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.splitlines()[-1])
    try:
        report = _perf("report", "-i", str(data), "--stdio", "--sort", "sym")
        assert facts["symbol"] in report  # named through the perf map
        _perf("inject", "--jit", "-i", str(data), "-o", str(injected))
        annotated = _perf("annotate", "-i", str(injected), "--stdio", "-s", facts["symbol"])
    finally:
        _remove_profiler_files(facts["pid"])
    source_line = SCRIPT.splitlines()[LOOP_LINE - 1].strip()
    assert f"{LOOP_LINE}   {source_line}" in annotated  # the jitdump's Python lines


def _perf(*args: str) -> str:
    done = subprocess.run(["perf", *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_gdb_stops_on_a_python_line_of_jitted_code(script):
    if shutil.which("gdb") is None:
        pytest.skip("gdb is not installed (Debian: apt-get install gdb)")
    done = _run(
        [
            "gdb", "-batch", "-nx", "-iex", "set auto-load safe-path /nonexistent",
            "-ex", f"set environment PYTHONPATH={ROOT}",
            "-ex", "set environment EMBER_DEBUGINFO=1",
            "-ex", "set breakpoint pending on",
            "-ex", f"break {script.name}:{LOOP_LINE}",
            "-ex", "run", "-ex", "bt 1", "-ex", "kill",
            "--args", sys.executable, str(script), "10",
        ]
    )  # fmt: skip
    if "hit Breakpoint" not in done.stdout and "ptrace" in done.stdout + done.stderr:
        pytest.skip(f"gdb cannot trace processes here: {done.stderr.strip()[-200:]}")
    assert f"hot_loop$1.int64 () at {script}:{LOOP_LINE}" in done.stdout, done.stdout[-2000:]


def test_debug_line_table_in_the_object_code():
    """Without gdb: the DWARF of the object code names the Python file and lines."""
    from ember import njit
    from ember.codegen.jit import engine

    def scaled(x):
        y = x * 2.5
        return y + 1.0

    function = njit(debug=True)(scaled)
    assert function(2.0) == scaled(2.0)
    (result,) = function.overloads.values()
    optimized = result.library.optimized_ir
    first = scaled.__code__.co_firstlineno
    assert f"!DILocation(line: {first + 1}," in optimized
    assert f"!DILocation(line: {first + 2}," in optimized
    assert "DW_LANG_Python" in optimized
    elf = engine().target_machine.emit_object(result.library._linkable.clone())
    assert b".debug_line" in elf and os.path.basename(__file__).encode() in elf


def test_line_table_reader_agrees_with_llvm_dwarfdump():
    if shutil.which("llvm-dwarfdump") is None:
        pytest.skip("llvm-dwarfdump is not installed (Debian: apt-get install llvm)")
    from ember import njit
    from ember.codegen.elf_object import ElfObject
    from ember.codegen.jit import engine

    def clipped(a, low):
        total = 0.0
        for x in a:
            total += max(x, low)
        return total

    function = njit(debug=True)(clipped)
    values = np.linspace(-1.0, 1.0, 11)
    assert function(values, 0.0) == clipped(values, 0.0)
    (result,) = function.overloads.values()
    elf = engine().target_machine.emit_object(result.library._linkable.clone())
    path = f"/tmp/ember-test-{os.getpid()}.o"
    with open(path, "wb") as out:
        out.write(elf)
    listing = subprocess.run(["llvm-dwarfdump", "--debug-line", path], capture_output=True,
                             text=True).stdout  # fmt: skip
    os.unlink(path)
    theirs = []
    for line in listing.splitlines():
        fields = line.split()
        if fields and fields[0].startswith("0x000") and "end_sequence" not in line:
            theirs.append((int(fields[0], 16), int(fields[1])))
    ours = [(row.offset, row.line) for row in ElfObject(elf).line_rows()]
    assert ours == theirs
    first = clipped.__code__.co_firstlineno
    assert {first + 3, first + 4} <= {line for _, line in ours}
    assert {row.file for row in ElfObject(elf).line_rows()} == {os.path.abspath(__file__)}
