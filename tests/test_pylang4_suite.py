"""Language-core behaviours Numba's own test modules exercise (objmode blocks changing lists and
sets, closures passed on with *args, re-raising, transparent with-contexts): each compiled
function is checked against CPython running the same Python function.
PYTEST_DONT_REWRITE: the compiled functions use `assert`."""

from __future__ import annotations

import copy

import pytest

from ember import literal_unroll, njit, objmode, types
from ember.misc.objmode import bypass_context, call_context
from ember.typed import Dict
from tests.oracle import assert_frees_all


def differential(py_func, *args):
    """The jitted function's result (and changes to its arguments) equal CPython's."""
    expected_args, got_args = copy.deepcopy(args), copy.deepcopy(args)
    expected = py_func(*expected_args)
    got = njit(py_func)(*got_args)
    assert got == expected
    assert got_args == expected_args
    return got


# ---------------------------------------------------------------- objmode blocks change containers


def mutate_list_in_blocks(x, z):
    x[2] = z
    with objmode():
        x[2] = 2 * x[2]
    with objmode():
        x.append(len(x))
        del x[0]
    return x


def list_made_in_one_block_changed_in_another(n):
    with objmode(y="List(int64)"):
        y = list(range(n))
    with objmode():
        y.reverse()
        y.append(-1)
    return y


def set_changed_in_block(x):
    s = {1, 2, 3}
    with objmode():
        s.add(x)
        s.discard(1)
    return len(s), sum(s)


def aliases_see_the_change(n):
    a = [1.5, 2.5]
    b = a
    with objmode():
        a.extend([float(i) for i in range(n)])
    return len(b), sum(b)


def list_cleared_in_block(x):
    with objmode():
        x.clear()
    x.append(3)
    return x


@pytest.mark.parametrize("z", [0, -7, 15])
def test_objmode_list_changes_reach_compiled_code(z):
    differential(mutate_list_in_blocks, [1, 2, 3, 4], z)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_objmode_list_from_one_block_changed_in_the_next(n):
    differential(list_made_in_one_block_changed_in_another, n)


@pytest.mark.parametrize("x", [1, 2, 9])
def test_objmode_set_changes_reach_compiled_code(x):
    differential(set_changed_in_block, x)


@pytest.mark.parametrize("n", [0, 3])
def test_objmode_list_changes_seen_through_aliases(n):
    differential(aliases_see_the_change, n)


def test_objmode_list_emptied_then_grown():
    differential(list_cleared_in_block, [4, 5, 6])


def test_objmode_list_given_a_wrong_item_raises_type_error():
    def put_string(x):
        with objmode():
            x.append("a")
        return x

    with pytest.raises(TypeError, match="heterogeneous list"):
        njit(put_string)([1])


def test_objmode_list_write_back_frees_everything():
    assert_frees_all(njit(mutate_list_in_blocks), lambda: [1, 2, 3, 4], lambda: 5)
    assert_frees_all(njit(set_changed_in_block), lambda: 4)


# ---------------------------------------------------------------- transparent with-contexts


def inside_transparent_contexts(x):
    a = x + 1
    with bypass_context:
        b = a * 2
        with call_context:
            c = b - 3
    return a, b, c


@pytest.mark.parametrize("x", [-4, 0, 10])
def test_bypass_and_call_contexts_compile_their_block_in_place(x):
    differential(inside_transparent_contexts, x)


# ---------------------------------------------------------------- inner functions called with *args


@njit
def apply_to(func, *args):
    return func(*args)


_OFFSET = 123


def closures_through_star_args(x):
    y = 10

    def add_offset(z):
        return y + z + _OFFSET

    def scaled(a, b=3):
        return a * b

    def count(*z):
        return len(z)

    pair = (x, 2)
    return (
        apply_to(add_offset, x),
        apply_to(scaled, x),
        apply_to(scaled, x, -5),
        count(*pair),
        scaled(*pair),
        apply_to(count),
        apply_to(count, x, x, x),
    )


def star_args_read_when_built(x):
    def plus(a, b):
        return a + b

    pair = (x, 1)
    x = 100  # the tuple keeps the value it was built with
    return plus(*pair), x


def map_lambda_over_star_iterables(n):
    ranges = range(n), range(10, 10 + n)
    return [y for y in map(lambda a, b: (a + 10, b - 5), *ranges)]


def map_closure_over_one_star_iterable(n):
    k = -3
    ranges = (range(n),)
    return sum(map(lambda a: a * k, *ranges))


@pytest.mark.parametrize("x", [-9, 0, 5])
def test_inner_functions_passed_on_and_called_with_star_args(x):
    # the Python run passes the inner functions to apply_to's Python function
    python_result = _with_python_apply(closures_through_star_args, x)
    assert njit(closures_through_star_args)(x) == python_result


def _with_python_apply(func, *args):
    saved = globals()["apply_to"]
    globals()["apply_to"] = saved.py_func
    try:
        return func(*args)
    finally:
        globals()["apply_to"] = saved


@pytest.mark.parametrize("x", [-1, 7])
def test_star_args_tuple_keeps_the_values_it_was_built_with(x):
    differential(star_args_read_when_built, x)


@pytest.mark.parametrize("n", [0, 1, 6])
def test_map_of_a_lambda_over_star_unpacked_iterables(n):
    differential(map_lambda_over_star_iterables, n)
    differential(map_closure_over_one_star_iterable, n)


def test_star_args_of_unknown_length_is_a_clear_error():
    from ember.errors import UnsupportedError

    def spread_argument(t):
        def plus(a, b):
            return a + b

        return plus(*t)

    with pytest.raises(UnsupportedError, match="pass the items one by one"):
        njit(spread_argument)((1, 2))


# ---------------------------------------------------------------- reading unassigned locals


def loop_variable_after_loop(n):
    for i in range(n):  # noqa: B007 - read after the loop
        pass
    return i


def assigned_on_one_branch(x):
    if x > 0:
        y = 1.5 * x
    return y


def assigned_in_try(x):
    try:
        if x:
            raise ValueError("no z")
        z = 3
    except ValueError:
        pass
    return z


def first_item_remembered(xs):
    acc = 0
    for k in range(len(xs)):
        if xs[k] > 0:
            first = xs[k]
        acc += first
    return acc


def caught_unbound(x):
    try:
        return assigned_on_one_branch_jitted(x)
    except UnboundLocalError:
        return -1.0


def unbound_in_generator(n):
    for i in range(n):
        yield i
    yield i * 10


def unbound_inside_inner_function(x):
    def pick():
        if x > 0:
            v = x
        return v

    return pick()


assigned_on_one_branch_jitted = njit(assigned_on_one_branch)


def outcome(func, *args):
    """The result, or the exception's class and message."""
    try:
        return ("value", func(*args))
    except Exception as error:  # noqa: BLE001 - compared as data
        return (type(error), str(error))


def objmode_block_reading_a_later_variable(n):
    out = 0
    for i in range(n):
        with objmode(out="int64"):
            out = previous * 2 if i > 0 else -1  # noqa: F821 - assigned on a later line
        previous = i  # noqa: F841 - read by the next pass of the block
    return out


@pytest.mark.parametrize(
    ("py_func", "args"),
    [
        (objmode_block_reading_a_later_variable, (0,)),
        (objmode_block_reading_a_later_variable, (1,)),
        (objmode_block_reading_a_later_variable, (4,)),
        (loop_variable_after_loop, (3,)),
        (loop_variable_after_loop, (0,)),
        (assigned_on_one_branch, (2,)),
        (assigned_on_one_branch, (-2,)),
        (assigned_in_try, (0,)),
        (assigned_in_try, (1,)),
        (first_item_remembered, ([3, -1, 4],)),
        (first_item_remembered, ([-3, 1],)),
        (first_item_remembered, ([-1, -2],)),
        (unbound_inside_inner_function, (4,)),
        (unbound_inside_inner_function, (-4,)),
    ],
)
def test_reading_an_unassigned_local_raises_unbound_local_error(py_func, args):
    assert outcome(njit(py_func), *args) == outcome(py_func, *args)


def test_unbound_local_error_is_caught_by_compiled_except():
    for x in (5, -5):
        assert njit(caught_unbound)(x) == caught_unbound(x)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_unbound_local_error_in_a_generator(n):
    expected = []
    try:
        expected.extend(unbound_in_generator(n))
    except UnboundLocalError as error:
        expected.append(str(error))
    got = []
    try:
        got.extend(njit(unbound_in_generator)(n))
    except UnboundLocalError as error:
        got.append(str(error))
    assert got == expected


# ---------------------------------------------------------------- yields in unrolled loops


def yield_each_member(a):
    for x in literal_unroll(a):  # noqa: UP028 - the unrolled loop is the point
        yield x


def yield_members_then_more(a, last):
    for x in literal_unroll(a):  # noqa: UP028 - the unrolled loop is the point
        yield x
        yield -1
    yield last


@pytest.mark.parametrize("members", [(1, 2.5, 4j), (1, 2, 3), (7,), (True, 3.5)])
def test_generator_yields_every_member_of_an_unrolled_tuple(members):
    assert list(njit(yield_each_member)(members)) == list(yield_each_member(members))


@pytest.mark.parametrize("members", [(1, 2.5), (3, 4, 5)])
def test_unrolled_generator_resumes_after_each_yield(members):
    expected = list(yield_members_then_more(members, 99))
    assert list(njit(yield_members_then_more)(members, 99)) == expected


def test_generator_over_an_unrolled_tuple_consumed_by_compiled_code():
    yield_jitted = njit(yield_each_member)

    @njit
    def consume():
        return [x for x in yield_jitted((1, 2.5, 3j))]

    assert consume() == [1, 2.5, 3j]


# ---------------------------------------------------------------- raising what is no exception


def raise_a_string():
    raise "illegal"  # noqa: B016 - the error under test


def raise_a_builtin_function(x):
    raise int


def test_raising_a_string_is_a_clear_compile_error():
    from ember.errors import TypingError, UnsupportedError

    with pytest.raises(UnsupportedError, match="Directly raising a string constant") as caught:
        njit(raise_a_string)()
    assert isinstance(caught.value, TypingError)
    with pytest.raises(UnsupportedError, match="unsupported constant type used for exception"):
        njit(raise_a_builtin_function)(1)


# ---------------------------------------------------------------- local containers into objmode


def local_list_of_tuples_grown_in_block(n):
    x = [(1, 2.5), (3, 4.5)]
    with objmode():
        x.append((n, 0.5))
    return len(x), x[-1], x[0]


def local_list_printed_then_used(n):
    x = [n, n + 1]
    with objmode():
        x.sort(reverse=True)
    x.append(-n)
    return len(x), x[0], x[-1]


def local_typed_dict_shared_with_block(n):
    d = Dict.empty(key_type=types.int64, value_type=types.float64)
    d[1] = 0.5
    with objmode():
        d[n] = 2.5
    return len(d), d[n]


@pytest.mark.parametrize("n", [-3, 0, 7])
def test_local_containers_stay_alive_across_objmode_blocks(n):
    differential(local_list_of_tuples_grown_in_block, n)
    differential(local_list_printed_then_used, n)
    assert njit(local_typed_dict_shared_with_block)(n) == local_typed_dict_shared_with_block(n)


def test_local_containers_across_objmode_blocks_free_everything():
    assert_frees_all(njit(local_list_of_tuples_grown_in_block), lambda: 4)
    assert_frees_all(njit(local_list_printed_then_used), lambda: 4)
    assert_frees_all(njit(local_typed_dict_shared_with_block), lambda: 4)


# ---------------------------------------------------------------- objmode output declarations


def float_for_declared_integers(x):
    with objmode(val="intp", pair=types.UniTuple(types.int32, 2), real="float64"):
        val = x * 1.5
        pair = (x / 2, -x / 2)
        real = 3
    return val, pair, real


@pytest.mark.parametrize("x", [-7, 0, 7, 1001])
def test_objmode_float_for_a_declared_integer_truncates_toward_zero(x):
    expected = (int(x * 1.5), (int(x / 2), int(-x / 2)), 3.0)
    assert njit(float_for_declared_integers)(x) == expected


def test_objmode_nan_for_a_declared_integer_is_a_type_error():
    def not_a_number():
        with objmode(val="intp"):
            val = float("nan")
        return val

    with pytest.raises(TypeError, match="declared as int64"):
        njit(not_a_number)()


def test_objmode_output_annotation_that_is_no_type_names_the_reason():
    from ember.errors import CompilerError

    def undefined_global():
        with objmode(val=no_such_type):  # noqa: F821 - the error under test
            val = 1
        return val

    def bad_expression():
        with objmode(val=1 + 1):
            val = 1
        return val

    with pytest.raises(CompilerError, match="Global 'no_such_type' is not defined"):
        njit(undefined_global)()
    with pytest.raises(CompilerError, match="must be a compile-time constant"):
        njit(bad_expression)()
