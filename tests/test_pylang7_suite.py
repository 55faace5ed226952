"""pylang7: language-core features found by running realistic programs: spreads into list
displays, loops over an empty *args tuple, `del` of a local, run-time indexes into tuples of
literals, match statements with sequence patterns, a generator's handlers publishing their
exception, and the refusals of globals()/locals()/**kwargs saying what to do instead."""

from __future__ import annotations

import numpy as np
import pytest

from ember import njit
from ember.errors import TypingError, UnsupportedError
from tests.oracle import assert_frees_all


def _outcome(func, *args):
    """What calling `func` gives: its value, or the exception's class and text."""
    try:
        return func(*args)
    except Exception as error:  # noqa: BLE001 - compared between CPython and ember
        return type(error), str(error)


def _same_as_python(py_func, arg_sets):
    jitted = njit(py_func)
    for args in arg_sets:
        assert _outcome(jitted, *args) == _outcome(py_func, *args), args


# ---------------------------------------------------------------- spreads into list displays


def _spread_displays(t, u, a):
    chosen = [*t] if len(t) > 2 else [9]
    return [*t, 4, *t], [0.5, *u, 1.5, *a], chosen


def test_spreads_into_list_displays_match_python():
    jitted = njit(_spread_displays)
    for t, u, a in [
        ((1, 2, 3), (1.0, 2.0), np.arange(2.0)),
        ((7, 8, 9), (2.5, -1.0), np.arange(0.0)),
        ((-7, 0, 2), (0.5, 0.0), np.array([-3.5])),
    ]:
        got, expected = jitted(t, u, a), _spread_displays(t, u, a)
        assert got == expected


# ---------------------------------------------------------------- loops over empty *args


def _total(*xs):
    s = 0
    for x in xs:
        s += x
    else:
        s += 100
    return s


def test_a_loop_over_an_empty_star_args_tuple_runs_no_iteration():
    total = njit(_total)

    @njit
    def call_total(a, b, c):
        return total(a, b, c), total(), total(a), total(a, c)

    for args in [(1, 2, 3), (-4, 0, 9), (2**40, -(2**40), 1)]:
        a, b, c = args
        assert call_total(*args) == (_total(a, b, c), _total(), _total(a), _total(a, c))

    @njit
    def enumerated_empty():
        s = 0
        for i, x in enumerate(()):
            s += i * x
        return s

    assert enumerated_empty() == 0


# ---------------------------------------------------------------- del of a local


def _del_then_return(x):
    y = x * 2
    del y
    return x


def _del_on_one_path(x):
    y = x * 2
    if x > 0:
        del y
    return y


def _del_of_maybe_unbound(x):
    if x > 0:
        y = 1
    del y
    return x


def _del_in_loop(n):
    t = 0
    for i in range(n):
        v = i * 2
        t += v
        del v
    return t


def _del_twice(x):
    y = x
    del y
    del y  # noqa: F821 - the second del raises UnboundLocalError, as in CPython
    return x


def _del_inside_try(x):
    y = x + 1
    try:
        del y
        if x > 0:
            raise ValueError("v")
        y = 5
    except ValueError:
        return y  # unbound when the handler runs: the try body deleted it
    return y


@pytest.mark.parametrize(
    "py_func",
    [
        _del_then_return,
        _del_on_one_path,
        _del_of_maybe_unbound,
        _del_in_loop,
        _del_twice,
        _del_inside_try,
    ],
)
def test_del_of_a_local_unbinds_it_as_cpython_does(py_func):
    _same_as_python(py_func, [(3,), (-1,), (0,), (7,)])


def test_del_of_an_array_then_rebinding_frees_everything():
    @njit
    def rebind(n):
        a = np.ones(n)
        s = a.sum()
        del a
        a = np.zeros(2) + s
        return a.sum()

    assert rebind(5) == 10.0
    assert_frees_all(rebind, lambda: 8)


# ---------------------------------------------------------------- tuples of literals


NAMES = ("alpha", "be", "c")
COUNTS = (1, 2, 3)


def _index_literal_tuples(i):
    local = ("x", "yy", "zzz")
    return NAMES[i], COUNTS[i], local[-i - 1], len(NAMES[i] + local[i])


def test_a_run_time_index_into_a_tuple_of_literals_of_one_type():
    _same_as_python(_index_literal_tuples, [(0,), (1,), (2,), (-1,), (-3,)])


# ---------------------------------------------------------------- refusals that say what to do


def test_globals_locals_and_eval_refusals_say_what_to_do():
    @njit
    def uses_globals():
        return globals()

    @njit
    def uses_locals(x):
        return locals()

    @njit
    def uses_eval(x):
        return eval("x + 1")

    with pytest.raises(TypingError, match=r"globals\(\) is not supported.*read a global"):
        uses_globals()
    with pytest.raises(TypingError, match=r"locals\(\) is not supported.*dict or tuple"):
        uses_locals(1)
    with pytest.raises(TypingError, match=r"eval\(\) is not supported.*source text"):
        uses_eval(1)


def test_kwargs_parameters_are_refused_the_same_way_with_or_without_keywords():
    @njit
    def takes_kwargs(x, **kw):
        return x

    for call in (lambda: takes_kwargs(1, y=2), lambda: takes_kwargs(1)):
        with pytest.raises(UnsupportedError, match=r"\*\*kwargs parameters.*typed Dict"):
            call()


# ---------------------------------------------------------------- match statements


def _match_tuple(t):
    match t:
        case (0, y):
            return y
        case (x, 0):
            return x * 100
        case (x, y, z):
            return x + y + z
        case [x, *rest]:
            return -x - len(rest)
        case _:
            return -1


def _match_display(a, b):
    match (a, b):
        case (0, 0):
            return "origin"
        case (0, _):
            return "y axis"
        case (_, 0):
            return "x axis"
        case _:
            return "plane"


def _match_list(xs):
    match xs:
        case [a, b]:
            return a + b
        case [a, *rest]:
            return a * 10 + len(rest)
        case []:
            return -5
    return -9


def _match_not_a_sequence(x):
    match x:
        case (a, _):
            return a
        case 3 | 4:
            return 30
        case n if n < 0:
            return -n
    return 0


def test_match_sequence_patterns_on_tuples():
    for t in [(0, 5), (3, 0), (0, 0), (3, 4), (-2, -7)]:
        assert njit(_match_tuple)(t) == _match_tuple(t)
    for t in [(1, 2, 3), (7,), (1, 2, 3, 4), ()]:  # one compilation per tuple length
        assert njit(_match_tuple)(t) == _match_tuple(t)


def test_match_sequence_patterns_on_displays_lists_and_non_sequences():
    _same_as_python(_match_display, [(0, 0), (0, 2), (3, 0), (1, 1), (-1, 0)])
    _same_as_python(_match_list, [([1, 2],), ([5, 6, 7],), ([4],), ([1, 2, 3, 4, 5],)])
    _same_as_python(_match_not_a_sequence, [(3,), (4,), (5,), (-8,), (0,)])
    _same_as_python(_match_not_a_sequence, [(1.5,), (-2.5,)])

    @njit
    def on_array(a):  # an array is no collections.abc.Sequence: no sequence pattern matches
        match a:
            case [x, y]:
                return x + y
        return -1

    assert on_array(np.arange(2)) == -1


# ---------------------------------------------------------------- generators' handlers


@njit
def _reraise_what_is_handled():
    raise


def _handler_calls_reraiser(xs, reraise):
    for x in xs:
        try:
            if x < 0:
                raise KeyError(x)
            yield x
        except KeyError:
            yield -100
            yield -200
            reraise()


def _python_reraise():
    raise


def _drain(gen):
    out = []
    try:
        for value in gen:
            out.append(int(value))
    except KeyError as error:
        out.append(("KeyError", int(error.args[0])))
    return out


def test_a_generators_handler_publishes_its_exception_across_yields():
    compiled = njit(_handler_calls_reraiser)
    for values in ([1, -1, 2], [3, 4], [-7], []):
        xs = np.array(values, dtype=np.int64)
        expected = _drain(_handler_calls_reraiser(values, _python_reraise))
        assert _drain(compiled(xs, _reraise_what_is_handled)) == expected


def test_a_consumer_handling_its_own_exception_between_resumes():
    compiled = njit(_handler_calls_reraiser)

    @njit
    def consumer(xs):
        g = compiled(xs, _reraise_what_is_handled)
        first = next(g)
        try:
            raise IndexError("the consumer's")
        except IndexError:
            second = next(g)
        try:
            next(g)
        except KeyError:
            return first, second, 1
        return first, second, 0

    assert consumer(np.array([-5])) == (-100, -200, 1)
    assert_frees_all(consumer, lambda: np.array([-5, 3]))


def test_a_bare_raise_in_a_generators_handler_and_in_its_callee():
    @njit
    def gen(xs):
        for x in xs:
            try:
                if x < 0:
                    raise ValueError("negative value")
                yield x
            except ValueError:
                _reraise_what_is_handled()

    with pytest.raises(ValueError, match="negative value"):
        list(gen(np.array([1, -1])))
    assert list(gen(np.array([1, 2]))) == [1, 2]


def test_a_tuple_growing_in_a_loop_is_refused_with_what_to_do():
    @njit
    def grows(n):
        t = ()
        for i in range(n):
            t += (i,)
        return t

    with pytest.raises(TypingError, match=r"length is part of its type.*use a list"):
        grows(3)


# ---------------------------------------------------------------- recursive closures


def _depth_first_count(adj, start):
    n = adj.shape[0]
    seen = np.zeros(n, dtype=np.bool_)

    def visit(u):
        seen[u] = True
        count = 1
        for v in range(n):
            if adj[u, v] and not seen[v]:
                count += visit(v)
        return count

    return visit(start), int(seen.sum())


def _offset_fibonacci(n, offset):
    def fib(m):
        return m + offset if m < 2 else fib(m - 1) + fib(m - 2)

    return fib(n)


def test_recursive_inner_functions_over_run_time_values():
    adjacency = np.array(
        [[0, 1, 0, 0, 0], [1, 0, 1, 0, 0], [0, 1, 0, 0, 1], [0, 0, 0, 0, 0], [0, 0, 1, 0, 0]]
    )
    jitted = njit(_depth_first_count)
    for start in range(5):
        assert jitted(adjacency, start) == _depth_first_count(adjacency, start)
    assert_frees_all(jitted, lambda: adjacency.copy(), lambda: 1)
    fib = njit(_offset_fibonacci)
    for n, offset in [(0, 0.5), (1, -2.0), (10, 0.25), (15, 3.0)]:
        assert fib(n, offset) == _offset_fibonacci(n, offset)


def _set_spreads(a, b):
    return {*a, *b}, {1, *a, 2}


def test_spreads_into_set_displays_match_python():
    jitted = njit(_set_spreads)
    for a, b in [((1, 2, 3), (3, 4)), ((5, -1), (-1, 7))]:
        assert jitted(a, b) == _set_spreads(a, b)


def _comprehension_over_mixed_tuple(t):
    return [str(v) for v in t], [len(str(v)) * 2 for v in t]


def test_a_comprehension_over_a_tuple_of_mixed_types_is_unrolled():
    _same_as_python(_comprehension_over_mixed_tuple, [((1, "a", 22),), ((-3, "bc", 0),)])

    @njit
    def apply_all(functions, x):
        return [f(x) for f in functions]

    @njit
    def closures(k):
        return apply_all((lambda x: x + k, lambda x: x * k), 3)

    assert closures(2) == [5, 6]
    assert closures(-4) == [-1, -12]


# ---------------------------------------------------------------- caching


HANDLER_MODULE = """
from ember import njit

@njit(cache=True)
def reraise_handled():
    raise

@njit(cache=True)
def handle(x):
    try:
        if x < 0:
            raise ValueError("negative")
        return x
    except (ValueError, KeyError):
        reraise_handled()
    return 0
"""


def test_a_handler_around_a_call_that_may_raise_a_python_exception_is_cacheable(tmp_path):
    """Its `except` clause matches Python-raised exceptions by class: builtin classes are
    found by symbol, not by this process's address."""
    import importlib
    import sys
    import warnings

    (tmp_path / "pylang7_handlers.py").write_text(HANDLER_MODULE)
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("pylang7_handlers")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert module.handle(3) == 3
            with pytest.raises(ValueError, match="negative"):
                module.handle(-1)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("pylang7_handlers", None)
    assert not [w for w in caught if "Cannot cache" in str(w.message)]


def test_tuple_of_a_run_time_length_is_refused_with_what_to_do():
    @njit
    def from_list(xs):
        return tuple(xs)

    @njit
    def from_generator(n):
        return tuple(x * x for x in range(n))

    for call in (lambda: from_list([1, 2]), lambda: from_generator(3)):
        with pytest.raises(TypingError, match=r"tuple\(\) of .*length is part of its type"):
            call()

    @njit
    def from_tuple(t):
        return tuple(t), tuple()

    assert from_tuple((1, 2.5)) == ((1, 2.5), ())


class _CodedError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def test_args_of_an_exception_whose_init_decides_them_are_its_own_not_the_raises():
    @njit
    def args_of_coded(x):
        try:
            raise _CodedError(x, "boom")
        except _CodedError as e:
            return e.args[0]

    assert args_of_coded(3) == args_of_coded.py_func(3) == "boom"  # (read from Python)

    @njit
    def message_of_coded(x):
        try:
            raise _CodedError(x, "boom")
        except _CodedError as e:
            return str(e)

    assert message_of_coded(3) == "boom"  # made by Python: CPython's text


def test_an_objmode_block_inside_an_inner_function_is_refused_by_name():
    from ember import objmode

    @njit
    def outer(x):
        def inner(v):
            with objmode(y="float64"):
                y = v * 2.0
            return y

        return inner(x)

    with pytest.raises(UnsupportedError, match=r"objmode block inside an inner function"):
        outer(1.0)
