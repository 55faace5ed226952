"""Functions as Python uses them: inner functions and lambdas (closures, `nonlocal`), jitted
functions passed as values and chosen at run time, mutual recursion, recursion under an explicit
signature, `*args` and keyword-only parameters. Checked against CPython (`py_func`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.runtime
from ember import TypingError, UnsupportedError, njit
from tests.oracle import jitted, same

SMALL_INTS = st.integers(min_value=-1000, max_value=1000)
FLOATS = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6)


def check(func, cases):
    for args in cases:
        expected = func(*args)
        got = jitted(func, args)(*args)
        assert same(got, expected), (func.__name__, args, got, expected)


# ---------------------------------------------------------------------------- closures


def reads_enclosing(n):
    k = n + 1

    def inner(x):
        return x * k

    total = 0
    for i in range(n):
        total += inner(i)
    return total


def sees_reassignment(n):
    k = 1

    def inner(x):
        return x + k

    first = inner(n)
    k = 100
    return first + inner(n)


def captured_in_loop(n):
    total = 0
    for step in range(n):

        def add_step(x):
            return x + step

        total = add_step(total)
    return total


def writes_nonlocal(n):
    total = 0

    def add(x):
        nonlocal total
        total += x

    for i in range(n):
        add(i * i)
    return total


def writes_two_nonlocals(n):
    count = 0
    total = 0.0

    def visit(value):
        nonlocal count, total
        count += 1
        total += value

    for i in range(n):
        if i % 3 != 0:
            visit(i * 0.5)
    return count, total


def with_defaults(n):
    def inner(x, y=5, z=0.5):
        return x + y * z

    return inner(n) + inner(n, 1) + inner(z=2.0, x=n)


def defaults_evaluated_at_def(n):
    k = n * 2

    def inner(x, y=k):
        return x + y

    k = 0
    return inner(n) + inner(n, 1) + k


def nested_closures(n):
    a = n

    def middle(x):
        b = x * 2

        def innermost(y):
            return y + a + b

        return innermost(1) + innermost(2)

    return middle(n) + middle(1)


def several_returns(x):
    def sign(v):
        if v > 0:
            return 1
        elif v < 0:
            return -1
        return 0

    return sign(x) * 10 + sign(-x)


def inner_with_loop(n):
    def triangle(m):
        t = 0
        for i in range(m):
            t += i
        return t

    s = 0
    for j in range(n):
        s += triangle(j)
    return s


def siblings(n):
    def first(x):
        return x + 1

    def second(x):
        return first(x) * 2

    return second(n) + first(n)


def inner_varargs(n):
    def count(*xs):
        return len(xs)

    return count(n, n, n) * 10 + count()


def int_and_float_calls(n):
    def half(x):
        return x / 2

    return half(n) + half(1.5)


def argument_cell(n):
    def bump():
        nonlocal n
        n += 1

    bump()
    bump()
    return n


@given(SMALL_INTS)
@settings(max_examples=40, deadline=None)
def test_closures_match_cpython_on_integers(n):
    small = abs(n) % 30
    check(reads_enclosing, [(small,)])
    check(sees_reassignment, [(n,)])
    check(captured_in_loop, [(small,)])
    check(writes_nonlocal, [(small,)])
    check(writes_two_nonlocals, [(small,)])
    check(defaults_evaluated_at_def, [(n,)])
    check(nested_closures, [(n,)])
    check(several_returns, [(n,)])
    check(int_and_float_calls, [(n,)])
    check(argument_cell, [(n,)])


@given(FLOATS)
@settings(max_examples=30, deadline=None)
def test_closures_match_cpython_on_floats(x):
    check(with_defaults, [(x,)])
    check(several_returns, [(x,)])
    check(sees_reassignment, [(x,)])


def test_closure_helpers_of_several_shapes():
    check(siblings, [(n,) for n in (-3, 0, 7)])
    check(inner_with_loop, [(n,) for n in (0, 1, 9)])
    check(inner_varargs, [(n,) for n in (0, 2)])
    check(several_returns, [(0,), (0.0,), (-0.0,)])


def lambdas(x, y):
    f = lambda a, b: a * b + x  # noqa: E731
    g = lambda: y  # noqa: E731
    return f(x, y) + f(1.5, 2) + g()


def immediately_called_lambda(x):
    return (lambda v: v * v)(x) + 1


def lambda_in_conditional_argument(c, x):
    f = lambda v: v + 1  # noqa: E731
    return f(x if c else -x)


@given(SMALL_INTS, SMALL_INTS)
@settings(max_examples=30, deadline=None)
def test_lambdas(x, y):
    check(lambdas, [(x, y), (x * 0.5, y)])
    check(immediately_called_lambda, [(x,)])
    check(lambda_in_conditional_argument, [(True, x), (False, y)])


def closure_over_array(a):
    scale = 2.0

    def scaled(i):
        return a[i] * scale

    total = 0.0
    for i in range(a.shape[0]):
        total += scaled(i)
    return total


def closure_making_arrays(a):
    def twice_plus(x):
        return x * 2 + a

    return twice_plus(a).sum() + twice_plus(a[::-1] * 0.5).sum()


def closure_writing_array(n):
    out = np.zeros(n)

    def put(i, value):
        out[i] = value

    for i in range(n):
        put(i, i * 1.5)
    return out


def test_closures_over_arrays():
    for a in (np.arange(10.0), np.linspace(-1, 1, 7), np.zeros(0)):
        for func in (closure_over_array, closure_making_arrays):
            assert njit(func)(a) == pytest.approx(float(func(a)), rel=1e-15)
    np.testing.assert_array_equal(njit(closure_writing_array)(6), closure_writing_array(6))


def test_closures_capturing_arrays_leak_nothing():
    over = njit(closure_over_array)
    making = njit(closure_making_arrays)
    writing = njit(closure_writing_array)
    a = np.arange(16.0)
    over(a), making(a), writing(4)  # compile first
    before = ember.runtime.stats()
    for _ in range(10_000):
        over(a)
        making(a)
        writing(4)
    after = ember.runtime.stats()
    assert after.alloc - before.alloc >= 10_000 * 4  # the arrays really were made
    assert after.live == before.live


def raises_inside_inner(n):
    def check_positive(x):
        if x < 0:
            raise ValueError("negative")
        return x

    return check_positive(n) + 1


def test_exception_inside_inner_function():
    jitted = njit(raises_inside_inner)
    assert jitted(3) == 4
    with pytest.raises(ValueError, match="negative"):
        jitted(-1)


@njit
def apply(f, x):
    return f(x)


@njit
def apply_twice(f, x):
    return f(f(x))


@njit
def passes_closures(n):
    k = 3

    def add_k(x):
        return x + k

    return apply(add_k, n) * 100 + apply_twice(lambda z: z * k, n)


@njit
def passes_nonlocal_writer(n):
    calls = 0

    def counted(x):
        nonlocal calls
        calls += 1
        return x - 1

    return apply_twice(counted, n) + calls * 1000


def test_inner_functions_passed_to_jitted_functions():
    for n in (-5, 0, 4):
        assert passes_closures(n) == (n + 3) * 100 + n * 9
        assert passes_nonlocal_writer(n) == n - 2 + 2000


def returns_inner(n):
    def inner(x):
        nonlocal n
        n += x
        return n

    return inner


def lambda_or_number(c, n):
    f = (lambda x: x + 1) if c else n
    return f(n)


@pytest.mark.parametrize(
    ("func", "args", "error", "message"),
    [
        (returns_inner, (1,), TypingError, "non-constant value associated with variable 'n'"),
        (lambda_or_number, (True, 1), UnsupportedError, "holds an inner function on some paths"),
    ],
)
def test_unsupported_uses_of_inner_functions_say_so(func, args, error, message):
    with pytest.raises(error, match=message) as caught:
        njit(func)(*args)
    assert f"line {func.__code__.co_firstlineno}" not in str(caught.value).splitlines()[0]
    assert "File" in str(caught.value)


def chooses_among_three(i, x):
    k = 10
    if i == 0:
        f = lambda v: v + k  # noqa: E731
    elif i == 1:
        f = lambda v: v * k  # noqa: E731
    else:

        def f(v):
            return v - k

    k = 20
    return f(x)


def alternates_in_loop(n):
    total = 0
    inc = lambda v: v + 1  # noqa: E731
    dbl = lambda v: v * 2  # noqa: E731
    f = inc
    for i in range(n):
        total += f(i)
        f = dbl if i % 2 else inc
    return total


def chooses_nonlocal_writer(c, n):
    s = 0

    def add(v):
        nonlocal s
        s += v

    def sub(v):
        nonlocal s
        s -= v

    f = add if c else sub
    for i in range(n):
        f(i)
    return s


@njit
def passes_a_choice(c, x):
    f = (lambda v: v + 1) if c else (lambda v: v - 1)
    return apply(f, x) * 10 + apply_twice(f, x)


@given(st.integers(min_value=-2, max_value=3), SMALL_INTS)
@settings(max_examples=40, deadline=None)
def test_inner_functions_chosen_at_run_time(i, x):
    check(chooses_among_three, [(i, x), (i, x * 0.25)])
    check(alternates_in_loop, [(abs(x) % 20,)])
    check(chooses_nonlocal_writer, [(True, abs(x) % 20), (False, abs(x) % 20)])
    assert passes_a_choice(i > 0, x) == ((x + 1) * 10 + x + 2 if i > 0 else (x - 1) * 10 + x - 2)


def test_ir_of_a_closure_has_no_function_value():
    jitted = njit(reads_enclosing)
    jitted(3)
    (result,) = jitted.overloads.values()
    dump = "\n".join(str(stmt) for _, stmt in result.func_ir.statements())
    assert "make_function" not in dump
    assert "inner.1.x" in dump  # the inlined parameter


# ---------------------------------------------------------------------------- first-class


@njit
def increment(x):
    return x + 1


@njit
def double(x):
    return x * 2


@njit
def negate(x):
    return -x


@njit
def choose_by_flag(c, x):
    f = increment if c else double
    return f(x)


@njit
def choose_from_tuple(i, x):
    fs = (increment, double, negate)
    return fs[i](x)


@njit
def pick_from_argument(fs, i, x):
    return fs[i](x)


@njit
def alternate_in_loop(n):
    total = 0
    f = increment
    for i in range(n):
        total += f(i)
        f = double if i % 2 == 0 else increment
    return total


@njit
def both_constant_indices(x):
    fs = (increment, double)
    return fs[0](x) * 1000 + fs[1](x)


def test_dispatcher_passed_as_argument():
    for x in (-3, 0, 5):
        assert apply(increment, x) == x + 1
        assert apply(double, x) == 2 * x
        assert apply_twice(double, x) == 4 * x
    assert apply(double, 2.5) == 5.0
    assert apply_twice(increment, 1.5) == 3.5


@given(st.booleans(), SMALL_INTS)
@settings(max_examples=40, deadline=None)
def test_dispatcher_chosen_at_run_time(c, x):
    assert choose_by_flag(c, x) == (x + 1 if c else 2 * x)
    for i in range(-3, 3):
        assert choose_from_tuple(i, x) == [x + 1, 2 * x, -x][i]
        assert pick_from_argument((increment, double, negate), i, x) == [x + 1, 2 * x, -x][i]
    assert both_constant_indices(x) == (x + 1) * 1000 + 2 * x


def test_dispatcher_choice_in_a_loop_and_its_errors():
    assert alternate_in_loop(9) == alternate_in_loop.py_func(9)
    with pytest.raises(IndexError):
        choose_from_tuple(3, 1)
    with pytest.raises(IndexError):
        choose_from_tuple(-4, 1)


@njit
def returns_int(x):
    return 1


@njit
def returns_float(x):
    return 0.5


@njit
def mixed_returns(c, x):
    f = returns_int if c else returns_float
    return f(x)


def test_choice_between_return_types_unifies_them():
    assert mixed_returns(True, 1) == 1.0 and isinstance(mixed_returns(True, 1), float)
    assert mixed_returns(False, 1) == 0.5


@njit
def returns_choice(c):
    return increment if c else double


@njit
def returns_functions(x):
    return (increment, negate), x


@njit
def choice_with_bad_member(c, x):
    f = increment if c else apply
    return f(x)


def test_jitted_functions_returned_to_python_and_bad_choices():
    assert returns_choice(True) is increment and returns_choice(False) is double
    assert returns_functions(2) == ((increment, negate), 2)
    with pytest.raises(ember.TypingError, match="apply, one of the functions chosen at run"):
        choice_with_bad_member(True, 1)


# ---------------------------------------------------------------------------- recursion


@njit
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@njit
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@njit
def ping(n):
    if n > 0:
        return pong(n - 1) + 1
    return 0


@njit
def pong(n):
    if n > 0:
        return ping(n - 1) * 2
    return 1


@njit
def calls_mutual(n):
    return is_odd(n) + ping(n)


def test_mutual_recursion():
    for n in range(12):
        assert is_even(n) is (n % 2 == 0)
        assert is_odd(n) is (n % 2 == 1)
        assert ping(n) == ping.py_func(n)
        assert pong(n) == pong.py_func(n)
        assert calls_mutual(n) == calls_mutual.py_func(n)


@njit
def float_then_int(n):
    if n <= 0:
        return 0
    return int_then_float(n - 1) + 0.5


@njit
def int_then_float(n):
    if n <= 0:
        return 0
    return float_then_int(n - 1) * 2


def test_mutual_recursion_with_a_changing_return_type_is_an_error():
    with pytest.raises(ember.TypingError, match="mutual recursion"):
        float_then_int(3)


@njit("int64(int64)")
def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


@njit(["float64(float64)", "int64(int64)"])
def fibonacci(n):
    if n < 2:
        return n
    return fibonacci(n - 1) + fibonacci(n - 2)


@njit("boolean(int64)")
def even_declared(n):
    if n == 0:
        return True
    return odd_declared(n - 1)


@njit("boolean(int64)")
def odd_declared(n):
    if n == 0:
        return False
    return even_declared(n - 1)


def test_recursion_with_explicit_signatures():
    assert [factorial(n) for n in range(10)] == [factorial.py_func(n) for n in range(10)]
    assert fibonacci(15) == 610 and fibonacci(15.0) == 610.0
    assert [even_declared(n) for n in range(6)] == [n % 2 == 0 for n in range(6)]
    assert [odd_declared(n) for n in range(6)] == [n % 2 == 1 for n in range(6)]


# ---------------------------------------------------------------------------- parameters


@njit
def total(*args):
    s = 0
    for i in range(len(args)):
        s += args[i]
    return s


@njit
def first_plus_count(*args):
    return args[0] + len(args)


@njit
def head_and_rest(a, *rest, scale=1):
    return (a + len(rest)) * scale


@njit
def keyword_only(a, *, scale=2.0, shift):
    return a * scale + shift


@njit
def calls_with_varargs_and_keywords(x):
    return (
        total(x, x, 1)
        + first_plus_count(x)
        + head_and_rest(x, 1, 2, scale=3)
        + head_and_rest(x)
        + keyword_only(x, shift=1)
        + keyword_only(x, scale=0.5, shift=2)
    )


@given(SMALL_INTS)
@settings(max_examples=30, deadline=None)
def test_varargs_and_keyword_only_parameters(x):
    assert total(x, 2, 3) == total.py_func(x, 2, 3)
    assert first_plus_count(x, 1, 2) == x + 3
    assert head_and_rest(x, 1, 2, 3) == x + 3
    assert head_and_rest(x, 1, scale=4) == (x + 1) * 4
    assert keyword_only(x, shift=1) == x * 2.0 + 1
    assert keyword_only(x, shift=1, scale=-1.0) == -x + 1
    expected = calls_with_varargs_and_keywords.py_func(x)
    assert calls_with_varargs_and_keywords(x) == expected


def test_varargs_of_arrays():
    @njit
    def sums(*arrays):
        return arrays[0].sum() + arrays[1].sum() * len(arrays)

    assert sums(np.ones(3), np.arange(4.0)) == 3.0 + 12.0


def test_missing_keyword_only_argument_is_a_type_error():
    with pytest.raises(TypeError, match="shift"):
        keyword_only(1.0)
