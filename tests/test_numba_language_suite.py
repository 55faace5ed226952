"""Python features that Numba's own test suite exercises (builtins, iteration, generators,
recursion, object mode): each compiled function is checked against CPython running `py_func`,
or against Numba's documented rule where Python's result has another type."""

from __future__ import annotations

import heapq

import numpy as np
import pytest

import ember.runtime
from ember import jit, literal_unroll, njit


def zip_leaves_later_iterators(n):
    it = iter(range(7))
    front = list(zip(range(n), it))
    return front, list(it)


def zip_of_nothing():
    count = 0
    for _ in zip():
        count += 1
    return count


def zip_three(a, b, n):
    total = 0.0
    for x, y, k in zip(a, b, range(n)):
        total += x * y + k
    return total


@pytest.mark.parametrize("n", [0, 3, 7, 9])
def test_zip_advances_an_iterator_only_while_those_before_it_produced(n):
    assert njit(zip_leaves_later_iterators)(n) == zip_leaves_later_iterators(n)


def test_zip_without_arguments_and_of_three():
    assert njit(zip_of_nothing)() == zip_of_nothing() == 0
    a, b = np.arange(5.0), np.arange(3.0) + 0.5
    for n in (0, 2, 7):
        assert njit(zip_three)(a, b, n) == zip_three(a, b, n)


def tuple_sum_with_start(t, start):
    return sum(t, start=start), sum(t, start)


def test_sum_of_a_mixed_tuple_with_a_start():
    for args in [((1, 2, 3j), 4), ((1.5, 2), 0), ((), 7)]:
        assert njit(tuple_sum_with_start)(*args) == tuple_sum_with_start(*args)


def halves(n):
    for i in range(n):
        yield i * 1.5


def walks_of(gen):
    """Functions that hand a generator made by `gen` to enumerate/zip."""

    def enumerate_temporary_generator(n):
        total = 0.0
        for i, x in enumerate(gen(n)):
            total += x * (i + 1)
        return total

    def zip_generator_variable(n):
        g = gen(n)
        total = 0.0
        for x, k in zip(g, range(100)):
            total += x - k
        for _ in g:  # exhausted: adds nothing
            total += 1000.0
        return total

    def next_of_enumerated_generator(n):
        e = enumerate(gen(n))
        return next(e)

    return [enumerate_temporary_generator, zip_generator_variable, next_of_enumerated_generator]


@pytest.mark.parametrize("which", range(3))
def test_enumerate_and_zip_keep_the_generator_they_walk_alive(which):
    """The generator's variable is released right after enumerate()/zip() takes it; the
    iterator must still resume the same generator (it read freed state before)."""
    py_func = walks_of(halves)[which]
    compiled = njit(walks_of(njit(halves))[which])
    compiled(4)
    before = ember.runtime.stats().live
    assert compiled(4) == py_func(4)
    assert ember.runtime.stats().live == before


def counting_generator(n):
    for i in range(n):
        yield i
        for j in range(1, 3):
            yield i + j


def no_yield_generator():
    if 0:
        yield 1


def test_object_mode_generators_yield_as_cpython():
    compiled = jit(forceobj=True)(counting_generator)
    assert list(compiled(4)) == list(counting_generator(4))
    empty = jit(forceobj=True)(no_yield_generator)()
    assert list(empty) == []
    with pytest.raises(StopIteration):
        next(empty)


def make_inner_recursive_fib():
    @jit("i8(i8)", nopython=True)
    def fib(n):
        if n < 2:
            return n
        return fib(n - 1) + fib(n=n - 2)

    return fib


def test_inner_function_calls_itself_under_an_eager_signature():
    """Its own closure cell is empty while the decorator compiles it."""
    fib = make_inner_recursive_fib()
    assert [fib(n) for n in range(12)] == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89]


def unpack_three(values):
    a, b, c = values
    return a, b, c


def unpack_range(n):
    a, b, c = range(n)
    return a * 100 + b * 10 + c


def unpack_generator(n):
    a, b = (i * 1.5 for i in range(n))
    return a + b


def unpack_strings():
    words = ["a", "bb"]
    first, second = words
    x, y = "xy"
    return first + second + y + x


def outcome(func, *args):
    try:
        return "ok", func(*args)
    except ValueError as error:
        return "ValueError", str(error)


@pytest.mark.parametrize(
    ("func", "args"),
    [
        (unpack_range, (3,)),
        (unpack_range, (2,)),
        (unpack_range, (4,)),
        (unpack_generator, (2,)),
        (unpack_generator, (1,)),
        (unpack_generator, (3,)),
        (unpack_strings, ()),
    ],
)
def test_unpacking_an_iterable_checks_its_length_as_cpython(func, args):
    compiled = njit(func)
    outcome(compiled, *args)
    before = ember.runtime.stats().live
    assert outcome(compiled, *args) == outcome(func, *args)
    assert ember.runtime.stats().live == before


def test_unpacking_a_list_of_arrays():
    values = [np.arange(2.0), np.ones(3), np.zeros(1)]
    got = njit(unpack_three)(values)
    assert all(np.array_equal(g, e) for g, e in zip(got, unpack_three(values)))


def unpack_optional_pair(x):
    if x is None:
        return None
    a, b = x
    return b, a


def test_unpacking_a_tuple_that_may_be_none():
    from ember import types

    optional_pair = types.Optional(types.UniTuple(types.int64, 2))
    compiled = njit((optional_pair,))(unpack_optional_pair)
    assert compiled((1, 2)) == unpack_optional_pair((1, 2)) == (2, 1)
    assert compiled(None) is None


def equal_and_not_equal(a, b):
    return a == b, a != b


@pytest.mark.parametrize("pair", [(1, "1"), ("", 0), (True, "True"), (1.5, "x"), ("1j", 1j)])
def test_a_number_never_equals_a_string(pair):
    assert njit(equal_and_not_equal)(*pair) == equal_and_not_equal(*pair)


def reciprocal(z):
    return 1.0 / z


def sorted_by(values, key=None):
    copy = values[:]
    copy.sort(key=key)
    return sorted(values, key=key), copy


def test_a_jitted_function_passed_from_python_beside_a_list():
    """A dispatcher argument used to route the call through the boxing wrapper, which could not
    take the list."""
    compiled = njit(sorted_by)
    values = [3, 1, 4, 1, 5, 9]
    assert compiled(values[:]) == sorted_by(values[:])
    assert compiled(values[:], njit(reciprocal)) == sorted_by(values[:], reciprocal)


def make_key_passer(compiler):
    @compiler
    def sort_with(values, key):
        return sorted(values, key=key)

    @compiler
    def passer(values):
        def negated(z):
            return -z

        return sort_with(values, negated)

    return passer


def test_an_inner_function_passed_to_a_jitted_function_held_in_a_closure():
    values = [3, 1, 4, 1, 5, 9]
    assert make_key_passer(njit)(values) == make_key_passer(lambda f: f)(values)


def describe(a):
    if isinstance(a, (int, float)):
        if isinstance(a, int):
            return a + 1, "int"
        return a + 2.0, "float"
    elif isinstance(a, str):
        return a + ", world!", "str"
    elif not isinstance(a, (tuple, list, set, bytes)):
        return a.imag, "complex"
    return len(a), "container"


describe_jit = njit(describe)


@pytest.mark.parametrize("value", [1, 2.5, True, "hello", 1j, (1, 2), [1, 2, 3], {4}, b"ab"])
def test_isinstance_on_an_argument_prunes_the_branches_that_cannot_type(value):
    """Numba prunes the branches isinstance() rules out for the argument's type, so each
    branch only has to type for the values that reach it."""
    assert describe_jit(value) == describe(value)


def catch_in_inner_function(x):
    def bar(z):
        try:
            if z > 1:
                raise ValueError("too big")
        except ValueError:
            return -z
        return z

    return bar(x) + bar(1)


def catch_around_mapped_inner_function(x):
    def bar(z):
        if z < 0:
            raise ValueError("negative")
        return z

    try:
        return sum([v for v in map(bar, [1, 2, 3, x])])
    except ValueError:
        return -1


@pytest.mark.parametrize("func", [catch_in_inner_function, catch_around_mapped_inner_function])
@pytest.mark.parametrize("x", [-4, 0, 5])
def test_try_except_in_and_around_inlined_inner_functions(func, x):
    assert njit(func)(x) == func(x)


def yields_until_raise(n, stop):
    for i in range(n):
        try:
            if i == stop:
                raise ValueError
            yield i
        except Exception:
            return


def yields_in_handlers(n):
    buffer = np.zeros(2)
    for i in range(n):
        try:
            if i % 3 == 0:
                raise KeyError(i)
            buffer[0] += i
            yield buffer[0]
        except KeyError:
            yield -float(i)


@pytest.mark.parametrize(("func", "args"), [(yields_until_raise, (10, 5)),
                                            (yields_until_raise, (4, 10)),
                                            (yields_in_handlers, (8,))])  # fmt: skip
def test_try_except_inside_generators(func, args):
    compiled = njit(func)
    list(compiled(*args))
    before = ember.runtime.stats().live
    assert list(compiled(*args)) == list(func(*args))
    assert ember.runtime.stats().live == before


def raises_by_number(i):
    if i == 1:
        raise np.linalg.LinAlgError
    elif i == 2:
        raise np.linalg.LinAlgError("singular", i)
    return i


def test_raising_an_exception_class_found_on_a_module():
    compiled = njit(raises_by_number)
    assert compiled(0) == 0
    for i in (1, 2):
        with pytest.raises(np.linalg.LinAlgError) as expected:
            raises_by_number(i)
        with pytest.raises(np.linalg.LinAlgError) as got:
            compiled(i)
        assert got.value.args == expected.value.args


def in_range(value, start, stop, step):
    return value in range(start, stop, step)


@pytest.mark.parametrize("value", [1 + 0j, 2 + 0j, 1 + 1j, 4.0 + 0j, -2j])
def test_complex_in_range(value):
    for bounds in [(0, 5, 1), (4, -3, -2)]:
        assert njit(in_range)(value, *bounds) == in_range(value, *bounds)


def make_filter_by_enclosing_limit(limit):
    def below_limit(values):
        small = [v for v in values if v < limit]
        return small, sum(v * limit for v in values)

    return below_limit


def test_comprehension_reads_a_free_variable_of_the_enclosing_function():
    func = make_filter_by_enclosing_limit(9)
    assert njit(func)([1, 20, 3]) == func([1, 20, 3])


def unroll_in_inner_function(z):
    members = (23, 23.9, 6j, 8)

    def total():
        acc = 0
        for member in literal_unroll(members):
            acc += member
        return acc

    return total() + z


def test_literal_unroll_inside_an_inlined_inner_function():
    assert njit(unroll_in_inner_function)(1) == unroll_in_inner_function(1)


def identity_tests(a, b):
    return a is b, a is not b


@pytest.mark.parametrize("pair", [("a", False), (True, "True"), (1, "1")])
def test_a_number_is_never_a_string(pair):
    assert njit(identity_tests)(*pair) == identity_tests(*pair)


def smallest_and_largest(n, values):
    return heapq.nsmallest(n, values), heapq.nlargest(n, values)


smallest_and_largest_jit = njit(smallest_and_largest)


@pytest.mark.parametrize("n", [True, False, 2, -1])
def test_heapq_selection_counts_a_boolean_n_as_an_int(n):
    values = [5, 1, 4, 1, 3]
    assert smallest_and_largest_jit(n, values) == smallest_and_largest(n, values)


def read_attributes(x):
    return getattr(x, "real"), getattr(x, "no_such_name", -1.0), hasattr(x, "imag")  # noqa: B009


def read_missing_attribute(x):
    return getattr(x, "no_such_name")  # noqa: B009 - the builtin is under test


def test_getattr_of_a_missing_attribute_raises_attribute_error_when_run():
    assert njit(read_attributes)(2.5) == read_attributes(2.5)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        read_missing_attribute(2.5)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        njit(read_missing_attribute)(2.5)


def repeated(n, times):
    return list(range(n)) * times


def test_a_list_too_large_to_allocate_raises_memory_error():
    """2**62 items of 8 bytes overflow the byte count: MemoryError, not a wrapped allocation."""
    compiled = njit(repeated)
    assert compiled(3, 2) == repeated(3, 2)
    with pytest.raises(MemoryError):
        compiled(1, 2**62)


def none_on_truth(x):
    value = None if x else x
    if value is None:
        return x - 1
    return x


def test_object_mode_with_a_signature_compiles_at_decoration():
    from ember import types

    compiled = jit((types.intp,), forceobj=True)(none_on_truth)
    assert compiled.signatures and compiled.overloads[compiled.signatures[0]].objectmode
    assert [compiled(v) for v in (-1, 0, 1, 2)] == [none_on_truth(v) for v in (-1, 0, 1, 2)]


def prints_with_keywords(x):
    print("x", x, sep="-", end="!\n", flush=True)
    print("y", flush=False)


def test_print_takes_flush(capfd):
    njit(prints_with_keywords)(3)
    compiled_text = capfd.readouterr().out
    prints_with_keywords(3)
    assert compiled_text == capfd.readouterr().out == "x-3!\ny\n"
