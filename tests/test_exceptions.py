"""Issue 10 (exceptions): try/except/else/finally, raising with run-time arguments, exceptions
from callees and from the runtime, checked differentially against CPython (`py_func`): the
same return value, or the same exception class and `.args`.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import same

import ember
from ember import njit
from ember.errors import EmberError, UnsupportedError


class AppError(Exception):
    """A user-defined exception class at module level."""


class DetailError(AppError):
    pass


def outcome(func, *args):
    """('value', result) or ('raises', class, args)."""
    try:
        result = func(*args)
    except EmberError:
        raise
    except Exception as exc:  # noqa: BLE001 - the outcome is what is compared
        return ("raises", type(exc), exc.args)
    return ("value", result.item() if isinstance(result, np.generic) else result)


def assert_same_outcome(jitted, *args):
    expected = outcome(jitted.py_func, *args)
    got = outcome(jitted, *args)
    if expected[0] == "value" and got[0] == "value":
        assert same(got[1], expected[1]), (args, got, expected)
    else:
        assert got[0] == expected[0] and got[1] is expected[1], (args, got, expected)
        assert len(got[2]) == len(expected[2])
        assert all(same(a, b) for a, b in zip(got[2], expected[2])), (got, expected)


# ---------------------------------------------------------------------------- functions


@njit
def divide_or_flag(a, b):
    try:
        x = a / b
    except ZeroDivisionError:
        x = -1.0
    return x


@njit
def floor_divide_else_finally(a, b):
    log = 0
    try:
        x = a // b
    except (IndexError, ArithmeticError):
        x = -1
        log += 1
    else:
        x += 1
        log += 10
    finally:
        log += 100
    return x * 1000 + log


@njit
def modulo_bare_except(a, b):
    try:
        return a % b
    except:  # noqa: E722 - the bare clause is what is tested
        return -7


@njit
def catch_exception_base(a, b):
    try:
        return a // b
    except Exception:
        return 0


@njit
def unmatched_propagates(a, b):
    try:
        return a // b
    except IndexError:
        return -1


@njit(boundscheck=True)
def array_lookup(a, i):
    try:
        return a[i]
    except LookupError:
        return -1.0


@njit
def list_lookup(n, i):
    xs = [0]
    xs.pop()
    for k in range(n):
        xs.append(k * 2)
    try:
        return xs[i]
    except IndexError:
        return -1


@njit
def negative_shape(n):
    try:
        return np.zeros(n).size
    except ValueError:
        return -1


@njit
def finally_on_return_break_continue(n, stop):
    total = 0
    for i in range(n):
        try:
            if i == stop:
                break
            if i % 3 == 0:
                continue
            if i == 100:
                return total
            total += i
        finally:
            total += 1000
    return total


@njit
def try_in_loop(n, d):
    total = 0
    for v in range(7, 7 + n):
        try:
            total += v // d
        except ZeroDivisionError:
            total -= 1
        d -= 1
    return total


@njit
def nested(a, b, c):
    try:
        try:
            x = a // b
        except ZeroDivisionError:
            x = 10 // c
        finally:
            a += 1
    except ZeroDivisionError:
        x = -a
    return x


@njit
def try_in_handler(a, b):
    try:
        return a // b
    except ZeroDivisionError:
        try:
            return b // a
        except ZeroDivisionError:
            return -99


@njit
def reraise_bare(a, b):
    try:
        return a // b
    except ZeroDivisionError:
        a = -a
        raise


@njit
def reraise_bound(a, b):
    try:
        return a // b
    except ZeroDivisionError as e:
        raise e


@njit
def raise_with_values(x, y):
    if x > y:
        raise ValueError("too big", x, y * 0.5, x > 2 * y)
    return x


@njit
def raise_from_none(x):
    try:
        return 10 // x
    except ZeroDivisionError:
        raise AppError("no zero", x) from None


@njit
def calls_raiser(x, y):
    try:
        return raise_with_values(x, y)
    except ValueError:
        return -1


@njit
def raise_user_error(x):
    if x < 0:
        raise DetailError("negative", x)
    if x == 0:
        raise AppError
    return x


@njit
def catch_user_error(x):
    try:
        return raise_user_error(x)
    except DetailError:
        return -2
    except AppError:
        return -1


@njit
def raise_and_catch_in_place(x):
    try:
        if x > 3:
            raise KeyError(x)
        if x < -3:
            raise AppError("low", x)
        r = x
    except KeyError:
        r = 100
    except Exception:
        r = 200
    return r


@njit
def handler_falls_out_of_loop(n):
    total = 0
    i = 0
    while i < n:
        try:
            total += 12 // (i - 2)
        except ZeroDivisionError:
            break
        i += 1
    return total + i * 1000


@njit
def uncaught_in_finally_propagates(a, b):
    out = 0
    try:
        out = a // b
    finally:
        out += 1
    return out


@njit
def raise_one_of_two(x):
    if x > 0:
        e = ValueError("positive", x)
    else:
        e = KeyError(x)
    try:
        raise e
    except KeyError:
        return -1


@njit
def try_around_loop(n):
    s = 0
    try:
        for i in range(n):
            s += 10 // (i - 3)
    except ZeroDivisionError:
        s = -s
    return s


@njit
def try_in_array_loop(a, d):
    s = 0
    for x in a:  # the iterator stays on the stack through the handler
        try:
            s += int(x) // d
            d -= 1
        except ZeroDivisionError:
            s += 1000
            d = 5
    return s


@njit
def args_of_local_raises(x, y):
    try:
        if x > y:
            raise ValueError("out of range", x, y * 0.5)
        if x < 0:
            raise ValueError("out of range", 2 * x, 1.5)
        return 0.0
    except ValueError as e:
        return e.args[1] + e.args[2] + len(e.args)


@njit
def args_of_second_clause(x):
    try:
        if x > 3:
            raise KeyError(x)
        if x < -3:
            raise AppError("low", x, x > -10)
        return 10 // x
    except KeyError as e:
        return e.args[0] * 100
    except AppError as e:
        return e.args[1] * 1000 + e.args[2]
    except ZeroDivisionError:
        return -1


@njit
def raises_like_local(x):
    raise ValueError("out of range", x, 0.25)


@njit
def args_from_callee_of_same_shape(x, y):
    try:
        if x > y:
            raise ValueError("out of range", x, y * 0.5)
        raises_like_local(x)
        return 0.0
    except ValueError as e:
        return e.args[1] + e.args[2]


@njit
def return_in_finally(a, b):
    try:
        return a // b
    finally:
        if b == 0:
            return -5  # noqa: B012 - swallowing the exception is what is tested


@njit
def break_in_finally(n):
    s = 0
    for i in range(n):
        try:
            s += 10 // (3 - i)
        finally:
            if i == 3:
                break  # noqa: B012
    return s


@njit
def recursive_raise_and_catch(n):
    if n == 0:
        raise ValueError("bottom", n)
    try:
        return recursive_raise_and_catch(n - 1) + 1
    except ValueError:
        if n % 2:
            raise
        return 100


@njit
def handler_raises_another(a):
    try:
        return 10 // a
    except ZeroDivisionError:
        raise ValueError("converted", a)  # noqa: B904


@njit
def classes_from_a_variable(a):
    errors = (ZeroDivisionError, KeyError)
    try:
        return 10 // a
    except errors:
        return -1


@njit
def args_through_nested_try(x, n):
    try:
        try:
            raise ValueError("inner", x)
        except KeyError:
            return -1
    except ValueError as e:
        return e.args[1] // n  # a ZeroDivisionError here leaves the handler


# ---------------------------------------------------------------------------- differential


CASES = [
    (divide_or_flag, [(1.0, 2.0), (1.0, 0.0), (-3.0, 0.0), (0.0, 0.0)]),
    (floor_divide_else_finally, [(7, 2), (7, 0), (-7, 3)]),
    (modulo_bare_except, [(7, 3), (7, 0)]),
    (catch_exception_base, [(9, 4), (9, 0)]),
    (unmatched_propagates, [(9, 4), (9, 0)]),
    (array_lookup, [(np.arange(4.0), 2), (np.arange(4.0), 4), (np.arange(4.0), -5)]),
    (list_lookup, [(4, 1), (4, 4), (4, -4), (4, -5)]),
    (negative_shape, [(3,), (-3,)]),
    (finally_on_return_break_continue, [(10, 7), (10, 20), (200, 150)]),
    (try_in_loop, [(4, 2), (3, 5), (0, 0)]),
    (nested, [(7, 2, 3), (7, 0, 3), (7, 0, 0)]),
    (try_in_handler, [(7, 2), (7, 0), (0, 0)]),
    (reraise_bare, [(7, 2), (7, 0)]),
    (reraise_bound, [(7, 2), (7, 0)]),
    (raise_with_values, [(1, 5), (9, 3), (5, 3)]),
    (raise_from_none, [(5,), (0,)]),
    (calls_raiser, [(1, 5), (9, 3)]),
    (raise_user_error, [(3,), (0,), (-4,)]),
    (catch_user_error, [(3,), (0,), (-4,)]),
    (raise_and_catch_in_place, [(0,), (5,), (-5,)]),
    (handler_falls_out_of_loop, [(2,), (6,)]),
    (uncaught_in_finally_propagates, [(7, 2), (7, 0)]),
    (raise_one_of_two, [(3,), (-3,)]),
    (try_around_loop, [(2,), (6,)]),
    (args_of_local_raises, [(5, 3), (-5, 3), (1, 3)]),
    (return_in_finally, [(4, 2), (4, 0)]),
    (args_through_nested_try, [(7, 2), (7, 0)]),
    (break_in_finally, [(6,), (2,)]),
    (recursive_raise_and_catch, [(0,), (1,), (2,), (3,)]),
    (handler_raises_another, [(2,), (0,)]),
    (classes_from_a_variable, [(2,), (0,)]),
    (args_of_second_clause, [(5,), (-5,), (-20,), (0,), (2,)]),
    (args_from_callee_of_same_shape, [(5, 3), (1, 3)]),
    (try_in_array_loop, [(np.arange(8), 3), (np.arange(3), 9)]),
]


@pytest.mark.parametrize(
    ("func", "args"),
    [(func, args) for func, arg_list in CASES for args in arg_list],
    ids=lambda value: getattr(value, "__name__", None),
)
def test_same_outcome_as_cpython(func, args):
    assert_same_outcome(func, *args)


def test_runtime_argument_values_reach_python():
    with pytest.raises(ValueError) as info:
        raise_with_values(9, 3)
    assert info.value.args == ("too big", 9, 1.5, True)
    assert type(info.value.args[1]) is int and type(info.value.args[3]) is bool


def test_user_defined_class_reaches_python():
    with pytest.raises(DetailError) as info:
        raise_user_error(-4)
    assert info.value.args == ("negative", -4)


@settings(max_examples=60, deadline=None)
@given(st.integers(-50, 50), st.integers(-3, 3), st.integers(-3, 3))
def test_nested_handlers_hypothesis(a, b, c):
    assert_same_outcome(nested, a, b, c)
    assert_same_outcome(floor_divide_else_finally, a, b)
    assert_same_outcome(try_in_handler, b, c)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 8), st.integers(-12, 12))
def test_index_in_and_out_of_range_hypothesis(n, i):
    assert_same_outcome(array_lookup, np.arange(float(n)), i)
    assert_same_outcome(list_lookup, n, i)


@settings(max_examples=60, deadline=None)
@given(st.integers(-10, 10), st.floats(-10, 10, allow_nan=False))
def test_raise_with_values_hypothesis(x, y):
    assert_same_outcome(raise_with_values, x, y)
    assert_same_outcome(calls_raiser, x, y)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 30), st.integers(0, 30))
def test_finally_paths_hypothesis(n, stop):
    assert_same_outcome(finally_on_return_break_continue, n, stop)


# ---------------------------------------------------------------------------- memory


@njit(boundscheck=True)
def arrays_in_try_body(n, i):
    a = np.ones(n)
    try:
        b = np.zeros(n) + a
        c = b * 2.0
        v = c[i]
        if v > 1.0:
            raise ValueError("big", v, i)
    except IndexError:
        v = -1.0
    return v + a[0]


def test_nothing_leaks_after_10k_raises_and_catches():
    for i in range(-4, 4):  # compile and warm up
        outcome(arrays_in_try_body, 3, i)
    before = ember.runtime.stats()
    caught = 0
    for k in range(10_000):
        try:
            arrays_in_try_body(3, k % 8 - 4)
        except ValueError as exc:
            assert exc.args[0] == "big"
            caught += 1
    after = ember.runtime.stats()
    assert caught == 10_000 * 6 // 8
    assert after.live == before.live
    assert after.alloc - before.alloc >= 10_000 * 2  # the arrays were allocated


def test_payload_of_caught_exceptions_is_freed():
    before = ember.runtime.stats()
    for k in range(10_000):
        assert calls_raiser(k % 7, 3) == (k % 7 if k % 7 <= 3 else -1)
    assert ember.runtime.stats().live == before.live


# ---------------------------------------------------------------------------- unsupported


def with_statement(n):
    with open(__file__):
        return n


def exception_group(n):
    try:
        n += 1
    except* ValueError:
        n = 0
    return n


@pytest.mark.parametrize(
    ("func", "hint"),
    [(with_statement, "try/finally"), (exception_group, "plain 'except'")],
)
def test_unsupported_handler_constructs_say_what_to_write(func, hint):
    with pytest.raises(UnsupportedError) as info:
        njit(func)(1)
    assert hint in str(info.value)


def test_except_needs_exception_classes():
    def bad(n):
        try:
            return 1 // n
        except n:
            return 0

    with pytest.raises(EmberError, match="must name exception classes"):
        njit(bad)(1)


@settings(max_examples=60, deadline=None)
@given(st.integers(-30, 30), st.integers(-30, 30))
def test_args_of_caught_exceptions_hypothesis(x, y):
    assert_same_outcome(args_of_local_raises, x, y)
    assert_same_outcome(args_of_second_clause, x)


def test_args_read_in_handlers_leak_nothing():
    before = ember.runtime.stats()
    for k in range(10_000):
        args_of_local_raises(k % 9 - 4, 2)
    assert ember.runtime.stats().live == before.live


def test_args_of_exception_from_runtime_in_the_try_body_are_read():
    def reads_args(n):
        try:
            return 1 // n
        except ZeroDivisionError as e:
            return len(e.args)

    assert [njit(reads_args)(n) for n in (0, 1, 3)] == [reads_args(n) for n in (0, 1, 3)]


def test_args_of_raises_with_different_arguments_is_a_clear_compile_error():
    def reads_args(n):
        try:
            if n > 0:
                raise ValueError("a", n)
            raise ValueError(1.5, 2.5, 3.5)
        except ValueError as e:
            return len(e.args)

    with pytest.raises(UnsupportedError, match="give different arguments"):
        njit(reads_args)(1)


@njit
def raises_other_shape(x):
    raise ValueError("other", 1.5, 2.5, 3.5)


@njit
def args_from_callee_of_other_shape(x):
    try:
        if x > 0:
            raise ValueError("mine", x)
        raises_other_shape(x)
        return 0
    except ValueError as e:
        return e.args[1]


def test_args_of_exception_of_another_shape_raise_type_error_at_run_time():
    assert args_from_callee_of_other_shape(4) == 4
    with pytest.raises(TypeError, match="cannot be read in compiled code"):
        args_from_callee_of_other_shape(-1)
