"""pylang9: language-core features found by Numba's test modules and realistic programs:
objmode blocks of local functions kept in the disk cache across processes, Numba's IR-utility
names over ember's IR (compute_cfg_from_blocks, flatten_labels), `match` class and mapping
patterns, custom attributes of caught exceptions (`e.code`), generator expressions over tuples
of mixed types."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest

from ember import njit, typed, types
from ember.errors import TypingError, UnsupportedError
from ember.frontend.bytecode import ByteCode
from ember.frontend.interpreter import build_ir
from ember.ir import nodes
from ember.ir.numba_utils import compute_cfg_from_blocks, flatten_labels
from tests.oracle import assert_frees_all

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- objmode blocks in the cache

LOCAL_OBJMODE = """\
import json, warnings
import numpy as np
import ember

warnings.simplefilter("error")  # a refused cache entry warns


def make(k):
    def scaled(x):
        with ember.objmode(out="float64"):
            out = float(np.round(x / k, 3))
        return out + 1.0

    return scaled


results, hits = [], []
for k, x in [(7.0, 10.0), (3.0, 20.0), (7.0, -4.5)]:
    f = ember.njit(cache=True)(make(k))
    results.append([f(x), f.py_func(x)])
    hits.append(sum(f.stats.cache_hits.values()))
print(json.dumps({"results": results, "hits": hits}))
"""


def _run_twice(folder: Path, source: str) -> list[dict]:
    (folder / "driver.py").write_text(source)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("EMBER_")}
    environ.update(
        PYTHONPATH=str(ROOT),
        EMBER_CACHE_DIR=str(folder / "cache"),
        XDG_CACHE_HOME=str(folder / "user-cache"),
    )
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "driver.py"],
            cwd=folder,
            env=environ,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return runs


def test_objmode_blocks_of_local_functions_are_cached_across_processes(tmp_path):
    cold, warm = _run_twice(tmp_path, LOCAL_OBJMODE)
    expected = [round(10.0 / 7.0, 3) + 1.0, round(20.0 / 3.0, 3) + 1.0, round(-4.5 / 7.0, 3) + 1.0]
    for run in (cold, warm):
        assert [jitted for jitted, _ in run["results"]] == expected
        assert all(jitted == python for jitted, python in run["results"])
    # the third function has the first one's closure value: the same entry (in memory)
    assert cold["hits"] == [0, 0, 1]
    assert warm["hits"] == [1, 1, 1]


# ---------------------------------------------------------------- Numba's ir_utils names


def _branchy(n):
    total = 0
    for i in range(n):
        if i % 3:
            total += i
        else:
            total -= 1
    return total


def test_flatten_labels_and_the_cfg_of_blocks():
    code = ByteCode(_branchy)
    func_ir = build_ir(code, code.control_flow_graph())
    before = {label: block.successors() for label, block in func_ir.blocks.items()}
    order = sorted(func_ir.blocks)
    flat = flatten_labels(func_ir.blocks)
    assert sorted(flat) == list(range(len(order)))
    renamed = {old: new for new, old in enumerate(order)}
    for old, successors in before.items():
        block = flat[renamed[old]]
        assert block.label == renamed[old]
        assert block.successors() == [renamed[s] for s in successors]
    graph = compute_cfg_from_blocks(flat)
    (header,) = graph.loops()  # one loop: the for loop's header dominates its body
    loop = graph.loops()[header]
    assert all(header in graph.dominators()[node] for node in loop.body)
    returns = [label for label, block in flat.items() if isinstance(block.terminator, nodes.Return)]
    assert returns and all(not graph.successors(label) for label in returns)


# ---------------------------------------------------------------- match: class and mapping


Point = namedtuple("Point", ["x", "y"])
Pair = namedtuple("Pair", ["first", "second"])


def _outcome(func, *args):
    """What calling `func` gives: its value, or the exception's class and text."""
    try:
        return func(*args)
    except Exception as error:  # noqa: BLE001 - compared between CPython and ember
        return type(error), str(error)


def _describe(shape):
    match shape:
        case Point(x=0, y=0):
            return 0.0
        case Point(0, y):
            return y
        case Point(x, 0) if x < 0:
            return -x
        case Point(x=x, y=y):
            return x * y
        case Pair(a, b):
            return a - b
        case int(v):
            return v * 10.0
        case float():
            return -1.0
    return -2.0


def _total(points):
    total = 0.0
    for p in points:  # a loop variable: the subject's type is known only by typing
        match p:
            case Point(0.0, y):
                total += y
            case Point(x, y) if x > 0:
                total += x * y
            case _:
                total -= 1.0
    return total


def _kind_of_computed(x):
    y = x + 1  # computed: the cases are decided once typing knows y's type
    match y:
        case float():
            return 1.5
        case int(v):
            return v * 2.0
    return 0.0


def test_match_class_patterns_match_python():
    jitted = njit(_describe)
    cases = [Point(0, 0), Point(0, 7), Point(-3, 0), Point(3, 0), Point(2, 5), Point(-2, -5)]
    cases += [Pair(9, 4), 4, -3, 2.5, "text", (1, 2)]
    for value in cases:
        assert _outcome(jitted, value) == _outcome(_describe, value), value
    points = [Point(0.0, 2.0), Point(1.5, 2.0), Point(-1.0, 3.0), Point(0.0, -4.0)]
    assert njit(_total)(points) == _total(points) == 2.0 + 3.0 - 1.0 - 4.0
    instance_of = njit(lambda v: (isinstance(v, Point), isinstance(v, Pair), isinstance(v, tuple)))
    for value in (Point(1, 2), Pair(1.5, 2.5), (1, 2)):
        assert instance_of(value) == instance_of.py_func(value), value
    kind = njit(_kind_of_computed)
    for value in (3, -1, 2.5, -0.5):
        assert kind(value) == _kind_of_computed(value), value


def test_match_class_patterns_on_a_jitclass():
    from ember.experimental import jitclass

    @jitclass([("x", types.float64), ("y", types.float64)])
    class Vec:
        __match_args__ = ("x", "y")  # positional sub-patterns, as for a Python class

        def __init__(self, x, y):
            self.x = x
            self.y = y

    @njit
    def classify(v):
        match v:
            case Vec(0.0, y):
                return y
            case Vec(x=x, y=0.0):
                return -x
            case Vec(x, y):
                return x * y
        return 0.0

    expected = {(0.0, 3.0): 3.0, (2.0, 0.0): -2.0, (2.0, 3.0): 6.0, (-1.5, 4.0): -6.0}
    for (x, y), value in expected.items():
        assert classify(Vec(x, y)) == value, (x, y)


def _lookup(d):
    match d:
        case {"a": 1, "b": v}:
            return v
        case {"c": w, **others}:
            return w * 10 + len(others)
        case {}:
            return -1
    return -2


def test_match_mapping_patterns_match_python():
    jitted = njit(_lookup)
    for items in [{"a": 1, "b": 9}, {"a": 2, "b": 9}, {"c": 4}, {"c": 4, "a": 1, "z": 0}, {}]:
        d = typed.Dict.empty(types.unicode_type, types.int64)
        for key, value in items.items():
            d[key] = value
        assert jitted(d) == _lookup(items), items
    assert jitted(3) == _lookup(3) == -2  # not a mapping: no mapping pattern matches
    assert jitted((1, 2)) == _lookup((1, 2)) == -2


def test_match_patterns_that_cannot_compile_say_why():
    def too_many(p):
        match p:
            case Point(a, b, c):
                return a + b + c
        return 0

    with pytest.raises(UnsupportedError, match=r"Point\(\) accepts 2 positional sub-patterns"):
        njit(too_many)(Point(1, 2))

    class Plain:
        pass

    def plain(v):
        match v:
            case Plain():
                return 1
        return 0

    with pytest.raises(TypingError, match=r"class pattern Plain\(\.\.\.\)") as caught:
        njit(plain)(3)
    assert "line" in str(caught.value)


# ---------------------------------------------------------------- attributes of caught exceptions


class AppError(Exception):
    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


class ParseError(ValueError):
    def __init__(self, pos, text):
        super().__init__(f"bad input at {pos}: {text}")
        self.pos = pos
        self.text = text


@njit
def _checked_double(x):
    if x < 0:
        raise AppError("negative", 7)
    if x > 100:
        raise AppError("huge", x)
    return x * 2


def _code_or_value(x):
    try:
        return _checked_double(x)
    except AppError as e:
        return -e.code


@njit
def _parse_digits(s):
    n = 0
    for i in range(len(s)):
        digit = ord(s[i]) - 48
        if digit < 0 or digit > 9:
            raise ParseError(i, s[i])
        n = n * 10 + digit
    return n


def _parse_or_where(s):
    try:
        return _parse_digits(s), -1, ""
    except ParseError as e:
        return 0, e.pos, e.text + "!"


def _raised_here(x):
    try:
        if x > 3:
            raise AppError("big", x * 1.5)
        return 0.0
    except AppError as e:
        return e.code


def test_custom_attributes_of_caught_exceptions_match_python():
    code = njit(_code_or_value)
    for x in (3, 0, -3, 100, 101, 500, -(2**40)):
        assert code(x) == _code_or_value(x), x
    parse = njit(_parse_or_where)
    for s in ("123", "12x4", "", "x", "9" * 18 + "y"):
        assert parse(s) == _parse_or_where(s), s
    here = njit(_raised_here)
    for x in (5, 1, 3, 4):
        assert here(x) == _raised_here(x), x
    assert_frees_all(parse, lambda: "12x4")


@njit
def _too_big(x):
    if x > 2:
        raise ValueError("too big", x)
    return x


def _args_from_a_callee(x):
    try:
        return _too_big(x), "", 0
    except ValueError as e:
        return -1, e.args[0], e.args[1]


def _args_of_coded(x):
    try:
        raise AppError("boom", x)
    except AppError as e:
        return e.args, e.code


def test_args_of_exceptions_raised_by_callees_or_set_by_an_init_match_python():
    from_callee = njit(_args_from_a_callee)
    for x in (1, 2, 3, 50, -4):
        assert from_callee(x) == _args_from_a_callee(x), x
    coded = njit(_args_of_coded)
    for x in (3, -7):
        assert coded(x) == _args_of_coded(x) == (("boom",), x)


def test_an_attribute_no_caught_exception_has_is_refused_at_compile_time():
    def no_such(x):
        try:
            return _checked_double(x)
        except AppError as e:
            return e.severity

    with pytest.raises(
        UnsupportedError, match=r"'\.severity' of the caught exception \(AppError\)"
    ):
        njit(no_such)(1)


def test_numbas_type_submodule_names_reach_embers_types():
    from ember import types as ember_types

    assert ember_types.npytypes.Array is ember_types.Array
    assert ember_types.misc.Omitted is ember_types.Omitted
    assert ember_types.iterators.RangeIteratorType is ember_types.RangeIteratorType
    with pytest.raises(AttributeError):
        ember_types.no_such_submodule  # noqa: B018


def _maybe_point(flag):
    p = Point(1.5, 2.0) if flag else None  # Optional: the class test runs
    match p:
        case Point(x, y):
            return x * y
        case None:
            return -1.0
    return 0.0


def _maybe_int(flag):
    v = 3 if flag else None
    match v:
        case None:
            return -1
        case int(k):
            return k
    return 0


def _int_keys(d):
    match d:
        case {"a": v}:  # a string key in a dict of int keys: never there
            return v
        case {1: v, 2.0: w}:
            return v + w
        case {1.5: v}:
            return v
    return -1.0


def test_match_subjects_that_may_be_none_and_keys_of_other_types():
    for flag in (True, False):
        assert njit(_maybe_point)(flag) == _maybe_point(flag)
        assert njit(_maybe_int)(flag) == _maybe_int(flag)
    jitted = njit(_int_keys)
    for items in [{1: 1.5, 2: 2.5}, {1: 1.5}, {2: 4.0, 3: 1.0}]:
        d = typed.Dict.empty(types.int64, types.float64)
        for key, value in items.items():
            d[key] = value
        assert jitted(d) == _int_keys(items), items

    def maybe_pair(flag):
        t = (1, 2) if flag else None
        match t:
            case (a, b):
                return a + b
        return 0

    with pytest.raises(TypingError, match=r"sequence pattern of `match` on a value of type Opt"):
        njit(maybe_pair)(True)


def test_object_mode_functions_answer_numbas_cache_statistics():
    import warnings

    from ember import jit

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")

        @jit(forceobj=True, cache=True)
        def described(x):
            return [x, str(x)]

        assert described(3) == described.py_func(3) == [3, "3"]
    assert any("Cannot cache" in str(w.message) for w in seen)  # said once, clearly
    stats = described.stats
    assert stats.cache_hits == {} and stats.cache_misses == {} and stats.cache_path is None
    assert stats["object mode compilation"] > 0


def _over_mixed(t, arrays, k):
    return (
        sum(v * k for v in t if v > 1),
        any(isinstance(v, float) for v in t),
        sum(a.size for a in arrays),
        max(a.ndim for a in arrays),
    )


def test_generator_expressions_over_tuples_of_mixed_types_match_python():
    jitted = njit(_over_mixed)
    arrays = (np.ones(3), np.ones((2, 2)), np.arange(0.0))
    for t, k in [((1, 2.5, True), 2), ((3, 4, 5.0), -1), ((0, 1.0, False), 7)]:
        assert jitted(t, arrays, k) == _over_mixed(t, arrays, k), t
