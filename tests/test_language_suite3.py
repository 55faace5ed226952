"""Python language features Numba's own test modules exercise (comprehensions feeding np.array,
exceptions, generators, builtins, random streams): each compiled function is checked against
CPython or NumPy running the same function. PYTEST_DONT_REWRITE: the compiled functions use
`assert`, which pytest would otherwise rewrite into calls compiled code cannot make."""

from __future__ import annotations

import heapq
import multiprocessing
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit, objmode, prange, typed, types
from ember.errors import TypingError
from ember.typed import Dict


def cube_of_products(n):
    return np.array([[[i * j * k for k in range(n)] for j in range(n)] for i in range(n)])


def rows_of_arrays(n):
    return np.array([np.array([x * y for x in range(n)]) for y in range(n + 1)])


def tuple_of_arrays(a, b):
    return np.array((a, b))


def grid_of_pairs(n):
    return np.array([[(i, 2 * i) for i in range(n)] for _ in range(2)])


def ragged_arrays(n):
    return np.array([np.arange(i) for i in range(n)])


@pytest.mark.parametrize("n", [0, 1, 3])
def test_np_array_of_nested_comprehensions_any_depth(n):
    for function in (cube_of_products, rows_of_arrays, grid_of_pairs):
        got, expected = njit(function)(n), function(n)
        if expected.size:  # NumPy gives an empty nest shape (0,); ember keeps the rank
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)
        else:
            assert got.size == 0


def test_np_array_of_a_tuple_of_arrays():
    a, b = np.arange(3.0), np.linspace(1, 2, 3)
    np.testing.assert_array_equal(njit(tuple_of_arrays)(a, b), tuple_of_arrays(a, b))


def test_np_array_of_ragged_arrays_raises_value_error():
    with pytest.raises(ValueError):
        ragged_arrays(3)
    with pytest.raises(ValueError, match="inhomogeneous"):
        njit(ragged_arrays)(3)


def objmode_temporaries_reused_after(n):
    with objmode(y="float64"):
        i = 3
        tmp = [k * 2 for k in range(i)]
        y = float(sum(tmp))
    total = sum([tmp for tmp in range(n)])
    for i in range(n):
        y += i
    return y + total


def objmode_reassigns_an_outer_variable(n):
    x = n
    with objmode():
        x = n + 1
    return x


def objmode_output_read_next_iteration(n):
    out = 0
    for i in range(n):
        if i:
            out += t  # noqa: F821 - assigned by the block of the previous iteration
        with objmode():
            t = i * 2  # noqa: F841 - read after the block
    return out


def objmode_declares_an_unassigned_name(x):
    with objmode(k="float64"):
        print(x)
    return x


def test_objmode_temporaries_used_again_after_the_block_are_fine():
    assert njit(objmode_temporaries_reused_after)(4) == objmode_temporaries_reused_after(4)


@pytest.mark.parametrize(
    ("function", "message"),
    [
        (objmode_reassigns_an_outer_variable, r"outgoing variable\(s\): \['x'\]"),
        (objmode_output_read_next_iteration, r"outgoing variable\(s\): \['t'\]"),
        (objmode_declares_an_unassigned_name, r"non-outgoing variables: \['k'\]"),
    ],
)
def test_objmode_outputs_must_match_what_the_block_assigns_and_later_code_reads(function, message):
    # CPython would return the block's value; without a declared type it would be lost
    with pytest.raises(TypingError, match=message):
        njit(function)(3)


@njit
def raises_value_error(x):
    if x:
        raise ValueError("bad", x)
    return 1


def floor_divide_text(x):
    try:
        return str(1 // x)
    except ZeroDivisionError as e:
        return "caught: " + str(e) + f" / {e}"


def callee_text(x):
    try:
        raises_value_error(x)
        return ""
    except ValueError as e:
        return str(e) + "|" + repr(e)


def mixed_classes_text(x):
    try:
        if x > 0:
            raise KeyError("k", x)
        if x < 0:
            raise KeyError(x)
        raise IndexError("index", x * 2)
    except Exception as e:
        return str(e)


def typed_dict_miss_text(k):
    d = Dict.empty(types.int64, types.float64)
    d[1] = 2.5
    try:
        return str(d[k])
    except KeyError as e:
        return str(e)


def objmode_error_text(x):
    try:
        with objmode():
            raise RuntimeError("from Python", x)
    except RuntimeError as e:
        return str(e)
    return ""


def caught_exception_itself(x):
    try:
        raises_value_error(x)
        return LookupError("none raised")
    except Exception as e:
        return e


@pytest.mark.parametrize(
    ("function", "args"),
    [
        (floor_divide_text, (0,)),
        (floor_divide_text, (2,)),
        (callee_text, (3,)),
        (mixed_classes_text, (2,)),
        (mixed_classes_text, (-2,)),
        (mixed_classes_text, (0,)),
        (typed_dict_miss_text, (1,)),
        (typed_dict_miss_text, (7,)),
        (objmode_error_text, (5,)),
    ],
)
def test_str_of_exceptions_raised_by_callees_the_runtime_and_mixed_raises(function, args):
    if function is callee_text:  # CPython calls the plain function
        expected = "('bad', 3)|ValueError('bad', 3)"
    else:
        expected = function(*args)
    assert njit(function)(*args) == expected


def test_a_caught_exception_returned_to_python_is_the_exception():
    compiled = njit(caught_exception_itself)
    raised = compiled(4)
    assert type(raised) is ValueError and raised.args == ("bad", 4)
    assert repr(compiled(0)) == "LookupError('none raised')"


def test_print_of_a_runtime_exception(capsys):
    def show(x):
        try:
            return 10 // x
        except ZeroDivisionError as e:
            print("error:", e)
            return -1

    assert njit(show)(0) == -1
    expected = "error: " + str(_zero_division()) + "\n"
    assert capsys.readouterr().out == expected


def _zero_division() -> ZeroDivisionError:
    try:
        10 // 0  # noqa: B018 - the error CPython raises
    except ZeroDivisionError as error:
        return error
    raise AssertionError("unreachable")


@njit
def python_random_words(n):
    out = np.empty(n, np.uint32)
    for i in range(n):
        out[i] = random.getrandbits(32)
    return out


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_children_draw_their_own_python_random_numbers():
    python_random_words(1)  # compiled (and the state made) before forking
    context = multiprocessing.get_context("fork")
    with context.Pool(2) as pool:
        children = pool.map(python_random_words, [8, 8])
    streams = {tuple(words) for words in [*children, python_random_words(8)]}
    assert len(streams) == 3  # as CPython's random module reseeds in a forked child


@njit
def seeded_dirichlet(seed, alpha, size):
    np.random.seed(seed)
    return np.random.dirichlet(alpha, size)


@njit
def seeded_weighted_choice(seed, p):
    np.random.seed(seed)
    return np.random.choice(3, 6, True, p)


@pytest.mark.parametrize(
    ("alpha", "size"), [((1.0, 2.0, 3.0), None), ((1.5, 0.5), 4), ([1, 2, 3], (2, 2))]
)
def test_dirichlet_of_tuples_and_int_lists_follows_numpy(alpha, size):
    np.random.seed(7)
    expected = np.random.dirichlet(alpha, size)
    np.testing.assert_allclose(seeded_dirichlet(7, alpha, size), expected, rtol=1e-12)


def test_weighted_choice_of_a_tuple_follows_numpy():
    p = (0.2, 0.3, 0.5)
    np.random.seed(11)
    np.testing.assert_array_equal(seeded_weighted_choice(11, p), np.random.choice(3, 6, True, p))


def generator_of_generators(n):
    def numbers(m):
        yield from range(m)

    def doubled(m):
        yield from numbers(m)
        for v in numbers(m):
            yield v * 10

    def shifted(m):
        for v in doubled(m):
            yield v + 1

    def squares(m):
        def square(x):
            return x * x

        for i in range(m):
            yield square(i)

    return list(shifted(n)) + list(squares(n)) + [sum(numbers(n))]


def generator_calling_a_closure_over_a_variable(n):
    k = 3

    def scaled(m):
        for i in range(m):
            yield i * k

    def wrapped(m):
        yield from scaled(m)

    return sum(wrapped(n))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_inner_generators_calling_other_inner_functions(n):
    assert njit(generator_of_generators)(n) == generator_of_generators(n)


@pytest.mark.parametrize("n", [0, 3])
def test_an_inner_generator_calling_a_closure_over_a_constant(n):
    expected = generator_calling_a_closure_over_a_variable(n)
    assert njit(generator_calling_a_closure_over_a_variable)(n) == expected


def generator_calling_a_closure_over_an_argument(n):
    def scaled(m):
        for i in range(m):
            yield i * n

    def wrapped(m):
        yield from scaled(m)

    return sum(wrapped(n))


def test_an_inner_generator_calling_a_closure_over_a_run_time_value_is_refused_clearly():
    with pytest.raises(TypingError, match="non-constant value associated with variable 'n'"):
        njit(generator_calling_a_closure_over_an_argument)(3)


def typed_container_kind(a):
    if isinstance(a, typed.List):
        return "typed list"
    elif isinstance(a, typed.Dict):
        return "typed dict"
    elif isinstance(a, typed.Set):
        return "typed set"
    elif isinstance(a, (int, float)):
        return "number"
    return "other"


@pytest.mark.parametrize(
    "make",
    [
        lambda: typed.List([1, 2]),
        lambda: Dict.empty(types.int64, types.int64),
        lambda: typed.Set([1]),
        lambda: 3,
        lambda: 2.5,
        lambda: np.zeros(2),
    ],
)
def test_isinstance_of_the_typed_container_classes(make):
    assert njit(typed_container_kind)(make()) == typed_container_kind(make())


ONE = 1
PAIR = (1, 2)


@njit
def add_two(x, y):
    return x + y


@njit
def identity(x):
    return x


def isinstance_of_a_constant_global():
    x = ONE
    if isinstance(x, tuple):
        return add_two(*x)  # cannot type for an int: the test must drop this branch
    return identity(x)


def isinstance_of_a_constant_tuple():
    x = PAIR
    if isinstance(x, tuple):
        return add_two(*x)
    return identity(x)


def isinstance_of_a_constant_string():
    x = "text"
    if isinstance(x, str):
        return len(x)
    return x + 1


@pytest.mark.parametrize(
    "function",
    [
        isinstance_of_a_constant_global,
        isinstance_of_a_constant_tuple,
        isinstance_of_a_constant_string,
    ],
)
def test_isinstance_of_a_variable_bound_to_a_constant_prunes_the_other_branch(function):
    assert njit(function)() == function()


def isinstance_of_a_parameter_reassigned_in_the_branch(a):
    x = 0
    if isinstance(a, int):
        a = (a, a)
    for i in range(len(a)):
        x += i
    return x


def isinstance_then_rebinding_to_another_type(a):
    if isinstance(a, str):
        a = len(a)
    return a + 1


@pytest.mark.parametrize("value", [3, (1, 2, 3)])
def test_isinstance_of_a_parameter_reassigned_after_the_test(value):
    function = isinstance_of_a_parameter_reassigned_in_the_branch
    assert njit(function)(value) == function(value)


@pytest.mark.parametrize("value", ["abc", 4])
def test_isinstance_before_a_rebinding_to_another_type(value):
    function = isinstance_then_rebinding_to_another_type
    assert njit(function)(value) == function(value)


def try_inside_a_prange_reduction(n):
    c = 0
    for i in prange(n):
        try:
            c += 1
            if i == 3:
                raise ValueError(i)
        except ValueError:
            c += 10
    return c


def try_around_a_prange_reduction(n):
    c = 0
    try:
        for i in prange(n):
            c += i
    except Exception:
        return -1
    else:
        return c


@pytest.mark.parametrize("function", [try_inside_a_prange_reduction, try_around_a_prange_reduction])
def test_try_and_prange_reductions(function):
    assert njit(parallel=True)(function)(10) == function(10)


COMPLEX_EDGES = [3 + 1j, 1 + 2j, complex(np.nan, 1), complex(1, np.nan), 1 + 1j, 2 - 1j, 1 + 2j]
COMPLEX_EDGES += [complex(np.nan, np.nan), -1 + 0j, complex(np.nan, 0), complex(3, np.nan), 0j]


@njit
def sorted_complex(a):
    in_place = a.copy()
    in_place.sort()
    return np.sort(a), np.argsort(a, kind="stable"), in_place


@settings(max_examples=25, deadline=None)
@given(st.permutations(COMPLEX_EDGES), st.sampled_from([np.complex128, np.complex64]))
def test_complex_sorting_follows_numpy_with_nans_last(values, dtype):
    a = np.array(values, dtype)
    got_sorted, got_order, got_in_place = sorted_complex(a)
    expected = np.sort(a)
    for got in (got_sorted, got_in_place):  # bit views: NaNs compare equal by position
        np.testing.assert_array_equal(got.view(got.real.dtype), expected.view(a.real.dtype))
    np.testing.assert_array_equal(got_order, np.argsort(a, kind="stable"))


CACHED_EXCEPTION_TEXT = """\
import ember


@ember.njit(cache=True)
def text(x):
    try:
        return str(1 // x)
    except ZeroDivisionError as e:
        return "caught " + str(e)
"""

CACHE_DRIVER = """\
import warnings
warnings.simplefilter("error")  # a refused cache entry warns
import cached_text
print(cached_text.text(0), sum(cached_text.text.stats.cache_hits.values()))
"""


def test_str_of_a_caught_exception_is_cached_on_disk(tmp_path):
    (tmp_path / "cached_text.py").write_text(CACHED_EXCEPTION_TEXT)
    (tmp_path / "driver.py").write_text(CACHE_DRIVER)
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, str(tmp_path)])}
    outputs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "driver.py"], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout.split())
    expected = ["caught", *str(_zero_division()).split()]
    assert outputs == [[*expected, "0"], [*expected, "1"]]


def identity_of_singletons(x, y):
    return x is y, x is not y, x is None


@pytest.mark.parametrize(("x", "y"), [(..., ...), (None, None), (None, 3), (2.5, None)])
def test_is_of_ellipsis_and_none(x, y):
    assert njit(identity_of_singletons)(x, y) == identity_of_singletons(x, y)


def test_heapify_of_complex_numbers_says_what_cpython_says():
    values = [1 + 1j, 2 - 3j, 0j]
    with pytest.raises(TypeError) as cpython:
        heapq.heapify(list(values))

    @njit
    def heapify(x):
        heapq.heapify(x)

    with pytest.raises(TypingError, match=re.escape(str(cpython.value))):
        heapify(values)


def display_of_arrays(a, b):
    return np.array([a, b]), np.asarray([a, b, a])


def test_np_array_of_a_display_of_arrays():
    a, b = np.arange(3.0), np.ones(3)
    for got, expected in zip(njit(display_of_arrays)(a, b), display_of_arrays(a, b)):
        np.testing.assert_array_equal(got, expected)
