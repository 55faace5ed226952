"""Language-core behaviours Numba's own test modules exercise: a bare `raise` re-raising the
exception the caller handles, inner functions used as values (returned, passed to @overload-ed
functions and jitted generators, recursive). Each compiled function is checked against CPython
running the same Python function."""

from __future__ import annotations

import numpy as np
import pytest

from ember import TypingError, jit, literal_unroll, njit, types
from ember.extending import overload
from tests.oracle import assert_frees_all, same

# ---------------------------------------------------------------- a bare raise outside `except`


def reraise():
    raise


def reraise_when(flag, value):
    if flag:
        raise
    return value * 2


def outcome(func, *args):
    """(result, None) or (None, the exception func raised)."""
    try:
        return func(*args), None
    except BaseException as error:  # noqa: BLE001 - any outcome is compared
        return None, error


def handled_then(callee, exc, *args):
    """Call `callee(*args)` while handling `exc`: what comes out of the `except` block."""
    try:
        raise exc
    except BaseException:  # noqa: BLE001
        return outcome(callee, *args)


class WithArgs(Exception):
    def __init__(self, message, code):
        super().__init__(message, code)
        self.code = code


@pytest.mark.parametrize(
    "make_exc",
    [
        lambda: ZeroDivisionError("division by zero"),
        lambda: ValueError("bad", 3),
        lambda: KeyError(7),
        lambda: WithArgs("msg", 1),
        lambda: IndexError(),
    ],
)
def test_bare_raise_re_raises_the_exception_the_caller_handles(make_exc):
    compiled = njit(reraise)
    exc = make_exc()
    result, error = handled_then(compiled, exc)
    expected_result, expected_error = handled_then(reraise, exc)
    assert result is None and expected_result is None
    assert error is exc and expected_error is exc  # the very object, as CPython re-raises it


def test_bare_raise_with_nothing_handled_is_cpythons_runtime_error():
    _, expected = outcome(reraise)
    _, got = outcome(njit(reraise))
    assert type(got) is type(expected) is RuntimeError
    assert str(got) == str(expected) == "No active exception to reraise"


@pytest.mark.parametrize(("flag", "value"), [(False, -3), (False, 0), (True, 5), (True, -1)])
def test_bare_raise_on_one_path_only(flag, value):
    compiled = njit(reraise_when)
    assert outcome(compiled, flag, value)[0] == outcome(reraise_when, flag, value)[0]
    exc = OverflowError("handled")
    got, expected = (
        handled_then(compiled, exc, flag, value),
        handled_then(reraise_when, exc, flag, value),
    )
    assert got[0] == expected[0]
    assert got[1] is expected[1]


def catch_runtime_error_of_reraise(raiser):
    try:
        raiser()
    except RuntimeError:
        return 1
    return 0


def test_bare_raise_caught_by_a_compiled_caller():
    compiled = njit(catch_runtime_error_of_reraise)
    raiser = njit(reraise)
    # nothing handled: the RuntimeError is caught by the compiled `except RuntimeError`
    assert compiled(raiser) == catch_runtime_error_of_reraise(reraise) == 1
    # a KeyError handled by Python goes through the compiled caller's `except RuntimeError`
    exc = KeyError("k")
    got = handled_then(compiled, exc, raiser)
    expected = handled_then(catch_runtime_error_of_reraise, exc, reraise)
    assert got[1] is expected[1] is exc


def reraise_in_handler_forms(n):
    try:
        if n > 0:
            raise ValueError("positive", n)
        return -1
    except ValueError:
        if n > 10:
            raise
        return n


@pytest.mark.parametrize("n", [-5, 0, 3, 10, 11, 100])
def test_bare_raise_inside_except_still_re_raises_the_caught_one(n):
    got, got_error = outcome(njit(reraise_in_handler_forms), n)
    expected, expected_error = outcome(reraise_in_handler_forms, n)
    assert got == expected
    assert type(got_error) is type(expected_error)
    if expected_error is not None:
        assert got_error.args == expected_error.args


# ---------------------------------------------------------------- inner functions as values


def returns_inner_with_default():
    def bar(x, y=1.1):
        return x + y

    return bar


def returns_one_of_two(c):
    def plus_one(x):
        return x + 1

    def doubled(x):
        return x * 2

    return plus_one if c else doubled


@pytest.mark.parametrize("x", [4, -3, 0, 2**40])
def test_returned_inner_function_is_callable_from_python_and_compiled_code(x):
    made = njit(returns_inner_with_default)()
    assert same(made(x), returns_inner_with_default()(x))
    assert same(made(x, 2), returns_inner_with_default()(x, 2))
    maker = njit(returns_inner_with_default)

    def consume(v):
        return maker()(v)

    assert same(njit(consume)(x), returns_inner_with_default()(x))


@pytest.mark.parametrize("c", [True, False])
@pytest.mark.parametrize("x", [7, -7, 0])
def test_returned_choice_of_inner_functions(c, x):
    assert njit(returns_one_of_two)(c)(x) == returns_one_of_two(c)(x)


def apply(array, func):
    return func(array)


@overload(apply)
def _apply_overload(array, func):
    return lambda array, func: func(array)


def apply_inner(array):
    scale = 10

    def scaled(x):
        return x * scale + 1

    return apply(array, scaled)


def apply_lambda_twice(v):
    return apply(apply(v, lambda x: x - 3), lambda x: -x)


@pytest.mark.parametrize(
    "array",
    [np.arange(10), np.array([-2.5, 0.0, np.nan, 1e300]), np.zeros(0, dtype=np.int64)],
    ids=["ints", "floats", "empty"],
)
def test_inner_function_passed_to_an_overloaded_function(array):
    np.testing.assert_array_equal(njit(apply_inner)(array), apply_inner(array))


@pytest.mark.parametrize("v", [0, 5, -8, 2**62])
def test_lambdas_passed_to_an_overloaded_function(v):
    assert njit(apply_lambda_twice)(v) == apply_lambda_twice(v)


def test_inner_function_given_to_an_overload_frees_its_arrays():
    compiled = njit(apply_inner)
    assert_frees_all(compiled, lambda: np.arange(50.0))


def returns_closure_over_argument(n):
    def add(x):
        return x + n

    return add


def test_inner_function_over_a_run_time_value_is_returned_as_a_callable():
    for n in (3, -7, 2**40):
        returned = njit(returns_closure_over_argument)(n)
        assert [returned(x) for x in (0, 5, -2)] == [n, n + 5, n - 2]


@njit
def yields_calls(func, n):
    for i in range(n):
        yield func(i)


def inner_function_to_jitted_generator(n):
    def cube(x):
        return x * x * x - 1

    return [v for v in yields_calls(cube, n)]


@pytest.mark.parametrize("n", [0, 1, 6])
def test_inner_function_passed_to_a_jitted_generator(n):
    expected = [cube - 1 for cube in (i**3 for i in range(n))]
    assert njit(inner_function_to_jitted_generator)(n) == expected
    assert inner_function_to_jitted_generator.__name__  # the callee is the jitted one


# ---------------------------------------------------------------- recursive inner functions


def recursive_factorial(n):
    def fact(k):
        if k <= 1:
            return 1
        return k * fact(k - 1)

    return fact(n)


def recursive_with_constant_capture(n):
    base = 2

    def fib(k):
        if k < base:
            return k
        return fib(k - 1) + fib(k - 2)

    return [fib(i) for i in range(n)]


def mutually_recursive(n):
    def even(k):
        return True if k == 0 else odd(k - 1)

    def odd(k):
        return False if k == 0 else even(k - 1)

    return even(n), odd(n)


def recursive_without_return_on_one_path(x):
    def inner(x):
        if x < 2:
            return 10
        else:
            inner(x - 1)

    return inner(x)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 20])
def test_recursive_inner_functions(n):
    assert njit(recursive_factorial)(n) == recursive_factorial(n)
    assert njit(recursive_with_constant_capture)(n) == recursive_with_constant_capture(n)
    assert njit(mutually_recursive)(n) == mutually_recursive(n)
    assert njit(recursive_without_return_on_one_path)(n) == recursive_without_return_on_one_path(n)


def recursive_over_argument(x):
    y = x + 1

    def inner(k):
        if k + y < 2:
            return 10
        return inner(k - 1)

    return inner(x)


def test_recursive_inner_function_over_a_run_time_value():  # a feature since pylang7
    for x in (-3, 0, 3):
        assert njit(recursive_over_argument)(x) == recursive_over_argument(x)


# ---------------------------------------------------------------- inner generators' arguments


def inner_generator_with_keywords_and_defaults(n):
    def stepped(stop, step=1, start=0):
        for i in range(start, stop, step):
            yield i * i

    return (
        list(stepped(n, step=2)),
        list(stepped(stop=n)),
        list(stepped(n, start=-n, step=3)),
        sum(stepped(n)),
    )


@pytest.mark.parametrize("n", [-2, 0, 1, 7])
def test_inner_generator_called_with_keywords_and_defaults(n):
    expected = inner_generator_with_keywords_and_defaults(n)
    assert njit(inner_generator_with_keywords_and_defaults)(n) == expected


# ---------------------------------------------------------------- literal_unroll of list displays


def describe(value):
    pass


@overload(describe)
def _describe_literal(value):
    if isinstance(value, types.StringLiteral):
        size = len(value.literal_value)
        return lambda value: size
    if isinstance(value, types.IntegerLiteral):
        bumped = value.literal_value + 1
        return lambda value: bumped
    return None


def unroll_constant_list():
    acc = 0
    for item in literal_unroll(["apple", "orange", "banana", 3390155550]):
        acc += describe(item)
    return acc


def unroll_mixed_list(x):
    acc = 0.0
    for item in literal_unroll([1, 2.5, 3j, x]):
        acc += abs(item)
    return acc


def unroll_list_used_elsewhere_too(n):
    names = ["a", "bb", "ccc"]
    total = 0
    for i in range(len(literal_unroll(names))):
        total += len(names[i]) * n
    return total + len(names)


def test_literal_unroll_of_a_constant_list_display_gives_literal_items():
    assert njit(unroll_constant_list)() == 5 + 6 + 6 + 3390155551


@pytest.mark.parametrize("x", [-4.5, 0.0, 1e300, float("nan")])
def test_literal_unroll_of_a_mixed_list_display(x):
    assert same(njit(unroll_mixed_list)(x), unroll_mixed_list(x))


@pytest.mark.parametrize("n", [-1, 0, 3])
def test_literal_unroll_of_a_list_read_elsewhere_stays_a_list(n):
    assert njit(unroll_list_used_elsewhere_too)(n) == unroll_list_used_elsewhere_too(n)


# ---------------------------------------------------------------- exceptions with any arguments


def raise_with_shape(a):
    if a.ndim != 1:
        raise ValueError("expected a 1-d array, got shape", a.shape)
    return a.sum()


def raise_with_containers(a, n):
    if n > 0:
        raise KeyError(a, [n, n + 1], (n, "x"))
    return n


def raise_with_dict(n):
    if n:
        raise ValueError({"a": n, "b": 3})
    return 0


def catch_by_class(a, n):
    try:
        if n > 1:
            raise ValueError(a.shape, n)
        if n > 0:
            raise IndexError(a.shape)
    except ValueError:
        return 1
    except LookupError:
        return 2
    return 0


class NeedsTwo(Exception):
    def __init__(self, shape, note):
        super().__init__(f"{note}: {shape}")


def raise_user_class(a):
    raise NeedsTwo(a.shape, "bad")


def assert_same_exception(func, *args):
    expected = outcome(func, *args)
    got = outcome(njit(func), *args)
    assert type(got[1]) is type(expected[1])
    if expected[1] is None:
        assert got[0] == expected[0]
        return
    for g, e in zip(got[1].args, expected[1].args, strict=True):
        if isinstance(e, np.ndarray):
            np.testing.assert_array_equal(g, e)
        else:
            assert g == e


@pytest.mark.parametrize(
    "a", [np.ones(3), np.ones((2, 3)), np.zeros((0, 4, 1))], ids=["1d", "2d", "3d-empty"]
)
def test_exception_arguments_that_are_tuples_lists_and_arrays(a):
    assert_same_exception(raise_with_shape, a)
    for n in (-1, 0, 2):
        assert_same_exception(raise_with_containers, a, n)
    assert_same_exception(raise_user_class, a)
    assert str(outcome(njit(raise_user_class), a)[1]) == str(outcome(raise_user_class, a)[1])


def test_exception_argument_that_is_a_dict_display():
    assert outcome(njit(raise_with_dict), 0) == (0, None)
    error = outcome(njit(raise_with_dict), 5)[1]
    assert type(error) is ValueError
    assert dict(error.args[0]) == {"a": 5, "b": 3}


@pytest.mark.parametrize("n", [0, 1, 2])
def test_exceptions_with_boxed_arguments_match_except_clauses(n):
    a = np.ones((2, 2))
    assert njit(catch_by_class)(a, n) == catch_by_class(a, n)


def test_exceptions_with_boxed_arguments_free_their_arrays():
    compiled = njit(raise_with_containers)

    def raise_and_catch(a):
        try:
            compiled(a, 3)
        except KeyError:
            pass

    assert_frees_all(raise_and_catch, lambda: np.arange(40.0))
    assert_frees_all(njit(catch_by_class), lambda: np.ones((3, 3)), lambda: 2)


# ---------------------------------------------------------------- loop lifting: outputs made inside


def last_of_loop(n):
    for i in range(n):
        res = i * 2
    return res


def last_read_by_a_call(xs):
    for x in xs:
        biggest = max(x, 0)
    return abs(biggest)


def last_read_after_a_branch(n, flag):
    total = 0
    for i in range(n):
        total += i
        last = i
    if flag:
        return total
    return total, last


def outcome_text(func, *args):
    result, error = outcome(func, *args)
    return result, type(error), str(error) if error is not None else None


@pytest.mark.parametrize("n", [0, 1, 6])
def test_loop_assigning_an_output_read_next_is_lifted(n):
    compiled = jit(forceobj=True)(last_of_loop)
    assert outcome_text(compiled, n) == outcome_text(last_of_loop, n)
    assert [loop.span.outputs for loop in compiled.lifted_loops] == [("res",)]
    assert [loop.span.inputs for loop in compiled.lifted_loops] == [("n",)]


@pytest.mark.parametrize("xs", [[], [3, -7, 2], [-1]])
def test_loop_output_read_by_the_next_call_is_lifted(xs):
    compiled = jit(forceobj=True)(last_read_by_a_call)
    assert outcome_text(compiled, xs) == outcome_text(last_read_by_a_call, xs)
    assert len(compiled.lifted_loops) == 1


@pytest.mark.parametrize(("n", "flag"), [(0, True), (0, False), (3, True), (3, False)])
def test_loop_output_read_only_on_some_paths_is_lifted_with_a_bound_flag(n, flag):
    compiled = jit(forceobj=True)(last_read_after_a_branch)
    expected = outcome_text(last_read_after_a_branch, n, flag)
    assert outcome_text(compiled, n, flag) == expected
    (loop,) = compiled.lifted_loops
    assert loop.span.outputs == ("last", "total") and loop.object_mode is None


# ---------------------------------------------------------------- plain loops over mixed tuples


def doubled_items(a, b, c):
    out = []
    for x in (a, b, c):
        out.append(x * 2)
    return out


def sum_of_one_dimensional(a, b):
    total = 0.0
    for arr in (a, b):
        if arr.ndim == 2:
            continue
        total += arr.sum()
    return total


def count_until_number(t):
    n = 0
    for x in t:
        if isinstance(x, str):
            n += len(x)
        else:
            n += 1
            break
    return n


@pytest.mark.parametrize(
    "args", [(1, 2, 3), (1, 2.5, -3), (True, 4, 0.5)], ids=["ints", "mixed", "bool-first"]
)
def test_plain_loop_over_a_tuple_display(args):
    assert njit(doubled_items)(*args) == doubled_items(*args)


@pytest.mark.parametrize(
    ("a", "b"),
    [(np.arange(4.0), np.ones((2, 2))), (np.ones((3, 1)), np.arange(3)), (np.zeros(0), np.ones(2))],
)
def test_plain_loop_over_arrays_of_different_dimensions(a, b):
    assert njit(sum_of_one_dimensional)(a, b) == sum_of_one_dimensional(a, b)


@pytest.mark.parametrize("t", [("ab", "cde", 3, 4.5), (1, "x"), ("", "yy")])
def test_plain_loop_over_a_mixed_tuple_argument_with_break(t):
    assert njit(count_until_number)(t) == count_until_number(t)


# ---------------------------------------------------------------- recursion whose type grows


@njit
def growing_tuple(n):
    if n <= 0:
        return None
    return (n, growing_tuple(n - 1))


@njit
def halving(n):
    if n <= 0:
        return 1
    return 0.5 * halving(n - 1)


def test_recursion_whose_return_type_grows_says_so():
    with pytest.raises(TypingError, match="Return type of recursive function does not converge"):
        growing_tuple(3)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_recursion_whose_return_type_widens_once(n):
    # CPython gives 1 (int) for n <= 0; the compiled function's one return type is float64
    assert halving(n) == halving.py_func(n)
    assert type(halving(n)) is float


# ---------------------------------------------------------------- slice.indices


def slice_indices(s, *args):
    return s.indices(*args)


_BOUNDS = [None, -7, -1, 0, 2, 9]
_SLICES = [
    slice(start, stop, step)
    for start in _BOUNDS
    for stop in _BOUNDS
    for step in (None, -3, -1, 1, 2)
]


@pytest.mark.parametrize("length", [-2, 0, 1, 5])
def test_slice_indices_follow_cpython(length):
    compiled = njit(slice_indices)
    for s in _SLICES:
        expected = outcome(slice_indices, s, length)
        got = outcome(compiled, s, length)
        assert got[0] == expected[0], s
        assert type(got[1]) is type(expected[1]), s
        if expected[1] is not None:
            assert str(got[1]) == str(expected[1])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((slice(None), 1, 2, 3), r"indices\(\) takes exactly one argument \(3 given\)"),
        ((slice(None, None, 2), 1.5), "'float64' object cannot be interpreted as an integer"),
    ],
)
def test_slice_indices_with_bad_arguments_say_so(args, message):
    with pytest.raises(TypingError, match=message):
        njit(slice_indices)(*args)


def loops_over_constant_tuples(n):
    s = 0
    for k in (1, 2, 3):
        s += k * n
    for x in (1, 2.5, True):
        s += x * n
    for w in ("ab", 3):
        s += len(w) if isinstance(w, str) else w
    return s


@pytest.mark.parametrize("n", [-3, 0, 2])
def test_plain_loops_over_constant_tuples_of_mixed_classes(n):
    assert same(njit(loops_over_constant_tuples)(n), loops_over_constant_tuples(n))


def weighted_sums(a, b):
    s = 0.0
    for i, arr in enumerate((a, b)):
        s += (i + 1) * arr.sum()
    return s


def enumerate_constant_and_list(n):
    s = 0
    for i, x in enumerate((1, 2.5)):
        s += i * x * n
    for i, x in enumerate([1, 2]):
        s += i * x
    return s


@pytest.mark.parametrize(
    ("a", "b"), [(np.arange(3.0), np.ones((2, 2))), (np.zeros(0), np.arange(6).reshape(2, 3))]
)
def test_enumerate_over_a_mixed_tuple(a, b):
    assert njit(weighted_sums)(a, b) == weighted_sums(a, b)


@pytest.mark.parametrize("n", [-2, 0, 3])
def test_enumerate_over_constant_mixed_tuples_and_lists(n):
    assert same(njit(enumerate_constant_and_list)(n), enumerate_constant_and_list(n))


def enumerate_with_isinstance(t):
    out = 0
    for i, x in enumerate(t):
        if isinstance(x, str):
            out += i * len(x)
        else:
            out += i + x
    return out


@pytest.mark.parametrize("t", [("ab", 3, "xyz"), (1, "q"), ("", 0.5)])
def test_enumerate_over_a_mixed_tuple_decides_isinstance_per_member(t):
    assert njit(enumerate_with_isinstance)(t) == enumerate_with_isinstance(t)
