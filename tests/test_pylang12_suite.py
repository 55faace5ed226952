"""pylang12: generators that return values (StopIteration.value, `r = yield from g()`),
closing a generator suspended inside a `try`, tuple() of generator expressions over tuples,
and inner functions used as values with run-time default values. Each result is checked
against CPython running the same source (the py_func, or a plain Python twin)."""

import numpy as np
import pytest

from ember import njit
from ember.errors import TypingError
from tests.oracle import assert_frees_all

# ---------------------------------------------------------------------------- return values


@njit
def running_total(n):
    total = 0
    for i in range(n):
        total += i
        yield i
    return total


@njit
def list_result(n):
    yield -1
    return [i * i for i in range(n)]


@njit
def maybe_result(n):
    yield 0
    if n > 2:
        return n * 10
    # falls off the end: None


@njit
def delegating(n):
    r = yield from running_total(n)
    yield r * 100
    s = yield from maybe_result(n)
    yield -1 if s is None else s
    yield from range(2)  # not a generator: its value is None


@njit
def sum_delegating(n):
    return [v for v in delegating(n)]


def _drain(gen):
    """(items, StopIteration.value) of a generator."""
    items = []
    while True:
        try:
            items.append(next(gen))
        except StopIteration as stop:
            return items, stop.value


def test_stop_iteration_value_and_yield_from_value_match_cpython():
    for n in (0, 1, 3, 6):
        for gen in (running_total, list_result, maybe_result):
            assert _drain(gen(n)) == _drain(gen.py_func(n))
        # the py_func delegates to the jitted generators: their StopIteration carries the value
        assert sum_delegating(n) == sum_delegating.py_func(n)
        assert list(delegating(n)) == list(delegating.py_func(n))
    assert_frees_all(sum_delegating, lambda: 5)
    assert_frees_all(lambda n: _drain(list_result(n)), lambda: 4)


def test_returned_value_unification_is_checked():
    def mixed(n):
        yield 1
        if n:
            return "text"
        return 2

    with pytest.raises(TypingError, match="every return statement must give compatible types"):
        list(njit(mixed)(1))


# ---------------------------------------------------------------------------- closing


def _logged_loop(n, log):
    try:
        for i in range(n):  # noqa: UP028 - a loop suspended inside the try
            yield i
    finally:
        log.append(-1)


def _logged_items(n, log):
    for i in range(n):
        try:
            yield i * 2
        except Exception:  # GeneratorExit is no Exception: not caught here
            log.append(-5)
        finally:
            log.append(i)


def _stubborn(n, log):
    try:
        yield n
        yield n + 1
    except GeneratorExit:
        log.append(99)
        yield -1  # ignores GeneratorExit


def _consume_until(gen_func, n, stop):
    log = [0]
    total = 0
    for v in gen_func(n, log):
        total += v
        if v == stop:
            break
    return total, log


logged_loop, logged_items = njit(_logged_loop), njit(_logged_items)


@njit
def consume_logged_loop(n, stop):
    log = [0]
    total = 0
    for v in logged_loop(n, log):
        total += v
        if v == stop:
            break
    return total, log


@njit
def consume_logged_items(n, stop):
    log = [0]
    total = 0
    for v in logged_items(n, log):
        total += v
        if v == stop:
            break
    return total, log


def test_closing_a_generator_inside_try_runs_its_finally():
    for n in (0, 1, 3, 5):
        for stop in (0, 2, 4, 100):
            assert consume_logged_loop(n, stop) == _consume_until(_logged_loop, n, stop)
            assert consume_logged_items(n, stop) == _consume_until(_logged_items, n, stop)
    assert_frees_all(consume_logged_loop, lambda: 5, lambda: 2)
    for make in (stubborn, _stubborn):
        gen = make(3, [0])
        assert next(gen) == 3
        with pytest.raises(RuntimeError, match="ignored GeneratorExit"):
            gen.close()
        gen.close()  # closed: nothing more happens


def _raises_in_finally(n):
    try:
        yield n
    finally:
        raise ValueError("in finally")


stubborn, raises_in_finally = njit(_stubborn), njit(_raises_in_finally)


@njit
def close_in_compiled_code(n):
    log = [0]
    it = logged_loop(n, log)
    first = next(it, -1)
    it.close()
    after = next(it, -7)
    again = stubborn(n, log)
    next(again)
    try:
        again.close()
        ignored = 0
    except RuntimeError:
        ignored = 1
    failing = raises_in_finally(n)
    next(failing)
    try:
        failing.close()
        message = ""
    except ValueError as e:
        message = str(e)
    unstarted = raises_in_finally(n)
    unstarted.close()  # never started: its finally does not run
    return first, after, log, ignored, message, next(unstarted, -9)


def _close_in_python(n):
    log = [0]
    it = _logged_loop(n, log)
    first = next(it, -1)
    it.close()
    after = next(it, -7)
    again = _stubborn(n, log)
    next(again)
    try:
        again.close()
        ignored = 0
    except RuntimeError:
        ignored = 1
    failing = _raises_in_finally(n)
    next(failing)
    try:
        failing.close()
        message = ""
    except ValueError as e:
        message = str(e)
    unstarted = _raises_in_finally(n)
    unstarted.close()
    return first, after, log, ignored, message, next(unstarted, -9)


def test_generator_close_in_compiled_code_matches_cpython():
    for n in (0, 3):
        assert close_in_compiled_code(n) == _close_in_python(n)
    assert_frees_all(close_in_compiled_code, lambda: 3)


# ---------------------------------------------------------------------------- tuple(genexpr)


@njit
def tuples_of_generator_expressions(t, u, k):
    squares = tuple(x * x for x in t)
    products = tuple(x * y for x, y in zip(t, u))
    numbered = tuple(i - v for i, v in enumerate(t))
    chosen = tuple(x + k if x > 1 else -x for x in t)
    nested = tuple(sum(w for w in t) + x for x in u)
    transposed = tuple(zip(*(t, t)))
    return squares, products, numbered, chosen, nested, tuple(v for v in ()), transposed


def test_tuple_of_a_generator_expression_over_tuples_matches_cpython():
    cases = [((1, 2, 3), (4.0, 5.0, 6.5), 10), ((-7,), (0.5, 1.5), -3), ((0, 0), (2.0,), 0)]
    for t, u, k in cases:
        got = tuples_of_generator_expressions(t, u, k)
        expected = tuples_of_generator_expressions.py_func(t, u, k)
        assert got == expected
        assert [type(v) for part in got for v in part] == [
            type(v) for part in expected for v in part
        ]


def test_tuple_of_a_filtered_generator_expression_is_refused():
    @njit
    def filtered(t):
        return tuple(x for x in t if x > 1)

    with pytest.raises(TypingError, match="known only when the code runs"):
        filtered((1, 2, 3))


# ---------------------------------------------------------------------------- closures


@njit
def closures_with_run_time_defaults(x, scale):
    adders = [lambda v, k=k: v + k for k in range(4)]
    scaled = []
    for k in range(3):
        scaled.append(lambda v, k=k, s=scale: v * s + k)
    return (
        [f(x) for f in adders],
        [f(x) for f in scaled],
        scaled[1](x, 10),
        scaled[2](x, s=-1.0),
        sorted([3, -1, 2], key=adders[2]),
    )


@njit
def returns_closure_with_default(base):
    return lambda v, k=base * 2: v - k


@njit
def array_defaults(a):
    fs = [lambda v, w=a * k: (v * w).sum() for k in range(3)]
    return [f(2.0) for f in fs]


def test_closures_with_run_time_defaults_match_cpython():
    for x, scale in ((10, 3.0), (-4, 0.5), (0, -2.0)):
        got = closures_with_run_time_defaults(x, scale)
        assert got == closures_with_run_time_defaults.py_func(x, scale)
    f, expected = returns_closure_with_default(7), returns_closure_with_default.py_func(7)
    assert [f(1), f(1, 100), f(v=5), f(5, k=1)] == [
        expected(1),
        expected(1, 100),
        expected(v=5),
        expected(5, k=1),
    ]
    assert array_defaults(np.arange(3.0)) == array_defaults.py_func(np.arange(3.0))
    assert_frees_all(array_defaults, lambda: np.ones(4))


# ---------------------------------------------------------------------------- sent values


def _averager(limit):
    total, count = 0.0, 0
    while count < limit:
        value = yield total
        if value is None:  # always, in compiled code (and under next() in CPython)
            value = 1.0
        total += value
        count += 1


def test_yield_values_are_none_and_uses_that_need_more_say_so():
    averager = njit(_averager)
    for limit in (0, 1, 4):
        assert list(averager(limit)) == list(_averager(limit))

    def summing(n):
        total = 0.0
        while True:
            value = yield total
            total += value

    with pytest.raises(TypingError, match="value of a `yield` expression is always None"):
        next(njit(summing)(1))


def test_numba_core_types_submodules_are_embers_own():
    import ember.core.types.containers as containers

    from ember import types

    assert containers.UniTuple is types.UniTuple  # (a copy of the module made other classes)

    @njit
    def first_items(arrays):
        total = 0
        for a in arrays:
            total += a[0]
        return total

    arrays = (np.arange(2, 5, dtype=np.int32), np.arange(7, 9, dtype=np.int32))
    tuple_type = containers.UniTuple(types.Array(types.int32, 1, "C"), 2)
    assert first_items.compile((tuple_type,)) is not None
    assert first_items(arrays) == first_items.py_func(arrays)


# ---------------------------------------------------------------------------- reflected lists


def _appending(n, log):
    try:
        for i in range(n):
            log.append(i * 10)
            yield len(log)
        log.append(-2)
    finally:
        log.append(-1)


appending = njit(_appending)


def _observe(gen_func, n, stop):
    """The items, and the list Python passed once the loop over the generator is done."""
    log = [7]
    seen = []
    for v in gen_func(n, log):
        seen.append(v)
        if v == stop:
            break
    return seen, log


def test_lists_passed_from_python_to_a_generator_see_its_changes():
    for n, stop in ((0, 0), (3, 100), (4, 3)):
        assert _observe(appending, n, stop) == _observe(_appending, n, stop)
    log, expected_log = [1], [1]
    gen, expected = appending(2, log), _appending(2, expected_log)
    assert next(gen) == next(expected)
    gen.close()  # its finally appends
    expected.close()
    assert log == expected_log
    log, expected_log = [1], [1]
    assert list(appending(3, log)) == list(_appending(3, expected_log))
    assert log == expected_log  # written back when the generator object goes
    assert_frees_all(lambda n: _observe(appending, n, 2), lambda: 4)
