"""pylang11: the name of `except E as e:` is unbound after its handler (reading it raises
UnboundLocalError, and an earlier value of another type under that name no longer meets the
exception). Every result is compared with CPython running the py_func."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

from ember import jit, njit, prange
from ember.errors import TypingError
from tests.oracle import assert_frees_all
from tests.parallel.parallel_helpers import parfor_count


def _outcome(func, *args):
    """What calling `func` gives: ("ok", value) or ("raised", exception class, message)."""
    try:
        return ("ok", func(*args))
    except Exception as error:  # noqa: BLE001 - the exception is the outcome compared
        return ("raised", type(error), str(error))


def _assert_same_outcomes(jitted, cases):
    for args in cases:
        assert _outcome(jitted, *args) == _outcome(jitted.py_func, *args), args


# ---------------------------------------------------------------- the handler's name after it


def handler_name_read_after(x):
    try:
        if x > 0:
            raise ValueError("positive")
    except ValueError as e:  # noqa: F841
        pass
    return e  # noqa: F821 - unbound after the handler (CPython deletes it)


def handler_name_rebinds_earlier_value(xs):
    e = 0
    for v in xs:
        e += v
    try:
        if e > 3:
            raise ValueError("big")
    except ValueError as e:  # noqa: F841
        pass
    return e


def handler_name_in_a_loop(xs):
    total = 0
    for x in xs:
        try:
            if x % 3 == 0:
                raise KeyError("three")
            total += x
        except KeyError as e:
            total += len(str(e)) * 100
    return total


def two_handlers_one_name(x):
    try:
        if x:
            raise ValueError("aa")
        a = "none"
    except ValueError as e:
        a = str(e)
    try:
        raise KeyError("bbb")
    except KeyError as e:
        b = str(e)
    return a + b


def test_the_name_of_an_except_clause_is_unbound_after_its_handler():
    _assert_same_outcomes(njit(handler_name_read_after), [(1,), (0,), (-5,)])
    _assert_same_outcomes(
        njit(handler_name_rebinds_earlier_value), [([1, 2],), ([1, 2, 3],), ([0],), ([-4, 9],)]
    )
    _assert_same_outcomes(njit(handler_name_in_a_loop), [([1, 2, 3, 4, 6],), ([5],)])
    _assert_same_outcomes(njit(two_handlers_one_name), [(0,), (1,)])
    _assert_same_outcomes(jit(forceobj=True)(handler_name_read_after), [(1,), (0,)])


def test_handlers_in_a_loop_free_what_they_make():
    jitted = njit(handler_name_in_a_loop)
    assert_frees_all(jitted, lambda: [1, 3, 6, 7])


# ---------------------------------------------------------------- namedtuple _replace keywords

Pair = namedtuple("Pair", ["x", "y"])


def test_replace_takes_fields_by_keyword_only():
    @njit
    def by_keyword(p):
        return p._replace(y=p.x * 1.5), p._replace(y=-1, x=3)

    p = Pair(2, 7)
    assert by_keyword(p) == by_keyword.py_func(p)

    @njit
    def by_position(p):
        return p._replace(5)

    with pytest.raises(TypeError):
        by_position.py_func(p)  # CPython: _replace() takes 1 positional argument
    with pytest.raises(TypingError, match="_replace"):
        by_position(p)


# ---------------------------------------------------------------- exception classes as values


def raise_chosen_class(c, x):
    E = ValueError if c > 0 else (KeyError if c == 0 else IndexError)
    if x > 1.0:
        raise E("bad", x)
    return x


def catch_chosen_class(c):
    E = ValueError if c else KeyError
    try:
        raise E("m", 3)
    except ValueError as e:
        return e.args[1] * 10
    except KeyError as e:
        return e.args[1]


def raise_chosen_bare(c):
    E = ZeroDivisionError if c else OverflowError
    try:
        raise E
    except ZeroDivisionError:
        return 1
    except ArithmeticError:
        return 2


def chosen_class_in_a_loop(xs):
    out = 0
    for x in xs:
        E = ZeroDivisionError if x == 0 else OverflowError
        try:
            if x < 2:
                raise E(x)
            out += x
        except ZeroDivisionError:
            out += 100
        except ArithmeticError as e:
            out += 1000 * e.args[0]
    return out


def return_chosen_class(c):
    return ValueError if c else KeyError


@njit
def index_or_raise(k):
    if k:
        raise ValueError("callee")
    return [1][5]


def except_a_chosen_class(c, k, s):
    E = ValueError if c else LookupError
    try:
        if k == 2:
            return int(s)
        if k == 3:
            raise KeyError(k)
        return index_or_raise(k)
    except (ZeroDivisionError, E):
        return -1
    except Exception:
        return -2


def test_an_exception_class_chosen_at_run_time_is_raised_and_caught():
    raising = njit(raise_chosen_class)
    _assert_same_outcomes(raising, [(c, x) for c in (1, 0, -1) for x in (0.5, 2.5)])
    _assert_same_outcomes(njit(catch_chosen_class), [(True,), (False,)])
    _assert_same_outcomes(njit(raise_chosen_bare), [(True,), (False,)])
    _assert_same_outcomes(njit(chosen_class_in_a_loop), [([0, 1, 2, 3],), ([5, 1, 1],)])
    _assert_same_outcomes(njit(return_chosen_class), [(True,), (False,)])
    cases = [(c, k, s) for c in (True, False) for k in range(4) for s in ("x", "12")]
    _assert_same_outcomes(njit(except_a_chosen_class), cases)
    assert_frees_all(lambda c: _outcome(raising, c, 2.5), lambda: 1)


# ---------------------------------------------------------------- NoneType as a class

NoneType = type(None)


def none_class_checks(x):
    y = None if x < 0 else x
    return (
        isinstance(y, type(None)),
        isinstance(y, NoneType),
        isinstance(y, (int, NoneType)),
        isinstance(x, NoneType),
        isinstance(None, NoneType),
    )


def test_nonetype_is_a_class_for_isinstance():
    _assert_same_outcomes(njit(none_class_checks), [(-1,), (0,), (5,)])


# ---------------------------------------------------------------- parallel functions


def unbound_after_prange(n, c):
    if c:
        k = 3.0
    a = np.zeros(n)
    for i in prange(n):
        a[i] = i * 0.5
    for j in range(n // 2):  # noqa: B007 - read after the loop
        pass
    return a.sum() * k + j  # noqa: F821 - k and j may be unbound, as in CPython


def test_unbound_reads_outside_prange_loops_raise():
    jitted = njit(parallel=True)(unbound_after_prange)
    _assert_same_outcomes(jitted, [(6, True), (6, False), (1, True), (0, True)])
    assert parfor_count(jitted) == 1  # the flags do not keep the loop from running in parallel


# ---------------------------------------------------------------- starred names only spread


def rotations(t):
    *init, last = t
    first, *rest = t
    return (last, *init), (*rest, first), len(rest)


def spread_into_a_call(t):
    a, *mid, z = t
    total = 0
    for v in mid:
        total += v
    return combine(*mid), total, (z, *mid, a)


@njit
def combine(x, y):
    return x * 10 + y


def starred_name_mutated(t):
    first, *rest = t
    rest.append(first)
    return rest, rest[1:]


def test_a_starred_name_that_is_only_spread_keeps_a_tuple_length():
    _assert_same_outcomes(njit(rotations), [((1, 2, 3),), ((1, 2.5, "x"),), ((7,),)])
    _assert_same_outcomes(njit(spread_into_a_call), [((1, 2, 3, 4),)])
    _assert_same_outcomes(njit(starred_name_mutated), [((1, 2, 3),), ((4,),)])


# ---------------------------------------------------------------- free variables read unassigned


def free_variable_read_early(n):
    def shifted(v):
        return v + z

    if n > 0:
        z = 5
    total = 0
    for i in range(3):
        total += shifted(i)
    return total


def inner_local_read_early(n):
    def clipped(v):
        if v > 0:
            w = v
        return w

    return clipped(n)


def test_a_free_variable_read_unassigned_is_a_name_error():
    _assert_same_outcomes(njit(free_variable_read_early), [(1,), (0,)])
    _assert_same_outcomes(njit(inner_local_read_early), [(1,), (0,), (-2,)])


# ---------------------------------------------------------------- imports that fail in a try body


def optional_import(x):
    try:
        from ember_pylang11_no_such_module import fast_path  # noqa: PLC0415

        y = fast_path(x)
    except ImportError:
        y = x * 2
    return y


def optional_name(x):
    try:
        from math import no_such_function  # noqa: F401, PLC0415
    except ImportError:
        return x + 0.5
    return x


def module_not_found_first(x):
    try:
        import ember_pylang11_no_such_module  # noqa: F401, PLC0415

        return 1
    except ModuleNotFoundError:
        return 2
    except ImportError:
        return 3


def import_error_not_caught(x):
    try:
        import ember_pylang11_no_such_module  # noqa: F401, PLC0415
    except ValueError:
        return 1
    return 2


def test_a_failed_import_in_a_try_body_raises_when_it_runs():
    for func in (optional_import, optional_name, module_not_found_first, import_error_not_caught):
        _assert_same_outcomes(njit(func), [(4,)])
