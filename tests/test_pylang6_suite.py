"""Language-core behaviours from Numba's test modules, checked against CPython running the same
Python functions: a bare `raise` in a jitted callee re-raises the exception a compiled caller's
`except` handles; loops (and enumerate/zip) over tuples of mixed types the function computes
unroll; inner functions over run-time values are values (passed to @overload-ed functions,
returned to jitted code and to Python)."""

from __future__ import annotations

import numpy as np
import pytest

from ember import UnsupportedError, jit, njit
from ember.extending import overload
from tests.oracle import assert_frees_all

# ------------------------------------------------------- a bare raise under a compiled handler


def reraise_if(flag):
    if flag:
        raise
    return 1


def make_handlers(callee):
    """Functions whose handlers call `callee` (the jitted or the Python re-raiser)."""

    def in_handler(n, text):
        total = 0
        for i in range(n):
            try:
                if i % 3 == 0:
                    raise ValueError(text, i)
                if i % 3 == 1:
                    raise KeyError(i)
                total += 100
            except ValueError:
                try:
                    total += callee(i > 4)  # re-raises the ValueError from i = 6 on
                except ValueError:
                    total += 1000
            except KeyError:
                total += callee(False)
        return total

    def nested(n, text):
        try:
            raise IndexError(text, n)
        except IndexError:
            try:
                raise TypeError("inner")
            except TypeError:
                pass
            return callee(True)  # the outer IndexError again, as sys.exc_info() has it

    def propagates(n, text):
        try:
            raise ValueError(text, n)
        except ValueError:
            callee(n > 0)
            return -1

    def after_handler(n, text):
        try:
            raise ValueError(text)
        except ValueError:
            pass
        return callee(n > 0)  # no handler runs here: what the Python caller handles

    return in_handler, nested, propagates, after_handler


def outcome(func, *args):
    try:
        return "value", func(*args)
    except BaseException as error:  # noqa: BLE001 - any outcome is compared
        return type(error), error.args


def test_a_bare_raise_in_a_callee_re_raises_what_the_compiled_handler_handles():
    jitted = [njit(f) for f in make_handlers(njit(reraise_if))]
    expected = make_handlers(reraise_if)
    for compiled, python in zip(jitted, expected, strict=True):
        for args in [(0, ""), (2, "a"), (9, "text é"), (-3, "x" * 40)]:
            assert outcome(compiled, *args) == outcome(python, *args), (python.__name__, args)
            try:  # while Python handles one, after the compiled handlers are left
                raise LookupError("python's")
            except LookupError:
                assert outcome(compiled, *args) == outcome(python, *args)


def test_published_handled_exceptions_free_their_arguments():
    jitted = [njit(f) for f in make_handlers(njit(reraise_if))]

    def run(text):
        for compiled in jitted:
            outcome(compiled, 7, text)

    assert_frees_all(run, lambda: "runtime" * 3, calls=60)


# ------------------------------------------------------- loops over computed mixed tuples


def loop_over_shape_and_more(a, s):
    t = a.shape + (s, 1.5)
    out = 0
    for x in t:
        if isinstance(x, str):
            out = out * 10 + len(x)
        else:
            out = out * 10 + int(x * 2)
    return out


def enumerate_zip_of_mixed(a):
    t = a.shape + (1.5, True)
    total = 0j
    for i, (x, y) in enumerate(zip(t, (2, 3.5, 1j, False, 9))):
        if i == 3:
            break
        if i == 1:
            continue
        total += x * 10 + i + y
    return total


def zip_of_arguments(t, u):
    total = 0j
    for x, y in zip(t, u):
        total += x * y
    return total


def isinstance_in_zip_rows(t, u):
    n = 0
    for i, (x, y) in enumerate(zip(t, u)):
        if isinstance(x, str):
            n += len(x) * i + y
        else:
            n += int(x * 3) - i * y
    return n


def test_isinstance_of_an_unpacked_zip_item_is_decided_per_member():
    compiled = njit(isinstance_in_zip_rows)
    for t, u in [(("ab", 3, 2.5), (1, 2, 3)), ((-1.5, "", "xyz", 7), (4, 5, 6))]:
        assert compiled(t, u) == isinstance_in_zip_rows(t, u)


def generic_over_a_tuple(t):
    n = 0
    for x in t:
        if isinstance(x, str):
            n += len(x)
        else:
            n += x
    return n


def test_isinstance_in_a_loop_over_a_tuple_of_one_type_is_decided_by_that_type():
    compiled = njit(generic_over_a_tuple)
    for t in [(1, 2, -3), ("a", "bb", ""), (2**40,), ("é" * 5,)]:
        assert compiled(t) == generic_over_a_tuple(t)


def test_loops_over_mixed_tuples_the_function_computes_unroll():
    compiled = njit(loop_over_shape_and_more)
    for shape, s in [((2, 3), "abc"), ((0, 4), ""), ((5, 1), "é")]:
        a = np.zeros(shape)
        assert compiled(a, s) == loop_over_shape_and_more(a, s)
    compiled = njit(enumerate_zip_of_mixed)
    for shape in [(4, 5), (1, 0), (0, 7)]:
        a = np.zeros(shape)
        assert compiled(a) == enumerate_zip_of_mixed(a)


def test_zip_over_mixed_tuples_unrolls_up_to_the_shortest():
    compiled = njit(zip_of_arguments)
    cases = [
        ((1, 2.5, 3j), (2, -1.0, True)),
        ((1, 2.5), (3.0, 1j, 7)),  # zip stops at the shorter
        ((True, -3, 0.25), (-1.5, 2, 4)),
    ]
    for t, u in cases:
        assert compiled(t, u) == zip_of_arguments(t, u)


# ------------------------------------------------------- closures over run-time values


def apply(f, arr):
    return np.array([f(v) for v in arr])


@overload(apply)
def _apply_overload(f, arr):
    def impl(f, arr):
        out = np.empty_like(arr)
        for i in range(arr.size):
            out[i] = f(arr[i])
        return out

    return impl


def fold(f, arr, init):
    acc = init
    for v in arr:
        acc = f(acc, v)
    return acc


@overload(fold)
def _fold_overload(f, arr, init):
    def impl(f, arr, init):
        acc = init
        for v in arr:
            acc = f(acc, v)
        return acc

    return impl


def make_adder(a):
    def add(x):
        return x + a

    return add


make_adder_jitted = njit(make_adder)


def closure_cases(adder):
    """Functions passing inner functions over run-time values to @overload-ed functions."""

    def over_array(w, arr):
        def f(x):
            return x * w.sum() + w[0]

        return apply(f, arr)

    def two_captures_and_default(a, b, arr):
        def f(acc, x, k=2):
            return acc * a + x * b * k

        return fold(f, arr, 0.0)

    def lambda_in_loop(arr):
        total = 0.0
        for k in range(-1, 3):
            total += apply(lambda x: x * k - 1, arr).sum()
        return total

    def returned_by_a_jitted_function(a, arr):
        g = adder(a)
        return apply(g, arr) + g(1.0)

    return over_array, two_captures_and_default, lambda_in_loop, returned_by_a_jitted_function


def apply_each(functions, x):
    return sum(f(x) for f in functions)


@overload(apply_each)
def _apply_each_overload(functions, x):
    def impl(functions, x):
        total = 0.0
        for f in functions:
            total += f(x)
        return total

    return impl


def tuple_of_closures(a, b):
    def shift(x):
        return x + a

    def scale(x):
        return x * b

    return apply_each((shift, scale, lambda x: x - a * b), 2.5)


def test_a_tuple_of_closures_given_to_an_overloaded_function():
    compiled = njit(tuple_of_closures)
    for a, b in [(1.0, 3.0), (-2.5, 0.0), (1e300, -1e300)]:
        assert compiled(a, b) == tuple_of_closures(a, b)


def test_inner_functions_over_run_time_values_given_to_overloaded_functions():
    arrays = [np.array([1.0, -2.5, 3.0]), np.empty(0), np.arange(-3.0, 4.0)]
    over_array, two, in_loop, returned = map(njit, closure_cases(make_adder_jitted))
    python = closure_cases(make_adder)
    for arr in arrays:
        w = np.array([2.0, -0.5])
        np.testing.assert_array_equal(over_array(w, arr), python[0](w, arr))
        assert two(1.5, -2.0, arr) == python[1](1.5, -2.0, arr)
        assert in_loop(arr) == python[2](arr)
        np.testing.assert_array_equal(returned(0.25, arr), python[3](0.25, arr))


def test_closure_values_free_what_they_capture():
    over_array = njit(closure_cases(make_adder_jitted)[0])
    assert_frees_all(over_array, lambda: np.array([2.0, 3.0]), lambda: np.arange(5.0))


def test_a_returned_closure_is_a_python_callable_with_cpythons_results():
    for a in (3, -7, 2**40):
        compiled, python = make_adder_jitted(a), make_adder(a)
        assert [compiled(x) for x in (0, 5, -2)] == [python(x) for x in (0, 5, -2)]
    assert make_adder_jitted(0.5)(2) == make_adder(0.5)(2)


def captured_changes_before_the_call(a, arr):
    b = a

    def f(x):
        return x + b

    b = a * 10  # CPython's f reads this b; a closure value holds the first
    return apply(f, arr)


def captured_changes_after_the_call(a, arr, flag):
    b = a

    def f(x):
        return x + b

    result = apply(f, arr)
    if flag:
        b = -a
    return result.sum() + b


def test_a_captured_variable_assigned_between_def_and_use_is_refused():
    with pytest.raises(UnsupportedError, match="closes over 'b', which is assigned after"):
        njit(captured_changes_before_the_call)(1.0, np.arange(3.0))
    compiled = njit(captured_changes_after_the_call)
    for flag in (True, False):
        args = (1.5, np.arange(3.0), flag)
        assert compiled(*args) == captured_changes_after_the_call(*args)


# ------------------------------------------------------- loop lifting: outputs bound on some paths


def last_of_loop(n, flag):
    names = {"n": n}  # a dict: the function runs in object mode, its loop is lifted
    if len(names) > 1:
        return None
    if flag:
        last = -7
    for i in range(n):
        last = i * 3 - n
    return last


def test_a_loop_whose_output_may_be_unbound_before_it_is_lifted():
    compiled = jit(forceobj=True)(last_of_loop)
    for args in [(3, True), (0, True), (4, False), (1, False), (0, False)]:
        assert outcome(compiled, *args) == outcome(last_of_loop, *args), args
    (loop,) = compiled.lifted_loops
    assert loop.object_mode is None and loop.span.outputs == ("last",)
