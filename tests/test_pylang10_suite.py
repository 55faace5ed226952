"""pylang10: isinstance() of values whose type only typing knows (array items, computed
locals) decides its branch as Numba does; `e.args` of exceptions the runtime raises in the
try body; namedtuple `_replace` and `_fields`; loop lifting in object mode. Every result is
compared with CPython running the py_func."""

from __future__ import annotations

import math
from collections import namedtuple
from typing import NamedTuple

import numpy as np
import pytest

from ember import jit, njit, typed, types
from ember.errors import TypingError, UnsupportedError
from tests.oracle import assert_frees_all

# ---------------------------------------------------------------- isinstance decided by typing


def _better(v, w, want_max):
    return v > w if want_max else v < w


better = njit(_better)


def group_extreme(group_idx, a, size, want_max):
    """numpy-groupies' min/max: complex values compare by magnitude (`v > w` of complex
    numbers does not type, so the branch for reals must be dropped for complex arrays)."""
    ret = np.zeros(size, dtype=a.dtype)
    seen = np.zeros(size, dtype=np.bool_)
    for i in range(group_idx.size):
        g = group_idx[i]
        v = a[i]
        if not seen[g]:
            ret[g] = v
            seen[g] = True
        elif size <= 8 and not isinstance(a[i], complex):
            if better(v, ret[g], want_max):
                ret[g] = v
        elif isinstance(v, complex):
            if better(abs(v), abs(ret[g]), want_max):
                ret[g] = v
        else:
            ret[g] = ret[g] + v
    return ret


def test_isinstance_of_array_items_drops_the_branch_that_cannot_type():
    jitted = njit(group_extreme)
    groups = np.array([0, 1, 0, 2, 1, 2, 2, 9])
    arrays = [
        np.array([3, -1, 7, 2, 8, 0, 5, -4]),
        np.array([0.5, -2.5, 1.5, np.inf, 3.0, -1.0, 2.0, np.nan]),
        np.array([1 + 1j, -2j, 3, 0.5j, 1 - 1j, 2, -3 + 4j, 0j]),
        np.array([], dtype=np.complex128),
    ]
    for a in arrays:
        g = groups[: a.size]
        for size, want_max in [(10, True), (10, False), (12, True)]:
            expected = group_extreme(g, a, size, want_max)
            np.testing.assert_array_equal(jitted(g, a, size, want_max), expected)


def kind_of_double(x):
    y = x * 2
    if isinstance(y, (int, np.int64)):
        return y // 3
    elif isinstance(y, float):
        return int(y * 10)
    return int(y.real)


def test_dead_isinstance_branches_do_not_widen_the_result_type():
    # `y // 3` of a float typed in a dead branch would make the result a float
    jitted = njit(kind_of_double)
    for x in [7, -7, 0, 2**40, 2.25, -0.75, 1.5 + 2j, -3j]:
        got, expected = jitted(x), kind_of_double(x)
        assert (got, type(got)) == (expected, type(expected))


def total_of(a, k):
    total = a[0] * 0
    for i in range(a.size):
        v = a[i] * k
        if isinstance(v, complex):
            total += v.conjugate() * v
        elif isinstance(v, float) and v != v:
            continue
        else:
            total += v
    return total


def test_isinstance_of_computed_locals_in_a_loop():
    jitted = njit(total_of)
    for a in [
        np.array([1, -2, 3]),
        np.array([1.5, np.nan, -2.0]),
        np.array([1 + 2j, 3 - 1j]),
        np.array([2**62, 1]),  # wraps as int64 does in both
    ]:
        for k in [2, -1]:
            got, expected = jitted(a, k), total_of(a, k)
            assert got == expected  # (NumPy scalars come back as Python numbers)
            assert isinstance(got, complex) == isinstance(expected, complex)


def reassigned_then_tested(a):
    x = 0
    count = 0
    for i in range(a.size):
        if isinstance(x, int):
            count += 1
        else:
            count += len(x)
        x = a[i]
    return count


def test_isinstance_of_a_variable_that_widens_is_not_decided_by_its_first_type():
    # typing sees `x = 0` (int) first; the float it holds later must not prune `len(x)` away
    with pytest.raises(TypingError, match="len"):
        njit(reassigned_then_tested)(np.array([1.5, 2.5]))


# ---------------------------------------------------------------- e.args of run-time raises


def divide_all(num, den):
    out = 0
    bad = 0
    for i in range(len(num)):
        try:
            out += num[i] // den[i]
        except ZeroDivisionError as e:
            bad += len(e.args) + len(e.args[0])
    return out, bad


def missing_keys(table, keys):
    found = 0
    missing = 0
    for k in keys:
        try:
            found += table[k]
        except KeyError as e:
            missing += e.args[0]
    return found, missing


def own_or_runtime(x, items):
    try:
        if x < 0:
            raise ValueError("negative")
        return items[x] + 100 // x
    except (ValueError, ZeroDivisionError, IndexError) as e:
        return len(e.args[0])


def test_e_args_of_exceptions_the_runtime_raises_in_the_try_body():
    # CPython's messages differ from ember's runtime ones: compare what does not depend on
    # the wording (how many args, the key of a KeyError)
    num, den = [7, 8, -9, 1], [2, 0, 4, 0]
    out, bad = njit(divide_all)(typed.List(num), typed.List(den))
    assert out == divide_all(num, den)[0]
    assert bad == 2 * (1 + len("integer division or modulo by zero"))
    table = typed.Dict.empty(types.int64, types.int64)
    for k in (1, 2, 3):
        table[k] = 10 * k
    keys = np.array([1, 5, 3, 9, -4])
    assert njit(missing_keys)(table, keys) == missing_keys(dict(table), keys)
    jitted = njit(own_or_runtime)
    items = typed.List([1, 2, 3])
    assert jitted(-1, items) == own_or_runtime(-1, [1, 2, 3])  # own raise: "negative"
    assert jitted(2, items) == own_or_runtime(2, [1, 2, 3])
    assert jitted(0, items) == len("integer division or modulo by zero")
    assert jitted(7, items) == len("list index out of range")


def parse_ints(text):
    total = 0
    for token in text.split():
        try:
            total += int(token)
        except ValueError as e:
            total -= 1000 * len(e.args) + len(e.args[0])
    return total


def test_e_args_of_exceptions_library_calls_raise():
    # int(s) raises ValueError with one message (CPython's text: the token's repr counts)
    jitted = njit(parse_ints)
    for text in ["1 2 x 4", "", "-3 abc +7 9z", "12"]:
        assert jitted(text) == parse_ints(text)


def reraise_after_many(xs):
    total = 0
    for x in xs:
        try:
            if x % 5 == 0:
                raise ValueError(x)
            total += x
        except ValueError:
            if x > 20:
                raise
            total -= 1
    return total


def test_reraise_in_a_loop_raises_the_caught_exception():
    jitted = njit(reraise_after_many)
    for xs in [np.array([1, 5, 7, 10]), np.array([], dtype=np.int64), np.array([-5, 3])]:
        assert jitted(xs) == reraise_after_many(xs)
    with pytest.raises(ValueError) as raised:
        jitted(np.array([1, 25, 3]))
    assert raised.value.args == (25,)


# ---------------------------------------------------------------- namedtuple _replace/_fields

Particle = namedtuple("Particle", ["x", "v", "m"])


class Spin(NamedTuple):
    up: int
    weight: float = 2.5


def step(p, dt, k):
    force = -k * p.x
    v = p.v + dt * force / p.m
    return p._replace(x=p.x + dt * v, v=v)


def replaced(p, s):
    q = p._replace(v=7)  # an int where a float was: the field's type changes, as in CPython
    return q, q._replace(x=-1, m=None), s._replace(weight=0.25), p._replace(), p._fields, s._fields


def test_namedtuple_replace_and_fields():
    jitted = njit(replaced)
    for p in [Particle(1.0, 2.0, 3.0), Particle(-0.5, 0.0, 1e300)]:
        for s in [Spin(4), Spin(-1, 7.5)]:
            got, expected = jitted(p, s), replaced(p, s)
            assert got == expected
            assert [type(v) for v in got[0]] == [type(v) for v in expected[0]]
            assert type(got[2]) is Spin and type(got[0]) is Particle
    stepper = njit(step)
    p, q = Particle(1.0, 0.0, 2.0), Particle(1.0, 0.0, 2.0)
    for _ in range(50):
        p, q = stepper(p, 0.01, 4.0), step(q, 0.01, 4.0)
    assert p == q


def as_dict(p):
    d = p._asdict()
    return d["y"], len(d), list(d.keys()), sum(d.values())


def test_namedtuple_asdict_of_fields_of_one_type():
    Vec = namedtuple("Vec", "x y z")
    jitted = njit(as_dict)
    for v in [Vec(1.0, 2.0, 3.0), Vec(-0.5, float("inf"), 0.0)]:
        assert jitted(v) == as_dict(v)
    with pytest.raises(TypingError, match="different types"):
        jitted(Vec(1, 2.0, 3))


def test_replace_of_an_unknown_field_is_a_typing_error():
    def bad(p):
        return p._replace(w=1)

    with pytest.raises(TypingError, match="_replace"):
        njit(bad)(Particle(1.0, 2.0, 3.0))


def test_replace_frees_what_it_allocates():
    Holder = namedtuple("Holder", ["data", "scale"])

    @njit
    def rescale(h):
        return h._replace(data=h.data * h.scale).data.sum()

    assert rescale(Holder(np.arange(4.0), 2.0)) == 12.0
    assert_frees_all(rescale, lambda: Holder(np.arange(5.0), 3.0))


# ---------------------------------------------------------------- object mode, lifted loops


class Recorder:
    def __init__(self):
        self.events = []

    def note(self, what, value):
        self.events.append(f"{what}={value:.3f}")


def relax(grid, sweeps):
    rec = Recorder()  # a Python object: the function runs in object mode, its loop lifted
    n = grid.shape[0]
    for _ in range(sweeps):
        change = 0.0
        for i in range(1, n - 1):
            new = 0.5 * (grid[i - 1] + grid[i + 1])
            change += abs(new - grid[i])
            grid[i] = new
        rec.note("sweep", change)
    return grid, rec.events


def collatz_longest(limit):
    lengths = {}
    for start in range(1, limit):
        n, steps = start, 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        lengths[start] = steps
    longest = max(lengths.values()) if lengths else 0
    return longest, [k for k, v in lengths.items() if v == longest]


def test_object_mode_functions_with_lifted_loops_match_cpython():
    jitted = jit(forceobj=True)(relax)
    for grid, sweeps in [([0.0, 5.0, 1.0, 3.0, 10.0], 4), ([1.0, 2.0], 3), ([0.0, 9.0, 0.0], 0)]:
        got = jitted(np.array(grid), sweeps)
        expected = relax(np.array(grid), sweeps)
        np.testing.assert_allclose(got[0], expected[0])
        assert got[1] == expected[1]
    counted = jit(forceobj=True)(collatz_longest)
    for limit in [1, 2, 30, 100]:
        assert counted(limit) == collatz_longest(limit)
    assert math.isclose(jitted(np.array([0.0, 4.0, 0.0]), 1)[0][1], 0.0)


# ---------------------------------------------------------------- imports inside the function


def imports_inside(a, x):
    import math
    from math import cos, sin

    import numpy.linalg
    from numpy import linalg as la

    total = 0.0
    for i in range(a.size):
        total += sin(a[i]) * cos(x) + math.sqrt(abs(a[i]))
    return total + la.norm(a) - numpy.linalg.norm(a)


def test_import_statements_in_a_function_import_while_compiling():
    jitted = njit(imports_inside)
    for a, x in [(np.arange(4.0), 0.5), (np.array([-2.0, 9.0]), -1.0), (np.empty(0), 0.0)]:
        assert math.isclose(jitted(a, x), imports_inside(a, x), rel_tol=1e-12, abs_tol=1e-12)


def test_a_failed_import_says_when_imports_happen():
    def required():
        import not_a_module_pylang10  # noqa: F401

        return 1

    with pytest.raises(UnsupportedError, match="module level"):
        njit(required)()

    def optional():  # in a try body it raises when it runs (pylang11), as in CPython
        try:
            import not_a_module_pylang10  # noqa: F401
        except ImportError:
            return -1
        return 1

    assert njit(optional)() == optional() == -1


# ---------------------------------------------------------------- isinstance of an Optional


def maybe_doubled(x, limit):
    y = x if x > limit else None
    if isinstance(y, int):
        return y * 2
    if y is None:
        return -1
    return -2


def maybe_scaled(x):
    y = x * 1.5 if x > 0 else None
    return isinstance(y, float), isinstance(y, (int, complex)), isinstance(y, str)


def test_isinstance_of_an_optional_value_is_decided_at_run_time():
    doubled = njit(maybe_doubled)
    for x in [3, -3, 0, 2**40]:
        for limit in [0, 5]:
            assert doubled(x, limit) == maybe_doubled(x, limit)
    scaled = njit(maybe_scaled)
    for x in [2.0, -1.0, 0.0, float("nan")]:
        assert scaled(x) == maybe_scaled(x)


def lifted_with_python_call(x, step):
    a = x[::step]
    c = 1
    for k in range(a.size):
        object()  # keeps the lifted loop in object mode
        c = c * a[::-1][k]
    return c


def test_a_lifted_loop_in_object_mode_lists_the_types_it_ran_for():
    jitted = jit(forceobj=True)(lifted_with_python_call)
    x = np.arange(1, 8)
    assert jitted(x, 1) == lifted_with_python_call(x, 1)
    (loop,) = jitted.overloads[jitted.signatures[0]].lifted
    assert len(loop.signatures) == 1
    assert jitted(x, -2) == lifted_with_python_call(x, -2)  # a non-contiguous array
    assert jitted(x, 1) == lifted_with_python_call(x, 1)
    assert len(loop.signatures) == 2


def test_inspect_types_lists_the_lifted_loops_by_line():
    import io

    def two_loops(x):
        Recorder()
        for i in range(x.size):
            x[i] += 1
        for j in range(x.size):
            x[j] *= 2
        return x

    jitted = jit(forceobj=True)(two_loops)
    np.testing.assert_array_equal(jitted(np.arange(4)), two_loops(np.arange(4)))
    out = io.StringIO()
    jitted.inspect_types(file=out)
    first = two_loops.__code__.co_firstlineno
    text = out.getvalue()
    assert "The function contains lifted loops" in text
    assert f"Loop at line {first + 2}" in text and f"Loop at line {first + 4}" in text
    assert text.count("Has 1 overloads") == 2
